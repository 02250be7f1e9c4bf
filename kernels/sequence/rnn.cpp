// RNNCell-3 (opset1, opset3+) and RNNSequence-5 (opset5+): the plain recurrent cell
//   Ht = f(Xt W^T + Ht-1 R^T + B)
// computed by the recurrent core (kernels/detail/recurrent.hpp, which documents the kernel and
// every convention).
//
// RNNCell-3: inputs 0 X [N, I], 1 initial_hidden_state [N, H], 2 W [H, I], 3 R [H, H], 4 B [H]
// (optional: zeros); output Ho [N, H].
// RNNSequence-5: 0 X [N, T, I], 1 initial_hidden_state [N, D, H], 2 sequence_lengths [N]
// (i32/i64, each in [0, T], else a run-time error), 3 W [D, H, I], 4 R [D, H, H], 5 B [D, H];
// outputs Y [N, D, T, H], Ho [N, D, H].
// Attributes: hidden_size (required), activations (f; default tanh), activations_alpha/beta, clip
// (0: none), direction (sequence: forward, reverse, bidirectional).
#include "kernels/detail/recurrent.hpp"

namespace irlite {

using rnn::Cell;
using rnn::kNoPort;

namespace {

// RNNCell-3 is in opset1 and again from opset3 on (not in opset2): one definition per run.
OpDef make_rnn_cell(int first, int last) {
    static const rnn::RecurrentOp op{"RNNCell", Cell::Rnn, false, 0, 1, kNoPort, kNoPort, 2, 3, 4, kNoPort};
    OpDef d = rnn::make_recurrent_op(op, "RNNCell", 3, {"X", "initial_hidden_state", "W", "R", "B"}, 4);
    d.first_opset = first;
    d.last_opset = last;
    return d;
}

}  // namespace

OpDef make_rnn_cell_3_opset1_op() { return make_rnn_cell(1, 1); }
OpDef make_rnn_cell_3_op() { return make_rnn_cell(3, kLatestOpset); }

OpDef make_rnn_sequence_5_op() {
    static const rnn::RecurrentOp op{"RNNSequence", Cell::Rnn, true, 0, 1, kNoPort, 2, 3, 4, 5, kNoPort};
    OpDef d = rnn::make_recurrent_op(op, "RNNSequence", 5,
                                     {"X", "initial_hidden_state", "sequence_lengths", "W", "R", "B"}, 6);
    d.first_opset = 5;
    return d;
}

}  // namespace irlite
