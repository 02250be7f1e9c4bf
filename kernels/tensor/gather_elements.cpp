// GatherElements-6 (opset6+): out[i0, .., ia, .., ir-1] = data[i0, .., indices[i0, .., ia, .., ir-1], .., ir-1]
// along `axis` (numpy's take_along_axis).
// Inputs: 0 'data' (any type, rank r >= 1); 1 'indices' (i32 or i64, rank r; every dim but the
// axis dim equal to data's; the axis dim may be any size, 0 included).
// Attribute: axis (required, in [-r, r-1]).
// Output: data's type, indices' shape. Every index must be in [-d, d-1] with d = data.shape[axis]
// (negatives count from the end, as in ONNX); anything else is an error naming the position in
// indices. Types: data all.
#include <cstring>
#include <type_traits>

#include "engine/op.hpp"
#include "kernels/detail/index_values.hpp"
#include "kernels/detail/parallel.hpp"

namespace irlite {
namespace {

constexpr size_t kData = 0, kIndices = 1;

struct GatherElementsAttrs : OpAttrs {
    int64_t axis = 0;
};

// The attribute normalized against a rank; an error names the attribute, not a port.
int64_t normalize_axis_attr(int64_t axis, int64_t rank) {
    if (axis < -rank || axis >= rank)
        throw Error(ErrorKind::Attribute, "axis-out-of-range",
                    str("attribute 'axis' = ", axis, ": ", detail::axis_out_of_range_message(axis, rank)));
    return axis < 0 ? axis + rank : axis;
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    detail::require_index_type(ctx, kIndices, detail::IndexTypes::I32OrI64);
    const PartialShape& data = ctx.shape(kData);
    const PartialShape& indices = ctx.shape(kIndices);
    const ElementType type = ctx.type(kData);
    if (data.rank_known() && data.rank() == 0)
        throw ctx.input_error(kData, ErrorKind::ShapeRule, "rank-invalid", "data must have rank >= 1, got a scalar");
    if (indices.rank_known() && indices.rank() == 0)
        throw ctx.input_error(kIndices, ErrorKind::ShapeRule, "rank-invalid",
                              "indices must have rank >= 1, got a scalar");
    const int64_t attr_axis = ctx.attrs<GatherElementsAttrs>().axis;
    if (!data.rank_known()) {
        if (indices.rank_known()) normalize_axis_attr(attr_axis, static_cast<int64_t>(indices.rank()));
        return {{type, indices}};
    }
    const auto axis = static_cast<size_t>(normalize_axis_attr(attr_axis, static_cast<int64_t>(data.rank())));
    if (!indices.rank_known()) {
        PartialShape out = data;
        out[axis] = kDynamic;
        return {{type, out}};
    }
    if (indices.rank() != data.rank())
        throw ctx.input_error(
            kIndices, ErrorKind::ShapeRule, "rank-mismatch",
            str("indices has rank ", indices.rank(), ", data has rank ", data.rank(), "; they must be equal"));
    PartialShape out = indices;
    for (size_t d = 0; d < data.rank(); ++d) {
        if (d == axis) continue;
        if (!dims_compatible(data[d], indices[d]))
            throw ctx.input_error(
                kIndices, ErrorKind::ShapeRule, "shape-mismatch",
                str("indices shape ", to_string(indices), " differs from data shape ", to_string(data), " in dim ", d,
                    " (", indices[d], " vs ", data[d], "); only the axis dim (", axis, ") may differ"));
        if (out[d] == kDynamic) out[d] = data[d];
    }
    detail::check_known_indices(ctx, kIndices, data, [axis](int64_t) { return axis; });
    return {{type, out}};
}

// The kernel proper, for one index type and one element width (N bytes): outer x axis x inner,
// where data is [outer, data_dim, inner] and indices/out are [outer, index_dim, inner].
// out[k] = row[idx[k]] for k < n, negative indices counting from the end, every index clamped into
// the row (a bad one is reported by the caller from lo/hi, which this widens). Restrict-qualified
// and free of captures so that compilers vectorise it (AVX2/AVX-512 gathers).
template <class Index, class Item>
inline void gather_row(const Index* __restrict idx, int64_t n, const Item* __restrict row, int64_t dim,
                       Item* __restrict out, int64_t& lo_out, int64_t& hi_out) {
    int64_t lo = lo_out, hi = hi_out;
    for (int64_t k = 0; k < n; ++k) {
        const int64_t v = static_cast<int64_t>(idx[k]);
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
        const int64_t w = v < 0 ? v + dim : v;
        out[k] = row[static_cast<uint64_t>(w) < static_cast<uint64_t>(dim) ? w : 0];
    }
    lo_out = lo;
    hi_out = hi;
}

template <class Index, size_t N>
void gather(const KernelContext& ctx, const Tensor& data, const Tensor& indices, Tensor& out, size_t axis) {
    const Shape& shape = indices.shape();
    int64_t outer = 1, inner = 1;
    for (size_t d = 0; d < axis; ++d) outer *= shape[d];
    for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
    const int64_t data_dim = data.shape()[axis], index_dim = shape[axis];
    const Index* idx = indices.data<Index>();
    const std::byte* src = data.bytes();
    std::byte* dst = out.bytes();
    // Rows of `inner` elements (one per (outer, j) pair) are independent: shared among the threads.
    const int64_t grain = std::max<int64_t>(1, detail::kCopyGrainBytes / static_cast<int64_t>(N) / std::max<int64_t>(inner, 1));
    using Item = std::conditional_t<N == 1, uint8_t, std::conditional_t<N == 2, uint16_t, std::conditional_t<N == 4, uint32_t, uint64_t>>>;
    if (inner == 1 && reinterpret_cast<uintptr_t>(src) % N == 0 && reinterpret_cast<uintptr_t>(dst) % N == 0) {
        // Along the last axis: each run of indices reads one data row. One pass gathers (with the
        // index clamped into the row, so a bad index never reads outside it) and tracks the run's
        // min and max; a bad index is then reported. Reading the indices once matters: they are
        // twice the data's size (i64) and the row itself stays in cache.
        const auto* rows = reinterpret_cast<const Item*>(src);
        Item* items = reinterpret_cast<Item*>(dst);
        detail::for_chunks(ctx.pool(), outer * index_dim, grain * 4, [&, idx, rows, items](int64_t begin, int64_t end) {
            const int64_t dim = data_dim, per_row = index_dim;
            for (int64_t at = begin; at < end;) {
                const int64_t o = at / per_row, stop = std::min(end, (o + 1) * per_row);
                if (dim == 0)  // an empty row: every index points outside it
                    throw ctx.input_error(kIndices, ErrorKind::Value, "index-out-of-range",
                                          detail::index_out_of_range_message("indices", shape, at, idx[at],
                                                                             static_cast<int64_t>(axis), dim));
                int64_t lo = 0, hi = 0;
                const Item* row = rows + o * dim;
                const auto gather_run = [&](int64_t first, int64_t last, Item* to) {
                    gather_row<Index, Item>(idx + first, last - first, row, dim, to, lo, hi);
                };
                gather_run(at, stop, items + at);
                if (lo < -dim || hi >= dim)
                    for (int64_t k = at; k < stop; ++k)
                        if (idx[k] < -dim || idx[k] >= dim)
                            throw ctx.input_error(kIndices, ErrorKind::Value, "index-out-of-range",
                                                  detail::index_out_of_range_message("indices", shape, k, idx[k],
                                                                                     static_cast<int64_t>(axis), dim));
                at = stop;
            }
        });
        return;
    }
    detail::for_chunks(ctx.pool(), outer * index_dim, grain, [&, idx, src, dst](int64_t begin, int64_t end) {
        // Locals, not captured references: the stores below cannot alias them, so the loop keeps
        // everything in registers.
        const int64_t dim = data_dim, width = inner, rows_per_slab = index_dim;
        int64_t o = begin / rows_per_slab, j = begin % rows_per_slab;  // no division per row
        Item* items = reinterpret_cast<Item*>(dst);
        for (int64_t row = begin; row < end; ++row) {
            const std::byte* slab = src + o * dim * width * static_cast<int64_t>(N);
            int64_t position = row * width;  // flat position in indices (and out)
            for (int64_t i = 0; i < width; ++i, ++position) {
                // The indices stream from memory: ask for them well ahead of use; and across an
                // outer axis every read is a cache miss, so the element 16 positions ahead is
                // requested now (a prefetch never faults, whatever that index holds).
                __builtin_prefetch(idx + position + 128);
                if (width > 1 && i + 16 < width) {
                    const int64_t ahead = static_cast<int64_t>(idx[position + 16]);
                    __builtin_prefetch(slab + ((ahead < 0 ? ahead + dim : ahead) * width + i + 16) * static_cast<int64_t>(N));
                }
                int64_t v = idx[position];
                if (v < -dim || v >= dim)
                    throw ctx.input_error(kIndices, ErrorKind::Value, "index-out-of-range",
                                          detail::index_out_of_range_message("indices", shape, position, v,
                                                                             static_cast<int64_t>(axis), dim));
                if (v < 0) v += dim;
                Item item;
                std::memcpy(&item, slab + (v * width + i) * static_cast<int64_t>(N), N);
                items[position] = item;
            }
            if (++j == rows_per_slab) j = 0, ++o;
        }
    });
}

template <class Index>
void gather_any_width(const KernelContext& ctx, const Tensor& data, const Tensor& indices, Tensor& out, size_t axis) {
    switch (element_size(data.type())) {
        case 1:
            return gather<Index, 1>(ctx, data, indices, out, axis);
        case 2:
            return gather<Index, 2>(ctx, data, indices, out, axis);
        case 4:
            return gather<Index, 4>(ctx, data, indices, out, axis);
        case 8:
            return gather<Index, 8>(ctx, data, indices, out, axis);
    }
    throw Error(ErrorKind::Unsupported, "element-size",
                str("element size ", element_size(data.type()), " unsupported"));
}

void compute(KernelContext& ctx) {
    const Tensor& data = ctx.input(kData);
    const Tensor& indices = ctx.input(kIndices);
    Tensor& out = ctx.output(0);
    const auto axis = static_cast<size_t>(
        normalize_axis_attr(ctx.attrs<GatherElementsAttrs>().axis, static_cast<int64_t>(data.rank())));
    bool consistent = (indices.type() == ElementType::i32 || indices.type() == ElementType::i64) &&
                      indices.rank() == data.rank() && out.shape() == indices.shape() && out.type() == data.type();
    for (size_t d = 0; consistent && d < data.rank(); ++d)
        consistent = d == axis || data.shape()[d] == indices.shape()[d];
    IRLITE_CHECK(consistent, ErrorKind::ShapeRule, "kernel-output-mismatch", "data ", to_string(data.shape()),
                 ", indices ", to_string(indices.shape()), " and output ", to_string(out.shape()),
                 " disagree with the shape rule");
    if (indices.type() == ElementType::i32)
        gather_any_width<int32_t>(ctx, data, indices, out, axis);
    else
        gather_any_width<int64_t>(ctx, data, indices, out, axis);
}

}  // namespace

OpDef make_gather_elements_op() {
    OpDef d;
    d.type = "GatherElements";
    d.version = 6;
    d.first_opset = 6;
    d.input_roles = {"data", "indices"};
    d.min_inputs = 2;
    d.parse_attrs = [](const AttrReader& r) -> std::unique_ptr<OpAttrs> {
        auto a = std::make_unique<GatherElementsAttrs>();
        a->axis = r.get_i64("axis");
        return a;
    };
    d.infer = infer;
    d.compute = compute;
    return d;
}

}  // namespace irlite
