// Maximum-1 and Minimum-1 (opset1+): elementwise max / min, with broadcasting.
// Inputs: 0 'a', 1 'b' (same element type). Attribute auto_broadcast: numpy (default) or none.
// Types: f16, bf16, f32, f64, i8..i64, u8..u64 (integers compare in their own signedness).
// NaN: like std::max/std::min on (a, b), the result is `a` when either is NaN... Eigen's
// max/min follow the same PropagateFast rule; documented, not relied upon by any model.
#include "kernels/detail/eltwise.hpp"

namespace irlite {

OpDef make_maximum_op() {
    using namespace detail;
    return make_binary_op<kArithmeticTypes, IntegerMath::Native>("Maximum", 1, [](auto a, auto b) { return a.max(b); });
}

OpDef make_minimum_op() {
    using namespace detail;
    return make_binary_op<kArithmeticTypes, IntegerMath::Native>("Minimum", 1, [](auto a, auto b) { return a.min(b); });
}

}  // namespace irlite
