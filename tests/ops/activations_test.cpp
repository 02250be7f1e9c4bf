// Activations: ReLU, Sigmoid, Tanh, Elu, Gelu-2/7, HSwish, HSigmoid, SoftPlus, Mish, Clamp, Swish
// and PReLU. Values of every supported element type against a double reference, special values
// (NaN, infinities, huge inputs), the shape rule, attribute and type errors.
#include <gtest/gtest.h>

#include <cmath>

#include "unary_test_util.hpp"
#include "kernels/all_ops.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }
// The exact value: irlite computes max(x, 0) + log1p(exp(-|x|)), with no threshold.
double softplus(double x) { return std::max(x, 0.0) + std::log1p(std::exp(-std::fabs(x))); }
double gelu_erf(double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }
// Gelu computes 0.5 x (1 + erf(x / sqrt 2)) in f32, as PyTorch and ONNX Runtime do: for x < -3 the
// sum cancels to within an f32 ulp of 0, an absolute error of at most |x| * 2^-24 (~4e-7 at -6).
constexpr double kGeluAbsTol = 1e-6;
double gelu_tanh(double x) {
    return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
}

const std::vector<double> kValues = {-30, -6, -3, -2, -1.5, -0.7, -1e-3, 0, 1e-4, 0.25, 0.5, 1, 2, 2.5, 3, 5.5, 19.9, 20.1, 40};

std::vector<UnaryRow> activation_rows() {
    const std::vector<ElementType> all = numeric_types();
    return {
        {"relu", "ReLU", 1, {}, [](double x) { return x > 0 ? x : 0; }, kValues, all, IntegerRule::Exact},
        {"sigmoid", "Sigmoid", 1, {}, sigmoid, kValues, kFloats},
        {"tanh", "Tanh", 1, {}, [](double x) { return std::tanh(x); }, kValues, all, IntegerRule::Rounded},
        {"elu_alpha_half", "Elu", 1, {{"alpha", "0.5"}},
         [](double x) { return x > 0 ? x : 0.5 * std::expm1(x); }, kValues, kFloats},
        {"elu_alpha_zero_is_relu", "Elu", 1, {{"alpha", "0"}}, [](double x) { return x > 0 ? x : 0; }, kValues,
         kFloats},
        {"gelu2_erf", "Gelu", 2, {}, gelu_erf, kValues, kFloats, IntegerRule::None, kGeluAbsTol},
        {"gelu7_default_is_erf", "Gelu", 7, {}, gelu_erf, kValues, kFloats, IntegerRule::None, kGeluAbsTol},
        {"gelu7_erf", "Gelu", 7, {{"approximation_mode", "erf"}}, gelu_erf, kValues, kFloats, IntegerRule::None,
         kGeluAbsTol},
        {"gelu7_tanh", "Gelu", 7, {{"approximation_mode", "tanh"}}, gelu_tanh, kValues, kFloats, IntegerRule::None,
         kGeluAbsTol},
        {"gelu7_mode_any_case", "Gelu", 7, {{"approximation_mode", "TANH"}}, gelu_tanh, kValues, kFloats,
         IntegerRule::None, kGeluAbsTol},
        {"hswish", "HSwish", 4, {}, [](double x) { return x * std::min(std::max(x + 3, 0.0), 6.0) / 6; }, kValues,
         kFloats},
        {"hsigmoid", "HSigmoid", 5, {}, [](double x) { return std::min(std::max(x + 3, 0.0), 6.0) / 6; }, kValues,
         kFloats},
        {"softplus", "SoftPlus", 4, {}, softplus, kValues, kFloats},
        {"mish", "Mish", 4, {}, [](double x) { return x * std::tanh(softplus(x)); }, kValues, kFloats},
        {"swish_default_beta", "Swish", 4, {}, [](double x) { return x * sigmoid(x); }, kValues, kFloats},
        {"clamp_floats", "Clamp", 1, {{"min", "-1.5"}, {"max", "2.25"}},
         [](double x) { return std::min(std::max(x, -1.5), 2.25); }, kValues, kFloats},
        // Integers: min rounds up to -1, max down to 2.
        {"clamp_integers_round_inwards", "Clamp", 1, {{"min", "-1.5"}, {"max", "2.25"}},
         [](double x) { return std::min(std::max(x, -1.0), 2.0); }, {}, kIntegers, IntegerRule::Exact},
    };
}

TEST(Activations, ValuesForEveryType) { check_rows_for_every_type(activation_rows()); }

TEST(Activations, UnsupportedTypesAreRejectedByTheRule) {
    for (const UnaryRow& r : activation_rows()) {
        const bool clamp = std::string(r.name) == "clamp_floats" || std::string(r.name) == "clamp_integers_round_inwards";
        for (ElementType type : types_not_in(r))
            if (!clamp || type == ElementType::boolean) expect_type_rejected(r, type);  // the two rows split Clamp's types
    }
}

struct SpecialRow {
    const char* name;
    const char* op;
    int opset;
    std::vector<IrAttribute> attrs;
    double x, want;
};

TEST(Activations, SpecialValues) {
    const SpecialRow rows[] = {
        {"relu_nan_stays_nan", "ReLU", 1, {}, kNaN, kNaN},
        {"relu_minus_inf", "ReLU", 1, {}, -kInf, 0},
        {"relu_inf", "ReLU", 1, {}, kInf, kInf},
        {"relu_minus_zero", "ReLU", 1, {}, -0.0, 0},
        {"sigmoid_minus_inf", "Sigmoid", 1, {}, -kInf, 0},
        {"sigmoid_inf", "Sigmoid", 1, {}, kInf, 1},
        {"sigmoid_large_negative", "Sigmoid", 1, {}, -200, 0},
        {"sigmoid_nan", "Sigmoid", 1, {}, kNaN, kNaN},
        {"tanh_inf", "Tanh", 1, {}, kInf, 1},
        {"tanh_minus_inf", "Tanh", 1, {}, -kInf, -1},
        {"tanh_nan", "Tanh", 1, {}, kNaN, kNaN},
        {"elu_minus_inf_is_minus_alpha", "Elu", 1, {{"alpha", "2"}}, -kInf, -2},
        {"elu_inf", "Elu", 1, {{"alpha", "2"}}, kInf, kInf},
        {"elu_nan", "Elu", 1, {{"alpha", "2"}}, kNaN, kNaN},
        {"gelu_inf", "Gelu", 7, {}, kInf, kInf},
        {"gelu_far_negative", "Gelu", 7, {}, -40, 0},
        {"gelu_nan", "Gelu", 2, {}, kNaN, kNaN},
        {"gelu_tanh_inf", "Gelu", 7, {{"approximation_mode", "tanh"}}, kInf, kInf},
        {"hswish_nan", "HSwish", 4, {}, kNaN, kNaN},
        {"hswish_inf", "HSwish", 4, {}, kInf, kInf},
        {"hsigmoid_nan", "HSigmoid", 5, {}, kNaN, kNaN},
        {"hsigmoid_minus_inf", "HSigmoid", 5, {}, -kInf, 0},
        {"hsigmoid_inf", "HSigmoid", 5, {}, kInf, 1},
        {"softplus_huge_is_linear", "SoftPlus", 4, {}, 1000, 1000},
        {"softplus_huge_negative", "SoftPlus", 4, {}, -1000, 0},
        {"softplus_inf", "SoftPlus", 4, {}, kInf, kInf},
        {"softplus_minus_inf", "SoftPlus", 4, {}, -kInf, 0},
        {"softplus_nan", "SoftPlus", 4, {}, kNaN, kNaN},
        {"mish_huge", "Mish", 4, {}, 1000, 1000},
        {"mish_nan", "Mish", 4, {}, kNaN, kNaN},
        {"swish_nan", "Swish", 4, {}, kNaN, kNaN},
        {"swish_huge_negative", "Swish", 4, {}, -1000, 0},
        {"clamp_nan_stays_nan", "Clamp", 1, {{"min", "-1"}, {"max", "2"}}, kNaN, kNaN},
        {"clamp_minus_inf", "Clamp", 1, {{"min", "-1"}, {"max", "2"}}, -kInf, -1},
        {"clamp_inf", "Clamp", 1, {{"min", "-1"}, {"max", "2"}}, kInf, 2},
        {"clamp_infinite_bounds", "Clamp", 1, {{"min", "-inf"}, {"max", "inf"}}, -5, -5},
        {"clamp_bound_beyond_f32", "Clamp", 1, {{"min", "-1e300"}, {"max", "1e300"}}, 3, 3},
    };
    for (const SpecialRow& r : rows) {
        for (ElementType type : {ElementType::f32, ElementType::f64, ElementType::f16}) {
            SCOPED_TRACE(std::string(r.name) + " " + to_string(type));
            const Tensor got = OpTester(r.op, r.opset, r.attrs).run1({make_tensor(type, {1}, {r.x})});
            EXPECT_TRUE(close_for(type, got.value_as_double(0), r.want));
        }
    }
}

TEST(Activations, IntegerEdgeCases) {
    // Clamp's bounds saturate to the type (ONNX Clip's default max on i8) and NaN-free rounding.
    EXPECT_EQ(values_of<int8_t>(OpTester("Clamp", 1, {{"min", "0"}, {"max", "3.4028234663852886e+38"}})
                                    .run1({make_tensor<int8_t>({4}, {-128, -1, 0, 127})})),
              (std::vector<int8_t>{0, 0, 0, 127}));
    EXPECT_EQ(values_of<uint8_t>(OpTester("Clamp", 1, {{"min", "-1e30"}, {"max", "1e30"}})
                                     .run1({make_tensor<uint8_t>({3}, {0, 100, 255})})),
              (std::vector<uint8_t>{0, 100, 255}));
    EXPECT_EQ(values_of<int64_t>(OpTester("Clamp", 1, {{"min", "-1e300"}, {"max", "0.5"}})
                                     .run1({make_tensor<int64_t>({3}, {INT64_MIN, 0, INT64_MAX})})),
              (std::vector<int64_t>{INT64_MIN, 0, 0}));
    // min 0.2 rounds up to 1 and max 0.8 down to 0: min(max(x, 1), 0) is 0 everywhere.
    EXPECT_EQ(values_of<int32_t>(OpTester("Clamp", 1, {{"min", "0.2"}, {"max", "0.8"}})
                                     .run1({make_tensor<int32_t>({3}, {-5, 0, 5})})),
              (std::vector<int32_t>{0, 0, 0}));
    EXPECT_EQ(values_of<int32_t>(OpTester("ReLU", 1).run1({make_tensor<int32_t>({3}, {INT32_MIN, 0, INT32_MAX})})),
              (std::vector<int32_t>{0, 0, INT32_MAX}));
    EXPECT_EQ(values_of<int64_t>(OpTester("Tanh", 1).run1({make_tensor<int64_t>({4}, {INT64_MIN, -1, 0, 1})})),
              (std::vector<int64_t>{-1, -1, 0, 1}));
}

TEST(Activations, LongTensorsCrossChunkBoundaries) {
    // f16/bf16 go through f32 and integers through f64 in chunks of 256: every element must land.
    std::vector<double> xs(1000);
    for (size_t i = 0; i < xs.size(); ++i) xs[i] = (static_cast<double>(i % 97) - 48) / 8;
    const UnaryRow gelu{"gelu_long", "Gelu", 7, {}, gelu_erf, {}, {}, IntegerRule::None, kGeluAbsTol};
    for (ElementType type : {ElementType::f16, ElementType::bf16, ElementType::f32}) check_unary(gelu, type, xs);
    std::vector<double> ints(1000);
    for (size_t i = 0; i < ints.size(); ++i) ints[i] = static_cast<double>(i % 7) - 3;
    const UnaryRow tanh{"tanh_long", "Tanh", 1, {}, [](double x) { return std::tanh(x); }, {}, {}, IntegerRule::Rounded};
    check_unary(tanh, ElementType::i32, ints);
}

TEST(Activations, ShapeRuleKeepsTypeAndShape) {
    const PartialShape shapes[] = {PartialShape{2, 3}, PartialShape{kDynamic, 3}, PartialShape{},
                                   PartialShape::dynamic_rank()};
    for (const PartialShape& s : shapes) {
        SCOPED_TRACE(to_string(s));
        const std::vector<OutputInfo> out = OpTester("Sigmoid", 1).infer({unknown(ElementType::bf16, s)});
        ASSERT_EQ(out.size(), 1u);
        EXPECT_EQ(out[0].type, ElementType::bf16);
        EXPECT_EQ(out[0].shape, s);
    }
    // Empty and scalar tensors run.
    EXPECT_EQ(OpTester("ReLU", 1).run1({make_tensor<float>({0, 3}, {})}).shape(), (Shape{0, 3}));
    EXPECT_EQ(values_of<float>(OpTester("HSigmoid", 5).run1({scalar(0.0f)})), (std::vector<float>{0.5f}));
}

// ---- Swish's optional beta ---------------------------------------------------------------------

struct SwishRow {
    const char* name;
    ElementType type;
    std::optional<Tensor> beta;
    double beta_value;
};

TEST(Activations, SwishBeta) {
    const SwishRow rows[] = {
        {"no_beta_is_one", ElementType::f32, std::nullopt, 1.0},
        {"scalar_beta", ElementType::f32, make_tensor(ElementType::f32, {}, {2.0}), 2.0},
        {"one_element_beta", ElementType::f64, make_tensor(ElementType::f64, {1}, {0.5}), 0.5},
        {"zero_beta_halves", ElementType::f32, make_tensor(ElementType::f32, {}, {0.0}), 0.0},
        {"f16_beta", ElementType::f16, make_tensor(ElementType::f16, {}, {1.5}), 1.5},
    };
    for (const SwishRow& r : rows) {
        SCOPED_TRACE(r.name);
        std::vector<Tensor> inputs{make_tensor(r.type, {static_cast<int64_t>(kValues.size())}, kValues)};
        if (r.beta) inputs.push_back(*r.beta);
        const Tensor got = OpTester("Swish", 4).run1(inputs, r.beta ? std::vector<size_t>{1} : std::vector<size_t>{});
        for (size_t i = 0; i < kValues.size(); ++i) {
            const double x = stored(r.type, kValues[i]);
            EXPECT_TRUE(close_for(r.type, got.value_as_double(static_cast<int64_t>(i)),
                                  stored(r.type, x * sigmoid(r.beta_value * x))))
                << "x = " << x;
        }
    }
}

TEST(Activations, SwishErrors) {
    const Tensor x = make_tensor<float>({2}, {1, 2});
    EXPECT_TRUE(throws_error([&] { OpTester("Swish", 4).run({x, make_tensor<float>({2}, {1, 2})}); },
                             ErrorKind::ShapeRule, "beta-not-scalar", "[2]", 1));
    EXPECT_TRUE(throws_error([&] { OpTester("Swish", 4).run({x, make_tensor<double>({}, {1})}); }, ErrorKind::Type,
                             "element-type-mismatch", "f64", 1));
    EXPECT_TRUE(throws_error([&] { OpTester("Swish", 4).run({make_tensor<int32_t>({1}, {1})}); }, ErrorKind::Type,
                             "element-type-unsupported", "i32", 0));
    // A beta of unknown length passes at load time; the kernel still checks its element count.
    EXPECT_NO_THROW(OpTester("Swish", 4).infer({known(x), unknown(ElementType::f32, PartialShape{kDynamic})}));
    EXPECT_TRUE(throws_error([&] { OpTester("Swish", 4).infer({known(x), unknown(ElementType::f32, PartialShape{0})}); },
                             ErrorKind::ShapeRule, "beta-not-scalar", "beta", 1));
}

// ---- PReLU -------------------------------------------------------------------------------------

struct PreluRow {
    const char* name;
    Shape data_shape;
    std::vector<double> data;
    Shape slope_shape;
    std::vector<double> slope;
    std::vector<double> want;
};

TEST(Activations, PReluSlopeBroadcast) {
    const PreluRow rows[] = {
        {"per_channel_nchw", {1, 2, 2, 1}, {-1, 1, -2, 2}, {2}, {0.1, 0.5}, {-0.1, 1, -1, 2}},
        {"per_channel_2d", {2, 2}, {-1, -1, -2, 2}, {2}, {0.1, 0.5}, {-0.1, -0.5, -0.2, 2}},
        // data[1] == data[2] == 2: the spec picks the channel axis (1), not numpy's last axis.
        {"per_channel_wins_over_numpy", {1, 2, 2}, {-1, -1, -1, -1}, {2}, {0.1, 0.5}, {-0.1, -0.1, -0.5, -0.5}},
        {"numpy_last_axis", {1, 2, 3}, {-1, -1, -1, -1, -1, -1}, {3}, {1, 2, 3}, {-1, -2, -3, -1, -2, -3}},
        {"one_element_slope", {2, 2}, {-4, 4, -2, 0}, {1}, {0.25}, {-1, 4, -0.5, 0}},
        {"scalar_slope", {3}, {-4, 4, -2}, {}, {0.5}, {-2, 4, -1}},
        {"full_shape_slope", {2, 2}, {-1, -1, 1, -1}, {2, 2}, {1, 2, 3, 4}, {-1, -2, 1, -4}},
        {"one_d_data", {3}, {-1, 2, -3}, {1}, {0.5}, {-0.5, 2, -1.5}},
        {"nan_and_zero_pass_through", {3}, {kNaN, 0, -kInf}, {1}, {0.5}, {kNaN, 0, -kInf}},
    };
    for (const PreluRow& r : rows) {
        for (ElementType type : kFloats) {
            SCOPED_TRACE(std::string(r.name) + " " + to_string(type));
            const Tensor got = OpTester("PReLU", 1).run1(
                {make_tensor(type, r.data_shape, r.data), make_tensor(type, r.slope_shape, r.slope)}, {0, 1});
            ASSERT_EQ(got.shape(), r.data_shape);
            for (size_t i = 0; i < r.want.size(); ++i)
                EXPECT_TRUE(close_for(type, got.value_as_double(static_cast<int64_t>(i)), stored(type, r.want[i])))
                    << "element " << i;
        }
    }
    // The alias "PRelu" finds the same op.
    EXPECT_EQ(&OpTester("PRelu", 1).def(), &OpTester("PReLU", 1).def());
}

TEST(Activations, PReluRuleWithUnknownChannels) {
    // A [64] slope against data [?, ?, 224, 224]: per-channel or not is decided at run time.
    const std::vector<OutputInfo> out = OpTester("PReLU", 1).infer(
        {unknown(ElementType::f32, PartialShape{kDynamic, kDynamic, 224, 224}), unknown(ElementType::f32, {64})});
    EXPECT_EQ(out[0].shape, (PartialShape{kDynamic, kDynamic, 224, 224}));
}

// OpenVINO accepts a slope of another float type and converts it to data's (issue 11: FP16 IR v10
// from Model Optimizer has f32 slope Consts on f16 data).
TEST(Activations, PReluConvertsTheSlope) {
    const Tensor x = make_tensor<float>({1, 2, 2}, {-1, 2, -3, 4});
    const Tensor x16 = OpTester("Convert", 1, {{"destination_type", "f16"}}).run1({x});
    const Tensor slope = make_tensor<float>({2}, {0.5f, 0.25f});
    const OpTester prelu("PReLU", 1);
    EXPECT_EQ(prelu.infer({unknown(ElementType::f16, {1, 2, 2}), unknown(ElementType::f32, {2})})[0].type,
              ElementType::f16);
    const Tensor out = prelu.run1({x16, slope});
    ASSERT_EQ(out.type(), ElementType::f16);
    const Tensor out32 = OpTester("Convert", 1, {{"destination_type", "f32"}}).run1({out});
    EXPECT_TRUE(tensors_equal(out32, make_tensor<float>({1, 2, 2}, {-0.5f, 2, -0.75f, 4})));
    // And an f16 slope on f64 data.
    const Tensor slope16 = OpTester("Convert", 1, {{"destination_type", "f16"}}).run1({slope});
    const Tensor out64 = prelu.run1({make_tensor<double>({1, 2, 1}, {-2, -4}), slope16});
    EXPECT_TRUE(tensors_equal(out64, make_tensor<double>({1, 2, 1}, {-1, -1})));
}

TEST(Activations, PReluErrors) {
    const Tensor f = make_tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
    EXPECT_TRUE(throws_error([&] { OpTester("PReLU", 1).run({f, make_tensor<float>({4}, {1, 2, 3, 4})}); },
                             ErrorKind::ShapeRule, "broadcast-incompatible", "slope of shape [4]", 1));
    // The slope must not grow data.
    EXPECT_TRUE(throws_error(
        [&] { OpTester("PReLU", 1).run({make_tensor<float>({3}, {1, 2, 3}), make_tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6})}); },
        ErrorKind::ShapeRule, "broadcast-incompatible", "does not broadcast", 1));
    // A slope of another float type is converted (below); a non-float slope is not.
    EXPECT_TRUE(throws_error([&] { OpTester("PReLU", 1).run({f, make_tensor<int32_t>({3}, {1, 2, 3})}); },
                             ErrorKind::Type, "element-type-unsupported", "i32", 1));
    EXPECT_TRUE(throws_error(
        [&] { OpTester("PReLU", 1).run({make_tensor<int32_t>({2}, {1, 2}), make_tensor<int32_t>({1}, {1})}); },
        ErrorKind::Type, "element-type-unsupported", "i32", 0));
}

// ---- attributes --------------------------------------------------------------------------------

struct AttrErrorRow {
    const char* name;
    const char* op;
    int opset;
    std::vector<IrAttribute> attrs;
    ErrorKind kind;
    const char* code;
    const char* substring;
};

TEST(Activations, AttributeErrors) {
    const AttrErrorRow rows[] = {
        {"elu_alpha_missing", "Elu", 1, {}, ErrorKind::Attribute, "attribute-missing", "alpha"},
        {"elu_alpha_not_a_number", "Elu", 1, {{"alpha", "abc"}}, ErrorKind::Attribute, "attribute-invalid", "alpha"},
        {"elu_alpha_nan", "Elu", 1, {{"alpha", "nan"}}, ErrorKind::Attribute, "attribute-invalid", "finite"},
        {"clamp_min_above_max", "Clamp", 1, {{"min", "2"}, {"max", "1"}}, ErrorKind::Attribute, "attribute-invalid",
         "'min' (2) must be less than or equal to 'max' (1)"},
        {"clamp_min_nan", "Clamp", 1, {{"min", "nan"}, {"max", "1"}}, ErrorKind::Attribute, "attribute-invalid", "min"},
        {"clamp_max_missing", "Clamp", 1, {{"min", "0"}}, ErrorKind::Attribute, "attribute-missing", "max"},
        {"clamp_min_missing", "Clamp", 1, {{"max", "0"}}, ErrorKind::Attribute, "attribute-missing", "min"},
        {"gelu7_unknown_mode", "Gelu", 7, {{"approximation_mode", "fast"}}, ErrorKind::Attribute, "attribute-invalid",
         "erf, tanh"},
    };
    const Tensor x = make_tensor<float>({1}, {1});
    for (const AttrErrorRow& r : rows) {
        SCOPED_TRACE(r.name);
        EXPECT_TRUE(throws_error([&] { OpTester(r.op, r.opset, r.attrs).run({x}); }, r.kind, r.code, r.substring));
    }
}

TEST(Activations, OpsetRanges) {
    // Gelu-2 serves opsets 2..6, Gelu-7 opset 7 on; the opset1 table has no Gelu.
    EXPECT_EQ(builtin_ops().find("Gelu", 6)->version, 2);
    EXPECT_EQ(builtin_ops().find("Gelu", 7)->version, 7);
    EXPECT_EQ(builtin_ops().find("Gelu", 1), nullptr);
    EXPECT_EQ(builtin_ops().find("HSigmoid", 4), nullptr);
    EXPECT_NE(builtin_ops().find("Relu", 1), nullptr);  // alias of ReLU
}

}  // namespace
}  // namespace irlite
