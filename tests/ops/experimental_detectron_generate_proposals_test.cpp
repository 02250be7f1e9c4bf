// ExperimentalDetectronGenerateProposalsSingleImage-6: OpenVINO's reference test vectors (exact in
// f32), anchor decoding with the +1 sizes and the input layouts (anchors [H*W*A, 4], deltas channel
// a*4+k, scores channel a), clipping to (width - 1, height - 1), min_size zeroing scores (as
// OpenVINO does) with an inclusive bound, NMS without the +1 and with a strict threshold,
// pre_nms_count and post_nms_count, ties and NaN scores, zero rows after the last proposal, the shape
// rule with unknown inputs, every error, and the element types.
#include <algorithm>
#include <cmath>
#include <functional>

#include "ir_builder.hpp"
#include "irlite/irlite.hpp"
#include "op_tester.hpp"
#include "ops/proposals_reference_data.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

struct Attrs {
    std::string min_size = "0", nms = "0.7", pre = "1000", post = "3";
    std::vector<IrAttribute> list() const {
        return {{"min_size", min_size}, {"nms_threshold", nms}, {"pre_nms_count", pre}, {"post_nms_count", post}};
    }
};

OpTester op(const Attrs& a) { return OpTester("ExperimentalDetectronGenerateProposalsSingleImage", 6, a.list()); }

// ---- OpenVINO's reference cases (src/plugins/template/tests/functional/op_reference/
// experimental_detectron_generate_proposals.cpp): A = 3, H = 2, W = 6, min_size 0, nms_threshold
// 0.699999988079071, post_nms_count 6, pre_nms_count 1000.

Attrs reference_attrs() {
    Attrs a;
    a.nms = "0.699999988079071";
    a.post = "6";
    return a;
}

// The 36 scores of the first case: 5 at 0, 4 at 20, 8 at 34, 1 elsewhere.
std::vector<double> eval_scores() {
    std::vector<double> s(36, 1.0);
    s[0] = 5;
    s[20] = 4;
    s[34] = 8;
    return s;
}




TEST(ExperimentalDetectronGenerateProposalsSingleImage, OpenVinoReferenceEval) {
    // Unit anchors and deltas in a 1 x 1 image: every box clips to (0, 0, 0, 0); NMS without the +1
    // sees zero areas (IoU 0 / 0, never above the threshold), so the six best scores come out.
    // OpenVINO runs it in f32, f16 and bf16.
    for (ElementType t : {ElementType::f32, ElementType::f16, ElementType::bf16}) {
        SCOPED_TRACE(to_string(t));
        const auto out = op(reference_attrs()).run({make_tensor(t, {3}, {1, 1, 1}), make_tensor(t, {36, 4}, std::vector<double>(144, 1.0)),
                                                    make_tensor(t, {12, 2, 6}, std::vector<double>(144, 1.0)),
                                                    make_tensor(t, {3, 2, 6}, eval_scores())});
        ASSERT_EQ(out.size(), 2u);
        EXPECT_EQ(out[0].shape(), (Shape{6, 4}));
        EXPECT_EQ(out[0].type(), t);
        EXPECT_EQ(to_doubles(out[0]), std::vector<double>(24, 0.0));
        EXPECT_EQ(to_doubles(out[1]), (std::vector<double>{8, 5, 4, 1, 1, 1}));
    }
}

TEST(ExperimentalDetectronGenerateProposalsSingleImage, OpenVinoReferenceEval2) {
    const auto out = op(reference_attrs()).run({make_tensor<float>({3}, {150, 150, 1}),
                                                make_tensor(ElementType::f32, {36, 4}, kProposalAnchors36),
                                                make_tensor<float>({12, 2, 6}, kProposalDeltas36),
                                                make_tensor<float>({3, 2, 6}, kProposalScores36)});
    // OpenVINO's expected values, bit for bit.
    EXPECT_EQ(values_of<float>(out[0]),
              (std::vector<float>{149, 149, 149, 149, 149, 0, 149, 149, 149, 60.87443542480469f, 149, 149, 149,
                                  61.89498901367188f, 149, 149, 149, 149, 149, 149, 149, 149, 149, 149}));
    EXPECT_EQ(values_of<float>(out[1]), (std::vector<float>{0.9894874691963196f, 0.9429685473442078f, 0.9402455687522888f,
                                                            0.9237486720085144f, 0.9053611159324646f, 0.8842187523841858f}));
}

TEST(ExperimentalDetectronGenerateProposalsSingleImage, OpenVinoReferenceEval2In16Bits) {
    // OpenVINO runs the same vectors in f16 and bf16, compared with a relative tolerance of 1e-2.
    const std::vector<double> rois = {149, 149, 149, 149, 149, 0, 149, 149, 149, 60.87443542480469, 149, 149, 149,
                                      61.89498901367188, 149, 149, 149, 149, 149, 149, 149, 149, 149, 149};
    const std::vector<double> best = {0.9894874691963196, 0.9429685473442078, 0.9402455687522888,
                                      0.9237486720085144, 0.9053611159324646, 0.8842187523841858};
    for (ElementType t : {ElementType::f16, ElementType::bf16}) {
        SCOPED_TRACE(to_string(t));
        const auto out = op(reference_attrs()).run(
            {make_tensor(t, {3}, {150, 150, 1}), make_tensor(t, {36, 4}, kProposalAnchors36),
             make_tensor(t, {12, 2, 6}, std::vector<double>(kProposalDeltas36.begin(), kProposalDeltas36.end())),
             make_tensor(t, {3, 2, 6}, std::vector<double>(kProposalScores36.begin(), kProposalScores36.end()))});
        const std::vector<double> got = to_doubles(out[0]), scores = to_doubles(out[1]);
        for (size_t i = 0; i < rois.size(); ++i) EXPECT_LE(std::fabs(got[i] - rois[i]), 1e-2 * rois[i]) << i;
        for (size_t i = 0; i < best.size(); ++i) EXPECT_LE(std::fabs(scores[i] - best[i]), 1e-2 * best[i]) << i;
    }
}

// ---- hand-computed cases. A = 2 anchors per cell, H = 1, W = 2: proposal p = (h * W + w) * A + a,
// so rows 0..3 are (w0, a0), (w0, a1), (w1, a0), (w1, a1). Every anchor is (0, 0, 9, 9) (10 x 10
// with the +1); zero deltas leave a box as it is (centre 5, x0 = 5 - 5, x1 = 5 + 5 - 1). Proposal 3
// (w1, a1) gets dx = 0.1 (deltas channel a*4+0 = 4, cell 1: flat 9) and d_log_w = ln 2 (channel 6,
// flat 13): centre 5 + 0.1 * 10 = 6, width 20, so x from 6 - 10 = -4 (clipped to 0) to 6 + 10 - 1 = 15.
std::vector<Tensor> hand_inputs(ElementType t, double height, double width, const std::vector<double>& scores) {
    std::vector<double> deltas(16, 0.0);
    deltas[9] = 0.1;
    deltas[13] = std::log(2.0);
    std::vector<double> anchors;
    for (int i = 0; i < 4; ++i) anchors.insert(anchors.end(), {0, 0, 9, 9});
    return {make_tensor(t, {3}, {height, width, 1}), make_tensor(t, {4, 4}, anchors), make_tensor(t, {8, 1, 2}, deltas),
            make_tensor(t, {2, 1, 2}, scores)};
}
// Scores [A, H, W]: index a * 2 + w. Proposal 0 = .5, 1 (w0, a1: index 2) = .4, 2 (w1, a0: index
// 1) = .3, 3 (index 3) = .875.
const std::vector<double> kHandScores = {0.5, 0.3, 0.4, 0.875};

void expect_near(const std::vector<double>& got, const std::vector<double>& want, double tol = 1e-5) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << i;
}

TEST(ExperimentalDetectronGenerateProposalsSingleImage, DecodingLayoutsAndClipping) {
    // Image height 8, width 100: y1 = 9 clips to height - 1 = 7, x1 = 15 stays.
    const auto out = op(Attrs{}).run(hand_inputs(ElementType::f32, 8, 100, kHandScores));
    // Proposals 0, 1, 2 are the same box (0, 0, 9, 7): 1 and 2 go (IoU 1). Proposal 3 (0, 0, 15, 7)
    // overlaps 0 with IoU (9 * 7) / (15 * 7) = .6 (no +1 in NMS), under .7.
    expect_near(to_doubles(out[0]), {0, 0, 15, 7, 0, 0, 9, 7, 0, 0, 0, 0});
    EXPECT_EQ(values_of<float>(out[1]), (std::vector<float>{0.875f, 0.5f, 0}));
    // nms_threshold .5: proposal 3 drops all the others.
    Attrs a;
    a.nms = "0.5";
    EXPECT_EQ(values_of<float>(op(a).run(hand_inputs(ElementType::f32, 8, 100, kHandScores))[1]),
              (std::vector<float>{0.875f, 0, 0}));
    // Image height 100, width 12: x1 of proposal 3 clips to width - 1 = 11; (0, 0, 11, 9) then
    // overlaps the others with IoU 81 / 99 > .7 and is the only one left.
    const auto narrow = op(Attrs{}).run(hand_inputs(ElementType::f32, 100, 12, kHandScores));
    expect_near(to_doubles(narrow[0]), {0, 0, 11, 9, 0, 0, 0, 0, 0, 0, 0, 0});
    EXPECT_EQ(values_of<float>(narrow[1]), (std::vector<float>{0.875f, 0, 0}));
}

TEST(ExperimentalDetectronGenerateProposalsSingleImage, NmsHasNoPlusOne) {
    // Proposals 0 (0, 0, 9, 9) and 3 (0, 0, 15, 9): IoU without the +1 = 81 / 135 = .6, with it 100 /
    // 160 = .625. nms_threshold .61 separates them: OpenVINO's NMS (offset 0) keeps both.
    Attrs a;
    a.nms = "0.61";
    const auto out = op(a).run(hand_inputs(ElementType::f32, 100, 100, kHandScores));
    EXPECT_EQ(values_of<float>(out[1]), (std::vector<float>{0.875f, 0.5f, 0}));
    a.nms = "0.59";
    EXPECT_EQ(values_of<float>(op(a).run(hand_inputs(ElementType::f32, 100, 100, kHandScores))[1]),
              (std::vector<float>{0.875f, 0, 0}));
}

TEST(ExperimentalDetectronGenerateProposalsSingleImage, DroppedBoxStaysDropped) {
    // A = 1, H = 1, W = 3, zero deltas: the boxes are the anchors. P0 (0, 0, 9, 9) .875 drops P2 (1, 1,
    // 10, 10) .625 (IoU 64 / 98 > .5); P1 (50, 50, 59, 59) .75, kept next, does not touch P2. P2 stays
    // dropped, as in OpenVINO's CPU plugin (its template reference would overwrite P2's flag at P1
    // and bring it back).
    Attrs a;
    a.nms = "0.5";
    const auto out = op(a).run({make_tensor<float>({3}, {100, 100, 1}),
                                make_tensor<float>({3, 4}, {0, 0, 9, 9, 50, 50, 59, 59, 1, 1, 10, 10}),
                                make_tensor<float>({4, 1, 3}, std::vector<float>(12, 0.0f)),
                                make_tensor<float>({1, 1, 3}, {0.875f, 0.75f, 0.625f})});
    EXPECT_EQ(values_of<float>(out[0]), (std::vector<float>{0, 0, 9, 9, 50, 50, 59, 59, 0, 0, 0, 0}));
    EXPECT_EQ(values_of<float>(out[1]), (std::vector<float>{0.875f, 0.75f, 0}));
}

TEST(ExperimentalDetectronGenerateProposalsSingleImage, MinSizeZeroesScores) {
    // min_size 10 is inclusive: the 10 x 10 boxes pass.
    Attrs a;
    a.min_size = "10";
    a.post = "2";
    EXPECT_EQ(values_of<float>(op(a).run(hand_inputs(ElementType::f32, 100, 100, kHandScores))[1]),
              (std::vector<float>{0.875f, 0.5f}));
    // min_size 11: every box is smaller (proposal 3 is 16 x 10). OpenVINO does not remove them but
    // zeroes their scores: all tie at 0 and come out in index order through NMS: 0 (0, 0, 9, 9)
    // drops 1 and 2 (IoU 1), 3 stays (IoU .6).
    a.min_size = "11";
    a.post = "3";
    const auto out = op(a).run(hand_inputs(ElementType::f32, 100, 100, kHandScores));
    expect_near(to_doubles(out[0]), {0, 0, 9, 9, 0, 0, 15, 9, 0, 0, 0, 0});
    EXPECT_EQ(values_of<float>(out[1]), (std::vector<float>{0, 0, 0}));
    // Proposal 3 made 20 high (d_log_h = ln 2 at channel a*4+3 = 7, flat 15) passes min_size 10.5,
    // the 10 x 10 boxes do not:
    std::vector<Tensor> in = hand_inputs(ElementType::f32, 100, 100, kHandScores);
    in[2].data<float>()[15] = std::log(2.0f);  // y from 5 - 10 = -5 (0) to 5 + 10 - 1 = 14
    a.min_size = "10.5";
    const auto tall = op(a).run(in);
    // Proposal 3 (0, 0, 15, 14) keeps .875; 0 (0, 0, 9, 9), zeroed, overlaps it with IoU 81 / 210 and
    // comes second with score 0.
    expect_near(to_doubles(tall[0]), {0, 0, 15, 14, 0, 0, 9, 9, 0, 0, 0, 0});
    EXPECT_EQ(values_of<float>(tall[1]), (std::vector<float>{0.875f, 0, 0}));
}

TEST(ExperimentalDetectronGenerateProposalsSingleImage, PreAndPostNmsCounts) {
    Attrs a;
    a.pre = "1";  // only the best proposal reaches NMS
    EXPECT_EQ(values_of<float>(op(a).run(hand_inputs(ElementType::f32, 100, 100, kHandScores))[1]),
              (std::vector<float>{0.875f, 0, 0}));
    a.pre = "0";
    const auto none = op(a).run(hand_inputs(ElementType::f32, 100, 100, kHandScores));
    EXPECT_EQ(values_of<float>(none[0]), std::vector<float>(12, 0.0f));
    EXPECT_EQ(values_of<float>(none[1]), std::vector<float>(3, 0.0f));
    // pre_nms_count 2: proposals 3 and 0 (not 1 or 2); nms_threshold 1 keeps everything.
    a.pre = "2";
    a.nms = "1";
    EXPECT_EQ(values_of<float>(op(a).run(hand_inputs(ElementType::f32, 100, 100, kHandScores))[1]),
              (std::vector<float>{0.875f, 0.5f, 0}));
    // post_nms_count 1 and 0.
    Attrs b;
    b.nms = "1";
    b.post = "1";
    const auto one = op(b).run(hand_inputs(ElementType::f32, 100, 100, kHandScores));
    EXPECT_EQ(one[0].shape(), (Shape{1, 4}));
    EXPECT_EQ(values_of<float>(one[1]), (std::vector<float>{0.875f}));
    b.post = "0";
    const auto empty = op(b).run(hand_inputs(ElementType::f32, 100, 100, kHandScores));
    EXPECT_EQ(empty[0].shape(), (Shape{0, 4}));
    EXPECT_EQ(empty[1].shape(), (Shape{0}));
    // More rows than proposals: all four, then zero rows.
    b.post = "6";
    EXPECT_EQ(values_of<float>(op(b).run(hand_inputs(ElementType::f32, 100, 100, kHandScores))[1]),
              (std::vector<float>{0.875f, 0.5f, 0.4f, 0.3f, 0, 0}));
}

TEST(ExperimentalDetectronGenerateProposalsSingleImage, TiesAndNan) {
    Attrs a;
    a.nms = "1";
    a.post = "4";
    // Equal scores: the lower proposal index first (proposal 2 before 3); NaN last.
    const auto out = op(a).run(hand_inputs(ElementType::f32, 100, 100, {0.25, 0.5, NAN, 0.5}));
    expect_near(to_doubles(out[0]), {0, 0, 9, 9, 0, 0, 15, 9, 0, 0, 9, 9, 0, 0, 9, 9});
    const std::vector<float> s = values_of<float>(out[1]);
    EXPECT_EQ(s[0], 0.5f);
    EXPECT_EQ(s[1], 0.5f);
    EXPECT_EQ(s[2], 0.25f);
    EXPECT_TRUE(std::isnan(s[3]));
}

// Through the executor: Parameters -> the op -> Results, prepared once at compile time.
TEST(ExperimentalDetectronGenerateProposalsSingleImage, InAModel) {
    testing::IrBuilder b;
    b.parameter(0, "im_info", "f32", {3});
    b.parameter(1, "anchors", "f32", {4, 4});
    b.parameter(2, "deltas", "f32", {8, 1, 2});
    b.parameter(3, "scores", "f32", {2, 1, 2});
    b.layer(4, "gp", "ExperimentalDetectronGenerateProposalsSingleImage", "opset6",
            "min_size=\"0\" nms_threshold=\"0.7\" pre_nms_count=\"1000\" post_nms_count=\"3\"",
            {{0, "FP32", {3}, ""}, {1, "FP32", {4, 4}, ""}, {2, "FP32", {8, 1, 2}, ""}, {3, "FP32", {2, 1, 2}, ""}},
            {{4, "FP32", {3, 4}, "rois"}, {5, "FP32", {3}, "roi_scores"}});
    b.result(5, "r0", "f32", {3, 4}).result(6, "r1", "f32", {3});
    for (int i = 0; i < 4; ++i) b.edge(i, 0, 4, i);
    b.edge(4, 4, 5, 0).edge(4, 5, 6, 0);
    const CompiledModel m(Model::read_from_memory(b.xml(), b.weights().data(), b.weights().size()));
    InferRequest req = m.create_infer_request();
    const std::vector<Tensor> in = hand_inputs(ElementType::f32, 8, 100, kHandScores);
    for (size_t i = 0; i < 4; ++i) req.set_input(i, in[i]);
    req.infer();
    expect_near(to_doubles(req.output("rois")), {0, 0, 15, 7, 0, 0, 9, 7, 0, 0, 0, 0});
    EXPECT_EQ(values_of<float>(req.output("roi_scores")), (std::vector<float>{0.875f, 0.5f, 0}));
}

TEST(ExperimentalDetectronGenerateProposalsSingleImage, ShapeRule) {
    const OpTester o = op(Attrs{});
    const auto infos = o.infer({unknown(ElementType::f32, PartialShape::dynamic_rank()),
                                unknown(ElementType::f32, PartialShape({-1, 4})),
                                unknown(ElementType::f32, PartialShape({-1, -1, -1})),
                                unknown(ElementType::f32, PartialShape::dynamic_rank())});
    ASSERT_EQ(infos.size(), 2u);
    EXPECT_EQ(infos[0].shape, PartialShape({3, 4}));
    EXPECT_EQ(infos[1].shape, PartialShape({3}));
    EXPECT_EQ(infos[1].type, ElementType::f32);
    // The spec's example: 12600 anchors = 50 * 84 * 3.
    Attrs big;
    big.post = "1000";
    const auto ex = op(big).infer({unknown(ElementType::f16, PartialShape({3})), unknown(ElementType::f16, PartialShape({12600, 4})),
                                   unknown(ElementType::f16, PartialShape({12, 50, 84})),
                                   unknown(ElementType::f16, PartialShape({3, 50, 84}))});
    EXPECT_EQ(ex[0].shape, PartialShape({1000, 4}));
    EXPECT_EQ(ex[0].type, ElementType::f16);
    // Every input unknown at load time.
    const auto out = o.run(hand_inputs(ElementType::f32, 100, 100, kHandScores), {0, 1, 2, 3});
    EXPECT_EQ(out[0].shape(), (Shape{3, 4}));
}

TEST(ExperimentalDetectronGenerateProposalsSingleImage, AttributeErrors) {
    const auto with = [](const std::function<void(Attrs&)>& change) {
        Attrs a;
        change(a);
        return [a] { op(a).attrs(); };
    };
    EXPECT_TRUE(throws_error(with([](Attrs& a) { a.min_size = "-1"; }), ErrorKind::Attribute, "attribute-invalid",
                             "'min_size' = -1"));
    EXPECT_TRUE(throws_error(with([](Attrs& a) { a.nms = "-0.5"; }), ErrorKind::Attribute, "attribute-invalid",
                             "'nms_threshold' = -0.5"));
    EXPECT_TRUE(throws_error(with([](Attrs& a) { a.nms = "nan"; }), ErrorKind::Attribute, "attribute-invalid",
                             "'nms_threshold'"));
    EXPECT_TRUE(throws_error(with([](Attrs& a) { a.pre = "-1"; }), ErrorKind::Attribute, "attribute-invalid",
                             "'pre_nms_count' = -1"));
    EXPECT_TRUE(throws_error(with([](Attrs& a) { a.post = "-1"; }), ErrorKind::Attribute, "attribute-invalid",
                             "'post_nms_count' = -1"));
    EXPECT_TRUE(throws_error(with([](Attrs& a) { a.post = "2147483648"; }), ErrorKind::Attribute, "attribute-invalid",
                             "allowed [0, 2147483647]"));
    for (const char* name : {"min_size", "nms_threshold", "pre_nms_count", "post_nms_count"}) {
        std::vector<IrAttribute> list = Attrs{}.list();
        list.erase(std::remove_if(list.begin(), list.end(), [&](const IrAttribute& x) { return x.name == name; }), list.end());
        EXPECT_TRUE(throws_error([&] { OpTester("ExperimentalDetectronGenerateProposalsSingleImage", 6, list).attrs(); },
                                 ErrorKind::Attribute, "attribute-missing", name));
    }
}

TEST(ExperimentalDetectronGenerateProposalsSingleImage, InputErrors) {
    const OpTester o = op(Attrs{});
    const std::vector<Tensor> in = hand_inputs(ElementType::f32, 100, 100, kHandScores);
    auto replace = [&](size_t port, Tensor t) {
        std::vector<Tensor> v = in;
        v[port] = std::move(t);
        return v;
    };
    const auto zeros = [](Shape s) { return make_tensor(ElementType::f32, s, std::vector<double>(static_cast<size_t>(checked_num_elements(s)), 0.0)); };
    EXPECT_TRUE(throws_error([&] { o.run(replace(0, zeros({1, 3}))); }, ErrorKind::ShapeRule, "rank-invalid",
                             "im_info must be 1-D", 0));
    EXPECT_TRUE(throws_error([&] { o.run(replace(0, zeros({4}))); }, ErrorKind::ShapeRule, "shape-invalid",
                             "im_info must be [3]", 0));
    EXPECT_TRUE(throws_error([&] { o.run(replace(1, zeros({4, 5}))); }, ErrorKind::ShapeRule, "shape-invalid",
                             "anchors must be [height * width * number_of_channels, 4]", 1));
    EXPECT_TRUE(throws_error([&] { o.run(replace(1, zeros({16}))); }, ErrorKind::ShapeRule, "rank-invalid",
                             "anchors must be 2-D", 1));
    EXPECT_TRUE(throws_error([&] { o.run(replace(1, zeros({5, 4}))); }, ErrorKind::ShapeRule, "shape-mismatch",
                             "anchors has 5 rows but the feature map has height * width * channels = 1 * 2 * 2 = 4", 1));
    EXPECT_TRUE(throws_error([&] { o.run(replace(2, zeros({7, 1, 2}))); }, ErrorKind::ShapeRule, "shape-invalid",
                             "is not a multiple of 4", 2));
    EXPECT_TRUE(throws_error([&] { o.run(replace(2, zeros({4, 1, 2}))); }, ErrorKind::ShapeRule, "shape-mismatch",
                             "deltas gives number_of_channels = 1 but scores gives 2", 2));
    EXPECT_TRUE(throws_error([&] { o.run(replace(2, zeros({8, 2, 1}))); }, ErrorKind::ShapeRule, "shape-mismatch",
                             "deltas gives height = 2 but scores gives 1", 2));
    EXPECT_TRUE(throws_error([&] { o.run(replace(3, zeros({2, 2}))); }, ErrorKind::ShapeRule, "rank-invalid",
                             "scores must be 3-D", 3));
    EXPECT_TRUE(throws_error([&] { o.run(replace(3, make_tensor(ElementType::f16, {2, 1, 2}, {0, 0, 0, 0}))); },
                             ErrorKind::Type, "element-type-mismatch", "scores is f16 but im_info is f32", 3));
}

TEST(ExperimentalDetectronGenerateProposalsSingleImage, ElementTypes) {
    for (ElementType t : {ElementType::f32, ElementType::f16, ElementType::bf16, ElementType::f64}) {
        SCOPED_TRACE(to_string(t));
        const auto out = op(Attrs{}).run(hand_inputs(t, 8, 100, kHandScores));
        EXPECT_EQ(out[0].type(), t);
        EXPECT_EQ(out[1].type(), t);
        // 15 and 7 are exact in every type; ln 2 in 16 bits moves x1 by at most a few hundredths.
        expect_near(to_doubles(out[0]), {0, 0, 15, 7, 0, 0, 9, 7, 0, 0, 0, 0}, t == ElementType::bf16 ? 0.1 : 0.02);
        EXPECT_EQ(to_doubles(out[1]), (std::vector<double>{0.875, 0.5, 0}));
    }
    EXPECT_TRUE(throws_error([&] { op(Attrs{}).run(hand_inputs(ElementType::i32, 8, 100, {0, 0, 0, 1})); }, ErrorKind::Type,
                             "element-type-unsupported", "im_info must be a floating-point tensor", 0));
}

}  // namespace
}  // namespace irlite
