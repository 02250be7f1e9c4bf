// Interpolate-4 and Interpolate-11: nearest with every nearest_mode and coordinate mode, linear,
// linear_onnx and cubic against values from ONNX's Resize tests and the spec's formulas, sizes and
// scales modes, axes, pads, antialias, a dtype sweep for nearest, load-time rules, and errors.
#include <gtest/gtest.h>

#include <optional>

#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

struct InterpRow {
    const char* name;
    std::vector<IrAttribute> attrs;
    Shape data_shape;
    std::vector<double> data;
    bool sizes_mode;
    std::vector<double> target;  // sizes or scales
    std::optional<std::vector<int64_t>> axes;
    Shape out_shape;
    std::vector<double> out;
};

std::vector<IrAttribute> attrs(const char* mode, const char* calc, const char* coord, const char* nearest = nullptr) {
    std::vector<IrAttribute> a = {{"mode", mode}, {"shape_calculation_mode", calc}, {"coordinate_transformation_mode", coord}};
    if (nearest) a.push_back({"nearest_mode", nearest});
    return a;
}

const std::vector<double> k2x2 = {1, 2, 3, 4};
const std::vector<double> k2x4 = {1, 2, 3, 4, 5, 6, 7, 8};

const InterpRow kRows[] = {
    {"nearest_asymmetric_floor_2x", attrs("nearest", "sizes", "asymmetric", "floor"), {1, 1, 2, 2}, k2x2, true, {4, 4},
     {{2, 3}}, {1, 1, 4, 4}, {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}},
    // ONNX resize_downsample_scales_nearest.
    {"nearest_downsample_scales", attrs("nearest", "scales", "half_pixel", "round_prefer_floor"), {1, 1, 2, 4}, k2x4,
     false, {0.6, 0.6}, {{2, 3}}, {1, 1, 1, 2}, {1, 3}},
    // ONNX resize_upsample_scales_nearest.
    {"nearest_upsample_scales", attrs("nearest", "scales", "half_pixel", "round_prefer_floor"), {1, 1, 2, 2}, k2x2,
     false, {2, 3}, {{2, 3}}, {1, 1, 4, 6},
     {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4}},
    {"nearest_round_prefer_ceil", attrs("nearest", "sizes", "asymmetric", "round_prefer_ceil"), {4}, k2x2, true, {8},
     std::nullopt, {8}, {1, 2, 2, 3, 3, 4, 4, 4}},
    {"nearest_round_prefer_floor", attrs("nearest", "sizes", "asymmetric", "round_prefer_floor"), {4}, k2x2, true, {8},
     std::nullopt, {8}, {1, 1, 2, 2, 3, 3, 4, 4}},
    {"nearest_ceil_half_pixel", attrs("nearest", "sizes", "half_pixel", "ceil"), {4}, k2x2, true, {8}, std::nullopt, {8},
     {1, 2, 2, 3, 3, 4, 4, 4}},
    {"nearest_tf_half_pixel_for_nn", attrs("nearest", "sizes", "tf_half_pixel_for_nn", "floor"), {4}, k2x2, true, {3},
     std::nullopt, {3}, {1, 3, 4}},
    {"nearest_simple_downsample_is_ceil", attrs("nearest", "sizes", "asymmetric", "simple"), {4}, k2x2, true, {3},
     std::nullopt, {3}, {1, 3, 4}},
    {"nearest_simple_upsample_truncates", attrs("nearest", "sizes", "asymmetric", "simple"), {2}, {1, 2}, true, {3},
     std::nullopt, {3}, {1, 1, 2}},
    {"nearest_align_corners", attrs("nearest", "sizes", "align_corners", "round_prefer_floor"), {3}, {1, 2, 3}, true, {5},
     std::nullopt, {5}, {1, 1, 2, 2, 3}},
    {"nearest_pytorch_half_pixel_to_one", attrs("nearest", "sizes", "pytorch_half_pixel", "floor"), {3}, {1, 2, 3}, true,
     {1}, std::nullopt, {1}, {1}},
    // ONNX resize_upsample_scales_linear.
    {"linear_onnx_half_pixel", attrs("linear_onnx", "scales", "half_pixel"), {1, 1, 2, 2}, k2x2, false, {2, 2}, {{2, 3}},
     {1, 1, 4, 4}, {1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5, 3, 3.25, 3.75, 4}},
    // ONNX resize_upsample_scales_linear_align_corners.
    {"linear_onnx_align_corners", attrs("linear_onnx", "scales", "align_corners"), {1, 1, 2, 2}, k2x2, false, {2, 2},
     {{2, 3}}, {1, 1, 4, 4},
     {1, 4. / 3, 5. / 3, 2, 5. / 3, 2, 7. / 3, 8. / 3, 7. / 3, 8. / 3, 3, 10. / 3, 3, 10. / 3, 11. / 3, 4}},
    // ONNX resize_downsample_scales_linear.
    {"linear_onnx_downsample", attrs("linear_onnx", "scales", "half_pixel"), {1, 1, 2, 4}, k2x4, false, {0.6, 0.6},
     {{2, 3}}, {1, 1, 1, 2}, {2.6666667, 4.3333333}},
    {"linear_upsample_like_onnx", attrs("linear", "scales", "half_pixel"), {1, 1, 2, 2}, k2x2, false, {2, 2}, {{2, 3}},
     {1, 1, 4, 4}, {1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5, 3, 3.25, 3.75, 4}},
    {"linear_downsample", attrs("linear", "sizes", "half_pixel"), {4}, k2x2, true, {2}, std::nullopt, {2}, {1.5, 3.5}},
    {"cubic_half_pixel", attrs("cubic", "sizes", "half_pixel"), {4}, k2x2, true, {6}, std::nullopt, {6},
     {0.913194, 1.40625, 2.212963, 2.787037, 3.59375, 4.086806}},
    {"negative_axis", attrs("nearest", "sizes", "asymmetric", "floor"), {2, 2}, k2x2, true, {4}, {{-1}}, {2, 4},
     {1, 1, 2, 2, 3, 3, 4, 4}},
    {"axes_unordered", attrs("nearest", "sizes", "asymmetric", "floor"), {2, 2}, k2x2, true, {1, 4}, {{1, 0}}, {4, 1},
     {1, 1, 3, 3}},
};

Tensor target_tensor(const InterpRow& r) {
    const int64_t n = static_cast<int64_t>(r.target.size());
    return r.sizes_mode ? make_tensor(ElementType::i64, {n}, r.target) : make_tensor(ElementType::f32, {n}, r.target);
}

std::vector<Tensor> v11_inputs(const InterpRow& r, ElementType type) {
    std::vector<Tensor> in = {make_tensor(type, r.data_shape, r.data), target_tensor(r)};
    if (r.axes) in.push_back(i64s(*r.axes));
    return in;
}

::testing::AssertionResult near(const Tensor& got, const Shape& shape, const std::vector<double>& want, double tol) {
    if (got.shape() != shape) return ::testing::AssertionFailure() << "shape " << to_string(got.shape());
    const std::vector<double> v = to_doubles(got);
    for (size_t i = 0; i < v.size(); ++i)
        if (std::abs(v[i] - want[i]) > tol)
            return ::testing::AssertionFailure() << "element " << i << " is " << v[i] << ", want " << want[i];
    return ::testing::AssertionSuccess();
}

class InterpolateRows : public ::testing::TestWithParam<InterpRow> {};

TEST_P(InterpolateRows, Interpolate11) {
    const InterpRow& r = GetParam();
    const OpTester interp("Interpolate", 11, r.attrs);
    std::vector<size_t> hidden = {1};
    if (r.axes) hidden.push_back(2);
    EXPECT_TRUE(near(interp.run1(v11_inputs(r, ElementType::f32), hidden), r.out_shape, r.out, 1e-5));
}

TEST_P(InterpolateRows, Interpolate4) {
    const InterpRow& r = GetParam();
    const OpTester interp("Interpolate", 4, r.attrs);
    // v4 takes both sizes and scales; the one shape_calculation_mode does not name is ignored.
    const int64_t n = static_cast<int64_t>(r.target.size());
    Tensor sizes = make_tensor(ElementType::i32, {n}, std::vector<double>(r.target.size(), 1));
    Tensor scales = make_tensor(ElementType::f32, {n}, std::vector<double>(r.target.size(), 1));
    (r.sizes_mode ? sizes : scales) = target_tensor(r);
    std::vector<Tensor> in = {make_tensor(ElementType::f32, r.data_shape, r.data), sizes, scales};
    if (r.axes) in.push_back(i64s(*r.axes));
    EXPECT_TRUE(near(interp.run1(in), r.out_shape, r.out, 1e-5));
}

INSTANTIATE_TEST_SUITE_P(Rows, InterpolateRows, ::testing::ValuesIn(kRows),
                         [](const auto& row) { return std::string(row.param.name); });

TEST(Interpolate, NearestDtypeSweep) {
    const InterpRow& r = kRows[0];
    const OpTester interp("Interpolate", 11, r.attrs);
    for (int t = 0; t < kNumElementTypes; ++t) {
        const auto type = static_cast<ElementType>(t);
        SCOPED_TRACE(to_string(type));
        std::vector<double> data = r.data, want = r.out;
        if (type == ElementType::boolean) {
            data = {0, 1, 1, 0};
            for (double& v : want) v = (v == 2 || v == 3) ? 1 : 0;
        }
        std::vector<Tensor> in = v11_inputs(r, type);
        in[0] = make_tensor(type, r.data_shape, data);
        EXPECT_TRUE(tensors_equal(interp.run1(in), make_tensor(type, r.out_shape, want)));
    }
}

TEST(Interpolate, FilteredModesOnHalfFloats) {
    const InterpRow& r = kRows[11];
    ASSERT_STREQ(r.name, "linear_onnx_half_pixel");
    const OpTester interp("Interpolate", 11, r.attrs);
    for (ElementType type : {ElementType::f16, ElementType::bf16, ElementType::f64}) {
        SCOPED_TRACE(to_string(type));
        EXPECT_TRUE(near(interp.run1(v11_inputs(r, type)), r.out_shape, r.out, 1e-2));
    }
}

TEST(Interpolate, AntialiasWidensTheFilterWhenDownsampling) {
    std::vector<IrAttribute> a = attrs("linear", "sizes", "half_pixel");
    a.push_back({"antialias", "true"});
    const OpTester interp("Interpolate", 11, a);
    // Triangle of half the slope: weights 0.75, 0.75, 0.25 (renormalized) around 0.5 and 2.5.
    EXPECT_TRUE(near(interp.run1({make_tensor<float>({4}, {1, 2, 3, 4}), i64s({2})}), {2}, {3 / 1.75, 5.75 / 1.75}, 1e-5));
}

TEST(Interpolate, PadsAreZerosAddedFirst) {
    std::vector<IrAttribute> a = attrs("nearest", "scales", "asymmetric", "floor");
    a.push_back({"pads_begin", "1"});
    a.push_back({"pads_end", "1"});
    const OpTester interp("Interpolate", 11, a);
    // [0, 1, 2, 0] scaled by 1.5: floor(4 * 1.5) = 6 elements, coordinate x / 1.5.
    EXPECT_TRUE(tensors_equal(interp.run1({make_tensor<float>({2}, {1, 2}), make_tensor<float>({1}, {1.5f})}),
                              make_tensor<float>({6}, {0, 0, 1, 2, 2, 0})));
}

TEST(Interpolate, RuleWithUnknowns) {
    const OpTester interp("Interpolate", 11, attrs("nearest", "sizes", "half_pixel"));
    auto infos = interp.infer({unknown(ElementType::f32, {1, 3, 4, 4}), unknown(ElementType::i64, {2}), known(i64s({2, 3}))});
    EXPECT_EQ(infos[0].shape, PartialShape({1, 3, kDynamic, kDynamic}));
    infos = interp.infer({unknown(ElementType::f32, {1, 3, 4, 4}), known(i64s({8, 8})), unknown(ElementType::i64, {2})});
    EXPECT_EQ(infos[0].shape, PartialShape::all_dynamic(4));
    infos = interp.infer({unknown(ElementType::f32, {kDynamic, 3, 4, 4}), known(i64s({8, 6})), known(i64s({2, 3}))});
    EXPECT_EQ(infos[0].shape, PartialShape({kDynamic, 3, 8, 6}));
    const OpTester scales("Interpolate", 11, attrs("nearest", "scales", "half_pixel"));
    infos = scales.infer({unknown(ElementType::f32, {1, 3, 5, 5}), known(make_tensor<float>({2}, {0.3f, 2.f})),
                          known(i64s({2, 3}))});
    EXPECT_EQ(infos[0].shape, PartialShape({1, 3, 1, 10}));
}

TEST(Interpolate, Errors) {
    const OpTester nearest("Interpolate", 11, attrs("nearest", "sizes", "half_pixel"));
    const Tensor data = iota(ElementType::f32, {1, 1, 2, 2});
    EXPECT_TRUE(throws_error([&] { nearest.run1({data, i64s({4}), i64s({2, 3})}); }, ErrorKind::ShapeRule,
                             "length-mismatch", "scales_or_sizes has 1 values but there are 2 axes", 1));
    EXPECT_TRUE(throws_error([&] { nearest.run1({data, i64s({4, 4}), i64s({2, 2})}); }, ErrorKind::Value,
                             "duplicate-axis", "axis 2 appears twice", 2));
    EXPECT_TRUE(throws_error([&] { nearest.run1({data, i64s({4, 4}), i64s({2, 4})}); }, ErrorKind::Value,
                             "axis-out-of-range", "axis 4 out of the tensor rank range [-4, 3]", 2));
    EXPECT_TRUE(throws_error([&] { nearest.run1({data, i64s({-1, 4}), i64s({2, 3})}); }, ErrorKind::Value,
                             "value-out-of-range", "sizes[0] = -1 is negative", 1));
    EXPECT_TRUE(throws_error([&] { nearest.run1({data, make_tensor<float>({2}, {2, 2}), i64s({2, 3})}); },
                             ErrorKind::Type, "index-type", "scales_or_sizes must be an integer tensor", 1));
    const OpTester scales("Interpolate", 11, attrs("nearest", "scales", "half_pixel"));
    EXPECT_TRUE(throws_error([&] { scales.run1({data, make_tensor<float>({2}, {0, 2}), i64s({2, 3})}); },
                             ErrorKind::Value, "value-out-of-range", "scales[0] = 0 must be a finite number > 0", 1));
    const OpTester linear("Interpolate", 11, attrs("linear", "sizes", "half_pixel"));
    EXPECT_TRUE(throws_error([&] { linear.run1({iota(ElementType::i32, {2}), i64s({4})}); }, ErrorKind::Unsupported,
                             "type-unsupported", "need f16, bf16, f32 or f64 data, got i32", 0));
    EXPECT_TRUE(throws_error([&] { OpTester("Interpolate", 11, attrs("bilinear_pillow", "sizes", "half_pixel")).attrs(); },
                             ErrorKind::Unsupported, "interpolate-mode-unsupported", "bilinear_pillow"));
    EXPECT_TRUE(throws_error([&] { OpTester("Interpolate", 11, {{"mode", "nearest"}}).attrs(); }, ErrorKind::Attribute,
                             "attribute-missing", "shape_calculation_mode"));
}

}  // namespace
}  // namespace irlite
