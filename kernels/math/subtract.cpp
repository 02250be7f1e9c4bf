// Subtract-1 (opset1+): out = a - b, elementwise, with broadcasting.
// Inputs: 0 'a', 1 'b' (same element type). Attribute auto_broadcast: numpy (default) or none.
// Types: f16, bf16, f32, f64, i8..i64, u8..u64; integers wrap.
#include "kernels/detail/eltwise.hpp"

namespace irlite {

OpDef make_subtract_op() {
    OpDef d = detail::make_binary_op<detail::kArithmeticTypes>("Subtract", 1, detail::isa_loop([](auto a, auto b) { return a - b; }));
    d.is_subtract = true;  // the weight-compression pass: the zero point of dequantized weights
    return d;
}

}  // namespace irlite
