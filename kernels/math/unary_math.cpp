// Unary math ops (OpenVINO opset specs), opset1+ unless noted; input 0 'data', output of the same
// type and shape; no attributes unless noted.
//   Exp-1: f16, bf16, f32, f64 (the spec allows floating-point types only).
//   Log-1, Sqrt-1, Erf-1, Sin-1, Cos-1, Tan-1, Asin-1, Acos-1, Atan-1, Sinh-1, Cosh-1: every numeric
//     type; integers are computed in f64 and rounded to the nearest integer (the spec's rule for
//     Sqrt: sqrt([4, 7, 9, 10]) = [2, 3, 3, 3]), saturating, NaN (Log or Sqrt of a negative) -> 0.
//     Floats follow IEEE: Log(0) = -inf, Log(-1) = Sqrt(-1) = NaN.
//   Abs-1, Sign-1: every numeric type (Abs(INT_MIN) wraps to INT_MIN; Sign(NaN) = NaN).
//   Negative-1: signed types only (floats, i8..i64); Negative(INT_MIN) wraps to INT_MIN.
//   Floor-1, Ceiling-1: every numeric type (integers unchanged).
//   Round-5 (attribute mode: half_to_even (default) or half_away_from_zero): every numeric type
//     (integers unchanged).
//   LogicalNot-1: boolean only.
#include <unsupported/Eigen/SpecialFunctions>

#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/detail/unary.hpp"
#include "kernels/detail/vec_math.hpp"

namespace irlite {
namespace {

// exp(x), and exactly 0 where exp underflows: Eigen's vectorised exp clamps its argument, so that
// exp(-inf) would be ~1e-38 (f32) rather than 0. Vectorised through Eigen's packet primitives (a
// select over a bool mask would make Eigen 3.4 fall back to scalar code).
template <class C>
struct ExpOrZero {
    // Below log(smallest normal) the result is subnormal or 0; flushing it to 0 loses < 1e-38.
    const C lowest = std::log(std::numeric_limits<C>::min());

    C operator()(const C& x) const { return x < lowest ? C(0) : std::exp(x); }
    template <class Packet>
    Packet packetOp(const Packet& x) const {
        using namespace Eigen::internal;
        return pselect(pcmp_lt(x, pset1<Packet>(lowest)), pzero(x), pexp(x));
    }
};

}  // namespace
}  // namespace irlite

template <class C>
struct Eigen::internal::functor_traits<irlite::ExpOrZero<C>> {
    enum { Cost = functor_traits<scalar_exp_op<C>>::Cost + 2, PacketAccess = packet_traits<C>::HasExp };
};

namespace irlite {
namespace {

using namespace detail;

constexpr TypeMask kSignedTypes = kFloatTypes | type_bit(ElementType::i8) | type_bit(ElementType::i16) |
                                  type_bit(ElementType::i32) | type_bit(ElementType::i64);

// A float function that integer inputs reach through f64 (rounded, see unary.hpp).
template <class Fn>
OpDef make_math_op(std::string type, Fn fn) {
    return make_unary_op<kArithmeticTypes, UnaryIntegers::ViaDouble>(std::move(type), 1, fn);
}

// -v without signed-overflow UB: integers negate in their unsigned twin (INT_MIN stays INT_MIN).
template <class C>
C wrapping_negate(C v) {
    if constexpr (std::is_floating_point_v<C>)
        return -v;
    else
        return static_cast<C>(std::make_unsigned_t<C>{0} - static_cast<std::make_unsigned_t<C>>(v));
}

struct RoundAttrs : OpAttrs {
    bool half_to_even = true;
};

}  // namespace

OpDef make_exp_op() {
    return make_unary_op<kFloatTypes>("Exp", 1, [](const NoAttrs&, auto x) {
        using C = typename decltype(x)::Scalar;
        return x.unaryExpr(ExpOrZero<C>{});
    });
}

OpDef make_log_op() { return make_math_op("Log", [](const NoAttrs&, auto x) { return x.log(); }); }
OpDef make_sqrt_op() { return make_math_op("Sqrt", [](const NoAttrs&, auto x) { return x.sqrt(); }); }
// f32 (and f16/bf16, computed in f32): vec_math's erf_f32 at the CPU's level, the same bits at
// every level; f64 and integers: Eigen's erf.
OpDef make_erf_op() {
    return make_math_op("Erf", isa_loop_f32([](const NoAttrs&, auto x) {
                            using C = typename decltype(x)::Scalar;
                            if constexpr (std::is_same_v<C, float>)
                                return x.unaryExpr([](float v) { return vmath::erf_f32(v); });
                            else
                                return x.erf();
                        }));
}
OpDef make_sin_op() { return make_math_op("Sin", [](const NoAttrs&, auto x) { return x.sin(); }); }
OpDef make_cos_op() { return make_math_op("Cos", [](const NoAttrs&, auto x) { return x.cos(); }); }
OpDef make_tan_op() { return make_math_op("Tan", [](const NoAttrs&, auto x) { return x.tan(); }); }
OpDef make_asin_op() { return make_math_op("Asin", [](const NoAttrs&, auto x) { return x.asin(); }); }
OpDef make_acos_op() { return make_math_op("Acos", [](const NoAttrs&, auto x) { return x.acos(); }); }
OpDef make_atan_op() { return make_math_op("Atan", [](const NoAttrs&, auto x) { return x.atan(); }); }
OpDef make_sinh_op() { return make_math_op("Sinh", [](const NoAttrs&, auto x) { return x.sinh(); }); }
OpDef make_cosh_op() { return make_math_op("Cosh", [](const NoAttrs&, auto x) { return x.cosh(); }); }
// Version 3 (in opset4 and later).
OpDef make_asinh_op() {
    OpDef d = make_unary_op<kArithmeticTypes, UnaryIntegers::ViaDouble>("Asinh", 3, [](const NoAttrs&, auto x) { return x.asinh(); });
    d.first_opset = 4;  // version 3, first listed in opset4
    return d;
}
OpDef make_acosh_op() {
    OpDef d = make_unary_op<kArithmeticTypes, UnaryIntegers::ViaDouble>("Acosh", 3, [](const NoAttrs&, auto x) { return x.acosh(); });
    d.first_opset = 4;  // version 3, first listed in opset4
    return d;
}
OpDef make_atanh_op() {
    OpDef d = make_unary_op<kArithmeticTypes, UnaryIntegers::ViaDouble>("Atanh", 3, [](const NoAttrs&, auto x) { return x.atanh(); });
    d.first_opset = 4;  // version 3, first listed in opset4
    return d;
}

OpDef make_abs_op() {
    return make_unary_op<kArithmeticTypes, UnaryIntegers::Native>("Abs", 1, [](const NoAttrs&, auto x) {
        using C = typename decltype(x)::Scalar;
        if constexpr (std::is_floating_point_v<C>)
            return x.abs();
        else if constexpr (std::is_unsigned_v<C>)
            return x;
        else
            return x.unaryExpr([](C v) { return v < 0 ? wrapping_negate(v) : v; });
    });
}

OpDef make_negative_op() {
    return make_unary_op<kSignedTypes, UnaryIntegers::Native>("Negative", 1, [](const NoAttrs&, auto x) {
        using C = typename decltype(x)::Scalar;
        if constexpr (std::is_floating_point_v<C>)
            return -x;
        else
            return x.unaryExpr([](C v) { return wrapping_negate(v); });
    });
}

OpDef make_sign_op() {
    return make_unary_op<kArithmeticTypes, UnaryIntegers::Native>("Sign", 1, [](const NoAttrs&, auto x) {
        using C = typename decltype(x)::Scalar;
        return x.unaryExpr([](C v) -> C {
            if constexpr (std::is_floating_point_v<C>)
                if (v != v) return v;  // NaN
            return static_cast<C>((C(0) < v) - (v < C(0)));
        });
    });
}

OpDef make_floor_op() {
    return make_unary_op<kArithmeticTypes, UnaryIntegers::Identity>("Floor", 1,
                                                                    [](const NoAttrs&, auto x) { return x.floor(); });
}

OpDef make_ceiling_op() {
    return make_unary_op<kArithmeticTypes, UnaryIntegers::Identity>("Ceiling", 1,
                                                                    [](const NoAttrs&, auto x) { return x.ceil(); });
}

OpDef make_round_op() {
    OpDef d = unary_op_def("Round", 5, kArithmeticTypes);
    d.parse_attrs = [](const AttrReader& r) -> std::unique_ptr<OpAttrs> {
        auto a = std::make_unique<RoundAttrs>();
        a->half_to_even =
            r.get_enum("mode", {"half_to_even", "half_away_from_zero"}, "half_to_even") == "half_to_even";
        return a;
    };
    // rint rounds halves to even in the default floating-point environment; round, away from 0.
    d.compute = [](KernelContext& ctx) {
        const auto& attrs = ctx.attrs<RoundAttrs>();
        if (attrs.half_to_even)
            run_unary<kArithmeticTypes, UnaryIntegers::Identity>(ctx, attrs,
                                                                 [](const RoundAttrs&, auto x) { return x.rint(); });
        else
            run_unary<kArithmeticTypes, UnaryIntegers::Identity>(ctx, attrs,
                                                                 [](const RoundAttrs&, auto x) { return x.round(); });
    };
    return d;
}

OpDef make_logical_not_op() {
    return make_unary_op<type_bit(ElementType::boolean)>("LogicalNot", 1, [](const NoAttrs&, auto x) { return !x; });
}

}  // namespace irlite
