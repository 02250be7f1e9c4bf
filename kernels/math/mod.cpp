// Mod-1 and FloorMod-1 (opset1+): the remainder of a / b, elementwise, with broadcasting
// (numpy default, or none). Mod truncates (the result has the sign of the dividend, C's % and
// fmod); FloorMod floors (the sign of the divisor, Python's %). Types: f16, bf16, f32, f64,
// i8..i64, u8..u64. An integer remainder by zero is an error naming the position in 'b'; a float
// one is NaN (IEEE). x % -1 is 0 for every x (no INT_MIN % -1 overflow).
#include <cmath>
#include <type_traits>

#include "kernels/detail/eltwise.hpp"

namespace irlite {
namespace {

using namespace detail;

template <bool kFloor>
struct Remainder {
    template <class C>
    C operator()(C x, C y) const {
        C r;
        if constexpr (std::is_floating_point_v<C>) {
            r = std::fmod(x, y);
        } else if constexpr (std::is_signed_v<C>) {
            if (y == -1) return C(0);
            r = static_cast<C>(x % y);
        } else {
            return static_cast<C>(x % y);  // unsigned: both rules agree
        }
        if (kFloor && r != C(0) && ((r < C(0)) != (y < C(0)))) r = static_cast<C>(r + y);
        return r;
    }
};

template <bool kFloor>
auto remainder_fn() {
    return [](auto a, auto b) {
        using C = typename decltype(a)::Scalar;
        return a.binaryExpr(b, [](C x, C y) { return Remainder<kFloor>{}(x, y); });
    };
}

template <bool kFloor>
OpDef make_remainder_op(const char* type) {
    OpDef d = make_binary_op<kArithmeticTypes, IntegerMath::Native>(type, 1, remainder_fn<kFloor>());
    d.compute = [](KernelContext& ctx) {
        check_integer_divisor_not_zero(ctx, "remainder");
        run_binary<kArithmeticTypes, IntegerMath::Native>(ctx, remainder_fn<kFloor>(), ctx.plan<BinaryPlan>().broadcast);
    };
    return d;
}

}  // namespace

OpDef make_mod_op() { return make_remainder_op<false>("Mod"); }
OpDef make_floor_mod_op() { return make_remainder_op<true>("FloorMod"); }

}  // namespace irlite
