// ScatterUpdate-3 (opset3+): a copy of data in which whole slices along `axis` are replaced.
// Inputs: 0 'data' (any type, rank r >= 1); 1 'indices' (any integer type, any shape, values in
// [0, d - 1] with d = data.shape[axis]); 2 'updates' (data's type, shape data.shape[:axis] +
// indices.shape + data.shape[axis+1:]); 3 'axis' (integer scalar or one-element 1-D, in [-r, r-1]).
//   out[a..., indices[i...], b...] = updates[a..., i..., b...]
// Indices apply in row-major order, so with repeated indices the last update wins (the spec leaves
// the order undefined; irlite picks this one). A negative index is an error, as the spec and
// OpenVINO's CPU plugin have it (ScatterElementsUpdate, not this op, counts from the end).
// The kernel moves bytes: every element type. The output may be data's own buffer (in place: the
// cost is then O(updates)).
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "engine/op.hpp"
#include "kernels/detail/index_values.hpp"
#include "kernels/detail/parallel.hpp"

namespace irlite {
namespace {

constexpr size_t kData = 0, kIndices = 1, kUpdates = 2, kAxis = 3;

// The axis value, normalized into [0, rank); nullopt when not known yet.
std::optional<int64_t> known_axis(const InferContext& ctx, int64_t rank) {
    const Tensor* value = ctx.value(kAxis);
    if (!value) return std::nullopt;
    const std::vector<int64_t> v = detail::read_index_values(*value);
    if (v.size() != 1)
        throw ctx.input_error(kAxis, ErrorKind::ShapeRule, "axis-shape",
                              str("axis must hold exactly one value, got ", v.size(), " (shape ",
                                  to_string(value->shape()), ")"));
    return detail::normalize_axis_at(ctx, kAxis, v[0], rank);
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    detail::require_index_type(ctx, kIndices, detail::IndexTypes::AnyInteger);
    detail::require_index_type(ctx, kAxis, detail::IndexTypes::AnyInteger);
    if (ctx.type(kUpdates) != ctx.type(kData))
        throw ctx.input_error(kUpdates, ErrorKind::Type, "element-type-mismatch",
                              str("updates has element type ", to_string(ctx.type(kUpdates)), ", data has ",
                                  to_string(ctx.type(kData)), "; they must be the same"));
    const PartialShape& data = ctx.shape(kData);
    const PartialShape& indices = ctx.shape(kIndices);
    const PartialShape& updates = ctx.shape(kUpdates);
    if (data.rank_known() && data.rank() == 0)
        throw ctx.input_error(kData, ErrorKind::ShapeRule, "rank-invalid", "data must have rank >= 1, got a scalar");
    const PartialShape& axis_shape = ctx.shape(kAxis);
    if (axis_shape.rank_known() && (axis_shape.rank() > 1 || (axis_shape.rank() == 1 && !dims_compatible(axis_shape[0], 1))))
        throw ctx.input_error(kAxis, ErrorKind::ShapeRule, "axis-shape",
                              str("axis must be a scalar or a one-element 1-D tensor, got shape ", to_string(axis_shape)));
    if (!data.rank_known()) return {{ctx.type(kData), data}};
    const auto rank = static_cast<int64_t>(data.rank());
    const std::optional<int64_t> axis = known_axis(ctx, rank);
    if (axis && indices.rank_known() && updates.rank_known()) {
        // updates = data[:axis] + indices + data[axis+1:]
        std::vector<int64_t> expected(data.dims().begin(), data.dims().begin() + *axis);
        expected.insert(expected.end(), indices.dims().begin(), indices.dims().end());
        expected.insert(expected.end(), data.dims().begin() + *axis + 1, data.dims().end());
        if (!shapes_compatible(PartialShape(expected), updates))
            throw ctx.input_error(kUpdates, ErrorKind::ShapeRule, "updates-shape",
                                  str("updates shape ", to_string(updates), " must be data.shape[:axis] + indices.shape",
                                      " + data.shape[axis+1:] = ", to_string(PartialShape(expected)), " (axis ", *axis,
                                      ")"));
    }
    if (axis && ctx.value(kIndices) && data[static_cast<size_t>(*axis)] != kDynamic) {
        const int64_t size = data[static_cast<size_t>(*axis)];
        const std::vector<int64_t> values = detail::read_index_values(*ctx.value(kIndices));
        for (size_t p = 0; p < values.size(); ++p)
            if (values[p] < 0 || values[p] >= size)
                throw ctx.input_error(kIndices, ErrorKind::Value, "index-out-of-range",
                                      str("indices", detail::position_text(ctx.value(kIndices)->shape(), static_cast<int64_t>(p)),
                                          " = ", values[p], ": ", detail::value_range_message(values[p], 0, size - 1),
                                          " (data dim ", *axis, " has size ", size, "; ScatterUpdate takes no negative index)"));
    }
    return {{ctx.type(kData), data}};
}

// outer x [axis dim] x inner bytes: each index moves `outer` slices of `inner` bytes.
struct ScatterUpdatePlan : OpPlan {
    int64_t outer = 1, axis_size = 0, count = 0;  // count: number of indices
    size_t inner_bytes = 0;
};

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    infer(ctx);
    const Shape& data = ctx.shape(kData).dims();
    const auto axis = static_cast<size_t>(*known_axis(ctx, static_cast<int64_t>(data.size())));
    auto plan = std::make_unique<ScatterUpdatePlan>();
    plan->outer = checked_num_elements(Shape(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(axis)));
    plan->axis_size = data[axis];
    plan->count = checked_num_elements(ctx.shape(kIndices).dims());
    plan->inner_bytes = static_cast<size_t>(checked_num_elements(Shape(data.begin() + static_cast<std::ptrdiff_t>(axis) + 1, data.end()))) *
                        element_size(ctx.type(kData));
    plan->in_place.push_back({0, static_cast<int>(kData)});
    plan->method = "scatter";
    return plan;
}

// Every index in [0, axis_size - 1], even where nothing is moved (empty slices): the spec rejects
// an index that points to no element.
template <class Index>
void check_indices(const KernelContext& ctx, const ScatterUpdatePlan& plan, const Tensor& indices) {
    const Index* idx = indices.data<Index>();
    for (int64_t k = 0; k < plan.count; ++k) {
        // Unsigned indices above INT64_MAX stay out of range.
        const bool huge = std::is_unsigned_v<Index> && static_cast<uint64_t>(idx[k]) > static_cast<uint64_t>(INT64_MAX);
        const auto i = huge ? INT64_MAX : static_cast<int64_t>(idx[k]);
        if (i < 0 || i >= plan.axis_size)
            throw ctx.input_error(kIndices, ErrorKind::Value, "index-out-of-range",
                                  str("indices", detail::position_text(indices.shape(), k), " = ", i, ": ",
                                      detail::value_range_message(i, 0, plan.axis_size - 1),
                                      " (ScatterUpdate takes no negative index)"));
    }
}

template <class Index>
void scatter(const KernelContext& ctx, const ScatterUpdatePlan& plan, const Tensor& indices, const std::byte* updates,
             std::byte* out) {
    const Index* idx = indices.data<Index>();
    const size_t inner = plan.inner_bytes;
    check_indices<Index>(ctx, plan, indices);
    if (inner == 0 || plan.outer == 0) return;
    // Row-major over updates: for each outer slice, the indices in order (the last repeat wins).
    for (int64_t o = 0; o < plan.outer; ++o)
        for (int64_t k = 0; k < plan.count; ++k) {
            const auto i = static_cast<int64_t>(idx[k]);
            std::memcpy(out + (static_cast<size_t>(o * plan.axis_size + i)) * inner,
                        updates + static_cast<size_t>(o * plan.count + k) * inner, inner);
        }
}

void compute(KernelContext& ctx) {
    const auto& plan = ctx.plan<ScatterUpdatePlan>();
    const Tensor& data = ctx.input(kData);
    const Tensor& indices = ctx.input(kIndices);
    const Tensor& updates = ctx.input(kUpdates);
    Tensor& out = ctx.output(0);
    IRLITE_CHECK(out.byte_size() == data.byte_size() &&
                     static_cast<size_t>(updates.byte_size()) ==
                         static_cast<size_t>(plan.outer * plan.count) * plan.inner_bytes,
                 ErrorKind::ShapeRule, "kernel-output-mismatch", "inputs and output disagree with the shape rule");
    detail::parallel_memcpy(ctx.pool(), out.data(), data.data(), data.byte_size());
    switch (indices.type()) {
        case ElementType::i8: return scatter<int8_t>(ctx, plan, indices, updates.bytes(), out.bytes());
        case ElementType::i16: return scatter<int16_t>(ctx, plan, indices, updates.bytes(), out.bytes());
        case ElementType::i32: return scatter<int32_t>(ctx, plan, indices, updates.bytes(), out.bytes());
        case ElementType::u8: return scatter<uint8_t>(ctx, plan, indices, updates.bytes(), out.bytes());
        case ElementType::u16: return scatter<uint16_t>(ctx, plan, indices, updates.bytes(), out.bytes());
        case ElementType::u32: return scatter<uint32_t>(ctx, plan, indices, updates.bytes(), out.bytes());
        case ElementType::u64: return scatter<uint64_t>(ctx, plan, indices, updates.bytes(), out.bytes());
        default: return scatter<int64_t>(ctx, plan, indices, updates.bytes(), out.bytes());
    }
}

}  // namespace

OpDef make_scatter_update_op() {
    OpDef d;
    d.type = "ScatterUpdate";
    d.version = 3;
    d.input_roles = {"data", "indices", "updates", "axis"};
    d.min_inputs = 4;
    d.value_inputs = 1u << kAxis;
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace irlite
