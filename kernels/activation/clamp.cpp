// Clamp-1 (OpenVINO opset1 spec): min(max(x, min), max) elementwise.
// Input 0 'data'; output of the same type and shape. Every numeric type.
// Attributes: min, max (doubles, required, min <= max; infinities allowed, NaN not).
// For integer types min is rounded up and max down (the spec's rule), then both saturate to the
// type's range (ONNX Clip's default max, 3.4e38, on i8 is 127). NaN inputs stay NaN.
#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/detail/unary.hpp"

namespace irlite {
namespace {

using namespace detail;

struct ClampAttrs : OpAttrs {
    double min = 0, max = 0;
};

std::unique_ptr<OpAttrs> parse_clamp(const AttrReader& r) {
    auto a = std::make_unique<ClampAttrs>();
    a->min = r.get_f64("min");
    a->max = r.get_f64("max");
    if (!(a->min <= a->max))
        throw Error(ErrorKind::Attribute, "attribute-invalid",
                    str("attribute 'min' (", a->min, ") must be less than or equal to 'max' (", a->max, ")"));
    return a;
}

// A bound as compute type C without out-of-range conversions (UB for both floats and integers).
// `up`: round a fractional bound up (min) rather than down (max) for integer types.
template <class C>
C to_bound(double v, bool up) {
    using L = std::numeric_limits<C>;
    if constexpr (std::is_integral_v<C>) {
        v = up ? std::ceil(v) : std::floor(v);
        if (v <= static_cast<double>(L::lowest())) return L::lowest();
        if (v >= static_cast<double>(L::max())) return L::max();
        return static_cast<C>(v);
    } else {
        if (v < static_cast<double>(L::lowest())) return -L::infinity();
        if (v > static_cast<double>(L::max())) return L::infinity();
        return static_cast<C>(v);
    }
}

}  // namespace

OpDef make_clamp_op() {
    OpDef d = make_unary_op<kArithmeticTypes, UnaryIntegers::Native, ClampAttrs>(
        "Clamp", 1,
        isa_loop([](const ClampAttrs& a, auto x) {
            using C = typename decltype(x)::Scalar;
            return min_nan(max_nan(x, to_bound<C>(a.min, true)), to_bound<C>(a.max, false));
        }),
        parse_clamp);
    // Graph fusion: the f32 bounds (fusion applies only to f32 values).
    d.as_activation = [](const InferContext& ctx) {
        const auto& a = ctx.attrs<ClampAttrs>();
        return std::optional<Activation>(
            Activation{ActivationKind::Clamp, to_bound<float>(a.min, true), to_bound<float>(a.max, false)});
    };
    return d;
}

}  // namespace irlite
