// Tile-1 (opset1+): repeats a tensor along each dim.
// Inputs: 0 'data' (any type), 1 'repeats' (1-D, any integer type, values >= 0; a value input).
// When repeats is shorter than data's rank it is padded with 1s in front; when longer, data's
// shape is padded with 1s in front. Output dim i = data dim i x repeats[i].
// Kernel: one byte-level view copy over (repeat, dim) pairs, the repeat read with stride 0.
#include <algorithm>
#include <limits>

#include "engine/op.hpp"
#include "engine/tensor_size.hpp"
#include "kernels/detail/index_values.hpp"
#include "kernels/detail/strided_copy.hpp"

namespace irlite {
namespace {

std::vector<int64_t> read_repeats(const InferContext& ctx) {
    std::vector<int64_t> repeats = detail::read_index_values(ctx, 1);
    for (size_t i = 0; i < repeats.size(); ++i)
        if (repeats[i] < 0)
            throw ctx.input_error(1, ErrorKind::Value, "value-out-of-range",
                                  str("repeats[", i, "] = ", repeats[i], " is negative; repeats must be >= 0"));
    return repeats;
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    detail::require_index_type(ctx, 1, detail::IndexTypes::AnyInteger);
    const ElementType type = ctx.type(0);
    const PartialShape& data = ctx.shape(0);
    const PartialShape& repeats_shape = ctx.shape(1);
    if (repeats_shape.rank_known() && repeats_shape.rank() != 1)
        throw ctx.input_error(1, ErrorKind::ShapeRule, "rank-invalid",
                              str("repeats must be 1-D, got shape ", to_string(repeats_shape)));
    if (!data.rank_known()) return {{type, PartialShape::dynamic_rank()}};
    if (!ctx.value(1)) {
        if (!repeats_shape.rank_known() || repeats_shape[0] == kDynamic) return {{type, PartialShape::dynamic_rank()}};
        return {{type, PartialShape::all_dynamic(std::max(data.rank(), static_cast<size_t>(repeats_shape[0])))}};
    }
    const std::vector<int64_t> repeats = read_repeats(ctx);
    const size_t rank = std::max(data.rank(), repeats.size());
    std::vector<int64_t> dims(rank);
    for (size_t i = 0; i < rank; ++i) {
        const size_t from_end = rank - 1 - i;
        const int64_t d = from_end < data.rank() ? data[data.rank() - 1 - from_end] : 1;
        const int64_t r = from_end < repeats.size() ? repeats[repeats.size() - 1 - from_end] : 1;
        if (d == kDynamic) {
            dims[i] = r == 0 ? 0 : kDynamic;
        } else {
            if (d != 0 && r > std::numeric_limits<int64_t>::max() / d)
                throw ctx.input_error(1, ErrorKind::Limit, "size-overflow",
                                      str("dim ", i, ": ", d, " x repeats ", r, " overflows"));
            dims[i] = d * r;
        }
    }
    return {{type, PartialShape(dims)}};
}

// The copy planned once: a byte-level view of the data over (repeat, dim) pairs of the output,
// the repeat read with stride 0.
struct TilePlan : OpPlan {
    detail::CopyPlan copy;
};

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    const Shape data = ctx.shape(0).to_shape();
    const Shape out = infer(ctx)[0].shape.to_shape();
    const size_t rank = out.size();
    // data's shape and strides, padded with 1s in front to the output rank.
    Shape in_shape(rank, 1);
    std::copy(data.begin(), data.end(), in_shape.end() - static_cast<std::ptrdiff_t>(data.size()));
    const std::vector<int64_t> strides = row_major_strides(in_shape);
    const size_t elem = element_size(ctx.type(0));
    Shape view_shape;
    std::vector<int64_t> view_strides;
    for (size_t i = 0; i < rank; ++i) {
        view_shape.push_back(in_shape[i] == 0 ? 0 : out[i] / in_shape[i]);  // the repeat
        view_strides.push_back(0);
        view_shape.push_back(in_shape[i]);
        view_strides.push_back(strides[i] * static_cast<int64_t>(elem));
    }
    auto plan = std::make_unique<TilePlan>();
    plan->copy = detail::plan_view_copy(tensor_storage_bytes(ctx.type(0), data), 0, view_shape, view_strides, elem);
    plan->method = "view-copy";
    return plan;
}

void compute(KernelContext& ctx) {
    detail::run_copy(ctx.plan<TilePlan>().copy, ctx.input(0).data(), ctx.output(0).data(), ctx.pool());
}

}  // namespace

OpDef make_tile_op() {
    OpDef d;
    d.type = "Tile";
    d.version = 1;
    d.input_roles = {"data", "repeats"};
    d.min_inputs = 2;
    d.value_inputs = inputs(1);
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace irlite
