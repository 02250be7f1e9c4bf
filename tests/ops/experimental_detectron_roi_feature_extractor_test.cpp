// ExperimentalDetectronROIFeatureExtractor-6: ROIAlign sampling (fixed and adaptive grids, points
// outside the map, aligned), the pyramid level mapping (its boundaries, clamping, zero-area ROIs,
// extra scales), channels and the ROIs output, the shape rule with unknown inputs and one declared
// output, every error, and the element types.
#include <cmath>

#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

OpTester extractor(int64_t output_size, int64_t sampling_ratio, const std::string& scales, bool aligned = false) {
    return OpTester("ExperimentalDetectronROIFeatureExtractor", 6,
                    {{"output_size", std::to_string(output_size)},
                     {"sampling_ratio", std::to_string(sampling_ratio)},
                     {"pyramid_scales", scales},
                     {"aligned", aligned ? "true" : "false"}});
}

// A 4x4 map whose value is 4y + x: bilinear interpolation of it is exact, so a sample at (y, x)
// inside the map reads 4y + x, and a bin's average is the value at the mean of its points.
Tensor linear_map(ElementType t, int64_t channels = 1) {
    std::vector<double> v;
    for (int64_t c = 0; c < channels; ++c)
        for (int y = 0; y < 4; ++y)
            for (int x = 0; x < 4; ++x) v.push_back(4.0 * y + x + 100.0 * static_cast<double>(c));
    return make_tensor(t, {1, channels, 4, 4}, v);
}

TEST(ExperimentalDetectronROIFeatureExtractor, BinsOfALinearMap) {
    // ROI (0, 0, 2, 2), 2x2 bins of 1 pixel, 2x2 points per bin at .25 and .75: bin (i, j) averages
    // to the value at its centre (i + .5, j + .5).
    const auto out = extractor(2, 2, "1").run({make_tensor<float>({1, 4}, {0, 0, 2, 2}), linear_map(ElementType::f32, 2)});
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].shape(), (Shape{1, 2, 2, 2}));
    EXPECT_EQ(values_of<float>(out[0]), (std::vector<float>{2.5f, 3.5f, 6.5f, 7.5f, 102.5f, 103.5f, 106.5f, 107.5f}));
    EXPECT_EQ(values_of<float>(out[1]), (std::vector<float>{0, 0, 2, 2}));
    // One bin, one point at the ROI's centre (2, 2) -> 10; aligned shifts it by -0.5 -> (1.5, 1.5).
    const Tensor roi = make_tensor<float>({1, 4}, {1, 1, 3, 3});
    EXPECT_EQ(values_of<float>(extractor(1, 1, "1").run({roi, linear_map(ElementType::f32)})[0]), (std::vector<float>{10}));
    EXPECT_EQ(values_of<float>(extractor(1, 1, "1", true).run({roi, linear_map(ElementType::f32)})[0]),
              (std::vector<float>{7.5f}));
    // pyramid_scales 2: the ROI (2, 2, 6, 6) is (1, 1, 3, 3) on the map.
    EXPECT_EQ(values_of<float>(extractor(1, 1, "2").run({make_tensor<float>({1, 4}, {2, 2, 6, 6}), linear_map(ElementType::f32)})[0]),
              (std::vector<float>{10}));
}

// OpenVINO's reference test case: output_size 3, sampling_ratio 2, one level of scale 4, a 2x3 map
// with 2 channels holding 0..11. ROI 0 (0, 1, 2, 3) is (0, .25, .5, .75) on the map, forced to
// 1x1: bins of 1/3, points 1/12 and 1/4 into each; the map is 3y + x there, so bin (0, 0) is
// 3 * (1/3 + 1/2) / 2 + (1/12 + 1/4) / 2 = 1.416667. ROI 1 lies below the last row: y clamps to 1.
TEST(ExperimentalDetectronROIFeatureExtractor, OpenVinoReferenceCase) {
    const std::vector<double> want = {1.416667, 1.75, 2.083333, 2.416667, 2.75, 3.083333, 3.166667, 3.5,  3.833333,
                                      7.416667, 7.75, 8.083333, 8.416667, 8.75, 9.083334, 9.166666, 9.5,  9.833334,
                                      4.166667, 4.5,  4.833333, 4.166667, 4.5,  4.833333, 2.083333, 2.25, 2.416667,
                                      10.16667, 10.5, 10.83333, 10.16667, 10.5, 10.83333, 5.083333, 5.25, 5.416667};
    for (ElementType t : {ElementType::f32, ElementType::f16, ElementType::bf16}) {
        SCOPED_TRACE(to_string(t));
        const auto out = extractor(3, 2, "4").run({make_tensor(t, {2, 4}, {0, 1, 2, 3, 4, 5, 6, 7}), iota(t, {1, 2, 2, 3})});
        ASSERT_EQ(out[0].shape(), (Shape{2, 2, 3, 3}));
        const std::vector<double> got = to_doubles(out[0]);
        const double tolerance = t == ElementType::f32 ? 1e-5 : t == ElementType::f16 ? 1e-2 : 5e-2;
        for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], tolerance) << i;
        EXPECT_EQ(to_doubles(out[1]), (std::vector<double>{0, 1, 2, 3, 4, 5, 6, 7}));
    }
}

TEST(ExperimentalDetectronROIFeatureExtractor, AdaptiveGridAndPointsOutsideTheMap) {
    // A 1x4 map [0, 0, 8, 0] and the ROI (0, 0, 4, 1): one bin 4 wide, 1 high.
    const Tensor map = make_tensor<float>({1, 1, 1, 4}, {0, 0, 8, 0});
    const Tensor roi = make_tensor<float>({1, 4}, {0, 0, 4, 1});
    // sampling_ratio 1: the point x = 2 -> 8.
    EXPECT_EQ(values_of<float>(extractor(1, 1, "1").run({roi, map})[0]), (std::vector<float>{8}));
    // sampling_ratio 2: x = 1 and 3 -> 0 and 0.
    EXPECT_EQ(values_of<float>(extractor(1, 2, "1").run({roi, map})[0]), (std::vector<float>{0}));
    // sampling_ratio 0: ceil(4 / 1) x ceil(1 / 1) = 4 x 1 points, x = .5, 1.5, 2.5, 3.5 -> 0, 4, 4, and
    // 3.5 clamped to the last pixel 0: (0 + 4 + 4 + 0) / 4 = 2.
    EXPECT_EQ(values_of<float>(extractor(1, 0, "1").run({roi, map})[0]), (std::vector<float>{2}));
    // Points more than a pixel outside count as 0: ROI (-6, 0, -2, 1), one point at x = -4. ROI
    // (-1, 0, 1, 1) in 2x2 bins on a 1x2 map: points x = -.5 (within a pixel: clamped to pixel 0)
    // and .5; every y is clamped to the one row.
    EXPECT_EQ(values_of<float>(extractor(1, 1, "1").run({make_tensor<float>({1, 4}, {-6, 0, -2, 1}), map})[0]),
              (std::vector<float>{0}));
    const Tensor edge = make_tensor<float>({1, 1, 1, 2}, {6, 2});
    EXPECT_EQ(values_of<float>(extractor(2, 1, "1").run({make_tensor<float>({1, 4}, {-1, 0, 1, 1}), edge})[0]),
              (std::vector<float>{6, 4, 6, 4}));  // -.5 -> pixel 0 = 6; .5 -> (6 + 2) / 2
}

TEST(ExperimentalDetectronROIFeatureExtractor, LevelMapping) {
    // Four 1x1 levels holding 10, 20, 30, 40; scales 1000 keep every ROI inside its 1x1 map, so an
    // ROI reads the value of its level. j = floor(2 + log2(sqrt(w * h) / 224)), clamped to [0, 3];
    // the fifth scale has no map and is ignored.
    std::vector<Tensor> in = {make_tensor<float>({9, 4}, {0, 0, 100, 100,    // 100: j = 0
                                                          0, 0, 111, 111,    // just below 112: 0
                                                          0, 0, 112, 112,    // 112 = 224 / 2: 1
                                                          0, 0, 224, 224,    // 2
                                                          0, 0, 447, 447,    // 2
                                                          0, 0, 448, 448,    // 3
                                                          0, 0, 1000, 1000,  // 4, clamped to 3
                                                          5, 5, 205, 55,     // 200 x 50: sqrt = 100: 0
                                                          10, 10, 10, 50})};  // area 0: no level, zeros
    for (double v : {10, 20, 30, 40}) in.push_back(make_tensor<float>({1, 1, 1, 1}, {static_cast<float>(v)}));
    const auto out = extractor(1, 1, "1000,1000,1000,1000,1000").run(in);
    EXPECT_EQ(values_of<float>(out[0]), (std::vector<float>{10, 10, 20, 30, 30, 40, 40, 10, 0}));
    EXPECT_TRUE(tensors_equal(out[1], in[0]));  // the ROIs, in input order
}

TEST(ExperimentalDetectronROIFeatureExtractor, ShapeRule) {
    const OpTester op = extractor(7, 2, "4,8,16,32,64");
    const auto infos = op.infer({unknown(ElementType::f32, PartialShape({-1, 4})),
                                 unknown(ElementType::f32, PartialShape({1, 256, -1, -1})),
                                 unknown(ElementType::f32, PartialShape::dynamic_rank())});
    ASSERT_EQ(infos.size(), 2u);
    EXPECT_EQ(infos[0].shape, PartialShape({-1, 256, 7, 7}));
    EXPECT_EQ(infos[1].shape, PartialShape({-1, 4}));
    EXPECT_EQ(infos[0].type, ElementType::f32);
    // Channels unknown everywhere; the ROI count known.
    const auto partial = op.infer({unknown(ElementType::f16, PartialShape({1000, 4})),
                                   unknown(ElementType::f16, PartialShape({1, -1, 200, 336}))});
    EXPECT_EQ(partial[0].shape, PartialShape({1000, -1, 7, 7}));
    EXPECT_EQ(partial[1].type, ElementType::f16);
    // A layer that declares only the features gets only them (OpenVINO's own test model does that).
    const auto one = op.infer({unknown(ElementType::f32, PartialShape({1000, 4})),
                               unknown(ElementType::f32, PartialShape({1, 256, 200, 336}))},
                              1);
    ASSERT_EQ(one.size(), 1u);
    EXPECT_EQ(one[0].shape, PartialShape({1000, 256, 7, 7}));
    EXPECT_TRUE(throws_error([&] { op.infer({unknown(ElementType::f32, PartialShape({2, 4})), unknown(ElementType::f32, PartialShape({1, 1, 2, 2}))}, 3); },
                             ErrorKind::Graph, "output-count", "has 2 outputs"));
    // run() with the ROIs unknown at load time.
    const auto out = extractor(2, 2, "1").run({make_tensor<float>({1, 4}, {0, 0, 2, 2}), linear_map(ElementType::f32)}, {0});
    EXPECT_EQ(out[0].shape(), (Shape{1, 1, 2, 2}));
}

TEST(ExperimentalDetectronROIFeatureExtractor, AttributeErrors) {
    const auto attrs_of = [](std::vector<IrAttribute> a) {
        return [a] { OpTester("ExperimentalDetectronROIFeatureExtractor", 6, a).attrs(); };
    };
    const IrAttribute size{"output_size", "7"}, ratio{"sampling_ratio", "2"}, scales{"pyramid_scales", "4,8"};
    EXPECT_TRUE(throws_error(attrs_of({{"output_size", "0"}, ratio, scales}), ErrorKind::Attribute, "attribute-invalid",
                             "'output_size' = 0"));
    EXPECT_TRUE(throws_error(attrs_of({size, {"sampling_ratio", "-1"}, scales}), ErrorKind::Attribute, "attribute-invalid",
                             "'sampling_ratio' = -1"));
    EXPECT_TRUE(throws_error(attrs_of({size, ratio, {"pyramid_scales", "4,0"}}), ErrorKind::Attribute, "attribute-invalid",
                             "'pyramid_scales' value 1 = 0"));
    EXPECT_TRUE(throws_error(attrs_of({size, ratio, {"pyramid_scales", ""}}), ErrorKind::Attribute, "attribute-invalid",
                             "'pyramid_scales' is empty"));
    EXPECT_TRUE(throws_error(attrs_of({ratio, scales}), ErrorKind::Attribute, "attribute-missing", "output_size"));
    EXPECT_TRUE(throws_error(attrs_of({size, scales}), ErrorKind::Attribute, "attribute-missing", "sampling_ratio"));
    EXPECT_TRUE(throws_error(attrs_of({size, ratio}), ErrorKind::Attribute, "attribute-missing", "pyramid_scales"));
    EXPECT_TRUE(throws_error(attrs_of({size, ratio, scales, {"aligned", "maybe"}}), ErrorKind::Attribute, "attribute-invalid",
                             "aligned"));
    EXPECT_NO_THROW(attrs_of({size, ratio, scales})());  // aligned is optional
}

TEST(ExperimentalDetectronROIFeatureExtractor, InputErrors) {
    const OpTester op = extractor(1, 1, "1,2");
    const Tensor roi = make_tensor<float>({1, 4}, {0, 0, 2, 2});
    const Tensor map = linear_map(ElementType::f32);
    // More maps than scales.
    EXPECT_TRUE(throws_error([&] { op.run({roi, map, map, map}); }, ErrorKind::Attribute, "attribute-invalid",
                             "'pyramid_scales' has 2 value(s) but the op has 3 feature maps", 3));
    EXPECT_TRUE(throws_error([&] { op.run({make_tensor<float>({1, 1, 4}, {0, 0, 2, 2}), map}); }, ErrorKind::ShapeRule,
                             "rank-invalid", "rois must be 2-D", 0));
    EXPECT_TRUE(throws_error([&] { op.run({make_tensor<float>({1, 5}, {0, 0, 0, 2, 2}), map}); }, ErrorKind::ShapeRule,
                             "shape-invalid", "[number_of_rois, 4]", 0));
    EXPECT_TRUE(throws_error([&] { op.run({roi, make_tensor<float>({1, 4, 4}, std::vector<float>(16, 0))}); },
                             ErrorKind::ShapeRule, "rank-invalid", "feature_map0 must be 4-D", 1));
    EXPECT_TRUE(throws_error([&] { op.run({roi, make_tensor<float>({2, 1, 2, 2}, std::vector<float>(8, 0))}); },
                             ErrorKind::ShapeRule, "shape-invalid", "batch 1", 1));
    EXPECT_TRUE(throws_error([&] { op.run({roi, map, linear_map(ElementType::f32, 2)}); }, ErrorKind::ShapeRule,
                             "shape-mismatch", "feature_map1 has 2 channels but feature_map0 has 1", 2));
    EXPECT_TRUE(throws_error([&] { op.run({roi, linear_map(ElementType::f16)}); }, ErrorKind::Type, "element-type-mismatch",
                             "feature_map0 is f16 but rois is f32", 1));
    // Values checked by the kernel: a non-finite coordinate, an adaptive grid far too large.
    EXPECT_TRUE(throws_error([&] { op.run({make_tensor<float>({2, 4}, {0, 0, 1, 1, 0, NAN, 2, 2}), map}); },
                             ErrorKind::Value, "roi-invalid", "ROI 1 has the non-finite coordinate", 0));
    EXPECT_TRUE(throws_error([&] { op.run({make_tensor<float>({1, 4}, {0, 0, INFINITY, 2}), map}); }, ErrorKind::Value,
                             "roi-invalid", "non-finite", 0));
    EXPECT_TRUE(throws_error([&] { extractor(1, 0, "1").run({make_tensor<float>({1, 4}, {0, 0, 3e6f, 3e6f}), map}); },
                             ErrorKind::Value, "roi-invalid", "adaptive sampling grid", 0));
}

TEST(ExperimentalDetectronROIFeatureExtractor, ElementTypes) {
    for (ElementType t : {ElementType::f32, ElementType::f16, ElementType::bf16, ElementType::f64}) {
        SCOPED_TRACE(to_string(t));
        const auto out = extractor(2, 2, "1").run({make_tensor(t, {1, 4}, {0, 0, 2, 2}), linear_map(t)});
        EXPECT_EQ(out[0].type(), t);
        EXPECT_EQ(out[1].type(), t);
        EXPECT_EQ(to_doubles(out[0]), (std::vector<double>{2.5, 3.5, 6.5, 7.5}));
        EXPECT_EQ(to_doubles(out[1]), (std::vector<double>{0, 0, 2, 2}));
    }
    EXPECT_TRUE(throws_error([] { extractor(1, 1, "1").run({make_tensor<int32_t>({1, 4}, {0, 0, 2, 2}), iota(ElementType::i32, {1, 1, 2, 2})}); },
                             ErrorKind::Type, "element-type-unsupported", "rois must be a floating-point tensor", 0));
}

}  // namespace
}  // namespace irlite
