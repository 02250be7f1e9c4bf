// TopK-1/3/11: max and min, sort by value and by index, ties in index order, every axis, NaN,
// index types, and the errors (k too large, k negative, axis).
#include <cmath>

#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

OpTester topk(int version, int64_t axis, const char* mode, const char* sort, const char* index_type = "i32") {
    return OpTester("TopK", version, {{"axis", std::to_string(axis)}, {"mode", mode}, {"sort", sort}, {"index_element_type", index_type}});
}

TEST(TopK, MaxAndMinByValueAndByIndex) {
    const Tensor x = make_tensor<float>({6}, {5, 3, 1, 2, 5, 5});
    // The spec's example: min, sort=index, k=4 -> the stable answer [5,3,1,2] / [0,1,2,3].
    const auto by_index = topk(11, 0, "min", "index").run({x, scalar<int64_t>(4)});
    EXPECT_EQ(values_of<float>(by_index[0]), (std::vector<float>{5, 3, 1, 2}));
    EXPECT_EQ(values_of<int32_t>(by_index[1]), (std::vector<int32_t>{0, 1, 2, 3}));
    const auto max_value = topk(3, 0, "max", "value").run({x, scalar<int64_t>(3)});
    EXPECT_EQ(values_of<float>(max_value[0]), (std::vector<float>{5, 5, 5}));
    EXPECT_EQ(values_of<int32_t>(max_value[1]), (std::vector<int32_t>{0, 4, 5}));
    const auto min_value = topk(1, 0, "min", "value", "i64").run({x, scalar<int32_t>(2)});
    EXPECT_EQ(values_of<float>(min_value[0]), (std::vector<float>{1, 2}));
    EXPECT_EQ(values_of<int64_t>(min_value[1]), (std::vector<int64_t>{2, 3}));
    const auto max_index = topk(11, 0, "max", "index").run({x, scalar<int64_t>(2)});
    EXPECT_EQ(values_of<int32_t>(max_index[1]), (std::vector<int32_t>{0, 4}));
    // sort=none: as sort=value.
    const auto none = topk(3, 0, "max", "none").run({x, scalar<int64_t>(1)});
    EXPECT_EQ(values_of<int32_t>(none[1]), (std::vector<int32_t>{0}));
}

TEST(TopK, AlongAMiddleAxisOfEveryType) {
    // [2, 3, 2]: k = 2 along axis 1 (negative -2).
    for (ElementType t : {ElementType::f16, ElementType::bf16, ElementType::f32, ElementType::f64, ElementType::i8,
                          ElementType::u64, ElementType::i32}) {
        const Tensor x = make_tensor(t, {2, 3, 2}, {1, 6, 3, 4, 2, 5, 9, 7, 8, 10, 0, 11});
        const auto out = topk(11, -2, "max", "value", "i64").run({x, scalar<int64_t>(2)});
        ASSERT_EQ(out[0].shape(), (Shape{2, 2, 2}));
        EXPECT_EQ(to_doubles(out[0]), (std::vector<double>{3, 6, 2, 5, 9, 11, 8, 10})) << to_string(t);
        EXPECT_EQ(values_of<int64_t>(out[1]), (std::vector<int64_t>{1, 0, 2, 2, 0, 2, 1, 1})) << to_string(t);
        EXPECT_EQ(out[0].type(), t);
    }
}

TEST(TopK, NaNRanksHighestAndKCanBeTheWholeAxis) {
    const Tensor x = make_tensor<float>({4}, {1, NAN, 3, 2});
    const auto max = topk(11, 0, "max", "value").run({x, scalar<int64_t>(4)});
    EXPECT_TRUE(std::isnan(values_of<float>(max[0])[0]));
    EXPECT_EQ(values_of<int32_t>(max[1]), (std::vector<int32_t>{1, 2, 3, 0}));
    const auto min = topk(11, 0, "min", "value").run({x, scalar<int64_t>(4)});
    EXPECT_EQ(values_of<int32_t>(min[1]), (std::vector<int32_t>{0, 3, 2, 1}));
    // k = 0: empty outputs.
    const auto empty = topk(3, 0, "max", "value").run({x, scalar<int64_t>(0)});
    EXPECT_EQ(empty[0].shape(), (Shape{0}));
}

TEST(TopK, ShapeRuleAndErrors) {
    const Tensor x = iota(ElementType::f32, {2, 5});
    EXPECT_TRUE(throws_error([&] { topk(11, 1, "max", "value").run({x, scalar<int64_t>(6)}); }, ErrorKind::Value,
                             "k-invalid", "larger than the axis", 1));
    EXPECT_TRUE(throws_error([&] { topk(3, 1, "max", "value").run({x, scalar<int64_t>(-1)}); }, ErrorKind::Value,
                             "k-invalid", "k is negative", 1));
    EXPECT_TRUE(throws_error([&] { topk(3, 2, "max", "value").run({x, scalar<int64_t>(1)}); }, ErrorKind::Attribute,
                             "axis-out-of-range", "axis 2 out of range for rank 2"));
    EXPECT_TRUE(throws_error([&] { topk(3, 1, "max", "value").run({x, i64s({1, 2})}); }, ErrorKind::ShapeRule, "k-shape",
                             "scalar", 1));
    EXPECT_TRUE(throws_error([&] { topk(3, 0, "max", "value").run({make_tensor<bool>({2}, {true, false}), scalar<int64_t>(1)}); },
                             ErrorKind::Type, "element-type-unsupported", "numeric", 0));
    EXPECT_THROW(OpTester("TopK", 11, {{"axis", "0"}, {"sort", "value"}}).attrs(), Error);  // mode is required
    // k unknown at load time: the axis dim is dynamic.
    const auto infos = topk(11, 1, "max", "value", "i64").infer({known(x), unknown(ElementType::i64, PartialShape({}))});
    EXPECT_EQ(infos[0].shape, PartialShape({2, -1}));
    EXPECT_EQ(infos[1].type, ElementType::i64);
}

}  // namespace
}  // namespace irlite
