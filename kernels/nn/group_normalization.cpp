// GroupNormalization-12 (opset12+): per sample, the channels split into num_groups groups; each
// group normalized by its own mean and variance, then scaled and shifted per channel.
// Inputs: 0 'data' [N, C, ...] (float), 1 'scale' [C], 2 'bias' [C] (data's type).
// Attributes: num_groups (>= 1, dividing C), epsilon (>= 0).
//   out[n, c, ...] = (x - mean[n, g]) / sqrt(var[n, g] + epsilon) * scale[c] + bias[c]
// with g = c / (C / num_groups), mean and (biased) variance over the group's channels and every
// spatial position. Statistics accumulate in f64; f16/bf16 data compute in f32.
#include <cmath>
#include <type_traits>

#include "engine/op.hpp"
#include "kernels/detail/float_value.hpp"
#include "kernels/detail/parallel.hpp"

namespace irlite {
namespace {

using detail::load_as;
using detail::store_as;

struct GroupNormAttrs : OpAttrs {
    int64_t groups = 1;
    double epsilon = 0;
};

std::unique_ptr<OpAttrs> parse(const AttrReader& r) {
    auto a = std::make_unique<GroupNormAttrs>();
    a->groups = r.get_i64("num_groups");
    a->epsilon = r.get_f64("epsilon");
    if (a->groups < 1) throw Error(ErrorKind::Attribute, "attribute-invalid", str("attribute 'num_groups' = ", a->groups, ": must be >= 1"));
    if (!(a->epsilon >= 0)) throw Error(ErrorKind::Attribute, "attribute-invalid", str("attribute 'epsilon' = ", a->epsilon, ": must be >= 0"));
    return a;
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    const ElementType type = ctx.type(0);
    if (!is_storable_float(type))
        throw ctx.input_error(0, ErrorKind::Type, "element-type-unsupported", str("data must be a floating-point tensor, got ", to_string(type)));
    const PartialShape& data = ctx.shape(0);
    if (data.rank_known() && data.rank() < 2)
        throw ctx.input_error(0, ErrorKind::ShapeRule, "rank-invalid", str("data must be [N, C, ...], got ", to_string(data)));
    const int64_t channels = data.rank_known() ? data[1] : kDynamic;
    const int64_t groups = ctx.attrs<GroupNormAttrs>().groups;
    if (channels != kDynamic && channels % groups != 0)
        throw ctx.input_error(0, ErrorKind::ShapeRule, "shape-invalid",
                              str("channels ", channels, " are not divisible by num_groups ", groups));
    for (size_t p : {size_t{1}, size_t{2}}) {
        if (ctx.type(p) != type)
            throw ctx.input_error(p, ErrorKind::Type, "element-type-mismatch",
                                  str(ctx.def().input_role(p), " is ", to_string(ctx.type(p)), ", data is ", to_string(type)));
        const PartialShape& s = ctx.shape(p);
        if (s.rank_known() && (s.rank() != 1 || !dims_compatible(s[0], channels)))
            throw ctx.input_error(p, ErrorKind::ShapeRule, "shape-invalid",
                                  str(ctx.def().input_role(p), " must be [C] = [", channels, "], got ", to_string(s)));
    }
    return {{type, data}};
}

// The sizes the kernel walks: samples, channels per group, positions per channel.
struct GroupNormPlan : OpPlan {
    int64_t n = 0, spatial = 1, per_group = 0, group_size = 0;
};

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    auto plan = std::make_unique<GroupNormPlan>();
    plan->method = "per-group";
    const PartialShape& x = ctx.shape(0);
    plan->n = x[0];
    for (size_t d = 2; d < x.rank(); ++d) plan->spatial *= x[d];
    plan->per_group = x[1] / ctx.attrs<GroupNormAttrs>().groups;
    plan->group_size = plan->per_group * plan->spatial;
    return plan;
}

template <class T>
void normalize(const KernelContext& ctx, Tensor& out) {
    const auto& a = ctx.attrs<GroupNormAttrs>();
    const auto& plan = ctx.plan<GroupNormPlan>();
    const T* in = ctx.input(0).data<T>();
    const T* scale = ctx.input(1).data<T>();
    const T* bias = ctx.input(2).data<T>();
    T* o = out.data<T>();
    const int64_t n = plan.n, spatial = plan.spatial, per_group = plan.per_group, group_size = plan.group_size;
    // One (sample, group) per task: its own statistics, fixed order (thread-count independent).
    detail::for_chunks(ctx.pool(), n * a.groups, 1, [&](int64_t first, int64_t last) {
        for (int64_t ng = first; ng < last; ++ng) {
            const int64_t base = ng * group_size;
            double sum = 0;
            for (int64_t i = 0; i < group_size; ++i) sum += load_as<double>(in, base + i);
            const double mean = group_size ? sum / static_cast<double>(group_size) : 0;
            double sq = 0;
            for (int64_t i = 0; i < group_size; ++i) {
                const double dlt = load_as<double>(in, base + i) - mean;
                sq += dlt * dlt;
            }
            const double inv = 1.0 / std::sqrt((group_size ? sq / static_cast<double>(group_size) : 0) + a.epsilon);
            const int64_t c0 = (ng % a.groups) * per_group;
            for (int64_t c = 0; c < per_group; ++c) {
                const double s = load_as<double>(scale, c0 + c) * inv, b = load_as<double>(bias, c0 + c);
                for (int64_t i = 0; i < spatial; ++i) {
                    const int64_t at = base + c * spatial + i;
                    o[at] = store_as<T>((load_as<double>(in, at) - mean) * s + b);
                }
            }
        }
    });
}

void compute(KernelContext& ctx) {
    Tensor& out = ctx.output(0);
    if (out.num_elements() == 0) return;
    switch (out.type()) {
        case ElementType::f16: return normalize<float16>(ctx, out);
        case ElementType::bf16: return normalize<bfloat16>(ctx, out);
        case ElementType::f64: return normalize<double>(ctx, out);
        default: return normalize<float>(ctx, out);
    }
}

}  // namespace

OpDef make_group_normalization_op() {
    OpDef d;
    d.type = "GroupNormalization";
    d.version = 12;
    d.input_roles = {"data", "scale", "bias"};
    d.min_inputs = 3;
    d.parse_attrs = parse;
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace irlite
