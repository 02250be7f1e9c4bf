// Roll-7 (opset7+): elements shifted cyclically along axes.
// Inputs: 0 'data' (any type), 1 'shift' (i32/i64 scalar or 1-D), 2 'axes' (i32/i64 scalar or
// 1-D, values in [-r, r-1]). A scalar shift applies to every axis; otherwise shift and axes have
// the same length. Shifts of a repeated axis add up. out[..., (i + s) mod d, ...] = in[..., i, ...]
// (a positive shift moves elements towards higher indices; any integer shift, reduced mod d).
// The kernel moves bytes (every type): along the innermost rolled dim each row is two memcpy of
// everything below it.
#include <cstring>

#include "engine/op.hpp"
#include "kernels/detail/index_values.hpp"
#include "kernels/detail/small_buffer.hpp"

namespace irlite {
namespace {

constexpr size_t kData = 0, kShift = 1, kAxes = 2;

void require_vector(const InferContext& ctx, size_t port) {
    detail::require_index_type(ctx, port, detail::IndexTypes::I32OrI64);
    const PartialShape& s = ctx.shape(port);
    if (s.rank_known() && s.rank() > 1)
        throw ctx.input_error(port, ErrorKind::ShapeRule, "rank-invalid",
                              str(ctx.def().input_role(port), " must be a scalar or a 1-D tensor, got shape ", to_string(s)));
}

// The shift of every dim (mod its size), when shift and axes are known.
std::optional<std::vector<int64_t>> dim_shifts(const InferContext& ctx, const Shape* shape, int64_t rank) {
    const Tensor* shift = ctx.value(kShift);
    const Tensor* axes = ctx.value(kAxes);
    if (!shift || !axes) return std::nullopt;
    const std::vector<int64_t> s = detail::read_index_values(*shift);
    const std::vector<int64_t> a = detail::read_index_values(*axes);
    if (shift->rank() == 1 && s.size() != a.size())
        throw ctx.input_error(kShift, ErrorKind::ShapeRule, "shape-mismatch",
                              str("shift (", s.size(), " values) and axes (", a.size(), " values) differ in length"));
    std::vector<int64_t> per_dim(static_cast<size_t>(rank), 0);
    for (size_t i = 0; i < a.size(); ++i) {
        const int64_t axis = detail::normalize_axis_at(ctx, kAxes, a[i], rank);
        const int64_t value = shift->rank() == 0 ? s[0] : s[i];
        if (!shape) continue;
        const int64_t dim = (*shape)[static_cast<size_t>(axis)];
        if (dim == 0) continue;
        int64_t& total = per_dim[static_cast<size_t>(axis)];
        total = ((total + value % dim) % dim + dim) % dim;
    }
    return per_dim;
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    require_vector(ctx, kShift);
    require_vector(ctx, kAxes);
    const PartialShape& data = ctx.shape(kData);
    if (data.rank_known()) dim_shifts(ctx, nullptr, static_cast<int64_t>(data.rank()));
    return {{ctx.type(kData), data}};
}

struct RollPlan : OpPlan {
    std::vector<int64_t> dims;    // dims 0..last rolled dim
    std::vector<int64_t> shifts;  // per dim of `dims`
    std::vector<size_t> strides;  // bytes, per dim of `dims`
    size_t inner_bytes = 0;       // everything below the last rolled dim
    int64_t elements = 0;
};

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    infer(ctx);
    const Shape& shape = ctx.shape(kData).dims();
    const std::vector<int64_t> shifts = *dim_shifts(ctx, &shape, static_cast<int64_t>(shape.size()));
    auto plan = std::make_unique<RollPlan>();
    plan->elements = checked_num_elements(shape);
    size_t last = 0;  // one past the last rolled dim
    for (size_t d = 0; d < shifts.size(); ++d)
        if (shifts[d] != 0) last = d + 1;
    size_t inner = element_size(ctx.type(kData));
    for (size_t d = last; d < shape.size(); ++d) inner *= static_cast<size_t>(shape[d]);
    plan->inner_bytes = inner;
    plan->dims.assign(shape.begin(), shape.begin() + static_cast<std::ptrdiff_t>(last));
    plan->shifts.assign(shifts.begin(), shifts.begin() + static_cast<std::ptrdiff_t>(last));
    plan->strides.resize(last);
    size_t stride = inner;
    for (size_t d = last; d-- > 0;) {
        plan->strides[d] = stride;
        stride *= static_cast<size_t>(shape[d]);
    }
    if (last == 0) plan->views.push_back({0, 0, 0});  // nothing moves
    plan->method = last == 0 ? "view" : "roll";
    return plan;
}

void compute(KernelContext& ctx) {
    const auto& plan = ctx.plan<RollPlan>();
    const Tensor& data = ctx.input(kData);
    Tensor& out = ctx.output(0);
    IRLITE_CHECK(out.byte_size() == data.byte_size(), ErrorKind::ShapeRule, "kernel-output-mismatch",
                 "output disagrees with the plan");
    if (plan.elements == 0) return;
    const auto* src = static_cast<const std::byte*>(data.data());
    auto* dst = static_cast<std::byte*>(out.data());
    if (plan.dims.empty()) {
        if (dst != src) std::memcpy(dst, src, data.byte_size());
        return;
    }
    // Odometer over every dim but the last rolled one; that one is copied in two runs.
    const size_t outer_dims = plan.dims.size() - 1;
    const int64_t len = plan.dims.back(), s = plan.shifts.back();
    const size_t row = plan.inner_bytes;
    detail::SmallBuffer<int64_t> at(outer_dims);
    int64_t rows = 1;
    for (size_t d = 0; d < outer_dims; ++d) rows *= plan.dims[d];
    for (int64_t r = 0; r < rows; ++r) {
        size_t out_off = 0, in_off = 0;
        for (size_t d = 0; d < outer_dims; ++d) {
            out_off += static_cast<size_t>(at[d]) * plan.strides[d];
            // The element at output index i came from input index i - shift.
            const int64_t from = (at[d] - plan.shifts[d] + plan.dims[d]) % plan.dims[d];
            in_off += static_cast<size_t>(from) * plan.strides[d];
        }
        // Output [0, s) <- input [len - s, len); output [s, len) <- input [0, len - s).
        std::memcpy(dst + out_off, src + in_off + static_cast<size_t>(len - s) * row, static_cast<size_t>(s) * row);
        std::memcpy(dst + out_off + static_cast<size_t>(s) * row, src + in_off, static_cast<size_t>(len - s) * row);
        for (size_t d = outer_dims; d-- > 0;) {
            if (++at[d] < plan.dims[d]) break;
            at[d] = 0;
        }
    }
}

}  // namespace

OpDef make_roll_op() {
    OpDef d;
    d.type = "Roll";
    d.version = 7;
    d.input_roles = {"data", "shift", "axes"};
    d.min_inputs = 3;
    d.value_inputs = (1u << kShift) | (1u << kAxes);
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace irlite
