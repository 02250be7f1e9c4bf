// Activation functions (OpenVINO opset specs); input 0 'data', output of the same type and shape.
//   ReLU-1 (IR type "ReLU"): max(x, 0); every numeric type. NaN stays NaN.
//   Sigmoid-1: 1 / (1 + exp(-x)); f16, bf16, f32, f64.
//   Tanh-1: every numeric type; integers computed in f64 and rounded (the spec's rule).
//   Elu-1 (attribute alpha, required, finite): x > 0 ? x : alpha * (exp(x) - 1); floats.
//   HSwish-4: x * min(max(x + 3, 0), 6) / 6; HSigmoid-5: min(max(x + 3, 0), 6) / 6; floats.
//   SoftPlus-4: log(1 + exp(x)), x itself above the threshold (20 for f32); floats.
//   Mish-4: x * tanh(softplus(x)); floats.
// No attributes besides Elu's alpha.
#include <cmath>
#include <type_traits>

#include "kernels/detail/unary.hpp"
#include "kernels/detail/vec_math.hpp"

namespace irlite {
namespace {

using namespace detail;

struct EluAttrs : OpAttrs {
    double alpha = 1.0;
};

std::unique_ptr<OpAttrs> parse_elu(const AttrReader& r) {
    auto a = std::make_unique<EluAttrs>();
    a->alpha = r.get_f64("alpha");
    // The spec asks for alpha >= 0, but the formula holds for any alpha and OpenVINO does not
    // check it; only a non-number is rejected.
    if (!std::isfinite(a->alpha))
        throw Error(ErrorKind::Attribute, "attribute-invalid",
                    str("attribute 'alpha' = ", a->alpha, " must be a finite number"));
    return a;
}

// log(1 + exp(x)) as max(x, 0) + log1p(exp(-|x|)): no overflow for large x, no cancellation for
// negative x, and above 20 (f32) the second term is below x's precision, which is the spec's
// "reverts to x above the threshold" without a select that Eigen 3.4 cannot vectorise.
template <class X>
auto softplus(const X& x) {
    using C = typename X::Scalar;
    return max_nan(x, C(0)) + (-x.abs()).exp().log1p();
}

// What graph fusion may apply in place of the op (OpDef::as_activation).
OpDef fusable(OpDef d, ActivationKind kind) {
    d.as_activation = [kind](const InferContext&) { return std::optional<Activation>(Activation{kind, 0, 0}); };
    return d;
}

}  // namespace

OpDef make_relu_op() {
    return fusable(make_unary_op<kArithmeticTypes, UnaryIntegers::Native>("ReLU", 1, isa_loop([](const NoAttrs&, auto x) {
                       using C = typename decltype(x)::Scalar;
                       return max_nan(x, C(0));
                   })),
                   ActivationKind::Relu);
}

// f32: vec_math's sigmoid_f32 / tanh_f32 at the CPU's level (isa_loop_f32), the same bits at every
// level; f16/bf16 go through the f32 instance; f64 (and Tanh's integers) Eigen's functions.
OpDef make_sigmoid_op() {
    return fusable(make_unary_op<kFloatTypes>("Sigmoid", 1, isa_loop_f32([](const NoAttrs&, auto x) {
                                                  using C = typename decltype(x)::Scalar;
                                                  if constexpr (std::is_same_v<C, float>)
                                                      return x.unaryExpr([](float v) { return vmath::sigmoid_f32(v); });
                                                  else
                                                      return C(1) / (C(1) + (-x).exp());
                                              })),
                   ActivationKind::Sigmoid);
}

OpDef make_tanh_op() {
    return fusable(make_unary_op<kArithmeticTypes, UnaryIntegers::ViaDouble>(
                       "Tanh", 1, isa_loop_f32([](const NoAttrs&, auto x) {
                           using C = typename decltype(x)::Scalar;
                           if constexpr (std::is_same_v<C, float>)
                               return x.unaryExpr([](float v) { return vmath::tanh_f32(v); });
                           else
                               return x.tanh();
                       })),
                   ActivationKind::Tanh);
}

OpDef make_elu_op() {
    OpDef d = make_unary_op<kFloatTypes, UnaryIntegers::None, EluAttrs>(
        "Elu", 1,
        [](const EluAttrs& a, auto x) {
            using C = typename decltype(x)::Scalar;
            // Select-free so that it vectorises: one of the two terms is always 0.
            return max_nan(x, C(0)) + static_cast<C>(a.alpha) * min_nan(x, C(0)).expm1();
        },
        parse_elu);
    d.as_activation = [](const InferContext& ctx) {
        return std::optional<Activation>(
            Activation{ActivationKind::Elu, static_cast<float>(ctx.attrs<EluAttrs>().alpha), 0});
    };
    return d;
}

OpDef make_softsign_op() {
    return make_unary_op<kFloatTypes>("SoftSign", 9, isa_loop([](const NoAttrs&, auto x) {
        using C = typename decltype(x)::Scalar;
        return x / (C(1) + x.abs());
    }));
}

OpDef make_hswish_op() {
    return fusable(make_unary_op<kFloatTypes>("HSwish", 4, isa_loop([](const NoAttrs&, auto x) {
                       using C = typename decltype(x)::Scalar;
                       return x * min_nan(max_nan(x + C(3), C(0)), C(6)) / C(6);
                   })),
                   ActivationKind::HSwish);
}

OpDef make_hsigmoid_op() {
    return fusable(make_unary_op<kFloatTypes>("HSigmoid", 5, isa_loop([](const NoAttrs&, auto x) {
                       using C = typename decltype(x)::Scalar;
                       return min_nan(max_nan(x + C(3), C(0)), C(6)) / C(6);
                   })),
                   ActivationKind::HSigmoid);
}

OpDef make_softplus_op() {
    return fusable(make_unary_op<kFloatTypes>("SoftPlus", 4, [](const NoAttrs&, auto x) { return softplus(x); }),
                   ActivationKind::SoftPlus);
}

OpDef make_mish_op() {
    return fusable(
        make_unary_op<kFloatTypes>("Mish", 4, [](const NoAttrs&, auto x) { return x * softplus(x).tanh(); }),
        ActivationKind::Mish);
}

}  // namespace irlite
