// Divide-1 (opset1+): out = a / b, elementwise, with broadcasting.
// Inputs: 0 'a', 1 'b' (same element type). Attributes: auto_broadcast numpy (default) or none;
// m_pythondiv (default true): integer division rounds toward negative infinity (Python's //);
// false rounds toward zero (C++). Types: f16, bf16, f32, f64, i8..i64, u8..u64.
// Integer division by zero is an error naming the position in 'b' (OpenVINO's reference throws
// too); float division follows IEEE (inf, nan). INT_MIN / -1 wraps to INT_MIN.
#include <type_traits>

#include "kernels/detail/eltwise.hpp"

namespace irlite {
namespace {

using namespace detail;

struct DivideAttrs : BinaryAttrs {
    bool python_div = true;
};

template <bool kFloor>
struct IntegerDivide {
    template <class C>
    C operator()(C x, C y) const {
        if constexpr (std::is_signed_v<C>) {
            using U = std::make_unsigned_t<C>;
            if (y == -1) return static_cast<C>(U{0} - static_cast<U>(x));  // no INT_MIN / -1 overflow
            C q = static_cast<C>(x / y);
            if (kFloor && x % y != 0 && ((x < 0) != (y < 0))) --q;
            return q;
        } else {
            return static_cast<C>(x / y);
        }
    }
};

template <bool kFloor>
auto divide_fn() {
    // isa_loop: one IEEE division (or the integer functor) per element, at the CPU's vector width.
    return isa_loop([](auto a, auto b) {
        using C = typename decltype(a)::Scalar;
        if constexpr (std::is_integral_v<C>) return a.binaryExpr(b, IntegerDivide<kFloor>{});
        else return a / b;
    });
}

}  // namespace

OpDef make_divide_op() {
    OpDef d = make_binary_op<kArithmeticTypes, IntegerMath::Native>("Divide", 1, divide_fn<true>());
    d.parse_attrs = [](const AttrReader& r) -> std::unique_ptr<OpAttrs> {
        auto a = std::make_unique<DivideAttrs>();
        a->broadcast = static_cast<const BinaryAttrs&>(*parse_binary_attrs(r)).broadcast;
        a->python_div = r.get_bool("m_pythondiv", true);
        return a;
    };
    d.compute = [](KernelContext& ctx) {
        check_integer_divisor_not_zero(ctx, "division");
        const BroadcastPlan& rows = ctx.plan<BinaryPlan>().broadcast;
        if (ctx.attrs<DivideAttrs>().python_div) run_binary<kArithmeticTypes, IntegerMath::Native>(ctx, divide_fn<true>(), rows);
        else run_binary<kArithmeticTypes, IntegerMath::Native>(ctx, divide_fn<false>(), rows);
    };
    return d;
}

}  // namespace irlite
