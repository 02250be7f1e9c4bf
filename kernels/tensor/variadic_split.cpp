// VariadicSplit-1 (opset1+): splits data along one axis into pieces of the given lengths.
// Inputs: 0 'data' (any type, rank >= 1); 1 'axis' (scalar or shape [1], in [-r, r-1]);
// 2 'split_lengths' (1-D; one output per element; each >= -1, at most one -1 meaning "the rest";
// 0 gives an empty output; they must add up to data.shape[axis] exactly). axis and split_lengths
// may be any of i8..i64, u8..u64. No attributes. Types: data all.
// Output i = data[..., sum(L[:i]) : sum(L[:i+1]), ...] along the axis, with data's type.
// Build time: split_lengths unknown -> as many outputs as its static length (or as the layer
// declares), each the data shape with the axis dim dynamic; axis unknown -> all dims dynamic.
#include <algorithm>
#include <cstring>
#include <optional>

#include "engine/op.hpp"
#include "kernels/detail/index_values.hpp"
#include "kernels/detail/axis_split.hpp"

namespace irlite {
namespace {

constexpr size_t kData = 0, kAxis = 1, kLengths = 2;

// What is known about the split.
struct SplitPlan {
    size_t count = 0;                             // number of outputs
    std::optional<int64_t> axis;                  // normalized; unknown also when the data rank is
    std::optional<std::vector<int64_t>> lengths;  // -1 resolved (kDynamic when the axis dim is)
};

void check_input_shapes(const InferContext& ctx) {
    detail::require_index_type(ctx, kAxis, detail::IndexTypes::AnyInteger);
    detail::require_index_type(ctx, kLengths, detail::IndexTypes::AnyInteger);
    const PartialShape& data = ctx.shape(kData);
    if (data.rank_known() && data.rank() == 0)
        throw ctx.input_error(kData, ErrorKind::ShapeRule, "rank-invalid", "data must have rank >= 1, got a scalar");
    const PartialShape& axis = ctx.shape(kAxis);
    if (axis.rank_known() && !(axis.rank() == 0 || (axis.rank() == 1 && dims_compatible(axis[0], 1))))
        throw ctx.input_error(kAxis, ErrorKind::ShapeRule, "rank-invalid",
                              str("axis must be a scalar or of shape [1], got shape ", to_string(axis)));
    const PartialShape& lengths = ctx.shape(kLengths);
    if (lengths.rank_known() && lengths.rank() != 1)
        throw ctx.input_error(kLengths, ErrorKind::ShapeRule, "rank-invalid",
                              str("split_lengths must be a 1-D tensor, got shape ", to_string(lengths)));
}

// The lengths, validated, with the -1 (if any) resolved against the axis dim `dim` (kDynamic:
// unknown, so no sum check and the -1 stays unknown).
std::vector<int64_t> resolve_lengths(const InferContext& ctx, std::vector<int64_t> lengths, int64_t axis, int64_t dim) {
    int64_t rest_at = -1;
    int64_t sum = 0;
    bool overflow = false;
    for (size_t i = 0; i < lengths.size(); ++i) {
        const int64_t v = lengths[i];
        if (v < -1)
            throw ctx.input_error(
                kLengths, ErrorKind::Value, "split-length-invalid",
                str("split_lengths[", i, "] = ", v, ": ",
                    detail::value_range_message(v, -1, dim == kDynamic ? INT64_MAX : dim), " (-1 means the rest)"));
        if (v == -1) {
            if (rest_at >= 0)
                throw ctx.input_error(kLengths, ErrorKind::Value, "split-length-invalid",
                                      str("split_lengths[", rest_at, "] and split_lengths[", i,
                                          "] are both -1; at most one length may be -1"));
            rest_at = static_cast<int64_t>(i);
        } else {
            overflow = overflow || __builtin_add_overflow(sum, v, &sum);
        }
    }
    if (dim == kDynamic) {
        if (rest_at >= 0) lengths[static_cast<size_t>(rest_at)] = kDynamic;
        return lengths;
    }
    const std::string total = overflow ? "more than 2^63-1" : std::to_string(sum);
    if (rest_at >= 0) {
        if (overflow || sum > dim)
            throw ctx.input_error(
                kLengths, ErrorKind::Value, "split-sum-mismatch",
                str("split lengths other than -1 add up to ", total, ", more than data dim ", axis, " (", dim, ")"));
        lengths[static_cast<size_t>(rest_at)] = dim - sum;
    } else if (overflow || sum != dim) {
        throw ctx.input_error(kLengths, ErrorKind::Value, "split-sum-mismatch",
                              str("split lengths add up to ", total, ", but data dim ", axis, " is ", dim,
                                  "; they must add up to it exactly"));
    }
    return lengths;
}

SplitPlan plan_split(const InferContext& ctx) {
    check_input_shapes(ctx);
    SplitPlan plan;
    std::optional<std::vector<int64_t>> lengths;
    if (ctx.value(kLengths)) lengths = detail::read_index_values(ctx, kLengths);
    const PartialShape& lengths_shape = ctx.shape(kLengths);
    if (lengths)
        plan.count = lengths->size();
    else if (lengths_shape.rank_known() && lengths_shape[0] != kDynamic)
        plan.count = static_cast<size_t>(lengths_shape[0]);
    else
        plan.count = static_cast<size_t>(std::max(ctx.declared_outputs(), 0));

    const PartialShape& data = ctx.shape(kData);
    if (ctx.value(kAxis)) {
        const std::vector<int64_t> axis = detail::read_index_values(ctx, kAxis);
        if (axis.size() != 1)
            throw ctx.input_error(kAxis, ErrorKind::ShapeRule, "rank-invalid",
                                  str("axis must hold exactly one value, got ", axis.size()));
        if (data.rank_known())
            plan.axis = detail::normalize_axis_at(ctx, kAxis, axis[0], static_cast<int64_t>(data.rank()));
    }
    if (lengths) {
        const int64_t dim = plan.axis ? data[static_cast<size_t>(*plan.axis)] : kDynamic;
        plan.lengths = resolve_lengths(ctx, std::move(*lengths), plan.axis.value_or(-1), dim);
    }
    return plan;
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    const SplitPlan plan = plan_split(ctx);
    const PartialShape& data = ctx.shape(kData);
    const ElementType type = ctx.type(kData);
    if (!data.rank_known()) return std::vector<OutputInfo>(plan.count, {type, PartialShape::dynamic_rank()});
    if (!plan.axis) return std::vector<OutputInfo>(plan.count, {type, PartialShape::all_dynamic(data.rank())});
    std::vector<OutputInfo> outputs(plan.count, {type, data});
    const auto axis = static_cast<size_t>(*plan.axis);
    for (size_t i = 0; i < plan.count; ++i) outputs[i].shape[axis] = plan.lengths ? (*plan.lengths)[i] : kDynamic;
    return outputs;
}

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    const SplitPlan plan = plan_split(ctx);
    IRLITE_CHECK(plan.axis && plan.lengths, ErrorKind::Value, "split-unresolved",
                 "axis and split_lengths must be known to run VariadicSplit");
    return detail::plan_axis_split(ctx.shape(kData).to_shape(), element_size(ctx.type(kData)),
                                   static_cast<size_t>(*plan.axis), *plan.lengths);
}

void compute(KernelContext& ctx) {
    const auto& plan = ctx.plan<detail::AxisSplitPlan>();
    IRLITE_CHECK(plan.chunk.size() == ctx.num_outputs(), ErrorKind::ShapeRule, "kernel-output-mismatch",
                 "the split yields ", plan.chunk.size(), " outputs, the layer has ", ctx.num_outputs());
    detail::run_axis_split(plan, ctx);
}

}  // namespace

OpDef make_variadic_split_op() {
    OpDef d;
    d.type = "VariadicSplit";
    d.version = 1;
    d.input_roles = {"data", "axis", "split_lengths"};
    d.min_inputs = 3;
    d.num_outputs = -1;
    d.value_inputs = inputs(kAxis, kLengths);
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace irlite
