// Swish-4 (OpenVINO opset4 spec): x * sigmoid(beta * x) = x / (1 + exp(-beta * x)).
// Inputs: 0 'data'; 1 'beta' (optional; a scalar, or a tensor of one element, of data's type;
// default 1). Output: data's type and shape. Types: f16, bf16, f32, f64. No attributes.
#include <type_traits>

#include "kernels/detail/unary.hpp"
#include "kernels/detail/vec_math.hpp"

namespace irlite {
namespace {

using namespace detail;

struct Beta : OpAttrs {
    double value = 1.0;
};

bool one_element(const PartialShape& s) {
    if (!s.rank_known()) return true;  // decided at run time
    for (size_t i = 0; i < s.rank(); ++i)
        if (s[i] != 1 && s[i] != kDynamic) return false;
    return true;
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    std::vector<OutputInfo> out = infer_unary(ctx, kFloatTypes);
    if (ctx.num_inputs() > 1) {
        if (ctx.type(1) != ctx.type(0))
            throw ctx.input_error(1, ErrorKind::Type, "element-type-mismatch",
                                  str("beta has element type ", to_string(ctx.type(1)), "; it must have data's type ",
                                      to_string(ctx.type(0))));
        if (!one_element(ctx.shape(1)))
            throw ctx.input_error(1, ErrorKind::ShapeRule, "beta-not-scalar",
                                  str("beta must be a scalar (one element), got shape ", to_string(ctx.shape(1))));
    }
    return out;
}

void compute(KernelContext& ctx) {
    Beta beta;
    if (ctx.num_inputs() > 1) {
        const Tensor& b = ctx.input(1);
        if (b.num_elements() != 1)
            throw ctx.input_error(1, ErrorKind::ShapeRule, "beta-not-scalar",
                                  str("beta must be a scalar (one element), got shape ", to_string(b.shape())));
        beta.value = b.value_as_double(0);
    }
    // f32: x * sigmoid_f32(beta x) at the CPU's level (isa_loop_f32), as the fused epilogue
    // computes it; f64: Eigen's exp.
    run_unary<kFloatTypes, UnaryIntegers::None>(ctx, beta, isa_loop_f32([](const Beta& b, auto x) {
        using C = typename decltype(x)::Scalar;
        if constexpr (std::is_same_v<C, float>) {
            const float bf = static_cast<float>(b.value);
            return x.unaryExpr([bf](float v) { return v * vmath::sigmoid_f32(bf * v); });
        } else {
            return x / (C(1) + (static_cast<C>(-b.value) * x).exp());
        }
    }));
}

}  // namespace

OpDef make_swish_op() {
    OpDef d;
    d.type = "Swish";
    d.version = 4;
    d.first_opset = 4;
    d.input_roles = {"data", "beta"};
    d.min_inputs = 1;
    d.infer = infer;
    d.prepare = prepare_eltwise;
    d.compute = compute;
    // Graph fusion: only with beta known at compile time.
    d.as_activation = [](const InferContext& ctx) -> std::optional<Activation> {
        float beta = 1.0f;
        if (ctx.num_inputs() > 1) {
            const Tensor* b = ctx.value(1);
            if (!b || b->num_elements() != 1) return std::nullopt;
            beta = static_cast<float>(b->value_as_double(0));
        }
        return Activation{ActivationKind::Swish, beta, 0};
    };
    return d;
}

}  // namespace irlite
