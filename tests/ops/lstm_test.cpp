// LSTMCell-1/4 and LSTMSequence-5 against a direct double-precision reference
// (recurrent_test_util.hpp): every activation, clip, peepholes and input_forget (LSTMCell-1),
// forward / reverse / bidirectional sequences with sequence_lengths (i32, i64, 0 and T), weights
// packed at prepare (constants) and read at run time, element types, the shape rule with dynamic
// dims, and the errors.
#include "recurrent_test_util.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;
using namespace irlite::testing::recurrent;

struct LstmCase {
    Spec spec;
    std::vector<double> x, h0, c0, w, r, b, p;
};

LstmCase make_case(Spec s, bool with_p = false) {
    LstmCase c;
    const auto sz = [](int64_t v) { return static_cast<size_t>(v); };
    c.x = wave(sz(s.n * s.t * s.i), 1.0);
    c.h0 = wave(sz(s.n * s.d * s.h), 2.0, 0.5);
    c.c0 = wave(sz(s.n * s.d * s.h), 3.0, 0.8);
    c.w = wave(sz(s.d * 4 * s.h * s.i), 4.0, 0.6);
    c.r = wave(sz(s.d * 4 * s.h * s.h), 5.0, 0.6);
    c.b = wave(sz(s.d * 4 * s.h), 6.0, 0.3);
    if (with_p) c.p = wave(sz(3 * s.h), 7.0, 0.5);
    c.spec = std::move(s);
    return c;
}

std::vector<Tensor> cell_inputs(const LstmCase& c, ElementType type = ElementType::f32) {
    const Spec& s = c.spec;
    std::vector<Tensor> in = {make_tensor(type, {s.n, s.i}, c.x),     make_tensor(type, {s.n, s.h}, c.h0),
                              make_tensor(type, {s.n, s.h}, c.c0),    make_tensor(type, {4 * s.h, s.i}, c.w),
                              make_tensor(type, {4 * s.h, s.h}, c.r), make_tensor(type, {4 * s.h}, c.b)};
    if (!c.p.empty()) in.push_back(make_tensor(type, {3 * s.h}, c.p));
    return in;
}

std::vector<Tensor> sequence_inputs(const LstmCase& c, const Tensor& lengths, ElementType type = ElementType::f32) {
    const Spec& s = c.spec;
    return {make_tensor(type, {s.n, s.t, s.i}, c.x),     make_tensor(type, {s.n, s.d, s.h}, c.h0),
            make_tensor(type, {s.n, s.d, s.h}, c.c0),    lengths,
            make_tensor(type, {s.d, 4 * s.h, s.i}, c.w), make_tensor(type, {s.d, 4 * s.h, s.h}, c.r),
            make_tensor(type, {s.d, 4 * s.h}, c.b)};
}

Spec lstm_spec(int64_t n, int64_t t, int64_t i, int64_t h,
               std::vector<std::string> acts = {"sigmoid", "tanh", "tanh"}) {
    Spec s;
    s.cell = "lstm";
    s.n = n, s.t = t, s.i = i, s.h = h;
    s.acts = std::move(acts);
    return s;
}

TEST(LstmCell, MatchesTheReferenceForEveryActivationAndClip) {
    const std::vector<std::vector<std::string>> act_sets = {{"sigmoid", "tanh", "tanh"},
                                                            {"tanh", "relu", "sigmoid"},
                                                            {"relu", "sigmoid", "relu"},
                                                            {"Sigmoid", "TANH", "Relu"}};
    for (const auto& acts : act_sets) {
        for (double clip : {0.0, 0.4}) {
            Spec s = lstm_spec(3, 1, 5, 4, acts);
            for (auto& a : s.acts)
                std::transform(a.begin(), a.end(), a.begin(),
                               [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
            s.clip = clip;
            const LstmCase c = make_case(s);
            Spec attrs_spec = s;
            attrs_spec.acts = acts;  // as written, in any case
            const auto out = OpTester("LSTMCell", 4, attributes(attrs_spec, false)).run(cell_inputs(c));
            const Result want = reference(s, c.x, c.h0, c.c0, c.w, c.r, c.b, {}, {});
            ASSERT_EQ(out.size(), 2u);
            EXPECT_EQ(out[0].shape(), (Shape{3, 4}));
            EXPECT_TRUE(near(out[0], want.ho, 1e-5)) << join(acts) << " clip " << clip;
            EXPECT_TRUE(near(out[1], want.co, 1e-5)) << join(acts) << " clip " << clip;
        }
    }
}

TEST(LstmCell, Version1PeepholesAndInputForget) {
    for (bool input_forget : {false, true}) {
        Spec s = lstm_spec(2, 1, 3, 5);
        s.input_forget = input_forget;
        s.clip = 0.7;
        const LstmCase c = make_case(s, true);
        const auto out = OpTester("LSTMCell", 1, attributes(s, false)).run(cell_inputs(c));
        const Result want = reference(s, c.x, c.h0, c.c0, c.w, c.r, c.b, c.p, {});
        EXPECT_TRUE(near(out[0], want.ho, 1e-5)) << input_forget;
        EXPECT_TRUE(near(out[1], want.co, 1e-5)) << input_forget;
    }
    // Without B and P (both optional in LSTMCell-1): zero biases.
    Spec s = lstm_spec(1, 1, 2, 3);
    LstmCase c = make_case(s);
    std::vector<Tensor> in = cell_inputs(c);
    in.pop_back();
    const auto out = OpTester("LSTMCell", 1, attributes(s, false)).run(in);
    const Result want = reference(s, c.x, c.h0, c.c0, c.w, c.r, {}, {}, {});
    EXPECT_TRUE(near(out[0], want.ho, 1e-5));
}

TEST(LstmCell, WeightsReadAtRunTimeGiveThePackedResult) {
    const LstmCase c = make_case(lstm_spec(4, 1, 7, 9));
    const OpTester op("LSTMCell", 4, attributes(c.spec, false));
    const auto packed = op.run(cell_inputs(c));
    const auto plain = op.run_kernel(cell_inputs(c), {3, 4, 5});
    EXPECT_TRUE(tensors_equal(plain[0], packed[0]));
    EXPECT_TRUE(tensors_equal(plain[1], packed[1]));
    EXPECT_STREQ(op.plan(cell_inputs(c))->method, "sgemm-packed");
}

TEST(LstmCell, ElementTypes) {
    const LstmCase c = make_case(lstm_spec(2, 1, 3, 4));
    const Result want = reference(c.spec, c.x, c.h0, c.c0, c.w, c.r, c.b, {}, {});
    for (ElementType t : {ElementType::f64, ElementType::f16, ElementType::bf16}) {
        const auto out = OpTester("LSTMCell", 4, attributes(c.spec, false)).run(cell_inputs(c, t));
        EXPECT_EQ(out[0].type(), t);
        const double tol = t == ElementType::f64 ? 1e-12 : t == ElementType::f16 ? 1e-2 : 5e-2;
        EXPECT_TRUE(near(out[0], want.ho, tol)) << to_string(t);
        EXPECT_TRUE(near(out[1], want.co, tol)) << to_string(t);
    }
}

TEST(LstmSequence, DirectionsAndSequenceLengths) {
    for (const char* direction : {"forward", "reverse", "bidirectional"}) {
        Spec s = lstm_spec(4, 5, 3, 6);
        s.direction = direction;
        s.d = s.direction == "bidirectional" ? 2 : 1;
        s.clip = 0.9;
        const LstmCase c = make_case(s);
        for (const std::vector<int64_t>& lengths :
             std::vector<std::vector<int64_t>>{{5, 5, 5, 5}, {2, 5, 0, 3}, {1, 4, 5, 2}}) {
            for (bool i32 : {false, true}) {
                const Tensor len = i32 ? i32s(std::vector<int32_t>(lengths.begin(), lengths.end())) : i64s(lengths);
                const auto out =
                    OpTester("LSTMSequence", 5, attributes(s, true)).run(sequence_inputs(c, len), {0, 1, 2, 3});
                const Result want = reference(s, c.x, c.h0, c.c0, c.w, c.r, c.b, {}, lengths);
                ASSERT_EQ(out.size(), 3u);
                EXPECT_EQ(out[0].shape(), (Shape{4, s.d, 5, 6}));
                EXPECT_TRUE(near(out[0], want.y, 1e-5)) << direction << " " << lengths[1];
                EXPECT_TRUE(near(out[1], want.ho, 1e-5)) << direction << " " << lengths[1];
                EXPECT_TRUE(near(out[2], want.co, 1e-5)) << direction << " " << lengths[1];
            }
        }
    }
}

TEST(LstmSequence, LongerSequenceF64AndRunTimeWeights) {
    Spec s = lstm_spec(2, 12, 8, 16, {"sigmoid", "tanh", "relu"});
    const LstmCase c = make_case(s);
    const Result want = reference(s, c.x, c.h0, c.c0, c.w, c.r, c.b, {}, {});
    const OpTester op("LSTMSequence", 5, attributes(s, true));
    const auto out = op.run(sequence_inputs(c, i64s({12, 12})));
    EXPECT_TRUE(near(out[0], want.y, 1e-4));
    const auto plain = op.run_kernel(sequence_inputs(c, i64s({12, 12})), {4, 5, 6});
    EXPECT_TRUE(tensors_equal(plain[0], out[0]));
    const auto f64 = op.run(sequence_inputs(c, i64s({12, 12}), ElementType::f64));
    EXPECT_TRUE(near(f64[0], want.y, 1e-12));
    EXPECT_TRUE(near(f64[2], want.co, 1e-12));
}

TEST(LstmSequence, ShapeRuleWithDynamicDims) {
    Spec s = lstm_spec(2, 3, 4, 5);
    s.direction = "bidirectional";
    const OpTester op("LSTMSequence", 5, attributes(s, true));
    const auto infos = op.infer(
        {unknown(ElementType::f32, PartialShape({kDynamic, kDynamic, 4})),
         unknown(ElementType::f32, PartialShape::dynamic_rank()),
         unknown(ElementType::f32, PartialShape({2, kDynamic, 5})), unknown(ElementType::i32, PartialShape({kDynamic})),
         unknown(ElementType::f32, PartialShape({2, 20, 4})), unknown(ElementType::f32, PartialShape({2, 20, 5})),
         unknown(ElementType::f32, PartialShape({2, 20}))});
    ASSERT_EQ(infos.size(), 3u);
    EXPECT_EQ(infos[0].shape, PartialShape({2, 2, kDynamic, 5}));
    EXPECT_EQ(infos[2].shape, PartialShape({2, 2, 5}));
}

TEST(LstmCell, Errors) {
    const LstmCase c = make_case(lstm_spec(2, 1, 3, 4));
    auto with = [&](std::vector<IrAttribute> a) { return OpTester("LSTMCell", 4, std::move(a)); };
    // hidden_size disagrees with W/R/B.
    EXPECT_TRUE(throws_error(
        [&] {
            with({{"hidden_size", "6"}}).run(cell_inputs(c));
        },
        ErrorKind::ShapeRule, "shape-mismatch", "LSTMCell W is [16,3] but [24,3] is required (batch 2, hidden_size 6",
        3));
    // B of the wrong size.
    std::vector<Tensor> in = cell_inputs(c);
    in[5] = make_tensor(ElementType::f32, {12}, wave(12, 1));
    EXPECT_TRUE(throws_error(
        [&] {
            with({{"hidden_size", "4"}}).run(in);
        },
        ErrorKind::ShapeRule, "shape-mismatch", "LSTMCell B is [12] but [16] is required", 5));
    // Rank.
    in = cell_inputs(c);
    in[0] = make_tensor(ElementType::f32, {2, 1, 3}, wave(6, 1));
    EXPECT_TRUE(throws_error(
        [&] {
            with({{"hidden_size", "4"}}).run(in);
        },
        ErrorKind::ShapeRule, "rank-invalid", "X", 0));
    // Types.
    in = cell_inputs(c);
    in[3] = make_tensor(ElementType::f64, {16, 3}, c.w);
    EXPECT_TRUE(throws_error(
        [&] {
            with({{"hidden_size", "4"}}).run(in);
        },
        ErrorKind::Type, "element-type-mismatch", "W is f64", 3));
    in = cell_inputs(c);
    in[0] = make_tensor(ElementType::i32, {2, 3}, c.x);
    EXPECT_TRUE(throws_error(
        [&] {
            with({{"hidden_size", "4"}}).run(in);
        },
        ErrorKind::Type, "element-type-unsupported", "X", 0));
    // Attributes.
    EXPECT_TRUE(throws_error([&] { with({}).attrs(); }, ErrorKind::Attribute, "attribute-missing", "hidden_size"));
    EXPECT_TRUE(throws_error(
        [&] {
            with({{"hidden_size", "0"}}).attrs();
        },
        ErrorKind::Attribute, "attribute-invalid", "hidden_size"));
    EXPECT_TRUE(throws_error(
        [&] {
            with({{"hidden_size", "4"}, {"activations", "sigmoid,tanh,softsign"}}).attrs();
        },
        ErrorKind::Attribute, "attribute-invalid", "allowed: sigmoid, tanh, relu"));
    EXPECT_TRUE(throws_error(
        [&] {
            with({{"hidden_size", "4"}, {"activations", "sigmoid,tanh"}}).attrs();
        },
        ErrorKind::Attribute, "attribute-invalid", "3 required"));
    EXPECT_TRUE(throws_error(
        [&] {
            with({{"hidden_size", "4"}, {"clip", "-1"}}).attrs();
        },
        ErrorKind::Attribute, "attribute-invalid", "clip"));
}

TEST(LstmSequence, Errors) {
    Spec s = lstm_spec(2, 3, 3, 4);
    const LstmCase c = make_case(s);
    Spec bidir = s;
    bidir.direction = "bidirectional";
    EXPECT_TRUE(throws_error(
        [&] {
            OpTester("LSTMSequence", 5, attributes(bidir, true)).run(sequence_inputs(c, i64s({3, 3})));
        },
        ErrorKind::ShapeRule, "shape-mismatch",
        "LSTMSequence W is [1,16,3] but [2,16,3] is required (batch 2, num_directions 2", 4));
    // sequence_lengths of a float type.
    EXPECT_TRUE(throws_error(
        [&] {
            OpTester("LSTMSequence", 5, attributes(s, true)).run(sequence_inputs(c, make_tensor<float>({2}, {3, 3})));
        },
        ErrorKind::Type, "element-type-unsupported", "sequence_lengths must be an integer tensor", 3));
    // Lengths outside [0, T]: a run-time error, nothing read out of bounds.
    for (int64_t bad : {int64_t{4}, int64_t{-1}})
        EXPECT_TRUE(throws_error(
            [&] {
                OpTester("LSTMSequence", 5, attributes(s, true)).run(sequence_inputs(c, i64s({3, bad})));
            },
            ErrorKind::Value, "sequence-length-out-of-range", "sequence_lengths[1]", 3));
    // direction is required and checked.
    EXPECT_TRUE(throws_error(
        [&] {
            OpTester("LSTMSequence", 5, {{"hidden_size", "4"}}).attrs();
        },
        ErrorKind::Attribute, "attribute-missing", "direction"));
    EXPECT_TRUE(throws_error(
        [&] {
            OpTester("LSTMSequence", 5, {{"hidden_size", "4"}, {"direction", "both"}}).attrs();
        },
        ErrorKind::Attribute, "attribute-invalid", "direction"));
    // W rows not 4 * hidden_size.
    std::vector<Tensor> in = sequence_inputs(c, i64s({3, 3}));
    in[4] = make_tensor(ElementType::f32, {1, 12, 3}, wave(36, 1));
    EXPECT_TRUE(throws_error([&] { OpTester("LSTMSequence", 5, attributes(s, true)).run(in); }, ErrorKind::ShapeRule,
                             "shape-mismatch", "LSTMSequence W is [1,12,3] but [1,16,3] is required", 4));
}

}  // namespace
}  // namespace irlite
