// LRN-1: across channels, across spatial axes, across every axis and none, even sizes, every
// float type, and the errors.
#include <cmath>

#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

std::vector<IrAttribute> lrn_attrs(double alpha, double beta, double bias, int64_t size) {
    return {{"alpha", std::to_string(alpha)}, {"beta", std::to_string(beta)}, {"bias", std::to_string(bias)},
            {"size", std::to_string(size)}};
}

// The definition, directly: a box of `size` per axis in `axes` around each element.
std::vector<double> reference(const std::vector<double>& x, const Shape& shape, const std::vector<int64_t>& axes,
                              double alpha, double beta, double bias, int64_t size) {
    const size_t rank = shape.size();
    std::vector<int64_t> strides(rank, 1);
    for (size_t d = rank; d-- > 1;) strides[d - 1] = strides[d] * shape[d];
    std::vector<double> out(x.size());
    for (size_t e = 0; e < x.size(); ++e) {
        std::vector<int64_t> c(rank);
        for (size_t d = 0; d < rank; ++d) c[d] = static_cast<int64_t>(e) / strides[d] % shape[d];
        // Enumerate the box.
        std::vector<int64_t> lo(rank), hi(rank);
        for (size_t d = 0; d < rank; ++d) lo[d] = hi[d] = c[d];
        for (int64_t a : axes) {
            lo[a] = std::max<int64_t>(0, c[a] - (size - 1) / 2);
            hi[a] = std::min<int64_t>(shape[a] - 1, c[a] + size / 2);
        }
        double sum = 0;
        std::vector<int64_t> p = lo;
        while (true) {
            int64_t flat = 0;
            for (size_t d = 0; d < rank; ++d) flat += p[d] * strides[d];
            sum += x[flat] * x[flat];
            size_t d = rank;
            while (d-- > 0) {
                if (++p[d] <= hi[d]) break;
                p[d] = lo[d];
            }
            if (d == static_cast<size_t>(-1)) break;
        }
        out[e] = x[e] / std::pow(bias + alpha / std::pow(static_cast<double>(size), static_cast<double>(axes.size())) * sum, beta);
    }
    return out;
}

TEST(Lrn, MatchesTheDefinitionOverAnyAxes) {
    const Shape shape{2, 5, 3, 4};
    std::vector<double> x(120);
    for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.37 * static_cast<double>(i)) * 3.0;
    for (const auto& axes : std::vector<std::vector<int64_t>>{{1}, {2, 3}, {0, 1, 2, 3}, {}, {3}})
        for (int64_t size : {1, 2, 3, 4, 5}) {
            const OpTester lrn("LRN", 1, lrn_attrs(3.0, 0.5, 1.0, size));
            const Tensor out = lrn.run1({make_tensor(ElementType::f32, shape, x), i64s(axes)}, {1});
            const std::vector<double> want = reference(x, shape, axes, 3.0, 0.5, 1.0, size);
            const std::vector<double> got = to_doubles(out);
            for (size_t i = 0; i < x.size(); ++i)
                ASSERT_NEAR(got[i], want[i], 1e-5 * (1 + std::abs(want[i]))) << "axes size " << axes.size() << " size " << size << " at " << i;
        }
}

TEST(Lrn, NegativeAxesAndEveryFloatType) {
    const Shape shape{1, 4, 2, 2};
    std::vector<double> x(16);
    for (size_t i = 0; i < x.size(); ++i) x[i] = 0.25 * static_cast<double>(i) - 1.0;
    const OpTester lrn("LRN", 1, lrn_attrs(0.0001, 0.75, 1.0, 3));
    const std::vector<double> want = reference(x, shape, {1}, 0.0001, 0.75, 1.0, 3);
    for (ElementType t : {ElementType::f16, ElementType::bf16, ElementType::f32, ElementType::f64}) {
        const Tensor out = lrn.run1({make_tensor(t, shape, x), make_tensor<int32_t>({1}, {-3})});
        EXPECT_EQ(out.type(), t);
        const std::vector<double> got = to_doubles(out);
        for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-2 * (1 + std::abs(want[i]))) << to_string(t);
    }
}

TEST(Lrn, Errors) {
    const OpTester lrn("LRN", 1, lrn_attrs(0.0001, 0.75, 1.0, 3));
    const Tensor data = iota(ElementType::f32, {1, 2, 2, 2});
    EXPECT_TRUE(throws_error([&] { lrn.run1({data, i64s({4})}); }, ErrorKind::Value, "axis-out-of-range", "axis 4", 1));
    EXPECT_TRUE(throws_error([&] { lrn.run1({iota(ElementType::i32, {2, 2}), i64s({1})}); }, ErrorKind::Type,
                             "element-type-unsupported", "floating-point", 0));
    EXPECT_TRUE(throws_error([&] { lrn.run1({data, make_tensor<float>({1}, {1})}); }, ErrorKind::Type, "type-unsupported",
                             "integer", 1));
    EXPECT_TRUE(throws_error([&] { lrn.run1({data, make_tensor<int64_t>({1, 1}, {1})}); }, ErrorKind::ShapeRule,
                             "rank-invalid", "1-D", 1));
    EXPECT_TRUE(throws_error([&] { OpTester("LRN", 1, lrn_attrs(1, 0, 1, 3)).attrs(); }, ErrorKind::Attribute,
                             "attribute-invalid", "beta"));
    EXPECT_TRUE(throws_error([&] { OpTester("LRN", 1, lrn_attrs(1, 0.5, 1, 0)).attrs(); }, ErrorKind::Attribute,
                             "attribute-invalid", "size"));
}

}  // namespace
}  // namespace irlite
