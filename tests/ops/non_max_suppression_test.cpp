// NonMaxSuppression-1/3/4/5/9: hard and soft NMS, per class and batch, ordering, thresholds,
// box encodings, the padded (old) and exact (new) outputs, and the errors.
#include <cmath>

#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

// ONNX's suppress_by_IOU example: six boxes, 3 kept at iou 0.5 in order 3, 0, 5.
const Tensor kBoxes = make_tensor<float>({1, 6, 4}, {0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, -0.1f, 1, 0.9f,
                                                     0, 10, 1, 11, 0, 10.1f, 1, 11.1f, 0, 100, 1, 101});
const Tensor kScores = make_tensor<float>({1, 1, 6}, {0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f});

TEST(NonMaxSuppression, HardNmsExactRows) {
    const OpTester nms("NonMaxSuppression", 9, {{"sort_result_descending", "false"}});
    const auto out = nms.run({kBoxes, kScores, scalar<int64_t>(3), scalar(0.5f), scalar(0.0f)});
    ASSERT_EQ(out.size(), 3u);
    EXPECT_EQ(out[0].shape(), (Shape{3, 3}));
    EXPECT_EQ(values_of<int64_t>(out[0]), (std::vector<int64_t>{0, 0, 3, 0, 0, 0, 0, 0, 5}));
    EXPECT_EQ(values_of<float>(out[1]), (std::vector<float>{0, 0, 0.95f, 0, 0, 0.9f, 0, 0, 0.3f}));
    EXPECT_EQ(values_of<int64_t>(out[2]), (std::vector<int64_t>{3}));
    // max_output_boxes_per_class 2, a score threshold that stops early, i32 outputs.
    const OpTester i32("NonMaxSuppression", 5, {{"output_type", "i32"}});
    EXPECT_EQ(values_of<int32_t>(i32.run({kBoxes, kScores, scalar<int64_t>(2), scalar(0.5f), scalar(0.0f)})[0]),
              (std::vector<int32_t>{0, 0, 3, 0, 0, 0}));
    EXPECT_EQ(values_of<int32_t>(i32.run({kBoxes, kScores, scalar<int64_t>(10), scalar(0.5f), scalar(0.92f)})[2]),
              (std::vector<int32_t>{1}));
    // Without max_output_boxes_per_class: none selected.
    EXPECT_EQ(i32.run({kBoxes, kScores})[0].shape(), (Shape{0, 3}));
}

TEST(NonMaxSuppression, OldVersionsPadWithMinusOne) {
    const auto out = OpTester("NonMaxSuppression", 4, {{"sort_result_descending", "false"}})
                         .run({kBoxes, kScores, scalar<int64_t>(4), scalar(0.5f), scalar(0.0f)});
    ASSERT_EQ(out.size(), 1u);
    ASSERT_EQ(out[0].shape(), (Shape{4, 3}));  // 1 batch x 1 class x min(6, 4)
    EXPECT_EQ(values_of<int64_t>(out[0]), (std::vector<int64_t>{0, 0, 3, 0, 0, 0, 0, 0, 5, -1, -1, -1}));
    EXPECT_EQ(OpTester("NonMaxSuppression", 1).run({kBoxes, kScores, scalar<int64_t>(2)})[0].type(), ElementType::i64);
}

TEST(NonMaxSuppression, SortingAcrossClassesCenterBoxesAndSoftNms) {
    // Two classes; sorted across classes by score.
    const Tensor scores = make_tensor<float>({1, 2, 6}, {0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f, 0.1f, 0.2f, 0.96f, 0.05f, 0.4f, 0.35f});
    const auto sorted = OpTester("NonMaxSuppression", 9).run({kBoxes, scores, scalar<int64_t>(1), scalar(0.5f), scalar(0.0f)});
    EXPECT_EQ(values_of<int64_t>(sorted[0]), (std::vector<int64_t>{0, 1, 2, 0, 0, 3}));
    // center encoding: the same boxes as [xc, yc, w, h].
    std::vector<float> centers;
    const std::vector<float> corners = values_of<float>(kBoxes);
    for (size_t i = 0; i < corners.size(); i += 4)
        for (float v : {(corners[i + 1] + corners[i + 3]) / 2, (corners[i] + corners[i + 2]) / 2, corners[i + 3] - corners[i + 1],
                        corners[i + 2] - corners[i]})
            centers.push_back(v);
    const auto c = OpTester("NonMaxSuppression", 5, {{"box_encoding", "center"}, {"sort_result_descending", "false"}})
                       .run({make_tensor<float>({1, 6, 4}, centers), kScores, scalar<int64_t>(3), scalar(0.5f), scalar(0.0f)});
    EXPECT_EQ(values_of<int64_t>(c[0]), (std::vector<int64_t>{0, 0, 3, 0, 0, 0, 0, 0, 5}));
    // Soft NMS: overlapping boxes are kept with decayed scores.
    const auto soft = OpTester("NonMaxSuppression", 9, {{"sort_result_descending", "false"}})
                          .run({kBoxes, kScores, scalar<int64_t>(6), scalar(1.0f), scalar(0.0f), scalar(0.5f)});
    EXPECT_EQ(values_of<int64_t>(soft[2]), (std::vector<int64_t>{6}));
    // Box 1 comes third, its 0.75 decayed by its overlap with box 0 (IoU 9/11): 0.75 * exp(-(9/11)^2).
    EXPECT_EQ(values_of<int64_t>(soft[0])[8], 1);
    EXPECT_NEAR(values_of<float>(soft[1])[8], 0.75 * std::exp(-(81.0 / 121.0)), 1e-5);
}

TEST(NonMaxSuppression, Errors) {
    const OpTester nms("NonMaxSuppression", 9);
    EXPECT_TRUE(throws_error([&] { nms.run({make_tensor<float>({1, 5, 4}, std::vector<float>(20, 0)), kScores}); },
                             ErrorKind::ShapeRule, "shape-mismatch", "boxes has 5 boxes but scores has 6", 1));
    EXPECT_TRUE(throws_error([&] { nms.run({make_tensor<float>({1, 6, 3}, std::vector<float>(18, 0)), kScores}); },
                             ErrorKind::ShapeRule, "shape-invalid", "num_boxes, 4", 0));
    EXPECT_TRUE(throws_error([&] { nms.run({kBoxes, kScores, i64s({1, 2})}); }, ErrorKind::ShapeRule, "scalar-expected",
                             "max_output_boxes_per_class", 2));
    EXPECT_TRUE(throws_error([] { OpTester("NonMaxSuppression", 5, {{"box_encoding", "diagonal"}}).attrs(); },
                             ErrorKind::Attribute, "attribute-invalid", "box_encoding"));
}

}  // namespace
}  // namespace irlite
