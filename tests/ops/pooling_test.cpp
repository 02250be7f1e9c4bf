// MaxPool-1/8/14 and AvgPool-1/14/16: the spec's worked examples (values and indices), values
// against a plain-loop reference, shape rules and errors.
#include <limits>
#include <random>

#include "nn_test_util.hpp"

namespace irlite::testing {
namespace {

struct PoolWindow {
    std::vector<int64_t> kernel{}, strides{}, pads_begin{}, pads_end{}, dilations{};
    std::string auto_pad = "explicit";
    std::string rounding = "floor";
};

std::string join(const std::vector<int64_t>& v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
    return s;
}

std::vector<IrAttribute> attributes_of(const PoolWindow& w, std::vector<IrAttribute> extra = {}) {
    const std::vector<int64_t> zeros(w.kernel.size(), 0);
    std::vector<IrAttribute> a = {attr("kernel", join(w.kernel)), attr("strides", join(w.strides)),
                                  attr("pads_begin", join(w.pads_begin.empty() ? zeros : w.pads_begin)),
                                  attr("pads_end", join(w.pads_end.empty() ? zeros : w.pads_end)),
                                  attr("auto_pad", w.auto_pad), attr("rounding_type", w.rounding)};
    if (!w.dilations.empty()) a.push_back(attr("dilations", join(w.dilations)));
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
}

// ---- the spec's examples ---------------------------------------------------------------------

struct ExampleRow {
    const char* name;
    int opset;
    PoolWindow window;
    Shape in_shape;
    std::vector<float> in;
    Shape out_shape;
    std::vector<float> out;
    std::vector<int64_t> indices;
    int64_t axis;
};

const std::vector<float> k3x3 = {-1, 2, 3, 4, 5, -6, -7, 8, 9};

const ExampleRow kExamples[] = {
    // The spec prints -6 (index 5) at [1][3]; that window holds 3 and -6, so the max is 3 (index 2).
    {"explicit_pads", 8, {{2, 2}, {1, 1}, {1, 1}, {1, 1}}, {1, 1, 3, 3}, k3x3, {1, 1, 4, 4},
     {-1, 2, 3, 3, 4, 5, 5, 3, 4, 8, 9, 9, -7, 8, 9, 9}, {0, 1, 2, 2, 3, 4, 4, 2, 3, 7, 8, 8, 6, 7, 8, 8}, 0},
    {"valid_1d", 8, {{3}, {1}, {}, {}, {}, "valid"}, {1, 1, 7}, {-1, 2, 3, 5, -7, 9, 1}, {1, 1, 5}, {3, 5, 5, 9, 9},
     {2, 3, 3, 5, 5}, 0},
    {"same_lower", 8, {{2, 2}, {1, 1}, {}, {}, {}, "same_lower"}, {1, 1, 3, 3}, k3x3, {1, 1, 3, 3},
     {-1, 2, 3, 4, 5, 5, 4, 8, 9}, {0, 1, 2, 3, 4, 4, 3, 7, 8}, 0},
    {"same_upper_two_channels", 8, {{2, 2}, {1, 1}, {}, {}, {}, "same_upper"}, {1, 2, 3, 3},
     {-1, 2, 3, 4, 5, -6, -7, 8, 9, 2, -1, 5, 6, -7, 1, 8, 2, -3}, {1, 2, 3, 3},
     {5, 5, 3, 8, 9, 9, 8, 9, 9, 6, 5, 5, 8, 2, 1, 8, 2, -3},
     {4, 4, 2, 7, 8, 8, 7, 8, 8, 12, 11, 11, 15, 16, 14, 15, 16, 17}, 0},
    {"valid_ceil", 8, {{2, 2}, {2, 2}, {}, {}, {}, "valid", "ceil"}, {1, 1, 3, 3}, k3x3, {1, 1, 2, 2}, {5, 3, 8, 9},
     {4, 2, 7, 8}, 0},
    {"dilated", 8, {{2, 2}, {1, 1}, {1, 1}, {1, 1}, {2, 2}}, {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 1, 3, 3},
     {5, 6, 5, 8, 9, 8, 5, 6, 5}, {4, 5, 4, 7, 8, 7, 4, 5, 4}, 0},
    {"axis_2", 8, {{2, 2}, {1, 1}, {0, 0}, {0, 0}, {1, 1}}, {1, 2, 3, 3},
     {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18}, {1, 2, 2, 2}, {5, 6, 8, 9, 14, 15, 17, 18},
     {4, 5, 7, 8, 4, 5, 7, 8}, 2},
    {"negative_axis", 8, {{2, 2}, {1, 1}, {0, 0}, {0, 0}, {1, 1}}, {1, 2, 3, 3},
     {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18}, {1, 2, 2, 2}, {5, 6, 8, 9, 14, 15, 17, 18},
     {4, 5, 7, 8, 13, 14, 16, 17}, -3},
    {"ceil_torch", 14, {{2, 2}, {2, 2}, {1, 1}, {1, 1}, {}, "explicit", "ceil_torch"}, {1, 1, 3, 3},
     {1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 1, 2, 2}, {1, 3, 7, 9}, {0, 2, 6, 8}, 0},
    {"ceil_partial_last_window", 8, {{2, 2}, {2, 2}, {0, 0}, {0, 0}, {}, "explicit", "ceil"}, {1, 1, 5, 5},
     {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25}, {1, 1, 3, 3},
     {7, 9, 10, 17, 19, 20, 22, 24, 25}, {6, 8, 9, 16, 18, 19, 21, 23, 24}, 0},
};

TEST(MaxPool, SpecExamples) {
    for (const ExampleRow& row : kExamples) {
        SCOPED_TRACE(row.name);
        const OpTester op("MaxPool", row.opset, attributes_of(row.window, {attr("axis", std::to_string(row.axis))}));
        const std::vector<Tensor> out = op.run({make_tensor<float>(row.in_shape, row.in)});
        ASSERT_EQ(out.size(), 2u);
        EXPECT_TRUE(tensors_equal(out[0], make_tensor<float>(row.out_shape, row.out)));
        EXPECT_TRUE(tensors_equal(out[1], make_tensor<int64_t>(row.out_shape, row.indices)));
    }
}

TEST(MaxPool, Opset1HasOneOutputAndIntegerTypesWork) {
    const PoolWindow w = {{2, 2}, {1, 1}, {1, 1}, {1, 1}};
    const std::vector<Tensor> out = OpTester("MaxPool", 1, attributes_of(w)).run({make_tensor<float>({1, 1, 3, 3}, k3x3)});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_TRUE(tensors_equal(out[0], make_tensor<float>({1, 1, 4, 4}, {-1, 2, 3, 3, 4, 5, 5, 3, 4, 8, 9, 9, -7, 8, 9, 9})));

    const std::vector<Tensor> u8 = OpTester("MaxPool", 8, attributes_of(w, {attr("index_element_type", "i32")}))
                                       .run({make_tensor<uint8_t>({1, 1, 2, 2}, {0, 255, 7, 3})});
    EXPECT_TRUE(tensors_equal(u8[0], make_tensor<uint8_t>({1, 1, 3, 3}, {0, 255, 255, 7, 255, 255, 7, 7, 3})));
    EXPECT_TRUE(tensors_equal(u8[1], make_tensor<int32_t>({1, 1, 3, 3}, {0, 1, 1, 2, 1, 1, 2, 2, 3})));

    const Tensor i64 = OpTester("MaxPool", 1, attributes_of({{2}, {2}})).run1({make_tensor<int64_t>({1, 1, 4}, {-5, -9, 3, 2})});
    EXPECT_TRUE(tensors_equal(i64, make_tensor<int64_t>({1, 1, 2}, {-5, 3})));
}

TEST(MaxPool, WindowWithoutDataGivesLowestValue) {
    // ceil rounding: the third window starts at 6, past the 5 data elements.
    const PoolWindow w = {{1}, {3}, {0}, {0}, {}, "explicit", "ceil"};
    const std::vector<Tensor> out = OpTester("MaxPool", 8, attributes_of(w)).run({make_tensor<float>({1, 1, 5}, {1, 2, 3, 4, 5})});
    EXPECT_TRUE(tensors_equal(out[0], make_tensor<float>({1, 1, 3}, {1, 4, -std::numeric_limits<float>::infinity()})));
    EXPECT_TRUE(tensors_equal(out[1], make_tensor<int64_t>({1, 1, 3}, {0, 3, 0})));
    const Tensor avg = OpTester("AvgPool", 1, attributes_of(w, {attr("exclude-pad", "true")}))
                           .run1({make_tensor<float>({1, 1, 5}, {1, 2, 3, 4, 5})});
    EXPECT_TRUE(tensors_equal(avg, make_tensor<float>({1, 1, 3}, {1, 4, 0})));
}

// ---- values against a reference -------------------------------------------------------------

struct Reference {
    std::vector<double> values;
    std::vector<int64_t> argmax;  // flat index in the whole data tensor
};

Reference reference(const Tensor& x, const Shape& out_shape, const PoolWindow& w, const std::vector<int64_t>& pads_begin,
                    const std::vector<int64_t>& pads_end, bool is_max, bool exclude_pad) {
    const Shape& xs = x.shape();
    const Shape kernel(w.kernel.begin(), w.kernel.end());
    const std::vector<double> xv = to_doubles(x);
    Reference r;
    for (int64_t flat = 0; flat < checked_num_elements(out_shape); ++flat) {
        const std::vector<int64_t> o = unravel(flat, out_shape);
        double best = -std::numeric_limits<double>::infinity(), sum = 0;
        int64_t best_at = 0, count = 0, padded = 0;
        for (int64_t kf = 0; kf < checked_num_elements(kernel); ++kf) {
            const std::vector<int64_t> k = unravel(kf, kernel);
            std::vector<int64_t> xi = {o[0], o[1]};
            bool inside = true, inside_padded = true;
            for (size_t d = 0; d < kernel.size(); ++d) {
                const int64_t c = o[d + 2] * w.strides[d] - pads_begin[d] + k[d] * (w.dilations.empty() ? 1 : w.dilations[d]);
                inside = inside && c >= 0 && c < xs[d + 2];
                inside_padded = inside_padded && c >= -pads_begin[d] && c < xs[d + 2] + pads_end[d];
                xi.push_back(c);
            }
            padded += inside_padded;
            if (!inside) continue;
            const int64_t at = ravel(xi, xs);
            const double v = xv[static_cast<size_t>(at)];
            ++count;
            sum += v;
            if (v > best) best = v, best_at = at;
        }
        const int64_t divisor = exclude_pad ? count : padded;
        r.values.push_back(is_max ? best : (divisor ? sum / static_cast<double>(divisor) : 0));
        r.argmax.push_back(best_at);
    }
    return r;
}

struct ValueRow {
    const char* name;
    const char* type;
    int opset;
    PoolWindow window;
    bool exclude_pad;
    Shape data, out;
    std::vector<int64_t> pads_begin, pads_end;  // what auto_pad resolves to
};

const ValueRow kValueRows[] = {
    {"avg_exclude_pad", "AvgPool", 1, {{3, 3}, {1, 1}, {1, 1}, {1, 1}}, true, {1, 2, 5, 5}, {1, 2, 5, 5}, {1, 1}, {1, 1}},
    {"avg_include_pad", "AvgPool", 1, {{3, 3}, {1, 1}, {1, 1}, {1, 1}}, false, {1, 2, 5, 5}, {1, 2, 5, 5}, {1, 1}, {1, 1}},
    {"avg_1d_ceil", "AvgPool", 1, {{3}, {2}, {2}, {1}, {}, "explicit", "ceil"}, false, {2, 1, 7}, {2, 1, 5}, {2}, {1}},
    {"avg_3d", "AvgPool", 1, {{2, 3, 2}, {2, 1, 2}}, true, {1, 1, 4, 5, 6}, {1, 1, 2, 3, 3}, {0, 0, 0}, {0, 0, 0}},
    {"avg_same_upper", "AvgPool", 1, {{2, 3}, {2, 2}, {}, {}, {}, "same_upper"}, false, {1, 1, 5, 6}, {1, 1, 3, 3},
     {0, 0}, {1, 1}},
    {"avg_ceil_past_padded_end", "AvgPool", 1, {{2, 2}, {2, 2}, {0, 0}, {0, 0}, {}, "explicit", "ceil"}, false,
     {1, 1, 5, 5}, {1, 1, 3, 3}, {0, 0}, {0, 0}},
    {"avg16_dilated", "AvgPool", 16, {{3, 3}, {1, 1}, {1, 1}, {1, 1}, {2, 2}}, false, {1, 1, 7, 7}, {1, 1, 5, 5},
     {1, 1}, {1, 1}},
    {"avg14_ceil_torch", "AvgPool", 14, {{2, 2}, {2, 2}, {1, 1}, {1, 1}, {}, "explicit", "ceil_torch"}, true,
     {1, 1, 5, 5}, {1, 1, 3, 3}, {1, 1}, {1, 1}},
    {"max_3d_dilated", "MaxPool", 8, {{2, 2, 2}, {1, 2, 1}, {1, 0, 1}, {0, 1, 0}, {1, 1, 2}}, false, {2, 3, 4, 5, 6},
     {2, 3, 4, 3, 5}, {1, 0, 1}, {0, 1, 0}},
    {"max_same_lower_strided", "MaxPool", 8, {{3, 2}, {2, 3}, {}, {}, {1, 1}, "same_lower"}, false, {1, 2, 7, 8},
     {1, 2, 4, 3}, {1, 0}, {1, 0}},
};

TEST(Pooling, ValuesMatchReference) {
    unsigned seed = 300;
    for (const ValueRow& row : kValueRows) {
        for (const ElementType type : {ElementType::f32, ElementType::f64, ElementType::f16}) {
            SCOPED_TRACE(std::string(row.name) + " " + to_string(type));
            const bool is_max = std::string(row.type) == "MaxPool";
            const OpTester op(row.type, row.opset,
                              attributes_of(row.window, {attr("exclude-pad", row.exclude_pad ? "true" : "false")}));
            const Tensor x = random_tensor(type, row.data, seed++);
            const std::vector<Tensor> out = op.run({x});
            ASSERT_EQ(out[0].shape(), row.out);
            const Reference want = reference(x, row.out, row.window, row.pads_begin, row.pads_end, is_max, row.exclude_pad);
            EXPECT_TRUE(all_close(out[0], want.values, type == ElementType::f16 ? 2e-3 : 1e-6));
            if (is_max) {
                EXPECT_EQ(values_of<int64_t>(out[1]), want.argmax);
            }
        }
    }
}

TEST(AvgPool, IntegersRoundTowardZero) {
    const Tensor out = OpTester("AvgPool", 1, attributes_of({{2}, {2}}, {attr("exclude-pad", "true")}))
                           .run1({make_tensor<int32_t>({1, 1, 4}, {1, 2, -3, -4})});
    EXPECT_TRUE(tensors_equal(out, make_tensor<int32_t>({1, 1, 2}, {1, -3})));
}

// ---- the 2-D fast path against the generic N-d walker ---------------------------------------
// Rank-4 data runs the 2-D path; the same data as [N, C, 1, H, W] with a 1-wide window on the new
// axis runs the generic walker. Both must agree bit for bit: values (NaN included: a NaN first in
// the window wins, later ones never do), indices (ties: the first in row-major window order) for
// i32 and i64 and every axis, integers, f16.

struct FastRow {
    const char* name;
    Shape data;
    PoolWindow window;
};

std::vector<int64_t> with_lead(std::vector<int64_t> v, int64_t lead) {
    if (!v.empty()) v.insert(v.begin(), lead);
    return v;
}

const FastRow kFastRows[] = {
    {"resnet_stem_3x3_s2", {1, 3, 32, 33}, {{3, 3}, {2, 2}, {1, 1}, {1, 1}}},
    {"s1_pad1", {2, 2, 9, 21}, {{3, 3}, {1, 1}, {1, 1}, {1, 1}}},
    {"s3_dilated_asymmetric", {1, 2, 11, 23}, {{2, 4}, {3, 3}, {1, 2}, {0, 1}, {2, 1}}},
    {"ceil_s2", {1, 2, 10, 21}, {{3, 3}, {2, 2}, {1, 1}, {0, 0}, {}, "explicit", "ceil"}},
    {"ceil_torch_s2", {1, 1, 9, 18}, {{2, 2}, {2, 2}, {1, 1}, {1, 1}, {}, "explicit", "ceil_torch"}},
    {"same_upper_s2", {1, 2, 7, 17}, {{2, 3}, {2, 2}, {}, {}, {}, "same_upper"}},
    {"no_interior", {1, 1, 4, 3}, {{3, 5}, {1, 1}, {1, 2}, {1, 2}}},
    {"no_pads_wide", {1, 2, 6, 40}, {{2, 2}, {2, 2}, {0, 0}, {0, 0}}},
    {"dilated_s2", {1, 1, 12, 25}, {{3, 3}, {2, 2}, {2, 2}, {2, 2}, {2, 2}}},
    // MaxPool f32 without indices, undilated, runs separably (column maxima, then along the row)
    // on planes of more than 128 pixels:
    // rows of 8+, 4..7 and fewer than 4 outputs, data rows narrower than 8, stride 1, 2 and 3,
    // pads on both sides, ceil rounding, kernels wider than the stride
    {"separable_narrow_ceil_s2", {1, 3, 8, 9}, {{3, 3}, {2, 2}, {0, 0}, {0, 0}, {}, "explicit", "ceil"}},
    {"separable_s1_width7", {1, 2, 5, 8}, {{3, 3}, {1, 1}, {0, 1}, {1, 0}}},
    {"separable_tiny", {2, 2, 3, 3}, {{2, 2}, {1, 1}, {0, 0}, {0, 0}}},
    {"separable_k5_pad2_s2", {1, 1, 12, 19}, {{5, 5}, {2, 2}, {2, 2}, {2, 2}}},
    {"separable_s3_k4_asymmetric", {1, 2, 9, 29}, {{4, 4}, {3, 3}, {1, 2}, {2, 1}}},
    {"separable_wide_ceil_pad", {2, 2, 13, 35}, {{3, 3}, {2, 2}, {1, 1}, {0, 0}, {}, "explicit", "ceil"}},
    {"separable_s2_k2_one_block", {1, 3, 16, 16}, {{2, 2}, {2, 2}, {0, 0}, {0, 0}}},
    {"separable_s2_rows_of_5", {1, 2, 6, 6}, {{3, 3}, {2, 1}, {1, 1}, {1, 1}}},
    // ... and on planes of up to 128 pixels 8 planes at a time channels-last: whole groups of 8
    // planes and a short one, rows of 8 pixels and a tail
    {"channels_last_two_groups", {2, 9, 10, 12}, {{3, 3}, {2, 2}, {1, 1}, {1, 1}}},
    {"channels_last_ceil_k2", {1, 16, 9, 9}, {{2, 2}, {2, 2}, {0, 0}, {0, 0}, {}, "explicit", "ceil"}},
    {"separable_nine_planes", {1, 9, 17, 20}, {{3, 3}, {1, 1}, {1, 1}, {1, 1}}},
    // u8 MaxPool (levels) on data rows of 48 bytes or more works on groups of whole planes:
    // three groups, the last short
    {"u8_groups_ceil", {1, 40, 9, 50}, {{3, 3}, {2, 2}, {0, 0}, {0, 0}, {}, "explicit", "ceil"}},
    // ... and on narrower rows 16 planes at a time channels-last (every row above of u8 data
    // too): a whole group and a short one, pixels past the last 16 in and out, pads both sides
    {"u8_channels_last_groups", {1, 18, 9, 11}, {{3, 3}, {2, 2}, {1, 1}, {1, 1}}},
};

PoolWindow lead_window(const PoolWindow& w) {
    PoolWindow l = w;
    l.kernel = with_lead(w.kernel, 1);
    l.strides = with_lead(w.strides, 1);
    l.pads_begin = with_lead(w.pads_begin.empty() && w.auto_pad == "explicit" ? std::vector<int64_t>(2, 0) : w.pads_begin, 0);
    l.pads_end = with_lead(w.pads_end.empty() && w.auto_pad == "explicit" ? std::vector<int64_t>(2, 0) : w.pads_end, 0);
    l.dilations = with_lead(w.dilations, 1);
    return l;
}

// Random values with many ties (few distinct values) and, for floats, infinities and NaNs (unless
// with_nan is false: planes without NaN take the separable MaxPool path).
Tensor tied_tensor(ElementType type, const Shape& shape, unsigned seed, bool with_nan = true) {
    std::mt19937 gen(seed);
    std::uniform_int_distribution<int> pick(0, 19);
    std::vector<double> v(static_cast<size_t>(checked_num_elements(shape)));
    const bool is_float = !is_integral(type);
    for (double& x : v) {
        const int k = pick(gen);
        if (is_float && k == 0) x = with_nan ? std::numeric_limits<double>::quiet_NaN() : 5.0;
        else if (is_float && k == 1) x = -std::numeric_limits<double>::infinity();
        else x = (type == ElementType::u8 ? 0 : -4) + k % 9;
    }
    return make_tensor(type, shape, v);
}

TEST(Pooling, TwoDimensionalPathMatchesGenericWalker) {
    unsigned seed = 900;
    for (const FastRow& row : kFastRows) {
        const std::pair<ElementType, bool> types[] = {{ElementType::f32, true}, {ElementType::f32, false},
                                                      {ElementType::f64, true}, {ElementType::f16, true},
                                                      {ElementType::i32, false}, {ElementType::u8, false}};
        for (const auto& [type, with_nan] : types) {
            const Tensor x = tied_tensor(type, row.data, seed++, with_nan);
            Shape lead_shape = row.data;
            lead_shape.insert(lead_shape.begin() + 2, 1);
            const Tensor x5 = x.reshaped(lead_shape);
            struct Variant {
                const char* op;
                int opset;
                std::vector<IrAttribute> extra;
            };
            const Variant variants[] = {
                {"MaxPool", 8, {attr("axis", "0")}},
                {"MaxPool", 14, {attr("axis", "2"), attr("index_element_type", "i32")}},
                {"MaxPool", 8, {attr("axis", "1")}},
                {"MaxPool", 1, {}},
                {"AvgPool", 16, {attr("exclude-pad", "true")}},
                {"AvgPool", 16, {attr("exclude-pad", "false")}},
            };
            for (const Variant& v : variants) {
                const bool ceil_torch = row.window.rounding == "ceil_torch";
                if (ceil_torch && v.opset < 14) continue;
                if (!row.window.dilations.empty() && v.opset == 1) continue;
                SCOPED_TRACE(std::string(row.name) + " " + to_string(type) + (with_nan ? " NaN " : " ") + v.op + "-" + std::to_string(v.opset) +
                             (v.extra.empty() ? "" : " " + v.extra[0].value));
                const std::vector<Tensor> fast = OpTester(v.op, v.opset, attributes_of(row.window, v.extra)).run({x});
                const std::vector<Tensor> generic =
                    OpTester(v.op, v.opset, attributes_of(lead_window(row.window), v.extra)).run({x5});
                ASSERT_EQ(fast.size(), generic.size());
                for (size_t i = 0; i < fast.size(); ++i) {
                    // Axis 2 of the rank-5 data is the added 1-wide axis: the same flat indices.
                    const Tensor want = generic[i].reshaped(fast[i].shape());
                    EXPECT_TRUE(tensors_equal(fast[i], want)) << "output " << i;
                }
            }
        }
    }
}

// ---- shape rules and errors ------------------------------------------------------------------

TEST(Pooling, ShapeRule) {
    struct Row {
        const char* name;
        const char* type;
        int opset;
        std::vector<IrAttribute> attributes;
        PartialShape data, out;
    };
    const auto spec = [](std::string pad, std::string kernel, std::string pads, std::string strides) {
        return std::vector<IrAttribute>{attr("auto_pad", pad), attr("kernel", kernel), attr("pads_begin", pads),
                                        attr("pads_end", pads), attr("strides", strides), attr("exclude-pad", "true")};
    };
    const Row rows[] = {
        {"spec_max_explicit", "MaxPool", 8, spec("explicit", "2,2", "1,1", "2,2"), {1, 3, 32, 32}, {1, 3, 17, 17}},
        {"spec_max_valid", "MaxPool", 8, spec("valid", "2,2", "1,1", "2,2"), {1, 3, 32, 32}, {1, 3, 16, 16}},
        {"max_same_upper_strided", "MaxPool", 8, spec("same_upper", "2,2", "1,1", "2,2"), {1, 3, 32, 32},
         {1, 3, 16, 16}},
        {"spec_avg_explicit_stride3", "AvgPool", 1, spec("explicit", "5,5", "1,1", "3,3"), {1, 3, 32, 32},
         {1, 3, 10, 10}},
        {"spec_avg_explicit_stride2", "AvgPool", 1, spec("explicit", "5,5", "1,1", "2,2"), {1, 3, 32, 32},
         {1, 3, 15, 15}},
        {"spec_avg_valid", "AvgPool", 1, spec("valid", "5,5", "1,1", "2,2"), {1, 3, 32, 32}, {1, 3, 14, 14}},
        {"dynamic_dims", "MaxPool", 1, spec("explicit", "2,2", "0,0", "2,2"), {kDynamic, 3, kDynamic, 32},
         {kDynamic, 3, kDynamic, 16}},
        {"dynamic_rank", "AvgPool", 1, spec("explicit", "2,2", "0,0", "2,2"), PartialShape::dynamic_rank(),
         PartialShape::dynamic_rank()},
    };
    for (const Row& row : rows) {
        SCOPED_TRACE(row.name);
        const auto infos = OpTester(row.type, row.opset, row.attributes).infer({unknown(ElementType::f32, row.data)});
        EXPECT_EQ(infos[0].shape, row.out);
    }
    std::vector<IrAttribute> with_dilations = spec("explicit", "5,5", "1,1", "2,2");
    with_dilations.push_back(attr("dilations", "2,2"));
    EXPECT_EQ(OpTester("AvgPool", 16, with_dilations).infer({unknown(ElementType::f32, {1, 3, 32, 32})})[0].shape,
              PartialShape({1, 3, 13, 13}));
    const auto infos = OpTester("MaxPool", 8, attributes_of({{2, 2}, {2, 2}}, {attr("index_element_type", "i32")}))
                           .infer({unknown(ElementType::f16, {1, 3, 8, 8})});
    ASSERT_EQ(infos.size(), 2u);
    EXPECT_EQ(infos[0].type, ElementType::f16);
    EXPECT_EQ(infos[1].type, ElementType::i32);
    EXPECT_EQ(infos[1].shape, PartialShape({1, 3, 4, 4}));
    // AvgPool that averages padding in may have windows entirely in padding.
    EXPECT_NO_THROW(OpTester("AvgPool", 1, attributes_of({{2}, {1}, {2}, {2}}, {attr("exclude-pad", "false")}))
                        .infer({unknown(ElementType::f32, {1, 1, 4})}));
}

TEST(Pooling, Errors) {
    struct Row {
        const char* name;
        const char* type;
        int opset;
        std::vector<IrAttribute> attributes;
        RuleInput input;
        ErrorKind kind;
        const char* code;
        const char* text;
        int port;
    };
    const auto f32 = ElementType::f32;
    const Row rows[] = {
        {"kernel_count", "MaxPool", 8, attributes_of({{2}, {1, 1}}), unknown(f32, {1, 1, 4, 4}), ErrorKind::Attribute,
         "attribute-invalid", "'kernel' has 1 value(s)", -1},
        {"max_window_in_padding", "MaxPool", 8, attributes_of({{2, 2}, {1, 1}, {2, 0}, {0, 0}}),
         unknown(f32, {1, 1, 4, 4}), ErrorKind::ShapeRule, "window-in-padding", "entirely in the padding", -1},
        {"avg_exclude_window_in_padding", "AvgPool", 1,
         attributes_of({{2, 2}, {1, 1}, {0, 0}, {0, 3}}, {attr("exclude-pad", "true")}), unknown(f32, {1, 1, 4, 4}),
         ErrorKind::ShapeRule, "window-in-padding", "entirely in the padding", -1},
        {"window_too_large", "AvgPool", 1, attributes_of({{5}, {1}}), unknown(f32, {1, 1, 4}), ErrorKind::ShapeRule,
         "window-too-large", "larger than the padded input (4)", -1},
        {"rank_2", "MaxPool", 1, attributes_of({{2}, {1}}), unknown(f32, {1, 4}), ErrorKind::ShapeRule, "rank-invalid",
         "rank 3..5", 0},
        {"boolean", "MaxPool", 1, attributes_of({{2}, {1}}), unknown(ElementType::boolean, {1, 1, 4}), ErrorKind::Type,
         "type-unsupported", "boolean", 0},
        {"axis_out_of_range", "MaxPool", 8, attributes_of({{2}, {1}}, {attr("axis", "3")}), unknown(f32, {1, 1, 4}),
         ErrorKind::Attribute, "attribute-invalid", "'axis' = 3 is out of the range [-3, 2]", -1},
    };
    for (const Row& row : rows) {
        SCOPED_TRACE(row.name);
        EXPECT_TRUE(throws_error([&] { OpTester(row.type, row.opset, row.attributes).infer({row.input}); }, row.kind,
                                 row.code, row.text, row.port));
    }
    struct AttrRow {
        const char* name;
        const char* type;
        int opset;
        std::vector<IrAttribute> attributes;
        const char* text;
    };
    const AttrRow attr_rows[] = {
        {"index_type_f32", "MaxPool", 8, attributes_of({{2}, {1}}, {attr("index_element_type", "f32")}),
         "'index_element_type'"},
        {"ceil_torch_before_v14", "MaxPool", 8, attributes_of({{2}, {1}, {}, {}, {}, "explicit", "ceil_torch"}),
         "'rounding_type'"},
        {"avg_ceil_torch_before_v14", "AvgPool", 1, attributes_of({{2}, {1}, {}, {}, {}, "explicit", "ceil_torch"}),
         "'rounding_type'"},
        {"kernel_zero", "AvgPool", 1, attributes_of({{0}, {1}}), "'kernel'"},
        {"stride_zero", "MaxPool", 1, attributes_of({{2}, {0}}), "'strides'"},
    };
    for (const AttrRow& row : attr_rows) {
        SCOPED_TRACE(row.name);
        EXPECT_TRUE(throws_error([&] { OpTester(row.type, row.opset, row.attributes).attrs(); }, ErrorKind::Attribute,
                                 "attribute-invalid", row.text));
    }
}

}  // namespace
}  // namespace irlite::testing
