// Power-1 (opset1+): out = a ^ b, elementwise, with broadcasting.
// Inputs: 0 'a', 1 'b' (same element type). Attribute auto_broadcast: numpy (default) or none.
// Types: f16, bf16, f32, f64 (std::pow), i8..i64, u8..u64 (exact integer power by squaring,
// wrapping on overflow; a negative exponent gives 1 for a = 1, +-1 for a = -1 and 0 otherwise,
// as integer division 1 / a^|b| would).
#include <cmath>
#include <type_traits>

#include "kernels/detail/eltwise.hpp"

namespace irlite {
namespace {

using namespace detail;

struct IntegerPower {
    template <class C>
    C operator()(C base, C exponent) const {
        if constexpr (std::is_signed_v<C>) {
            if (exponent < 0) {
                if (base == 1) return 1;
                if (base == -1) return (exponent % 2 == 0) ? 1 : -1;
                return 0;
            }
        }
        using U = std::make_unsigned_t<C>;
        U result = 1, b = static_cast<U>(base);
        for (auto e = static_cast<U>(exponent); e; e >>= 1) {
            if (e & 1u) result = static_cast<U>(result * b);
            b = static_cast<U>(b * b);
        }
        return static_cast<C>(result);
    }
};

struct FloatPower {
    template <class C>
    C operator()(C a, C b) const {
        return std::pow(a, b);
    }
};

auto power_fn() {
    return [](auto a, auto b) {
        using C = typename decltype(a)::Scalar;
        if constexpr (std::is_integral_v<C>) return a.binaryExpr(b, IntegerPower{});
        else return a.binaryExpr(b, FloatPower{});
    };
}

// A constant exponent of 2 (LayerNorm's variance, squared errors) is a product: exact, and an
// order of magnitude faster than pow per element.
struct PowerPlan : BinaryPlan {
    bool square = false;
};

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    auto plan = std::make_unique<PowerPlan>();
    static_cast<BinaryPlan&>(*plan) = static_cast<const BinaryPlan&>(*prepare_binary(ctx, kArithmeticTypes));
    const Tensor* exponent = ctx.value(1);
    if (exponent && exponent->num_elements() > 0 && (kFloatTypes & type_bit(ctx.type(0)))) {
        bool all_two = true;
        for (int64_t i = 0; i < exponent->num_elements() && all_two; ++i) all_two = exponent->value_as_double(i) == 2.0;
        // Only when the exponent does not change the output's shape (it broadcasts into a).
        plan->square = all_two && broadcast_shapes(ctx.shape(0), ctx.shape(1), ctx.attrs<BinaryAttrs>().broadcast) == ctx.shape(0);
    }
    if (plan->square) plan->method = "square";
    return plan;
}

void compute(KernelContext& ctx) {
    const PowerPlan& plan = ctx.plan<PowerPlan>();
    if (plan.square)
        run_binary<kFloatTypes, IntegerMath::Native>(ctx, [](auto a, auto) { return a * a; }, plan.broadcast);
    else
        run_binary<kArithmeticTypes, IntegerMath::Native>(ctx, power_fn(), plan.broadcast);
}

}  // namespace

OpDef make_power_op() {
    OpDef d = make_binary_op<kArithmeticTypes, IntegerMath::Native>("Power", 1, power_fn());
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace irlite
