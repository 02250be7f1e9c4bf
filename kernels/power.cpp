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

}  // namespace

OpDef make_power_op() {
    return make_binary_op<kArithmeticTypes, IntegerMath::Native>("Power", 1, [](auto a, auto b) {
        using C = typename decltype(a)::Scalar;
        if constexpr (std::is_integral_v<C>) return a.binaryExpr(b, IntegerPower{});
        else return a.binaryExpr(b, FloatPower{});
    });
}

}  // namespace irlite
