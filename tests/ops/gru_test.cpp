// GRUCell-3 and GRUSequence-5 against a direct double-precision reference
// (recurrent_test_util.hpp): linear_before_reset on and off (B [3H] / [4H]), every activation,
// clip, directions with sequence_lengths, optional B, run-time weights, types, and the errors.
#include "recurrent_test_util.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;
using namespace irlite::testing::recurrent;

struct GruCase {
    Spec spec;
    std::vector<double> x, h0, w, r, b;
};

GruCase make_case(int64_t n, int64_t t, int64_t i, int64_t h, bool lbr,
                  std::vector<std::string> acts = {"sigmoid", "tanh"}, const char* direction = "forward") {
    GruCase c;
    Spec& s = c.spec;
    s.cell = "gru";
    s.n = n, s.t = t, s.i = i, s.h = h, s.lbr = lbr;
    s.acts = std::move(acts);
    s.direction = direction;
    s.d = s.direction == "bidirectional" ? 2 : 1;
    const auto sz = [](int64_t v) { return static_cast<size_t>(v); };
    c.x = wave(sz(n * t * i), 1.5);
    c.h0 = wave(sz(n * s.d * h), 2.5, 0.7);
    c.w = wave(sz(s.d * 3 * h * i), 3.5, 0.6);
    c.r = wave(sz(s.d * 3 * h * h), 4.5, 0.6);
    c.b = wave(sz(s.d * (lbr ? 4 : 3) * h), 5.5, 0.4);
    return c;
}

std::vector<Tensor> cell_inputs(const GruCase& c, ElementType type = ElementType::f32) {
    const Spec& s = c.spec;
    return {make_tensor(type, {s.n, s.i}, c.x), make_tensor(type, {s.n, s.h}, c.h0),
            make_tensor(type, {3 * s.h, s.i}, c.w), make_tensor(type, {3 * s.h, s.h}, c.r),
            make_tensor(type, {(s.lbr ? 4 : 3) * s.h}, c.b)};
}

std::vector<Tensor> sequence_inputs(const GruCase& c, const Tensor& lengths, ElementType type = ElementType::f32) {
    const Spec& s = c.spec;
    return {make_tensor(type, {s.n, s.t, s.i}, c.x),
            make_tensor(type, {s.n, s.d, s.h}, c.h0),
            lengths,
            make_tensor(type, {s.d, 3 * s.h, s.i}, c.w),
            make_tensor(type, {s.d, 3 * s.h, s.h}, c.r),
            make_tensor(type, {s.d, (s.lbr ? 4 : 3) * s.h}, c.b)};
}

TEST(GruCell, MatchesTheReferenceWithAndWithoutLinearBeforeReset) {
    for (bool lbr : {false, true})
        for (const auto& acts :
             std::vector<std::vector<std::string>>{{"sigmoid", "tanh"}, {"relu", "sigmoid"}, {"tanh", "relu"}})
            for (double clip : {0.0, 0.5}) {
                GruCase c = make_case(3, 1, 4, 5, lbr, acts);
                c.spec.clip = clip;
                const Tensor out = OpTester("GRUCell", 3, attributes(c.spec, false)).run1(cell_inputs(c));
                const Result want = reference(c.spec, c.x, c.h0, {}, c.w, c.r, c.b, {}, {});
                EXPECT_EQ(out.shape(), (Shape{3, 5}));
                EXPECT_TRUE(near(out, want.ho, 1e-5)) << lbr << " " << join(acts) << " " << clip;
            }
}

TEST(GruCell, OptionalBiasRunTimeWeightsAndTypes) {
    const GruCase c = make_case(2, 1, 3, 4, false);
    const OpTester op("GRUCell", 3, attributes(c.spec, false));
    std::vector<Tensor> no_b = cell_inputs(c);
    no_b.pop_back();
    EXPECT_TRUE(near(op.run1(no_b), reference(c.spec, c.x, c.h0, {}, c.w, c.r, {}, {}, {}).ho, 1e-5));
    const Tensor packed = op.run1(cell_inputs(c));
    EXPECT_TRUE(tensors_equal(op.run_kernel(cell_inputs(c), {2, 3, 4})[0], packed));
    const Result want = reference(c.spec, c.x, c.h0, {}, c.w, c.r, c.b, {}, {});
    EXPECT_TRUE(near(op.run1(cell_inputs(c, ElementType::f64)), want.ho, 1e-12));
    EXPECT_TRUE(near(op.run1(cell_inputs(c, ElementType::f16)), want.ho, 1e-2));
}

TEST(GruSequence, DirectionsLengthsAndLinearBeforeReset) {
    for (const char* direction : {"forward", "reverse", "bidirectional"})
        for (bool lbr : {false, true}) {
            GruCase c = make_case(3, 6, 2, 5, lbr, {"sigmoid", "tanh"}, direction);
            c.spec.clip = lbr ? 0.0 : 0.8;
            const std::vector<int64_t> lengths = {6, 2, 4};
            const auto out = OpTester("GRUSequence", 5, attributes(c.spec, true))
                                 .run(sequence_inputs(c, i32s({6, 2, 4})), {0, 1, 2});
            const Result want = reference(c.spec, c.x, c.h0, {}, c.w, c.r, c.b, {}, lengths);
            ASSERT_EQ(out.size(), 2u);
            EXPECT_TRUE(near(out[0], want.y, 1e-5)) << direction << " " << lbr;
            EXPECT_TRUE(near(out[1], want.ho, 1e-5)) << direction << " " << lbr;
            const auto plain = OpTester("GRUSequence", 5, attributes(c.spec, true))
                                   .run_kernel(sequence_inputs(c, i32s({6, 2, 4})), {3, 4, 5});
            EXPECT_TRUE(tensors_equal(plain[0], out[0])) << direction << " " << lbr;
        }
}

TEST(GruCell, Errors) {
    const GruCase c = make_case(2, 1, 3, 4, false);
    // B [3H] with linear_before_reset, [4H] without.
    Spec lbr = c.spec;
    lbr.lbr = true;
    EXPECT_TRUE(throws_error([&] { OpTester("GRUCell", 3, attributes(lbr, false)).run(cell_inputs(c)); },
                             ErrorKind::ShapeRule, "shape-mismatch", "GRUCell B is [12] but [16] is required", 4));
    std::vector<Tensor> in = cell_inputs(c);
    in[4] = make_tensor(ElementType::f32, {16}, wave(16, 1));
    EXPECT_TRUE(throws_error([&] { OpTester("GRUCell", 3, attributes(c.spec, false)).run(in); }, ErrorKind::ShapeRule,
                             "shape-mismatch", "linear_before_reset false", 4));
    EXPECT_TRUE(throws_error(
        [&] {
            OpTester("GRUCell", 3, {{"hidden_size", "4"}, {"activations", "sigmoid"}}).attrs();
        },
        ErrorKind::Attribute, "attribute-invalid", "2 required"));
    EXPECT_TRUE(throws_error(
        [&] {
            OpTester("GRUSequence", 5, {{"hidden_size", "4"}, {"direction", "forward"}, {"activations", "sigmoid,elu"}})
                .attrs();
        },
        ErrorKind::Attribute, "attribute-invalid", "\"elu\" is not an activation function"));
    const GruCase s = make_case(2, 3, 3, 4, false);
    EXPECT_TRUE(throws_error(
        [&] {
            OpTester("GRUSequence", 5, attributes(s.spec, true))
                .run(sequence_inputs(s, make_tensor<float>({2}, {1, 2})));
        },
        ErrorKind::Type, "element-type-unsupported", "GRUSequence sequence_lengths must be an integer tensor", 2));
}

}  // namespace
}  // namespace irlite
