// StridedSlice-1 (opset1+): numpy-style basic slicing x[b0:e0:s0, ..., np.newaxis, ..., k, ...].
// Inputs: 0 'data' (any type), 1 'begin', 2 'end', 3 'stride' (optional, default 1s): 1-D, any
// integer type, equal lengths M; value inputs.
// Attributes (lists of 0/1; shorter lists are padded with 0s, longer ones ignored past M):
//   begin_mask, end_mask (required): 1 ignores begin[i] / end[i] and uses the dim's full extent.
//   new_axis_mask: 1 inserts a dim of size 1 (begin/end/stride ignored, no data dim consumed).
//   shrink_axis_mask: 1 takes the single element begin[i] (in [-d, d-1], else an error) and drops
//     the dim.
//   ellipsis_mask: at most one 1; that entry stands for as many full dims as the other entries leave.
// Clamping (OpenVINO's): negative begin/end count from the end; then, with a positive stride, both
// are clamped into [0, d]; with a negative stride begin is clamped into [0, d-1] and end into
// [-1, d] (end_mask with a negative stride includes element 0). A stride of 0 is an error.
// Dims past the last entry are kept whole. Kernel: one byte-level view copy (negative strides read
// backwards), any element type.
#include <algorithm>
#include <limits>

#include "engine/op.hpp"
#include "engine/tensor_size.hpp"
#include "kernels/detail/index_values.hpp"
#include "kernels/detail/strided_copy.hpp"

namespace irlite {
namespace {

struct StridedSliceAttrs : OpAttrs {
    std::vector<int64_t> begin_mask, end_mask, new_axis_mask, shrink_axis_mask, ellipsis_mask;
};

bool bit(const std::vector<int64_t>& mask, size_t i) { return i < mask.size() && mask[i] != 0; }

// One output dim of the view: `size` elements, read from data dim `data_dim` (-1 for a new axis)
// starting at `start` in steps of `step`.
struct ViewDim {
    int64_t size, data_dim, start, step;
};

struct SlicePlan {
    std::vector<ViewDim> dims;  // output dims, in order
    std::vector<std::pair<int64_t, int64_t>> shrunk;  // (data dim, index) of removed dims
};

// The slice of one data dim of static size n. Returns {start, count}.
std::pair<int64_t, int64_t> slice_dim(int64_t n, int64_t begin, int64_t end, int64_t step, bool begin_masked,
                                      bool end_masked) {
    if (n == 0) return {0, 0};
    int64_t lb = begin, ub = end;
    if (step > 0) {
        if (begin_masked) lb = 0;
        else if (lb < 0) lb = std::max<int64_t>(n + lb, 0);
        if (end_masked) ub = n;
        else if (ub < 0) ub = std::max<int64_t>(n + ub, 0);
        lb = std::min(lb, n);
        ub = std::min(ub, n);
        // ceil((ub - lb) / step) without overflow: both lie in [0, n].
        return {lb, ub > lb ? (ub - lb - 1) / step + 1 : 0};
    }
    if (begin_masked) lb = n - 1;
    else if (lb < 0) lb = std::max<int64_t>(n + lb, 0);
    if (end_masked) ub = -1;
    else if (ub < 0) ub = std::max<int64_t>(n + ub, -1);
    lb = std::min(lb, n - 1);
    ub = std::min(ub, n);
    // A step of INT64_MIN cannot be negated; any step that large takes one element.
    const int64_t mag = step == std::numeric_limits<int64_t>::min() ? std::numeric_limits<int64_t>::max() : -step;
    return {lb, lb > ub ? (lb - ub - 1) / mag + 1 : 0};
}

// Builds the plan over data dims that may be kDynamic (then sizes are kDynamic too). Throws for
// bad masks, a stride of 0 and shrink indices out of range.
SlicePlan make_plan(const InferContext& ctx, const PartialShape& data, const std::vector<int64_t>& begin,
                    const std::vector<int64_t>& end, const std::vector<int64_t>& stride) {
    const auto& a = ctx.attrs<StridedSliceAttrs>();
    const size_t m = begin.size();
    if (end.size() != m || stride.size() != m)
        throw ctx.input_error(2, ErrorKind::ShapeRule, "length-mismatch",
                              str("begin, end and stride must have equal lengths, got ", m, ", ", end.size(), " and ",
                                  stride.size()));
    const int64_t rank = static_cast<int64_t>(data.rank());
    int64_t ellipsis_at = -1, new_axes = 0;
    for (size_t i = 0; i < m; ++i) {
        if (bit(a.ellipsis_mask, i)) {
            if (ellipsis_at >= 0)
                throw Error(ErrorKind::Attribute, "attribute-invalid",
                            str("attribute 'ellipsis_mask' has more than one 1 (entries ", ellipsis_at, " and ", i, ")"));
            ellipsis_at = static_cast<int64_t>(i);
        } else if (bit(a.new_axis_mask, i)) {
            ++new_axes;
        }
    }
    const int64_t consumed = static_cast<int64_t>(m) - new_axes - (ellipsis_at >= 0 ? 1 : 0);
    if (consumed > rank)
        throw ctx.input_error(1, ErrorKind::ShapeRule, "too-many-entries",
                              str("begin has ", m, " entries slicing ", consumed, " dims, but data ", to_string(data),
                                  " has rank ", rank));
    SlicePlan plan;
    int64_t j = 0;  // next data dim
    const auto keep_whole = [&](int64_t dim) {
        plan.dims.push_back({data[static_cast<size_t>(dim)], dim, 0, 1});
    };
    for (size_t i = 0; i < m; ++i) {
        if (static_cast<int64_t>(i) == ellipsis_at) {
            for (int64_t k = 0; k < rank - consumed; ++k) keep_whole(j++);
            continue;
        }
        if (bit(a.new_axis_mask, i)) {
            plan.dims.push_back({1, -1, 0, 0});
            continue;
        }
        const int64_t n = data[static_cast<size_t>(j)];
        if (bit(a.shrink_axis_mask, i)) {
            int64_t index = begin[i];
            if (n != kDynamic) {
                if (index < -n || index >= n)
                    throw ctx.input_error(1, ErrorKind::Value, "index-out-of-range",
                                          str("begin[", i, "] = ", index, " selects one element of data dim ", j,
                                              " (shrink_axis_mask): ", detail::value_range_message(index, -n, n - 1)));
                if (index < 0) index += n;
            }
            plan.shrunk.push_back({j++, index});
            continue;
        }
        if (stride[i] == 0) throw ctx.input_error(3, ErrorKind::Value, "step-zero", str("stride[", i, "] must not be 0"));
        if (n == kDynamic) {
            plan.dims.push_back({kDynamic, j++, 0, stride[i]});
            continue;
        }
        const auto [start, count] = slice_dim(n, begin[i], end[i], stride[i], bit(a.begin_mask, i), bit(a.end_mask, i));
        plan.dims.push_back({count, j++, start, stride[i]});
    }
    while (j < rank) keep_whole(j++);
    return plan;
}

std::vector<int64_t> read_strides(const InferContext& ctx, size_t m) {
    return ctx.num_inputs() > 3 ? detail::read_index_values(ctx, 3) : std::vector<int64_t>(m, 1);
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    const auto& a = ctx.attrs<StridedSliceAttrs>();
    const ElementType type = ctx.type(0);
    int64_t length = kDynamic;  // M, when known from any of the index inputs' shapes
    for (size_t port = 1; port < ctx.num_inputs(); ++port) {
        detail::require_index_type(ctx, port, detail::IndexTypes::AnyInteger);
        const PartialShape& s = ctx.shape(port);
        if (!s.rank_known()) continue;
        if (s.rank() != 1)
            throw ctx.input_error(port, ErrorKind::ShapeRule, "rank-invalid",
                                  str(ctx.def().input_roles[port], " must be 1-D, got shape ", to_string(s)));
        if (s[0] == kDynamic) continue;
        if (length != kDynamic && s[0] != length)
            throw ctx.input_error(port, ErrorKind::ShapeRule, "length-mismatch",
                                  str("begin, end and stride must have equal lengths; ", ctx.def().input_roles[port],
                                      " has ", s[0], ", another has ", length));
        length = s[0];
    }
    const PartialShape& data = ctx.shape(0);
    const bool values_known = ctx.value(1) && ctx.value(2) && (ctx.num_inputs() <= 3 || ctx.value(3));
    if (!data.rank_known()) return {{type, PartialShape::dynamic_rank()}};
    if (!values_known) {
        if (length == kDynamic) return {{type, PartialShape::dynamic_rank()}};
        // The rank follows from the masks alone.
        const size_t m = static_cast<size_t>(length);
        int64_t rank = static_cast<int64_t>(data.rank());
        bool has_ellipsis = false;
        for (size_t i = 0; i < m; ++i) {
            if (bit(a.ellipsis_mask, i) && !has_ellipsis) has_ellipsis = true;
            else if (bit(a.new_axis_mask, i)) ++rank;
            else if (bit(a.shrink_axis_mask, i)) --rank;
        }
        return {{type, rank < 0 ? PartialShape::dynamic_rank() : PartialShape::all_dynamic(static_cast<size_t>(rank))}};
    }
    const std::vector<int64_t> begin = detail::read_index_values(ctx, 1);
    const std::vector<int64_t> end = detail::read_index_values(ctx, 2);
    const std::vector<int64_t> stride = read_strides(ctx, begin.size());
    const SlicePlan plan = make_plan(ctx, data, begin, end, stride);
    std::vector<int64_t> dims;
    for (const ViewDim& d : plan.dims) dims.push_back(d.size);
    return {{type, PartialShape(dims)}};
}

// The copy planned once: the slice as a byte-level view of the data.
struct StridedSlicePlan : OpPlan {
    detail::CopyPlan copy;
};

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    const Shape data = ctx.shape(0).to_shape();
    const std::vector<int64_t> begin = detail::read_index_values(ctx, 1);
    const SlicePlan plan = make_plan(ctx, PartialShape(data), begin, detail::read_index_values(ctx, 2),
                                     read_strides(ctx, begin.size()));
    const std::vector<int64_t> strides = row_major_strides(data);
    const int64_t elem = static_cast<int64_t>(element_size(ctx.type(0)));
    int64_t offset = 0;
    for (const auto& [dim, index] : plan.shrunk) offset += index * strides[static_cast<size_t>(dim)] * elem;
    Shape view_shape;
    std::vector<int64_t> byte_strides;
    for (const ViewDim& d : plan.dims) {
        view_shape.push_back(d.size);
        if (d.data_dim < 0 || d.size == 0) {
            byte_strides.push_back(0);
            continue;
        }
        const int64_t stride = strides[static_cast<size_t>(d.data_dim)] * elem;
        offset += d.start * stride;
        // A dim of one element never steps (its step may be huge).
        byte_strides.push_back(d.size == 1 ? 0 : d.step * stride);
    }
    auto op = std::make_unique<StridedSlicePlan>();
    op->copy = detail::plan_view_copy(tensor_storage_bytes(ctx.type(0), data), offset, view_shape, byte_strides,
                                      static_cast<size_t>(elem));
    op->method = "view-copy";
    return op;
}

void compute(KernelContext& ctx) {
    detail::run_copy(ctx.plan<StridedSlicePlan>().copy, ctx.input(0).data(), ctx.output(0).data(), ctx.pool());
}

}  // namespace

OpDef make_strided_slice_op() {
    OpDef d;
    d.type = "StridedSlice";
    d.version = 1;
    d.input_roles = {"data", "begin", "end", "stride"};
    d.min_inputs = 3;
    d.value_inputs = inputs(1, 2, 3);
    d.parse_attrs = [](const AttrReader& r) -> std::unique_ptr<OpAttrs> {
        auto a = std::make_unique<StridedSliceAttrs>();
        a->begin_mask = r.get_i64_list("begin_mask", {});
        a->end_mask = r.get_i64_list("end_mask", {});
        a->new_axis_mask = r.get_i64_list("new_axis_mask", {});
        a->shrink_axis_mask = r.get_i64_list("shrink_axis_mask", {});
        a->ellipsis_mask = r.get_i64_list("ellipsis_mask", {});
        return a;
    };
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace irlite
