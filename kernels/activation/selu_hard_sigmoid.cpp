// Selu-1 and HardSigmoid-1 (opset1+): activations whose parameters are inputs, not attributes.
// Inputs: 0 'data' (f16, bf16, f32, f64), then two one-element tensors of the data's type:
//   Selu:        1 'alpha', 2 'lambda';  out = lambda * (x > 0 ? x : alpha * (exp(x) - 1))
//   HardSigmoid: 1 'alpha', 2 'beta';    out = max(0, min(1, alpha * x + beta))
// f16/bf16 compute in f32. NaN stays NaN.
#include <cmath>
#include <type_traits>

#include "engine/op.hpp"
#include "kernels/detail/float_dispatch.hpp"
#include "kernels/detail/float_value.hpp"
#include "kernels/detail/parallel.hpp"
#include "kernels/detail/unary.hpp"

namespace irlite {
namespace {

using detail::load_as;
using detail::store_as;

std::vector<OutputInfo> infer(const InferContext& ctx) {
    const ElementType type = ctx.type(0);
    if (!is_storable_float(type))
        throw ctx.input_error(0, ErrorKind::Type, "element-type-unsupported",
                              str("data must be a floating-point tensor, got ", to_string(type)));
    for (size_t p = 1; p < 3; ++p) {
        if (ctx.type(p) != type)
            throw ctx.input_error(p, ErrorKind::Type, "element-type-mismatch",
                                  str(ctx.def().input_role(p), " is ", to_string(ctx.type(p)), ", data is ", to_string(type)));
        const PartialShape& s = ctx.shape(p);
        if (s.rank_known())
            for (int64_t d : s.dims())
                if (!dims_compatible(d, 1))
                    throw ctx.input_error(p, ErrorKind::ShapeRule, "scalar-expected",
                                          str(ctx.def().input_role(p), " must hold one value, got shape ", to_string(s)));
    }
    return {{type, ctx.shape(0)}};
}

template <bool kSelu>
void compute(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    Tensor& out = ctx.output(0);
    const double p1 = ctx.input(1).value_as_double(0), p2 = ctx.input(2).value_as_double(0);
    detail::dispatch_storable_float(x.type(), [&](auto tag) {
        using T = decltype(tag);
        using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
        const T* in = x.data<T>();
        T* o = out.data<T>();
        const C a = static_cast<C>(p1), b = static_cast<C>(p2);
        detail::for_chunks(ctx.pool(), x.num_elements(), 1 << 14, [&](int64_t first, int64_t last) {
            for (int64_t i = first; i < last; ++i) {
                const C v = load_as<C>(in[i]);
                C r;
                if constexpr (kSelu) r = b * (v > C(0) ? v : a * std::expm1(v));
                else r = std::isnan(v) ? v : std::min(C(1), std::max(C(0), a * v + b));
                o[i] = store_as<T>(r);
            }
        });
    });
}

OpDef make_def(const char* type, std::vector<std::string> roles, KernelFn fn) {
    OpDef d;
    d.type = type;
    d.version = 1;
    d.input_roles = std::move(roles);
    d.min_inputs = 3;
    d.infer = infer;
    d.prepare = detail::prepare_eltwise;
    d.compute = std::move(fn);
    return d;
}

}  // namespace

OpDef make_selu_op() { return make_def("Selu", {"data", "alpha", "lambda"}, compute<true>); }
OpDef make_hard_sigmoid_op() { return make_def("HardSigmoid", {"data", "alpha", "beta"}, compute<false>); }

}  // namespace irlite
