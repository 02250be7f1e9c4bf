// SquaredDifference-1 (opset1+): out = (a - b)^2, elementwise, with broadcasting.
// Inputs: 0 'a', 1 'b' (same element type). Attribute auto_broadcast: numpy (default) or none.
// Types: f16, bf16, f32, f64, i8..i64, u8..u64; integers wrap (modular arithmetic gives the same
// bits as the wrapped signed result).
#include "kernels/detail/eltwise.hpp"

namespace irlite {

OpDef make_squared_difference_op() {
    return detail::make_binary_op<detail::kArithmeticTypes>("SquaredDifference", 1,
                                                            [](auto a, auto b) { return (a - b) * (a - b); });
}

}  // namespace irlite
