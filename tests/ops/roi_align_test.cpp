// ROIAlign-3 and ROIAlign-9: avg and max pooling of bilinear samples against hand-computed values
// and a direct reference loop (every aligned_mode, fixed and adaptive sampling, boxes reaching
// outside the map, huge boxes), the shape rule with unknown inputs, every error row (batch indices
// checked against N at run time and at load time), and the element types.
#include <cmath>
#include <limits>

#include "nn_test_util.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

std::vector<IrAttribute> attrs(int64_t ph, int64_t pw, int64_t sr, double scale, const char* mode,
                               const char* aligned = nullptr) {
    std::vector<IrAttribute> a = {{"pooled_h", std::to_string(ph)}, {"pooled_w", std::to_string(pw)},
                                  {"sampling_ratio", std::to_string(sr)}, {"spatial_scale", std::to_string(scale)},
                                  {"mode", mode}};
    if (aligned) a.push_back({"aligned_mode", aligned});
    return a;
}

// The definition, every sample of every bin visited.
std::vector<double> reference(const std::vector<double>& x, const Shape& ds, const std::vector<double>& rois,
                              const std::vector<int64_t>& batch, int64_t ph_n, int64_t pw_n, int64_t sr, double scale,
                              bool max, const std::string& aligned) {
    const int64_t C = ds[1], H = ds[2], W = ds[3];
    std::vector<double> out;
    for (size_t r = 0; r < batch.size(); ++r) {
        const double* b = &rois[r * 4];
        double shift_in = 0, shift_out = 0;
        if (aligned == "half_pixel") shift_in = 0.5, shift_out = -0.5;
        if (aligned == "half_pixel_for_nn") shift_out = -0.5;
        const double x1 = (b[0] + shift_in) * scale + shift_out, y1 = (b[1] + shift_in) * scale + shift_out;
        double rw = (b[2] + shift_in) * scale + shift_out - x1, rh = (b[3] + shift_in) * scale + shift_out - y1;
        if (aligned == "asymmetric") rw = std::max(rw, 1.0), rh = std::max(rh, 1.0);
        const double bw = rw / static_cast<double>(pw_n), bh = rh / static_cast<double>(ph_n);
        const int64_t sy = sr ? sr : static_cast<int64_t>(std::max(std::ceil(bh), 0.0));
        const int64_t sx = sr ? sr : static_cast<int64_t>(std::max(std::ceil(bw), 0.0));
        for (int64_t c = 0; c < C; ++c) {
            auto at = [&](int64_t yy, int64_t xx) { return x[static_cast<size_t>(((batch[r] * C + c) * H + yy) * W + xx)]; };
            for (int64_t ph = 0; ph < ph_n; ++ph)
                for (int64_t pw = 0; pw < pw_n; ++pw) {
                    std::vector<double> samples;
                    for (int64_t iy = 0; iy < sy; ++iy)
                        for (int64_t ix = 0; ix < sx; ++ix) {
                            double y = y1 + static_cast<double>(ph) * bh + (static_cast<double>(iy) + 0.5) * bh / static_cast<double>(sy);
                            double xx = x1 + static_cast<double>(pw) * bw + (static_cast<double>(ix) + 0.5) * bw / static_cast<double>(sx);
                            if (y < -1 || y > static_cast<double>(H) || xx < -1 || xx > static_cast<double>(W)) {
                                samples.push_back(0);
                                continue;
                            }
                            y = std::min(std::max(y, 0.0), static_cast<double>(H - 1));
                            xx = std::min(std::max(xx, 0.0), static_cast<double>(W - 1));
                            const auto y0 = static_cast<int64_t>(std::floor(y)), x0 = static_cast<int64_t>(std::floor(xx));
                            const int64_t y1i = std::min(y0 + 1, H - 1), x1i = std::min(x0 + 1, W - 1);
                            const double fy = y - static_cast<double>(y0), fx = xx - static_cast<double>(x0);
                            samples.push_back((1 - fy) * ((1 - fx) * at(y0, x0) + fx * at(y0, x1i)) +
                                              fy * ((1 - fx) * at(y1i, x0) + fx * at(y1i, x1i)));
                        }
                    double v = 0;
                    if (!samples.empty()) {
                        if (max) {
                            v = samples[0];
                            for (double s : samples) v = std::max(v, s);
                        } else {
                            for (double s : samples) v += s;
                            v /= static_cast<double>(samples.size());
                        }
                    }
                    out.push_back(v);
                }
        }
    }
    return out;
}

// data[y, x] = 4y + x on a 4x4 map: bilinear samples inside the map are exactly 4y + x.
const Tensor& linear_map() {
    static const Tensor t = iota(ElementType::f32, {1, 1, 4, 4});
    return t;
}

float one(const OpTester& op, std::vector<float> roi) {
    const Tensor out = op.run1({linear_map(), make_tensor<float>({1, 4}, roi), i32s({0})}, {1, 2});
    EXPECT_EQ(out.shape(), (Shape{1, 1, 1, 1}));
    return out.data<float>()[0];
}

TEST(RoiAlign, ByHand) {
    // [0,0]-[2,2], one bin of 2 x 2 samples at 0.5 and 1.5: avg 4 * 1 + 1, max 4 * 1.5 + 1.5.
    EXPECT_EQ(one(OpTester("ROIAlign", 3, attrs(1, 1, 2, 1.0, "avg")), {0, 0, 2, 2}), 5.0f);
    EXPECT_EQ(one(OpTester("ROIAlign", 3, attrs(1, 1, 2, 1.0, "max")), {0, 0, 2, 2}), 7.5f);
    // Adaptive sampling (ceil(2 / 1) = 2 per axis) gives the same.
    EXPECT_EQ(one(OpTester("ROIAlign", 9, attrs(1, 1, 0, 1.0, "avg")), {0, 0, 2, 2}), 5.0f);
    // half_pixel_for_nn shifts by -0.5: samples at 0 and 1 -> avg 2.5, max 5.
    EXPECT_EQ(one(OpTester("ROIAlign", 9, attrs(1, 1, 2, 1.0, "avg", "half_pixel_for_nn")), {0, 0, 2, 2}), 2.5f);
    EXPECT_EQ(one(OpTester("ROIAlign", 9, attrs(1, 1, 2, 1.0, "max", "half_pixel_for_nn")), {0, 0, 2, 2}), 5.0f);
    // half_pixel at scale 2: [0.5, 2.5], samples at 1 and 2 -> avg 4 * 1.5 + 1.5.
    EXPECT_EQ(one(OpTester("ROIAlign", 9, attrs(1, 1, 2, 2.0, "avg", "half_pixel")), {0, 0, 1, 1}), 7.5f);
    // Asymmetric: a point box is 1x1 (one adaptive sample at its center 1.5).
    EXPECT_EQ(one(OpTester("ROIAlign", 9, attrs(1, 1, 0, 1.0, "avg", "asymmetric")), {1, 1, 1, 1}), 7.5f);
    // Aligned modes keep a zero-size box: no adaptive samples -> 0; two fixed samples both at 1 -> 5.
    EXPECT_EQ(one(OpTester("ROIAlign", 9, attrs(1, 1, 0, 1.0, "avg", "half_pixel")), {1, 1, 1, 1}), 0.0f);
    EXPECT_EQ(one(OpTester("ROIAlign", 9, attrs(1, 1, 2, 1.0, "max", "half_pixel")), {1, 1, 1, 1}), 5.0f);
    // Edges: samples at -0.5 read row/column 0, samples at 3.5 read row/column 3 alone; samples
    // past -1 or 4 are 0 and count in the average.
    EXPECT_EQ(one(OpTester("ROIAlign", 3, attrs(1, 1, 1, 1.0, "avg")), {-1, -1, 0, 0}), 0.0f);
    EXPECT_EQ(one(OpTester("ROIAlign", 3, attrs(1, 1, 1, 1.0, "avg")), {3, 3, 4, 4}), 15.0f);
    EXPECT_EQ(one(OpTester("ROIAlign", 3, attrs(1, 1, 2, 1.0, "avg")), {3, 3, 7, 7}), 15.0f / 4);  // (4, 4) reads (3, 3); 6 is out
    EXPECT_EQ(one(OpTester("ROIAlign", 3, attrs(1, 1, 2, 1.0, "max")), {3, 3, 7, 7}), 15.0f);
}

TEST(RoiAlign, MaxIsTheTrueMaximum) {
    // An all-negative map: the maximum of the samples, not 0 (unless a sample is outside the map).
    const Tensor neg = make_tensor<float>({1, 1, 2, 2}, {-4, -3, -2, -1});
    const OpTester op("ROIAlign", 3, attrs(1, 1, 2, 1.0, "max"));
    const Tensor out = op.run1({neg, make_tensor<float>({1, 4}, {0, 0, 1, 1}), i64s({0})});
    EXPECT_EQ(values_of<float>(out), (std::vector<float>{-1.75f}));  // samples at 0.25, 0.75 -> max at (0.75, 0.75)
    const Tensor out2 = op.run1({neg, make_tensor<float>({1, 4}, {0, 0, 8, 8}), i64s({0})});
    EXPECT_EQ(values_of<float>(out2), (std::vector<float>{0.0f}));  // some samples fall outside: 0 is among them
}

TEST(RoiAlign, MatchesTheReference) {
    const Shape ds{2, 3, 6, 7};
    const std::vector<double> x = random_values(2 * 3 * 6 * 7, 5, -3, 3);
    const std::vector<double> rois = {0, 0, 6, 5, 1.2, 0.7, 4.9, 3.3, -2, -1.5, 3, 8, 5.5, 4.5, 5.6, 4.6, 3, 2, 1, 1,
                                      -40, -30, 60, 50, 0.3, 0.2, 30, 2.9};
    const std::vector<int64_t> batch = {0, 1, 1, 0, 1, 0, 1};
    for (const char* aligned : {"asymmetric", "half_pixel_for_nn", "half_pixel"})
        for (const bool max : {false, true})
            for (const int64_t sr : {0, 1, 2, 3})
                for (const auto& [ph, pw] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {2, 3}, {4, 4}})
                    for (const double scale : {1.0, 0.5}) {
                        const OpTester op("ROIAlign", 9, attrs(ph, pw, sr, scale, max ? "max" : "avg", aligned));
                        const Tensor out = op.run1({make_tensor(ElementType::f64, ds, x), make_tensor(ElementType::f64, {7, 4}, rois),
                                                    i64s(batch)}, {2});
                        ASSERT_TRUE(all_close(out, reference(x, ds, rois, batch, ph, pw, sr, scale, max, aligned), 1e-12))
                            << aligned << " max " << max << " sr " << sr << " " << ph << "x" << pw << " scale " << scale;
                    }
    // ROIAlign-3 is ROIAlign-9's asymmetric mode.
    const Tensor v3 = OpTester("ROIAlign", 3, attrs(2, 2, 0, 0.5, "avg"))
                          .run1({make_tensor(ElementType::f64, ds, x), make_tensor(ElementType::f64, {7, 4}, rois), i64s(batch)});
    EXPECT_TRUE(all_close(v3, reference(x, ds, rois, batch, 2, 2, 0, 0.5, false, "asymmetric"), 1e-12));
}

TEST(RoiAlign, HugeBoxesCostWhatTheMapCosts) {
    // A box 2e6 pixels wide with adaptive sampling has 1e6 samples per bin along x; only the few
    // near the map are visited. The average is over every sample, so it is tiny but not zero.
    const OpTester op("ROIAlign", 9, attrs(1, 2, 0, 1.0, "avg"));
    const Tensor out = op.run1({linear_map(), make_tensor<float>({1, 4}, {-1e6f, 0, 1e6f, 1}), i32s({0})});
    const std::vector<double> got = to_doubles(out);
    EXPECT_GT(got[1], 0.0);
    EXPECT_LT(got[1], 1e-3);
    EXPECT_TRUE(all_close(out, reference(to_doubles(linear_map()), {1, 1, 4, 4}, {-1e6, 0, 1e6, 1}, {0}, 1, 2, 0, 1.0, false,
                                         "asymmetric"), 1e-5));
}

TEST(RoiAlign, ShapeRule) {
    const OpTester op("ROIAlign", 9, attrs(7, 5, 2, 0.0625, "avg"));
    auto infos = op.infer({unknown(ElementType::f32, PartialShape({2, 256, 50, 50})), unknown(ElementType::f32, PartialShape({100, 4})),
                           unknown(ElementType::i32, PartialShape({100}))});
    EXPECT_EQ(infos[0].type, ElementType::f32);
    EXPECT_EQ(infos[0].shape, PartialShape({100, 256, 7, 5}));
    // NUM_ROIS from batch_indices when rois' is unknown; C unknown.
    infos = op.infer({unknown(ElementType::f16, PartialShape({-1, -1, -1, -1})), unknown(ElementType::f16, PartialShape({-1, 4})),
                      unknown(ElementType::i64, PartialShape({30}))});
    EXPECT_EQ(infos[0].shape, PartialShape({30, -1, 7, 5}));
    const PartialShape any = PartialShape::dynamic_rank();
    infos = op.infer({unknown(ElementType::f32, any), unknown(ElementType::f32, any), unknown(ElementType::u8, any)});
    EXPECT_EQ(infos[0].shape, PartialShape({-1, -1, 7, 5}));
}

TEST(RoiAlign, Errors) {
    // Attributes: required ones, ranges, enums.
    for (const char* missing : {"pooled_h", "pooled_w", "sampling_ratio", "spatial_scale", "mode"}) {
        std::vector<IrAttribute> a;
        for (const IrAttribute& at : attrs(2, 2, 0, 1.0, "avg"))
            if (at.name != missing) a.push_back(at);
        EXPECT_TRUE(throws_error([&] { OpTester("ROIAlign", 3, a).attrs(); }, ErrorKind::Attribute, "attribute-missing", missing))
            << missing;
    }
    EXPECT_TRUE(throws_error([] { OpTester("ROIAlign", 3, attrs(0, 2, 0, 1.0, "avg")).attrs(); }, ErrorKind::Attribute,
                             "attribute-invalid", "'pooled_h' = 0: must be in [1, 2147483647]"));
    EXPECT_TRUE(throws_error([] { OpTester("ROIAlign", 9, attrs(2, 0, 0, 1.0, "avg")).attrs(); }, ErrorKind::Attribute,
                             "attribute-invalid", "'pooled_w' = 0"));
    EXPECT_TRUE(throws_error([] { OpTester("ROIAlign", 3, attrs(2, 2, -1, 1.0, "avg")).attrs(); }, ErrorKind::Attribute,
                             "attribute-invalid", "'sampling_ratio' = -1: must be in [0, 2147483647]"));
    EXPECT_TRUE(throws_error([] { OpTester("ROIAlign", 3, attrs(2, 2, 0, -1.0, "avg")).attrs(); }, ErrorKind::Attribute,
                             "attribute-invalid", "spatial_scale"));
    EXPECT_TRUE(throws_error([] { OpTester("ROIAlign", 3, attrs(2, 2, 0, 1.0, "sum")).attrs(); }, ErrorKind::Attribute,
                             "attribute-invalid", "avg, max"));
    EXPECT_TRUE(throws_error([] { OpTester("ROIAlign", 9, attrs(2, 2, 0, 1.0, "avg", "half")).attrs(); }, ErrorKind::Attribute,
                             "attribute-invalid", "asymmetric, half_pixel_for_nn, half_pixel"));
    // Shapes and types.
    const OpTester op("ROIAlign", 9, attrs(2, 2, 0, 1.0, "avg"));
    const Tensor data = iota(ElementType::f32, {2, 1, 4, 4});
    const Tensor rois = make_tensor<float>({2, 4}, {0, 0, 2, 2, 1, 1, 3, 3});
    EXPECT_TRUE(throws_error([&] { op.run1({iota(ElementType::f32, {2, 4, 4}), rois, i64s({0, 1})}); }, ErrorKind::ShapeRule,
                             "rank-invalid", "4D", 0));
    EXPECT_TRUE(throws_error([&] { op.run1({data, make_tensor<float>({2, 5}, std::vector<float>(10, 0)), i64s({0, 1})}); },
                             ErrorKind::ShapeRule, "rois-shape", "[NUM_ROIS, 4]", 1));
    EXPECT_TRUE(throws_error([&] { op.run1({data, make_tensor<float>({8}, std::vector<float>(8, 0)), i64s({0, 1})}); },
                             ErrorKind::ShapeRule, "rank-invalid", "2D", 1));
    EXPECT_TRUE(throws_error([&] { op.run1({data, rois, i64s({0, 1, 1})}); }, ErrorKind::ShapeRule, "shape-mismatch",
                             "batch_indices has 3 elements but rois has 2 rows", 2));
    EXPECT_TRUE(throws_error([&] { op.run1({data, rois, make_tensor<int64_t>({2, 1}, {0, 1})}); }, ErrorKind::ShapeRule,
                             "rank-invalid", "1D", 2));
    EXPECT_TRUE(throws_error([&] { op.run1({iota(ElementType::i32, {2, 1, 4, 4}), rois, i64s({0, 1})}); }, ErrorKind::Type,
                             "type-unsupported", "i32", 0));
    EXPECT_TRUE(throws_error([&] { op.run1({data, make_tensor(ElementType::f16, {2, 4}, {0, 0, 2, 2, 1, 1, 3, 3}), i64s({0, 1})}); },
                             ErrorKind::Type, "type-mismatch", "f16", 1));
    EXPECT_TRUE(throws_error([&] { op.run1({data, rois, make_tensor<float>({2}, {0, 1})}); }, ErrorKind::Type, "type-unsupported",
                             "integer", 2));
    // Batch indices against N: at run time (a Parameter)...
    EXPECT_TRUE(throws_error([&] { op.run_kernel({data, rois, i64s({0, 2})}, {2}); }, ErrorKind::Value, "batch-index-out-of-range",
                             "batch_indices[1] = 2 (data has N = 2): value 2 not in [0, 1]", 2));
    EXPECT_TRUE(throws_error([&] { op.run_kernel({data, rois, i32s({-1, 0})}, {2}); }, ErrorKind::Value, "batch-index-out-of-range",
                             "batch_indices[0] = -1", 2));
    EXPECT_TRUE(throws_error([&] { op.run_kernel({data, rois, make_tensor<uint8_t>({2}, {0, 200})}, {2}); }, ErrorKind::Value,
                             "batch-index-out-of-range", "value 200 not in [0, 1]", 2));
    // ...and at load time when known (a Const).
    EXPECT_TRUE(throws_error([&] { op.infer({known(data), unknown(rois), known(i64s({0, 5}))}); }, ErrorKind::Value,
                             "batch-index-out-of-range", "batch_indices[1] = 5", 2));
    // ROI values.
    EXPECT_TRUE(throws_error([&] { op.run1({data, make_tensor<float>({2, 4}, {0, 0, 2, 2, 1, std::nanf(""), 3, 3}), i64s({0, 1})}); },
                             ErrorKind::Value, "roi-invalid", "rois[1, 1] = nan", 1));
    EXPECT_TRUE(throws_error([&] {
        op.run1({data, make_tensor<float>({2, 4}, {0, 0, std::numeric_limits<float>::infinity(), 2, 1, 1, 3, 3}), i64s({0, 1})});
    }, ErrorKind::Value, "roi-invalid", "rois[0, 2] = inf", 1));
    EXPECT_TRUE(throws_error([&] { op.run1({data, make_tensor<float>({2, 4}, {0, 0, 2, 2, 0, 0, 1e30f, 1}), i64s({0, 1})}); },
                             ErrorKind::Value, "roi-invalid", "ROI 1 has bins of", 1));
    // Not registered outside the catalog's ranges: ROIAlign-3 in opset3..8, -9 from opset9.
    EXPECT_EQ(builtin_ops().find("ROIAlign", 2), nullptr);
    EXPECT_EQ(builtin_ops().find("ROIAlign", 8)->version, 3);
    EXPECT_EQ(builtin_ops().find("ROIAlign", 9)->version, 9);
}

TEST(RoiAlign, ElementTypes) {
    const Shape ds{1, 2, 5, 5};
    const std::vector<double> x = random_values(50, 9, -2, 2);
    const std::vector<double> rois = {0.5, 0.25, 3.5, 4, 1, 1, 2, 2};
    for (ElementType t : {ElementType::f16, ElementType::bf16, ElementType::f32, ElementType::f64})
        for (ElementType it : {ElementType::i32, ElementType::i64, ElementType::u8}) {
            const std::vector<double> held = to_doubles(make_tensor(t, ds, x));
            const std::vector<double> held_rois = to_doubles(make_tensor(t, {2, 4}, rois));
            const Tensor out = OpTester("ROIAlign", 9, attrs(2, 2, 2, 1.0, "avg", "half_pixel"))
                                   .run1({make_tensor(t, ds, held), make_tensor(t, {2, 4}, rois), make_tensor(it, {2}, {0, 0})});
            EXPECT_EQ(out.type(), t);
            EXPECT_TRUE(all_close(out, reference(held, ds, held_rois, {0, 0}, 2, 2, 2, 1.0, false, "half_pixel"),
                                  t == ElementType::bf16 ? 1e-2 : t == ElementType::f16 ? 2e-3 : 1e-6))
                << to_string(t) << " " << to_string(it);
        }
    EXPECT_TRUE(throws_error([] {
        OpTester("ROIAlign", 3, attrs(1, 1, 0, 1.0, "avg"))
            .run1({iota(ElementType::i8, {1, 1, 2, 2}), make_tensor<int8_t>({1, 4}, {0, 0, 1, 1}), i64s({0})});
    }, ErrorKind::Type, "type-unsupported", "i8", 0));
}

}  // namespace
}  // namespace irlite
