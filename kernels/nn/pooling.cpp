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
#include "kernels/detail/simd.hpp"
#include "kernels/detail/parallel.hpp"
#include "kernels/detail/small_buffer.hpp"
#include "kernels/detail/transpose8.hpp"

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
    int64_t stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1, pad_h = 0, pad_w = 0;
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
    q.stride_h = ah.stride, q.pad_h = ah.pad_begin;
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

// sum[o .. o + B) for one block of B outputs, tap by tap in tap order, the sums in registers.
template <int B, class C>
IRLITE_ISA_INLINE void avg_block(const Pool2d& q, const C* src, int64_t s, int64_t taps, int64_t o, double* sum) {
    double acc[B] = {};
    for (int64_t t = 0; t < taps; ++t) {
        const C* in = src + q.tap_offset[static_cast<size_t>(t)] + o * s;
        for (int64_t j = 0; j < B; ++j) acc[j] += static_cast<double>(in[j * s]);
    }
    for (int64_t j = 0; j < B; ++j) sum[o + j] = acc[j];
}

// sum[o] = the window's sum for outputs [lo, hi), tap by tap in tap order. Blocks of 8 outputs,
// then one of 4, keep their sums in registers across the taps (a row of sums in memory, read and
// written once per tap, stalled on its own stores); the last 3 at most one at a time (LeNet-5's
// 2x2 / 2 pools on rows of 14 and 5 outputs: 8 + 4 + 2 and 4 + 1).
template <int S, class C>
void avg_row(const Pool2d& q, const C* src, int64_t nh, int64_t lo, int64_t hi, double* sum) {
    const int64_t s = S ? S : q.stride_w;
    const int64_t taps = nh * q.kernel_w;
    int64_t o = lo;
    for (; o + 8 <= hi; o += 8) avg_block<8>(q, src, s, taps, o, sum);
    if (o + 4 <= hi) {
        avg_block<4>(q, src, s, taps, o, sum);
        o += 4;
    }
    for (; o < hi; ++o) {
        double acc = 0;
        for (int64_t t = 0; t < taps; ++t) acc += static_cast<double>(src[q.tap_offset[static_cast<size_t>(t)] + o * s]);
        sum[o] = acc;
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
            // The divisor is a count (a whole number in double): divided as a double, without
            // the round trip through an integer, the loop vectorises.
            for (int64_t o = lo; o < hi; ++o) {
                const double divisor = dh * q.divisor_w[static_cast<size_t>(o)];
                out[o] = divisor > 0 ? static_cast<C>(sum[o] / divisor) : C(0);
            }
        }
    }
}

// ---- MaxPool of f32 planes without indices, undilated: separable -------------------------------
// The max over a window is the max over its columns of each column's max over the window's rows.
// Per output row, the column maxima over its data rows are made first, 8 columns at a time
// straight from the data plane, into a row buffer whose border repeats the edge columns (`left`
// replicated columns before the data, the last column repeated after it); every output of the row
// is then the max of kernel_w consecutive (stride 1) or every stride_w-th entries of that buffer.
// At stride_w > 1 the buffer is first split by phase (phase p holds buffer entries p, p + S, ...),
// so that tap j of outputs o .. o + 7 is one contiguous load: phase j % S from entry o + j / S.
// Per window that is kernel_h + kernel_w loads instead of kernel_h * kernel_w.
//
// The walker's result, but for the sign of a zero maximum, on planes without NaN: a repeated value
// (the replicated border only ever repeats an element of the same window) never changes a running
// max, and the max of numbers does not depend on their order; among equal maxima +0 and -0 the
// walker keeps the first in row-major order, this the first in column-major order. A NaN, which
// `v > best ? v : best` keeps only as a window's first element, would hide the rest of its column
// here: the column pass watches for NaN, and a plane holding one is made by the walker instead.
struct SeparableMax {
    bool enabled = false;
    int64_t left = 0, width = 0;  // the row buffer: `left` replicated columns, data, repeats to `width`
    int64_t stride_w = 1, phase_width = 0;
    // Tap j of output 0: j % S * phase_width + j / S after the first phase (j at stride 1).
    std::vector<int64_t> tap_offset;
    size_t offset = 0;  // bytes into scratch: the row buffers, then the phases
    // Windows 2 or 3 wide at stride 2, 8 outputs a row or more (ResNet's and SqueezeNet's 3x3 /
    // 2, VGG's and U-Net's 2x2 / 2): no phase split. Each block of 8 outputs takes its taps
    // straight from the row buffer, by even / odd shuffles of the 16 (and, 3 wide, the 16 from
    // 2 on) entries it covers; the buffer's border then runs to `fill` = 2 * out_w + 2 entries,
    // what the last block's loads reach.
    bool pairs = false;
    int64_t fill = 0;  // entries of the row buffer written: width, or more for pairs
    // One output row's buffers: the row buffer (every column the data or a window reaches), then
    // its phases (phase p at p * phase_width after it). Every read and write stays within them:
    // the split is exact and tap j of output o reads entry o + j / S < phase_width of its phase.
    int64_t floats_per_row() const { return pairs ? fill : width + (stride_w > 1 ? stride_w * phase_width : 0); }
    // A band of output rows is made pass by pass (column maxima, phase split, taps), so that every
    // pass reads what the one before wrote a band earlier: a load straddling two stores still in
    // flight cannot be forwarded from them and stalls until they land, which row by row (a tap
    // vector one entry past a split's store) cost more than the maxima themselves.
    static constexpr int64_t kBand = 8;
    size_t floats() const { return static_cast<size_t>(kBand * floats_per_row()); }
};

SeparableMax plan_separable_max(const PoolAttrs& a, const std::vector<nn::AxisWindow>& axes,
                                const std::vector<AxisTaps>& taps) {
    SeparableMax s;
    if (!a.is_max || axes.size() != 2) return s;
    // A window with no data element (ceil rounding) gives the lowest value, not an edge's.
    for (const AxisTaps& t : taps)
        for (int64_t n : t.count)
            if (n < 1) return s;
    const nn::AxisWindow& ah = axes[0];
    const nn::AxisWindow& aw = axes[1];
    if (ah.dilation != 1 || aw.dilation != 1 || ah.in < 1 || aw.in < 1) return s;
    s.enabled = true;
    s.left = aw.pad_begin;
    s.stride_w = aw.stride;
    s.width = std::max((aw.out - 1) * aw.stride + aw.kernel, s.left + aw.in);
    s.phase_width = (s.width + s.stride_w - 1) / s.stride_w;
    const int64_t pf = s.stride_w == 1 ? 0 : s.phase_width;
    for (int64_t j = 0; j < aw.kernel; ++j) s.tap_offset.push_back(j % s.stride_w * pf + j / s.stride_w);
    s.pairs = aw.stride == 2 && (aw.kernel == 2 || aw.kernel == 3) && aw.out >= 8;
    s.fill = s.pairs ? std::max(s.width, 2 * aw.out + 2) : s.width;
    return s;
}

using PoolV8 = simd::f32x8;
using PoolV4 = simd::f32x4;

using PoolMask8 = simd::i32x8;

// row[left + c] = max over data rows [first, first + count) of column c, then the border. A lane of
// `unordered` becomes nonzero when an element read is NaN.
// COUNT > 0: count == COUNT (the loop over rows unrolled).
template <int COUNT>
void column_max(const SeparableMax& s, const Pool2d& q, const float* x, int64_t first, int64_t count, float* row,
                PoolMask8& unordered) {
    const int64_t in_w = q.in_w;
    const float* top = x + first * in_w;
    float* dst = row + s.left;
    float head = 0, tail = 0;  // dst[0] and dst[in_w - 1], for the border
    if (in_w >= 8) {
        const int64_t n = COUNT > 0 ? COUNT : count;
        PoolV8 best = {};
        for (int64_t b = 0; b < in_w; b += 8) {
            const int64_t c = std::min<int64_t>(b, in_w - 8);  // the last block overlaps: same values
            std::memcpy(&best, top + c, sizeof best);
            unordered |= best != best;
            for (int64_t i = 1; i < n; ++i) {
                PoolV8 v;
                std::memcpy(&v, top + i * in_w + c, sizeof v);
                unordered |= v != v;
                best = v > best ? v : best;
            }
            std::memcpy(dst + c, &best, sizeof best);
        }
        // The last value from the register: read back from dst, it would wait for the store it
        // sits in (a 4-byte load inside a 32-byte store still in flight).
        head = dst[0];
        tail = best[7];
    } else {
        bool nan = false;
        for (int64_t c = 0; c < in_w; ++c) {
            float best = top[c];
            nan = nan || best != best;
            for (int64_t i = 1; i < count; ++i) {
                const float v = top[i * in_w + c];
                nan = nan || v != v;
                best = v > best ? v : best;
            }
            dst[c] = best;
        }
        if (nan) unordered[0] = -1;
        head = dst[0];
        tail = dst[in_w - 1];
    }
    // The border: up to `fill`, the entries a window (or a pairs block's load) reaches.
    for (int64_t c = 0; c < s.left; ++c) row[c] = head;
    for (int64_t c = s.left + in_w; c < s.fill; ++c) row[c] = tail;
}

// The row buffer split by phase (stride_w > 1) into the phases after it.
void split_phases(const SeparableMax& s, const float* row, float* phases) {
    const int64_t stride = s.stride_w, pf = s.phase_width;
    if (stride == 2) {
        detail::split_even_odd(row, s.width, phases, phases + pf);
    } else {
        for (int64_t c = 0; c < s.width; ++c) phases[c % stride * pf + c / stride] = row[c];
    }
}

// Outputs [o, o + V) from the taps at src + tap[j]; TAPS > 0: that many (the loop unrolled), else `taps`.
template <class Vec, int TAPS>
inline void max_taps(const float* src, const int64_t* tap, int64_t taps, float* out) {
    Vec best;
    std::memcpy(&best, src, sizeof best);
    const int64_t n = TAPS > 0 ? TAPS : taps;
    for (int64_t j = 1; j < n; ++j) {
        Vec v;
        std::memcpy(&v, src + tap[j], sizeof v);
        best = v > best ? v : best;
    }
    std::memcpy(out, &best, sizeof best);
}

// One output row from its taps at src (tap 0 of output 0).
template <int TAPS>
void max_row_taps(const SeparableMax& s, const float* src, int64_t out_w, float* out) {
    const int64_t taps = TAPS > 0 ? TAPS : static_cast<int64_t>(s.tap_offset.size());
    const int64_t* tap = s.tap_offset.data();
    // Blocks of 8 (or 4) outputs; the last block overlaps the one before (same values).
    if (out_w >= 8) {
        for (int64_t b = 0; b < out_w; b += 8) {
            const int64_t o = std::min<int64_t>(b, out_w - 8);
            max_taps<PoolV8, TAPS>(src + o, tap, taps, out + o);
        }
    } else if (out_w >= 4) {
        for (int64_t b = 0; b < out_w; b += 4) {
            const int64_t o = std::min<int64_t>(b, out_w - 4);
            max_taps<PoolV4, TAPS>(src + o, tap, taps, out + o);
        }
    } else {
        for (int64_t o = 0; o < out_w; ++o) {
            float best = src[o];
            for (int64_t j = 1; j < taps; ++j) {
                const float v = src[o + tap[j]];
                best = v > best ? v : best;
            }
            out[o] = best;
        }
    }
}

// One output row of a window TAPS (2 or 3) wide at stride 2 (SeparableMax::pairs) from its row
// buffer: output o's taps are entries 2o, 2o + 1 (and 2o + 2), i.e. for the 8 outputs from o the
// even and odd entries of the 16 from 2o (and the even ones of the 16 from 2o + 2). Taps in
// order, as max_taps takes them; the last block overlaps the one before (same values).
template <int TAPS>
void max_row_pairs(const float* row, int64_t out_w, float* out) {
    for (int64_t b = 0; b < out_w; b += 8) {
        const int64_t o = std::min<int64_t>(b, out_w - 8);
        const float* src = row + 2 * o;
        PoolV8 lo, hi;
        std::memcpy(&lo, src, sizeof lo);
        std::memcpy(&hi, src + 8, sizeof hi);
        PoolV8 best, odd;
        detail::even_odd(lo, hi, best, odd);
        best = odd > best ? odd : best;
        if constexpr (TAPS == 3) {
            std::memcpy(&lo, src + 2, sizeof lo);
            std::memcpy(&hi, src + 10, sizeof hi);
            PoolV8 next, unused;  // the odd entries from 2o + 2 are no tap's
            detail::even_odd(lo, hi, next, unused);
            best = next > best ? next : best;
        }
        std::memcpy(out + o, &best, sizeof best);
    }
}

// The plane's outputs, a band of rows at a time (SeparableMax::kBand); false (outputs unfinished)
// when the plane holds a NaN.
bool max_plane_separable(const SeparableMax& s, const Pool2d& q, const AxisTaps& rows, const float* x, float* buf,
                         float* y) {
    const int64_t per_row = s.floats_per_row(), split = s.stride_w > 1 ? s.width : 0;
    for (int64_t oh0 = 0; oh0 < q.out_h; oh0 += SeparableMax::kBand) {
        const int64_t band = std::min(SeparableMax::kBand, q.out_h - oh0);
        PoolMask8 unordered = {};
        for (int64_t r = 0; r < band; ++r) {
            const size_t ih = static_cast<size_t>(oh0 + r);
            const int64_t count = rows.count[ih];
            float* row = buf + r * per_row;
            switch (count) {  // the common windows' heights, unrolled
                case 2: column_max<2>(s, q, x, rows.first[ih], count, row, unordered); break;
                case 3: column_max<3>(s, q, x, rows.first[ih], count, row, unordered); break;
                default: column_max<0>(s, q, x, rows.first[ih], count, row, unordered); break;
            }
        }
        for (int i = 0; i < 8; ++i)
            if (unordered[i] != 0) return false;
        if (s.pairs) {
            for (int64_t r = 0; r < band; ++r) {
                float* out = y + (oh0 + r) * q.out_w;
                if (s.tap_offset.size() == 3) max_row_pairs<3>(buf + r * per_row, q.out_w, out);
                else max_row_pairs<2>(buf + r * per_row, q.out_w, out);
            }
            continue;
        }
        if (split)
            for (int64_t r = 0; r < band; ++r) split_phases(s, buf + r * per_row, buf + r * per_row + split);
        const auto taps = [&](auto row_taps) {
            for (int64_t r = 0; r < band; ++r) row_taps(s, buf + r * per_row + split, q.out_w, y + (oh0 + r) * q.out_w);
        };
        switch (s.tap_offset.size()) {  // the common windows' widths, unrolled
            case 2: taps(max_row_taps<2>); break;
            case 3: taps(max_row_taps<3>); break;
            default: taps(max_row_taps<0>); break;
        }
    }
    return true;
}

// ---- MaxPool of f32 small planes without indices, undilated: 8 planes at a time, channels last ---
// On small planes (the deep layers of a CNN: 8x8) the per-row costs of the separable path
// outweigh its work (16x16 no longer since the separable path works in bands of rows: SqueezeNet's
// 128 planes of 16x16 take 13.3 us there and 17.8 us here; 256 of 8x8 9.8 us here, 11.8 there).
// There 8 planes are turned channels-last at once (8 x 8 register transposes) into a buffer
// padded by repeating the edge pixels (rows, then columns), far enough that every window lies
// wholly inside; every output pixel is then the max over all kernel_h x kernel_w taps
// of 8-channel vectors, with no stride or border work, and the results go back to planes by the
// same transposes. Exact, NaN and signed zeros included: a replicated element is a copy of a data
// element of the same window met right before or after it in row-major tap order, or a whole
// replicated row met right before or after the row it copies, and seeing values again that the
// running max `v > best ? v : best` has just seen never changes it.
inline constexpr int64_t kChannelsLastPoolPixels = 128;  // data pixels of a "small" plane

struct ChannelsLastMax {
    bool enabled = false;
    int64_t rows = 0, width = 0, top = 0, left = 0;  // the padded plane, data at (top, left)
    int64_t stride_h = 1, stride_w = 1;
    std::vector<int64_t> tap_offset;  // tap i * kernel_w + j: i * width + j pixels
    size_t offset = 0;                // bytes into scratch: the padded block, then the outputs
    int64_t pixel_bytes = 32;         // a pixel's block of planes: 8 floats, or 16 bytes (u8)
    size_t bytes(int64_t out_pixels) const { return static_cast<size_t>((rows * width + out_pixels) * pixel_bytes); }
};

// The padded plane and the taps of a channels-last MaxPool (undilated 2-D windows).
ChannelsLastMax channels_last_geometry(const std::vector<nn::AxisWindow>& axes) {
    ChannelsLastMax m;
    const nn::AxisWindow& ah = axes[0];
    const nn::AxisWindow& aw = axes[1];
    m.enabled = true;
    m.top = ah.pad_begin;
    m.left = aw.pad_begin;
    m.rows = std::max((ah.out - 1) * ah.stride + ah.kernel, m.top + ah.in);
    m.width = std::max((aw.out - 1) * aw.stride + aw.kernel, m.left + aw.in);
    m.stride_h = ah.stride;
    m.stride_w = aw.stride;
    for (int64_t i = 0; i < ah.kernel; ++i)
        for (int64_t j = 0; j < aw.kernel; ++j) m.tap_offset.push_back(i * m.width + j);
    return m;
}

ChannelsLastMax plan_channels_last_max(const SeparableMax& eligible, const std::vector<nn::AxisWindow>& axes) {
    if (!eligible.enabled || axes[0].in * axes[1].in > kChannelsLastPoolPixels) return {};
    return channels_last_geometry(axes);
}

// Planes [0, cn) (cn <= 8, in_size apart) of x into outputs y (out_size apart); xp and out_cl:
// scratch for the padded block and the channels-last outputs.
void max_planes_channels_last(const ChannelsLastMax& m, const Pool2d& q, const float* x, int64_t in_size,
                              int64_t out_size, int64_t cn, float* xp, float* out_cl, float* y) {
    using detail::Float8;
    const int64_t in_h = q.in_h, in_w = q.in_w, width = m.width;
    // The data, 8 pixels of 8 planes a transpose (whole blocks only when all 8 planes are there).
    for (int64_t h = 0; h < in_h; ++h) {
        const float* src = x + h * in_w;
        float* dst = xp + ((h + m.top) * width + m.left) * 8;
        int64_t w = 0;
        if (cn == 8) {
            for (; w + 8 <= in_w; w += 8) {
                Float8 r[8];
                for (int i = 0; i < 8; ++i) std::memcpy(&r[i], src + i * in_size + w, sizeof(Float8));
                detail::transpose8(r);
                for (int j = 0; j < 8; ++j) std::memcpy(dst + (w + j) * 8, &r[j], sizeof(Float8));
            }
        }
        for (; w < in_w; ++w)
            for (int64_t i = 0; i < 8; ++i) dst[w * 8 + i] = i < cn ? src[i * in_size + w] : 0.0f;
    }
    // The border: edge pixels repeated along each data row, then whole rows above and below.
    for (int64_t h = m.top; h < m.top + in_h; ++h) {
        float* row = xp + h * width * 8;
        for (int64_t w = 0; w < m.left; ++w) std::memcpy(row + w * 8, row + m.left * 8, sizeof(Float8));
        for (int64_t w = m.left + in_w; w < width; ++w) std::memcpy(row + w * 8, row + (m.left + in_w - 1) * 8, sizeof(Float8));
    }
    const size_t row_bytes = static_cast<size_t>(width * 8) * sizeof(float);
    for (int64_t h = 0; h < m.top; ++h) std::memcpy(xp + h * width * 8, xp + m.top * width * 8, row_bytes);
    for (int64_t h = m.top + in_h; h < m.rows; ++h)
        std::memcpy(xp + h * width * 8, xp + (m.top + in_h - 1) * width * 8, row_bytes);
    // Every output pixel: the max over its window, taps in row-major order.
    const int64_t taps = static_cast<int64_t>(m.tap_offset.size()), out_h = q.out_h, out_w = q.out_w;
    const int64_t* tap = m.tap_offset.data();
    float* out = out_cl;
    for (int64_t oh = 0; oh < out_h; ++oh) {
        for (int64_t ow = 0; ow < out_w; ++ow, out += 8) {
            const float* base = xp + (oh * m.stride_h * width + ow * m.stride_w) * 8;
            Float8 best;
            std::memcpy(&best, base, sizeof best);
            for (int64_t t = 1; t < taps; ++t) {
                Float8 v;
                std::memcpy(&v, base + tap[t] * 8, sizeof v);
                best = v > best ? v : best;
            }
            std::memcpy(out, &best, sizeof best);
        }
    }
    // Back to planes.
    const int64_t pixels = out_h * out_w;
    int64_t px = 0;
    if (cn == 8) {
        for (; px + 8 <= pixels; px += 8) {
            Float8 r[8];
            for (int i = 0; i < 8; ++i) std::memcpy(&r[i], out_cl + (px + i) * 8, sizeof(Float8));
            detail::transpose8(r);
            for (int j = 0; j < 8; ++j) std::memcpy(y + j * out_size + px, &r[j], sizeof(Float8));
        }
    }
    for (; px < pixels; ++px)
        for (int64_t c = 0; c < cn; ++c) y[c * out_size + px] = out_cl[px * 8 + c];
}

// ---- MaxPool of u8 planes (levels: OpDef::passes_levels), undilated ----------------------------

using U8x16 = simd::vec_t<uint8_t, 16>;
using U8x64 = simd::vec_t<uint8_t, 64>;
using U16x16 = simd::vec_t<uint16_t, 32>;

// out[i] = max(a[i], b[i]) for i < n (n >= B), B bytes at a time; the last B overlap the others'
// (a max is the same computed twice), loaded before the loop so that no load waits for a store it
// overlaps.
template <class V>
IRLITE_ISA_INLINE void max_vectors(const uint8_t* a, const uint8_t* b, int64_t n, uint8_t* out) {
    constexpr int64_t B = sizeof(V);
    V ta, tb;
    std::memcpy(&ta, a + n - B, B);
    std::memcpy(&tb, b + n - B, B);
    const V tail = ta > tb ? ta : tb;
    for (int64_t i = 0; i + B <= n; i += B) {
        V va, vb;
        std::memcpy(&va, a + i, B);
        std::memcpy(&vb, b + i, B);
        const V m = va > vb ? va : vb;
        std::memcpy(out + i, &m, B);
    }
    std::memcpy(out + n - B, &tail, B);
}

// out[i] = max(a[i], b[i]) for i < n.
IRLITE_ISA_INLINE void max_bytes(const uint8_t* a, const uint8_t* b, int64_t n, uint8_t* out) {
    if (n >= 64) return max_vectors<U8x64>(a, b, n, out);
    if (n >= 16) return max_vectors<U8x16>(a, b, n, out);
    for (int64_t i = 0; i < n; ++i) out[i] = a[i] > b[i] ? a[i] : b[i];
}

// out[0, n) = src[0, n), inline (rows of a few bytes: a call each would cost more than the copy).
IRLITE_ISA_INLINE void copy_bytes(const uint8_t* src, int64_t n, uint8_t* out) {
    if (n < 16) {
        for (int64_t i = 0; i < n; ++i) out[i] = src[i];
        return;
    }
    U8x16 tail;
    std::memcpy(&tail, src + n - 16, 16);
    for (int64_t i = 0; i + 16 <= n; i += 16) {
        U8x16 b;
        std::memcpy(&b, src + i, 16);
        std::memcpy(out + i, &b, 16);
    }
    std::memcpy(out + n - 16, &tail, 16);
}

// out[i] = src[2 i] for i < n: the low bytes of 16-bit words (reads src[2 n - 1] too).
IRLITE_ISA_INLINE void even_bytes(const uint8_t* src, int64_t n, uint8_t* out) {
    if (n < 16) {
        for (int64_t i = 0; i < n; ++i) out[i] = src[2 * i];
        return;
    }
    for (int64_t i = 0;; i += 16) {
        if (i + 16 > n) i = n - 16;
        U16x16 w;
        std::memcpy(&w, src + 2 * i, 32);
        const U8x16 low = __builtin_convertvector(w, U8x16);  // little-endian: src[2 i + 2 j]
        std::memcpy(out + i, &low, 16);
        if (i + 16 >= n) break;
    }
}

// The plane the u8 path works on: rows x cols bytes from which every window lies inside, the data
// placed at (pad_h, pad_w) with zeros around it (MaxPool's padding never wins, and 0 is the lowest
// u8: the max is the same, and a window without data gives 0, the type's lowest, as it should).
struct U8Plane {
    int64_t rows = 0, cols = 0;
    bool padded = false;  // else the data itself
};
U8Plane u8_plane(const Pool2d& q) {
    U8Plane u;
    u.rows = std::max((q.out_h - 1) * q.stride_h + q.kernel_h, q.pad_h + q.in_h);
    u.cols = std::max((q.out_w - 1) * q.stride_w + q.kernel_w, q.pad_w + q.in_w);
    u.padded = u.rows != q.in_h || u.cols != q.in_w;
    return u;
}
// Planes at a time: enough to make the passes long, few enough to stay in L1.
int64_t u8_group(const Pool2d& q) {
    const U8Plane u = u8_plane(q);
    return std::max<int64_t>(1, 8192 / std::max<int64_t>(u.rows * u.cols, 1));
}
// Scratch bytes: a group's padded planes, its two passes' planes and 2 bytes after (even_bytes).
size_t u8_plane_bytes(const Pool2d& q) {
    const U8Plane u = u8_plane(q);
    return static_cast<size_t>(3 * u8_group(q) * u.rows * u.cols + 2);
}

// `count` planes at x (planes of in_h x in_w) to y, in groups of u8_group planes, each group in
// passes over all its bytes as one array (a small plane's rows of 8-32 bytes would never fill a
// vector): h = the max of kernel_w neighbours from every position, v = that of kernel_h rows of h
// from every position; output (oy, ox) is v at its window's first element. Positions whose
// neighbours cross into the next row or plane feed no output.
void max_planes_u8(const Pool2d& q, const uint8_t* x, uint8_t* y, int64_t count, uint8_t* scratch) {
    const U8Plane u = u8_plane(q);
    const int64_t w = u.cols, plane = u.rows * w, in_size = q.in_h * q.in_w, out_size = q.out_h * q.out_w;
    const int64_t group = u8_group(q);
    for (int64_t first = 0; first < count; first += group) {
        const int64_t g = std::min(group, count - first), size = g * plane;
        const uint8_t* src = x + first * in_size;
        if (u.padded) {
            uint8_t* padded = scratch + 2 * group * plane;
            const int64_t after = w - q.pad_w - q.in_w;  // zeros after each data row
            for (int64_t i = 0; i < g; ++i) {
                uint8_t* to = padded + i * plane;
                std::memset(to, 0, static_cast<size_t>(q.pad_h * w));
                for (int64_t r = 0; r < q.in_h; ++r) {
                    uint8_t* row = to + (q.pad_h + r) * w;
                    for (int64_t c = 0; c < q.pad_w; ++c) row[c] = 0;
                    copy_bytes(src + i * in_size + r * q.in_w, q.in_w, row + q.pad_w);
                    for (int64_t c = 0; c < after; ++c) row[q.pad_w + q.in_w + c] = 0;
                }
                std::memset(to + (q.pad_h + q.in_h) * w, 0, static_cast<size_t>((u.rows - q.pad_h - q.in_h) * w));
            }
            src = padded;
        }
        uint8_t* h = scratch;
        uint8_t* v = scratch + group * plane;
        const int64_t hn = size - q.kernel_w + 1, vn = hn - (q.kernel_h - 1) * w;
        if (q.kernel_w == 1) std::memcpy(h, src, static_cast<size_t>(hn));
        else max_bytes(src, src + 1, hn, h);
        for (int64_t c = 2; c < q.kernel_w; ++c) max_bytes(h, src + c, hn, h);
        if (q.kernel_h == 1) std::memcpy(v, h, static_cast<size_t>(vn));
        else max_bytes(h, h + w, vn, v);
        for (int64_t r = 2; r < q.kernel_h; ++r) max_bytes(v, h + r * w, vn, v);
        for (int64_t i = 0; i < g; ++i)
            for (int64_t oh = 0; oh < q.out_h; ++oh) {
                const uint8_t* at = v + i * plane + oh * q.stride_h * w;
                uint8_t* out = y + (first + i) * out_size + oh * q.out_w;
                if (q.stride_w == 1) std::memcpy(out, at, static_cast<size_t>(q.out_w));
                else if (q.stride_w == 2) even_bytes(at, q.out_w, out);
                else
                    for (int64_t o = 0; o < q.out_w; ++o) out[o] = at[o * q.stride_w];
            }
    }
}

// MaxPool of u8 planes without indices, undilated: groups of whole planes per task, compiled for
// the CPU's level (exact per-element max: the same bytes at every level). False: not such a pool.
bool max_pool_u8(const PoolAttrs& a, const PoolPlane& p, const Pool2d& q, const uint8_t* x, uint8_t* y,
                 int64_t planes, const KernelContext& ctx) {
    if (!q.enabled || !a.is_max || q.dilation_h != 1 || q.dilation_w != 1) return false;
    const cpu::Isa isa = cpu::active_isa();
    detail::for_chunks(ctx.pool(), planes, u8_group(q), [&](int64_t begin, int64_t end) {
        auto* scratch = reinterpret_cast<uint8_t*>(static_cast<std::byte*>(ctx.scratch()) + q.row_offset);
        cpu::run_at(isa, [&] { max_planes_u8(q, x + begin * p.in_size, y + begin * p.out_size, end - begin, scratch); });
    });
    return true;
}

// ---- MaxPool of u8 small planes: 16 planes at a time, channels last ----------------------------
// On planes whose rows are narrower than a vector the passes above are mostly per-row work
// (padding copies, stride-2 picks of a few bytes): SqueezeNet's u8 pools of 64 x 32x32, 128 x
// 16x16 and 256 x 8x8 planes took longer than the same pools on floats. Here 16 planes are turned
// channels-last by 16 x 16 byte transposes over their flat pixels (a plane's rows lie one after
// the other, so narrow rows leave no tails) into a block padded with zeros (u8's lowest value:
// it never wins, and a window without data gives it, as above); every output pixel is then the
// max of its taps' 16-byte vectors, and the outputs go back to planes by the same transposes.
// Exact: the max of the same bytes. Measured on AVX-512 (Zen 5), 64 planes 3x3 / 2: 32x32 5.2 us
// here, 7.9 us in the passes; 48 and 56 wide about even; 63 wide (no padding copy there) slower.
inline constexpr int64_t kU8ChannelsLastWidth = 48;  // data rows narrower than this
inline constexpr int64_t kU8ChannelsLastPixels = 4096;  // the padded block stays in L1/L2

// For a u8 MaxPool.
ChannelsLastMax plan_channels_last_u8(const std::vector<nn::AxisWindow>& axes) {
    if (axes.size() != 2) return {};
    for (const nn::AxisWindow& w : axes)
        if (w.dilation != 1 || w.in < 1) return {};
    if (axes[1].in >= kU8ChannelsLastWidth || axes[0].in * axes[1].in > kU8ChannelsLastPixels) return {};
    ChannelsLastMax m = channels_last_geometry(axes);
    m.pixel_bytes = 16;
    return m;
}

// Planes [0, cn) (cn <= 16, in_size apart) of x into outputs y (out_size apart); xp and out_cl:
// scratch for the padded block and the channels-last outputs.
void max_planes_u8_channels_last(const ChannelsLastMax& m, const Pool2d& q, const uint8_t* x, int64_t in_size,
                                 int64_t out_size, int64_t cn, uint8_t* xp, uint8_t* out_cl, uint8_t* y) {
    const int64_t in_h = q.in_h, in_w = q.in_w, width = m.width;
    // The zero border: rows above and below the data, columns left and right of each data row.
    std::memset(xp, 0, static_cast<size_t>(m.top * width * 16));
    std::memset(xp + (m.top + in_h) * width * 16, 0, static_cast<size_t>((m.rows - m.top - in_h) * width * 16));
    const int64_t right = width - m.left - in_w;
    for (int64_t h = m.top; h < m.top + in_h; ++h) {
        uint8_t* row = xp + h * width * 16;
        std::memset(row, 0, static_cast<size_t>(m.left * 16));
        std::memset(row + (m.left + in_w) * 16, 0, static_cast<size_t>(right * 16));
    }
    // The data, 16 flat pixels of the 16 planes a transpose (missing planes as zeros).
    int64_t h = 0, w = 0;  // of pixel px
    uint8_t* dst = xp + (m.top * width + m.left) * 16;
    const auto next_pixel = [&] {
        dst += 16;
        if (++w == in_w) w = 0, ++h, dst += (width - in_w) * 16;
    };
    int64_t px = 0;
    for (; px + 16 <= in_size; px += 16) {
        U8x16 r[16];
        for (int i = 0; i < 16; ++i) {
            if (i < cn) std::memcpy(&r[i], x + i * in_size + px, 16);
            else r[i] = U8x16{};
        }
        detail::transpose16_bytes(r);
        for (int j = 0; j < 16; ++j, next_pixel()) std::memcpy(dst, &r[j], 16);
    }
    for (; px < in_size; ++px, next_pixel())
        for (int64_t i = 0; i < 16; ++i) dst[i] = i < cn ? x[i * in_size + px] : 0;
    // Every output pixel: the max over its window.
    const int64_t taps = static_cast<int64_t>(m.tap_offset.size());
    const int64_t* tap = m.tap_offset.data();
    uint8_t* out = out_cl;
    for (int64_t oh = 0; oh < q.out_h; ++oh)
        for (int64_t ow = 0; ow < q.out_w; ++ow, out += 16) {
            const uint8_t* base = xp + (oh * m.stride_h * width + ow * m.stride_w) * 16;
            U8x16 best;
            std::memcpy(&best, base, 16);
            for (int64_t t = 1; t < taps; ++t) {
                U8x16 v;
                std::memcpy(&v, base + tap[t] * 16, 16);
                best = v > best ? v : best;
            }
            std::memcpy(out, &best, 16);
        }
    // Back to planes.
    px = 0;
    for (; px + 16 <= out_size; px += 16) {
        U8x16 r[16];
        for (int i = 0; i < 16; ++i) std::memcpy(&r[i], out_cl + (px + i) * 16, 16);
        detail::transpose16_bytes(r);
        for (int64_t c = 0; c < cn; ++c) std::memcpy(y + c * out_size + px, &r[c], 16);
    }
    for (; px < out_size; ++px)
        for (int64_t c = 0; c < cn; ++c) y[c * out_size + px] = out_cl[px * 16 + c];
}

// Channels-last MaxPool (f32 8 planes, u8 16 planes at a time) of `planes` planes: the groups
// shared among the threads, each turned channels-last in its thread's scratch.
template <class C>
void max_pool_channels_last(const ChannelsLastMax& m, const PoolPlane& p, const Pool2d& q, const C* x, C* y,
                            int64_t planes, const KernelContext& ctx) {
    constexpr int64_t lanes = std::is_same_v<C, uint8_t> ? 16 : 8;
    const int64_t groups = (planes + lanes - 1) / lanes;
    const int64_t group_grain = std::max<int64_t>(1, 4096 / std::max<int64_t>(p.in_size * lanes, 1));
    const cpu::Isa isa = cpu::active_isa();
    detail::for_chunks(ctx.pool(), groups, group_grain, [&](int64_t begin, int64_t end) {
        C* xp = reinterpret_cast<C*>(static_cast<std::byte*>(ctx.scratch()) + m.offset);
        C* out_cl = xp + m.rows * m.width * lanes;
        cpu::run_at(isa, [&] {
            for (int64_t g = begin; g < end; ++g) {
                const int64_t first = g * lanes, cn = std::min<int64_t>(lanes, planes - first);
                if constexpr (std::is_same_v<C, uint8_t>)
                    max_planes_u8_channels_last(m, q, x + first * p.in_size, p.in_size, p.out_size, cn, xp, out_cl,
                                                y + first * p.out_size);
                else
                    max_planes_channels_last(m, q, x + first * p.in_size, p.in_size, p.out_size, cn, xp, out_cl,
                                             y + first * p.out_size);
            }
        });
    });
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
void pool(const PoolAttrs& a, const PoolPlane& p, const Pool2d& q, const SeparableMax& sep, const ChannelsLastMax& cl,
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
        if (cl.enabled && !indices) return max_pool_channels_last(cl, p, q, x, y, planes, ctx);
        if (sep.enabled && !indices) {
            const cpu::Isa isa = cpu::active_isa();
            detail::for_chunks(ctx.pool(), planes, grain, [&](int64_t begin, int64_t end) {
                float* buf = reinterpret_cast<float*>(static_cast<std::byte*>(ctx.scratch()) + sep.offset);
                // Compiled for the CPU's level (cpu_isa.hpp): exact per-element max, same result at every level.
                cpu::run_at(isa, [&] {
                    for (int64_t plane = begin; plane < end; ++plane) {
                        const float* xp = x + plane * p.in_size;
                        float* yp = y + plane * p.out_size;
                        if (!max_plane_separable(sep, q, p.taps[0], xp, buf, yp))
                            pool_plane_any(p, q, a, xp, yp, nullptr, nullptr);
                    }
                });
            });
            return;
        }
    }
    if constexpr (std::is_same_v<C, uint8_t>) {
        if (!indices && cl.enabled) return max_pool_channels_last(cl, p, q, x, y, planes, ctx);
        if (!indices && max_pool_u8(a, p, q, x, y, planes, ctx)) return;
    }
    const auto planes_in = [&](int64_t begin, int64_t end) {
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
    };
    if constexpr (std::is_same_v<C, float> || std::is_same_v<C, uint8_t>) {
        // f32 (AvgPool, MaxPool with indices) and u8 (MaxPool that max_pool_u8 does not take:
        // dilated, or not 2-D) compiled for the CPU's level too: the same sums in the same order
        // (double, tap by tap per output) and the same compares, so the same bits.
        const cpu::Isa isa = cpu::active_isa();
        detail::for_chunks(ctx.pool(), planes, grain,
                           [&](int64_t begin, int64_t end) { cpu::run_at(isa, [&] { planes_in(begin, end); }); });
    } else {
        detail::for_chunks(ctx.pool(), planes, grain, planes_in);
    }
}

// The windows planned once; the per-plane argmax (MaxPool's indices) lives in scratch memory.
struct PoolPlan : OpPlan {
    PoolPlane plane;
    Pool2d fast;  // [N, C, H, W] data
    SeparableMax separable;      // MaxPool f32 without indices
    ChannelsLastMax channels_last;  // the same on small planes
    // After the methods' scratch: the data and the output converted to the compute type (f16/bf16
    // as f32, integers as 64 bits: nn::conversion_bytes), in the calling thread's region.
    size_t conversion_offset = 0, input_bytes = 0, output_bytes = 0;
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
        // out_w doubles (AvgPool's sums, MaxPool's tap numbers) or the u8 path's planes (max_planes_u8)
        size_t row = static_cast<size_t>(plan->fast.out_w) * sizeof(double);
        if (a.is_max && ctx.type(0) == ElementType::u8) row = std::max(row, u8_plane_bytes(plan->fast));
        plan->scratch_bytes = plan->fast.row_offset + row;
    }
    plan->separable = plan_separable_max(a, axes, p.taps);
    if (ctx.type(0) != ElementType::f32) plan->separable.enabled = false;
    // u8 (levels) MaxPool without indices on narrow planes: channels last 16 planes at a time.
    const bool u8_max = a.is_max && ctx.type(0) == ElementType::u8;
    plan->channels_last = u8_max ? plan_channels_last_u8(axes) : plan_channels_last_max(plan->separable, axes);
    const size_t at = (plan->scratch_bytes + 63) / 64 * 64;
    if (plan->channels_last.enabled) {
        plan->separable.enabled = false;
        plan->channels_last.offset = at;
        plan->scratch_bytes = at + plan->channels_last.bytes(p.out_size);
    } else if (plan->separable.enabled) {
        plan->separable.offset = at;
        plan->scratch_bytes = at + plan->separable.floats() * sizeof(float);
    }
    plan->conversion_offset = (plan->scratch_bytes + 63) / 64 * 64;
    // u8 MaxPool without indices compares the bytes as they are (compute): nothing to convert.
    const bool as_bytes = a.is_max && !a.with_indices && ctx.type(0) == ElementType::u8;
    plan->input_bytes = as_bytes ? 0 : nn::conversion_bytes(ctx.type(0), checked_num_elements(data));
    int64_t planes = 1;  // batch x channels: the dims before the window's
    for (size_t i = 0; i + axes.size() < data.size(); ++i) planes *= data[i];
    plan->output_bytes = as_bytes ? 0 : nn::conversion_bytes(ctx.type(0), planes * p.out_size);
    plan->scratch_bytes = plan->conversion_offset + plan->input_bytes + plan->output_bytes;
    plan->method = plan->channels_last.enabled ? "window-2d-channels-last"
                   : plan->separable.enabled   ? "window-2d-separable"
                   : plan->fast.enabled        ? "window-2d"
                                               : "window";
    return plan;
}

void compute(KernelContext& ctx) {
    const auto& a = ctx.attrs<PoolAttrs>();
    const Tensor& data = ctx.input(0);
    const PoolPlan& plan = ctx.plan<PoolPlan>();
    if (ctx.output(0).num_elements() == 0) return;
    // The indices cost a branchy tap search per element: only when something reads them.
    Tensor* indices = a.with_indices && ctx.output_needed(1) ? &ctx.output(1) : nullptr;
    if (data.type() == ElementType::u8 && a.is_max && !indices) {
        // Levels (OpDef::passes_levels) and any u8 data: compared as they are, no conversion.
        if (ctx.output(0).type() != ElementType::u8)
            throw Error(ErrorKind::Type, "pool-level-type",
                        std::string("a u8 MaxPool writes u8, its output tensor is ") + to_string(ctx.output(0).type()));
        pool<uint8_t>(a, plan.plane, plan.fast, plan.separable, plan.channels_last, data.shape(), data.data<uint8_t>(),
                      ctx.output(0).data<uint8_t>(), nullptr, ctx);
        return;
    }
    nn::dispatch_compute(data.type(), [&](auto tag) {
        using C = decltype(tag);
        auto* conversions = static_cast<std::byte*>(ctx.scratch()) + plan.conversion_offset;
        const nn::ComputeIn<C> x(data, {conversions, plan.input_bytes});
        nn::ComputeOut<C> y(ctx.output(0), {conversions + plan.input_bytes, plan.output_bytes});
        pool<C>(a, plan.plane, plan.fast, plan.separable, plan.channels_last, data.shape(), x.data(), y.data(), indices,
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
    d.passes_levels = v.is_max;  // the level pass checks that nothing reads the indices
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
