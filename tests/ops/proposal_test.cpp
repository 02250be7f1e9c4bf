// Proposal-1 and Proposal-4: OpenVINO's reference test vectors (Caffe for both versions, and
// tensorflow for Proposal-4) with f32, f64, f16 and bf16 inputs; hand-computed anchors (Caffe's
// rounded sizes, tensorflow's shifted ones), box decoding with box_coordinate_scale and
// box_size_scale, clipping before and after NMS, normalize, min_size scaled by image_shape[2] and
// image_shape[3], NMS and its threshold, the -1 terminator and zero rows, batches, the shape rule
// with unknown inputs and one declared output, every attribute and input error, and the element
// types (mixed float inputs accepted, an integer one rejected).
#include <algorithm>
#include <cmath>
#include <functional>

#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

struct Attrs {
    std::string base = "16", pre = "6000", post = "10", nms = "0.7", stride = "16", min = "16", ratio = "0.5",
                scale = "32", clip_before = "true", clip_after = "false", normalize = "false", size_scale = "1",
                coord_scale = "1", framework = "";
    std::vector<IrAttribute> list() const {
        return {{"base_size", base},        {"pre_nms_topn", pre},         {"post_nms_topn", post},
                {"nms_thresh", nms},        {"feat_stride", stride},       {"min_size", min},
                {"ratio", ratio},           {"scale", scale},              {"clip_before_nms", clip_before},
                {"clip_after_nms", clip_after}, {"normalize", normalize}, {"box_size_scale", size_scale},
                {"box_coordinate_scale", coord_scale}, {"framework", framework}};
    }
};

OpTester op(int version, const Attrs& a) { return OpTester("Proposal", version, a.list()); }

// ---- OpenVINO's reference test (src/plugins/template/tests/functional/op_reference/proposal.cpp):
// one image, one anchor (ratio 0.5, scale 32, base_size 16), a 10 x 10 map, image 210 x 350.
const std::vector<double> kClsScores = {
    0.000240, 0.003802, 0.111432, 0.000503, 0.007887, 0.144701, 0.399074, 0.004680, 0.139741, 0.002386,
    0.030003, 0.276552, 0.000267, 0.022971, 0.287953, 0.050235, 0.002580, 0.206311, 0.000146, 0.009656,
    0.175462, 0.000147, 0.014718, 0.272348, 0.065199, 0.003286, 0.185335, 0.003720, 0.025932, 0.251401,
    0.001465, 0.090447, 0.488469, 0.092259, 0.019306, 0.379091, 0.005311, 0.010369, 0.087615, 0.042003,
    0.073871, 0.416763, 0.044282, 0.069776, 0.313032, 0.000457, 0.017346, 0.089762, 0.000820, 0.103986,
    0.367993, 0.026315, 0.035701, 0.299252, 0.000135, 0.017825, 0.150119, 0.000076, 0.050511, 0.269601,
    0.026680, 0.003541, 0.189765, 0.000051, 0.004315, 0.193150, 0.000032, 0.007254, 0.185557, 0.051526,
    0.000657, 0.117579, 0.000115, 0.010179, 0.293187, 0.000025, 0.006505, 0.175345, 0.032587, 0.000469,
    0.098443, 0.000121, 0.009600, 0.322782, 0.000032, 0.004543, 0.166860, 0.044911, 0.000187, 0.102691,
    0.000242, 0.005502, 0.107865, 0.000191, 0.005336, 0.086893, 0.078422, 0.000345, 0.079096, 0.000281,
    0.016388, 0.214072, 0.000107, 0.012027, 0.192754, 0.049531, 0.000386, 0.149893, 0.000374, 0.016965,
    0.204781, 0.000163, 0.016272, 0.215277, 0.032298, 0.000857, 0.133426, 0.000614, 0.020215, 0.165789,
    0.000225, 0.036951, 0.262195, 0.087675, 0.004596, 0.147764, 0.000219, 0.010502, 0.163394, 0.000152,
    0.023116, 0.241702, 0.081800, 0.002197, 0.146637, 0.000193, 0.012017, 0.133497, 0.000375, 0.028605,
    0.309179, 0.065962, 0.005508, 0.155530, 0.000186, 0.004540, 0.079319, 0.000799, 0.031003, 0.303045,
    0.051473, 0.017770, 0.206188, 0.000202, 0.004291, 0.061095, 0.001109, 0.018094, 0.156639, 0.026062,
    0.005270, 0.148651, 0.000026, 0.007300, 0.096013, 0.000383, 0.022134, 0.129511, 0.080882, 0.003416,
    0.129922, 0.000037, 0.010040, 0.130007, 0.000116, 0.014904, 0.171423, 0.082893, 0.000921, 0.154976,
    0.000142, 0.016552, 0.209696, 0.000227, 0.022418, 0.228501, 0.111712, 0.001987, 0.158164, 0.001200,
    0.027049, 0.308222, 0.001366, 0.038146, 0.287945, 0.072526, 0.016064, 0.257895, 0.000595, 0.016962,
};
const std::vector<double> kBboxDeltas = {
    0.006756, -0.055635, 0.030843, 0.007482, 0.009056, -0.041824, 0.119722, 0.168988, 0.002822, 0.039733,
    0.109005, 0.245152, -0.013196, -0.018222, -0.170122, -0.374904, -0.005455, -0.034059, -0.006787, 0.072005,
    -0.017933, -0.007358, 0.034149, 0.123846, 0.128319, 0.016107, -0.615487, -1.235094, -0.024253, -0.019406,
    0.134142, 0.157853, -0.021119, 0.007383, 0.089365, 0.092854, 0.062491, 0.002366, 0.122464, -0.003326,
    0.015468, -0.034088, 0.079009, 0.075483, 0.011972, 0.042427, 0.106865, 0.158754, 0.071211, -0.034009,
    0.007985, -0.441477, 0.009046, -0.028515, 0.095372, 0.119598, -0.007553, -0.0072, 0.105072, 0.084314,
    0.23268, -0.02906, -0.408454, -1.13439, 0.016202, -0.037859, 0.130873, 0.129652, 0.002064, -0.011969,
    0.171623, 0.050218, 0.113831, 0.028922, 0.017785, 0.059708, 0.037658, -0.011245, 0.097197, 0.137491,
    0.024218, 0.04739, 0.091978, 0.217333, 0.088418, -0.004662, -0.095168, -0.397928, 0.02639, -0.008501,
    0.068487, 0.108465, 0.020069, 0.018829, 0.040206, 0.068473, 0.226458, -0.072871, -0.672384, -1.447558,
    0.039598, 0.017471, 0.187288, 0.08409, 0.017152, -0.00516, 0.183419, 0.068469, 0.063944, 0.160725,
    -0.022493, -0.132291, 0.010542, 0.036318, 0.074042, -0.013323, 0.00808, 0.060365, 0.120566, 0.21866,
    0.046324, 0.088741, 0.029469, -0.517183, 0.00917, 0.011915, 0.053674, 0.140168, 0.0033, 0.022759,
    -0.006196, 0.063839, 0.083726, -0.088385, -0.57208, -1.454211, 0.020655, 0.010788, 0.134951, 0.109709,
    0.015445, -0.015363, 0.109153, 0.051209, 0.024297, 0.139126, -0.12358, -0.127979, 0.004587, 0.004751,
    0.047292, 0.027066, 0.011003, 0.069887, 0.117052, 0.267419, 0.039306, 0.077584, 0.02579, -0.496149,
    -0.005569, 0.015494, -0.011662, 0.105549, -0.007015, 0.031984, -0.075742, 0.0852, 0.023886, -0.053107,
    -0.325533, -1.329066, 0.004688, 0.034501, 0.089317, 0.042463, 0.004212, -0.015128, 0.00892, 0.028266,
    0.009997, 0.157822, 0.020116, -0.142337, 0.008199, 0.046564, 0.083014, 0.046307, 0.006771, 0.084997,
    0.141935, 0.228339, -0.020308, 0.077745, -0.018319, -0.522311, 0.010432, 0.024641, 0.020571, 0.097148,
    0.002064, 0.035053, -0.121995, 0.012222, -0.030779, 0.100481, -0.331737, -1.257669, -0.013079, 0.021227,
    0.159949, 0.120097, 0.005765, -0.012335, -0.005268, 0.042067, -0.043972, 0.102556, 0.180494, -0.084721,
    -0.011962, 0.031302, 0.112511, 0.027557, -0.002085, 0.082978, 0.149409, 0.195091, -0.033731, 0.019861,
    -0.064047, -0.471328, -0.004093, 0.016803, 0.044635, 0.058912, -0.018735, 0.035536, -0.050373, -0.002794,
    -0.086705, 0.038435, -0.301466, -1.071246, -0.028247, 0.018984, 0.254702, 0.141142, -0.017522, 0.014843,
    0.079391, 0.079662, -0.051204, 0.048419, 0.235604, -0.185797, -0.019569, 0.02678, 0.162507, 0.046435,
    -0.004606, 0.08806, 0.18634, 0.193957, -0.024333, -0.01298, -0.17977, -0.65881, -0.003778, 0.007418,
    0.065439, 0.104549, -0.027706, 0.03301, 0.057492, 0.032019, -0.135337, 0.000269, -0.250203, -1.181688,
    -0.027022, -0.006755, 0.206848, 0.129268, -0.003529, 0.013445, 0.181484, 0.139955, -0.036587, 0.065824,
    0.288751, -0.110813, -0.015578, 0.044818, 0.17756, 0.006914, 0.002329, 0.068982, 0.189079, 0.184253,
    0.00301, -0.039168, -0.010855, -0.393254, 0.000028, 0.001906, 0.07217, 0.063305, -0.026144, 0.028842,
    0.139149, 0.023377, 0.023362, 0.023559, -0.145386, -0.863572, -0.015749, -0.021364, 0.172571, 0.078393,
    -0.037253, 0.014978, 0.221502, 0.189111, -0.048956, 0.085409, 0.325399, -0.058294, -0.028495, 0.021663,
    0.19392, 0.02706, 0.006908, 0.065751, 0.176395, 0.138375, 0.012418, -0.031228, -0.008762, -0.427345,
    -0.013677, -0.002429, 0.069655, 0.019505, -0.036763, 0.022528, 0.201062, 0.022205, 0.024528, 0.06241,
    -0.076237, -0.840695, -0.007268, -0.027865, 0.211056, 0.074744, -0.053563, 0.006863, 0.301432, 0.192879,
    -0.021944, 0.100535, 0.19031, -0.133746, -0.006151, 0.023944, 0.13561, -0.03259, 0.000618, 0.063736,
    0.180904, 0.12393, 0.001275, -0.0306, -0.032822, -0.496515, 0.009757, 0.014602, 0.004532, -0.039969,
    -0.015984, 0.047726, 0.099865, 0.003163, 0.026623, 0.117951, -0.076234, -0.811997, 0.01301, 0.020042,
    0.173756, -0.036191, -0.068887, 0.0229, 0.245465, 0.214282, -0.011054, 0.132813, 0.241014, -0.148763,
};

// OpenVINO's expected rows (batch, x0, y0, x1, y1): ten kept, the last with score 0 (a box 1 pixel
// wide, under min_size, keeps its place with score 0), so no -1 terminator.
const std::vector<double> kCaffeBoxes = {
    0, 0, 0, 349, 209,           0, 0, 0, 237.625443, 209,    0, 140.305511, 0, 349, 209,
    0, 0, 0, 349, 65.359818,     0, 0, 0, 349, 130.324097,    0, 0, 15.562508, 97.587891, 181.224182,
    0, 0, 68.539543, 250.406708, 209, 0, 0, 0, 195.881531, 99.841385, 0, 0, 0, 78.303986, 209,
    0, 0, 0, 0, 209,
};
const std::vector<double> kCaffeProbs = {0.309179, 0.155530, 0.154976, 0.146637, 0.026062,
                                         0.017770, 0.001987, 0.000857, 0.000219, 0};
// framework "tensorflow", image_shape (210, 350, 1, 1): x runs along H and is clipped to 210.
const std::vector<double> kTfBoxes = {
    0, 11.9688, 4.02532, 204.528, 182.586, 0, 33.7915, 48.4886, 210,     238.505, 0, 0,       0,       204.428, 337.029,
    0, 72.611,  9.87545, 203.687, 212.299, 0, 5.08432, 4.19913, 208.719, 249.225, 0, 23.6503, 57.8165, 210,     350,
    0, 84.8804, 9.47241, 156.822, 243.003, 0, 101.663, 15.5542, 166.083, 327.839, 0, 13.9738, 0,       210,     128.482,
    0, 77.8929, 29.663,  186.561, 313.287,
};
const std::vector<double> kTfProbs = {0.309179, 0.308222, 0.303045, 0.241702, 0.192754,
                                      0.165789, 0.15553,  0.154976, 0.146637, 0.129511};

std::vector<Tensor> reference_inputs(ElementType t, const std::vector<double>& image) {
    return {make_tensor(t, {1, 2, 10, 10}, kClsScores), make_tensor(t, {1, 4, 10, 10}, kBboxDeltas),
            make_tensor(t, {static_cast<int64_t>(image.size())}, image)};
}

// |got - want| <= abs + rel * |want| for every element.
::testing::AssertionResult near(const Tensor& got, const std::vector<double>& want, double rel, double abs) {
    const std::vector<double> g = to_doubles(got);
    if (g.size() != want.size()) return ::testing::AssertionFailure() << g.size() << " values, want " << want.size();
    for (size_t i = 0; i < g.size(); ++i)
        if (!(std::fabs(g[i] - want[i]) <= abs + rel * std::fabs(want[i])))
            return ::testing::AssertionFailure() << "element " << i << " is " << g[i] << ", want " << want[i];
    return ::testing::AssertionSuccess();
}

// Tolerances: the expected values are printed with 6 digits; f16 and bf16 inputs are rounded first.
struct Tolerance {
    double rel, abs;
};
Tolerance tolerance(ElementType t) {
    if (t == ElementType::f16) return {2e-3, 0.5};
    if (t == ElementType::bf16) return {1e-2, 3};
    return {1e-6, 1e-6};
}

// bf16 rounds some different scores to one value (0.15553 and 0.154976 both become 0.155273), and
// tied proposals may leave the sort in another order: OpenVINO disables its own f16/bf16 Proposal
// reference cases (CVS-63977, CVS-64082). For bf16 each expected row must be matched by a distinct
// output row, in any order.
::testing::AssertionResult same_rows(const Tensor& got, const std::vector<double>& want, size_t width, Tolerance tol) {
    const std::vector<double> g = to_doubles(got);
    if (g.size() != want.size()) return ::testing::AssertionFailure() << g.size() << " values, want " << want.size();
    std::vector<bool> used(g.size() / width, false);
    for (size_t r = 0; r < want.size() / width; ++r) {
        bool found = false;
        for (size_t c = 0; c < used.size() && !found; ++c) {
            if (used[c]) continue;
            bool same = true;
            for (size_t i = 0; i < width; ++i)
                same = same && std::fabs(g[c * width + i] - want[r * width + i]) <= tol.abs + tol.rel * std::fabs(want[r * width + i]);
            if (same) used[c] = found = true;
        }
        if (!found) return ::testing::AssertionFailure() << "expected row " << r << " is not in the output";
    }
    return ::testing::AssertionSuccess();
}

::testing::AssertionResult matches(ElementType t, const Tensor& got, const std::vector<double>& want, size_t width, Tolerance tol) {
    return t == ElementType::bf16 ? same_rows(got, want, width, tol) : near(got, want, tol.rel, tol.abs);
}

const ElementType kFloatTypes[] = {ElementType::f32, ElementType::f64, ElementType::f16, ElementType::bf16};

TEST(Proposal, OpenVinoReferenceProposal1) {
    for (ElementType t : kFloatTypes) {
        SCOPED_TRACE(to_string(t));
        const Tolerance tol = tolerance(t);
        const std::vector<Tensor> out = op(1, Attrs{}).run(reference_inputs(t, {210, 350, 1}));
        ASSERT_EQ(out.size(), 1u);
        EXPECT_EQ(out[0].type(), t);
        EXPECT_EQ(out[0].shape(), (Shape{10, 5}));
        EXPECT_TRUE(matches(t, out[0], kCaffeBoxes, 5, tol));
    }
}

TEST(Proposal, OpenVinoReferenceProposal4) {
    for (ElementType t : kFloatTypes) {
        SCOPED_TRACE(to_string(t));
        const Tolerance tol = tolerance(t);
        const std::vector<Tensor> out = op(4, Attrs{}).run(reference_inputs(t, {210, 350, 1}));
        ASSERT_EQ(out.size(), 2u);
        EXPECT_EQ(out[1].shape(), (Shape{10}));
        EXPECT_TRUE(matches(t, out[0], kCaffeBoxes, 5, tol));
        EXPECT_TRUE(matches(t, out[1], kCaffeProbs, 1, {tol.rel, 1e-6}));
    }
}

TEST(Proposal, OpenVinoReferenceTensorflow) {
    Attrs a;
    a.framework = "tensorflow";
    for (ElementType t : kFloatTypes) {
        SCOPED_TRACE(to_string(t));
        const Tolerance tol = tolerance(t);
        const std::vector<Tensor> out = op(4, a).run(reference_inputs(t, {210, 350, 1, 1}));
        // The expected values have 6 significant digits.
        EXPECT_TRUE(matches(t, out[0], kTfBoxes, 5, {std::max(tol.rel, 5e-6), tol.abs}));
        EXPECT_TRUE(matches(t, out[1], kTfProbs, 1, {tol.rel, 1e-6}));
    }
}

// ---- hand-computed cases: one image, a 1 x W map, zero deltas unless said ----

struct Small {
    ElementType t = ElementType::f32;
    int64_t n = 1, k = 1, w = 1;
    std::vector<double> scores;  // foreground scores, [n][k][w]; background channels are 0
    std::vector<double> deltas;  // [n][4k][w]; empty: zeros
    std::vector<double> image = {100, 100, 1};
    std::vector<Tensor> inputs() const {
        std::vector<double> probs(static_cast<size_t>(n * 2 * k * w), 0.0);
        for (int64_t b = 0; b < n; ++b)
            for (int64_t i = 0; i < k * w; ++i)
                probs[static_cast<size_t>((b * 2 + 1) * k * w + i)] = scores.empty() ? 0.5 : scores[static_cast<size_t>(b * k * w + i)];
        const std::vector<double> d = deltas.empty() ? std::vector<double>(static_cast<size_t>(n * 4 * k * w), 0.0) : deltas;
        return {make_tensor(t, {n, 2 * k, 1, w}, probs), make_tensor(t, {n, 4 * k, 1, w}, d),
                make_tensor(t, {static_cast<int64_t>(image.size())}, image)};
    }
};

Attrs small_attrs() {
    Attrs a;
    a.ratio = "1";
    a.scale = "1";
    a.min = "0";
    a.post = "3";
    a.stride = "4";
    return a;
}

TEST(Proposal, CaffeAnchorDecodingAndTerminator) {
    // base_size 16, ratio 1, scale 1: w = h = round(sqrt(256)) = 16, half size (16 - 1) / 2 = 7.5
    // around the center 7.5: anchor (0, 0, 15, 15). Zero deltas: size 16, center 8, so the box is
    // (8 - 8, 8 + 8) = (0, 0, 16, 16). One proposal for three rows: the -1 terminator, then zeros.
    Small s;
    s.scores = {0.75};
    const auto out = op(4, small_attrs()).run(s.inputs());
    EXPECT_EQ(to_doubles(out[0]), (std::vector<double>{0, 0, 0, 16, 16, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
    EXPECT_EQ(to_doubles(out[1]), (std::vector<double>{0.75, 0, 0}));
    // clip_before_nms clips to [0, 10 - 1] for a 10 x 10 image.
    s.image = {10, 10, 1};
    EXPECT_EQ(to_doubles(op(1, small_attrs()).run1(s.inputs())),
              (std::vector<double>{0, 0, 0, 9, 9, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
}

TEST(Proposal, AnchorsOfRatioAndScale) {
    // ratio 0.5: w = round(sqrt(512)) = round(22.63) = 23, h = round(23 * 0.5) = round(11.5) = 12
    // (half away from zero); half sizes 11 and 5.5 around 7.5: anchor (-3.5, 2, 18.5, 13). Zero
    // deltas (not clipped): size 23 x 12, center (8, 8): (-3.5, 2, 19.5, 14).
    Attrs a = small_attrs();
    a.ratio = "0.5";
    a.clip_before = "false";
    a.post = "1";
    Small s;
    EXPECT_EQ(to_doubles(op(1, a).run1(s.inputs())), (std::vector<double>{0, -3.5, 2, 19.5, 14}));
    // scale 2: half sizes (46 - 1) / 2 = 22.5 and (24 - 1) / 2 = 11.5: (-15, -4, 30, 19) decodes
    // to size 46 x 24 around (8, 8): (-15, -4, 31, 20).
    a.scale = "2";
    EXPECT_EQ(to_doubles(op(1, a).run1(s.inputs())), (std::vector<double>{0, -15, -4, 31, 20}));
    // tensorflow: no rounding, no +1: w = sqrt(512) = 22.627, h = 11.314; center 8, shifted by -8:
    // (-11.314, -5.657, 11.314, 5.657), clipped to the image first: (0, 0, 11.314, 5.657); decoding
    // with zero deltas keeps it.
    a.scale = "1";
    a.framework = "tensorflow";
    const std::vector<double> tf = to_doubles(op(1, a).run1(s.inputs()));
    const double w = std::sqrt(512.0) / 2, h = std::sqrt(512.0) / 4;
    ASSERT_EQ(tf.size(), 5u);
    EXPECT_EQ(tf[0], 0);
    EXPECT_EQ(tf[1], 0);
    EXPECT_EQ(tf[2], 0);
    EXPECT_NEAR(tf[3], w, 1e-5);
    EXPECT_NEAR(tf[4], h, 1e-5);
}

TEST(Proposal, AnchorOrderIsRatioThenScale) {
    // ratios (1, 0.5) x scales (1, 2): anchors k = 0..3 are (1, 1), (1, 2), (0.5, 1), (0.5, 2).
    // Scores 0.1, 0.2, 0.3, 0.4 put them out in reverse; NMS off (threshold 1).
    Attrs a = small_attrs();
    a.ratio = "1,0.5";
    a.scale = "1,2";
    a.clip_before = "false";
    a.nms = "1";
    a.post = "4";
    Small s;
    s.k = 4;
    s.scores = {0.1, 0.2, 0.3, 0.4};
    const auto out = op(4, a).run(s.inputs());
    EXPECT_EQ(to_doubles(out[0]), (std::vector<double>{0, -15, -4, 31, 20, 0, -3.5, 2, 19.5, 14,  //
                                                       0, -8, -8, 24, 24, 0, 0, 0, 16, 16}));
    EXPECT_EQ(values_of<float>(out[1]), (std::vector<float>{0.4f, 0.3f, 0.2f, 0.1f}));
}

TEST(Proposal, DeltasAndTheirScales) {
    // Anchor (0, 0, 15, 15), size 16, center 8. dx = 0.5 / box_coordinate_scale 2 = 0.25: center
    // 8 + 0.25 * 16 = 12; d_log_w = ln 2: width 32: x from -4 to 28; y unchanged (0, 16).
    Attrs a = small_attrs();
    a.clip_before = "false";
    a.coord_scale = "2";
    a.post = "1";
    Small s;
    s.deltas = {0.5, 0, std::log(2.0), 0};
    const std::vector<double> got = to_doubles(op(1, a).run1(s.inputs()));
    const std::vector<double> want = {0, -4, 0, 28, 16};
    for (size_t i = 0; i < 5; ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << i;
    // box_size_scale 2 halves d_log_w: width 16 * sqrt(2).
    a.size_scale = "2";
    const std::vector<double> half = to_doubles(op(1, a).run1(s.inputs()));
    EXPECT_NEAR(half[1], 12 - 8 * std::sqrt(2.0), 1e-5);
    EXPECT_NEAR(half[3], 12 + 8 * std::sqrt(2.0), 1e-5);
    // Clipped before NMS to [0, 99]; after NMS (clip_before off) to [0, 100]; normalize divides by
    // the image width and height.
    a.size_scale = "1";
    a.clip_before = "true";
    const std::vector<double> clipped = to_doubles(op(1, a).run1(s.inputs()));
    EXPECT_EQ(clipped[1], 0);
    EXPECT_NEAR(clipped[3], 28, 1e-5);
    s.image = {20, 25, 1};
    a.clip_before = "false";
    a.clip_after = "true";
    const std::vector<double> after = to_doubles(op(1, a).run1(s.inputs()));
    const std::vector<double> want_after = {0, 0, 0, 25, 16};
    for (size_t i = 0; i < 5; ++i) EXPECT_NEAR(after[i], want_after[i], 1e-5) << i;
    a.normalize = "true";
    const std::vector<double> norm = to_doubles(op(1, a).run1(s.inputs()));
    const std::vector<double> want_norm = {0, 0, 0, 1, 16.0 / 20};
    for (size_t i = 0; i < 5; ++i) EXPECT_NEAR(norm[i], want_norm[i], 1e-6) << i;
}

TEST(Proposal, MinSizeScaledByTheImageScales) {
    // The box (0, 0, 16, 16) is 17 wide and high with Caffe's +1. min_size 17 keeps its score.
    Attrs a = small_attrs();
    a.min = "17";
    Small s;
    s.scores = {0.75};
    EXPECT_EQ(to_doubles(op(4, a).run(s.inputs())[1]), (std::vector<double>{0.75, 0, 0}));
    // min_size 18 (or 9 with a scale of 2) makes its score 0: it stays, first, with probability 0.
    a.min = "18";
    auto out = op(4, a).run(s.inputs());
    EXPECT_EQ(to_doubles(out[0]), (std::vector<double>{0, 0, 0, 16, 16, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
    EXPECT_EQ(to_doubles(out[1]), (std::vector<double>{0, 0, 0}));
    a.min = "9";
    for (const auto& [image, kept] : std::vector<std::pair<std::vector<double>, bool>>{
             {{100, 100, 1}, true}, {{100, 100, 2}, false}, {{100, 100, 1, 2}, false}, {{100, 100, 2, 1}, false},
             {{100, 100, 1, 1}, true}, {{100, 100, 1.5, 1.5}, true}}) {
        s.image = image;
        SCOPED_TRACE(::testing::PrintToString(image));
        EXPECT_EQ(to_doubles(op(4, a).run(s.inputs())[1])[0], kept ? 0.75 : 0.0);
    }
}

TEST(Proposal, NmsAndTopN) {
    // Two positions 4 apart: (0, 0, 16, 16) and (4, 0, 20, 16); IoU with +1 sizes 13 * 17 / (2 *
    // 289 - 221) = 0.619. Scores 0.3 and 0.9: the second first.
    Attrs a = small_attrs();
    Small s;
    s.w = 2;
    s.scores = {0.3, 0.9};
    auto out = op(4, a).run(s.inputs());
    EXPECT_EQ(to_doubles(out[0]), (std::vector<double>{0, 4, 0, 20, 16, 0, 0, 0, 16, 16, -1, 0, 0, 0, 0}));
    EXPECT_EQ(values_of<float>(out[1]), (std::vector<float>{0.9f, 0.3f, 0}));
    a.nms = "0.6";  // 0.619 > 0.6: suppressed
    out = op(4, a).run(s.inputs());
    EXPECT_EQ(to_doubles(out[0]), (std::vector<double>{0, 4, 0, 20, 16, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
    // pre_nms_topn 1 keeps only the best before NMS; post_nms_topn 1 fills its one row (no -1).
    a.nms = "0.7";
    a.pre = "1";
    EXPECT_EQ(values_of<float>(op(4, a).run(s.inputs())[1]), (std::vector<float>{0.9f, 0, 0}));
    a.pre = "2147483647";  // as TensorFlow IR writes it
    a.post = "1";
    out = op(4, a).run(s.inputs());
    EXPECT_EQ(to_doubles(out[0]), (std::vector<double>{0, 4, 0, 20, 16}));
}

TEST(Proposal, Batches) {
    // Two images: each has its own block of post_nms_topn rows, its batch index first.
    Attrs a = small_attrs();
    a.post = "2";
    Small s;
    s.n = 2;
    s.scores = {0.5, 0.25};
    const auto out = op(4, a).run(s.inputs());
    EXPECT_EQ(out[0].shape(), (Shape{4, 5}));
    EXPECT_EQ(to_doubles(out[0]), (std::vector<double>{0, 0, 0, 16, 16, -1, 0, 0, 0, 0, 1, 0, 0, 16, 16, -1, 0, 0, 0, 0}));
    EXPECT_EQ(values_of<float>(out[1]), (std::vector<float>{0.5f, 0, 0.25f, 0}));
    // An empty map has no proposal: the terminator, then zeros.
    s.n = 1;
    s.w = 0;
    s.scores = {};
    const auto empty = op(4, a).run(s.inputs());
    EXPECT_EQ(to_doubles(empty[0]), (std::vector<double>{-1, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
    EXPECT_EQ(to_doubles(empty[1]), (std::vector<double>{0, 0}));
}

TEST(Proposal, ShapeRule) {
    const OpTester o = op(4, Attrs{});
    auto infos = o.infer({unknown(ElementType::f32, PartialShape({-1, 2, -1, -1})), unknown(ElementType::f32, PartialShape::dynamic_rank()),
                          unknown(ElementType::f32, PartialShape({-1}))});
    ASSERT_EQ(infos.size(), 2u);
    EXPECT_EQ(infos[0].shape, PartialShape({-1, 5}));
    EXPECT_EQ(infos[1].shape, PartialShape({-1}));
    // The batch may come from bbox_deltas; the output type is class_probs'.
    infos = o.infer({unknown(ElementType::f16, PartialShape::dynamic_rank()), unknown(ElementType::f32, PartialShape({3, 4, 5, 6})),
                     unknown(ElementType::f32, PartialShape({4}))});
    EXPECT_EQ(infos[0].shape, PartialShape({30, 5}));
    EXPECT_EQ(infos[0].type, ElementType::f16);
    EXPECT_EQ(infos[1].shape, PartialShape({30}));
    // Proposal-4 may declare its first output only; Proposal-1 has one.
    const std::vector<RuleInput> in = {unknown(ElementType::f32, PartialShape({2, 2, 5, 6})), unknown(ElementType::f32, PartialShape({2, 4, 5, 6})),
                                       unknown(ElementType::f32, PartialShape({3}))};
    EXPECT_EQ(o.infer(in, 1).size(), 1u);
    EXPECT_TRUE(throws_error([&] { o.infer(in, 3); }, ErrorKind::Graph, "output-count", "has 2 outputs"));
    const auto v1 = op(1, Attrs{}).infer(in);
    ASSERT_EQ(v1.size(), 1u);
    EXPECT_EQ(v1[0].shape, PartialShape({20, 5}));
    // Every input unknown at load time.
    Small s;
    const auto out = op(4, small_attrs()).run(s.inputs(), {0, 1, 2});
    EXPECT_EQ(out[0].shape(), (Shape{3, 5}));
}

TEST(Proposal, InputErrors) {
    const OpTester o = op(1, Attrs{});  // K = 1
    const auto rule = [&](PartialShape p, PartialShape d, PartialShape im) {
        return [=] {
            o.infer({unknown(ElementType::f32, p), unknown(ElementType::f32, d), unknown(ElementType::f32, im)});
        };
    };
    EXPECT_TRUE(throws_error(rule(PartialShape({1, 2, 10}), PartialShape({1, 4, 10, 10}), PartialShape({3})), ErrorKind::ShapeRule,
                             "rank-invalid", "class_probs must be 4-D", 0));
    EXPECT_TRUE(throws_error(rule(PartialShape({1, 4, 10, 10}), PartialShape({1, 4, 10, 10}), PartialShape({3})), ErrorKind::ShapeRule,
                             "shape-invalid", "class_probs must have 2 * K = 2 channels", 0));
    EXPECT_TRUE(throws_error(rule(PartialShape({1, 2, 10, 10}), PartialShape({1, 8, 10, 10}), PartialShape({3})), ErrorKind::ShapeRule,
                             "shape-invalid", "bbox_deltas must have 4 * K = 4 channels", 1));
    EXPECT_TRUE(throws_error(rule(PartialShape({1, 2, 10, 10}), PartialShape({2, 4, 10, 10}), PartialShape({3})), ErrorKind::ShapeRule,
                             "shape-mismatch", "differ in the batch dim", 1));
    EXPECT_TRUE(throws_error(rule(PartialShape({1, 2, 10, 10}), PartialShape({1, 4, 10, 9}), PartialShape({3})), ErrorKind::ShapeRule,
                             "shape-mismatch", "differ in the width dim", 1));
    // OpenVINO requires a 1-D image_shape: [1, 3] and [1, 4] are refused as it refuses them.
    EXPECT_TRUE(throws_error(rule(PartialShape({1, 2, 10, 10}), PartialShape({1, 4, 10, 10}), PartialShape({1, 3})), ErrorKind::ShapeRule,
                             "rank-invalid", "image_shape must be 1-D with 3 or 4 elements", 2));
    EXPECT_TRUE(throws_error(rule(PartialShape({1, 2, 10, 10}), PartialShape({1, 4, 10, 10}), PartialShape({1, 4})), ErrorKind::ShapeRule,
                             "rank-invalid", "image_shape must be 1-D", 2));
    EXPECT_TRUE(throws_error(rule(PartialShape({1, 2, 10, 10}), PartialShape({1, 4, 10, 10}), PartialShape({5})), ErrorKind::ShapeRule,
                             "shape-invalid", "got [5]", 2));
    EXPECT_TRUE(throws_error(rule(PartialShape({1, 2, 10, 10}), PartialShape({1, 4, 10, 10}), PartialShape({2})), ErrorKind::ShapeRule,
                             "shape-invalid", "image_shape must be 1-D", 2));
    // Run-time values of image_shape (the CPU plugin's checks).
    Small s;
    const OpTester small = op(4, small_attrs());
    for (const auto& [image, at, message] : std::vector<std::tuple<std::vector<double>, int, std::string>>{
             {{0, 100, 1}, 2, "image_shape[0] = 0: the image height"},
             {{100, -5, 1}, 2, "image_shape[1] = -5: the image width"},
             {{100, NAN, 1}, 2, "image_shape[1] = nan"},
             {{100, 100, -1}, 2, "image_shape[2] = -1: scales must be finite numbers >= 0"},
             {{100, 100, 1, INFINITY}, 2, "image_shape[3] = inf"}}) {
        s.image = image;
        EXPECT_TRUE(throws_error([&] { small.run(s.inputs()); }, ErrorKind::Value, "image-shape-invalid", message, at));
    }
}

TEST(Proposal, AttributeErrors) {
    const auto with = [](const std::function<void(Attrs&)>& change) {
        Attrs a;
        change(a);
        return [a] { op(4, a).attrs(); };
    };
    const std::vector<std::pair<std::function<void(Attrs&)>, std::string>> rows = {
        {[](Attrs& a) { a.base = "0"; }, "'base_size' = 0"},
        {[](Attrs& a) { a.pre = "0"; }, "'pre_nms_topn' = 0"},
        {[](Attrs& a) { a.post = "-1"; }, "'post_nms_topn' = -1"},
        {[](Attrs& a) { a.post = "2147483648"; }, "'post_nms_topn' = 2147483648"},
        {[](Attrs& a) { a.stride = "0"; }, "'feat_stride' = 0"},
        {[](Attrs& a) { a.min = "-1"; }, "'min_size' = -1"},
        {[](Attrs& a) { a.nms = "-0.5"; }, "'nms_thresh' = -0.5"},
        {[](Attrs& a) { a.nms = "nan"; }, "'nms_thresh'"},
        {[](Attrs& a) { a.ratio = ""; }, "'ratio' is empty"},
        {[](Attrs& a) { a.ratio = "0.5,0"; }, "'ratio' value 1 = 0"},
        {[](Attrs& a) { a.scale = "-2"; }, "'scale' value 0 = -2"},
        {[](Attrs& a) { a.size_scale = "0"; }, "'box_size_scale' = 0"},
        {[](Attrs& a) { a.coord_scale = "-1"; }, "'box_coordinate_scale' = -1"},
        {[](Attrs& a) { a.framework = "caffe"; }, "'framework' = 'caffe'"},
        {[](Attrs& a) { a.framework = "TensorFlow"; }, "'framework' = 'TensorFlow'"},
        {[](Attrs& a) { a.clip_before = "maybe"; }, "clip_before_nms"},
        {[](Attrs& a) { a.clip_after = "2"; }, "clip_after_nms"},
        {[](Attrs& a) { a.normalize = "yes"; }, "normalize"},
    };
    for (const auto& [change, message] : rows) EXPECT_TRUE(throws_error(with(change), ErrorKind::Attribute, "attribute-invalid", message));
    // Required attributes; the others have defaults.
    for (const char* name : {"base_size", "pre_nms_topn", "post_nms_topn", "nms_thresh", "feat_stride", "min_size", "ratio", "scale"}) {
        std::vector<IrAttribute> list = Attrs{}.list();
        list.erase(std::remove_if(list.begin(), list.end(), [&](const IrAttribute& x) { return x.name == name; }), list.end());
        EXPECT_TRUE(throws_error([&] { OpTester("Proposal", 1, list).attrs(); }, ErrorKind::Attribute, "attribute-missing", name));
    }
    std::vector<IrAttribute> list = Attrs{}.list();
    list.resize(8);  // the optional ones dropped: clip_before_nms true, the rest off
    EXPECT_NO_THROW(OpTester("Proposal", 4, list).attrs());
    const auto out = OpTester("Proposal", 4, list).run(reference_inputs(ElementType::f32, {210, 350, 1}));
    EXPECT_TRUE(near(out[0], kCaffeBoxes, 1e-6, 2e-4));
}

TEST(Proposal, ElementTypes) {
    for (ElementType t : kFloatTypes) {
        SCOPED_TRACE(to_string(t));
        Small s;
        s.t = t;
        s.scores = {0.75};
        const auto out = op(4, small_attrs()).run(s.inputs());
        EXPECT_EQ(out[0].type(), t);
        EXPECT_EQ(out[1].type(), t);
        EXPECT_EQ(to_doubles(out[0]), (std::vector<double>{0, 0, 0, 16, 16, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
        EXPECT_EQ(to_doubles(out[1]), (std::vector<double>{0.75, 0, 0}));
    }
    // Mixed floating-point inputs are accepted (OpenVINO checks each is real); the output takes
    // class_probs' type.
    Small s;
    std::vector<Tensor> in = s.inputs();
    in[0] = make_tensor(ElementType::f16, in[0].shape(), to_doubles(in[0]));
    in[2] = make_tensor(ElementType::f64, in[2].shape(), to_doubles(in[2]));
    const auto mixed = op(4, small_attrs()).run(in);
    EXPECT_EQ(mixed[0].type(), ElementType::f16);
    EXPECT_EQ(to_doubles(mixed[0]), (std::vector<double>{0, 0, 0, 16, 16, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
    for (size_t port : {0, 1, 2}) {
        std::vector<Tensor> bad = s.inputs();
        bad[port] = make_tensor(ElementType::i32, bad[port].shape(), to_doubles(bad[port]));
        EXPECT_TRUE(throws_error([&] { op(1, small_attrs()).run(bad); }, ErrorKind::Type, "element-type-unsupported",
                                 "must be a floating-point tensor", static_cast<int>(port)));
    }
}

}  // namespace
}  // namespace irlite
