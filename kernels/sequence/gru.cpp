// GRUCell-3 (opset3+) and GRUSequence-5 (opset5+): gated recurrent unit, gate order z, r, h,
// computed by the recurrent core (kernels/detail/recurrent.hpp, which documents the kernel and
// every convention).
//
//   z = f(Xt Wz^T + Ht-1 Rz^T + Bz)     r = f(Xt Wr^T + Ht-1 Rr^T + Br)
//   h = g(Xt Wh^T + (r (.) Ht-1) Rh^T + Wbh + Rbh)            linear_before_reset = false
//   h = g(Xt Wh^T + Wbh + r (.) (Ht-1 Rh^T + Rbh))             linear_before_reset = true
//   Ht = (1 - z) (.) h + z (.) Ht-1
//
// GRUCell-3: inputs 0 X [N, I], 1 initial_hidden_state [N, H], 2 W [3H, I], 3 R [3H, H], 4 B
// (optional: zeros) [3H], or [4H] with linear_before_reset: Wbz+Rbz, Wbr+Rbr, Wbh, Rbh (OpenVINO's
// reference layout, pinned by its GRUCell test vector); output Ho [N, H].
// GRUSequence-5: 0 X [N, T, I], 1 initial_hidden_state [N, D, H], 2 sequence_lengths [N] (i32/i64,
// each in [0, T], else a run-time error), 3 W [D, 3H, I], 4 R [D, 3H, H], 5 B [D, 3H] or [D, 4H];
// outputs Y [N, D, T, H], Ho [N, D, H].
// Attributes: hidden_size (required), activations (f, g; default sigmoid, tanh),
// activations_alpha/beta, clip (0: none), linear_before_reset (default false), direction
// (sequence: forward, reverse, bidirectional).
#include "kernels/detail/recurrent.hpp"

namespace irlite {

using rnn::Cell;
using rnn::kNoPort;

OpDef make_gru_cell_3_op() {
    static const rnn::RecurrentOp op{"GRUCell", Cell::Gru, false, 0, 1, kNoPort, kNoPort, 2, 3, 4, kNoPort};
    OpDef d = rnn::make_recurrent_op(op, "GRUCell", 3, {"X", "initial_hidden_state", "W", "R", "B"}, 4);
    d.first_opset = 3;
    return d;
}

OpDef make_gru_sequence_5_op() {
    static const rnn::RecurrentOp op{"GRUSequence", Cell::Gru, true, 0, 1, kNoPort, 2, 3, 4, 5, kNoPort};
    OpDef d = rnn::make_recurrent_op(op, "GRUSequence", 5,
                                     {"X", "initial_hidden_state", "sequence_lengths", "W", "R", "B"}, 6);
    d.first_opset = 5;
    return d;
}

}  // namespace irlite
