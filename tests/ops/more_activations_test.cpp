// Asinh-3, Acosh-3, Atanh-3 (in opset4 and later), SoftSign-9, Selu-1 and HardSigmoid-1 against their formulas, with
// the types they take and reject.
#include <cmath>

#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

TEST(InverseHyperbolic, MatchTheStandardLibrary) {
    const std::vector<double> x{0.1, 0.5, 0.9};
    for (ElementType t : {ElementType::f32, ElementType::f64, ElementType::f16}) {
        const Tensor in = make_tensor(t, {3}, x);
        const auto check = [&](const char* op, double (*f)(double), const std::vector<double>& args) {
            const Tensor input = make_tensor(t, {3}, args);
            const std::vector<double> got = to_doubles(OpTester(op, 4).run1({input}));
            for (size_t i = 0; i < args.size(); ++i) EXPECT_NEAR(got[i], f(to_doubles(input)[i]), 2e-3) << op << " " << to_string(t);
        };
        check("Asinh", std::asinh, x);
        check("Atanh", std::atanh, x);
        check("Acosh", std::acosh, {1.0, 2.0, 5.5});
    }
    // Integers go through f64 and round: asinh(3) = 1.818 -> 2.
    EXPECT_EQ(values_of<int32_t>(OpTester("Asinh", 4).run1({make_tensor<int32_t>({1}, {3})})), (std::vector<int32_t>{2}));
}

TEST(SoftSign, IsXOverOnePlusAbsX) {
    const Tensor out = OpTester("SoftSign", 9).run1({make_tensor<float>({3}, {-3, 0, 1})});
    EXPECT_EQ(values_of<float>(out), (std::vector<float>{-0.75f, 0, 0.5f}));
    EXPECT_TRUE(throws_error([] { OpTester("SoftSign", 9).run1({make_tensor<int32_t>({1}, {1})}); }, ErrorKind::Type,
                             "element-type-unsupported", "i32"));
}

TEST(SeluHardSigmoid, Formulas) {
    const Tensor x = make_tensor<float>({4}, {-2, -0.5f, 0, 1.5f});
    const Tensor selu = OpTester("Selu", 1).run1({x, scalar(1.67326f), make_tensor<float>({1}, {1.0507f})});
    const std::vector<float> s = values_of<float>(selu);
    EXPECT_NEAR(s[0], 1.0507 * 1.67326 * std::expm1(-2.0), 1e-5);
    EXPECT_NEAR(s[3], 1.0507 * 1.5, 1e-5);
    EXPECT_EQ(s[2], 0.0f);
    const Tensor hs = OpTester("HardSigmoid", 1).run1({x, scalar(0.2f), scalar(0.5f)});
    const std::vector<float> h = values_of<float>(hs);
    const std::vector<float> want{0.1f, 0.4f, 0.5f, 0.8f};
    for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(h[i], want[i], 1e-6) << i;
    const Tensor sat = OpTester("HardSigmoid", 1).run1({make_tensor<double>({2}, {-10, 10}), scalar(0.2), scalar(0.5)});
    EXPECT_EQ(values_of<double>(sat), (std::vector<double>{0, 1}));
    EXPECT_TRUE(throws_error([&] { OpTester("Selu", 1).run1({x, make_tensor<float>({2}, {1, 1}), scalar(1.0f)}); },
                             ErrorKind::ShapeRule, "scalar-expected", "alpha", 1));
    EXPECT_TRUE(throws_error([&] { OpTester("HardSigmoid", 1).run1({x, scalar(0.2), scalar(0.5f)}); }, ErrorKind::Type,
                             "element-type-mismatch", "alpha", 1));
}

}  // namespace
}  // namespace irlite
