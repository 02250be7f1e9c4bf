// Split-1 (opset1+): cuts a tensor into num_splits equal parts along one axis.
// Inputs: 0 'data' (any type, rank >= 1), 1 'axis' (scalar or shape [1], any integer type; a value
// input; in [-r, r-1]). Attribute num_splits (required, > 0; data.shape[axis] must be a multiple).
// Outputs: num_splits tensors of data's type, each with data.shape[axis] / num_splits along the axis.
// Kernel: for each index of the outer dims, one memcpy per output of its contiguous chunk.
#include <cstring>

#include "engine/op.hpp"
#include "kernels/detail/index_values.hpp"
#include "kernels/detail/axis_split.hpp"

namespace irlite {
namespace {

struct SplitAttrs : OpAttrs {
    int64_t num_splits = 1;
};

int64_t split_axis(const InferContext& ctx, int64_t rank) {
    const std::vector<int64_t> v = detail::read_index_values(ctx, 1);
    if (v.size() != 1)
        throw ctx.input_error(1, ErrorKind::ShapeRule, "not-scalar", str("axis must hold one value, got ", v.size()));
    return detail::normalize_axis_at(ctx, 1, v[0], rank);
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    detail::require_index_type(ctx, 1, detail::IndexTypes::AnyInteger);
    const int64_t n = ctx.attrs<SplitAttrs>().num_splits;
    const ElementType type = ctx.type(0);
    const PartialShape& data = ctx.shape(0);
    const PartialShape& axis_shape = ctx.shape(1);
    if (axis_shape.rank_known() && (axis_shape.rank() > 1 || (axis_shape.rank() == 1 && !dims_compatible(axis_shape[0], 1))))
        throw ctx.input_error(1, ErrorKind::ShapeRule, "not-scalar",
                              str("axis must be a scalar or have shape [1], got ", to_string(axis_shape)));
    const size_t count = static_cast<size_t>(n);
    if (!data.rank_known()) return std::vector<OutputInfo>(count, {type, PartialShape::dynamic_rank()});
    if (data.rank() == 0) throw ctx.input_error(0, ErrorKind::ShapeRule, "rank-invalid", "data must have rank >= 1, got a scalar");
    if (!ctx.value(1)) return std::vector<OutputInfo>(count, {type, PartialShape::all_dynamic(data.rank())});
    const size_t axis = static_cast<size_t>(split_axis(ctx, static_cast<int64_t>(data.rank())));
    PartialShape part = data;
    if (data[axis] != kDynamic) {
        if (data[axis] % n != 0)
            throw ctx.input_error(0, ErrorKind::ShapeRule, "split-uneven",
                                  str("dim ", axis, " of data ", to_string(data), " (", data[axis],
                                      ") is not a multiple of num_splits (", n, ")"));
        part[axis] = data[axis] / n;
    }
    return std::vector<OutputInfo>(count, {type, part});
}

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    const std::vector<OutputInfo> parts = infer(ctx);  // validates
    const Shape shape = ctx.shape(0).to_shape();
    const auto axis = static_cast<size_t>(split_axis(ctx, static_cast<int64_t>(shape.size())));
    const std::vector<int64_t> lengths(parts.size(), parts.empty() ? 0 : parts[0].shape[axis]);
    return detail::plan_axis_split(shape, element_size(ctx.type(0)), axis, lengths);
}

void compute(KernelContext& ctx) { detail::run_axis_split(ctx.plan<detail::AxisSplitPlan>(), ctx); }

}  // namespace

OpDef make_split_op() {
    OpDef d;
    d.type = "Split";
    d.version = 1;
    d.input_roles = {"data", "axis"};
    d.min_inputs = 2;
    d.num_outputs = -1;
    d.value_inputs = inputs(1);
    d.parse_attrs = [](const AttrReader& r) -> std::unique_ptr<OpAttrs> {
        auto a = std::make_unique<SplitAttrs>();
        a->num_splits = r.get_i64("num_splits");
        if (a->num_splits <= 0 || a->num_splits > 1 << 20)
            throw Error(ErrorKind::Attribute, "attribute-invalid",
                        str("attribute 'num_splits' = ", a->num_splits, ": ",
                            "value ", a->num_splits, " not in [1, ", 1 << 20, "]"));
        return a;
    };
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace irlite
