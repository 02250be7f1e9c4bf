// MaxPool-1 (opset1..7), MaxPool-8 (opset8..13), MaxPool-14 (opset14+), AvgPool-1 (opset1..13),
// AvgPool-14 (opset14..15), AvgPool-16 (opset16+): sliding-window max / average over the spatial
// dims of [N, C, S...] data with 1 to 3 spatial dims (rank 3..5), written once for any spatial rank.
// Input: 0 'data'.
// Attributes: strides, kernel, pads_begin, pads_end, auto_pad (explicit, notset, same_upper,
// same_lower, valid), rounding_type (floor, ceil; ceil_torch from v14); dilations (MaxPool-8+,
// AvgPool-16); MaxPool-8+: index_element_type (i32 or i64, default i64) and axis (default 0, in
// [-rank, rank-1]); AvgPool: exclude-pad (default false).
// Outputs: 0 'output' [N, C, O...] (O from the window rules in kernels/detail/nn_common.hpp);
// MaxPool-8+: 1 'indices', same shape, the index of each maximum in the data flattened from `axis`
// on (ties: the first in row-major window order).
// Padding never wins a max; AvgPool divides by the number of data elements in the window
// (exclude-pad) or of data and padding elements (a window running past pads_end with ceil rounding
// counts only up to the padded end). A window with no data element (possible only with ceil
// rounding) gives the type's lowest value and index 0 for MaxPool, 0 for AvgPool.
// Types: every floating-point and integer type (f16/bf16 computed in f32).
#include <limits>

#include "kernels/detail/nn_common.hpp"
#include "kernels/detail/parallel.hpp"
#include "kernels/detail/small_buffer.hpp"

namespace irlite {
namespace {

struct PoolAttrs : OpAttrs {
    bool is_max = true;
    bool with_indices = false;  // MaxPool-8+
    nn::WindowSpec window;
    std::vector<int64_t> kernel;
    nn::Rounding rounding = nn::Rounding::Floor;
    bool exclude_pad = false;
    ElementType index_type = ElementType::i64;
    int64_t axis = 0;
};

struct PoolVersion {
    bool is_max;
    bool with_indices;
    bool has_dilations;
    bool allow_ceil_torch;
};

std::unique_ptr<OpAttrs> parse(const AttrReader& r, PoolVersion v) {
    auto a = std::make_unique<PoolAttrs>();
    a->is_max = v.is_max;
    a->with_indices = v.with_indices;
    a->window = nn::read_window_spec(r, v.has_dilations);
    a->kernel = nn::read_positive_list(r, "kernel", 1);
    a->rounding = nn::read_rounding(r, v.allow_ceil_torch);
    if (!v.is_max) a->exclude_pad = r.get_bool("exclude-pad", false);
    if (v.with_indices) {
        if (r.has("index_element_type")) a->index_type = r.get_element_type("index_element_type");
        if (a->index_type != ElementType::i32 && a->index_type != ElementType::i64)
            throw Error(ErrorKind::Attribute, "attribute-invalid",
                        str("attribute 'index_element_type' = \"", r.get_string("index_element_type"),
                            "\" is invalid: expected i32 or i64"));
        a->axis = r.get_i64("axis", 0);
    }
    return a;
}

std::vector<nn::AxisWindow> windows(const PoolAttrs& a, const std::vector<int64_t>& data) {
    const std::vector<int64_t> spatial(data.begin() + 2, data.end());
    if (a.kernel.size() != spatial.size())
        throw Error(ErrorKind::Attribute, "attribute-invalid",
                    str("attribute 'kernel' has ", a.kernel.size(), " value(s); expected one per spatial axis (",
                        spatial.size(), ")"));
    // OpenVINO rejects windows entirely in explicit padding unless they average the padding in.
    const bool forbid_all_padding = a.is_max || a.exclude_pad;
    return nn::forward_windows(a.window, spatial, a.kernel, a.rounding, forbid_all_padding);
}

int64_t index_axis(const PoolAttrs& a, int64_t rank) {
    if (a.axis < -rank || a.axis >= rank)
        throw Error(ErrorKind::Attribute, "attribute-invalid",
                    str("attribute 'axis' = ", a.axis, " is out of the range [", -rank, ", ", rank - 1, "]"));
    return a.axis < 0 ? a.axis + rank : a.axis;
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    const auto& a = ctx.attrs<PoolAttrs>();
    nn::require_numeric(ctx, 0);
    nn::require_rank(ctx, 0, 3, 5, "[N, C, spatial...]");
    PartialShape out = PartialShape::dynamic_rank();
    if (ctx.shape(0).rank_known()) {
        const std::vector<int64_t>& data = ctx.shape(0).dims();
        std::vector<int64_t> dims = {data[0], data[1]};
        for (const auto& w : windows(a, data)) dims.push_back(w.out);
        out = PartialShape(dims);
        if (a.with_indices) index_axis(a, static_cast<int64_t>(data.size()));
    }
    std::vector<OutputInfo> infos = {{ctx.type(0), out}};
    if (a.with_indices) infos.push_back({a.index_type, out});
    return infos;
}

// ---- kernel ----------------------------------------------------------------------------------

// Per spatial axis and output coordinate: the first data coordinate the window reads, how many
// data elements it covers, and how many data-or-padding elements.
struct AxisTaps {
    int64_t dilation = 1;
    std::vector<int64_t> first, count, padded_count;
};

std::vector<AxisTaps> taps_of(const std::vector<nn::AxisWindow>& axes) {
    std::vector<AxisTaps> taps;
    for (const nn::AxisWindow& w : axes) {
        AxisTaps t;
        t.dilation = w.dilation;
        for (int64_t o = 0; o < w.out; ++o) {
            const int64_t start = o * w.stride - w.pad_begin;
            const auto [lo, hi] = nn::affine_range(w.kernel, w.dilation, start, w.in);
            const auto [plo, phi] = nn::affine_range(w.kernel, w.dilation, o * w.stride, w.in + w.pad_begin + w.pad_end);
            t.first.push_back(start + lo * w.dilation);
            t.count.push_back(hi - lo);
            t.padded_count.push_back(phi - plo);
        }
        taps.push_back(std::move(t));
    }
    return taps;
}

struct PoolPlane {
    std::vector<AxisTaps> taps;
    std::vector<int64_t> out_dims, in_strides;
    int64_t in_size = 1, out_size = 1;
};

// Calls visit(offset) for each data element (offset in the plane) of the window whose per-axis
// starts and counts are given.
template <class F>
void for_each_tap(const PoolPlane& p, const int64_t* start, const int64_t* count, int64_t* tap, F&& visit) {
    const size_t rank = p.out_dims.size(), last = rank - 1;
    int64_t lead_total = 1;
    for (size_t a = 0; a < last; ++a) lead_total *= count[a];
    std::fill(tap, tap + rank, 0);
    for (int64_t l = 0; l < lead_total; ++l) {
        int64_t base = start[last];
        for (size_t a = 0; a < last; ++a) base += (start[a] + tap[a] * p.taps[a].dilation) * p.in_strides[a];
        for (int64_t t = 0; t < count[last]; ++t) visit(base + t * p.taps[last].dilation);
        for (size_t a = last; a-- > 0;) {
            if (++tap[a] < count[a]) break;
            tap[a] = 0;
        }
    }
}

// One [S...] plane: out[o] and, when index is not null, index[o] = the data offset of the max.
template <class C>
void pool_plane(const PoolPlane& p, const PoolAttrs& a, const C* x, C* y, int64_t* argmax) {
    const size_t rank = p.out_dims.size();
    detail::SmallBuffer<int64_t> pos(rank), start(rank), count(rank), tap(rank);
    for (int64_t o = 0; o < p.out_size; ++o) {
        int64_t total = 1, padded_total = 1;
        for (size_t d = 0; d < rank; ++d) {
            const size_t i = static_cast<size_t>(pos[d]);
            start[d] = p.taps[d].first[i];
            count[d] = p.taps[d].count[i];
            total *= count[d];
            padded_total *= p.taps[d].padded_count[i];
        }
        if (a.is_max) {
            C best = std::numeric_limits<C>::has_infinity ? -std::numeric_limits<C>::infinity()
                                                           : std::numeric_limits<C>::lowest();
            int64_t best_at = -1;
            for_each_tap(p, start.data(), count.data(), tap.data(), [&](int64_t off) {
                if (best_at < 0 || x[off] > best) {
                    best = x[off];
                    best_at = off;
                }
            });
            y[o] = best;
            if (argmax) argmax[o] = best_at;
        } else {
            double sum = 0;
            for_each_tap(p, start.data(), count.data(), tap.data(), [&](int64_t off) { sum += static_cast<double>(x[off]); });
            const int64_t divisor = a.exclude_pad ? total : padded_total;
            y[o] = divisor > 0 ? static_cast<C>(sum / static_cast<double>(divisor)) : C(0);
        }
        for (size_t d = rank; d-- > 0;) {
            if (++pos[d] < p.out_dims[d]) break;
            pos[d] = 0;
        }
    }
}

template <class C>
void pool(const PoolAttrs& a, const PoolPlane& p, const Shape& data, const C* x, C* y, Tensor* indices,
          const KernelContext& ctx) {
    const int64_t planes = data[0] * data[1];
    int64_t bound = 1;  // indices count within data flattened from `axis` on
    if (indices)
        for (size_t d = static_cast<size_t>(index_axis(a, static_cast<int64_t>(data.size()))); d < data.size(); ++d)
            bound *= data[d];
    // Planes are independent: shared among the threads, each with its own argmax scratch.
    const int64_t grain = std::max<int64_t>(1, 8192 / std::max<int64_t>(p.out_size * 4, 1));
    detail::for_chunks(ctx.pool(), planes, grain, [&](int64_t begin, int64_t end) {
        auto* argmax = static_cast<int64_t*>(indices ? ctx.scratch() : nullptr);
        for (int64_t plane = begin; plane < end; ++plane) {
            pool_plane(p, a, x + plane * p.in_size, y + plane * p.out_size, argmax);
            if (!indices) continue;
            for (int64_t o = 0; o < p.out_size; ++o) {
                const int64_t flat = argmax[o] < 0 ? 0 : (plane * p.in_size + argmax[o]) % bound;
                const int64_t at = plane * p.out_size + o;
                if (indices->type() == ElementType::i32) indices->data<int32_t>()[at] = static_cast<int32_t>(flat);
                else indices->data<int64_t>()[at] = flat;
            }
        }
    });
}

// The windows planned once; the per-plane argmax (MaxPool's indices) lives in scratch memory.
struct PoolPlan : OpPlan {
    PoolPlane plane;
};

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    const auto& a = ctx.attrs<PoolAttrs>();
    const Shape data = ctx.shape(0).to_shape();
    auto plan = std::make_unique<PoolPlan>();
    PoolPlane& p = plan->plane;
    const std::vector<nn::AxisWindow> axes = windows(a, data);
    p.taps = taps_of(axes);
    p.in_strides.assign(axes.size(), 1);
    for (size_t i = axes.size(); i-- > 0;) {
        if (i + 1 < axes.size()) p.in_strides[i] = p.in_strides[i + 1] * axes[i + 1].in;
        p.out_dims.push_back(axes[i].out);
        p.in_size *= axes[i].in;
        p.out_size *= axes[i].out;
    }
    std::reverse(p.out_dims.begin(), p.out_dims.end());
    if (a.with_indices) plan->scratch_bytes = static_cast<size_t>(p.out_size) * sizeof(int64_t);
    plan->method = "window";
    return plan;
}

void compute(KernelContext& ctx) {
    const auto& a = ctx.attrs<PoolAttrs>();
    const Tensor& data = ctx.input(0);
    const PoolPlan& plan = ctx.plan<PoolPlan>();
    if (ctx.output(0).num_elements() == 0) return;
    Tensor* indices = a.with_indices ? &ctx.output(1) : nullptr;
    nn::dispatch_compute(data.type(), [&](auto tag) {
        using C = decltype(tag);
        const nn::ComputeIn<C> x(data);
        nn::ComputeOut<C> y(ctx.output(0));
        pool<C>(a, plan.plane, data.shape(), x.data(), y.data(), indices, ctx);
        y.commit();
    });
}

OpDef make_pool_def(const char* type, int version, int first, int last, PoolVersion v) {
    OpDef d;
    d.type = type;
    d.version = version;
    d.first_opset = first;
    d.last_opset = last;
    d.input_roles = {"data"};
    d.min_inputs = 1;
    d.num_outputs = v.with_indices ? 2 : 1;
    d.parse_attrs = [v](const AttrReader& r) { return parse(r, v); };
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace

OpDef make_max_pool_1_op() { return make_pool_def("MaxPool", 1, 1, 7, {true, false, false, false}); }
OpDef make_max_pool_8_op() { return make_pool_def("MaxPool", 8, 8, 13, {true, true, true, false}); }
OpDef make_max_pool_14_op() { return make_pool_def("MaxPool", 14, 14, kLatestOpset, {true, true, true, true}); }
OpDef make_avg_pool_1_op() { return make_pool_def("AvgPool", 1, 1, 13, {false, false, false, false}); }
OpDef make_avg_pool_14_op() { return make_pool_def("AvgPool", 14, 14, 15, {false, false, false, true}); }
OpDef make_avg_pool_16_op() { return make_pool_def("AvgPool", 16, 16, kLatestOpset, {false, false, true, true}); }

}  // namespace irlite
