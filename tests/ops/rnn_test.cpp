// RNNCell-3 (opset1 and opset3+) and RNNSequence-5 against a direct double-precision reference
// (recurrent_test_util.hpp): every activation, clip, directions with sequence_lengths, batch and
// time larger than a GEMM tile, run-time weights, types, and the errors.
#include "recurrent_test_util.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;
using namespace irlite::testing::recurrent;

struct RnnCase {
    Spec spec;
    std::vector<double> x, h0, w, r, b;
};

RnnCase make_case(int64_t n, int64_t t, int64_t i, int64_t h, const char* activation = "tanh",
                  const char* direction = "forward") {
    RnnCase c;
    Spec& s = c.spec;
    s.cell = "rnn";
    s.n = n, s.t = t, s.i = i, s.h = h;
    s.acts = {activation};
    s.direction = direction;
    s.d = s.direction == "bidirectional" ? 2 : 1;
    const auto sz = [](int64_t v) { return static_cast<size_t>(v); };
    c.x = wave(sz(n * t * i), 0.5);
    c.h0 = wave(sz(n * s.d * h), 1.25, 0.7);
    c.w = wave(sz(s.d * h * i), 2.25, 0.5);
    c.r = wave(sz(s.d * h * h), 3.25, 0.5);
    c.b = wave(sz(s.d * h), 4.25, 0.3);
    return c;
}

std::vector<Tensor> cell_inputs(const RnnCase& c, ElementType type = ElementType::f32) {
    const Spec& s = c.spec;
    return {make_tensor(type, {s.n, s.i}, c.x), make_tensor(type, {s.n, s.h}, c.h0), make_tensor(type, {s.h, s.i}, c.w),
            make_tensor(type, {s.h, s.h}, c.r), make_tensor(type, {s.h}, c.b)};
}

std::vector<Tensor> sequence_inputs(const RnnCase& c, const Tensor& lengths, ElementType type = ElementType::f32) {
    const Spec& s = c.spec;
    return {make_tensor(type, {s.n, s.t, s.i}, c.x),
            make_tensor(type, {s.n, s.d, s.h}, c.h0),
            lengths,
            make_tensor(type, {s.d, s.h, s.i}, c.w),
            make_tensor(type, {s.d, s.h, s.h}, c.r),
            make_tensor(type, {s.d, s.h}, c.b)};
}

TEST(RnnCell, EveryActivationAndClipInBothOpsets) {
    for (int opset : {1, 3})
        for (const char* a : {"tanh", "sigmoid", "relu"})
            for (double clip : {0.0, 0.3}) {
                RnnCase c = make_case(2, 1, 3, 4, a);
                c.spec.clip = clip;
                const Tensor out = OpTester("RNNCell", opset, attributes(c.spec, false)).run1(cell_inputs(c));
                EXPECT_TRUE(near(out, reference(c.spec, c.x, c.h0, {}, c.w, c.r, c.b, {}, {}).ho, 1e-5))
                    << a << " " << clip;
            }
}

TEST(RnnCell, DefaultsTypesAndRunTimeWeights) {
    const RnnCase c = make_case(3, 1, 2, 3);
    const OpTester op("RNNCell", 3, {{"hidden_size", "3"}});  // activations default: tanh; no clip
    const Result want = reference(c.spec, c.x, c.h0, {}, c.w, c.r, c.b, {}, {});
    const Tensor packed = op.run1(cell_inputs(c));
    EXPECT_TRUE(near(packed, want.ho, 1e-5));
    EXPECT_TRUE(tensors_equal(op.run_kernel(cell_inputs(c), {2, 3, 4})[0], packed));
    EXPECT_TRUE(near(op.run1(cell_inputs(c, ElementType::f64)), want.ho, 1e-12));
    EXPECT_TRUE(near(op.run1(cell_inputs(c, ElementType::bf16)), want.ho, 5e-2));
}

TEST(RnnSequence, DirectionsLengthsAndLargeSizes) {
    for (const char* direction : {"forward", "reverse", "bidirectional"}) {
        const RnnCase c = make_case(3, 4, 3, 5, "tanh", direction);
        const std::vector<int64_t> lengths = {3, 4, 1};
        const auto out =
            OpTester("RNNSequence", 5, attributes(c.spec, true)).run(sequence_inputs(c, i64s(lengths)), {0, 1, 2});
        const Result want = reference(c.spec, c.x, c.h0, {}, c.w, c.r, c.b, {}, lengths);
        EXPECT_TRUE(near(out[0], want.y, 1e-5)) << direction;
        EXPECT_TRUE(near(out[1], want.ho, 1e-5)) << direction;
    }
    // More rows and columns than one GEMM tile, T larger than the batch.
    RnnCase big = make_case(9, 20, 40, 70, "relu", "bidirectional");
    big.spec.clip = 2.0;
    // A contracting recurrence (small R), so that the GEMM's summation order, which differs
    // between instruction-set levels, moves the result by rounding only.
    for (double& v : big.r) v *= 0.1;
    const auto out = OpTester("RNNSequence", 5, attributes(big.spec, true))
                         .run(sequence_inputs(big, i64s({20, 19, 1, 0, 20, 7, 20, 20, 3})));
    const Result want =
        reference(big.spec, big.x, big.h0, {}, big.w, big.r, big.b, {}, {20, 19, 1, 0, 20, 7, 20, 20, 3});
    EXPECT_TRUE(near(out[0], want.y, 1e-4));
    EXPECT_TRUE(near(out[1], want.ho, 1e-4));
}

TEST(RnnSequence, EmptyBatchTimeAndInput) {
    // T = 0: Y is empty, Ho the initial state. N = 0: empty outputs. I = 0: no input projection.
    for (const auto& dims : std::vector<std::vector<int64_t>>{{2, 0, 3}, {0, 3, 3}, {2, 3, 0}}) {
        const RnnCase c = make_case(dims[0], dims[1], dims[2], 4, "tanh", "bidirectional");
        const auto out =
            OpTester("RNNSequence", 5, attributes(c.spec, true))
                .run(sequence_inputs(c, i64s(std::vector<int64_t>(static_cast<size_t>(dims[0]), dims[1]))));
        const Result want = reference(c.spec, c.x, c.h0, {}, c.w, c.r, c.b, {}, {});
        EXPECT_TRUE(near(out[0], want.y, 1e-5)) << dims[0] << " " << dims[1] << " " << dims[2];
        EXPECT_TRUE(near(out[1], want.ho, 1e-5)) << dims[0] << " " << dims[1] << " " << dims[2];
    }
}

TEST(RnnCell, Errors) {
    const RnnCase c = make_case(2, 1, 3, 4);
    std::vector<Tensor> in = cell_inputs(c);
    in[1] = make_tensor(ElementType::f32, {3, 4}, wave(12, 1));
    EXPECT_TRUE(throws_error([&] { OpTester("RNNCell", 3, attributes(c.spec, false)).run(in); }, ErrorKind::ShapeRule,
                             "shape-mismatch", "RNNCell initial_hidden_state is [3,4] but [2,4] is required", 1));
    EXPECT_TRUE(throws_error(
        [&] {
            OpTester("RNNCell", 3, {{"hidden_size", "4"}, {"activations", "softsign_typo"}}).attrs();
        },
        ErrorKind::Attribute, "attribute-invalid", "\"softsign_typo\" is not an activation function"));
    const RnnCase s = make_case(2, 3, 3, 4);
    std::vector<Tensor> seq = sequence_inputs(s, i64s({3, 3}));
    seq[4] = make_tensor(ElementType::f32, {1, 5, 4}, wave(20, 1));
    EXPECT_TRUE(throws_error([&] { OpTester("RNNSequence", 5, attributes(s.spec, true)).run(seq); },
                             ErrorKind::ShapeRule, "shape-mismatch", "RNNSequence R is [1,5,4] but [1,4,4] is required",
                             4));
}

}  // namespace
}  // namespace irlite
