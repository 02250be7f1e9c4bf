// LSTMCell-1 (opset1..3), LSTMCell-4 (opset4+) and LSTMSequence-5 (opset5+): long short-term
// memory, gate order f, i, c, o, computed by the recurrent core (kernels/detail/recurrent.hpp,
// which documents the kernel and every convention).
//
//   f = f(Xt Wf^T + Ht-1 Rf^T + Bf)     i = f(Xt Wi^T + Ht-1 Ri^T + Bi)
//   c = g(Xt Wc^T + Ht-1 Rc^T + Bc)     o = f(Xt Wo^T + Ht-1 Ro^T + Bo)
//   Ct = f (.) Ct-1 + i (.) c           Ht = o (.) h(Ct)
//
// LSTMCell-4: inputs 0 X [N, I], 1 initial_hidden_state [N, H], 2 initial_cell_state [N, H],
// 3 W [4H, I], 4 R [4H, H], 5 B [4H] (optional: zeros); outputs Ho [N, H], Co [N, H].
// LSTMCell-1: the same, plus 6 P [3H] (optional peepholes, order i, o, f: i and f add P (.) Ct-1,
// o adds P (.) Ct, before clip and activation) and the attribute input_forget (f = 1 - i).
// LSTMSequence-5: 0 X [N, T, I], 1 initial_hidden_state [N, D, H], 2 initial_cell_state
// [N, D, H], 3 sequence_lengths [N] (i32/i64, each in [0, T], else a run-time error), 4 W
// [D, 4H, I], 5 R [D, 4H, H], 6 B [D, 4H]; outputs Y [N, D, T, H], Ho [N, D, H], Co [N, D, H].
// Attributes: hidden_size (required), activations (f, g, h; default sigmoid, tanh, tanh),
// activations_alpha/beta, clip (0: none), direction (sequence: forward, reverse, bidirectional).
#include "kernels/detail/recurrent.hpp"

namespace irlite {

using rnn::Cell;
using rnn::kNoPort;

OpDef make_lstm_cell_1_op() {
    static const rnn::RecurrentOp op{"LSTMCell", Cell::Lstm, false, 0, 1, 2, kNoPort, 3, 4, 5, 6};
    OpDef d = rnn::make_recurrent_op(op, "LSTMCell", 1,
                                     {"X", "initial_hidden_state", "initial_cell_state", "W", "R", "B", "P"}, 5);
    d.last_opset = 3;
    return d;
}

OpDef make_lstm_cell_4_op() {
    static const rnn::RecurrentOp op{"LSTMCell", Cell::Lstm, false, 0, 1, 2, kNoPort, 3, 4, 5, kNoPort};
    OpDef d = rnn::make_recurrent_op(op, "LSTMCell", 4,
                                     {"X", "initial_hidden_state", "initial_cell_state", "W", "R", "B"}, 5);
    d.first_opset = 4;
    return d;
}

OpDef make_lstm_sequence_5_op() {
    static const rnn::RecurrentOp op{"LSTMSequence", Cell::Lstm, true, 0, 1, 2, 3, 4, 5, 6, kNoPort};
    OpDef d = rnn::make_recurrent_op(
        op, "LSTMSequence", 5, {"X", "initial_hidden_state", "initial_cell_state", "sequence_lengths", "W", "R", "B"},
        7);
    d.first_opset = 5;
    return d;
}

}  // namespace irlite
