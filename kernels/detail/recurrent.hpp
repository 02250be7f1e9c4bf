// The recurrent core shared by LSTMCell-1/4, LSTMSequence-5, GRUCell-3, GRUSequence-5, RNNCell-3
// and RNNSequence-5 (kernels/sequence/lstm.cpp, gru.cpp, rnn.cpp): their attributes, one shape
// rule, one prepare and one kernel, told apart by a RecurrentOp (cell kind, cell or sequence, the
// input ports). Each op file only names its ports and roles.
//
// A cell is run as a sequence of one step in one direction: X [N, I] is X [N, 1, I], the states
// [N, H] are [N, 1, H]. Per direction d the kernel
//   1. projects every time step's input at once: Xp[N*T, G*H] = X[N*T, I] * W_d^T + bias, one GEMM
//      (the bias, the summed input and recurrence biases, fused in the GEMM's epilogue);
//   2. per step, one small GEMM for the recurrence Hp[N, G*H] = H[N, H] * R_d^T, then the gates
//      of each batch row in place (Hp += Xp row of the step; clip; activation per gate; state
//      update), writing Y, then the final states.
// f32 (and f16/bf16 read as f32, which a compiled model never has: the precision pass computes
// those in f32) goes through the packed sgemm, W and R packed once in prepare when constant; f64
// through Eigen's GEMM. Work buffers (projections, gates, states) live in scratch after the GEMM's
// own per-thread scratch: compute allocates nothing for f32 and f64 (f16/bf16 inputs outside a
// compiled model are converted into temporary buffers). GEMM tiles run on the pool; every element
// is summed in the same order for any thread count, and the gate loops are chunked by rows only.
//
// Conventions (../shared/conformance/subgraphs/README.md, OpenVINO's specifications):
//   - gate order LSTM f, i, c, o; GRU z, r, h; B holds the summed biases per gate; GRU with
//     linear_before_reset has B [4H] = Wbz+Rbz, Wbr+Rbr, Wbh, Rbh (Rbh inside the reset product);
//   - clip > 0 clamps every gate's pre-activation to [-clip, clip]; the LSTM cell state reaches h()
//     unclipped; clip = 0 (the default) clips nothing; a negative clip is an attribute error;
//   - activations: sigmoid, tanh, relu (the specification's list, case-insensitive); alpha/beta are
//     read (one per activation, by position) and unused by these three;
//   - sequences are batch first: X [N, T, I], states [N, D, H], Y [N, D, T, H]; bidirectional runs
//     direction 0 forward and 1 in reverse;
//   - sequence_lengths (i32/i64 [N]): batch n runs its first L = sequence_lengths[n] steps; Y is
//     zero for t >= L, Ho/Co are the state after its last step (the initial state when L = 0);
//     the reverse direction reads t = L-1 .. 0. A value outside [0, T] is a run-time error (Value,
//     "sequence-length-out-of-range"), never an out-of-bounds read;
//   - LSTMCell-1: optional B (zeros when absent) and P [3H] peepholes in the order i, o, f:
//     i and f add P (.) C(t-1), o adds P (.) C(t) before their clip and activation;
//     input_forget couples the input and forget gates: f = 1 - i.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/op.hpp"

namespace irlite::rnn {

enum class Cell : uint8_t { Lstm, Gru, Rnn };
enum class Direction : uint8_t { Forward, Reverse, Bidirectional };

struct Activation {
    enum class Kind : uint8_t { Sigmoid, Tanh, Relu };
    Kind kind = Kind::Sigmoid;
    float alpha = 0, beta = 0;
};

struct RecurrentAttrs : OpAttrs {
    int64_t hidden_size = 0;
    std::vector<Activation> activations;  // f, g, h (LSTM); f, g (GRU); f (RNN)
    float clip = 0;                       // 0: none
    Direction direction = Direction::Forward;
    bool linear_before_reset = false;  // GRU
    bool input_forget = false;         // LSTMCell-1
};

inline constexpr size_t kNoPort = static_cast<size_t>(-1);

// What tells the six ops apart.
struct RecurrentOp {
    const char* name;  // "LSTMCell", for messages
    Cell cell;
    bool sequence;
    size_t x, h, c, lengths, w, r, b, p;  // input ports; kNoPort when the op has none
};

// Attributes: hidden_size (required, >= 1), activations, activations_alpha, activations_beta, clip;
// direction (sequences, required); linear_before_reset (GRU); input_forget (LSTMCell-1).
std::unique_ptr<OpAttrs> parse_attrs(const AttrReader& r, const RecurrentOp& op);
std::vector<OutputInfo> infer(const InferContext& ctx, const RecurrentOp& op);
std::unique_ptr<OpPlan> prepare(const InferContext& ctx, const RecurrentOp& op);
void compute(KernelContext& ctx);

// An OpDef with the op's ports, attributes, rule, prepare and kernel (type, version, roles and
// output count are the caller's).
OpDef make_recurrent_op(const RecurrentOp& op, const char* type, int version, std::vector<std::string> roles,
                        int min_inputs);

}  // namespace irlite::rnn
