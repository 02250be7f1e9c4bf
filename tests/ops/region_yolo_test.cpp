// RegionYolo-1: OpenVINO's reference vector (YOLO v3 mode with more channels than the regions
// use), both modes against a direct reference (which channels get the sigmoid, the softmax across
// the classes, copied coords), the output shape of each mode (flattening with axis / end_axis),
// the float types, the errors and the spec's two IR examples as shape-rule rows.
#include <cmath>

#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

struct Params {
    int64_t coords = 4, classes = 3, num = 2;
    bool do_softmax = true;
    std::string mask = "";
    int64_t axis = 1, end_axis = 3;
};

std::vector<IrAttribute> attrs(const Params& p) {
    return {{"coords", std::to_string(p.coords)},
            {"classes", std::to_string(p.classes)},
            {"num", std::to_string(p.num)},
            {"do_softmax", p.do_softmax ? "1" : "0"},
            {"mask", p.mask},
            {"axis", std::to_string(p.axis)},
            {"end_axis", std::to_string(p.end_axis)},
            {"anchors", "10,14,23,27,37,58"}};
}

Tensor run(const Params& p, const Tensor& x) { return OpTester("RegionYolo", 1, attrs(p)).run1({x}); }

double sigmoid(double v) { return 1.0 / (1.0 + std::exp(-v)); }

// By the YOLO definition, per batch and region: x, y, objectness -> sigmoid; other coords as they
// are; classes -> softmax across them (do_softmax) or sigmoid each. The output holds, per batch,
// the first regions * K channels (v3) or every channel (v2, the rest unchanged).
std::vector<double> reference(const std::vector<double>& x, const Shape& s, const Params& p, int64_t regions) {
    const int64_t n = s[0], c = s[1], area = s[2] * s[3], k = p.coords + p.classes + 1;
    const int64_t out_c = p.do_softmax ? c : regions * k;
    std::vector<double> out;
    for (int64_t b = 0; b < n; ++b)
        for (int64_t ch = 0; ch < out_c; ++ch)
            for (int64_t i = 0; i < area; ++i) {
                const auto at = [&](int64_t channel) { return x[static_cast<size_t>((b * c + channel) * area + i)]; };
                const double v = at(ch);
                const int64_t r = ch / k, e = ch % k;
                if (r >= regions) out.push_back(v);
                else if (e < 2 || e == p.coords) out.push_back(sigmoid(v));
                else if (e < p.coords) out.push_back(v);
                else if (!p.do_softmax) out.push_back(sigmoid(v));
                else {
                    double sum = 0;
                    for (int64_t j = 0; j < p.classes; ++j) sum += std::exp(at(r * k + p.coords + 1 + j));
                    out.push_back(std::exp(v) / sum);
                }
            }
    return out;
}

// Values in [-4, 4), different everywhere.
Tensor ramp(ElementType t, const Shape& s) {
    std::vector<double> v(static_cast<size_t>(checked_num_elements(s)));
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>((i * 37) % 128) / 16.0 - 4.0;
    return make_tensor(t, s, v);
}

void expect_near(const std::vector<double>& got, const std::vector<double>& want, double tol, const std::string& what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << what << " element " << i;
}

TEST(RegionYolo, OpenVinoReferenceVector) {
    // num 1, coords 4, classes 1, mask [0], no softmax; 8 channels in, K = 6 out.
    std::vector<double> in;
    for (int rep = 0; rep < 4; ++rep)
        for (int i = 1; i <= 8; ++i) in.push_back(i / 10.0);
    const std::vector<double> want = {0.52497, 0.54983, 0.57444, 0.59868, 0.62245, 0.64565, 0.66818, 0.68997,
                                      0.1,     0.2,     0.3,     0.4,     0.5,     0.6,     0.7,     0.8,
                                      0.52497, 0.54983, 0.57444, 0.59868, 0.62245, 0.64565, 0.66818, 0.68997};
    Params p;
    p.num = 1;
    p.classes = 1;
    p.do_softmax = false;
    p.mask = "0";
    for (ElementType t : {ElementType::f64, ElementType::f32, ElementType::f16, ElementType::bf16}) {
        const Tensor out = run(p, make_tensor(t, {1, 8, 2, 2}, in));
        EXPECT_EQ(out.shape(), (Shape{1, 6, 2, 2}));
        EXPECT_EQ(out.type(), t);
        expect_near(to_doubles(out), want, t == ElementType::bf16 ? 4e-3 : t == ElementType::f16 ? 5e-4 : 1e-5, to_string(t));
    }
}

TEST(RegionYolo, SoftmaxModeMatchesTheDefinition) {
    Params p;  // coords 4, classes 3, num 2: K = 8
    for (const Shape& s : {Shape{1, 16, 2, 3}, Shape{2, 16, 3, 3}, Shape{2, 20, 1, 2}}) {  // 20: 4 extra channels
        const Tensor x = ramp(ElementType::f32, s);
        const Tensor out = run(p, x);
        EXPECT_EQ(out.shape(), (Shape{s[0], s[1] * s[2] * s[3]}));
        expect_near(to_doubles(out), reference(to_doubles(x), s, p, p.num), 1e-6, to_string(PartialShape(s)));
    }
    // The classes of each location sum to 1; the other coords pass through bit for bit.
    const Shape s{1, 16, 2, 2};
    const Tensor x = ramp(ElementType::f64, s);
    const std::vector<double> got = to_doubles(run(p, x)), in = to_doubles(x);
    for (int64_t r = 0; r < 2; ++r)
        for (int64_t i = 0; i < 4; ++i) {
            double sum = 0;
            for (int64_t j = 0; j < 3; ++j) sum += got[static_cast<size_t>((r * 8 + 5 + j) * 4 + i)];
            EXPECT_NEAR(sum, 1.0, 1e-12);
            for (int64_t e : {2, 3})
                EXPECT_EQ(got[static_cast<size_t>((r * 8 + e) * 4 + i)], in[static_cast<size_t>((r * 8 + e) * 4 + i)]);
        }
}

TEST(RegionYolo, SigmoidModeMatchesTheDefinition) {
    Params p;
    p.do_softmax = false;
    p.num = 6;
    p.mask = "3,4,5";  // three regions; num is ignored
    p.coords = 4;
    p.classes = 2;  // K = 7
    for (const Shape& s : {Shape{1, 21, 2, 2}, Shape{2, 21, 3, 2}, Shape{2, 25, 2, 2}}) {
        const Tensor x = ramp(ElementType::f32, s);
        const Tensor out = run(p, x);
        EXPECT_EQ(out.shape(), (Shape{s[0], 21, s[2], s[3]}));
        expect_near(to_doubles(out), reference(to_doubles(x), s, p, 3), 1e-6, to_string(PartialShape(s)));
    }
    // Large magnitudes saturate without NaN.
    const Tensor big = make_tensor(ElementType::f32, {1, 7, 1, 1}, {-1000, 1000, 5, 6, -1000, 1000, -1000});
    p.mask = "0";
    EXPECT_EQ(to_doubles(run(p, big)), (std::vector<double>{0, 1, 5, 6, 0, 1, 0}));
}

TEST(RegionYolo, SoftmaxIsStableForLargeInputs) {
    Params p;
    p.num = 1;
    p.classes = 2;
    p.coords = 2;  // K = 5: x, y, objectness, two classes
    const Tensor x = make_tensor(ElementType::f32, {1, 5, 1, 1}, {0, 0, 0, 1000, 1000});
    EXPECT_EQ(to_doubles(run(p, x)), (std::vector<double>{0.5, 0.5, 0.5, 0.5, 0.5}));
}

TEST(RegionYolo, OutputShapes) {
    const OpTester v2("RegionYolo", 1,
                      {{"anchors", "1.08,1.19,3.42,4.41,6.63,11.38,9.42,5.11,16.62,10.52"}, {"axis", "1"}, {"classes", "20"},
                       {"coords", "4"}, {"do_softmax", "1"}, {"end_axis", "3"}, {"num", "5"}});
    auto infos = v2.infer({unknown(ElementType::f32, PartialShape({1, 125, 13, 13}))});
    EXPECT_EQ(infos[0].shape, PartialShape({1, 21125}));
    const OpTester v3("RegionYolo", 1,
                      {{"anchors", "10,14,23,27,37,58,81,82,135,169,344,319"}, {"axis", "1"}, {"classes", "80"},
                       {"coords", "4"}, {"do_softmax", "0"}, {"end_axis", "3"}, {"mask", "0,1,2"}, {"num", "6"}});
    infos = v3.infer({unknown(ElementType::f16, PartialShape({1, 255, 26, 26}))});
    EXPECT_EQ(infos[0].shape, PartialShape({1, 255, 26, 26}));
    EXPECT_EQ(infos[0].type, ElementType::f16);
    infos = v3.infer({unknown(ElementType::f32, PartialShape({kDynamic, kDynamic, 13, kDynamic}))});
    EXPECT_EQ(infos[0].shape, PartialShape({kDynamic, 255, 13, kDynamic}));
    infos = v3.infer({unknown(ElementType::f32, PartialShape::dynamic_rank())});
    EXPECT_EQ(infos[0].shape, PartialShape({kDynamic, 255, kDynamic, kDynamic}));

    struct Row {
        int64_t axis, end_axis;
        PartialShape in, out;
    };
    for (const Row& r : {Row{0, 3, PartialShape({2, 16, 2, 3}), PartialShape({192})},
                         Row{0, 1, PartialShape({2, 16, 2, 3}), PartialShape({32, 2, 3})},
                         Row{2, 3, PartialShape({2, 16, 2, 3}), PartialShape({2, 16, 6})},
                         Row{-3, -1, PartialShape({2, 16, 2, 3}), PartialShape({2, 96})},
                         Row{3, 1, PartialShape({2, 16, 2, 3}), PartialShape({2, 16, 2, 3})},  // nothing to flatten
                         Row{1, 3, PartialShape({2, 16, kDynamic, 3}), PartialShape({2, kDynamic})},
                         Row{1, 3, PartialShape({2, 16, 0, kDynamic}), PartialShape({2, 0})},
                         Row{1, 3, PartialShape::dynamic_rank(), PartialShape({kDynamic, kDynamic})}}) {
        Params p;
        p.axis = r.axis;
        p.end_axis = r.end_axis;
        infos = OpTester("RegionYolo", 1, attrs(p)).infer({unknown(ElementType::f32, r.in)});
        EXPECT_EQ(infos[0].shape, r.out) << r.axis << ".." << r.end_axis;
    }
    // The kernel writes what the rule says for a flattening to the front.
    Params p;
    p.axis = 0;
    p.end_axis = 2;
    const Tensor x = ramp(ElementType::f32, {2, 16, 2, 2});
    const Tensor out = run(p, x);
    EXPECT_EQ(out.shape(), (Shape{64, 2}));
    expect_near(to_doubles(out), reference(to_doubles(x), {2, 16, 2, 2}, p, 2), 1e-6, "axis 0..2");
}

TEST(RegionYolo, Errors) {
    Params p;
    EXPECT_TRUE(throws_error([&] { run(p, ramp(ElementType::f32, {1, 15, 2, 2})); }, ErrorKind::ShapeRule, "shape-invalid",
                             "data has 15 channels; 2 regions (num) of coords + classes + 1 = 8 channels need 16", 0));
    p.do_softmax = false;
    p.mask = "0,1,2";
    EXPECT_TRUE(throws_error([&] { run(p, ramp(ElementType::f32, {1, 16, 2, 2})); }, ErrorKind::ShapeRule, "shape-invalid",
                             "3 regions (mask)", 0));
    EXPECT_TRUE(throws_error([&] { run(Params{}, ramp(ElementType::f32, {16, 2, 2})); }, ErrorKind::ShapeRule, "rank-invalid",
                             "[N, C, H, W]", 0));
    EXPECT_TRUE(throws_error([&] { run(Params{}, iota(ElementType::i32, {1, 16, 2, 2})); }, ErrorKind::Type,
                             "type-unsupported", "element type i32 is not supported", 0));
    Params bad;
    bad.coords = 1;
    EXPECT_TRUE(throws_error([&] { OpTester("RegionYolo", 1, attrs(bad)).attrs(); }, ErrorKind::Attribute,
                             "attribute-invalid", "attribute 'coords' = 1: must be in [2,"));
    bad = Params{};
    bad.classes = -1;
    EXPECT_TRUE(throws_error([&] { OpTester("RegionYolo", 1, attrs(bad)).attrs(); }, ErrorKind::Attribute,
                             "attribute-invalid", "attribute 'classes' = -1"));
    bad = Params{};
    bad.end_axis = 4;
    EXPECT_TRUE(throws_error([&] { OpTester("RegionYolo", 1, attrs(bad)).attrs(); }, ErrorKind::Attribute,
                             "attribute-invalid", "attribute 'end_axis' = 4: must be in [-4, 3]"));
    // coords, classes, num, axis and end_axis are required; do_softmax, mask and anchors are not.
    for (const char* required : {"coords", "classes", "num", "axis", "end_axis"}) {
        std::vector<IrAttribute> a;
        for (const IrAttribute& at : attrs(Params{}))
            if (at.name != required) a.push_back(at);
        EXPECT_TRUE(throws_error([&] { OpTester("RegionYolo", 1, a).attrs(); }, ErrorKind::Attribute, "attribute-missing",
                                 required))
            << required;
    }
    EXPECT_NO_THROW(OpTester("RegionYolo", 1, {{"coords", "4"}, {"classes", "3"}, {"num", "2"}, {"axis", "1"}, {"end_axis", "3"}})
                        .attrs());
}

}  // namespace
}  // namespace irlite
