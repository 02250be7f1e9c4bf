// ExperimentalDetectronDetectionOutput-6: box refinement (deltas, weights, max_delta_log_wh,
// coordinates raised to 0), the score threshold, class-wise NMS and post_nms_count, the background
// class (dropped with and without class_agnostic_box_regression, as OpenVINO does), the order of
// the detections and the zero rows after them, the shape rule with unknown inputs and fewer declared outputs, every error, and
// the element types.
#include <algorithm>
#include <cmath>
#include <functional>

#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

struct Attrs {
    std::string score = "0.05", nms = "0.5", max_delta = "10", classes = "2", post = "10", max_det = "5",
                agnostic = "true", weights = "1,1,1,1";
    std::vector<IrAttribute> list() const {
        return {{"score_threshold", score}, {"nms_threshold", nms}, {"max_delta_log_wh", max_delta},
                {"num_classes", classes}, {"post_nms_count", post}, {"max_detections_per_image", max_det},
                {"class_agnostic_box_regression", agnostic}, {"deltas_weights", weights}};
    }
};

OpTester op(const Attrs& a) { return OpTester("ExperimentalDetectronDetectionOutput", 6, a.list()); }

// Three ROIs: A (0,0,9,9) and B (1,1,10,10) overlap (IoU with +1 sizes: 81 / (100 + 100 - 81) = .68),
// C (20,20,29,29) is apart. Zero deltas with unit weights leave every box as it is: x0' = ctr -
// box_w / 2 = x0 and x1' = ctr + box_w / 2 - 1 = x1.
struct Case {
    ElementType t = ElementType::f32;
    std::vector<Tensor> inputs(const std::vector<double>& scores) const {
        return {make_tensor(t, {3, 4}, {0, 0, 9, 9, 1, 1, 10, 10, 20, 20, 29, 29}),
                make_tensor(t, {3, 8}, std::vector<double>(24, 0.0)), make_tensor(t, {3, 2}, scores),
                make_tensor(t, {1, 3}, {100, 100, 1})};
    }
};
// Per ROI: (class 0, class 1) scores.
const std::vector<double> kScores = {0.125, 0.875, 0.25, 0.75, 0.375, 0.625};

TEST(ExperimentalDetectronDetectionOutput, NmsPerClassWithoutTheBackground) {
    const auto out = op(Attrs{}).run(Case{}.inputs(kScores));
    ASSERT_EQ(out.size(), 3u);
    EXPECT_EQ(out[0].shape(), (Shape{5, 4}));
    EXPECT_EQ(out[1].type(), ElementType::i32);
    // Class 1: A (.875) kept, B (.75) suppressed by A, C (.625) kept; then zero rows.
    EXPECT_EQ(values_of<float>(out[0]), (std::vector<float>{0, 0, 9, 9, 20, 20, 29, 29, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
    EXPECT_EQ(values_of<int32_t>(out[1]), (std::vector<int32_t>{1, 1, 0, 0, 0}));
    EXPECT_EQ(values_of<float>(out[2]), (std::vector<float>{0.875f, 0.625f, 0, 0, 0}));
}

TEST(ExperimentalDetectronDetectionOutput, BackgroundDroppedAlsoWhenNotClassAgnostic) {
    // OpenVINO drops class 0 whatever class_agnostic_box_regression says (real Mask R-CNN IR writes
    // it false): only class 1's A (.875) and C (.625) come out.
    Attrs a;
    a.agnostic = "false";
    a.max_det = "3";
    const auto out = op(a).run(Case{}.inputs(kScores));
    EXPECT_EQ(values_of<float>(out[0]), (std::vector<float>{0, 0, 9, 9, 20, 20, 29, 29, 0, 0, 0, 0}));
    EXPECT_EQ(values_of<int32_t>(out[1]), (std::vector<int32_t>{1, 1, 0}));
    EXPECT_EQ(values_of<float>(out[2]), (std::vector<float>{0.875f, 0.625f, 0}));
    // max_detections_per_image 1: the best of the image.
    a.max_det = "1";
    EXPECT_EQ(values_of<float>(op(a).run(Case{}.inputs(kScores))[2]), (std::vector<float>{0.875f}));
    // post_nms_count 1: one box per class.
    a.post = "1";
    a.max_det = "4";
    const auto one = op(a).run(Case{}.inputs(kScores));
    EXPECT_EQ(values_of<int32_t>(one[1]), (std::vector<int32_t>{1, 0, 0, 0}));
    EXPECT_EQ(values_of<float>(one[2]), (std::vector<float>{0.875f, 0, 0, 0}));
    // nms_threshold .7 keeps B (IoU .68 is not above it).
    Attrs loose;
    loose.nms = "0.7";
    EXPECT_EQ(values_of<float>(op(loose).run(Case{}.inputs(kScores))[2]), (std::vector<float>{0.875f, 0.75f, 0.625f, 0, 0}));
    // The score threshold is strict: .75 is not above .75.
    Attrs strict;
    strict.score = "0.75";
    EXPECT_EQ(values_of<float>(op(strict).run(Case{}.inputs(kScores))[2]), (std::vector<float>{0.875f, 0, 0, 0, 0}));
}

TEST(ExperimentalDetectronDetectionOutput, TiesByRoi) {
    // A and C score .5 in class 1: A (ROI 0) before C (ROI 2); class 0 is the background.
    const auto out = op(Attrs{}).run(Case{}.inputs({0.5, 0.5, 0, 0, 0.5, 0.5}));
    EXPECT_EQ(values_of<int32_t>(out[1]), (std::vector<int32_t>{1, 1, 0, 0, 0}));
    EXPECT_EQ(values_of<float>(out[0]),
              (std::vector<float>{0, 0, 9, 9, 20, 20, 29, 29, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
}

TEST(ExperimentalDetectronDetectionOutput, BoxRefinementAndClipping) {
    // ROI (10, 20, 29, 59): box 20 x 40, centre (20, 40). Class 1 deltas (.2, -.1, ln 2, 0) with
    // weights (2, 2, 1, 1): dx = .1, dy = -.05, width x2, height x1. New centre (22, 38), size 40 x
    // 40: (2, 18, 22 + 20 - 1, 38 + 20 - 1) = (2, 18, 41, 57).
    const auto inputs = [](double height, double width) {
        return std::vector<Tensor>{make_tensor<float>({1, 4}, {10, 20, 29, 59}),
                                   make_tensor<float>({1, 8}, {0, 0, 0, 0, 0.2f, -0.1f, std::log(2.0f), 0}),
                                   make_tensor<float>({1, 2}, {0, 0.9f}),
                                   make_tensor<float>({1, 3}, {static_cast<float>(height), static_cast<float>(width), 1})};
    };
    Attrs a;
    a.weights = "2,2,1,1";
    a.max_det = "1";
    const std::vector<float> box = values_of<float>(op(a).run(inputs(100, 100))[0]);
    const std::vector<float> want = {2, 18, 41, 57};
    for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(box[i], want[i], 1e-4) << i;
    // Not clipped to a smaller image (40 wide, 50 high), as OpenVINO's reference.
    const std::vector<float> unclipped = values_of<float>(op(a).run(inputs(50, 40))[0]);
    for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(unclipped[i], want[i], 1e-4) << i;
    // Raised to 0 where negative: dx = -3 / 2 moves the centre to 20 - 30 = -10, so x0 = -30 -> 0
    // and x1 = -10 + 20 - 1 = 9.
    const std::vector<Tensor> left = {make_tensor<float>({1, 4}, {10, 20, 29, 59}),
                                      make_tensor<float>({1, 8}, {0, 0, 0, 0, -3, -0.1f, std::log(2.0f), 0}),
                                      make_tensor<float>({1, 2}, {0, 0.9f}), make_tensor<float>({1, 3}, {100, 100, 1})};
    const std::vector<float> raised = values_of<float>(op(a).run(left)[0]);
    const std::vector<float> want_raised = {0, 18, 9, 57};
    for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(raised[i], want_raised[i], 1e-4) << i;
    // max_delta_log_wh 0 caps the width factor at exp(0) = 1: width 20, x from 12 to 31.
    a.max_delta = "0";
    const std::vector<float> capped = values_of<float>(op(a).run(inputs(100, 100))[0]);
    EXPECT_NEAR(capped[0], 12, 1e-4);
    EXPECT_NEAR(capped[2], 31, 1e-4);
}

// OpenVINO's reference test case: 16 ROIs, of which only ROI 0 (1, 1, 10, 10) and ROI 4 (4, 1, 8, 5)
// are not degenerate (the others are (1, 1, 1, 1): x1 <= x0, no detection). Class 1 deltas (1, 1,
// 1, 1) / (10, 10, 5, 5): ROI 0 becomes centre 6 + .1 * 10 = 7, size 10 * exp(.2), i.e.
// (.893, .893, 12.107, 12.107); ROI 4's box overlaps it with IoU .25 > .2 and is suppressed.
TEST(ExperimentalDetectronDetectionOutput, OpenVinoReferenceCase) {
    Attrs a;
    a.score = "0.01";
    a.nms = "0.2";
    a.max_delta = "2";
    a.post = "500";
    a.weights = "10,10,5,5";
    std::vector<double> rois(64, 1.0), deltas(128, 1.0);
    for (const auto& [at, v] : std::vector<std::pair<size_t, double>>{{2, 10}, {3, 10}, {16, 4}, {18, 8}, {19, 5}}) rois[at] = v;
    deltas[0] = 5;
    deltas[20] = 4;
    deltas[34] = 8;
    const auto run = [&](double image) {
        return op(a).run({make_tensor(ElementType::f32, {16, 4}, rois), make_tensor(ElementType::f32, {16, 8}, deltas),
                          make_tensor(ElementType::f32, {16, 2}, std::vector<double>(32, 1.0)),
                          make_tensor(ElementType::f32, {1, 3}, {image, image, 1})});
    };
    const double lo = 7 - 5 * std::exp(0.2), hi = 7 + 5 * std::exp(0.2) - 1;
    const auto big = run(100);  // an image large enough that clipping changes nothing
    const std::vector<double> want = {lo, lo, hi, hi};
    const std::vector<double> got = to_doubles(big[0]);
    for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << i;
    EXPECT_NEAR(got[0], 0.8929862, 1e-6);  // OpenVINO's expected values
    EXPECT_NEAR(got[2], 12.1070137, 1e-5);
    EXPECT_EQ(std::vector<double>(got.begin() + 4, got.end()), std::vector<double>(16, 0.0));
    EXPECT_EQ(values_of<int32_t>(big[1]), (std::vector<int32_t>{1, 0, 0, 0, 0}));
    EXPECT_EQ(values_of<float>(big[2]), (std::vector<float>{1, 0, 0, 0, 0}));
    // OpenVINO's own im_info (1, 1, 1): the same boxes, unclipped, as its expected values say.
    const auto small = run(1);
    EXPECT_EQ(to_doubles(small[0]), got);
    EXPECT_EQ(values_of<int32_t>(small[1]), (std::vector<int32_t>{1, 0, 0, 0, 0}));
    EXPECT_EQ(values_of<float>(small[2]), (std::vector<float>{1, 0, 0, 0, 0}));
}

TEST(ExperimentalDetectronDetectionOutput, ShapeRule) {
    const OpTester o = op(Attrs{});
    const auto infos = o.infer({unknown(ElementType::f32, PartialShape({-1, 4})), unknown(ElementType::f32, PartialShape({-1, 8})),
                                unknown(ElementType::f32, PartialShape::dynamic_rank()),
                                unknown(ElementType::f32, PartialShape({1, 3}))});
    ASSERT_EQ(infos.size(), 3u);
    EXPECT_EQ(infos[0].shape, PartialShape({5, 4}));
    EXPECT_EQ(infos[1].shape, PartialShape({5}));
    EXPECT_EQ(infos[1].type, ElementType::i32);
    EXPECT_EQ(infos[2].shape, PartialShape({5}));
    // A layer may declare only the first outputs; more than three is an error.
    const std::vector<RuleInput> in = {unknown(ElementType::f16, PartialShape({3, 4})), unknown(ElementType::f16, PartialShape({3, 8})),
                                       unknown(ElementType::f16, PartialShape({3, 2})), unknown(ElementType::f16, PartialShape({1, 3}))};
    EXPECT_EQ(o.infer(in, 2).size(), 2u);
    EXPECT_EQ(o.infer(in, 2)[0].type, ElementType::f16);
    EXPECT_TRUE(throws_error([&] { o.infer(in, 4); }, ErrorKind::Graph, "output-count", "has 3 outputs"));
    // Every input unknown at load time; max_detections_per_image 0 makes empty outputs.
    Attrs none;
    none.max_det = "0";
    const auto empty = op(none).run(Case{}.inputs(kScores), {0, 1, 2, 3});
    EXPECT_EQ(empty[0].shape(), (Shape{0, 4}));
    EXPECT_EQ(empty[2].shape(), (Shape{0}));
}

TEST(ExperimentalDetectronDetectionOutput, AttributeErrors) {
    const auto with = [](const std::function<void(Attrs&)>& change) {
        Attrs a;
        change(a);
        return [a] { op(a).attrs(); };
    };
    EXPECT_TRUE(throws_error(with([](Attrs& a) { a.score = "-0.1"; }), ErrorKind::Attribute, "attribute-invalid",
                             "'score_threshold' = -0.1"));
    EXPECT_TRUE(throws_error(with([](Attrs& a) { a.nms = "-1"; }), ErrorKind::Attribute, "attribute-invalid",
                             "'nms_threshold' = -1"));
    EXPECT_TRUE(throws_error(with([](Attrs& a) { a.classes = "-1"; }), ErrorKind::Attribute, "attribute-invalid",
                             "'num_classes' = -1"));
    EXPECT_TRUE(throws_error(with([](Attrs& a) { a.post = "-2"; }), ErrorKind::Attribute, "attribute-invalid",
                             "'post_nms_count' = -2"));
    EXPECT_TRUE(throws_error(with([](Attrs& a) { a.max_det = "-1"; }), ErrorKind::Attribute, "attribute-invalid",
                             "'max_detections_per_image' = -1"));
    EXPECT_TRUE(throws_error(with([](Attrs& a) { a.weights = "10,10,5"; }), ErrorKind::Attribute, "attribute-invalid",
                             "'deltas_weights' has 3 value(s)"));
    EXPECT_TRUE(throws_error(with([](Attrs& a) { a.weights = "10,-10,5,5"; }), ErrorKind::Attribute, "attribute-invalid",
                             "'deltas_weights' value 1 = -10"));
    EXPECT_TRUE(throws_error(with([](Attrs& a) { a.agnostic = "perhaps"; }), ErrorKind::Attribute, "attribute-invalid",
                             "class_agnostic_box_regression"));
    // Every attribute but class_agnostic_box_regression is required.
    for (const char* name : {"score_threshold", "nms_threshold", "max_delta_log_wh", "num_classes", "post_nms_count",
                             "max_detections_per_image", "deltas_weights"}) {
        std::vector<IrAttribute> list = Attrs{}.list();
        list.erase(std::remove_if(list.begin(), list.end(), [&](const IrAttribute& x) { return x.name == name; }), list.end());
        EXPECT_TRUE(throws_error([&] { OpTester("ExperimentalDetectronDetectionOutput", 6, list).attrs(); }, ErrorKind::Attribute,
                                 "attribute-missing", name));
    }
    std::vector<IrAttribute> list = Attrs{}.list();
    list.erase(list.begin() + 6);  // class_agnostic_box_regression
    EXPECT_NO_THROW(OpTester("ExperimentalDetectronDetectionOutput", 6, list).attrs());
}

TEST(ExperimentalDetectronDetectionOutput, InputErrors) {
    const OpTester o = op(Attrs{});
    std::vector<Tensor> in = Case{}.inputs(kScores);
    auto replace = [&](size_t port, Tensor t) {
        std::vector<Tensor> v = in;
        v[port] = std::move(t);
        return v;
    };
    EXPECT_TRUE(throws_error([&] { o.run(replace(0, make_tensor<float>({3, 5}, std::vector<float>(15, 0)))); },
                             ErrorKind::ShapeRule, "shape-invalid", "rois must be [number_of_rois, 4]", 0));
    EXPECT_TRUE(throws_error([&] { o.run(replace(1, make_tensor<float>({3, 4}, std::vector<float>(12, 0)))); },
                             ErrorKind::ShapeRule, "shape-invalid", "deltas must be [number_of_rois, num_classes * 4]", 1));
    EXPECT_TRUE(throws_error([&] { o.run(replace(2, make_tensor<float>({2, 2}, std::vector<float>(4, 0)))); },
                             ErrorKind::ShapeRule, "shape-mismatch", "scores has 2 rows but deltas has 3", 2));
    EXPECT_TRUE(throws_error([&] { o.run(replace(2, make_tensor<float>({6}, std::vector<float>(6, 0)))); },
                             ErrorKind::ShapeRule, "rank-invalid", "scores must be 2-D", 2));
    EXPECT_TRUE(throws_error([&] { o.run(replace(3, make_tensor<float>({3}, {100, 100, 1}))); }, ErrorKind::ShapeRule,
                             "rank-invalid", "im_info must be [1, 3]", 3));
    EXPECT_TRUE(throws_error([&] { o.run(replace(3, make_tensor<float>({1, 2}, {100, 100}))); }, ErrorKind::ShapeRule,
                             "shape-invalid", "im_info must be [1, 3]", 3));
    EXPECT_TRUE(throws_error([&] { o.run(replace(1, make_tensor(ElementType::f16, {3, 8}, std::vector<double>(24, 0)))); },
                             ErrorKind::Type, "element-type-mismatch", "deltas is f16 but rois is f32", 1));
}

TEST(ExperimentalDetectronDetectionOutput, ElementTypes) {
    for (ElementType t : {ElementType::f32, ElementType::f16, ElementType::bf16, ElementType::f64}) {
        SCOPED_TRACE(to_string(t));
        const auto out = op(Attrs{}).run(Case{t}.inputs(kScores));
        EXPECT_EQ(out[0].type(), t);
        EXPECT_EQ(out[1].type(), ElementType::i32);
        EXPECT_EQ(out[2].type(), t);
        EXPECT_EQ(to_doubles(out[0]), (std::vector<double>{0, 0, 9, 9, 20, 20, 29, 29, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
        EXPECT_EQ(to_doubles(out[2]), (std::vector<double>{0.875, 0.625, 0, 0, 0}));
    }
    Case ints{ElementType::i32};
    EXPECT_TRUE(throws_error([&] { op(Attrs{}).run(ints.inputs({0, 1, 0, 1, 0, 1})); }, ErrorKind::Type,
                             "element-type-unsupported", "rois must be a floating-point tensor", 0));
}

}  // namespace
}  // namespace irlite
