// DetectionOutput-1/8: decoding (CORNER and CENTER_SIZE), thresholds, NMS, keep_top_k, the row
// layout with its -1 end marker, mixed input types, and the errors.
#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

std::vector<IrAttribute> attrs(const char* code, int64_t keep_top_k, double nms = 0.5) {
    return {{"num_classes", "2"}, {"background_label_id", "0"}, {"top_k", "-1"}, {"keep_top_k", std::to_string(keep_top_k)},
            {"code_type", code}, {"share_location", "true"}, {"nms_threshold", std::to_string(nms)},
            {"confidence_threshold", "0.1"}, {"normalized", "true"}, {"variance_encoded_in_target", "false"}};
}

// Three priors: two overlapping heavily, one apart. Variances 1, logits 0: boxes = priors.
struct Case {
    Tensor loc = make_tensor<float>({1, 12}, std::vector<float>(12, 0.0f));
    Tensor conf = make_tensor<float>({1, 6}, {0.1f, 0.9f, 0.2f, 0.8f, 0.5f, 0.3f});  // class 1 scores .9 .8 .3
    Tensor priors = make_tensor<float>({1, 2, 12}, {0.0f, 0.0f, 0.5f, 0.5f, 0.0f, 0.0f, 0.5f, 0.45f, 0.6f, 0.6f, 1.0f, 1.0f,
                                                   1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1});
};

TEST(DetectionOutput, NmsAndRows) {
    const Case c;
    const Tensor out = OpTester("DetectionOutput", 1, attrs("caffe.PriorBoxParameter.CORNER", 4)).run1({c.loc, c.conf, c.priors});
    ASSERT_EQ(out.shape(), (Shape{1, 1, 4, 7}));
    const std::vector<float> v = values_of<float>(out);
    // Prior 1 overlaps prior 0 (IoU 0.9 > 0.5): dropped. Kept: prior 0 (.9), prior 2 (.3), then -1.
    EXPECT_EQ(std::vector<float>(v.begin(), v.begin() + 7), (std::vector<float>{0, 1, 0.9f, 0, 0, 0.5f, 0.5f}));
    EXPECT_EQ(std::vector<float>(v.begin() + 7, v.begin() + 14), (std::vector<float>{0, 1, 0.3f, 0.6f, 0.6f, 1, 1}));
    EXPECT_EQ(v[14], -1.0f);
    EXPECT_EQ(std::vector<float>(v.begin() + 15, v.end()), std::vector<float>(13, 0.0f));
    // A loose threshold keeps all three; keep_top_k 2 keeps the best two.
    const Tensor loose = OpTester("DetectionOutput", 8, [] {
                             auto a = attrs("caffe.PriorBoxParameter.CORNER", 2, 0.95);
                             a.erase(a.begin());  // v8 has no num_classes
                             return a;
                         }()).run1({c.loc, c.conf, c.priors});
    ASSERT_EQ(loose.shape(), (Shape{1, 1, 2, 7}));
    EXPECT_EQ(values_of<float>(loose)[2], 0.9f);
    EXPECT_EQ(values_of<float>(loose)[9], 0.8f);
}

TEST(DetectionOutput, CenterSizeDecodingAndMixedTypes) {
    // One prior [0.2, 0.2, 0.6, 0.6] (center 0.4, size 0.4), variances 0.1 0.1 0.2 0.2; logits move
    // the center by (1, 0) * 0.1 * 0.4 and scale the width by exp(0.2 * 0).
    const Tensor loc = make_tensor(ElementType::f16, {1, 4}, {1, 0, 0, 0});
    const Tensor conf = make_tensor(ElementType::f16, {1, 2}, {0, 1});
    const Tensor priors = make_tensor<float>({1, 2, 4}, {0.2f, 0.2f, 0.6f, 0.6f, 0.1f, 0.1f, 0.2f, 0.2f});
    const Tensor out = OpTester("DetectionOutput", 1, attrs("caffe.PriorBoxParameter.CENTER_SIZE", 1)).run1({loc, conf, priors});
    EXPECT_EQ(out.type(), ElementType::f32);  // the widest input type
    const std::vector<float> v = values_of<float>(out);
    EXPECT_NEAR(v[3], 0.24f, 1e-6);
    EXPECT_NEAR(v[5], 0.64f, 1e-6);
    EXPECT_NEAR(v[4], 0.2f, 1e-6);
}

TEST(DetectionOutput, Errors) {
    const Case c;
    const OpTester d("DetectionOutput", 1, attrs("caffe.PriorBoxParameter.CORNER", 4));
    EXPECT_TRUE(throws_error([&] { d.run1({make_tensor<float>({1, 8}, std::vector<float>(8, 0)), c.conf, c.priors}); },
                             ErrorKind::ShapeRule, "shape-mismatch", "box_logits describe 2 priors but proposals hold 3", 0));
    EXPECT_TRUE(throws_error([] { OpTester("DetectionOutput", 8, {{"keep_top_k", "1"}, {"nms_threshold", "0.5"}, {"code_type", "diagonal"}}).attrs(); },
                             ErrorKind::Attribute, "attribute-invalid", "code_type"));
    EXPECT_TRUE(throws_error([] { OpTester("DetectionOutput", 8, {{"keep_top_k", "1"}, {"nms_threshold", "0.5"}, {"decrease_label_id", "true"}}).attrs(); },
                             ErrorKind::Unsupported, "attribute-unsupported", "decrease_label_id"));
    EXPECT_TRUE(throws_error([&] { d.run1({c.loc, c.conf, c.priors, c.conf, c.loc}); }, ErrorKind::Unsupported, "inputs-unsupported",
                             "5-input", 3));
}

}  // namespace
}  // namespace irlite
