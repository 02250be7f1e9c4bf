// Mod-1, FloorMod-1 and the Bitwise*-13 ops: values against the definitions for every type they
// take, broadcasting, remainder by zero, and the types they reject.
#include <cmath>

#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

TEST(Mod, TruncatesAndFloorModFloors) {
    const std::vector<double> a{7, -7, 7, -7, 5, 0, -3};
    const std::vector<double> b{3, 3, -3, -3, 5, 4, 1};
    const std::vector<double> mod{1, -1, 1, -1, 0, 0, 0};
    const std::vector<double> floor_mod{1, 2, -2, -1, 0, 0, 0};
    for (ElementType t : {ElementType::i8, ElementType::i32, ElementType::i64, ElementType::f16, ElementType::f32,
                          ElementType::f64}) {
        const Tensor x = make_tensor(t, {7}, a), y = make_tensor(t, {7}, b);
        EXPECT_EQ(to_doubles(OpTester("Mod", 1).run1({x, y})), mod) << to_string(t);
        EXPECT_EQ(to_doubles(OpTester("FloorMod", 1).run1({x, y})), floor_mod) << to_string(t);
    }
    // Unsigned: both agree; fractional floats; broadcasting a scalar divisor.
    EXPECT_EQ(values_of<uint8_t>(OpTester("FloorMod", 1).run1({make_tensor<uint8_t>({3}, {250, 7, 9}), scalar<uint8_t>(4)})),
              (std::vector<uint8_t>{2, 3, 1}));
    const Tensor f = OpTester("FloorMod", 1).run1({make_tensor<float>({2}, {5.5f, -5.5f}), scalar(2.0f)});
    EXPECT_FLOAT_EQ(f.data<float>()[0], 1.5f);
    EXPECT_FLOAT_EQ(f.data<float>()[1], 0.5f);
    const Tensor m = OpTester("Mod", 1).run1({make_tensor<float>({2}, {5.5f, -5.5f}), scalar(2.0f)});
    EXPECT_FLOAT_EQ(m.data<float>()[1], -1.5f);
    // INT_MIN % -1 is 0; a float remainder by zero is NaN.
    EXPECT_EQ(values_of<int32_t>(OpTester("Mod", 1).run1({scalar<int32_t>(INT32_MIN), scalar<int32_t>(-1)})),
              (std::vector<int32_t>{0}));
    EXPECT_TRUE(std::isnan(OpTester("Mod", 1).run1({scalar(1.0f), scalar(0.0f)}).data<float>()[0]));
}

TEST(Mod, Errors) {
    EXPECT_TRUE(throws_error([] { OpTester("Mod", 1).run1({make_tensor<int32_t>({2}, {1, 2}), make_tensor<int32_t>({2}, {1, 0})}); },
                             ErrorKind::Value, "division-by-zero", "b[1] = 0", 1));
    EXPECT_TRUE(throws_error([] { OpTester("FloorMod", 1).run1({scalar(true), scalar(true)}); }, ErrorKind::Type,
                             "element-type-unsupported", "boolean"));
}

TEST(Bitwise, AndOrXorNotOnIntegersAndBooleans) {
    const Tensor a = make_tensor<int32_t>({4}, {0b1100, -1, 7, 0}), b = make_tensor<int32_t>({4}, {0b1010, 5, -8, 0});
    EXPECT_EQ(values_of<int32_t>(OpTester("BitwiseAnd", 13).run1({a, b})), (std::vector<int32_t>{0b1000, 5, 0, 0}));
    EXPECT_EQ(values_of<int32_t>(OpTester("BitwiseOr", 13).run1({a, b})), (std::vector<int32_t>{0b1110, -1, -1, 0}));
    EXPECT_EQ(values_of<int32_t>(OpTester("BitwiseXor", 13).run1({a, b})), (std::vector<int32_t>{0b0110, -6, -1, 0}));
    EXPECT_EQ(values_of<int32_t>(OpTester("BitwiseNot", 13).run1({a})), (std::vector<int32_t>{~0b1100, 0, -8, -1}));
    EXPECT_EQ(values_of<uint8_t>(OpTester("BitwiseNot", 13).run1({make_tensor<uint8_t>({2}, {0, 0xF0})})),
              (std::vector<uint8_t>{0xFF, 0x0F}));
    // Broadcast a row against a column.
    const Tensor row = make_tensor<uint16_t>({1, 3}, {1, 2, 4}), col = make_tensor<uint16_t>({2, 1}, {3, 6});
    EXPECT_EQ(values_of<uint16_t>(OpTester("BitwiseAnd", 13).run1({row, col})), (std::vector<uint16_t>{1, 2, 0, 0, 2, 4}));
    // Booleans: the logical operations.
    const Tensor p = make_tensor<bool>({4}, {true, true, false, false}), q = make_tensor<bool>({4}, {true, false, true, false});
    EXPECT_EQ(values_of<bool>(OpTester("BitwiseAnd", 13).run1({p, q})), (std::vector<bool>{true, false, false, false}));
    EXPECT_EQ(values_of<bool>(OpTester("BitwiseOr", 13).run1({p, q})), (std::vector<bool>{true, true, true, false}));
    EXPECT_EQ(values_of<bool>(OpTester("BitwiseXor", 13).run1({p, q})), (std::vector<bool>{false, true, true, false}));
    EXPECT_EQ(values_of<bool>(OpTester("BitwiseNot", 13).run1({p})), (std::vector<bool>{false, false, true, true}));
    // Every integer type.
    for (ElementType t : {ElementType::i8, ElementType::i16, ElementType::i64, ElementType::u32, ElementType::u64}) {
        const Tensor x = make_tensor(t, {2}, {6, 3}), y = make_tensor(t, {2}, {3, 5});
        EXPECT_EQ(to_doubles(OpTester("BitwiseXor", 13).run1({x, y})), (std::vector<double>{5, 6})) << to_string(t);
    }
}

TEST(Bitwise, RejectsFloats) {
    for (const char* op : {"BitwiseAnd", "BitwiseOr", "BitwiseXor"})
        EXPECT_TRUE(throws_error([&] { OpTester(op, 13).run1({scalar(1.0f), scalar(2.0f)}); }, ErrorKind::Type,
                                 "element-type-unsupported", "f32"))
            << op;
    EXPECT_TRUE(throws_error([] { OpTester("BitwiseNot", 13).run1({scalar(1.0f)}); }, ErrorKind::Type,
                             "element-type-unsupported", "f32"));
}

}  // namespace
}  // namespace irlite
