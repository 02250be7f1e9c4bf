// Unsqueeze-1 (opset1+): inserts dims of size 1 (zero-copy: the output is a view of the input).
// Inputs: 0 'data' (any type), 1 'axes' (scalar or 1-D, any integer type; a value input). Each axis
// is a position in the OUTPUT, in [-(r+n), r+n-1] with n = number of axes; repeats are an error.
// When the axes are not known at load time, only the output rank is known (when axes' length is).
#include "engine/op.hpp"
#include "kernels/detail/index_values.hpp"
#include "kernels/detail/rule_context.hpp"
#include "kernels/detail/view_plan.hpp"

namespace irlite {
namespace {

std::vector<OutputInfo> infer(const InferContext& ctx) {
    const ElementType type = ctx.type(0);
    const PartialShape& in = ctx.shape(0);
    detail::require_index_type(ctx, 1, detail::IndexTypes::AnyInteger);
    const PartialShape& axes_shape = ctx.shape(1);
    if (axes_shape.rank_known() && axes_shape.rank() > 1)
        throw ctx.input_error(1, ErrorKind::ShapeRule, "rank-invalid",
                              str("axes must be a scalar or 1-D, got shape ", to_string(axes_shape)));
    if (!ctx.value(1)) {
        const bool count_known = axes_shape.rank_known() && (axes_shape.rank() == 0 || axes_shape[0] != kDynamic);
        if (!in.rank_known() || !count_known) return {{type, PartialShape::dynamic_rank()}};
        const size_t n = axes_shape.rank() == 0 ? 1 : static_cast<size_t>(axes_shape[0]);
        return {{type, PartialShape::all_dynamic(in.rank() + n)}};
    }
    if (!in.rank_known()) return {{type, PartialShape::dynamic_rank()}};
    const std::vector<int64_t> axes = detail::read_index_values(ctx, 1);
    const int64_t out_rank = static_cast<int64_t>(in.rank() + axes.size());
    std::vector<bool> inserted(static_cast<size_t>(out_rank), false);
    for (int64_t axis : axes) {
        const size_t a = static_cast<size_t>(detail::normalize_axis_at(ctx, 1, axis, out_rank));
        if (inserted[a])
            throw ctx.input_error(1, ErrorKind::Value, "duplicate-axis",
                                  str("axis ", axis, " repeats output axis ", a, "; each axis may appear once"));
        inserted[a] = true;
    }
    std::vector<int64_t> dims;
    size_t next_in = 0;
    for (size_t i = 0; i < inserted.size(); ++i) dims.push_back(inserted[i] ? 1 : in[next_in++]);
    return {{type, PartialShape(dims)}};
}

void compute(KernelContext& ctx) {
    const std::vector<OutputInfo> out = infer(detail::rule_context(ctx));
    ctx.output(0) = ctx.input(0).reshaped(out[0].shape.to_shape());
}

}  // namespace

OpDef make_unsqueeze_op() {
    OpDef d;
    d.type = "Unsqueeze";
    d.keeps_element_order = true;
    d.version = 1;
    d.input_roles = {"data", "axes"};
    d.min_inputs = 2;
    d.value_inputs = inputs(1);
    d.allocates_outputs = true;
    d.accepts_packed = true;  // a view: packed weight types (u4, nf4, f8, ...) too
    d.infer = infer;
    d.prepare = detail::prepare_as_view;
    d.compute = compute;
    return d;
}

}  // namespace irlite
