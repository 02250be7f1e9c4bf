// ROIPooling-1 (opset2+): max and bilinear pooling against hand-computed values and a direct
// reference loop, malformed and out-of-map boxes, the shape rule with unknown inputs, every error
// row, and the element types.
#include <cmath>
#include <limits>

#include "nn_test_util.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

std::vector<IrAttribute> attrs(int64_t ph, int64_t pw, double scale, const char* method) {
    return {{"pooled_h", std::to_string(ph)}, {"pooled_w", std::to_string(pw)}, {"spatial_scale", std::to_string(scale)},
            {"method", method}};
}

// The definition, one output element at a time (Caffe's max ROI pooling; bilinear sampling).
std::vector<double> reference(const std::vector<double>& x, const Shape& ds, const std::vector<double>& rois, int64_t ph_n,
                              int64_t pw_n, double scale, bool bilinear) {
    const int64_t C = ds[1], H = ds[2], W = ds[3];
    const int64_t R = static_cast<int64_t>(rois.size() / 5);
    std::vector<double> out;
    for (int64_t r = 0; r < R; ++r) {
        const double* b = &rois[static_cast<size_t>(r * 5)];
        const auto n = static_cast<int64_t>(b[0]);
        for (int64_t c = 0; c < C; ++c) {
            auto at = [&](int64_t y, int64_t xx) { return x[static_cast<size_t>(((n * C + c) * H + y) * W + xx)]; };
            for (int64_t ph = 0; ph < ph_n; ++ph)
                for (int64_t pw = 0; pw < pw_n; ++pw) {
                    if (!bilinear) {
                        const double xs = std::round(b[1] * scale), ys = std::round(b[2] * scale);
                        const double xe = std::round(b[3] * scale), ye = std::round(b[4] * scale);
                        const double rh = std::max(ye - ys + 1, 1.0), rw = std::max(xe - xs + 1, 1.0);
                        const double bh = rh / static_cast<double>(ph_n), bw = rw / static_cast<double>(pw_n);
                        const auto clip = [](double v, int64_t hi) { return std::min<int64_t>(std::max<int64_t>(static_cast<int64_t>(v), 0), hi); };
                        const int64_t h0 = clip(std::floor(static_cast<double>(ph) * bh) + ys, H);
                        const int64_t h1 = clip(std::ceil(static_cast<double>(ph + 1) * bh) + ys, H);
                        const int64_t w0 = clip(std::floor(static_cast<double>(pw) * bw) + xs, W);
                        const int64_t w1 = clip(std::ceil(static_cast<double>(pw + 1) * bw) + xs, W);
                        double m = -std::numeric_limits<double>::infinity();
                        for (int64_t y = h0; y < h1; ++y)
                            for (int64_t xx = w0; xx < w1; ++xx) m = std::max(m, at(y, xx));
                        out.push_back(h1 > h0 && w1 > w0 ? m : 0.0);
                    } else {
                        const auto pos = [](double lo, double hi, int64_t i, int64_t cnt, int64_t size) {
                            const double s = static_cast<double>(size - 1);
                            if (cnt == 1) return (lo + hi) / 2 * s;
                            return lo * s + (hi - lo) * s * static_cast<double>(i) / static_cast<double>(cnt - 1);
                        };
                        const double y = pos(b[2], b[4], ph, ph_n, H), xx = pos(b[1], b[3], pw, pw_n, W);
                        if (y < 0 || y > static_cast<double>(H - 1) || xx < 0 || xx > static_cast<double>(W - 1)) {
                            out.push_back(0);
                            continue;
                        }
                        const auto y0 = static_cast<int64_t>(std::floor(y)), x0 = static_cast<int64_t>(std::floor(xx));
                        const int64_t y1 = std::min(y0 + 1, H - 1), x1 = std::min(x0 + 1, W - 1);
                        const double fy = y - static_cast<double>(y0), fx = xx - static_cast<double>(x0);
                        out.push_back((1 - fy) * ((1 - fx) * at(y0, x0) + fx * at(y0, x1)) +
                                      fy * ((1 - fx) * at(y1, x0) + fx * at(y1, x1)));
                    }
                }
        }
    }
    return out;
}

TEST(RoiPooling, MaxByHand) {
    // 4x4 map 0..15; the box [0,0]-[3,3] at scale 1 is 4x4 pixels: 2x2 bins of 2x2 pixels.
    const Tensor data = iota(ElementType::f32, {1, 1, 4, 4});
    const Tensor rois = make_tensor<float>({2, 5}, {0, 0, 0, 3, 3, 0, 1, 1, 2, 2});
    const Tensor out = OpTester("ROIPooling", 2, attrs(2, 2, 1.0, "max")).run1({data, rois}, {1});
    ASSERT_EQ(out.shape(), (Shape{2, 1, 2, 2}));
    EXPECT_EQ(values_of<float>(out), (std::vector<float>{5, 7, 13, 15, 5, 6, 9, 10}));
    // Scale 0.5 and rounding: [0, 0, 6, 6] -> pixels 0..3 again; 3x3 bins over 4 pixels: rows
    // [0,2), [1,3), [2,4).
    const Tensor s = OpTester("ROIPooling", 2, attrs(3, 3, 0.5, "max")).run1({data, make_tensor<float>({1, 5}, {0, 0, 0, 6, 6})});
    EXPECT_EQ(values_of<float>(s), (std::vector<float>{5, 6, 7, 9, 10, 11, 13, 14, 15}));
    // The default method is max; a malformed box (x2 < x1) is 1x1 at its start.
    const Tensor m = OpTester("ROIPooling", 16, {{"pooled_h", "1"}, {"pooled_w", "1"}, {"spatial_scale", "1"}})
                         .run1({data, make_tensor<float>({1, 5}, {0, 2, 1, 0, 0})});
    EXPECT_EQ(values_of<float>(m), (std::vector<float>{6}));
    // A box entirely outside the map pools nothing: 0.
    const Tensor outside = OpTester("ROIPooling", 2, attrs(1, 1, 1.0, "max")).run1({data, make_tensor<float>({1, 5}, {0, 9, 9, 12, 12})});
    EXPECT_EQ(values_of<float>(outside), (std::vector<float>{0}));
}

TEST(RoiPooling, BilinearByHand) {
    const Tensor data = make_tensor<float>({1, 1, 2, 2}, {0, 1, 2, 3});
    // The whole map at 2x2: the four corners; at 1x1: the center.
    const Tensor corners = OpTester("ROIPooling", 2, attrs(2, 2, 1.0, "bilinear")).run1({data, make_tensor<float>({1, 5}, {0, 0, 0, 1, 1})});
    EXPECT_EQ(values_of<float>(corners), (std::vector<float>{0, 1, 2, 3}));
    const Tensor center = OpTester("ROIPooling", 2, attrs(1, 1, 1.0, "bilinear")).run1({data, make_tensor<float>({1, 5}, {0, 0, 0, 1, 1})});
    EXPECT_EQ(values_of<float>(center), (std::vector<float>{1.5f}));
    // Sampling points outside [0, 1] give 0; spatial_scale plays no part.
    const Tensor partly = OpTester("ROIPooling", 2, attrs(1, 2, 16.0, "bilinear")).run1({data, make_tensor<float>({1, 5}, {0, 0.5f, 0, 1.5f, 0})});
    EXPECT_EQ(values_of<float>(partly), (std::vector<float>{0.5f, 0}));
}

TEST(RoiPooling, MatchesTheReference) {
    const Shape ds{2, 3, 7, 9};
    const std::vector<double> x = random_values(2 * 3 * 7 * 9, 11, -5, 5);
    const std::vector<double> max_rois = {0, 0, 0, 15, 11, 1, 4, 2, 17, 13, 1, -6, -4, 5, 3, 0, 10, 8, 40, 30, 1, 3, 3, 3, 3};
    const std::vector<double> bil_rois = {0, 0, 0, 1, 1, 1, 0.1, 0.2, 0.7, 0.9, 1, -0.3, 0.4, 0.5, 1.3, 0, 0.8, 0.6, 0.2, 0.1};
    for (const auto& [ph, pw] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {2, 3}, {3, 2}, {6, 6}}) {
        for (double scale : {0.5, 0.25, 1.0}) {
            const Tensor out = OpTester("ROIPooling", 2, attrs(ph, pw, scale, "max"))
                                   .run1({make_tensor(ElementType::f32, ds, x), make_tensor(ElementType::f32, {5, 5}, max_rois)}, {1});
            EXPECT_TRUE(all_close(out, reference(x, ds, max_rois, ph, pw, scale, false), 1e-6)) << ph << "x" << pw << " scale " << scale;
        }
        const Tensor out = OpTester("ROIPooling", 2, attrs(ph, pw, 1.0, "bilinear"))
                               .run1({make_tensor(ElementType::f64, ds, x), make_tensor(ElementType::f64, {4, 5}, bil_rois)});
        EXPECT_TRUE(all_close(out, reference(x, ds, bil_rois, ph, pw, 1.0, true), 1e-12)) << ph << "x" << pw;
    }
}

TEST(RoiPooling, ShapeRule) {
    const OpTester op("ROIPooling", 2, attrs(6, 5, 0.0625, "max"));
    auto infos = op.infer({unknown(ElementType::f32, PartialShape({1, 256, 38, 50})), unknown(ElementType::f32, PartialShape({300, 5}))});
    EXPECT_EQ(infos[0].type, ElementType::f32);
    EXPECT_EQ(infos[0].shape, PartialShape({300, 256, 6, 5}));
    infos = op.infer({unknown(ElementType::f16, PartialShape({-1, -1, -1, -1})), unknown(ElementType::f16, PartialShape({-1, -1}))});
    EXPECT_EQ(infos[0].shape, PartialShape({-1, -1, 6, 5}));
    const PartialShape any = PartialShape::dynamic_rank();
    infos = op.infer({unknown(ElementType::f32, any), unknown(ElementType::f32, any)});
    EXPECT_EQ(infos[0].shape, PartialShape({-1, -1, 6, 5}));
}

TEST(RoiPooling, Errors) {
    const OpTester op("ROIPooling", 2, attrs(2, 2, 1.0, "max"));
    const Tensor data = iota(ElementType::f32, {2, 1, 4, 4});
    // Attributes.
    EXPECT_TRUE(throws_error([] { OpTester("ROIPooling", 2, {{"pooled_w", "2"}, {"spatial_scale", "1"}}).attrs(); },
                             ErrorKind::Attribute, "attribute-missing", "pooled_h"));
    EXPECT_TRUE(throws_error([] { OpTester("ROIPooling", 2, {{"pooled_h", "2"}, {"pooled_w", "2"}}).attrs(); },
                             ErrorKind::Attribute, "attribute-missing", "spatial_scale"));
    EXPECT_TRUE(throws_error([] { OpTester("ROIPooling", 2, attrs(0, 2, 1.0, "max")).attrs(); }, ErrorKind::Attribute,
                             "attribute-invalid", "'pooled_h' = 0: must be in [1, 2147483647]"));
    EXPECT_TRUE(throws_error([] { OpTester("ROIPooling", 2, attrs(2, -1, 1.0, "max")).attrs(); }, ErrorKind::Attribute,
                             "attribute-invalid", "'pooled_w' = -1"));
    EXPECT_TRUE(throws_error([] { OpTester("ROIPooling", 2, attrs(2, 2, 0.0, "max")).attrs(); }, ErrorKind::Attribute,
                             "attribute-invalid", "spatial_scale"));
    EXPECT_TRUE(throws_error([] { OpTester("ROIPooling", 2, attrs(2, 2, 1.0, "avg")).attrs(); }, ErrorKind::Attribute,
                             "attribute-invalid", "max, bilinear"));
    // Shapes and types.
    const Tensor rois = make_tensor<float>({1, 5}, {0, 0, 0, 1, 1});
    EXPECT_TRUE(throws_error([&] { op.run1({iota(ElementType::f32, {1, 4, 4}), rois}); }, ErrorKind::ShapeRule, "rank-invalid",
                             "4D", 0));
    EXPECT_TRUE(throws_error([&] { op.run1({data, make_tensor<float>({5}, {0, 0, 0, 1, 1})}); }, ErrorKind::ShapeRule,
                             "rank-invalid", "2D", 1));
    EXPECT_TRUE(throws_error([&] { op.run1({data, make_tensor<float>({1, 4}, {0, 0, 1, 1})}); }, ErrorKind::ShapeRule,
                             "rois-shape", "[NUM_ROIS, 5]", 1));
    EXPECT_TRUE(throws_error([&] { op.run1({iota(ElementType::i32, {1, 1, 4, 4}), rois}); }, ErrorKind::Type,
                             "type-unsupported", "i32", 0));
    EXPECT_TRUE(throws_error([&] { op.run1({data, make_tensor(ElementType::f16, {1, 5}, {0, 0, 0, 1, 1})}); }, ErrorKind::Type,
                             "type-mismatch", "f16", 1));
    // Values, at run time: batch ids outside [0, N-1] and NaN coordinates, for both methods.
    for (const char* method : {"max", "bilinear"}) {
        const OpTester m("ROIPooling", 2, attrs(2, 2, 1.0, method));
        EXPECT_TRUE(throws_error([&] { m.run1({data, make_tensor<float>({2, 5}, {0, 0, 0, 1, 1, 2, 0, 0, 1, 1})}); },
                                 ErrorKind::Value, "roi-batch-invalid", "rois[1, 0] = 2: batch id not in [0, 1]", 1));
        EXPECT_TRUE(throws_error([&] { m.run1({data, make_tensor<float>({1, 5}, {-1, 0, 0, 1, 1})}); }, ErrorKind::Value,
                                 "roi-batch-invalid", "batch id not in [0, 1]", 1));
        EXPECT_TRUE(throws_error([&] { m.run1({data, make_tensor<float>({1, 5}, {std::nanf(""), 0, 0, 1, 1})}); },
                                 ErrorKind::Value, "roi-batch-invalid", "batch id", 1));
        EXPECT_TRUE(throws_error([&] { m.run1({data, make_tensor<float>({1, 5}, {0, 0, std::nanf(""), 1, 1})}); },
                                 ErrorKind::Value, "roi-invalid", "rois[0, 2] = nan", 1));
    }
    // Not registered in opset1 (OpenVINO looks ROIPooling written as opset1 up in opset2).
    EXPECT_EQ(builtin_ops().find("ROIPooling", 1), nullptr);
}

TEST(RoiPooling, ElementTypes) {
    const Shape ds{1, 2, 5, 5};
    const std::vector<double> x = random_values(50, 3, -2, 2);
    const std::vector<double> rois = {0, 0, 0, 4, 3, 0, 1, 2, 4, 4};
    for (ElementType t : {ElementType::f16, ElementType::bf16, ElementType::f32, ElementType::f64}) {
        // Values the type holds exactly, so that max pooling is exact.
        const std::vector<double> held = to_doubles(make_tensor(t, ds, x));
        const Tensor out = OpTester("ROIPooling", 2, attrs(2, 2, 1.0, "max")).run1({make_tensor(t, ds, held), make_tensor(t, {2, 5}, rois)});
        EXPECT_EQ(out.type(), t);
        EXPECT_TRUE(all_close(out, reference(held, ds, rois, 2, 2, 1.0, false), 0)) << to_string(t);
        const std::vector<double> bil = {0, 0.1, 0.2, 0.9, 0.7};
        const Tensor b = OpTester("ROIPooling", 2, attrs(3, 3, 1.0, "bilinear")).run1({make_tensor(t, ds, held), make_tensor(t, {1, 5}, bil)});
        EXPECT_TRUE(all_close(b, reference(held, ds, to_doubles(make_tensor(t, {1, 5}, bil)), 3, 3, 1.0, true), t == ElementType::bf16 ? 1e-2 : 2e-3))
            << to_string(t);
    }
    EXPECT_TRUE(throws_error([] {
        OpTester("ROIPooling", 2, attrs(1, 1, 1.0, "max")).run1({iota(ElementType::u8, {1, 1, 2, 2}), make_tensor<uint8_t>({1, 5}, {0, 0, 0, 1, 1})});
    }, ErrorKind::Type, "type-unsupported", "u8", 0));
}

}  // namespace
}  // namespace irlite
