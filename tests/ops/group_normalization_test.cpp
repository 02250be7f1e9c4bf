// GroupNormalization-12 against the formula: groups of channels, per-channel scale and bias,
// epsilon, f16, and the errors.
#include <cmath>

#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

TEST(GroupNormalization, MatchesTheFormula) {
    const Shape shape{2, 4, 3};
    std::vector<double> x(24);
    for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.9 * static_cast<double>(i)) * 4;
    const std::vector<double> scale{1, 2, 0.5, -1}, bias{0, 1, -1, 0.25};
    const OpTester gn("GroupNormalization", 12, {{"num_groups", "2"}, {"epsilon", "0.001"}});
    for (ElementType t : {ElementType::f32, ElementType::f64, ElementType::f16}) {
        const Tensor out = gn.run1({make_tensor(t, shape, x), make_tensor(t, {4}, scale), make_tensor(t, {4}, bias)});
        const std::vector<double> got = to_doubles(out), xs = to_doubles(make_tensor(t, shape, x));
        for (int64_t n = 0; n < 2; ++n)
            for (int64_t g = 0; g < 2; ++g) {
                double mean = 0, var = 0;
                for (int64_t i = 0; i < 6; ++i) mean += xs[n * 12 + g * 6 + i];
                mean /= 6;
                for (int64_t i = 0; i < 6; ++i) var += std::pow(xs[n * 12 + g * 6 + i] - mean, 2);
                var /= 6;
                for (int64_t i = 0; i < 6; ++i) {
                    const int64_t c = g * 2 + i / 3, at = n * 12 + g * 6 + i;
                    EXPECT_NEAR(got[at], (xs[at] - mean) / std::sqrt(var + 0.001) * scale[c] + bias[c], 1e-2) << to_string(t);
                }
            }
    }
}

TEST(GroupNormalization, Errors) {
    const OpTester gn("GroupNormalization", 12, {{"num_groups", "3"}, {"epsilon", "0"}});
    const Tensor x = iota(ElementType::f32, {1, 4, 2});
    EXPECT_TRUE(throws_error([&] { gn.run1({x, iota(ElementType::f32, {4}), iota(ElementType::f32, {4})}); }, ErrorKind::ShapeRule,
                             "shape-invalid", "not divisible by num_groups 3", 0));
    const OpTester two("GroupNormalization", 12, {{"num_groups", "2"}, {"epsilon", "0"}});
    EXPECT_TRUE(throws_error([&] { two.run1({x, iota(ElementType::f32, {3}), iota(ElementType::f32, {4})}); }, ErrorKind::ShapeRule,
                             "shape-invalid", "scale", 1));
    EXPECT_TRUE(throws_error([] { OpTester("GroupNormalization", 12, {{"num_groups", "0"}, {"epsilon", "0"}}).attrs(); },
                             ErrorKind::Attribute, "attribute-invalid", "num_groups"));
}

}  // namespace
}  // namespace irlite
