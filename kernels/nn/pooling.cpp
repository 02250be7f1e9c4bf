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
#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/detail/cpu_isa.hpp"
#include "kernels/detail/nn_common.hpp"
#include "kernels/detail/parallel.hpp"
#include "kernels/detail/small_buffer.hpp"

// The MaxPool plane kernel passes GCC/clang vector-extension values between functions of this file
// only (anonymous namespace): the ABI warning for them without -mavx does not apply.
#if defined(__clang__) || defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

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

// ---- 2-D fast path ([N, C, H, W] data) ------------------------------------------------------
// Per output row and column the data range of the window is known from the plan (AxisTaps). The
// columns whose window lies wholly in the data (the interior) are made a whole row segment at a
// time, one kernel tap after the other over the output row held in L1, in loops without bounds
// checks that the compiler vectorises; border columns and rows without data take the per-element
// path. Taps are visited in row-major window order, as the generic walker does, so values, NaN
// handling (the first tap is taken, a later one replaces it only when greater) and tie rule (the
// first maximum) are the same.
struct Pool2d {
    bool enabled = false;
    int64_t in_h = 0, in_w = 0, out_h = 0, out_w = 0, kernel_h = 0, kernel_w = 0;
    int64_t stride_w = 1, dilation_h = 1, dilation_w = 1, pad_w = 0;
    int64_t col_lo = 0, col_hi = 0;      // interior columns: every tap of the row reads data
    std::vector<int64_t> tap_offset;    // interior tap t = r * kernel_w + c: r * dilation_h * in_w + c * dilation_w
    std::vector<double> divisor_h, divisor_w;  // AvgPool: the divisor of (oh, ow) is divisor_h[oh] * divisor_w[ow]
    size_t row_offset = 0;              // byte offset of the row buffer in scratch (after the argmax plane)
};

Pool2d plan_2d(const PoolAttrs& a, const std::vector<nn::AxisWindow>& axes, const std::vector<AxisTaps>& taps) {
    Pool2d q;
    if (axes.size() != 2) return q;
    const nn::AxisWindow& ah = axes[0];
    const nn::AxisWindow& aw = axes[1];
    q.enabled = true;
    q.in_h = ah.in, q.in_w = aw.in, q.out_h = ah.out, q.out_w = aw.out;
    q.kernel_h = ah.kernel, q.kernel_w = aw.kernel;
    q.stride_w = aw.stride, q.dilation_h = ah.dilation, q.dilation_w = aw.dilation, q.pad_w = aw.pad_begin;
    const AxisTaps& tw = taps[1];
    q.col_lo = q.col_hi = 0;
    for (int64_t o = 0; o < aw.out; ++o) {
        const size_t i = static_cast<size_t>(o);
        if (tw.count[i] != aw.kernel) continue;
        if (q.col_hi == q.col_lo) q.col_lo = o;
        q.col_hi = o + 1;
    }
    for (int64_t r = 0; r < ah.kernel; ++r)
        for (int64_t c = 0; c < aw.kernel; ++c) q.tap_offset.push_back(r * ah.dilation * aw.in + c * aw.dilation);
    for (size_t d = 0; d < 2; ++d) {
        std::vector<double>& div = d == 0 ? q.divisor_h : q.divisor_w;
        for (size_t o = 0; o < taps[d].count.size(); ++o)
            div.push_back(static_cast<double>(a.exclude_pad ? taps[d].count[o] : taps[d].padded_count[o]));
    }
    return q;
}

// One output element from the window tables (borders): exactly the generic walker's arithmetic.
template <class C>
void pool_element_2d(const PoolPlane& p, const Pool2d& q, bool is_max, const C* x, int64_t oh, int64_t ow, C* y,
                     int64_t* argmax) {
    const AxisTaps& th = p.taps[0];
    const AxisTaps& tw = p.taps[1];
    const size_t ih = static_cast<size_t>(oh), iw = static_cast<size_t>(ow);
    const int64_t fh = th.first[ih], nh = th.count[ih], fw = tw.first[iw], nw = tw.count[iw];
    if (is_max) {
        C best = std::numeric_limits<C>::has_infinity ? -std::numeric_limits<C>::infinity() : std::numeric_limits<C>::lowest();
        int64_t best_at = -1;
        for (int64_t r = 0; r < nh; ++r) {
            const int64_t row = (fh + r * q.dilation_h) * q.in_w + fw;
            for (int64_t c = 0; c < nw; ++c) {
                const int64_t off = row + c * q.dilation_w;
                if (best_at < 0 || x[off] > best) {
                    best = x[off];
                    best_at = off;
                }
            }
        }
        *y = best;
        if (argmax) *argmax = best_at;
    } else {
        double sum = 0;
        for (int64_t r = 0; r < nh; ++r) {
            const int64_t row = (fh + r * q.dilation_h) * q.in_w + fw;
            for (int64_t c = 0; c < nw; ++c) sum += static_cast<double>(x[row + c * q.dilation_w]);
        }
        const int64_t divisor = static_cast<int64_t>(q.divisor_h[ih] * q.divisor_w[iw]);
        *y = divisor > 0 ? static_cast<C>(sum / static_cast<double>(divisor)) : C(0);
    }
}

// The interior columns [lo, hi) of one output row whose window rows start at data row fh (nh of
// them): out[ow] for ow in [lo, hi) reads src[ow * S + tap_offset] with src = the window's first
// element for ow = 0. S is the column stride when known at compile time (1, 2), else 0.
template <int S, class C>
void max_row(const Pool2d& q, const C* src, int64_t nh, int64_t lo, int64_t hi, C* out, int32_t* tap_of) {
    const int64_t s = S ? S : q.stride_w;
    const int64_t taps = nh * q.kernel_w;
    for (int64_t o = lo; o < hi; ++o) out[o] = src[o * s];
    if (tap_of) {
        for (int64_t o = lo; o < hi; ++o) tap_of[o] = 0;
        for (int64_t t = 1; t < taps; ++t) {
            const C* in = src + q.tap_offset[static_cast<size_t>(t)];
            const int32_t id = static_cast<int32_t>(t);
            for (int64_t o = lo; o < hi; ++o) {
                const C v = in[o * s];
                const bool greater = v > out[o];
                out[o] = greater ? v : out[o];
                tap_of[o] = greater ? id : tap_of[o];
            }
        }
    } else {
        // Output and data never overlap: restrict lets the compiler vectorise the strided max.
        C* __restrict dst = out;
        for (int64_t t = 1; t < taps; ++t) {
            const C* __restrict in = src + q.tap_offset[static_cast<size_t>(t)];
            for (int64_t o = lo; o < hi; ++o) {
                const C v = in[o * s];
                dst[o] = v > dst[o] ? v : dst[o];
            }
        }
    }
}

template <int S, class C>
void avg_row(const Pool2d& q, const C* src, int64_t nh, int64_t lo, int64_t hi, double* sum) {
    const int64_t s = S ? S : q.stride_w;
    const int64_t taps = nh * q.kernel_w;
    for (int64_t o = lo; o < hi; ++o) sum[o] = 0;
    for (int64_t t = 0; t < taps; ++t) {
        const C* in = src + q.tap_offset[static_cast<size_t>(t)];
        for (int64_t o = lo; o < hi; ++o) sum[o] += static_cast<double>(in[o * s]);
    }
}

// One [H, W] plane; `row` is a scratch row of out_w doubles (AvgPool sums, MaxPool tap numbers).
template <int S, class C>
void pool_plane_2d(const PoolPlane& p, const Pool2d& q, bool is_max, const C* x, C* y, int64_t* argmax, void* row) {
    const AxisTaps& th = p.taps[0];
    for (int64_t oh = 0; oh < q.out_h; ++oh) {
        const size_t ih = static_cast<size_t>(oh);
        const int64_t nh = th.count[ih];
        C* out = y + oh * q.out_w;
        int64_t* arg = argmax ? argmax + oh * q.out_w : nullptr;
        const bool interior = nh > 0 && q.col_hi > q.col_lo;
        const int64_t lo = interior ? q.col_lo : q.out_w, hi = interior ? q.col_hi : q.out_w;
        for (int64_t ow = 0; ow < q.out_w; ++ow) {
            if (ow == lo) ow = hi;
            if (ow == q.out_w) break;
            pool_element_2d(p, q, is_max, x, oh, ow, out + ow, arg ? arg + ow : nullptr);
        }
        if (!interior) continue;
        const int64_t first = th.first[ih] * q.in_w - q.pad_w;  // element (0, 0) of column 0's window
        const C* src = x + first;
        if (is_max) {
            int32_t* tap_of = arg ? static_cast<int32_t*>(row) : nullptr;
            max_row<S>(q, src, nh, lo, hi, out, tap_of);
            if (arg)
                for (int64_t o = lo; o < hi; ++o)
                    arg[o] = first + o * q.stride_w + q.tap_offset[static_cast<size_t>(tap_of[o])];
        } else {
            double* sum = static_cast<double*>(row);
            avg_row<S>(q, src, nh, lo, hi, sum);
            const double dh = q.divisor_h[ih];
            for (int64_t o = lo; o < hi; ++o) {
                const int64_t divisor = static_cast<int64_t>(dh * q.divisor_w[static_cast<size_t>(o)]);
                out[o] = divisor > 0 ? static_cast<C>(sum[o] / static_cast<double>(divisor)) : C(0);
            }
        }
    }
}

// ---- MaxPool of f32 planes without indices, undilated: no borders ------------------------------
// The plane is first copied into scratch with its border extended by replicating the edge rows and
// columns (Replicated: `rows` x `width`, data at row `top`, column `left`), far enough that every
// window lies wholly inside; then every output is a max over all kernel_h x kernel_w taps, eight
// outputs at a time in one register, with no bounds checks. Exact: a replicated element is a
// bitwise copy of a data element of the same window, met right before or after it in row-major
// tap order (dilation 1), and seeing a value a second time right after itself never changes the
// running max of `v > best ? v : best` (not even with NaN or signed zeros): values, NaN handling
// and ties stay those of the walker above.
struct Replicated {
    bool enabled = false;
    int64_t rows = 0, width = 0, top = 0, left = 0;
    size_t offset = 0;  // bytes into scratch
};

Replicated plan_replicated(const PoolAttrs& a, const std::vector<nn::AxisWindow>& axes,
                           const std::vector<AxisTaps>& taps) {
    Replicated r;
    if (!a.is_max || axes.size() != 2) return r;
    // A window with no data element (ceil rounding) gives the lowest value, not an edge's.
    for (const AxisTaps& t : taps)
        for (int64_t n : t.count)
            if (n < 1) return r;
    const nn::AxisWindow& ah = axes[0];
    const nn::AxisWindow& aw = axes[1];
    if (ah.dilation != 1 || aw.dilation != 1 || aw.stride > 2 || ah.in < 1 || aw.in < 1) return r;
    r.enabled = true;
    r.top = ah.pad_begin;
    r.left = aw.pad_begin;
    r.rows = (ah.out - 1) * ah.stride + ah.kernel;
    r.width = (aw.out - 1) * aw.stride + aw.kernel;
    return r;
}

typedef float PoolV8 __attribute__((vector_size(32)));

// p[0], p[S], ..., p[7 * S]; reads p[0 .. 7 * S] only.
template <int S>
inline PoolV8 load_v8(const float* p) {
    PoolV8 v;
    if constexpr (S == 1) {
        std::memcpy(&v, p, sizeof v);
    } else {
        PoolV8 a, b;  // p[0..7], p[7..14]
        std::memcpy(&a, p, sizeof a);
        std::memcpy(&b, p + 7, sizeof b);
        v = __builtin_shufflevector(a, b, 0, 2, 4, 6, 9, 11, 13, 15);
    }
    return v;
}

typedef float PoolV4 __attribute__((vector_size(16)));

// p[0], p[S], p[2 * S], p[3 * S]; at stride 2 reads p[0 .. 7] (one past the last: the scratch has
// slack after the plane).
template <int S>
inline PoolV4 load_v4(const float* p) {
    PoolV4 v;
    if constexpr (S == 1) {
        std::memcpy(&v, p, sizeof v);
    } else {
        PoolV4 a, b;
        std::memcpy(&a, p, sizeof a);
        std::memcpy(&b, p + 4, sizeof b);
        v = __builtin_shufflevector(a, b, 0, 2, 4, 6);
    }
    return v;
}

// Blocks of V outputs (V = 8 or 4, out_w >= V) of one output row whose windows start at src.
template <int S, int V, class Vec>
inline void max_row_blocks(const float* src, int64_t width, int64_t kh, int64_t kw, int64_t out_w, float* out) {
    const auto load = [](const float* p) {
        if constexpr (V == 8) return load_v8<S>(p);
        else return load_v4<S>(p);
    };
    for (int64_t b = 0; b < out_w; b += V) {
        const int64_t o = std::min(b, out_w - V);  // the last block overlaps (max is idempotent)
        const float* in = src + o * S;
        Vec best = load(in);
        for (int64_t i = 0; i < kh; ++i)
            for (int64_t j = i == 0 ? 1 : 0; j < kw; ++j) {
                const Vec v = load(in + i * width + j);
                best = v > best ? v : best;
            }
        std::memcpy(out + o, &best, sizeof best);
    }
}

template <int S>
void max_plane_replicated(const Replicated& r, const Pool2d& q, int64_t stride_h, const float* x, float* pad,
                          float* y) {
    // Rows and columns past the data repeat the nearest edge row / column.
    for (int64_t h = 0; h < r.rows; ++h) {
        const float* src = x + std::clamp<int64_t>(h - r.top, 0, q.in_h - 1) * q.in_w;
        float* dst = pad + h * r.width;
        const int64_t data_end = std::min(r.width, r.left + q.in_w);
        int64_t c = 0;
        for (; c < std::min(r.left, r.width); ++c) dst[c] = src[0];
        for (; c < data_end; ++c) dst[c] = src[c - r.left];
        for (; c < r.width; ++c) dst[c] = src[q.in_w - 1];
    }
    const int64_t kh = q.kernel_h, kw = q.kernel_w, out_w = q.out_w;
    for (int64_t oh = 0; oh < q.out_h; ++oh) {
        const float* src = pad + oh * stride_h * r.width;
        float* out = y + oh * out_w;
        if (out_w >= 8) {
            max_row_blocks<S, 8, PoolV8>(src, r.width, kh, kw, out_w, out);
        } else if (out_w >= 4) {
            max_row_blocks<S, 4, PoolV4>(src, r.width, kh, kw, out_w, out);
        } else {
            for (int64_t o = 0; o < out_w; ++o) {
                const float* in = src + o * S;
                float best = in[0];
                for (int64_t i = 0; i < kh; ++i)
                    for (int64_t j = i == 0 ? 1 : 0; j < kw; ++j) {
                        const float v = in[i * r.width + j];
                        best = v > best ? v : best;
                    }
                out[o] = best;
            }
        }
    }
}

template <class C>
void pool_plane_any(const PoolPlane& p, const Pool2d& q, const PoolAttrs& a, const C* x, C* y, int64_t* argmax,
                    void* row) {
    if (!q.enabled) pool_plane(p, a, x, y, argmax);
    else if (q.stride_w == 1) pool_plane_2d<1>(p, q, a.is_max, x, y, argmax, row);
    else if (q.stride_w == 2) pool_plane_2d<2>(p, q, a.is_max, x, y, argmax, row);
    else pool_plane_2d<0>(p, q, a.is_max, x, y, argmax, row);
}

template <class C>
void pool(const PoolAttrs& a, const PoolPlane& p, const Pool2d& q, const Replicated& rep, int64_t stride_h,
          const Shape& data, const C* x, C* y, Tensor* indices, const KernelContext& ctx) {
    const int64_t planes = data[0] * data[1];
    int64_t bound = 1;  // indices count within data flattened from `axis` on
    if (indices)
        for (size_t d = static_cast<size_t>(index_axis(a, static_cast<int64_t>(data.size()))); d < data.size(); ++d)
            bound *= data[d];
    // axis <= 2: a plane never straddles a multiple of bound, so one remainder per plane does.
    const bool whole_planes = bound % std::max<int64_t>(p.in_size, 1) == 0;
    int32_t* idx32 = indices && indices->type() == ElementType::i32 ? indices->data<int32_t>() : nullptr;
    int64_t* idx64 = indices && !idx32 ? indices->data<int64_t>() : nullptr;
    // Planes are independent: shared among the threads, each with its own argmax scratch.
    const int64_t grain = std::max<int64_t>(1, 8192 / std::max<int64_t>(p.out_size * 4, 1));
    if constexpr (std::is_same_v<C, float>) {
        if (rep.enabled && !indices) {
            const cpu::Isa isa = cpu::active_isa();
            detail::for_chunks(ctx.pool(), planes, grain, [&](int64_t begin, int64_t end) {
                float* pad = reinterpret_cast<float*>(static_cast<std::byte*>(ctx.scratch()) + rep.offset);
                // Compiled for the CPU's level (cpu_isa.hpp): exact per-element max, same result at every level.
                cpu::run_at(isa, [&] {
                    for (int64_t plane = begin; plane < end; ++plane) {
                        const float* xp = x + plane * p.in_size;
                        float* yp = y + plane * p.out_size;
                        if (q.stride_w == 1) max_plane_replicated<1>(rep, q, stride_h, xp, pad, yp);
                        else max_plane_replicated<2>(rep, q, stride_h, xp, pad, yp);
                    }
                });
            });
            return;
        }
    }
    detail::for_chunks(ctx.pool(), planes, grain, [&](int64_t begin, int64_t end) {
        auto* scratch = static_cast<std::byte*>(ctx.scratch());
        auto* argmax = indices ? reinterpret_cast<int64_t*>(scratch) : nullptr;
        void* row = scratch ? scratch + q.row_offset : nullptr;
        for (int64_t plane = begin; plane < end; ++plane) {
            pool_plane_any(p, q, a, x + plane * p.in_size, y + plane * p.out_size, argmax, row);
            if (!indices) continue;
            const int64_t base = whole_planes ? plane * p.in_size % bound : 0;
            for (int64_t o = 0; o < p.out_size; ++o) {
                const int64_t flat = argmax[o] < 0 ? 0 : whole_planes ? base + argmax[o] : (plane * p.in_size + argmax[o]) % bound;
                const int64_t at = plane * p.out_size + o;
                if (idx32) idx32[at] = static_cast<int32_t>(flat);
                else idx64[at] = flat;
            }
        }
    });
}

// The windows planned once; the per-plane argmax (MaxPool's indices) lives in scratch memory.
struct PoolPlan : OpPlan {
    PoolPlane plane;
    Pool2d fast;  // [N, C, H, W] data
    Replicated replicated;  // MaxPool f32 without indices
    int64_t stride_h = 1;
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
    plan->fast = plan_2d(a, axes, p.taps);
    if (a.with_indices) plan->scratch_bytes = static_cast<size_t>(p.out_size) * sizeof(int64_t);
    if (plan->fast.enabled) {
        plan->fast.row_offset = (plan->scratch_bytes + 63) / 64 * 64;
        plan->scratch_bytes = plan->fast.row_offset + static_cast<size_t>(plan->fast.out_w) * sizeof(double);
    }
    plan->replicated = plan_replicated(a, axes, p.taps);
    if (plan->replicated.enabled && ctx.type(0) == ElementType::f32) {
        plan->stride_h = axes[0].stride;
        plan->replicated.offset = (plan->scratch_bytes + 63) / 64 * 64;
        plan->scratch_bytes = plan->replicated.offset +
                              static_cast<size_t>(plan->replicated.rows * plan->replicated.width + 8) * sizeof(float);
    } else {
        plan->replicated.enabled = false;
    }
    plan->method = plan->replicated.enabled ? "window-2d-replicated" : plan->fast.enabled ? "window-2d" : "window";
    return plan;
}

void compute(KernelContext& ctx) {
    const auto& a = ctx.attrs<PoolAttrs>();
    const Tensor& data = ctx.input(0);
    const PoolPlan& plan = ctx.plan<PoolPlan>();
    if (ctx.output(0).num_elements() == 0) return;
    // The indices cost a branchy tap search per element: only when something reads them.
    Tensor* indices = a.with_indices && ctx.output_needed(1) ? &ctx.output(1) : nullptr;
    nn::dispatch_compute(data.type(), [&](auto tag) {
        using C = decltype(tag);
        const nn::ComputeIn<C> x(data);
        nn::ComputeOut<C> y(ctx.output(0));
        pool<C>(a, plan.plane, plan.fast, plan.replicated, plan.stride_h, data.shape(), x.data(), y.data(), indices,
                ctx);
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
