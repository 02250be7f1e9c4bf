// Gelu-2 and Gelu-7 (OpenVINO opset specs): x * Phi(x), Phi the standard normal CDF.
// Input 0 'data', output of the same type and shape. Types: f16, bf16, f32, f64.
//   Gelu-2 (opset2..6): no attributes; the exact form 0.5 x (1 + erf(x / sqrt(2))).
//   Gelu-7 (opset7+): attribute approximation_mode = erf (default, the exact form) or tanh:
//     0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
// The erf form uses a real erf (vec_math's erf_f32, within 7 ulp, for f32; Eigen's for f64), never
// the tanh approximation, so that it matches PyTorch's nn.GELU() to ~1e-7.
#include <type_traits>
#include <unsupported/Eigen/SpecialFunctions>

#include "kernels/detail/unary.hpp"
#include "kernels/detail/vec_math.hpp"

namespace irlite {
namespace {

using namespace detail;

struct GeluAttrs : OpAttrs {
    bool tanh_approximation = false;
};

// f32: vec_math's gelu_erf_f32, at the CPU's level through isa_loop_f32 (the same bits at every
// level); f64: Eigen's erf.
template <class X>
auto gelu_erf(const X& x) {
    using C = typename X::Scalar;
    if constexpr (std::is_same_v<C, float>) {
        return x.unaryExpr([](float v) { return vmath::gelu_erf_f32(v); });
    } else {
        return C(0.5) * x * (C(1) + (x * C(0.70710678118654752440)).erf());
    }
}

// f32: vec_math's gelu_tanh_f32, at the CPU's level through isa_loop_f32 (the same bits at every
// level); f64: Eigen's tanh.
template <class X>
auto gelu_tanh(const X& x) {
    using C = typename X::Scalar;
    if constexpr (std::is_same_v<C, float>) {
        return x.unaryExpr([](float v) { return vmath::gelu_tanh_f32(v); });
    } else {
        const C k = C(0.79788456080286535588);  // sqrt(2 / pi)
        return C(0.5) * x * (C(1) + (k * (x + C(0.044715) * x * x * x)).tanh());
    }
}

}  // namespace

OpDef make_gelu_2_op() {
    OpDef d = make_unary_op<kFloatTypes>("Gelu", 2, isa_loop_f32([](const NoAttrs&, auto x) { return gelu_erf(x); }));
    d.last_opset = 6;
    d.as_activation = [](const InferContext&) { return std::optional<Activation>(Activation{ActivationKind::GeluErf, 0, 0}); };
    return d;
}

OpDef make_gelu_7_op() {
    OpDef d = unary_op_def("Gelu", 7, kFloatTypes);
    d.parse_attrs = [](const AttrReader& r) -> std::unique_ptr<OpAttrs> {
        auto a = std::make_unique<GeluAttrs>();
        a->tanh_approximation = r.get_enum("approximation_mode", {"erf", "tanh"}, "erf") == "tanh";
        return a;
    };
    // The mode picks one of two kernels, so that each stays a single vectorised expression.
    d.compute = [](KernelContext& ctx) {
        const auto& attrs = ctx.attrs<GeluAttrs>();
        if (attrs.tanh_approximation)
            run_unary<kFloatTypes, UnaryIntegers::None>(ctx, attrs,
                                                        isa_loop_f32([](const GeluAttrs&, auto x) { return gelu_tanh(x); }));
        else
            run_unary<kFloatTypes, UnaryIntegers::None>(ctx, attrs,
                                                        isa_loop_f32([](const GeluAttrs&, auto x) { return gelu_erf(x); }));
    };
    d.as_activation = [](const InferContext& ctx) {
        return std::optional<Activation>(Activation{
            ctx.attrs<GeluAttrs>().tanh_approximation ? ActivationKind::GeluTanh : ActivationKind::GeluErf, 0, 0});
    };
    return d;
}

}  // namespace irlite
