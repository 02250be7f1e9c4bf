// LRN-1 (opset1+): local response normalization.
// Inputs: 0 'data' (f16, bf16, f32, f64; any shape), 1 'axes' (integer, scalar or 1-D, values in
// [-r, r-1]; duplicates count once; empty: each element alone).
// Attributes: alpha, beta (> 0), bias (floats, required), size (integer >= 1, required).
//   sqr_sum = sum of data^2 over the region around the element: along each axis a window of
//             `size` elements from (size-1)/2 before it (clipped at the tensor's edges: zero padding)
//   out     = data / (bias + alpha / size^len(axes) * sqr_sum)^beta
// The window is ONNX's (and OpenVINO's reference kernel's) [c - (size-1)/2, c + size/2]; the spec
// text's [c - size/2, c + size/2] is the same for the odd sizes models use.
// The region is a box, so its sum is taken one axis at a time (separable) in scratch memory.
// f16/bf16 compute in f32, f32 in f32, f64 in f64.
#include <cmath>
#include <cstring>
#include <type_traits>

#include "kernels/detail/float_value.hpp"
#include "kernels/detail/nn_common.hpp"
#include "kernels/detail/parallel.hpp"

namespace irlite {
namespace {

using detail::load_as;
using detail::store_at;

constexpr size_t kData = 0, kAxes = 1;

struct LrnAttrs : OpAttrs {
    double alpha = 0, beta = 0, bias = 0;
    int64_t size = 0;
};

std::unique_ptr<OpAttrs> parse(const AttrReader& r) {
    auto a = std::make_unique<LrnAttrs>();
    a->alpha = r.get_f64("alpha");
    a->beta = r.get_f64("beta");
    a->bias = r.get_f64("bias");
    a->size = r.get_i64("size");
    if (!(a->beta > 0))
        throw Error(ErrorKind::Attribute, "attribute-invalid", str("attribute 'beta' = ", a->beta, ": must be positive"));
    if (a->size < 1)
        throw Error(ErrorKind::Attribute, "attribute-invalid", str("attribute 'size' = ", a->size, ": must be >= 1"));
    return a;
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    if (!is_storable_float(ctx.type(kData)))
        throw ctx.input_error(kData, ErrorKind::Type, "element-type-unsupported",
                              str("data must be a floating-point tensor (f16, bf16, f32, f64), got ", to_string(ctx.type(kData))));
    if (!is_integral(ctx.type(kAxes)))
        throw ctx.input_error(kAxes, ErrorKind::Type, "type-unsupported",
                              str("axes must be of an integer type, got ", to_string(ctx.type(kAxes))));
    const PartialShape& axes = ctx.shape(kAxes);
    if (axes.rank_known() && axes.rank() > 1)
        throw ctx.input_error(kAxes, ErrorKind::ShapeRule, "rank-invalid",
                              str("axes must be a scalar or a 1-D tensor, got shape ", to_string(axes)));
    const PartialShape& data = ctx.shape(kData);
    if (const Tensor* v = ctx.value(kAxes); v && data.rank_known())
        nn::read_axes(ctx, kAxes, *v, static_cast<int64_t>(data.rank()));
    return {{ctx.type(kData), data}};
}

// The shape seen as [outer, length, inner] around each normalized axis.
struct LrnPlan : OpPlan {
    struct Axis {
        int64_t outer = 1, length = 1, inner = 1;
    };
    std::vector<Axis> axes;
    int64_t elements = 0;
    double scale = 0;  // alpha / size^len(axes)
};

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    infer(ctx);
    const Shape& shape = ctx.shape(kData).dims();
    const auto& a = ctx.attrs<LrnAttrs>();
    const std::vector<int64_t> axes = nn::read_axes(ctx, kAxes, *ctx.value(kAxes), static_cast<int64_t>(shape.size()));
    auto plan = std::make_unique<LrnPlan>();
    plan->elements = checked_num_elements(shape);
    for (const int64_t axis : axes) {
        LrnPlan::Axis ax;
        for (int64_t d = 0; d < axis; ++d) ax.outer *= shape[static_cast<size_t>(d)];
        ax.length = shape[static_cast<size_t>(axis)];
        for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) ax.inner *= shape[d];
        plan->axes.push_back(ax);
    }
    plan->scale = a.alpha / std::pow(static_cast<double>(a.size), static_cast<double>(axes.size()));
    // Two buffers of the running sum, in the compute type.
    const size_t compute_bytes = ctx.type(kData) == ElementType::f64 ? sizeof(double) : sizeof(float);
    plan->scratch_bytes = 2 * static_cast<size_t>(plan->elements) * compute_bytes;
    plan->method = "separable";
    return plan;
}

// dst = the window sum of src along one axis: dst[o, c, i] = sum of src[o, j, i] for j in the
// window of c clipped to [0, length).
template <class C>
void window_sum(const C* src, C* dst, const LrnPlan::Axis& ax, int64_t size) {
    const int64_t before = (size - 1) / 2, after = size / 2;
    for (int64_t o = 0; o < ax.outer; ++o) {
        const C* s = src + o * ax.length * ax.inner;
        C* d = dst + o * ax.length * ax.inner;
        for (int64_t c = 0; c < ax.length; ++c) {
            C* row = d + c * ax.inner;
            for (int64_t i = 0; i < ax.inner; ++i) row[i] = C(0);
            const int64_t lo = std::max<int64_t>(0, c - before), hi = std::min<int64_t>(ax.length - 1, c + after);
            for (int64_t j = lo; j <= hi; ++j) {
                const C* in = s + j * ax.inner;
                for (int64_t i = 0; i < ax.inner; ++i) row[i] += in[i];
            }
        }
    }
}

template <class T>
void run(const KernelContext& ctx, const LrnPlan& plan, const Tensor& data, Tensor& out) {
    using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
    const auto& a = ctx.attrs<LrnAttrs>();
    const T* x = data.data<T>();
    T* y = out.data<T>();
    C* buf[2] = {static_cast<C*>(ctx.scratch()), static_cast<C*>(ctx.scratch()) + plan.elements};
    for (int64_t e = 0; e < plan.elements; ++e) {
        const C v = load_as<C>(x, e);
        buf[0][e] = v * v;
    }
    int current = 0;
    for (const LrnPlan::Axis& ax : plan.axes) {
        window_sum<C>(buf[current], buf[1 - current], ax, a.size);
        current = 1 - current;
    }
    const C* sum = buf[current];
    const C bias = static_cast<C>(a.bias), scale = static_cast<C>(plan.scale), beta = static_cast<C>(a.beta);
    for (int64_t e = 0; e < plan.elements; ++e)
        store_at(y, e, load_as<C>(x, e) / std::pow(bias + scale * sum[e], beta));
}

void compute(KernelContext& ctx) {
    const auto& plan = ctx.plan<LrnPlan>();
    const Tensor& data = ctx.input(kData);
    Tensor& out = ctx.output(0);
    if (plan.elements == 0) return;
    switch (data.type()) {
        case ElementType::f16: return run<float16>(ctx, plan, data, out);
        case ElementType::bf16: return run<bfloat16>(ctx, plan, data, out);
        case ElementType::f64: return run<double>(ctx, plan, data, out);
        default: return run<float>(ctx, plan, data, out);
    }
}

}  // namespace

OpDef make_lrn_op() {
    OpDef d;
    d.type = "LRN";
    d.version = 1;
    d.input_roles = {"data", "axes"};
    d.min_inputs = 2;
    d.value_inputs = 1u << kAxes;
    d.parse_attrs = parse;
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace irlite
