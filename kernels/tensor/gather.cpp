// Gather-1 (opset1..opset6), Gather-7 (opset7) and Gather-8 (opset8+): takes slices of 'data' along
// one axis at the positions listed in 'indices'.
// Inputs: 0 'data' (any type), 1 'indices' (any integer type, any rank; 0-D allowed),
//   2 'axis' (scalar or shape [1], any integer type; a value input; in [-r, r-1]).
// Attribute batch_dims (v7, v8; default 0; negative counts from indices' rank): the first
//   batch_dims dims of data and indices are batch dims that must agree, and batch_dims <= axis.
// Output shape: data.shape[:axis] + indices.shape[batch_dims:] + data.shape[axis+1:].
// Index values: v <  0 counts from the end (v + data.shape[axis]). Out of [-d, d-1]: Gather-8 fills
//   that slice with zeros (its spec's rule); Gather-1 and Gather-7 raise an error naming the index.
// Kernel: one block copy of prod(data.shape[axis+1:]) elements per index, any element type.
#include <algorithm>
#include <cstring>

#include "engine/op.hpp"
#include "kernels/detail/index_values.hpp"

namespace irlite {
namespace {

struct GatherAttrs : OpAttrs {
    int version = 8;
    int64_t batch_dims = 0;
};

struct GatherGeometry {
    int64_t axis = 0, batch_dims = 0;
};

// Normalized axis and batch_dims; throws when they are inconsistent. Needs known ranks and axis.
GatherGeometry geometry(const InferContext& ctx, int64_t data_rank, int64_t indices_rank) {
    const auto& a = ctx.attrs<GatherAttrs>();
    const std::vector<int64_t> axis_values = detail::read_index_values(ctx, 2);
    if (axis_values.size() != 1)
        throw ctx.input_error(2, ErrorKind::ShapeRule, "not-scalar",
                              str("axis must hold one value, got ", axis_values.size()));
    GatherGeometry g;
    g.axis = detail::normalize_axis_at(ctx, 2, axis_values[0], data_rank);
    g.batch_dims = a.batch_dims < 0 ? a.batch_dims + indices_rank : a.batch_dims;
    const int64_t max_batch = std::min(data_rank, indices_rank);
    if (g.batch_dims < 0 || g.batch_dims > max_batch)
        throw Error(ErrorKind::Attribute, "attribute-invalid",
                    str("attribute 'batch_dims' = ", a.batch_dims, ": ",
                        detail::value_range_message(a.batch_dims, -max_batch, max_batch),
                        " (data rank ", data_rank, ", indices rank ", indices_rank, ")"));
    if (g.batch_dims > g.axis)
        throw Error(ErrorKind::Attribute, "attribute-invalid",
                    str("batch_dims (", g.batch_dims, ") must not exceed axis (", g.axis, ")"));
    return g;
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    detail::require_index_type(ctx, 1, detail::IndexTypes::AnyInteger);
    detail::require_index_type(ctx, 2, detail::IndexTypes::AnyInteger);
    const ElementType type = ctx.type(0);
    const PartialShape& data = ctx.shape(0);
    const PartialShape& indices = ctx.shape(1);
    const PartialShape& axis_shape = ctx.shape(2);
    if (axis_shape.rank_known() && (axis_shape.rank() > 1 || (axis_shape.rank() == 1 && !dims_compatible(axis_shape[0], 1))))
        throw ctx.input_error(2, ErrorKind::ShapeRule, "not-scalar",
                              str("axis must be a scalar or have shape [1], got ", to_string(axis_shape)));
    if (!data.rank_known() || !indices.rank_known()) return {{type, PartialShape::dynamic_rank()}};
    const int64_t data_rank = static_cast<int64_t>(data.rank());
    const int64_t indices_rank = static_cast<int64_t>(indices.rank());
    if (data_rank == 0) throw ctx.input_error(0, ErrorKind::ShapeRule, "rank-invalid", "data must have rank >= 1, got a scalar");
    if (!ctx.value(2)) {
        const int64_t b = ctx.attrs<GatherAttrs>().batch_dims;
        const int64_t batch = b < 0 ? b + indices_rank : b;
        if (batch < 0 || batch > indices_rank) return {{type, PartialShape::dynamic_rank()}};
        return {{type, PartialShape::all_dynamic(static_cast<size_t>(data_rank - 1 + indices_rank - batch))}};
    }
    const GatherGeometry g = geometry(ctx, data_rank, indices_rank);
    for (int64_t d = 0; d < g.batch_dims; ++d) {
        const size_t i = static_cast<size_t>(d);
        if (!dims_compatible(data[i], indices[i]))
            throw ctx.input_error(1, ErrorKind::ShapeRule, "dims-mismatch",
                                  str("batch dim ", d, " differs: data ", to_string(data), ", indices ",
                                      to_string(indices), " (batch_dims = ", g.batch_dims, ")"));
    }
    std::vector<int64_t> dims;
    for (int64_t d = 0; d < g.axis; ++d) {
        const size_t i = static_cast<size_t>(d);
        dims.push_back(d < g.batch_dims && data[i] == kDynamic ? indices[i] : data[i]);
    }
    for (int64_t d = g.batch_dims; d < indices_rank; ++d) dims.push_back(indices[static_cast<size_t>(d)]);
    for (int64_t d = g.axis + 1; d < data_rank; ++d) dims.push_back(data[static_cast<size_t>(d)]);
    return {{type, PartialShape(dims)}};
}

template <size_t N>
void copy_fixed(std::byte* dst, const std::byte* src) {
    std::memcpy(dst, src, N);
}

void copy_block(std::byte* dst, const std::byte* src, size_t bytes) {
    switch (bytes) {
        case 1: return copy_fixed<1>(dst, src);
        case 2: return copy_fixed<2>(dst, src);
        case 4: return copy_fixed<4>(dst, src);
        case 8: return copy_fixed<8>(dst, src);
        default: std::memcpy(dst, src, bytes);
    }
}

// The geometry planned once: [batch, pre, axis_dim, inner] data blocks, per_batch indices; the
// normalized indices go to scratch.
struct GatherPlan : OpPlan {
    GatherGeometry g;
    int64_t batch = 1, pre = 1, inner = 1, per_batch = 1, axis_dim = 0;
};

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    const Shape ds = ctx.shape(0).to_shape();
    const Shape is = ctx.shape(1).to_shape();
    auto plan = std::make_unique<GatherPlan>();
    GatherPlan& p = *plan;
    p.g = geometry(ctx, static_cast<int64_t>(ds.size()), static_cast<int64_t>(is.size()));
    for (int64_t d = 0; d < p.g.batch_dims; ++d) p.batch *= ds[static_cast<size_t>(d)];
    for (int64_t d = p.g.batch_dims; d < p.g.axis; ++d) p.pre *= ds[static_cast<size_t>(d)];
    for (size_t d = static_cast<size_t>(p.g.axis) + 1; d < ds.size(); ++d) p.inner *= ds[d];
    for (size_t d = static_cast<size_t>(p.g.batch_dims); d < is.size(); ++d) p.per_batch *= is[d];
    p.axis_dim = ds[static_cast<size_t>(p.g.axis)];
    plan->scratch_bytes = static_cast<size_t>(checked_num_elements(is)) * sizeof(int64_t);
    plan->method = "blocks";
    return plan;
}

void compute(KernelContext& ctx) {
    const Tensor& data = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    Tensor& out = ctx.output(0);
    const GatherPlan& p = ctx.plan<GatherPlan>();
    const int64_t axis_dim = p.axis_dim;
    const size_t block = static_cast<size_t>(p.inner) * element_size(data.type());
    const bool zero_fill = ctx.attrs<GatherAttrs>().version >= 8;

    // Normalize and check every index once, not once per outer slice.
    auto* idx = static_cast<int64_t*>(ctx.scratch());
    detail::read_index_values(indices, idx);
    for (int64_t k = 0; k < indices.num_elements(); ++k) {
        const int64_t v = idx[k];
        if (v < -axis_dim || v >= axis_dim) {
            if (!zero_fill)
                throw ctx.input_error(1, ErrorKind::Value, "index-out-of-range",
                                      detail::index_out_of_range_message("indices", indices.shape(), k, v, p.g.axis, axis_dim));
            idx[k] = -1;  // marks a zero slice
            continue;
        }
        idx[k] = v < 0 ? v + axis_dim : v;
    }
    const std::byte* src = data.bytes();
    std::byte* dst = out.bytes();
    for (int64_t b = 0; b < p.batch; ++b) {
        const int64_t* batch_idx = idx + b * p.per_batch;
        for (int64_t q = 0; q < p.pre; ++q) {
            const std::byte* slab = src + static_cast<size_t>((b * p.pre + q) * axis_dim) * block;
            for (int64_t j = 0; j < p.per_batch; ++j, dst += block) {
                if (batch_idx[j] < 0) std::memset(dst, 0, block);
                else copy_block(dst, slab + static_cast<size_t>(batch_idx[j]) * block, block);
            }
        }
    }
}

OpDef make_gather(int version, int first_opset, int last_opset) {
    OpDef d;
    d.type = "Gather";
    d.version = version;
    d.first_opset = first_opset;
    d.last_opset = last_opset;
    d.input_roles = {"data", "indices", "axis"};
    d.min_inputs = 3;
    d.value_inputs = inputs(2);
    d.parse_attrs = [version](const AttrReader& r) -> std::unique_ptr<OpAttrs> {
        auto a = std::make_unique<GatherAttrs>();
        a->version = version;
        if (version >= 7) a->batch_dims = r.get_i64("batch_dims", 0);
        return a;
    };
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace

OpDef make_gather_1_op() { return make_gather(1, 1, 6); }
OpDef make_gather_7_op() { return make_gather(7, 7, 7); }
OpDef make_gather_8_op() { return make_gather(8, 8, kLatestOpset); }

}  // namespace irlite
