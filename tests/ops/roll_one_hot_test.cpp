// Roll-7 and OneHot-1: values against the definitions, scalar and per-axis shifts, repeated and
// negative axes, every element size, and the errors.
#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

// numpy.roll for one axis of a [rows, cols] iota.
TEST(Roll, ShiftsAlongAxes) {
    const OpTester roll("Roll", 7);
    const Tensor x = iota(ElementType::i32, {3, 5});
    EXPECT_EQ(values_of<int32_t>(roll.run1({x, i64s({2}), i64s({1})})),
              (std::vector<int32_t>{3, 4, 0, 1, 2, 8, 9, 5, 6, 7, 13, 14, 10, 11, 12}));
    EXPECT_EQ(values_of<int32_t>(roll.run1({x, i64s({1, -2}), i64s({0, 1})}, {1, 2})),
              (std::vector<int32_t>{12, 13, 14, 10, 11, 2, 3, 4, 0, 1, 7, 8, 9, 5, 6}));
    // A scalar shift applies to every axis; repeated axes add up (2 + 3 = 5 = 0 mod 5).
    EXPECT_EQ(values_of<int32_t>(roll.run1({x, scalar<int64_t>(1), i64s({0, 1})})),
              (std::vector<int32_t>{14, 10, 11, 12, 13, 4, 0, 1, 2, 3, 9, 5, 6, 7, 8}));
    EXPECT_TRUE(tensors_equal(roll.run1({x, i64s({2, 3}), i32s({1, -1})}), x));
    // Shifts larger than the dim, negative ones, and an outer axis with the inner one untouched.
    EXPECT_TRUE(tensors_equal(roll.run1({x, i64s({-7}), i64s({1})}), roll.run1({x, i64s({3}), i64s({1})})));
    EXPECT_EQ(values_of<int32_t>(roll.run1({x, i64s({1}), i64s({0})})),
              (std::vector<int32_t>{10, 11, 12, 13, 14, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
    for (ElementType t : {ElementType::u8, ElementType::f16, ElementType::f64, ElementType::boolean}) {
        const Tensor y = iota(t, {2, 3, 4});
        const Tensor back = roll.run1({roll.run1({y, i64s({1, 3}), i64s({0, 2})}), i64s({-1, -3}), i64s({0, 2})});
        EXPECT_TRUE(tensors_equal(back, y)) << to_string(t);
    }
}

TEST(Roll, Errors) {
    const OpTester roll("Roll", 7);
    const Tensor x = iota(ElementType::f32, {2, 3});
    EXPECT_TRUE(throws_error([&] { roll.run1({x, i64s({1, 2}), i64s({0, 1, 1})}); }, ErrorKind::ShapeRule, "shape-mismatch",
                             "differ in length", 1));
    EXPECT_TRUE(throws_error([&] { roll.run1({x, i64s({1}), i64s({2})}); }, ErrorKind::Value, "axis-out-of-range", "axis 2", 2));
    EXPECT_TRUE(throws_error([&] { roll.run1({x, make_tensor<float>({1}, {1}), i64s({0})}); }, ErrorKind::Type, "index-type",
                             "shift", 1));
}

TEST(OneHot, ExpandsAlongAnyAxis) {
    const Tensor idx = make_tensor<int64_t>({2, 2}, {0, 3, 2, 7});  // 7 is out of range: all off
    const auto onehot = [](int64_t axis) { return OpTester("OneHot", 1, {{"axis", std::to_string(axis)}}); };
    const Tensor last = onehot(-1).run1({idx, scalar<int64_t>(4), scalar(1.0f), scalar(0.0f)});
    ASSERT_EQ(last.shape(), (Shape{2, 2, 4}));
    EXPECT_EQ(values_of<float>(last), (std::vector<float>{1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0}));
    const Tensor first = onehot(0).run1({make_tensor<int32_t>({3}, {1, -1, 0}), scalar<int32_t>(2), scalar<int8_t>(5),
                                         scalar<int8_t>(-5)});
    ASSERT_EQ(first.shape(), (Shape{2, 3}));
    EXPECT_EQ(values_of<int8_t>(first), (std::vector<int8_t>{-5, -5, 5, 5, -5, -5}));
    const Tensor middle = onehot(1).run1({idx, scalar<int64_t>(3), scalar(true), scalar(false)});
    ASSERT_EQ(middle.shape(), (Shape{2, 3, 2}));
    EXPECT_EQ(values_of<bool>(middle), (std::vector<bool>{true, false, false, false, false, false,  //
                                                          false, false, false, false, true, false}));
}

TEST(OneHot, Errors) {
    const OpTester onehot("OneHot", 1, {{"axis", "-1"}});
    const Tensor idx = i64s({0, 1});
    EXPECT_TRUE(throws_error([&] { onehot.run1({idx, scalar<int64_t>(-1), scalar(1.0f), scalar(0.0f)}); }, ErrorKind::Value,
                             "depth-invalid", "non-negative", 1));
    EXPECT_TRUE(throws_error([&] { onehot.run1({idx, scalar<int64_t>(2), scalar(1.0f), scalar(0.0)}); }, ErrorKind::Type,
                             "element-type-mismatch", "off_value", 3));
    EXPECT_TRUE(throws_error([&] { onehot.run1({idx, scalar<int64_t>(2), make_tensor<float>({2}, {1, 1}), make_tensor<float>({2}, {0, 0})}); },
                             ErrorKind::ShapeRule, "scalar-expected", "on_value", 2));
    EXPECT_TRUE(throws_error([&] { OpTester("OneHot", 1, {{"axis", "3"}}).run1({idx, scalar<int64_t>(2), scalar(1.0f), scalar(0.0f)}); },
                             ErrorKind::Attribute, "axis-out-of-range", "axis", 0));
    // Depth unknown at load time: a dynamic dim.
    const auto infos = onehot.infer({known(idx), unknown(ElementType::i64, PartialShape({})), known(scalar(1.0f)), known(scalar(0.0f))});
    EXPECT_EQ(infos[0].shape, PartialShape({2, -1}));
}

}  // namespace
}  // namespace irlite
