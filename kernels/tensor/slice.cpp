// Slice-8 (opset8+): Python-style slicing along chosen axes.
// Inputs: 0 'data' (any type, rank >= 1); 1 'start', 2 'stop', 3 'step' (1-D, equal lengths
// <= rank); 4 'axes' (optional, 1-D, same length, unique, each in [-r, r-1]; default 0..len-1).
// Index inputs may be any of i8..i64, u8..u64, mixed freely. No attributes. Types: data all.
// Per sliced axis of dim d, with x < 0 read as x + d:
//   step > 0: lo = clamp(start, 0, d),   hi = clamp(stop, 0, d),    len = ceil((hi - lo) / step)
//   step < 0: lo = clamp(start, -1, d-1), hi = clamp(stop, -1, d-1), len = ceil((lo - hi) / -step)
// (len >= 0; any int64 value, INT64_MIN/MAX included, is clamped without overflow); output
// element i along the axis is data[lo + i * step]. step 0 is an error; empty outputs are legal.
// Build time: with axes unknown every dim is dynamic; with start/stop/step unknown the listed
// axes are (a dim of 0 stays 0 either way).
#include <algorithm>
#include <optional>

#include "engine/op.hpp"
#include "kernels/detail/parallel.hpp"
#include "kernels/detail/index_values.hpp"
#include "kernels/detail/strided_copy.hpp"

namespace irlite {
namespace {

using detail::read_index_values;

constexpr size_t kData = 0, kStart = 1, kStop = 2, kStep = 3, kAxes = 4;

// One data dim as the kernel reads it: `length` elements from `start` in steps of `step`.
struct AxisSlice {
    int64_t start = 0, step = 1, length = 0;
};

AxisSlice slice_axis(int64_t start, int64_t stop, int64_t step, int64_t dim) {
    // x + dim cannot overflow: x < 0 <= dim.
    if (start < 0) start += dim;
    if (stop < 0) stop += dim;
    AxisSlice s;
    s.step = step;
    if (step > 0) {
        const int64_t lo = std::clamp<int64_t>(start, 0, dim), hi = std::clamp<int64_t>(stop, 0, dim);
        s.start = lo;
        s.length = hi > lo ? (hi - lo - 1) / step + 1 : 0;  // ceil without computing hi - lo + step
    } else if (dim > 0) {
        // A start still below 0 after normalisation lies before the first element: with a negative
        // step nothing is taken (Python: start = -1), so it clamps to -1, not to 0.
        const int64_t lo = std::clamp<int64_t>(start, -1, dim - 1), hi = std::clamp<int64_t>(stop, -1, dim - 1);
        s.start = lo;
        const uint64_t magnitude = uint64_t{0} - static_cast<uint64_t>(step);  // |INT64_MIN| fits
        s.length = lo > hi ? static_cast<int64_t>(static_cast<uint64_t>(lo - hi - 1) / magnitude) + 1 : 0;
    }
    return s;
}

// What the index inputs say, as far as they are known; every known value already validated.
struct SliceRequest {
    std::optional<std::vector<int64_t>> axes;  // normalized into [0, rank)
    std::optional<std::vector<int64_t>> start, stop, step;
};

const char* role(size_t port) {
    static const char* roles[] = {"data", "start", "stop", "step", "axes"};
    return roles[port];
}

// Types and ranks of the index inputs, and their lengths against each other and the data rank
// (rank < 0: unknown). Returns the common length when some input's length is static.
std::optional<int64_t> check_index_shapes(const InferContext& ctx, int64_t rank) {
    std::optional<int64_t> length;
    size_t length_port = kStart;
    for (size_t port = kStart; port < ctx.num_inputs(); ++port) {
        detail::require_index_type(ctx, port, detail::IndexTypes::AnyInteger);
        const PartialShape& s = ctx.shape(port);
        if (!s.rank_known()) continue;
        if (s.rank() != 1)
            throw ctx.input_error(port, ErrorKind::ShapeRule, "rank-invalid",
                                  str(role(port), " must be a 1-D tensor, got shape ", to_string(s)));
        const int64_t n = s[0];
        if (n == kDynamic) continue;
        if (rank >= 0 && n > rank)
            throw ctx.input_error(port, ErrorKind::ShapeRule, "length-invalid",
                                  str(role(port), " has ", n, " elements, more than the data rank ", rank));
        if (length && *length != n) {
            const std::string what = port == kAxes ? "axes must have as many elements as start, stop and step"
                                                   : "start, stop and step must have the same number of elements";
            throw ctx.input_error(port, ErrorKind::ShapeRule, "length-mismatch",
                                  str(what, ": ", role(port), " has ", n, ", ", role(length_port), " has ", *length));
        }
        length = n;
        length_port = port;
    }
    return length;
}

std::vector<int64_t> read_axes(const InferContext& ctx, int64_t rank) {
    std::vector<int64_t> axes = read_index_values(ctx, kAxes);
    std::vector<int64_t> first_use(static_cast<size_t>(rank), -1);
    for (size_t j = 0; j < axes.size(); ++j) {
        const int64_t a = axes[j];
        if (a < -rank || a >= rank)
            throw ctx.input_error(kAxes, ErrorKind::Value, "axis-out-of-range",
                                  str("axes[", j, "] = ", a, ": ", detail::axis_out_of_range_message(a, rank)));
        axes[j] = a < 0 ? a + rank : a;
        int64_t& seen = first_use[static_cast<size_t>(axes[j])];
        if (seen >= 0)
            throw ctx.input_error(kAxes, ErrorKind::Value, "axes-duplicate",
                                  str("axes[", j, "] = ", a, " names axis ", axes[j], " again (axes[", seen,
                                      "] = ", ctx.value(kAxes)->value_as_int64(seen), "); axes must be unique"));
        seen = static_cast<int64_t>(j);
    }
    return axes;
}

SliceRequest read_request(const InferContext& ctx, int64_t rank, std::optional<int64_t> length) {
    SliceRequest r;
    if (ctx.num_inputs() > kAxes) {
        if (ctx.value(kAxes)) r.axes = read_axes(ctx, rank);
    } else if (length) {
        r.axes = std::vector<int64_t>(static_cast<size_t>(*length));
        for (int64_t j = 0; j < *length; ++j) (*r.axes)[static_cast<size_t>(j)] = j;
    }
    if (ctx.value(kStart)) r.start = read_index_values(ctx, kStart);
    if (ctx.value(kStop)) r.stop = read_index_values(ctx, kStop);
    if (ctx.value(kStep)) {
        r.step = read_index_values(ctx, kStep);
        for (size_t j = 0; j < r.step->size(); ++j)
            if ((*r.step)[j] == 0)
                throw ctx.input_error(kStep, ErrorKind::Value, "step-zero",
                                      str("step[", j, "] = 0: step must not be 0"));
    }
    return r;
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    const PartialShape& data = ctx.shape(kData);
    const int64_t rank = data.rank_known() ? static_cast<int64_t>(data.rank()) : -1;
    if (rank == 0)
        throw ctx.input_error(kData, ErrorKind::ShapeRule, "rank-invalid", "data must have rank >= 1, got a scalar");
    const std::optional<int64_t> length = check_index_shapes(ctx, rank);
    if (rank < 0) return {{ctx.type(kData), PartialShape::dynamic_rank()}};
    const SliceRequest r = read_request(ctx, rank, length);

    std::vector<int64_t> dims = data.dims();
    const auto unknown_length = [&](size_t axis) {
        if (dims[axis] != 0) dims[axis] = kDynamic;
    };
    if (!r.axes) {
        for (size_t axis = 0; axis < dims.size(); ++axis) unknown_length(axis);
    } else if (!r.start || !r.stop || !r.step) {
        for (int64_t axis : *r.axes) unknown_length(static_cast<size_t>(axis));
    } else {
        for (size_t j = 0; j < r.axes->size(); ++j) {
            const auto axis = static_cast<size_t>((*r.axes)[j]);
            if (dims[axis] != kDynamic)
                dims[axis] = slice_axis((*r.start)[j], (*r.stop)[j], (*r.step)[j], dims[axis]).length;
        }
    }
    return {{ctx.type(kData), PartialShape(dims)}};
}

// The copy, planned once: a slice that is one run of the data's bytes (step 1 along the outermost
// dim it cuts, whole dims inside it) becomes a view of the data.
struct SlicePlan : OpPlan {
    detail::CopyPlan copy;
};

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    const PartialShape& data = ctx.shape(kData);
    const auto rank = static_cast<int64_t>(data.rank());
    if (rank == 0)
        throw ctx.input_error(kData, ErrorKind::ShapeRule, "rank-invalid", "data must have rank >= 1, got a scalar");
    const SliceRequest r = read_request(ctx, rank, check_index_shapes(ctx, rank));
    IRLITE_CHECK(r.axes && r.start && r.stop && r.step, ErrorKind::Value, "slice-unresolved",
                 "start, stop, step and axes must all be known to run Slice");
    const Shape data_shape = data.to_shape();
    std::vector<AxisSlice> axes(data_shape.size());
    for (size_t axis = 0; axis < axes.size(); ++axis) axes[axis].length = data_shape[axis];
    for (size_t j = 0; j < r.axes->size(); ++j) {
        const auto axis = static_cast<size_t>((*r.axes)[j]);
        axes[axis] = slice_axis((*r.start)[j], (*r.stop)[j], (*r.step)[j], data_shape[axis]);
    }
    Shape out_shape(axes.size());
    std::vector<int64_t> start(axes.size()), step(axes.size());
    for (size_t axis = 0; axis < axes.size(); ++axis) {
        out_shape[axis] = axes[axis].length;
        start[axis] = axes[axis].start;
        step[axis] = axes[axis].step;
    }
    auto plan = std::make_unique<SlicePlan>();
    plan->copy = detail::plan_strided_copy(data_shape, out_shape, element_size(ctx.type(kData)), start, step);
    plan->method = "strided-copy";
    if (plan->copy.block > 0 && plan->copy.is_contiguous()) {
        plan->views.push_back({0, kData, static_cast<size_t>(plan->copy.offset)});
        plan->method = "view";
    }
    return plan;
}

void compute(KernelContext& ctx) {
    const SlicePlan& plan = ctx.plan<SlicePlan>();
    Tensor& out = ctx.output(0);
    IRLITE_CHECK(static_cast<int64_t>(out.byte_size()) == plan.copy.total_bytes(), ErrorKind::ShapeRule,
                 "kernel-output-mismatch", "output shape ", to_string(out.shape()), " disagrees with the slice (",
                 plan.copy.total_bytes(), " bytes)");
    detail::run_copy(plan.copy, ctx.input(kData).data(), out.data(), ctx.pool());
}

}  // namespace

OpDef make_slice_op() {
    OpDef d;
    d.type = "Slice";
    d.version = 8;
    d.first_opset = 8;
    d.input_roles = {"data", "start", "stop", "step", "axes"};
    d.min_inputs = 4;
    d.value_inputs = inputs(kStart, kStop, kStep, kAxes);
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace irlite
