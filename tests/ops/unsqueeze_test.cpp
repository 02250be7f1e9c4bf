// Unsqueeze-1: axes in output positions (negative, unordered, scalar), zero-copy views, load-time
// rules, and error rows.
#include <gtest/gtest.h>

#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

struct UnsqueezeRow {
    const char* name;
    Shape data;
    std::vector<int64_t> axes;
    Shape out;
};

const UnsqueezeRow kRows[] = {
    {"axis_0", {3, 4, 5}, {0}, {1, 3, 4, 5}},
    {"axis_2", {3, 4, 5}, {2}, {3, 4, 1, 5}},
    {"axis_3", {3, 4, 5}, {3}, {3, 4, 5, 1}},
    {"two_axes", {3, 4, 5}, {1, 4}, {3, 1, 4, 5, 1}},
    {"three_axes", {3, 4, 5}, {2, 4, 5}, {3, 4, 1, 5, 1, 1}},
    {"unordered_axes", {3, 4, 5}, {5, 4, 2}, {3, 4, 1, 5, 1, 1}},
    {"negative_axis", {3, 4, 5}, {-1}, {3, 4, 5, 1}},
    {"scalar_data", {}, {0}, {1}},
    {"empty_axes", {3}, {}, {3}},
};

class UnsqueezeRows : public ::testing::TestWithParam<UnsqueezeRow> {};

TEST_P(UnsqueezeRows, ShapeAndView) {
    const UnsqueezeRow& r = GetParam();
    const OpTester unsqueeze("Unsqueeze", 1);
    const Tensor data = iota(ElementType::f32, r.data);
    const Tensor out = unsqueeze.run1({data, i64s(r.axes)}, {1});
    EXPECT_EQ(out.shape(), r.out);
    EXPECT_TRUE(out.shares_buffer_with(data));
}

INSTANTIATE_TEST_SUITE_P(Rows, UnsqueezeRows, ::testing::ValuesIn(kRows),
                         [](const auto& row) { return std::string(row.param.name); });

TEST(Unsqueeze, ScalarAxesAndDtypes) {
    const OpTester unsqueeze("Unsqueeze", 1);
    for (int t = 0; t < kNumElementTypes; ++t) {
        const auto type = static_cast<ElementType>(t);
        SCOPED_TRACE(to_string(type));
        const Tensor data = iota(type, {2});
        const Tensor out = unsqueeze.run1({data, make_tensor<uint8_t>({}, {1})});
        EXPECT_EQ(out.shape(), (Shape{2, 1}));
        EXPECT_TRUE(out.shares_buffer_with(data));
    }
}

TEST(Unsqueeze, RuleWithUnknowns) {
    const OpTester unsqueeze("Unsqueeze", 1);
    auto infos = unsqueeze.infer({unknown(ElementType::f32, {2, 3}), unknown(ElementType::i64, {2})});
    EXPECT_EQ(infos[0].shape, PartialShape::all_dynamic(4));
    infos = unsqueeze.infer({unknown(ElementType::f32, {kDynamic, 3}), known(i64s({0}))});
    EXPECT_EQ(infos[0].shape, PartialShape({1, kDynamic, 3}));
}

TEST(Unsqueeze, Errors) {
    const OpTester unsqueeze("Unsqueeze", 1);
    EXPECT_TRUE(throws_error([&] { unsqueeze.run1({iota(ElementType::f32, {3}), i64s({2})}); }, ErrorKind::Value,
                             "axis-out-of-range", "axis 2 out of the tensor rank range [-2, 1]", 1));
    EXPECT_TRUE(throws_error([&] { unsqueeze.run1({iota(ElementType::f32, {3}), i64s({0, -3})}); }, ErrorKind::Value,
                             "duplicate-axis", "axis -3 repeats output axis 0", 1));
}

}  // namespace
}  // namespace irlite
