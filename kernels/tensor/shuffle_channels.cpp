// ShuffleChannels-1 (opset1+): the channels of `axis` split into `group` groups and interleaved
// (ShuffleNet): viewing that dim as [group, C / group], the output is its transpose
// [C / group, group]. Input 'data' of any type and rank >= 1 (the spec's 4-D is not required).
// Attributes: axis (default 1, in [-r, r-1]), group (default 1, >= 1, dividing the dim).
// One prepared strided byte copy (every type, on the pool).
#include "engine/op.hpp"
#include "kernels/detail/strided_copy.hpp"

namespace irlite {
namespace {

struct ShuffleAttrs : OpAttrs {
    int64_t axis = 1, group = 1;
};

std::unique_ptr<OpAttrs> parse(const AttrReader& r) {
    auto a = std::make_unique<ShuffleAttrs>();
    a->axis = r.get_i64("axis", 1);
    a->group = r.get_i64("group", 1);
    if (a->group < 1) throw Error(ErrorKind::Attribute, "attribute-invalid", str("attribute 'group' = ", a->group, ": must be >= 1"));
    return a;
}

size_t resolved_axis(const InferContext& ctx, size_t rank) {
    const int64_t axis = ctx.attrs<ShuffleAttrs>().axis, r = static_cast<int64_t>(rank);
    if (axis < -r || axis >= r)
        throw ctx.input_error(0, ErrorKind::Attribute, "axis-out-of-range",
                              str("attribute 'axis' = ", axis, ": axis ", axis, " out of the tensor rank range [", -r, ", ", r - 1, "]"));
    return static_cast<size_t>(axis < 0 ? axis + r : axis);
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    const PartialShape& data = ctx.shape(0);
    if (data.rank_known()) {
        if (data.rank() == 0)
            throw ctx.input_error(0, ErrorKind::ShapeRule, "rank-invalid", "data must have rank >= 1, got a scalar");
        const size_t axis = resolved_axis(ctx, data.rank());
        const int64_t group = ctx.attrs<ShuffleAttrs>().group;
        if (data[axis] != kDynamic && data[axis] % group != 0)
            throw ctx.input_error(0, ErrorKind::ShapeRule, "shape-invalid",
                                  str("dim ", axis, " (", data[axis], ") is not divisible by group ", group));
    }
    return {{ctx.type(0), data}};
}

struct ShufflePlan : OpPlan {
    detail::CopyPlan copy;
};

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    infer(ctx);
    const Shape& shape = ctx.shape(0).dims();
    const size_t axis = resolved_axis(ctx, shape.size());
    const int64_t group = ctx.attrs<ShuffleAttrs>().group, channels = shape[axis], per_group = channels / group;
    const auto elem = static_cast<int64_t>(element_size(ctx.type(0)));
    int64_t outer = 1, inner = 1;
    for (size_t d = 0; d < axis; ++d) outer *= shape[d];
    for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
    // Output channel k * group + g holds input channel g * per_group + k.
    const Shape view{outer, per_group, group, inner};
    const std::vector<int64_t> strides{channels * inner * elem, inner * elem, per_group * inner * elem, elem};
    auto plan = std::make_unique<ShufflePlan>();
    plan->copy = detail::plan_view_copy(checked_byte_size(shape, static_cast<size_t>(elem)), 0, view, strides, static_cast<size_t>(elem));
    plan->method = "strided-copy";
    return plan;
}

void compute(KernelContext& ctx) {
    const auto& plan = ctx.plan<ShufflePlan>();
    Tensor& out = ctx.output(0);
    IRLITE_CHECK(static_cast<int64_t>(out.byte_size()) == plan.copy.total_bytes(), ErrorKind::ShapeRule, "kernel-output-mismatch",
                 "output disagrees with the plan");
    detail::run_copy(plan.copy, ctx.input(0).data(), out.data(), ctx.pool());
}

}  // namespace

// ShuffleChannels-1 is in opset1 and again from opset3 on (not in opset2): one definition per run.
OpDef make_shuffle_channels_op(int first, int last) {
    OpDef d;
    d.first_opset = first;
    d.last_opset = last;
    d.type = "ShuffleChannels";
    d.version = 1;
    d.input_roles = {"data"};
    d.min_inputs = 1;
    d.parse_attrs = parse;
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

OpDef make_shuffle_channels_opset1_op() { return make_shuffle_channels_op(1, 1); }
OpDef make_shuffle_channels_op() { return make_shuffle_channels_op(3, kLatestOpset); }

}  // namespace irlite
