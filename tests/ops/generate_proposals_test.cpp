// GenerateProposals-9: OpenVINO's reference test vectors, anchor decoding with normalized (offset
// 0) and pixel (+1) boxes and the input layouts (anchors [H, W, A, 4], deltas [N, A*4, H, W], scores
// [N, A, H, W]), clipping, min_size scaled by im_info's scales ([N, 3] and [N, 4]) and applied after
// the pre_nms_count cut, NMS with the same offset, post_nms_count, the run-time row count and
// roisnum (i32 and i64), nms_eta having no effect (as in OpenVINO), ties and NaN scores, the shape
// rule with unknown inputs, every error, and the element types.
#include <algorithm>
#include <cmath>
#include <functional>
#include <utility>

#include "ir_builder.hpp"
#include "irlite/irlite.hpp"
#include "op_tester.hpp"
#include "ops/proposals_reference_data.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

struct Attrs {
    std::string min_size = "0", nms = "0.7", pre = "1000", post = "6", normalized = "false", eta = "1", num_type = "i64";
    std::vector<IrAttribute> list() const {
        return {{"min_size", min_size},     {"nms_threshold", nms}, {"pre_nms_count", pre}, {"post_nms_count", post},
                {"normalized", normalized}, {"nms_eta", eta},       {"roi_num_type", num_type}};
    }
};

OpTester op(const Attrs& a) { return OpTester("GenerateProposals", 9, a.list()); }

// Within OpenVINO's reference-test tolerance (relative 1e-2) or an absolute one.
void expect_close(const std::vector<double>& got, const std::vector<double>& want, double rel, double abs = 0) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i)
        EXPECT_LE(std::fabs(got[i] - want[i]), std::max(abs, rel * std::fabs(want[i]))) << i << ": " << got[i] << " vs " << want[i];
}

// ---- OpenVINO's reference cases (src/plugins/template/tests/functional/op_reference/
// generate_proposals.cpp): A = 3, H = 2, W = 6, min_size 1, nms_threshold 0.699999988079071,
// pre_nms_count 1000, post_nms_count 6, nms_eta 1, normalized true.
Attrs reference_attrs(const char* num_type) {
    Attrs a;
    a.min_size = "1";
    a.nms = "0.699999988079071";
    a.normalized = "true";
    a.num_type = num_type;
    return a;
}

TEST(GenerateProposals, OpenVinoReferenceEval) {
    // Unit anchors (zero width, normalized) stay (1, 1, 1, 1) in a 1 x 1 image; scale 0 makes the
    // minimum size 0; zero areas never suppress: the six best scores.
    std::vector<double> scores(36, 1.0);
    scores[0] = 5;
    scores[20] = 4;
    scores[34] = 8;
    // OpenVINO runs it as f32 with i32 and i64 counts, f16 with i32, bf16 with i64.
    const std::pair<ElementType, const char*> runs[] = {
        {ElementType::f32, "i32"}, {ElementType::f32, "i64"}, {ElementType::f16, "i32"}, {ElementType::bf16, "i64"}};
    for (const auto& [t, type] : runs) {
        SCOPED_TRACE(to_string(t) + std::string(" ") + type);
        const auto out = op(reference_attrs(type)).run({make_tensor(t, {1, 3}, {1, 1, 0}),
                                                        make_tensor(t, {2, 6, 3, 4}, std::vector<double>(144, 1.0)),
                                                        make_tensor(t, {1, 12, 2, 6}, std::vector<double>(144, 1.0)),
                                                        make_tensor(t, {1, 3, 2, 6}, scores)});
        ASSERT_EQ(out.size(), 3u);
        EXPECT_EQ(out[0].shape(), (Shape{6, 4}));
        EXPECT_EQ(out[0].type(), t);
        EXPECT_EQ(to_doubles(out[0]), std::vector<double>(24, 1.0));
        EXPECT_EQ(to_doubles(out[1]), (std::vector<double>{8, 5, 4, 1, 1, 1}));
        EXPECT_EQ(to_doubles(out[2]), (std::vector<double>{6}));
        EXPECT_EQ(out[2].type(), std::string(type) == "i32" ? ElementType::i32 : ElementType::i64);
    }
}


TEST(GenerateProposals, OpenVinoReferenceBatch2) {
    // Two identical images (150 x 150, scale 0): six proposals each, concatenated.
    std::vector<float> deltas = kProposalDeltas36, scores = kProposalScores36;
    deltas.insert(deltas.end(), kProposalDeltas36.begin(), kProposalDeltas36.end());
    scores.insert(scores.end(), kProposalScores36.begin(), kProposalScores36.end());
    const auto out = op(reference_attrs("i64")).run({make_tensor<float>({2, 3}, {150, 150, 0, 150, 150, 0}),
                                                     make_tensor(ElementType::f32, {2, 6, 3, 4}, kProposalAnchors36),
                                                     make_tensor<float>({2, 12, 2, 6}, deltas),
                                                     make_tensor<float>({2, 3, 2, 6}, scores)});
    EXPECT_EQ(out[0].shape(), (Shape{12, 4}));
    EXPECT_EQ(values_of<int64_t>(out[2]), (std::vector<int64_t>{6, 6}));
    // OpenVINO's expected values, which its test compares with a relative tolerance of 1e-2: they are
    // ExperimentalDetectronGenerateProposalsSingleImage's results for these inputs (x clipped at
    // width - 1 = 149), while normalized boxes clip at the image size 150, as OpenVINO's reference
    // computes for this op: irlite's exact values follow.
    const std::vector<double> one = {149, 149, 149, 149, 149, 0,   149, 149, 149, 60.87443542480469, 149, 149,
                                     149, 61.89498901367188, 149, 149, 149, 149, 149, 149, 149, 149, 149, 149};
    std::vector<double> both = one;
    both.insert(both.end(), one.begin(), one.end());
    expect_close(to_doubles(out[0]), both, 1e-2);
    const std::vector<float> exact = {150, 150, 150, 150, 150, 0, 150, 150, 150, 60.3119507f, 150, 150,
                                      150, 61.32164f, 150, 150, 150, 150, 150, 150, 150, 150, 150, 150};
    std::vector<float> got = values_of<float>(out[0]);
    got.resize(24);  // the first image
    EXPECT_EQ(got, exact);
    const std::vector<double> best = {0.9894874691963196, 0.9429685473442078, 0.9402455687522888,
                                      0.9237486720085144, 0.9053611159324646, 0.8842187523841858};
    std::vector<double> best2 = best;
    best2.insert(best2.end(), best.begin(), best.end());
    expect_close(to_doubles(out[1]), best2, 1e-6);
}

TEST(GenerateProposals, OpenVinoReferenceEval2) {
    // 200 x 200 image, scale 4: min_size 1 becomes 4. Anchors 0, 1, ..., 143.
    std::vector<double> anchors(144);
    for (size_t i = 0; i < anchors.size(); ++i) anchors[i] = static_cast<double>(i);
    const std::vector<float> deltas = {
        0.5337073f,  0.86607957f, 0.55151343f, 0.21626699f, 0.4462629f,  0.03985678f, 0.5157072f,  0.9932138f,
        0.7565954f,  0.43803605f, 0.802818f,   0.14834064f, 0.53932905f, 0.14314f,    0.3817048f,  0.95075196f,
        0.05516243f, 0.2567484f,  0.25508744f, 0.77438325f, 0.43561f,    0.2094628f,  0.8299043f,  0.44982538f,
        0.95615596f, 0.5651084f,  0.11801951f, 0.05352486f, 0.9774733f,  0.14439464f, 0.62644225f, 0.14370479f,
        0.54161614f, 0.557915f,   0.53102225f, 0.0840179f,  0.7249888f,  0.9843559f,  0.5490522f,  0.53788143f,
        0.822474f,   0.3278008f,  0.39688024f, 0.3286012f,  0.5117038f,  0.04743988f, 0.9408995f,  0.29885054f,
        0.81039643f, 0.85277915f, 0.06807619f, 0.86430097f, 0.36225632f, 0.16606331f, 0.5401001f,  0.7541649f,
        0.11998601f, 0.5131829f,  0.40606487f, 0.327888f,   0.27721855f, 0.6378373f,  0.22795396f, 0.4961256f,
        0.3215895f,  0.15607187f, 0.14782153f, 0.8908137f,  0.8835288f,  0.834191f,   0.29907143f, 0.7983525f,
        0.755875f,   0.30837986f, 0.0839176f,  0.26624718f, 0.04371626f, 0.09472824f, 0.20689541f, 0.37622106f,
        0.1083321f,  0.1342548f,  0.05815459f, 0.7676379f,  0.8105144f,  0.92348766f, 0.26761323f, 0.7183306f,
        0.8947588f,  0.19020908f, 0.42731014f, 0.7473663f,  0.85775334f, 0.9340091f,  0.3278848f,  0.755993f,
        0.05307213f, 0.39705503f, 0.21003333f, 0.5625373f,  0.66188884f, 0.80521655f, 0.6125863f,  0.44678232f,
        0.97802377f, 0.0204936f,  0.02686367f, 0.7390654f,  0.74631f,    0.58399844f, 0.5988792f,  0.37413648f,
        0.5946692f,  0.6955776f,  0.36377597f, 0.7891322f,  0.40900692f, 0.99139464f, 0.50169915f, 0.41435778f,
        0.17142445f, 0.26761186f, 0.31591868f, 0.14249913f, 0.12919712f, 0.5418711f,  0.6523203f,  0.50259084f,
        0.7379765f,  0.01171071f, 0.94423133f, 0.00841132f, 0.97486794f, 0.2921785f,  0.7633071f,  0.88477814f,
        0.03563205f, 0.50833166f, 0.01354555f, 0.535081f,   0.41366324f, 0.0694767f,  0.9944055f,  0.9981207f};
    const std::vector<float> scores = {0.56637216f, 0.90457034f, 0.69827306f, 0.4353543f,  0.47985056f, 0.42658508f,
                                       0.14516132f, 0.08081771f, 0.1799732f,  0.9229515f,  0.42420176f, 0.50857586f,
                                       0.82664067f, 0.4972319f,  0.3752427f,  0.56731623f, 0.18241242f, 0.33252355f,
                                       0.30608943f, 0.6572437f,  0.69185436f, 0.88646156f, 0.36985755f, 0.5590753f,
                                       0.5256446f,  0.03342898f, 0.1344396f,  0.68642473f, 0.37953874f, 0.32575172f,
                                       0.21108444f, 0.5661886f,  0.45378175f, 0.62126315f, 0.26799858f, 0.37272978f};
    const std::vector<double> want_rois = {4.49132, 4.30537, 8.75027, 8.8035,  0,       1.01395, 4.66909,
                                           5.14337, 135.501, 137.467, 139.81,  141.726, 47.2348, 47.8342,
                                           52.5503, 52.3864, 126.483, 128.3,   131.625, 133.707};
    const std::vector<double> want_scores = {0.826641, 0.566372, 0.559075, 0.479851, 0.267999};
    const auto out = op(reference_attrs("i32")).run({make_tensor<float>({1, 3}, {200, 200, 4}),
                                                     make_tensor(ElementType::f32, {2, 6, 3, 4}, anchors),
                                                     make_tensor<float>({1, 12, 2, 6}, deltas),
                                                     make_tensor<float>({1, 3, 2, 6}, scores)});
    EXPECT_EQ(values_of<int32_t>(out[2]), (std::vector<int32_t>{5}));
    // OpenVINO's expected values (printed to six digits).
    expect_close(to_doubles(out[0]), want_rois, 1e-5, 1e-5);
    expect_close(to_doubles(out[1]), want_scores, 1e-5);
    // OpenVINO also runs them in f16 (i32 counts) and bf16 (i64), with a relative tolerance of 1e-2.
    const std::pair<ElementType, const char*> runs[] = {{ElementType::f16, "i32"}, {ElementType::bf16, "i64"}};
    for (const auto& [t, type] : runs) {
        SCOPED_TRACE(to_string(t));
        const auto narrow = op(reference_attrs(type)).run(
            {make_tensor(t, {1, 3}, {200, 200, 4}), make_tensor(t, {2, 6, 3, 4}, anchors),
             make_tensor(t, {1, 12, 2, 6}, std::vector<double>(deltas.begin(), deltas.end())),
             make_tensor(t, {1, 3, 2, 6}, std::vector<double>(scores.begin(), scores.end()))});
        EXPECT_EQ(to_doubles(narrow[2]), (std::vector<double>{5}));
        expect_close(to_doubles(narrow[0]), want_rois, 1e-2);
        expect_close(to_doubles(narrow[1]), want_scores, 1e-2);
    }
}

// ---- hand-computed cases. N = 2, A = 2, H = 1, W = 2: proposal p = (h * W + w) * A + a. Every
// anchor is (0, 0, 9, 9). Image 0: proposal 3 (w1, a1) gets dx = 0.1 (deltas channel a*4+0 = 4,
// cell 1: flat 9) and d_log_w = ln 2 (channel 6: flat 13); image 1 has zero deltas.
// With pixel boxes (offset 1): zero deltas leave (0, 0, 9, 9); proposal 3 has centre 5 + 0.1 * 10 = 6
// and width 20: x from -4 (clipped to 0) to 6 + 10 - 1 = 15.
// Scores [N, A, H, W], index a * 2 + w: image 0 proposal 0 = .5, 1 (index 2) = .4, 2 (index 1) = .3,
// 3 = .875; image 1 .1, .3, .2, .4 (proposal 3 best).
std::vector<Tensor> hand_inputs(ElementType t, const std::vector<double>& info, int64_t info_len,
                                const std::vector<double>& image0_scores = {0.5, 0.3, 0.4, 0.875}) {
    std::vector<double> deltas(32, 0.0);
    deltas[9] = 0.1;
    deltas[13] = std::log(2.0);
    std::vector<double> anchors;
    for (int i = 0; i < 4; ++i) anchors.insert(anchors.end(), {0, 0, 9, 9});
    std::vector<double> scores = image0_scores;
    scores.insert(scores.end(), {0.1, 0.2, 0.3, 0.4});
    return {make_tensor(t, {2, info_len}, info), make_tensor(t, {1, 2, 2, 4}, anchors), make_tensor(t, {2, 8, 1, 2}, deltas),
            make_tensor(t, {2, 2, 1, 2}, scores)};
}
const std::vector<double> kInfo = {100, 100, 1, 100, 100, 1};

// The first n values of t.
std::vector<double> first(const Tensor& t, size_t n) {
    std::vector<double> v = to_doubles(t);
    v.resize(std::min(n, v.size()));
    return v;
}

void expect_near(const std::vector<double>& got, const std::vector<double>& want, double tol = 1e-5) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << i;
}

TEST(GenerateProposals, PixelBoxesPerImage) {
    const auto out = op(Attrs{}).run(hand_inputs(ElementType::f32, kInfo, 3));
    // Image 0: 3 (0, 0, 15, 9) and 0 (IoU with the +1: 100 / 160 = .625 <= .7); 1 and 2 are 0's box.
    // Image 1: four equal boxes, the best (3, .4) only.
    EXPECT_EQ(out[0].shape(), (Shape{3, 4}));
    expect_near(to_doubles(out[0]), {0, 0, 15, 9, 0, 0, 9, 9, 0, 0, 9, 9});
    EXPECT_EQ(values_of<float>(out[1]), (std::vector<float>{0.875f, 0.5f, 0.4f}));
    EXPECT_EQ(values_of<int64_t>(out[2]), (std::vector<int64_t>{2, 1}));
    // NMS uses the +1 too: .625 > .61 drops proposal 0 (without it, 81 / 135 = .6 would not).
    Attrs a;
    a.nms = "0.61";
    EXPECT_EQ(values_of<int64_t>(op(a).run(hand_inputs(ElementType::f32, kInfo, 3))[2]), (std::vector<int64_t>{1, 1}));
    // Clipping: image 0 only 12 wide and 8 high: x1 at 11, y1 at 7.
    const auto small = op(Attrs{}).run(hand_inputs(ElementType::f32, {8, 12, 1, 100, 100, 1}, 3));
    expect_near(first(small[0], 4), {0, 0, 11, 7});
}

TEST(GenerateProposals, NormalizedBoxes) {
    // Offset 0: the anchor is 9 wide, centre 4.5: zero deltas keep (0, 0, 9, 9); proposal 3: centre
    // 4.5 + 0.9 = 5.4, width 18: x from 0 (-3.6 clipped) to 14.4. IoU with proposal 0: 81 / 129.6.
    Attrs a;
    a.normalized = "true";
    const auto out = op(a).run(hand_inputs(ElementType::f32, kInfo, 3));
    expect_near(to_doubles(out[0]), {0, 0, 14.4, 9, 0, 0, 9, 9, 0, 0, 9, 9});
    EXPECT_EQ(values_of<int64_t>(out[2]), (std::vector<int64_t>{2, 1}));
    // Clipped to the image size itself (no -1): 12 wide gives x1 = 12.
    const auto small = op(a).run(hand_inputs(ElementType::f32, {100, 12, 1, 100, 100, 1}, 3));
    EXPECT_NEAR(to_doubles(small[0])[2], 12, 1e-6);
}

TEST(GenerateProposals, MinSizeScaledAndAfterTheTopN) {
    Attrs a;
    a.min_size = "5.5";
    // [N, 4] im_info: scale_height 1, scale_width 2: minimum 5.5 high and 11 wide. Image 0 keeps only
    // proposal 3 (16 x 10); image 1's boxes are 10 wide: none.
    const std::vector<double> hw = {100, 100, 1, 2, 100, 100, 1, 2};
    const auto out = op(a).run(hand_inputs(ElementType::f32, hw, 4));
    expect_near(to_doubles(out[0]), {0, 0, 15, 9});
    EXPECT_EQ(values_of<int64_t>(out[2]), (std::vector<int64_t>{1, 0}));
    // Scales the other way round (11 high): nothing passes.
    EXPECT_EQ(values_of<int64_t>(op(a).run(hand_inputs(ElementType::f32, {100, 100, 2, 1, 100, 100, 2, 1}, 4))[2]),
              (std::vector<int64_t>{0, 0}));
    // [N, 3]: scale 2 for both; boxes must be 11 x 11: nothing.
    EXPECT_EQ(values_of<int64_t>(op(a).run(hand_inputs(ElementType::f32, {100, 100, 2, 100, 100, 2}, 3))[2]),
              (std::vector<int64_t>{0, 0}));
    // min_size 5 with scale 2: 10 is enough (inclusive).
    a.min_size = "5";
    EXPECT_EQ(values_of<int64_t>(op(a).run(hand_inputs(ElementType::f32, {100, 100, 2, 100, 100, 2}, 3))[2]),
              (std::vector<int64_t>{2, 1}));
    // The cut to pre_nms_count comes first: proposal 0 made the best (.9) of image 0 and too narrow;
    // with pre_nms_count 1 it is the only one considered, and removed.
    a.min_size = "5.5";
    a.pre = "1";
    const std::vector<double> best0 = {0.9, 0.3, 0.4, 0.875};
    EXPECT_EQ(values_of<int64_t>(op(a).run(hand_inputs(ElementType::f32, hw, 4, best0))[2]), (std::vector<int64_t>{0, 0}));
    a.pre = "2";
    EXPECT_EQ(values_of<int64_t>(op(a).run(hand_inputs(ElementType::f32, hw, 4, best0))[2]), (std::vector<int64_t>{1, 0}));
}

TEST(GenerateProposals, CountsEtaTiesAndTypes) {
    Attrs a;
    a.post = "1";
    a.num_type = "i32";
    const auto one = op(a).run(hand_inputs(ElementType::f32, kInfo, 3));
    EXPECT_EQ(values_of<float>(one[1]), (std::vector<float>{0.875f, 0.4f}));
    EXPECT_EQ(one[2].type(), ElementType::i32);
    EXPECT_EQ(values_of<int32_t>(one[2]), (std::vector<int32_t>{1, 1}));
    a.post = "0";
    const auto none = op(a).run(hand_inputs(ElementType::f32, kInfo, 3));
    EXPECT_EQ(none[0].shape(), (Shape{0, 4}));
    EXPECT_EQ(none[1].shape(), (Shape{0}));
    EXPECT_EQ(values_of<int32_t>(none[2]), (std::vector<int32_t>{0, 0}));
    Attrs b;
    b.pre = "0";
    EXPECT_EQ(values_of<int64_t>(op(b).run(hand_inputs(ElementType::f32, kInfo, 3))[2]), (std::vector<int64_t>{0, 0}));
    // nms_eta below 1 changes nothing (OpenVINO applies no adaptive threshold).
    Attrs eta;
    eta.eta = "0.5";
    eta.nms = "0.61";
    EXPECT_EQ(values_of<int64_t>(op(eta).run(hand_inputs(ElementType::f32, kInfo, 3))[2]), (std::vector<int64_t>{1, 1}));
    // Ties: the lower proposal index first; NaN last (nms_threshold 1 keeps every box).
    Attrs all;
    all.nms = "1";
    const auto tied = op(all).run(hand_inputs(ElementType::f32, kInfo, 3, {0.25, 0.5, NAN, 0.5}));
    expect_near(first(tied[0], 8), {0, 0, 9, 9, 0, 0, 15, 9});
    const std::vector<float> s = values_of<float>(tied[1]);
    ASSERT_EQ(s.size(), 8u);
    EXPECT_EQ(s[0], 0.5f);
    EXPECT_EQ(s[1], 0.5f);
    EXPECT_EQ(s[2], 0.25f);
    EXPECT_TRUE(std::isnan(s[3]));
}

TEST(GenerateProposals, ShapeRule) {
    const OpTester o = op(Attrs{});
    const auto infos = o.infer({unknown(ElementType::f32, PartialShape::dynamic_rank()),
                                unknown(ElementType::f32, PartialShape({-1, -1, -1, 4})),
                                unknown(ElementType::f32, PartialShape({8, -1, -1, -1})),
                                unknown(ElementType::f32, PartialShape::dynamic_rank())});
    ASSERT_EQ(infos.size(), 3u);
    EXPECT_EQ(infos[0].shape, PartialShape({-1, 4}));
    EXPECT_EQ(infos[1].shape, PartialShape({-1}));
    EXPECT_EQ(infos[2].shape, PartialShape({8}));
    EXPECT_EQ(infos[2].type, ElementType::i64);
    // The spec's example, roi_num_type i32.
    Attrs ex;
    ex.num_type = "i32";
    const auto spec = op(ex).infer({unknown(ElementType::f16, PartialShape({8, 3})), unknown(ElementType::f16, PartialShape({50, 84, 3, 4})),
                                    unknown(ElementType::f16, PartialShape({8, 12, 50, 84})),
                                    unknown(ElementType::f16, PartialShape({8, 3, 50, 84}))});
    EXPECT_EQ(spec[0].shape, PartialShape({-1, 4}));
    EXPECT_EQ(spec[0].type, ElementType::f16);
    EXPECT_EQ(spec[2].shape, PartialShape({8}));
    EXPECT_EQ(spec[2].type, ElementType::i32);
    // Every input unknown at load time.
    EXPECT_EQ(o.run(hand_inputs(ElementType::f32, kInfo, 3), {0, 1, 2, 3})[0].shape(), (Shape{3, 4}));
}

// Through the executor: Parameters -> GenerateProposals -> Results, the row count made at run time
// (the IR declares -1), compiled once and run twice with different values.
TEST(GenerateProposals, InAModel) {
    testing::IrBuilder b;
    b.parameter(0, "im_info", "f32", {2, 3});
    b.parameter(1, "anchors", "f32", {1, 2, 2, 4});
    b.parameter(2, "deltas", "f32", {2, 8, 1, 2});
    b.parameter(3, "scores", "f32", {2, 2, 1, 2});
    b.layer(4, "gp", "GenerateProposals", "opset9",
            "min_size=\"0\" nms_threshold=\"0.7\" pre_nms_count=\"1000\" post_nms_count=\"6\" normalized=\"false\" "
            "roi_num_type=\"i32\"",
            {{0, "FP32", {2, 3}, ""}, {1, "FP32", {1, 2, 2, 4}, ""}, {2, "FP32", {2, 8, 1, 2}, ""}, {3, "FP32", {2, 2, 1, 2}, ""}},
            {{4, "FP32", {-1, 4}, "rois"}, {5, "FP32", {-1}, "roi_scores"}, {6, "I32", {2}, "rois_num"}});
    b.result(5, "r0", "f32", {-1, 4}).result(6, "r1", "f32", {-1}).result(7, "r2", "i32", {2});
    for (int i = 0; i < 4; ++i) b.edge(i, 0, 4, i);
    b.edge(4, 4, 5, 0).edge(4, 5, 6, 0).edge(4, 6, 7, 0);
    const CompiledModel m(Model::read_from_memory(b.xml(), b.weights().data(), b.weights().size()));
    InferRequest req = m.create_infer_request();
    const std::vector<Tensor> in = hand_inputs(ElementType::f32, kInfo, 3);
    for (size_t i = 0; i < 4; ++i) req.set_input(i, in[i]);
    req.infer();
    EXPECT_EQ(req.output("rois").shape(), (Shape{3, 4}));
    expect_near(to_doubles(req.output("rois")), {0, 0, 15, 9, 0, 0, 9, 9, 0, 0, 9, 9});
    EXPECT_EQ(values_of<float>(req.output("roi_scores")), (std::vector<float>{0.875f, 0.5f, 0.4f}));
    EXPECT_EQ(values_of<int32_t>(req.output("rois_num")), (std::vector<int32_t>{2, 1}));
    // Image 0 made 8 high and 12 wide: proposal 3 (0, 0, 11, 7) now drops proposal 0 (IoU 80 / 96).
    req.set_input(0, make_tensor<float>({2, 3}, {8, 12, 1, 100, 100, 1}));
    req.infer();
    EXPECT_EQ(req.output("rois").shape(), (Shape{2, 4}));
    EXPECT_EQ(values_of<int32_t>(req.output("rois_num")), (std::vector<int32_t>{1, 1}));
}

TEST(GenerateProposals, AttributeErrors) {
    const auto with = [](const std::function<void(Attrs&)>& change) {
        Attrs a;
        change(a);
        return [a] { op(a).attrs(); };
    };
    EXPECT_TRUE(throws_error(with([](Attrs& a) { a.min_size = "-1"; }), ErrorKind::Attribute, "attribute-invalid", "'min_size' = -1"));
    EXPECT_TRUE(throws_error(with([](Attrs& a) { a.nms = "-0.5"; }), ErrorKind::Attribute, "attribute-invalid", "'nms_threshold' = -0.5"));
    EXPECT_TRUE(throws_error(with([](Attrs& a) { a.pre = "-1"; }), ErrorKind::Attribute, "attribute-invalid", "'pre_nms_count' = -1"));
    EXPECT_TRUE(throws_error(with([](Attrs& a) { a.post = "-3"; }), ErrorKind::Attribute, "attribute-invalid", "'post_nms_count' = -3"));
    EXPECT_TRUE(throws_error(with([](Attrs& a) { a.post = "4294967296"; }), ErrorKind::Attribute, "attribute-invalid",
                             "allowed [0, 2147483647]"));
    EXPECT_TRUE(throws_error(with([](Attrs& a) { a.eta = "1.5"; }), ErrorKind::Attribute, "attribute-invalid", "'nms_eta' = 1.5"));
    EXPECT_TRUE(throws_error(with([](Attrs& a) { a.eta = "-0.1"; }), ErrorKind::Attribute, "attribute-invalid", "'nms_eta' = -0.1"));
    EXPECT_TRUE(throws_error(with([](Attrs& a) { a.num_type = "f32"; }), ErrorKind::Attribute, "attribute-invalid",
                             "'roi_num_type' = f32"));
    EXPECT_TRUE(throws_error(with([](Attrs& a) { a.normalized = "perhaps"; }), ErrorKind::Attribute, "attribute-invalid", "normalized"));
    for (const char* name : {"min_size", "nms_threshold", "pre_nms_count", "post_nms_count"}) {
        std::vector<IrAttribute> list = Attrs{}.list();
        list.erase(std::remove_if(list.begin(), list.end(), [&](const IrAttribute& x) { return x.name == name; }), list.end());
        EXPECT_TRUE(throws_error([&] { OpTester("GenerateProposals", 9, list).attrs(); }, ErrorKind::Attribute, "attribute-missing", name));
    }
    // normalized, nms_eta and roi_num_type are optional.
    std::vector<IrAttribute> required = Attrs{}.list();
    required.resize(4);
    const OpTester defaults("GenerateProposals", 9, required);
    const auto out = defaults.run(hand_inputs(ElementType::f32, kInfo, 3));
    EXPECT_EQ(out[2].type(), ElementType::i64);
    expect_near(first(out[0], 4), {0, 0, 14.4, 9});  // normalized
}

TEST(GenerateProposals, InputErrors) {
    const OpTester o = op(Attrs{});
    const std::vector<Tensor> in = hand_inputs(ElementType::f32, kInfo, 3);
    auto replace = [&](size_t port, Tensor t) {
        std::vector<Tensor> v = in;
        v[port] = std::move(t);
        return v;
    };
    const auto zeros = [](Shape s) {
        return make_tensor(ElementType::f32, s, std::vector<double>(static_cast<size_t>(checked_num_elements(s)), 0.0));
    };
    EXPECT_TRUE(throws_error([&] { o.run(replace(0, zeros({6}))); }, ErrorKind::ShapeRule, "rank-invalid", "im_info must be 2-D", 0));
    EXPECT_TRUE(throws_error([&] { o.run(replace(0, zeros({2, 5}))); }, ErrorKind::ShapeRule, "shape-invalid",
                             "im_info must be [num_batches, 3]", 0));
    EXPECT_TRUE(throws_error([&] { o.run(replace(0, zeros({3, 3}))); }, ErrorKind::ShapeRule, "shape-mismatch",
                             "scores gives num_batches = 2 but im_info gives 3", 3));
    EXPECT_TRUE(throws_error([&] { o.run(replace(1, zeros({1, 2, 2, 5}))); }, ErrorKind::ShapeRule, "shape-invalid",
                             "anchors must be [height, width, number_of_anchors, 4]", 1));
    EXPECT_TRUE(throws_error([&] { o.run(replace(1, zeros({2, 2, 4}))); }, ErrorKind::ShapeRule, "rank-invalid",
                             "anchors must be 4-D", 1));
    EXPECT_TRUE(throws_error([&] { o.run(replace(1, zeros({1, 2, 3, 4}))); }, ErrorKind::ShapeRule, "shape-mismatch",
                             "anchors gives number_of_anchors = 3 but scores gives 2", 1));
    EXPECT_TRUE(throws_error([&] { o.run(replace(1, zeros({2, 1, 2, 4}))); }, ErrorKind::ShapeRule, "shape-mismatch",
                             "anchors gives height = 2 but scores gives 1", 1));
    EXPECT_TRUE(throws_error([&] { o.run(replace(2, zeros({2, 7, 1, 2}))); }, ErrorKind::ShapeRule, "shape-invalid",
                             "is not a multiple of 4", 2));
    EXPECT_TRUE(throws_error([&] { o.run(replace(2, zeros({2, 8, 1, 3}))); }, ErrorKind::ShapeRule, "shape-mismatch",
                             "deltas gives width = 3 but scores gives 2", 2));
    EXPECT_TRUE(throws_error([&] { o.run(replace(2, zeros({1, 8, 1, 2}))); }, ErrorKind::ShapeRule, "shape-mismatch",
                             "deltas gives num_batches = 1 but im_info gives 2", 2));
    EXPECT_TRUE(throws_error([&] { o.run(replace(3, zeros({2, 2, 2}))); }, ErrorKind::ShapeRule, "rank-invalid", "scores must be 4-D", 3));
    EXPECT_TRUE(throws_error([&] { o.run(replace(2, make_tensor(ElementType::bf16, {2, 8, 1, 2}, std::vector<double>(32, 0.0)))); },
                             ErrorKind::Type, "element-type-mismatch", "deltas is bf16 but im_info is f32", 2));
}

TEST(GenerateProposals, ElementTypes) {
    for (ElementType t : {ElementType::f32, ElementType::f16, ElementType::bf16, ElementType::f64}) {
        SCOPED_TRACE(to_string(t));
        const auto out = op(Attrs{}).run(hand_inputs(t, kInfo, 3));
        EXPECT_EQ(out[0].type(), t);
        EXPECT_EQ(out[1].type(), t);
        EXPECT_EQ(out[2].type(), ElementType::i64);
        // ln 2 and 0.1 rounded to 16 bits move x1 = 15 by a few hundredths at most.
        expect_near(to_doubles(out[0]), {0, 0, 15, 9, 0, 0, 9, 9, 0, 0, 9, 9}, t == ElementType::bf16 ? 0.1 : 0.02);
        const double point4 = to_doubles(make_tensor(t, {1}, {0.4}))[0];  // 0.4 in that type
        EXPECT_EQ(to_doubles(out[1]), (std::vector<double>{0.875, 0.5, point4}));
        EXPECT_EQ(values_of<int64_t>(out[2]), (std::vector<int64_t>{2, 1}));
    }
    EXPECT_TRUE(throws_error([&] { op(Attrs{}).run(hand_inputs(ElementType::i64, kInfo, 3)); }, ErrorKind::Type,
                             "element-type-unsupported", "im_info must be a floating-point tensor", 0));
}

}  // namespace
}  // namespace irlite
