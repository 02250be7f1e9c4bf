// Subtract, Divide, Power, Maximum, Minimum, SquaredDifference, the comparisons, LogicalAnd/Or/Xor
// and Select: values per element type against a plain reference, broadcasting, and error rows.
// (Add and Multiply, the broadcast rule and the row plan are in binary_eltwise_test.cpp.)
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

struct ValueRow {
    const char* op;
    ElementType type;
    std::vector<double> a, b, want;
};

TEST(BinaryMath, Values) {
    const ValueRow rows[] = {
        {"Subtract", ElementType::f32, {5, 1.5, -2}, {1, 2, 3}, {4, -0.5, -5}},
        {"Subtract", ElementType::u8, {1, 0, 200}, {2, 1, 100}, {255, 255, 100}},  // wraps
        {"Subtract", ElementType::i64, {-5, 7, 0}, {3, 7, -9}, {-8, 0, 9}},
        {"Divide", ElementType::f32, {1, -3, 0}, {4, 2, 5}, {0.25, -1.5, 0}},
        {"Divide", ElementType::i32, {7, -7, 7, -7}, {2, 2, -2, -2}, {3, -4, -4, 3}},  // floor (Python)
        {"Divide", ElementType::i8, {-128, 9, -9, 1}, {-1, 4, 4, 3}, {-128, 2, -3, 0}},
        {"Divide", ElementType::u16, {7, 65535}, {2, 256}, {3, 255}},
        {"Power", ElementType::f32, {2, 9, 4}, {3, 0.5, -1}, {8, 3, 0.25}},
        {"Power", ElementType::i64, {2, -3, 5, 1, -1, 2}, {10, 3, 0, -4, -3, -1}, {1024, -27, 1, 1, -1, 0}},
        {"Power", ElementType::u8, {2, 3}, {8, 5}, {0, 243}},  // 256 wraps to 0
        {"Maximum", ElementType::i32, {-5, 3, 0}, {2, -7, 0}, {2, 3, 0}},
        {"Maximum", ElementType::f16, {1.5, -2}, {-1, 4}, {1.5, 4}},
        {"Minimum", ElementType::i8, {-5, 3}, {2, -128}, {-5, -128}},
        {"Minimum", ElementType::u64, {5, 0}, {2, 9}, {2, 0}},
        {"SquaredDifference", ElementType::f32, {1, -2}, {4, 2}, {9, 16}},
        {"SquaredDifference", ElementType::i16, {-3, 10}, {3, 0}, {36, 100}},
    };
    for (const ValueRow& r : rows) {
        SCOPED_TRACE(std::string(r.op) + " " + to_string(r.type));
        const Shape shape{static_cast<int64_t>(r.a.size())};
        const Tensor got = OpTester(r.op, 1).run1({make_tensor(r.type, shape, r.a), make_tensor(r.type, shape, r.b)});
        EXPECT_TRUE(tensors_equal(got, make_tensor(r.type, shape, r.want)));
    }
}

TEST(BinaryMath, DivideTruncatesWithoutPythonDiv) {
    const Tensor a = make_tensor<int32_t>({4}, {7, -7, 7, -7});
    const Tensor b = make_tensor<int32_t>({4}, {2, 2, -2, -2});
    const Tensor got = OpTester("Divide", 1, {{"m_pythondiv", "false"}}).run1({a, b});
    EXPECT_EQ(values_of<int32_t>(got), (std::vector<int32_t>{3, -3, -3, 3}));
}

TEST(BinaryMath, IntegerDivisionByZeroIsAnError) {
    const Tensor a = make_tensor<int64_t>({2, 2}, {1, 2, 3, 4});
    const Tensor b = make_tensor<int64_t>({2, 2}, {1, 1, 0, 1});
    EXPECT_TRUE(throws_error([&] { OpTester("Divide", 1).run({a, b}); }, ErrorKind::Value, "division-by-zero", "b[1,0]"));
    // Floats follow IEEE.
    const Tensor got = OpTester("Divide", 1).run1({make_tensor<float>({2}, {1, -1}), make_tensor<float>({2}, {0, 0})});
    EXPECT_TRUE(std::isinf(got.data<float>()[0]) && got.data<float>()[0] > 0);
    EXPECT_TRUE(std::isinf(got.data<float>()[1]) && got.data<float>()[1] < 0);
}

TEST(BinaryMath, BroadcastsLikeNumpy) {
    const Tensor a = make_tensor<float>({2, 1}, {10, 20});
    const Tensor b = make_tensor<float>({3}, {1, 2, 3});
    const Tensor got = OpTester("Subtract", 1).run1({a, b});
    EXPECT_EQ(got.shape(), (Shape{2, 3}));
    EXPECT_EQ(values_of<float>(got), (std::vector<float>{9, 8, 7, 19, 18, 17}));
}

struct CompareRow {
    const char* op;
    std::vector<bool> want;  // for a = {1, 2, 3}, b = {2, 2, 2}
};

TEST(BinaryMath, Comparisons) {
    const CompareRow rows[] = {
        {"Equal", {false, true, false}},   {"NotEqual", {true, false, true}}, {"Less", {true, false, false}},
        {"LessEqual", {true, true, false}}, {"Greater", {false, false, true}}, {"GreaterEqual", {false, true, true}},
    };
    for (ElementType type : {ElementType::f32, ElementType::i8, ElementType::u64, ElementType::f16, ElementType::i64}) {
        for (const CompareRow& r : rows) {
            SCOPED_TRACE(std::string(r.op) + " " + to_string(type));
            const Tensor got =
                OpTester(r.op, 1).run1({make_tensor(type, {3}, {1, 2, 3}), make_tensor(type, {3}, {2, 2, 2})});
            ASSERT_EQ(got.type(), ElementType::boolean);
            EXPECT_EQ(values_of<bool>(got), r.want);
        }
    }
    // Signed integers compare as signed.
    const Tensor got = OpTester("Less", 1).run1({make_tensor<int32_t>({1}, {-1}), make_tensor<int32_t>({1}, {1})});
    EXPECT_TRUE(got.data<bool>()[0]);
}

TEST(BinaryMath, Logical) {
    const Tensor a = make_tensor<bool>({4}, {false, false, true, true});
    const Tensor b = make_tensor<bool>({4}, {false, true, false, true});
    EXPECT_EQ(values_of<bool>(OpTester("LogicalAnd", 1).run1({a, b})), (std::vector<bool>{false, false, false, true}));
    EXPECT_EQ(values_of<bool>(OpTester("LogicalOr", 1).run1({a, b})), (std::vector<bool>{false, true, true, true}));
    EXPECT_EQ(values_of<bool>(OpTester("LogicalXor", 1).run1({a, b})), (std::vector<bool>{false, true, true, false}));
    const Tensor f = make_tensor<float>({4}, {0, 1, 0, 1});
    EXPECT_TRUE(throws_error([&] { OpTester("LogicalAnd", 1).run({f, f}); }, ErrorKind::Type, "element-type-unsupported", "f32"));
}

TEST(BinaryMath, TypeErrors) {
    const Tensor f = make_tensor<float>({2}, {1, 2});
    const Tensor i = make_tensor<int32_t>({2}, {1, 2});
    const Tensor b = make_tensor<bool>({2}, {true, false});
    EXPECT_TRUE(throws_error([&] { OpTester("Subtract", 1).run({f, i}); }, ErrorKind::Type, "element-type-mismatch", "i32"));
    EXPECT_TRUE(throws_error([&] { OpTester("Power", 1).run({b, b}); }, ErrorKind::Type, "element-type-unsupported", "boolean"));
    EXPECT_TRUE(throws_error([&] { OpTester("Maximum", 1).run({f, make_tensor<float>({3}, {1, 2, 3})}); },
                             ErrorKind::ShapeRule, "broadcast-incompatible", ""));
}

TEST(Select, PicksAndBroadcasts) {
    const Tensor cond = make_tensor<bool>({2, 1}, {true, false});
    const Tensor then_ = make_tensor<int16_t>({3}, {1, 2, 3});
    const Tensor else_ = make_tensor<int16_t>({}, {-1});
    const Tensor got = OpTester("Select", 1).run1({cond, then_, else_});
    EXPECT_EQ(got.shape(), (Shape{2, 3}));
    EXPECT_EQ(values_of<int16_t>(got), (std::vector<int16_t>{1, 2, 3, -1, -1, -1}));
    for (ElementType type : {ElementType::u8, ElementType::f16, ElementType::f32, ElementType::f64, ElementType::boolean}) {
        SCOPED_TRACE(to_string(type));
        const Tensor c = make_tensor<bool>({3}, {false, true, false});
        const Tensor got2 = OpTester("Select", 1).run1({c, make_tensor(type, {3}, {1, 1, 1}), make_tensor(type, {3}, {0, 0, 0})});
        EXPECT_TRUE(tensors_equal(got2, make_tensor(type, {3}, {0, 1, 0})));
    }
}

TEST(Select, Errors) {
    const Tensor f = make_tensor<float>({2}, {1, 2});
    const Tensor c = make_tensor<bool>({2}, {true, false});
    EXPECT_TRUE(throws_error([&] { OpTester("Select", 1).run({f, f, f}); }, ErrorKind::Type, "element-type-unsupported", "cond"));
    EXPECT_TRUE(throws_error([&] { OpTester("Select", 1).run({c, f, make_tensor<double>({2}, {1, 2})}); }, ErrorKind::Type,
                             "element-type-mismatch", "f64"));
    EXPECT_TRUE(throws_error([&] { OpTester("Select", 1, {{"auto_broadcast", "none"}}).run({c, f, make_tensor<float>({1}, {1})}); },
                             ErrorKind::ShapeRule, "broadcast-incompatible", ""));
}

}  // namespace
}  // namespace irlite

namespace irlite {
namespace {

using namespace irlite::testing;

// A constant exponent of 2 takes the product path; it must agree with pow for every value,
// infinities and NaN included, in every float type, and only when the exponent broadcasts into a.
TEST(BinaryMath, PowerOfConstantTwoIsASquare) {
    const std::vector<double> x = {0.0, -0.0, 1.5, -2.25, 1e-20, 3e18, std::numeric_limits<double>::infinity(),
                                   -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()};
    const OpTester power("Power", 1);
    for (ElementType type : {ElementType::f32, ElementType::f64, ElementType::f16, ElementType::bf16}) {
        SCOPED_TRACE(to_string(type));
        const Tensor a = make_tensor(type, {static_cast<int64_t>(x.size())}, x);
        const Tensor two = make_tensor(type, {}, {2.0});
        EXPECT_STREQ(power.plan({a, two})->method, "square");
        const Tensor got = power.run1({a, two});
        for (size_t i = 0; i < x.size(); ++i) {
            const double stored_x = a.value_as_double(static_cast<int64_t>(i));
            const double want = static_cast<double>(make_tensor(type, {}, {stored_x * stored_x}).value_as_double(0));
            const double v = got.value_as_double(static_cast<int64_t>(i));
            if (std::isnan(want)) EXPECT_TRUE(std::isnan(v)) << i;
            else EXPECT_EQ(v, want) << i;
        }
    }
    // An exponent that is not 2 everywhere, or that would broadcast a, keeps pow.
    const Tensor a = make_tensor(ElementType::f32, {2}, {3.0, 4.0});
    EXPECT_STRNE(power.plan({a, make_tensor(ElementType::f32, {2}, {2.0, 3.0})})->method, "square");
    EXPECT_STRNE(power.plan({make_tensor(ElementType::f32, {}, {3.0}), make_tensor(ElementType::f32, {2}, {2.0, 2.0})})->method,
                 "square");
    EXPECT_TRUE(tensors_equal(power.run1({a, make_tensor(ElementType::f32, {2}, {2.0, 3.0})}),
                              make_tensor(ElementType::f32, {2}, {9.0, 64.0})));
}

}  // namespace
}  // namespace irlite
