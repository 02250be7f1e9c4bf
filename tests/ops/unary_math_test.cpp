// Unary math ops: Exp, Log, Sqrt, Erf, the trigonometric and hyperbolic functions, Abs, Negative,
// Sign, Floor, Ceiling, Round and LogicalNot. Values of every supported element type against a
// double reference (integers rounded where the spec says so), special values, type and attribute
// errors.
#include <gtest/gtest.h>

#include <cmath>

#include "unary_test_util.hpp"
#include "kernels/all_ops.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

const std::vector<double> kValues = {-30, -7.5, -2.5, -1.5, -0.5, -0.3, 0, 0.2, 0.5, 1, 1.5, 2.5, 3.7, 12, 80};
const std::vector<double> kPositive = {1e-6, 0.01, 0.3, 0.5, 1, 2, 2.5, 7, 100, 12345};
const std::vector<double> kUnit = {-1, -0.9, -0.5, -0.1, 0, 0.2, 0.5, 0.99, 1};
const std::vector<double> kModerate = {-5, -2, -1, -0.5, 0, 0.3, 1, 2.5, 5};

double sign(double x) { return static_cast<double>((0 < x) - (x < 0)); }

std::vector<UnaryRow> math_rows() {
    const std::vector<ElementType> all = numeric_types();
    const std::vector<ElementType> signed_types = {ElementType::f16, ElementType::bf16, ElementType::f32,
                                                   ElementType::f64, ElementType::i8,   ElementType::i16,
                                                   ElementType::i32, ElementType::i64};
    const IntegerRule rounded = IntegerRule::Rounded;
    return {
        {"exp", "Exp", 1, {}, [](double x) { return std::exp(x); }, kValues, kFloats},
        {"log", "Log", 1, {}, [](double x) { return std::log(x); }, kPositive, all, rounded},
        {"sqrt", "Sqrt", 1, {}, [](double x) { return std::sqrt(x); }, kPositive, all, rounded},
        {"erf", "Erf", 1, {}, [](double x) { return std::erf(x); }, kValues, all, rounded},
        {"sin", "Sin", 1, {}, [](double x) { return std::sin(x); }, kValues, all, rounded},
        {"cos", "Cos", 1, {}, [](double x) { return std::cos(x); }, kValues, all, rounded},
        {"tan", "Tan", 1, {}, [](double x) { return std::tan(x); }, kModerate, all, rounded},
        {"asin", "Asin", 1, {}, [](double x) { return std::asin(x); }, kUnit, all, rounded},
        {"acos", "Acos", 1, {}, [](double x) { return std::acos(x); }, kUnit, all, rounded},
        {"atan", "Atan", 1, {}, [](double x) { return std::atan(x); }, kValues, all, rounded},
        {"sinh", "Sinh", 1, {}, [](double x) { return std::sinh(x); }, kModerate, all, rounded},
        {"cosh", "Cosh", 1, {}, [](double x) { return std::cosh(x); }, kModerate, all, rounded},
        {"abs", "Abs", 1, {}, [](double x) { return std::fabs(x); }, kValues, all, IntegerRule::Exact},
        {"negative", "Negative", 1, {}, [](double x) { return -x; }, kValues, signed_types, IntegerRule::Exact},
        {"sign", "Sign", 1, {}, sign, kValues, all, IntegerRule::Exact},
        {"floor", "Floor", 1, {}, [](double x) { return std::floor(x); }, kValues, all, IntegerRule::Exact},
        {"ceiling", "Ceiling", 1, {}, [](double x) { return std::ceil(x); }, kValues, all, IntegerRule::Exact},
        {"round_default_half_to_even", "Round", 5, {}, [](double x) { return std::nearbyint(x); }, kValues, all,
         IntegerRule::Exact},
        {"round_half_to_even", "Round", 5, {{"mode", "half_to_even"}}, [](double x) { return std::nearbyint(x); },
         kValues, all, IntegerRule::Exact},
        {"round_half_away_from_zero", "Round", 5, {{"mode", "half_away_from_zero"}},
         [](double x) { return std::round(x); }, kValues, all, IntegerRule::Exact},
    };
}

TEST(UnaryMath, ValuesForEveryType) { check_rows_for_every_type(math_rows()); }

TEST(UnaryMath, UnsupportedTypesAreRejectedByTheRule) {
    for (const UnaryRow& r : math_rows())
        for (ElementType type : types_not_in(r)) expect_type_rejected(r, type);
}

TEST(UnaryMath, IntegersFollowTheSpecExamples) {
    // Sqrt-1: int input [4, 7, 9, 10] -> [2, 3, 3, 3]; Tan-1: [-2, -1, 0, 1, 2] -> [2, -2, 0, 2, -2].
    EXPECT_EQ(values_of<int32_t>(OpTester("Sqrt", 1).run1({make_tensor<int32_t>({4}, {4, 7, 9, 10})})),
              (std::vector<int32_t>{2, 3, 3, 3}));
    EXPECT_EQ(values_of<int64_t>(OpTester("Tan", 1).run1({make_tensor<int64_t>({5}, {-2, -1, 0, 1, 2})})),
              (std::vector<int64_t>{2, -2, 0, 2, -2}));
    // Undefined results do not crash or invoke UB: NaN -> 0, -inf saturates.
    EXPECT_EQ(values_of<int32_t>(OpTester("Sqrt", 1).run1({make_tensor<int32_t>({2}, {-4, 16})})),
              (std::vector<int32_t>{0, 4}));
    EXPECT_EQ(values_of<int16_t>(OpTester("Log", 1).run1({make_tensor<int16_t>({3}, {0, -1, 3})})),
              (std::vector<int16_t>{INT16_MIN, 0, 1}));
    EXPECT_EQ(values_of<uint8_t>(OpTester("Cosh", 1).run1({make_tensor<uint8_t>({2}, {0, 200})})),
              (std::vector<uint8_t>{1, 255}));
    EXPECT_EQ(values_of<uint64_t>(OpTester("Sqrt", 1).run1({make_tensor<uint64_t>({1}, {UINT64_MAX})})),
              (std::vector<uint64_t>{4294967296u}));
    // Wrapping, as two's complement does: |INT_MIN| and -INT_MIN are INT_MIN.
    EXPECT_EQ(values_of<int8_t>(OpTester("Abs", 1).run1({make_tensor<int8_t>({3}, {-128, -5, 127})})),
              (std::vector<int8_t>{-128, 5, 127}));
    EXPECT_EQ(values_of<int64_t>(OpTester("Negative", 1).run1({make_tensor<int64_t>({2}, {INT64_MIN, INT64_MAX})})),
              (std::vector<int64_t>{INT64_MIN, -INT64_MAX}));
    EXPECT_EQ(values_of<uint32_t>(OpTester("Sign", 1).run1({make_tensor<uint32_t>({3}, {0, 1, UINT32_MAX})})),
              (std::vector<uint32_t>{0, 1, 1}));
}

struct SpecialRow {
    const char* name;
    const char* op;
    int opset;
    std::vector<IrAttribute> attrs;
    double x, want;
};

TEST(UnaryMath, SpecialValues) {
    const SpecialRow rows[] = {
        {"exp_minus_inf_is_zero", "Exp", 1, {}, -kInf, 0},
        {"exp_large_negative_is_zero", "Exp", 1, {}, -1000, 0},
        {"exp_inf", "Exp", 1, {}, kInf, kInf},
        {"exp_overflow", "Exp", 1, {}, 1e6, kInf},
        {"exp_nan", "Exp", 1, {}, kNaN, kNaN},
        {"log_zero", "Log", 1, {}, 0, -kInf},
        {"log_negative", "Log", 1, {}, -1, kNaN},
        {"log_inf", "Log", 1, {}, kInf, kInf},
        {"sqrt_negative", "Sqrt", 1, {}, -1, kNaN},
        {"sqrt_inf", "Sqrt", 1, {}, kInf, kInf},
        {"sqrt_minus_zero", "Sqrt", 1, {}, -0.0, 0},
        {"erf_inf", "Erf", 1, {}, kInf, 1},
        {"erf_minus_inf", "Erf", 1, {}, -kInf, -1},
        {"erf_nan", "Erf", 1, {}, kNaN, kNaN},
        {"erf_large", "Erf", 1, {}, 10, 1},
        {"sin_inf", "Sin", 1, {}, kInf, kNaN},
        {"cos_nan", "Cos", 1, {}, kNaN, kNaN},
        {"asin_out_of_domain", "Asin", 1, {}, 2, kNaN},
        {"atan_inf", "Atan", 1, {}, kInf, M_PI / 2},
        {"abs_minus_inf", "Abs", 1, {}, -kInf, kInf},
        {"abs_nan", "Abs", 1, {}, kNaN, kNaN},
        {"negative_inf", "Negative", 1, {}, kInf, -kInf},
        {"sign_nan_is_nan", "Sign", 1, {}, kNaN, kNaN},
        {"sign_minus_zero", "Sign", 1, {}, -0.0, 0},
        {"sign_minus_inf", "Sign", 1, {}, -kInf, -1},
        {"floor_minus_half", "Floor", 1, {}, -0.5, -1},
        {"floor_nan", "Floor", 1, {}, kNaN, kNaN},
        {"ceiling_minus_half", "Ceiling", 1, {}, -0.5, 0},
        {"ceiling_inf", "Ceiling", 1, {}, kInf, kInf},
        {"round_inf", "Round", 5, {}, -kInf, -kInf},
        {"round_nan", "Round", 5, {{"mode", "half_away_from_zero"}}, kNaN, kNaN},
    };
    for (const SpecialRow& r : rows) {
        for (ElementType type : {ElementType::f32, ElementType::f64, ElementType::bf16}) {
            SCOPED_TRACE(std::string(r.name) + " " + to_string(type));
            const Tensor got = OpTester(r.op, r.opset, r.attrs).run1({make_tensor(type, {1}, {r.x})});
            EXPECT_TRUE(close_for(type, got.value_as_double(0), stored(type, r.want)));
        }
    }
}

TEST(UnaryMath, RoundHalves) {
    // The spec's example.
    const std::vector<double> x = {-4.5, -1.9, -1.5, 0.5, 0.9, 1.5, 2.3, 2.5};
    for (ElementType type : {ElementType::f32, ElementType::f64, ElementType::f16}) {
        SCOPED_TRACE(to_string(type));
        const Tensor in = make_tensor(type, {8}, x);
        EXPECT_TRUE(tensors_equal(OpTester("Round", 5).run1({in}),
                                  make_tensor(type, {8}, {-4, -2, -2, 0, 1, 2, 2, 2})));
        EXPECT_TRUE(tensors_equal(OpTester("Round", 5, {{"mode", "half_away_from_zero"}}).run1({in}),
                                  make_tensor(type, {8}, {-5, -2, -2, 1, 1, 2, 2, 3})));
    }
}

TEST(UnaryMath, LogicalNot) {
    const Tensor b = make_tensor<bool>({2, 2}, {true, false, false, true});
    const Tensor got = OpTester("LogicalNot", 1).run1({b});
    EXPECT_EQ(got.shape(), (Shape{2, 2}));
    EXPECT_EQ(values_of<bool>(got), (std::vector<bool>{false, true, true, false}));
    for (int i = 0; i < kNumElementTypes; ++i) {
        const auto type = static_cast<ElementType>(i);
        if (type == ElementType::boolean) continue;
        EXPECT_TRUE(throws_error([&] { OpTester("LogicalNot", 1).infer({unknown(type, PartialShape{2})}); },
                                 ErrorKind::Type, "element-type-unsupported", "supported: boolean", 0));
    }
}

TEST(UnaryMath, LongTensorsCrossChunkBoundaries) {
    std::vector<double> xs(1000);
    for (size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<double>(i % 50) / 4;
    const UnaryRow sqrt{"sqrt_long", "Sqrt", 1, {}, [](double x) { return std::sqrt(x); }, {}, {}, IntegerRule::Rounded};
    for (ElementType type : {ElementType::f16, ElementType::bf16, ElementType::f32}) check_unary(sqrt, type, xs);
    std::vector<double> ints(777);
    for (size_t i = 0; i < ints.size(); ++i) ints[i] = static_cast<double>(i);
    check_unary(sqrt, ElementType::i64, ints);
    check_unary(sqrt, ElementType::u16, ints);
}

TEST(UnaryMath, AttributeErrors) {
    const Tensor x = make_tensor<float>({1}, {1});
    EXPECT_TRUE(throws_error([&] { OpTester("Round", 5, {{"mode", "up"}}).run({x}); }, ErrorKind::Attribute,
                             "attribute-invalid", "half_to_even, half_away_from_zero"));
    EXPECT_EQ(builtin_ops().find("Round", 4), nullptr);  // Round exists from opset5
}

TEST(UnaryMath, ShapeRule) {
    const std::vector<OutputInfo> out = OpTester("Sqrt", 1).infer({unknown(ElementType::u8, PartialShape{kDynamic, 7})});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].type, ElementType::u8);
    EXPECT_EQ(out[0].shape, (PartialShape{kDynamic, 7}));
    EXPECT_EQ(OpTester("Exp", 1).run1({make_tensor<double>({2, 0}, {})}).shape(), (Shape{2, 0}));
}

}  // namespace
}  // namespace irlite
