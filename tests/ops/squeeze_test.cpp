// Squeeze-1 and Squeeze-15: with and without axes (negative, repeated, pointing at a dim that is not 1), zero-copy
// views, load-time rules, and error rows.
#include <gtest/gtest.h>

#include <optional>

#include "op_tester.hpp"
#include "kernels/all_ops.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

struct SqueezeRow {
    const char* name;
    Shape data;
    std::optional<std::vector<int64_t>> axes;
    Shape out;
};

const SqueezeRow kRows[] = {
    {"all_ones_removed", {1, 3, 1, 2}, std::nullopt, {3, 2}},
    {"listed_axes", {1, 3, 1, 2}, {{0, 2}}, {3, 2}},
    {"one_axis", {1, 3, 1, 2}, {{2}}, {1, 3, 2}},
    {"negative_axis", {1, 3, 1, 2}, {{-2}}, {1, 3, 2}},
    {"repeated_axis", {1, 3, 1, 2}, {{0, -4}}, {3, 1, 2}},
    {"not_one_is_kept", {1, 3, 1, 2}, {{1}}, {1, 3, 1, 2}},
    {"to_scalar", {1}, {{0}}, {}},
    {"empty_axes", {1, 3}, std::vector<int64_t>{}, {1, 3}},
    {"nothing_to_remove", {2, 3}, std::nullopt, {2, 3}},
};

class SqueezeRows : public ::testing::TestWithParam<SqueezeRow> {};

TEST_P(SqueezeRows, ShapeAndView) {
    const SqueezeRow& r = GetParam();
    const OpTester squeeze("Squeeze", 1);
    const Tensor data = iota(ElementType::f32, r.data);
    std::vector<Tensor> in = {data};
    if (r.axes) in.push_back(i64s(*r.axes));
    const Tensor out = squeeze.run1(in, r.axes ? std::vector<size_t>{1} : std::vector<size_t>{});
    EXPECT_EQ(out.shape(), r.out);
    EXPECT_TRUE(out.shares_buffer_with(data));
}

INSTANTIATE_TEST_SUITE_P(Rows, SqueezeRows, ::testing::ValuesIn(kRows),
                         [](const auto& row) { return std::string(row.param.name); });

TEST(Squeeze, DtypeSweepIsAView) {
    const OpTester squeeze("Squeeze", 1);
    for (int t = 0; t < kNumElementTypes; ++t) {
        const auto type = static_cast<ElementType>(t);
        SCOPED_TRACE(to_string(type));
        const Tensor data = iota(type, {1, 4, 1});
        const Tensor out = squeeze.run1({data, make_tensor<int32_t>({}, {0})});
        EXPECT_EQ(out.shape(), (Shape{4, 1}));
        EXPECT_EQ(out.type(), type);
        EXPECT_TRUE(out.shares_buffer_with(data));
    }
}

TEST(Squeeze, RuleWithUnknowns) {
    const OpTester squeeze("Squeeze", 1);
    // An unknown dim named by axes counts as 1.
    auto infos = squeeze.infer({unknown(ElementType::f32, {kDynamic, 3}), known(i64s({0}))});
    EXPECT_EQ(infos[0].shape, PartialShape({3}));
    // Without axes, an unknown dim may or may not go: unknown rank.
    infos = squeeze.infer({unknown(ElementType::f32, {kDynamic, 3})});
    EXPECT_FALSE(infos[0].shape.rank_known());
    // Axes values unknown: unknown rank.
    infos = squeeze.infer({unknown(ElementType::f32, {1, 3}), unknown(ElementType::i64, {1})});
    EXPECT_FALSE(infos[0].shape.rank_known());
}

TEST(Squeeze, Version15AllowAxisSkip) {
    // Squeeze-15 is the Squeeze of opset15 and opset16; Squeeze-1 ends at opset14.
    EXPECT_EQ(builtin_ops().find("Squeeze", 14)->version, 1);
    EXPECT_EQ(builtin_ops().find("Squeeze", 15)->version, 15);
    EXPECT_EQ(builtin_ops().find("Squeeze", 16)->version, 15);
    // Without allow_axis_skip it behaves as Squeeze-1: a listed unknown dim counts as 1.
    const OpTester plain("Squeeze", 15);
    auto infos = plain.infer({unknown(ElementType::f32, {kDynamic, 3}), known(i64s({0}))});
    EXPECT_EQ(infos[0].shape, PartialShape({3}));
    // With it, that dim may be kept: the rank is unknown until the dim is.
    const OpTester skip("Squeeze", 15, {IrAttribute{"allow_axis_skip", "true"}});
    infos = skip.infer({unknown(ElementType::f32, {kDynamic, 3}), known(i64s({0}))});
    EXPECT_FALSE(infos[0].shape.rank_known());
    // Known shapes: both remove a listed 1 and keep a listed dim that is not 1.
    const Tensor x = iota(ElementType::f32, {1, 3, 1});
    EXPECT_EQ(skip.run1({x, i64s({0, 1})}).shape(), Shape({3, 1}));
    EXPECT_EQ(plain.run1({x, i64s({2})}).shape(), Shape({1, 3}));
}

TEST(Squeeze, Errors) {
    const OpTester squeeze("Squeeze", 1);
    EXPECT_TRUE(throws_error([&] { squeeze.run1({iota(ElementType::f32, {1, 3}), i64s({2})}); }, ErrorKind::Value,
                             "axis-out-of-range", "axis 2 out of the tensor rank range [-2, 1]", 1));
    EXPECT_TRUE(throws_error([&] { squeeze.run1({iota(ElementType::f32, {1, 3}), make_tensor<int64_t>({1, 1}, {0})}); },
                             ErrorKind::ShapeRule, "rank-invalid", "axes must be a scalar or 1-D", 1));
    EXPECT_TRUE(throws_error([&] { squeeze.run1({iota(ElementType::f32, {1, 3}), make_tensor<double>({1}, {0})}); },
                             ErrorKind::Type, "index-type", "axes must be an integer tensor", 1));
}

}  // namespace
}  // namespace irlite
