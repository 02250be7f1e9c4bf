// Convolution-1, GroupConvolution-1, ConvolutionBackpropData-1, GroupConvolutionBackpropData-1
// (opset1+), for 1-D, 2-D and 3-D spatial data (rank 3..5), written once for any spatial rank.
// Inputs:
//   Convolution:                  0 'data' [N, C_IN, S...], 1 'filters' [C_OUT, C_IN, K...]
//   GroupConvolution:             0 'data' [N, G*C_IN, S...], 1 'filters' [G, C_OUT, C_IN, K...]
//   ConvolutionBackpropData:      0 'data' [N, C_IN, S...], 1 'filters' [C_IN, C_OUT, K...],
//                                 2 'output_shape' (optional, 1-D integer, the result's spatial dims)
//   GroupConvolutionBackpropData: 0 'data' [N, G*C_IN, S...], 1 'filters' [G, C_IN, C_OUT, K...], 2 as above
// Attributes: strides, dilations (default 1s), pads_begin, pads_end, auto_pad (explicit, notset,
// same_upper, same_lower, valid), and for the backprop ops output_padding (default 0s).
// Output: [N, G*C_OUT, O...]; O from the window rules in kernels/detail/nn_common.hpp.
// Types: f32, f64; f16/bf16 computed in f32. data and filters of the same type.
// Method: im2col + GEMM (forward), GEMM + col2im (backprop), in column chunks that bound the scratch
// buffer; a 1x1 stride-1 convolution is a GEMM on the data itself, and a group with one input
// channel (depthwise, MobileNet) runs a direct kernel.
#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <optional>
#include <thread>
#include <type_traits>

#include "kernels/detail/cpu_isa.hpp"
#include "kernels/detail/epilogue.hpp"
#include "kernels/detail/nn_common.hpp"
#include "kernels/detail/nn_gemm.hpp"
#include "kernels/detail/parallel.hpp"
#include "kernels/detail/sgemm.hpp"
#include "kernels/detail/transpose8.hpp"
#include "kernels/detail/winograd.hpp"
#include "kernels/detail/simd.hpp"
#include "kernels/nn/convolution_int8.hpp"

// The depthwise kernel below passes GCC/clang vector-extension values between functions of this
// file only; without -mavx, compilers warn that such values would change the ABI of an exported
// function. None is exported (anonymous namespace), so the warning does not apply here.
#if defined(__clang__) || defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace irlite {
namespace {

enum class ConvKind { Forward, GroupForward, Backprop, GroupBackprop };

bool is_group(ConvKind k) { return k == ConvKind::GroupForward || k == ConvKind::GroupBackprop; }
bool is_backprop(ConvKind k) { return k == ConvKind::Backprop || k == ConvKind::GroupBackprop; }

struct ConvAttrs : OpAttrs {
    nn::WindowSpec window;
    std::vector<int64_t> output_padding;  // backprop only; empty = zeros
    // Forward f32 only: bias, residual (input 2) and activation fused after the convolution.
    std::shared_ptr<const Epilogue> epilogue;
    // Convolution only: the data input's FakeQuantize and the integer weights, when the
    // low-precision pass made this layer int8 (convolution_int8.hpp).
    std::shared_ptr<const QuantizedInput> quantized;
};

std::unique_ptr<OpAttrs> parse(const AttrReader& r, ConvKind kind) {
    auto a = std::make_unique<ConvAttrs>();
    a->window = nn::read_window_spec(r, true);
    if (is_backprop(kind) && r.has("output_padding"))
        a->output_padding = nn::read_positive_list(r, "output_padding", 0);
    return a;
}

// The convolution in numbers; dims may be kDynamic inside shape rules.
struct ConvProblem {
    int64_t batch = 0, groups = 1, in_per_group = 0, out_per_group = 0, data_channels = 0;
    std::vector<nn::AxisWindow> axes;  // spatial; `in` = data side, `out` = result side
    std::vector<int64_t> out_shape;

    int64_t kernel_size() const {
        int64_t k = 1;
        for (const auto& a : axes) k *= a.kernel;
        return k;
    }
    int64_t in_spatial() const {
        int64_t s = 1;
        for (const auto& a : axes) s *= a.in;
        return s;
    }
    int64_t out_spatial() const {
        int64_t s = 1;
        for (const auto& a : axes) s *= a.out;
        return s;
    }
};

int64_t mul_dims(int64_t a, int64_t b) { return a == kDynamic || b == kDynamic ? kDynamic : a * b; }

template <class Ctx>
ConvProblem analyze(const Ctx& ctx, ConvKind kind, const ConvAttrs& attrs, const std::vector<int64_t>& data,
                    const std::vector<int64_t>& filters, const std::vector<int64_t>* output_shape) {
    if (data.size() < 3 || data.size() > 5)
        throw ctx.input_error(0, ErrorKind::ShapeRule, "rank-invalid",
                              str("expected [N, C, spatial...] with 1 to 3 spatial dims (rank 3..5), got ",
                                  to_string(PartialShape(data))));
    const size_t lead = is_group(kind) ? 3 : 2;
    const size_t spatial = data.size() - 2;
    if (filters.size() != spatial + lead)
        throw ctx.input_error(1, ErrorKind::ShapeRule, "rank-invalid",
                              str("filters of rank ", spatial + lead, " expected for data ", to_string(PartialShape(data)),
                                  ", got ", to_string(PartialShape(filters))));
    ConvProblem p;
    p.batch = data[0];
    p.data_channels = data[1];
    switch (kind) {
        case ConvKind::Forward: p.out_per_group = filters[0], p.in_per_group = filters[1]; break;
        case ConvKind::GroupForward: p.groups = filters[0], p.out_per_group = filters[1], p.in_per_group = filters[2]; break;
        case ConvKind::Backprop: p.in_per_group = filters[0], p.out_per_group = filters[1]; break;
        case ConvKind::GroupBackprop: p.groups = filters[0], p.in_per_group = filters[1], p.out_per_group = filters[2]; break;
    }
    const int64_t expected_channels = mul_dims(p.groups, p.in_per_group);
    if (expected_channels != kDynamic && p.data_channels != kDynamic && expected_channels != p.data_channels)
        throw ctx.input_error(1, ErrorKind::ShapeRule, "channels-mismatch",
                              str("data ", to_string(PartialShape(data)), " has ", p.data_channels,
                                  " channels, but filters ", to_string(PartialShape(filters)), " expect ",
                                  is_group(kind) ? str(p.groups, " groups x ", p.in_per_group, " = ") : "",
                                  expected_channels));
    const std::vector<int64_t> in_dims(data.begin() + 2, data.end());
    const std::vector<int64_t> kernel(filters.begin() + static_cast<std::ptrdiff_t>(lead), filters.end());
    p.axes = is_backprop(kind) ? nn::backprop_windows(attrs.window, attrs.output_padding, in_dims, kernel, output_shape)
                               : nn::forward_windows(attrs.window, in_dims, kernel, nn::Rounding::Floor);
    p.out_shape = {p.batch, mul_dims(p.groups, p.out_per_group)};
    for (const auto& a : p.axes) p.out_shape.push_back(a.out);
    return p;
}

// The optional output_shape input of the backprop ops: its values, or kDynamic per spatial axis
// when they are not known yet. Null when the input is absent.
template <class Ctx>
std::optional<std::vector<int64_t>> read_output_shape(const Ctx& ctx, const Tensor* value, const PartialShape& shape,
                                                      size_t spatial_rank) {
    if (shape.rank_known() && shape.rank() != 1)
        throw ctx.input_error(2, ErrorKind::ShapeRule, "rank-invalid",
                              str("output_shape must be 1-D, got shape ", to_string(shape)));
    if (shape.rank_known() && shape[0] != kDynamic && static_cast<size_t>(shape[0]) != spatial_rank)
        throw ctx.input_error(2, ErrorKind::ShapeRule, "dims-mismatch",
                              str("output_shape has ", shape[0], " values; expected one per spatial axis (",
                                  spatial_rank, ")"));
    std::vector<int64_t> dims(spatial_rank, kDynamic);
    if (!value) return dims;
    for (size_t i = 0; i < spatial_rank; ++i) {
        dims[i] = value->value_as_int64(static_cast<int64_t>(i));
        if (dims[i] < 1)
            throw ctx.input_error(2, ErrorKind::Value, "output-shape-invalid",
                                  str("output_shape[", i, "] = ", dims[i], "; it must be at least 1"));
    }
    return dims;
}

std::vector<OutputInfo> infer(const InferContext& ctx, ConvKind kind) {
    nn::require_float(ctx, 0);
    nn::require_same_type(ctx, 1, 0);
    nn::require_rank(ctx, 0, 3, 5, "[N, C, spatial...]");
    const bool has_output_shape = is_backprop(kind) && ctx.num_inputs() > 2;
    if (has_output_shape) nn::require_integer(ctx, 2);
    if (!ctx.shape(0).rank_known()) return {{ctx.type(0), PartialShape::dynamic_rank()}};
    const size_t spatial = ctx.shape(0).rank() - 2;
    std::vector<int64_t> filters = ctx.shape(1).rank_known()
                                       ? ctx.shape(1).dims()
                                       : std::vector<int64_t>(spatial + (is_group(kind) ? 3 : 2), kDynamic);
    std::optional<std::vector<int64_t>> output_shape;
    if (has_output_shape) output_shape = read_output_shape(ctx, ctx.value(2), ctx.shape(2), spatial);
    const ConvProblem p = analyze(ctx, kind, ctx.attrs<ConvAttrs>(), ctx.shape(0).dims(), filters,
                                  output_shape ? &*output_shape : nullptr);
    return {{ctx.type(0), PartialShape(p.out_shape)}};
}

// ---- kernels ---------------------------------------------------------------------------------

// Numbers per spatial axis (at most 3: rank 3..5), held inline so that the N-d path allocates
// nothing per run.
class Dims {
public:
    static constexpr size_t kMax = 3;
    explicit Dims(size_t n = 0, int64_t value = 0) : n_(n) { v_.fill(value); }
    size_t size() const { return n_; }
    int64_t& operator[](size_t i) { return v_[i]; }
    int64_t operator[](size_t i) const { return v_[i]; }
    int64_t back() const { return v_[n_ - 1]; }
    void push_back(int64_t x) { v_[n_++] = x; }
    void pop_back() { --n_; }
    const int64_t* begin() const { return v_.data(); }
    const int64_t* end() const { return v_.data() + n_; }

private:
    std::array<int64_t, kMax> v_{};
    size_t n_ = 0;
};

// Visits every multi-index of dims in row-major order.
template <class F>
void for_each_index(const Dims& dims, F&& f) {
    int64_t total = 1;
    for (int64_t d : dims) total *= d;
    Dims index(dims.size(), 0);
    for (int64_t n = 0; n < total; ++n) {
        f(index);
        for (size_t d = dims.size(); d-- > 0;) {
            if (++index[d] < dims[d]) break;
            index[d] = 0;
        }
    }
}

Dims strides_of(const std::vector<nn::AxisWindow>& axes, bool data_side) {
    Dims s(axes.size(), 1);
    for (size_t i = axes.size(); i-- > 1;) s[i - 1] = s[i] * (data_side ? axes[i].in : axes[i].out);
    return s;
}

// A run of consecutive positions along the last spatial axis of one side (the result for im2col,
// the data for col2im), with fixed coordinates on the other axes.
struct Segment {
    int64_t column;  // position of the run's first element in the chunk
    int64_t first;   // coordinate of that element along the last axis
    int64_t count;
    Dims lead;  // coordinates along the other axes
};

// Splits positions [begin, begin + len) of a row-major grid of `dims` into segments, visited in
// order (made as they are visited: nothing to allocate).
template <class F>
void for_each_segment(const Dims& dims, int64_t begin, int64_t len, F&& f) {
    const int64_t last = dims.back();
    const size_t lead_rank = dims.size() - 1;
    int64_t pos = begin;
    while (pos < begin + len) {
        Segment s;
        s.column = pos - begin;
        s.first = pos % last;
        s.count = std::min(last - s.first, begin + len - pos);
        int64_t rest = pos / last;
        s.lead = Dims(lead_rank, 0);
        for (size_t d = lead_rank; d-- > 0;) {
            s.lead[d] = rest % dims[d];
            rest /= dims[d];
        }
        pos += s.count;
        f(s);
    }
}

Dims axis_dims(const std::vector<nn::AxisWindow>& axes, bool data_side) {
    Dims d;
    for (const auto& a : axes) d.push_back(data_side ? a.in : a.out);
    return d;
}

Dims kernel_dims(const std::vector<nn::AxisWindow>& axes) {
    Dims d;
    for (const auto& a : axes) d.push_back(a.kernel);
    return d;
}

// Offset, along the leading spatial axes, of the element that kernel tap `tap` of position `lead`
// reaches (lead * stride - pad_begin + tap * dilation on each axis), or -1 when that falls outside
// [0, limit): the data when forward (lead are result coordinates), the result otherwise (lead are
// data coordinates).
int64_t lead_offset(const std::vector<nn::AxisWindow>& axes, const Dims& lead, const Dims& tap, const Dims& strides,
                    bool forward) {
    int64_t off = 0;
    for (size_t a = 0; a + 1 < axes.size(); ++a) {
        const nn::AxisWindow& w = axes[a];
        const int64_t c = lead[a] * w.stride - w.pad_begin + tap[a] * w.dilation;
        if (c < 0 || c >= (forward ? w.in : w.out)) return -1;
        off += c * strides[a];
    }
    return off;
}

// col[row][j] for rows (channel, kernel tap) and the chunk's result positions j: the data element
// that tap reads, 0 in the padding.
template <class T>
void im2col(const ConvProblem& p, const T* x, int64_t begin, int64_t len, T* col) {
    const auto& axes = p.axes;
    const nn::AxisWindow& last = axes.back();
    const Dims out_dims = axis_dims(axes, false);
    const Dims in_strides = strides_of(axes, true);
    const int64_t in_spatial = p.in_spatial();
    int64_t row = 0;
    for (int64_t c = 0; c < p.in_per_group; ++c) {
        const T* xc = x + c * in_spatial;
        for_each_index(kernel_dims(axes), [&](const Dims& tap) {
            T* dst_row = col + row++ * len;
            const int64_t shift = tap.back() * last.dilation - last.pad_begin;
            // (a pair, not a structured binding: the lambda below captures lo and hi)
            const auto range = nn::affine_range(last.out, last.stride, shift, last.in);
            const int64_t lo = range.first, hi = range.second;
            for_each_segment(out_dims, begin, len, [&](const Segment& s) {
                T* dst = dst_row + s.column;
                const int64_t off = lead_offset(axes, s.lead, tap, in_strides, true);
                const int64_t a = std::clamp(lo, s.first, s.first + s.count);
                const int64_t b = std::clamp(hi, a, s.first + s.count);
                if (off < 0) {
                    std::fill(dst, dst + s.count, T(0));
                    return;
                }
                std::fill(dst, dst + (a - s.first), T(0));
                const T* src = xc + off;  // element o of the run reads src[o * stride + shift]
                if (last.stride == 1) {
                    std::copy(src + (a + shift), src + (b + shift), dst + (a - s.first));
                } else {
                    for (int64_t o = a; o < b; ++o) dst[o - s.first] = src[o * last.stride + shift];
                }
                std::fill(dst + (b - s.first), dst + s.count, T(0));
            });
        });
    }
}

// The reverse of im2col for the backprop ops: adds col[row][j] (rows: output channel, kernel tap;
// j: the chunk's data positions) into the result element it lands on.
template <class T>
void col2im_add(const ConvProblem& p, const T* col, int64_t begin, int64_t len, T* y) {
    const auto& axes = p.axes;
    const nn::AxisWindow& last = axes.back();
    const Dims in_dims = axis_dims(axes, true);
    const Dims out_strides = strides_of(axes, false);
    const int64_t out_spatial = p.out_spatial();
    int64_t row = 0;
    for (int64_t c = 0; c < p.out_per_group; ++c) {
        T* yc = y + c * out_spatial;
        for_each_index(kernel_dims(axes), [&](const Dims& tap) {
            const T* src_row = col + row++ * len;
            const int64_t shift = tap.back() * last.dilation - last.pad_begin;
            // (a pair, not a structured binding: the lambda below captures lo and hi)
            const auto range = nn::affine_range(last.in, last.stride, shift, last.out);
            const int64_t lo = range.first, hi = range.second;
            for_each_segment(in_dims, begin, len, [&](const Segment& s) {
                const int64_t off = lead_offset(axes, s.lead, tap, out_strides, false);
                if (off < 0) return;
                const int64_t a = std::clamp(lo, s.first, s.first + s.count);
                const int64_t b = std::clamp(hi, a, s.first + s.count);
                const T* src = src_row + s.column;  // element i of the run is src[i - s.first]
                T* dst = yc + off;
                for (int64_t i = a; i < b; ++i) dst[i * last.stride + shift] += src[i - s.first];
            });
        });
    }
}

// One output channel of a group with a single input channel: for each result row, each kernel tap
// adds weight x (a shifted data row) over the range of positions where it reads real data.
template <class T>
void direct_single_channel(const ConvProblem& p, const T* x, const T* w, T* y) {
    const auto& axes = p.axes;
    const nn::AxisWindow& last = axes.back();
    const Dims in_strides = strides_of(axes, true);
    Dims out_lead = axis_dims(axes, false), kernel_lead = kernel_dims(axes);
    out_lead.pop_back();
    kernel_lead.pop_back();
    std::fill(y, y + p.out_spatial(), T(0));
    T* y_row = y;
    for_each_index(out_lead, [&](const Dims& lead) {
        const T* w_row = w;
        for_each_index(kernel_lead, [&](const Dims& tap) {
            const int64_t off = lead_offset(axes, lead, tap, in_strides, true);
            if (off >= 0) {
                for (int64_t k = 0; k < last.kernel; ++k) {
                    const T wv = w_row[k];
                    const T* src = x + off;
                    const int64_t shift = k * last.dilation - last.pad_begin;
                    const auto [lo, hi] = nn::affine_range(last.out, last.stride, shift, last.in);
                    if (last.stride == 1) {
                        for (int64_t o = lo; o < hi; ++o) y_row[o] += wv * src[o + shift];
                    } else {
                        for (int64_t o = lo; o < hi; ++o) y_row[o] += wv * src[o * last.stride + shift];
                    }
                }
            }
            w_row += last.kernel;
        });
        y_row += last.out;
    });
}

// Columns per im2col block: enough for GEMM to run at speed, few enough that the block stays in
// cache and that a layer splits into several blocks for the threads.
int64_t chunk_columns(int64_t rows, int64_t columns) {
    constexpr int64_t kScratchElements = int64_t{1} << 16;  // 256 KiB of f32: the im2col block stays in L2
    const int64_t fit = rows > 0 ? kScratchElements / rows : columns;
    return std::max<int64_t>(1, std::min(columns, std::max<int64_t>(fit, 64)));
}

// Columns per task of a 1x1 convolution: a fixed block, so that results do not depend on threads.
int64_t pointwise_columns(int64_t columns) { return std::min<int64_t>(std::max<int64_t>(columns, 1), 1024); }

bool is_pointwise(const ConvProblem& p) {
    for (const auto& a : p.axes)
        if (a.kernel != 1 || a.stride != 1 || a.pad_begin != 0 || a.in != a.out) return false;
    return true;
}

// ---- 2-D fast paths (NCHW): no allocation, geometry precomputed in the plan ------------------

// ---- depthwise (a group with one input channel), 2-D ------------------------------------------
// The data plane is first copied into scratch with its padding written as zeros (DwLayout), so that
// every output element reads KH x KW real elements: no bounds checks, no border cases. Each output
// row is then made in vector blocks of V columns, the V sums held in one register across all taps
// (kh, kw in order, as the plain loop adds them); the last block of a row overlaps the one before
// it instead of running a scalar tail. Rows narrower than a vector run a scalar loop.
// At a column stride S > 1 the padded rows are stored split by column phase (dw_phase_layout, as
// the implicit GEMM's B: ConvPlan::implicit), so that the S-strided columns a tap reads for V
// consecutive outputs are V consecutive elements: one plain vector load, no gather or shuffle.

// Where the zero-padded plane lives in scratch: `rows` rows of `width` elements, the data starting
// at row `top`, column `left`; wide enough for the last vector block's loads. With phases > 1, each
// row is `phases` runs of phase_width elements (width = phases * phase_width), run f holding the
// padded columns f, f + phases, f + 2 * phases, ...: padded column c at (c % phases) *
// phase_width + c / phases of its row (dw_phase_layout; only the planar depthwise kernels use it).
struct DwLayout {
    int64_t rows = 0, width = 0, top = 0, left = 0;
    int64_t phases = 1, phase_width = 0;
    size_t bytes(size_t elem) const { return (static_cast<size_t>(rows * width) * elem + 63) / 64 * 64; }
};

DwLayout dw_layout(const ConvProblem& p) {
    const nn::AxisWindow& ah = p.axes[0];
    const nn::AxisWindow& aw = p.axes[1];
    DwLayout l;
    l.top = ah.pad_begin;
    l.left = aw.pad_begin;
    // The last element read: (out - 1) * stride + (kernel - 1) * dilation; a stride-2 block loads
    // one more element after its last tap.
    l.rows = std::max(l.top + ah.in, (ah.out - 1) * ah.stride + (ah.kernel - 1) * ah.dilation + 1);
    l.width = std::max(l.left + aw.in, (aw.out - 1) * aw.stride + (aw.kernel - 1) * aw.dilation + aw.stride);
    return l;
}

// The planar depthwise kernels' layout: dw_layout's, split by column phase when the column stride
// is above 1. Output column ow's tap kw then reads phase (kw * dil) % S at column ow + (kw * dil) / S,
// so a row of each phase needs columns up to out_w - 1 + ((kw_n - 1) * dil) / S, i.e. padded
// columns up to (out_w - 1) * S + (kw_n - 1) * dil (no stride-2 overread slack), and all the data.
DwLayout dw_phase_layout(const ConvProblem& p) {
    DwLayout l = dw_layout(p);
    const nn::AxisWindow& aw = p.axes[1];
    l.phase_width = l.width;
    if (aw.stride > 1) {
        const int64_t needed = std::max(l.left + aw.in, (aw.out - 1) * aw.stride + (aw.kernel - 1) * aw.dilation + 1);
        l.phases = aw.stride;
        l.phase_width = (needed + aw.stride - 1) / aw.stride;
        l.width = l.phases * l.phase_width;
    }
    return l;
}

// Where a tap's column shift (kw * dilation, padded columns) lies in a row of the layout, from
// the position of its output column's first tap.
inline int64_t dw_tap_column(const DwLayout& l, int64_t shift) { return shift % l.phases * l.phase_width + shift / l.phases; }

// Short runs of floats or doubles copied or zeroed inline, 32 bytes at a time: rows here are 2 to
// 64 elements long, and a memcpy / memset call per row cost more than the row (8 % of MobileNetV2).
// The tails are a half chunk and single elements without a loop: compilers turn an element loop
// back into a memset / memcpy call (with its vzeroupper), the very cost these avoid.
template <class T>
inline void copy_short(T* dst, const T* src, int64_t n) {
    constexpr int64_t kChunk = 32 / sizeof(T);
    using Chunk = simd::vec_t<T, 32>;
    using Half = simd::vec_t<T, 16>;
    int64_t i = 0;
    for (; i + kChunk <= n; i += kChunk) {
        Chunk v;
        std::memcpy(&v, src + i, sizeof v);
        std::memcpy(dst + i, &v, sizeof v);
    }
    if (i + kChunk / 2 <= n) {
        Half v;
        std::memcpy(&v, src + i, sizeof v);
        std::memcpy(dst + i, &v, sizeof v);
        i += kChunk / 2;
    }
    if constexpr (kChunk / 2 > 1) {
        for (int k = 0; k < kChunk / 2 - 1; ++k)  // at most 3 left (floats)
            if (i < n) dst[i] = src[i], ++i;
    }
}

template <class T>
inline void zero_short(T* dst, int64_t n) {
    constexpr int64_t kChunk = 32 / sizeof(T);
    using Chunk = simd::vec_t<T, 32>;
    using Half = simd::vec_t<T, 16>;
    const Chunk zero = {};
    const Half half = {};
    int64_t i = 0;
    for (; i + kChunk <= n; i += kChunk) std::memcpy(dst + i, &zero, sizeof zero);
    if (i + kChunk / 2 <= n) {
        std::memcpy(dst + i, &half, sizeof half);
        i += kChunk / 2;
    }
    if constexpr (kChunk / 2 > 1) {
        for (int k = 0; k < kChunk / 2 - 1; ++k)
            if (i < n) dst[i] = T(0), ++i;
    }
}

template <class T>
void dw_copy_plane_data(const DwLayout& l, int64_t in_h, int64_t in_w, const T* x, T* dst);

// Copies one [H, W] data plane into the zero-padded layout.
template <class T>
void dw_pad_plane(const DwLayout& l, int64_t in_h, int64_t in_w, const T* x, T* dst) {
    if (l.phases > 1) {  // zeros everywhere, then the data: the zero runs of a phase row are short
        zero_short(dst, l.rows * l.width);
        dw_copy_plane_data(l, in_h, in_w, x, dst);
        return;
    }
    const int64_t width = l.width, left = l.left, right = l.width - l.left - in_w;
    zero_short(dst, l.top * width);
    T* row = dst + l.top * width;
    for (int64_t h = 0; h < in_h; ++h, row += width) {
        zero_short(row, left);
        copy_short(row + left, x + h * in_w, in_w);
        zero_short(row + left + in_w, right);
    }
    zero_short(row, dst + l.rows * width - row);
}

// Only the data of a plane into a padded layout whose padding is already zero (dw_pad_plane wrote
// it for an earlier plane of the same geometry in the same buffer): the zeros stay.
template <class T>
void dw_copy_plane_data(const DwLayout& l, int64_t in_h, int64_t in_w, const T* x, T* dst) {
    if (l.phases == 2) {
        // Stride 2, the common one: each data row split into its even and odd elements from the
        // same loads, one pass. Data column j is padded column c = j + left: phase c % 2, column
        // c / 2. So the even elements go to phase left % 2 from column left / 2, the odd ones to
        // the other phase from column (left + 1) / 2.
        const int64_t pw = l.phase_width, left = l.left;
        const int64_t even_at = left % 2 * pw + left / 2, odd_at = (left + 1) % 2 * pw + (left + 1) / 2;
        T* row = dst + l.top * l.width;
        for (int64_t h = 0; h < in_h; ++h, row += l.width)
            detail::split_even_odd(x + h * in_w, in_w, row + even_at, row + odd_at);
        return;
    }
    if (l.phases > 1) {
        const int64_t s = l.phases, pw = l.phase_width;
        // Any other stride (rare: 3, 4), phase by phase: phase f's column q holds padded column
        // q * s + f, i.e. data column q * s + f - left: data for q in [q0, q1).
        for (int64_t f = 0; f < s; ++f) {
            const int64_t first = f - l.left;  // data column of q = 0
            const int64_t q0 = first >= 0 ? 0 : (-first + s - 1) / s;
            const int64_t q1 = std::max(q0, std::min(pw, (in_w - first + s - 1) / s));
            T* row = dst + l.top * l.width + f * pw + q0;
            const T* src = x + q0 * s + first;
            for (int64_t h = 0; h < in_h; ++h, row += l.width, src += in_w)
                for (int64_t q = 0; q < q1 - q0; ++q) row[q] = src[q * s];
        }
        return;
    }
    T* row = dst + l.top * l.width + l.left;
    for (int64_t h = 0; h < in_h; ++h, row += l.width) copy_short(row, x + h * in_w, in_w);
}

// GCC/clang vector extensions: V elements of T (AVX, SSE, NEON or scalar code as the target allows).
template <class T, int V>
struct DwVec;
template <>
struct DwVec<float, 8> {
    using type = simd::f32x8;
};
template <>
struct DwVec<float, 4> {
    using type = simd::f32x4;
};
template <>
struct DwVec<double, 4> {
    using type = simd::vec_t<double, 32>;
};
template <>
struct DwVec<double, 2> {
    using type = simd::vec_t<double, 16>;
};

// Elements p[0], p[s], ..., p[(V - 1) * s] as a vector, s = S when S > 0 (1 or 2: reads
// p[0 .. V * S)); any s when S == 0.
template <class T, int V, int S, class Vec = typename DwVec<T, V>::type>
inline Vec dw_load(const T* p, int64_t s) {
    Vec v;
    if constexpr (S == 1) {
        std::memcpy(&v, p, sizeof v);
    } else if constexpr (S == 2) {
        Vec a, b;
        std::memcpy(&a, p, sizeof a);
        std::memcpy(&b, p + V, sizeof b);
        if constexpr (V == 8) v = __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14);
        else if constexpr (V == 4) v = __builtin_shufflevector(a, b, 0, 2, 4, 6);
        else v = __builtin_shufflevector(a, b, 0, 2);
    } else {
        for (int i = 0; i < V; ++i) v[i] = p[i * s];
    }
    return v;
}

// One output plane from the padded plane `xp` (dw_phase_layout: at any stride, the V outputs of a
// block read V consecutive elements per tap), in blocks of V columns (needs out_w >= V). Blocks
// are numbered row by row; kBlocks of them are made together, so that the sums of independent
// blocks overlap in the pipeline instead of waiting on each other, tap after tap.
// KH x KW taps (K == 0: any kernel from p; K > 0: K x K, unrolled).
template <class T, int V, int K>
void dw_rows_vec(const ConvProblem& p, const DwLayout& l, const T* xp, const T* w, T* y) {
    using Vec = typename DwVec<T, V>::type;
    constexpr int kBlocks = 4;
    const nn::AxisWindow& ah = p.axes[0];
    const nn::AxisWindow& aw = p.axes[1];
    const int64_t kh_n = K ? K : ah.kernel, kw_n = K ? K : aw.kernel, dw = aw.dilation;
    const int64_t row_step = ah.dilation * l.width;
    const int64_t per_row = (aw.out + V - 1) / V, total = ah.out * per_row;
    // Where tap column kw lies (dw_tap_column), stepped without a division per tap: phase
    // (kw * dw) % S and shift (kw * dw) / S, moved on by dw % S and dw / S with a carry.
    [[maybe_unused]] const int64_t phases = l.phases, pw = l.phase_width, d_phase = dw % phases, d_shift = dw / phases;
    [[maybe_unused]] int64_t tap_w[K ? K : 1];
    if constexpr (K > 0)
        for (int kw = 0; kw < K; ++kw) tap_w[kw] = dw_tap_column(l, kw * dw);
    // Geometry in locals (stores through `out` could otherwise be taken to change it), and blocks
    // located by a cursor (row, block in row) rather than a division per block.
    const int64_t in_row = ah.stride * l.width, out_w = aw.out, last_col = aw.out - V;
    const T* in[kBlocks];
    T* out[kBlocks];
    int64_t cur_row = 0, cur_block = 0;
    auto locate = [&](int i) {
        const int64_t o = std::min<int64_t>(cur_block * V, last_col);  // the last block overlaps
        in[i] = xp + cur_row * in_row + o;
        out[i] = y + cur_row * out_w + o;
        if (++cur_block == per_row) {
            cur_block = 0;
            ++cur_row;
        }
    };
    // acc[i] over the taps, (kh, kw) in order from a zero sum.
    auto taps = [&](Vec* acc, int n) {
        for (int64_t kh = 0; kh < kh_n; ++kh) {
            [[maybe_unused]] int64_t phase = 0, shift = 0;
            for (int64_t kw = 0; kw < kw_n; ++kw) {
                const T wv = w[kh * kw_n + kw];
                int64_t off = kh * row_step;
                if constexpr (K > 0) {
                    off += tap_w[kw];
                } else {
                    off += phase * pw + shift;
                    phase += d_phase;
                    shift += d_shift;
                    if (phase >= phases) phase -= phases, ++shift;
                }
                for (int i = 0; i < n; ++i) {
                    Vec v;
                    std::memcpy(&v, in[i] + off, sizeof v);
                    acc[i] += wv * v;
                }
            }
        }
    };
    int64_t block = 0;
    if constexpr (K == 3) {
        // 3 x 3 (MobileNets): the 9 weights stay in registers as vectors and 5 blocks are made
        // together (5 sums + 9 weights + 1 load: 15 of the 16 vector registers), every loop
        // unrolled, so that a tap is one load and a multiply and add per block, with no weight
        // broadcast or spilled sum in the loop. Columns of unit stride and dilation (the tap
        // columns 0, 1, 2) are address displacements, so the row offsets are the only index
        // registers. Same sums in the same order.
        constexpr int kBlocks3 = 5;
        const auto splat = [&](int t) -> Vec { return w[t] - Vec{}; };  // x - 0 is x for every x, -0 too
        const Vec wv[9] = {splat(0), splat(1), splat(2), splat(3), splat(4), splat(5), splat(6), splat(7), splat(8)};
        const auto run3 = [&](auto unit_columns) {
            constexpr bool kUnit = decltype(unit_columns)::value;
            const int64_t rs[3] = {0, row_step, 2 * row_step};
            const int64_t cols[3] = {kUnit ? 0 : tap_w[0], kUnit ? 1 : tap_w[1], kUnit ? 2 : tap_w[2]};
            const T* in5[kBlocks3];
            T* out5[kBlocks3];
            for (; block + kBlocks3 <= total; block += kBlocks3) {
#pragma GCC unroll 5
                for (int i = 0; i < kBlocks3; ++i) {
                    locate(0);
                    in5[i] = in[0];
                    out5[i] = out[0];
                }
                Vec acc[kBlocks3] = {};
#pragma GCC unroll 9
                for (int t = 0; t < 9; ++t) {
#pragma GCC unroll 5
                    for (int i = 0; i < kBlocks3; ++i) {
                        Vec v;
                        std::memcpy(&v, in5[i] + rs[t / 3] + (kUnit ? t % 3 : cols[t % 3]), sizeof v);
                        acc[i] += wv[t] * v;
                    }
                }
#pragma GCC unroll 5
                for (int i = 0; i < kBlocks3; ++i) std::memcpy(out5[i], &acc[i], sizeof(Vec));
            }
        };
        if (tap_w[0] == 0 && tap_w[1] == 1 && tap_w[2] == 2) run3(std::true_type{});
        else run3(std::false_type{});
    }
    for (; block + kBlocks <= total; block += kBlocks) {
        for (int i = 0; i < kBlocks; ++i) locate(i);
        Vec acc[kBlocks] = {};
        taps(acc, kBlocks);
        for (int i = 0; i < kBlocks; ++i) std::memcpy(out[i], &acc[i], sizeof(Vec));
    }
    for (; block < total; ++block) {
        locate(0);
        Vec acc[1] = {};
        taps(acc, 1);
        std::memcpy(out[0], &acc[0], sizeof(Vec));
    }
}

template <class T, int V>
void dw_rows_vec(const ConvProblem& p, const DwLayout& l, const T* xp, const T* w, T* y) {
    if (p.axes[0].kernel == 3 && p.axes[1].kernel == 3) dw_rows_vec<T, V, 3>(p, l, xp, w, y);
    else dw_rows_vec<T, V, 0>(p, l, xp, w, y);
}

// The same one element at a time (rows narrower than a vector), four elements together.
template <class T>
void dw_rows_scalar(const ConvProblem& p, const DwLayout& l, const T* xp, const T* w, T* y) {
    constexpr int kLanes = 4;
    const nn::AxisWindow& ah = p.axes[0];
    const nn::AxisWindow& aw = p.axes[1];
    const int64_t total = ah.out * aw.out, row_step = ah.dilation * l.width;
    for (int64_t first = 0; first < total; first += kLanes) {
        const int lanes = static_cast<int>(std::min<int64_t>(kLanes, total - first));
        const T* in[kLanes];
        for (int i = 0; i < kLanes; ++i) {
            const int64_t at = first + std::min(i, lanes - 1);
            in[i] = xp + at / aw.out * ah.stride * l.width + at % aw.out;  // column ow of each phase
        }
        T acc[kLanes] = {};
        for (int64_t kh = 0; kh < ah.kernel; ++kh) {
            for (int64_t kw = 0; kw < aw.kernel; ++kw) {
                const T wv = w[kh * aw.kernel + kw];
                const int64_t off = kh * row_step + dw_tap_column(l, kw * aw.dilation);
                for (int i = 0; i < kLanes; ++i) acc[i] += wv * in[i][off];
            }
        }
        for (int i = 0; i < lanes; ++i) y[first + i] = acc[i];
    }
}

// im2col of output positions [begin, begin + len) of one group's [C, H, W] data into
// col[(c * KH + kh) * KW + kw][len]; taps that fall into the padding read 0.
template <class T>
void im2col_2d_rows(const ConvProblem& p, const T* x, int64_t begin, int64_t len, T* col) {
    const nn::AxisWindow& ah = p.axes[0];
    const nn::AxisWindow& aw = p.axes[1];
    const int64_t end = begin + len;
    const int64_t oh_first = begin / aw.out, oh_last = (end - 1) / aw.out;
    const int64_t ow_first = begin % aw.out, ow_end_last = (end - 1) % aw.out + 1;
    const int64_t sw = aw.stride;
    T* dst = col;
    for (int64_t c = 0; c < p.in_per_group; ++c) {
        const T* xc = x + c * ah.in * aw.in;
        for (int64_t kh = 0; kh < ah.kernel; ++kh) {
            for (int64_t kw = 0; kw < aw.kernel; ++kw, dst += len) {
                const int64_t shift_w = kw * aw.dilation - aw.pad_begin;
                // Output columns [lo, hi) read inside the row; the others are padding.
                const auto [lo, hi] = nn::affine_range(aw.out, sw, shift_w, aw.in);
                T* out = dst;
                for (int64_t oh = oh_first; oh <= oh_last; ++oh) {
                    const int64_t ow0 = oh == oh_first ? ow_first : 0;
                    const int64_t ow1 = oh == oh_last ? ow_end_last : aw.out;
                    const int64_t ih = oh * ah.stride - ah.pad_begin + kh * ah.dilation;
                    if (ih < 0 || ih >= ah.in) {
                        for (int64_t ow = ow0; ow < ow1; ++ow) out[ow - ow0] = T(0);
                    } else {
                        const T* row = xc + ih * aw.in + shift_w;
                        const int64_t a = std::clamp(lo, ow0, ow1), e = std::clamp(hi, ow0, ow1);
                        T* o = out - ow0;
                        for (int64_t ow = ow0; ow < a; ++ow) o[ow] = T(0);
                        if (sw == 1) {
                            for (int64_t ow = a; ow < e; ++ow) o[ow] = row[ow];
                        } else {
                            int64_t ow = a;
                            if constexpr (std::is_same_v<T, float>) {
                                // Stride 2 (ResNet's stems and downsampling): 8 outputs from 16
                                // loaded elements. The last one loaded, row[2 * ow + 15], is
                                // row[2 * (e - 1)] or before it: inside the row.
                                if (sw == 2)
                                    for (; ow + 9 <= e; ow += 8) {
                                        const auto v = dw_load<float, 8, 2>(row + 2 * ow, 2);
                                        std::memcpy(o + ow, &v, sizeof v);
                                    }
                            }
                            for (; ow < e; ++ow) o[ow] = row[ow * sw];
                        }
                        for (int64_t ow = e; ow < ow1; ++ow) o[ow] = T(0);
                    }
                    out += ow1 - ow0;
                }
            }
        }
    }
}

// Columns [begin, begin + len) of the im2col matrix of a 2-D convolution, one row per (c, kh, kw).
// Rows are short in CNNs (a 16-pixel-wide plane, 4 pixels in the deep layers), so the element
// loops are inlined and compiled for the CPU's level (cpu_isa.hpp) instead of calling memcpy and
// memset per row segment.
template <class T>
void im2col_2d(const ConvProblem& p, const T* x, int64_t begin, int64_t len, T* col) {
    if (len <= 0) return;
    cpu::run([&] { im2col_2d_rows(p, x, begin, len, col); });
}

// im2col for small planes (the deep layers of a CNN, 2x2 to 16x16 pixels), where rows are a few
// elements long and the bounds work of the row walk above costs more than the copy: the group's
// planes are first copied into scratch with their padding written as zeros (dw_pad_plane's layout,
// `l`), after which each (c, kh, kw) row is a plain strided copy with no bounds checks. `padded`
// has room for every plane plus kPadSlack elements (the stride-2 vector load reads past a row).
// Input channels [c0, c1) only: their planes, and their rows of the matrix (rows c * kh * kw ..),
// so that pieces of channels can be made by different threads.
inline constexpr int64_t kSmallPlanePixels = 1024;  // output pixels of a "small" plane
inline constexpr int64_t kPadSlack = 16;

template <class T>
void im2col_padded_rows(const ConvProblem& p, const DwLayout& l, const T* x, int64_t begin, int64_t len, T* col,
                        T* padded, int64_t c0, int64_t c1) {
    const nn::AxisWindow& ah = p.axes[0];
    const nn::AxisWindow& aw = p.axes[1];
    const int64_t plane = l.rows * l.width, in_plane = ah.in * aw.in;
    for (int64_t c = c0; c < c1; ++c) dw_pad_plane(l, ah.in, aw.in, x + c * in_plane, padded + c * plane);
    const int64_t end = begin + len, out_w = aw.out, sw = aw.stride;
    const int64_t oh_first = begin / out_w, oh_last = (end - 1) / out_w;
    const int64_t ow_first = begin % out_w, ow_end_last = (end - 1) % out_w + 1;
    const int64_t row_step = ah.stride * l.width;
    T* dst = col + c0 * ah.kernel * aw.kernel * len;
    // Whole output rows at stride 1 (the usual case on small planes): each (c, kh, kw) row of the
    // matrix is out_h copies of one fixed width, so the copy is a few vector moves with no bounds.
    if (sw == 1 && ow_first == 0 && ow_end_last == out_w) {
        const int64_t rows = oh_last - oh_first + 1;
        const auto taps = [&](auto width_tag) {
            constexpr int64_t kW = decltype(width_tag)::value;
            const int64_t w = kW ? kW : out_w;
            for (int64_t c = c0; c < c1; ++c)
                for (int64_t kh = 0; kh < ah.kernel; ++kh)
                    for (int64_t kw = 0; kw < aw.kernel; ++kw) {
                        const T* src = padded + c * plane + kh * ah.dilation * l.width + kw * aw.dilation + oh_first * row_step;
                        for (int64_t r = 0; r < rows; ++r, dst += w, src += row_step) {
                            if constexpr (kW > 0) std::memcpy(dst, src, kW * sizeof(T));  // fixed size: inlined moves
                            else for (int64_t i = 0; i < w; ++i) dst[i] = src[i];
                        }
                    }
        };
        switch (out_w) {
            case 2: return taps(std::integral_constant<int64_t, 2>{});
            case 4: return taps(std::integral_constant<int64_t, 4>{});
            case 7: return taps(std::integral_constant<int64_t, 7>{});
            case 8: return taps(std::integral_constant<int64_t, 8>{});
            case 14: return taps(std::integral_constant<int64_t, 14>{});
            case 16: return taps(std::integral_constant<int64_t, 16>{});
            case 28: return taps(std::integral_constant<int64_t, 28>{});
            case 32: return taps(std::integral_constant<int64_t, 32>{});
            default: return taps(std::integral_constant<int64_t, 0>{});
        }
    }
    for (int64_t c = c0; c < c1; ++c) {
        for (int64_t kh = 0; kh < ah.kernel; ++kh) {
            for (int64_t kw = 0; kw < aw.kernel; ++kw) {
                // Padded element (oh * sh + kh * dh, ow * sw + kw * dw) is tap (kh, kw) of output (oh, ow).
                const T* base = padded + c * plane + kh * ah.dilation * l.width + kw * aw.dilation;
                for (int64_t oh = oh_first; oh <= oh_last; ++oh) {
                    const int64_t ow0 = oh == oh_first ? ow_first : 0;
                    const int64_t ow1 = oh == oh_last ? ow_end_last : out_w;
                    const T* __restrict src = base + oh * row_step;
                    T* __restrict out = dst - ow0;
                    int64_t ow = ow0;
                    if (sw == 1) {
                        for (; ow < ow1; ++ow) out[ow] = src[ow];
                    } else {
                        if constexpr (std::is_same_v<T, float>) {
                            if (sw == 2)
                                for (; ow + 8 <= ow1; ow += 8) {
                                    const auto v = dw_load<float, 8, 2>(src + 2 * ow, 2);
                                    std::memcpy(out + ow, &v, sizeof v);
                                }
                        }
                        for (; ow < ow1; ++ow) out[ow] = src[ow * sw];
                    }
                    dst += ow1 - ow0;
                }
            }
        }
    }
}

template <class T>
void im2col_2d_padded(const ConvProblem& p, const DwLayout& l, const T* x, int64_t begin, int64_t len, T* col,
                      T* padded, int64_t c0 = 0, int64_t c1 = -1) {
    if (len <= 0) return;
    if (c1 < 0) c1 = p.in_per_group;
    cpu::run([&] { im2col_padded_rows(p, l, x, begin, len, col, padded, c0, c1); });
}

// One output plane of a depthwise convolution from the padded data plane `xp` (dw_pad_plane).
template <class T>
void direct_2d(const ConvProblem& p, const DwLayout& l, const T* xp, const T* w, T* y) {
    constexpr int kWide = 32 / sizeof(T), kNarrow = 16 / sizeof(T);
    const int64_t out_w = p.axes[1].out;
    if (out_w >= kWide) dw_rows_vec<T, kWide>(p, l, xp, w, y);
    else if (out_w >= kNarrow) dw_rows_vec<T, kNarrow>(p, l, xp, w, y);
    else dw_rows_scalar(p, l, xp, w, y);
}

enum class ConvMethod { Pointwise, Direct, Im2col, Generic };

const char* method_name(ConvMethod m) {
    switch (m) {
        case ConvMethod::Pointwise: return "gemm-1x1";
        case ConvMethod::Direct: return "direct";
        case ConvMethod::Im2col: return "im2col-gemm";
        case ConvMethod::Generic: return "generic";
    }
    return "";
}

// The convolution planned once: its numbers, its method and the im2col chunk.
struct ConvPlan : OpPlan {
    ConvProblem problem;
    ConvMethod algorithm = ConvMethod::Generic;
    int64_t chunk = 0;  // im2col columns per GEMM
    // f32 GEMM paths with constant filters: each group's [Cout, Cin*K] weights packed once, and the
    // GEMM of a full column block and of the last, shorter one.
    std::vector<float> packed;
    size_t packed_group_floats = 0;
    nn::GemmPlan full, tail;
    size_t col_bytes = 0;  // im2col block, at the start of each thread's scratch
    // Fewer output positions than a B panel is wide (2x2, 3x3): the GEMM runs transposed,
    // C^T[pixels, Cout] = col^T x W^T, so that the short side is the GEMM's M (its small-M
    // kernels) instead of a mostly empty N panel; `packed` then holds W^T as the B operand, and
    // C^T lands in scratch after the im2col block before it is transposed into the output;
    // ct_bytes counts C^T and, after it, A packed for the GEMM.
    bool transposed = false;
    size_t ct_bytes = 0;
    // Transposed im2col on a small plane: A is packed straight from the zero-padded planes
    // (sgemm's pack_a_indexed) instead of im2col then pack: offsets per (c, kh, kw) and per pixel.
    std::vector<int64_t> a_k_off, a_m_off;
    DwLayout padded;       // Direct: the zero-padded data plane, in each thread's scratch
    // Direct, f32, one output per group, small planes: channels last (dw_channels_last_block);
    // the filters as [tap][channel].
    bool channels_last = false;
    std::vector<float> dw_weights;
    std::vector<int64_t> dw_pixel_at;  // data pixel (row-major) -> its pixel in the padded layout
    int64_t dw_blocks = 0, dw_block_max = 0;  // channel blocks per image (dw_block_start), the largest
    bool dw_epilogue_in_block = false;  // the fused bias and ReLU / Clamp applied inside the block
    // Im2col on a small plane: the padded planes' layout and where they start in scratch (after
    // the im2col block); pad_offset 0 = the row walk instead.
    DwLayout small_plane;
    size_t pad_offset = 0;
    // Im2col without the im2col matrix: the GEMM reads B where it lies (sgemm.hpp's indexed B) in a
    // copy of the image's data planes, zero-padded and split by column phase (one plane per
    // remainder of the column modulo stride_w, so that a stride-2 row of taps is a contiguous run),
    // made in the calling thread's scratch: phase planes [c][phase][phase_rows][phase_width].
    // Needs output rows of whole column groups (out_w % 8 == 0): each group of 8 columns is one
    // run of data. row_off: per (c, kh, kw), col_off: per group of 8 output positions.
    bool implicit = false;
    // Packed f32 GEMM over one column block per image (pointwise or im2col on a plane of at most
    // `chunk` pixels): the image's GEMM tiles are the parallel tasks instead of the column blocks.
    bool tiled_image = false;
    // Implicit and transposed paths, and a one-block im2col from padded planes: the image's shared
    // operand (phase planes; padded planes and packed A or the im2col block) is made by the tile
    // tasks themselves, in pieces of this many input channels (SharedPrologue), instead of by the
    // calling thread before them.
    int64_t prologue_channels = 1;
    int64_t prologue_pieces() const {
        return (problem.in_per_group + prologue_channels - 1) / prologue_channels;
    }
    // The one-block path's im2col is such a shared operand (small planes, padded first).
    bool im2col_in_pieces() const { return tiled_image && algorithm == ConvMethod::Im2col && pad_offset; }
    std::vector<int64_t> row_off, col_off;
    int64_t phase_width = 0;
    size_t phases_bytes = 0;
    // Winograd F(2x2, 3x3) (kernels/detail/winograd.hpp): 3x3, stride 1, one group, f32 constant
    // filters, enough channels. The image goes in bands of wino_band_rows rows of 2x2 tiles: the
    // input transform V [16][Cin][band tiles] and the GEMMs' results M [16][Cout][band tiles]
    // live in the calling thread's scratch (wino_v_offset, wino_m_offset); each thread's scratch
    // also holds its padded rows (wino_rows_offset) and its GEMM scratch (wino_gemm_offset). The
    // 16 GEMMs' A, the transformed filters, are packed once (wino_u, wino_u_floats apiece).
    bool winograd = false;
    int64_t wino_tiles_h = 0, wino_tiles_w = 0, wino_band_rows = 0;
    nn::GemmPlan wino_full, wino_tail;  // N = a whole band's tiles, and the last band's
    std::vector<float> wino_u;
    size_t wino_u_floats = 0, wino_v_offset = 0, wino_m_offset = 0, wino_rows_offset = 0, wino_gemm_offset = 0;
    // The fused epilogue (f32): applied by the kernel where it writes each block when
    // epilogue_in_kernel, else over the whole output at the end.
    nn::FusedEpilogue epilogue;
    bool epilogue_in_kernel = false;
    // The int8 method (the low-precision pass's layers): everything else above is unused.
    std::unique_ptr<nn::Int8ConvPlan> int8;
    // f16 / bf16 data, filters and result converted to f32 (nn::ComputeIn / ComputeOut) in the
    // calling thread's scratch after the method's own bytes (which every thread's task uses):
    // at convert_offset, x_bytes, then w_bytes (0 when the run never reads the filters: packed in
    // the plan), then y_bytes.
    bool reads_filters = true;
    size_t convert_offset = 0, x_bytes = 0, w_bytes = 0, y_bytes = 0;
    nn::ScratchSpace convert_space(const KernelContext& ctx, size_t offset, size_t bytes) const {
        if (bytes == 0) return {};
        return {static_cast<std::byte*>(ctx.scratch()) + convert_offset + offset, bytes};
    }
};

// The generic path's column block (im2col forward, col2im backprop): elements of it in scratch,
// 0 when the forward path reads the data directly (one input channel, or 1x1 stride 1).
bool generic_direct(const ConvProblem& p) { return p.in_per_group == 1 && p.out_per_group <= 4; }

int64_t generic_col_elements(const ConvProblem& p, bool backprop) {
    if (backprop) {
        const int64_t rows = p.out_per_group * p.kernel_size();
        return rows * chunk_columns(rows, p.in_spatial());
    }
    if (generic_direct(p) || is_pointwise(p)) return 0;
    const int64_t rows = p.in_per_group * p.kernel_size();
    return rows * chunk_columns(rows, p.out_spatial());
}

// `col`: generic_col_elements(p, false) elements of scratch.
template <class T>
void forward(const ConvProblem& p, const T* x, const T* w, T* y, T* col) {
    const int64_t cin = p.in_per_group, cout = p.out_per_group, kernel = p.kernel_size();
    const int64_t in_spatial = p.in_spatial(), out_spatial = p.out_spatial();
    const int64_t rows = cin * kernel;
    const bool direct = generic_direct(p);
    const bool pointwise = is_pointwise(p);
    const int64_t chunk = chunk_columns(rows, out_spatial);
    for (int64_t n = 0; n < p.batch; ++n) {
        for (int64_t g = 0; g < p.groups; ++g) {
            const T* xg = x + (n * p.groups + g) * cin * in_spatial;
            const T* wg = w + g * cout * rows;
            T* yg = y + (n * p.groups + g) * cout * out_spatial;
            if (direct) {
                for (int64_t j = 0; j < cout; ++j) direct_single_channel(p, xg, wg + j * kernel, yg + j * out_spatial);
            } else if (pointwise) {
                nn::gemm<T>(false, false, cout, out_spatial, cin, wg, cin, xg, in_spatial, yg, out_spatial, false);
            } else {
                for (int64_t begin = 0; begin < out_spatial; begin += chunk) {
                    const int64_t len = std::min(chunk, out_spatial - begin);
                    im2col(p, xg, begin, len, col);
                    nn::gemm<T>(false, false, cout, len, rows, wg, rows, col, len, yg + begin, out_spatial, false);
                }
            }
        }
    }
}

// `col`: generic_col_elements(p, true) elements of scratch.
template <class T>
void backprop(const ConvProblem& p, const T* x, const T* w, T* y, T* col) {
    const int64_t cin = p.in_per_group, cout = p.out_per_group, kernel = p.kernel_size();
    const int64_t in_spatial = p.in_spatial(), out_spatial = p.out_spatial();
    const int64_t rows = cout * kernel;
    const int64_t chunk = chunk_columns(rows, in_spatial);
    std::fill(y, y + p.batch * p.groups * cout * out_spatial, T(0));
    for (int64_t n = 0; n < p.batch; ++n) {
        for (int64_t g = 0; g < p.groups; ++g) {
            const T* xg = x + (n * p.groups + g) * cin * in_spatial;
            const T* wg = w + g * cin * rows;
            T* yg = y + (n * p.groups + g) * cout * out_spatial;
            for (int64_t begin = 0; begin < in_spatial; begin += chunk) {
                const int64_t len = std::min(chunk, in_spatial - begin);
                nn::gemm<T>(true, false, rows, len, cin, wg, rows, xg + begin, in_spatial, col, len, false);
                col2im_add(p, col, begin, len, yg);
            }
        }
    }
}

// ---- depthwise on small planes, channels last --------------------------------------------------
// The deep layers of MobileNet-like networks are many channels of a few pixels (480 x 2x2): one
// plane at a time, fixed costs per plane (padding, dispatch, epilogue) dwarf its 36 multiply-adds.
// There the data is turned channels-last ([H][W][channels], zero-padded, dw_layout's geometry) for
// a block of kDwChannelBlock channels, and each output pixel is made 8 channels a vector, the taps
// in the same order (kh, kw) from a zero sum as dw_rows_vec: the same results. The block's
// outputs, channels last in scratch, are then written back as planes and the epilogue runs over
// the whole block at once.
inline constexpr int64_t kChannelsLastMaxPixels = 64;
inline constexpr int64_t kChannelsLastMinChannels = 32;
// Output rows at least this wide are full 8-float vectors for the planar kernel, which is then
// faster (measured: 96 channels, 8x8 -> 8x8 and 16x16 -> 8x8: 6 and 9 us planar against 7 and 14).
inline constexpr int64_t kChannelsLastBelowWidth = 8;
// Channels per block, about: 64 was faster than 32 and 16 on one thread (fixed costs per block:
// 4.5 against 4.9 and 5.5 us for 480 channels of 2x2), and blocks are rounded to an even number
// per image for two threads (plan_channels_last).
inline constexpr int64_t kDwChannelBlock = 64;

// Block b of an image's channels: [dw_block_start(b), dw_block_start(b + 1)), cut at multiples of 8
// channels (whole vectors; a channel's result does not depend on its block).
int64_t dw_block_start(const ConvPlan& plan, int64_t b) {
    const int64_t channels = plan.problem.groups, vectors = (channels + 7) / 8;
    return std::min(channels, b * vectors / plan.dw_blocks * 8);
}

void plan_channels_last(const InferContext& ctx, ConvPlan& plan) {
    const ConvProblem& p = plan.problem;
    const int64_t channels = p.groups, taps = p.kernel_size();
    std::vector<float> w(static_cast<size_t>(channels * taps));
    nn::load_as<float>(*ctx.value(1), w.data());
    plan.dw_weights.assign(w.size(), 0.0f);  // [tap][channel]
    for (int64_t c = 0; c < channels; ++c)
        for (int64_t t = 0; t < taps; ++t) plan.dw_weights[static_cast<size_t>(t * channels + c)] = w[static_cast<size_t>(c * taps + t)];
    plan.channels_last = true;
    plan.padded = dw_layout(p);  // pixels, not split by phase: a pixel is a vector of channels
    const DwLayout& l = plan.padded;
    plan.dw_pixel_at.clear();
    for (int64_t ih = 0; ih < p.axes[0].in; ++ih)
        for (int64_t iw = 0; iw < p.axes[1].in; ++iw) plan.dw_pixel_at.push_back((ih + l.top) * l.width + iw + l.left);
    // About kDwChannelBlock channels a block (a block's padded data stays in L1), and an even
    // number of blocks per image, so that two threads share an image evenly.
    const int64_t vectors = (channels + 7) / 8;
    int64_t blocks = std::max<int64_t>(2, (channels + kDwChannelBlock - 1) / kDwChannelBlock);
    plan.dw_blocks = std::min(vectors, blocks + blocks % 2);
    plan.dw_block_max = 0;
    for (int64_t b = 0; b < plan.dw_blocks; ++b)
        plan.dw_block_max = std::max(plan.dw_block_max, dw_block_start(plan, b + 1) - dw_block_start(plan, b));
    const size_t floats = static_cast<size_t>((plan.padded.rows * plan.padded.width + p.out_spatial()) * plan.dw_block_max);
    // A bias and ReLU / Clamp (no residual) go into the block (its outputs are 4-pixel rows per
    // channel at 2x2: the row-wise epilogue after it cost a third of the layer); others after it.
    const nn::FusedEpilogue& e = plan.epilogue;
    plan.dw_epilogue_in_block = e.active && !e.residual &&
                                (e.act.kind == ActivationKind::None || e.act.kind == ActivationKind::Relu ||
                                 e.act.kind == ActivationKind::Clamp);
    plan.scratch_bytes = floats * sizeof(float);
}

// transpose8: kernels/detail/transpose8.hpp.
using detail::transpose4x8;
using detail::transpose8;


// Channels [c0, c0 + cn) of one image x ([C][H][W]) into y ([C][out pixels]); xp, out_cl: scratch.
void dw_channels_last_block(const ConvPlan& plan, const float* x, int64_t c0, int64_t cn, float* xp, float* out_cl,
                            float* y) {
    using V8 = simd::f32x8;
    using V4 = simd::f32x4;
    const ConvProblem& p = plan.problem;
    const DwLayout& l = plan.padded;
    const nn::AxisWindow& ah = p.axes[0];
    const nn::AxisWindow& aw = p.axes[1];
    const int64_t channels = p.groups, in_plane = ah.in * aw.in, pixels = ah.out * aw.out;
    // Zeros on the padding ring only (the data pixels are all written below): rows above and
    // below the data whole, and the left and right ends of the data rows.
    {
        const int64_t row = l.width * cn, right = (l.width - l.left - aw.in) * cn;
        zero_short(xp, l.top * row);
        float* r = xp + l.top * row;
        for (int64_t h = 0; h < ah.in; ++h, r += row) {
            zero_short(r, l.left * cn);
            zero_short(r + (l.left + aw.in) * cn, right);
        }
        zero_short(r, (l.rows - l.top - ah.in) * row);
    }
    // Data pixel q (row-major in the plane) lands at padded pixel at[q]. 8 channels x 8 pixels are
    // moved as one 8 x 8 transpose; the pixel and channel tails one element at a time.
    const int64_t* at = plan.dw_pixel_at.data();
    int64_t c8 = 0;
    for (; c8 + 8 <= cn; c8 += 8) {
        const float* src = x + (c0 + c8) * in_plane;
        int64_t q = 0;
        for (; q + 8 <= in_plane; q += 8) {
            V8 r[8];
            for (int i = 0; i < 8; ++i) std::memcpy(&r[i], src + i * in_plane + q, sizeof(V8));
            transpose8(r);
            for (int j = 0; j < 8; ++j) std::memcpy(xp + at[q + j] * cn + c8, &r[j], sizeof(V8));
        }
        if (q + 4 <= in_plane) {  // 4 pixels x 8 channels (2x2 planes, 4-pixel tails)
            V8 r[4];
            for (int i = 0; i < 4; ++i) {
                V4 lo, hi;
                std::memcpy(&lo, src + i * in_plane + q, sizeof lo);
                std::memcpy(&hi, src + (i + 4) * in_plane + q, sizeof hi);
                r[i] = __builtin_shufflevector(lo, hi, 0, 1, 2, 3, 4, 5, 6, 7);
            }
            transpose4x8(r);
            for (int k = 0; k < 4; ++k) std::memcpy(xp + at[q + k] * cn + c8, &r[k], sizeof(V8));
            q += 4;
        }
        for (; q < in_plane; ++q) {
            float* dst = xp + at[q] * cn + c8;
            for (int i = 0; i < 8; ++i) dst[i] = src[i * in_plane + q];
        }
    }
    for (int64_t c = c8; c < cn; ++c) {
        const float* src = x + (c0 + c) * in_plane;
        for (int64_t q = 0; q < in_plane; ++q) xp[at[q] * cn + c] = src[q];
    }
    const float* w = plan.dw_weights.data() + c0;
    const int64_t kh_n = ah.kernel, kw_n = aw.kernel;
    int64_t c_done = 0;  // channels made by the 3x3 loop below
    if (kh_n == 3 && kw_n == 3) {
        // 8 channels at a time over all pixels, their 9 weight vectors held in registers: one load
        // per multiply-add instead of two. Same taps in the same order as the loop after it.
        int64_t tap_off[9];
        for (int t = 0; t < 9; ++t) tap_off[t] = ((t / 3) * ah.dilation * l.width + (t % 3) * aw.dilation) * cn;
        for (; c_done + 8 <= cn; c_done += 8) {
            V8 wv[9];
            for (int t = 0; t < 9; ++t) std::memcpy(&wv[t], w + t * channels + c_done, sizeof(V8));
            for (int64_t oh = 0, pix = 0; oh < ah.out; ++oh) {
                const float* row = xp + oh * ah.stride * l.width * cn + c_done;
                for (int64_t ow = 0; ow < aw.out; ++ow, ++pix) {
                    const float* base = row + ow * aw.stride * cn;
                    V8 acc = {};
                    for (int t = 0; t < 9; ++t) {
                        V8 xv;
                        std::memcpy(&xv, base + tap_off[t], sizeof xv);
                        acc += wv[t] * xv;
                    }
                    std::memcpy(out_cl + pix * cn + c_done, &acc, sizeof acc);
                }
            }
        }
    }
    for (int64_t oh = 0, pix = 0; oh < ah.out; ++oh) {
        for (int64_t ow = 0; ow < aw.out; ++ow, ++pix) {
            const float* base = xp + (oh * ah.stride * l.width + ow * aw.stride) * cn;
            float* out = out_cl + pix * cn;
            int64_t c = c_done;
            for (; c + 8 <= cn; c += 8) {
                V8 acc = {};
                for (int64_t kh = 0; kh < kh_n; ++kh)
                    for (int64_t kw = 0; kw < kw_n; ++kw) {
                        V8 wv, xv;
                        std::memcpy(&wv, w + (kh * kw_n + kw) * channels + c, sizeof wv);
                        std::memcpy(&xv, base + (kh * ah.dilation * l.width + kw * aw.dilation) * cn + c, sizeof xv);
                        acc += wv * xv;
                    }
                std::memcpy(out + c, &acc, sizeof acc);
            }
            for (; c < cn; ++c) {
                float acc = 0.0f;
                for (int64_t kh = 0; kh < kh_n; ++kh)
                    for (int64_t kw = 0; kw < kw_n; ++kw)
                        acc += w[(kh * kw_n + kw) * channels + c] *
                               base[(kh * ah.dilation * l.width + kw * aw.dilation) * cn + c];
                out[c] = acc;
            }
        }
    }
    if (plan.dw_epilogue_in_block) {
        // Bias and ReLU / Clamp on the block's outputs while they are in L1, 8 channels a vector:
        // the operations of nn::apply_block in its order (the add only with a bias, max and min
        // with MaxNanOp / MinNanOp's rule: x <= c ? c : x, c <= x ? c : x), so the same results.
        using V8i = simd::i32x8;
        const auto pick = [](V8i m, V8 a, V8 b) {  // m ? a : b
            V8i ai, bi;
            std::memcpy(&ai, &a, sizeof ai);
            std::memcpy(&bi, &b, sizeof bi);
            const V8i r = (m & ai) | (~m & bi);
            V8 v;
            std::memcpy(&v, &r, sizeof v);
            return v;
        };
        const nn::FusedEpilogue& e = plan.epilogue;
        const float* bias = e.bias_at(c0);
        const bool relu = e.act.kind == ActivationKind::Relu, clamp = e.act.kind == ActivationKind::Clamp;
        const float lo = relu ? 0.0f : e.act.alpha, hi = e.act.beta;
        const V8 lo_v = V8{} + lo, hi_v = V8{} + hi;
        for (int64_t px = 0; px < pixels; ++px) {
            float* o = out_cl + px * cn;
            int64_t c = 0;
            for (; c + 8 <= cn; c += 8) {
                V8 v;
                std::memcpy(&v, o + c, sizeof v);
                if (bias) {
                    V8 b;
                    std::memcpy(&b, bias + c, sizeof b);
                    v = v + b;
                }
                if (relu || clamp) v = pick(v <= lo_v, lo_v, v);
                if (clamp) v = pick(hi_v <= v, hi_v, v);
                std::memcpy(o + c, &v, sizeof v);
            }
            for (; c < cn; ++c) {
                float v = o[c];
                if (bias) v = v + bias[c];
                if (relu || clamp) v = v <= lo ? lo : v;
                if (clamp) v = hi <= v ? hi : v;
                o[c] = v;
            }
        }
    }
    int64_t px = 0;
    for (; px + 8 <= pixels; px += 8) {  // 8 pixels x 8 channels a transpose
        int64_t ch = 0;
        for (; ch + 8 <= cn; ch += 8) {
            V8 r[8];
            for (int i = 0; i < 8; ++i) std::memcpy(&r[i], out_cl + (px + i) * cn + ch, sizeof(V8));
            transpose8(r);
            for (int j = 0; j < 8; ++j) std::memcpy(y + (c0 + ch + j) * pixels + px, &r[j], sizeof(V8));
        }
        for (; ch < cn; ++ch)
            for (int i = 0; i < 8; ++i) y[(c0 + ch) * pixels + px + i] = out_cl[(px + i) * cn + ch];
    }
    if (px + 4 <= pixels) {  // 4 pixels x 8 channels (2x2 planes, 4-pixel tails)
        int64_t ch = 0;
        for (; ch + 8 <= cn; ch += 8) {
            V8 r[4];
            for (int i = 0; i < 4; ++i) std::memcpy(&r[i], out_cl + (px + i) * cn + ch, sizeof(V8));
            transpose4x8(r);
            for (int k = 0; k < 4; ++k) {
                const V4 lo = __builtin_shufflevector(r[k], r[k], 0, 1, 2, 3), hi = __builtin_shufflevector(r[k], r[k], 4, 5, 6, 7);
                std::memcpy(y + (c0 + ch + k) * pixels + px, &lo, sizeof lo);
                std::memcpy(y + (c0 + ch + k + 4) * pixels + px, &hi, sizeof hi);
            }
        }
        for (; ch < cn; ++ch)
            for (int i = 0; i < 4; ++i) y[(c0 + ch) * pixels + px + i] = out_cl[(px + i) * cn + ch];
        px += 4;
    }
    for (; px < pixels; ++px)
        for (int64_t ch = 0; ch < cn; ++ch) y[(c0 + ch) * pixels + px] = out_cl[px * cn + ch];
}

// Output positions up to which a convolution runs its GEMM transposed (see ConvPlan): fewer than
// the 16 columns of an AVX2 B panel. At 16 (a 4x4 plane) the plain GEMM's one panel is full, and
// it streams the weights as A panels past a B block that stays in L1; transposed, the weights are
// B blocks 24 columns wide that do not fit in L1 beside the A block (SqueezeNet's 512 -> 1000
// classifier on 4x4: 187 -> 173 us, 64 -> 256 3x3 on 4x4: 58 -> 55 us, one thread).
inline constexpr int64_t kTransposedMaxPixels = 15;

// Floats written per piece of an image's shared operand (ConvPlan::prologue_channels): about a
// microsecond of copying, several pieces per image for the threads to share.
inline constexpr int64_t kPrologueFloats = 2048;

int64_t prologue_channels(int64_t floats_per_channel) {
    return std::max<int64_t>(1, kPrologueFloats / std::max<int64_t>(floats_per_channel, 1));
}

// Work that every task of one parallel region needs done before its own (an image's phase planes
// or packed A, read by every GEMM tile), cut into `pieces` independent pieces. Each task first
// claims pieces until none is left, then waits for the pieces that other tasks claimed. That wait
// always ends: a piece is claimed only by a thread that does it at once, so every claimed piece is
// being made by a running task; when the pool runs the tasks one after another on one thread, the
// first task makes every piece. What is made does not depend on who made which piece.
class SharedPrologue {
public:
    explicit SharedPrologue(int64_t pieces) : pieces_(pieces) {}
    template <class Fn>
    void run(const Fn& piece) {
        for (int64_t i; (i = next_.fetch_add(1, std::memory_order_relaxed)) < pieces_;) {
            piece(i);
            done_.fetch_add(1, std::memory_order_release);
        }
        for (int spins = 1; done_.load(std::memory_order_acquire) < pieces_; ++spins) {
#if IRLITE_ISA_X86
            __builtin_ia32_pause();
#endif
            if (spins % 256 == 0) std::this_thread::yield();  // a busy machine: let the other task run
        }
    }

private:
    const int64_t pieces_;
    std::atomic<int64_t> next_{0}, done_{0};
};

// y[c * ldy + r] = a[r * lda + c] for r < rows, c < cols: one GEMM tile's block of C^T into the
// output (transposed path). 8 x 8 blocks through registers, the edges one element at a time.
void transpose_block(const float* a, int64_t lda, int64_t rows, int64_t cols, float* y, int64_t ldy) {
    using V8 = simd::f32x8;
    int64_t r = 0;
    for (; r + 8 <= rows; r += 8) {
        int64_t c = 0;
        for (; c + 8 <= cols; c += 8) {
            V8 v[8];
            for (int i = 0; i < 8; ++i) std::memcpy(&v[i], a + (r + i) * lda + c, sizeof(V8));
            transpose8(v);
            for (int j = 0; j < 8; ++j) std::memcpy(y + (c + j) * ldy + r, &v[j], sizeof(V8));
        }
        for (; c < cols; ++c)
            for (int i = 0; i < 8; ++i) y[c * ldy + r + i] = a[(r + i) * lda + c];
    }
    if (r == rows) return;
    for (int64_t c = 0; c < cols; ++c)  // the last rows (all of them on a 2 x 2 plane): along y's rows
        for (int64_t i = r; i < rows; ++i) y[c * ldy + i] = a[i * lda + c];
}

// The phase planes' geometry and B's offsets into them (see ConvPlan::implicit).
void plan_implicit(ConvPlan& plan) {
    const ConvProblem& p = plan.problem;
    const nn::AxisWindow& ah = p.axes[0];
    const nn::AxisWindow& aw = p.axes[1];
    plan.implicit = true;
    plan.small_plane = dw_layout(p);  // the padded plane, before the split by phase
    const DwLayout& l = plan.small_plane;
    const int64_t sw = aw.stride;
    plan.phase_width = (l.width + sw - 1) / sw;
    const int64_t phase_plane = l.rows * plan.phase_width;
    plan.phases_bytes =
        (static_cast<size_t>(p.in_per_group * sw * phase_plane) * sizeof(float) + 63) / 64 * 64;
    // Tap (c, kh, kw) of output (oh, ow) reads padded (oh * sh + kh * dh, ow * sw + kw * dw): in
    // phase (kw * dw) % sw, column ow + (kw * dw) / sw of that phase's plane.
    plan.row_off.clear();
    for (int64_t c = 0; c < p.in_per_group; ++c)
        for (int64_t kh = 0; kh < ah.kernel; ++kh)
            for (int64_t kw = 0; kw < aw.kernel; ++kw) {
                const int64_t t = kw * aw.dilation;
                plan.row_off.push_back((c * sw + t % sw) * phase_plane + kh * ah.dilation * plan.phase_width + t / sw);
            }
    plan.col_off.clear();
    for (int64_t oh = 0; oh < ah.out; ++oh)
        for (int64_t ow = 0; ow < aw.out; ow += nn::kGemmColumnGroup)
            plan.col_off.push_back(oh * ah.stride * plan.phase_width + ow);
    plan.col_bytes = 0;
    plan.pad_offset = 0;
}

// Input channels [c0, c1) of one image's phase planes (ConvPlan::implicit) from its [C, H, W]
// data; `out` is the start of the image's phase planes. Disjoint channel ranges write disjoint
// memory (the last range also zeroes the buffer's tail), so tasks may make them side by side.
void make_phases_rows(const ConvPlan& plan, const float* x, float* out, int64_t c0, int64_t c1) {
    const ConvProblem& p = plan.problem;
    const DwLayout& l = plan.small_plane;
    const int64_t in_h = p.axes[0].in, in_w = p.axes[1].in, sw = p.axes[1].stride, pw = plan.phase_width;
    // All zeros first in one pass, then only the data: per-row zero fills of a few elements each
    // cost more than the copies (thousands of short rows per inference).
    const size_t channel_floats = static_cast<size_t>(sw * l.rows * pw);
    const size_t zero_end = c1 >= p.in_per_group ? plan.phases_bytes : static_cast<size_t>(c1) * channel_floats * sizeof(float);
    std::memset(out + static_cast<size_t>(c0) * channel_floats, 0, zero_end - static_cast<size_t>(c0) * channel_floats * sizeof(float));
    out += static_cast<size_t>(c0) * channel_floats;
    const int64_t data_rows = std::max<int64_t>(0, std::min(in_h, l.rows - l.top));
    for (int64_t c = c0; c < c1; ++c) {
        const float* xc = x + c * in_h * in_w;
        for (int64_t phase = 0; phase < sw; ++phase, out += l.rows * pw) {
            // Phase column q holds padded column q * sw + phase, i.e. data column q * sw + phase - left:
            // data for q in [q0, q1).
            const int64_t first = phase - l.left;  // data column of q = 0
            const int64_t q0 = first >= 0 ? 0 : (-first + sw - 1) / sw;
            const int64_t q1 = std::max(q0, std::min(pw, (in_w - first + sw - 1) / sw));
            for (int64_t ih = 0; ih < data_rows; ++ih) {
                float* row = out + (ih + l.top) * pw;
                const float* src = xc + ih * in_w;  // phase column q reads src[q * sw + first]
                if (sw == 1) {
                    copy_short(row + q0, src + q0 + first, q1 - q0);
                } else {
                    int64_t q = q0;
                    if (sw == 2) {
                        // 8 columns from 15 loaded elements (src[2q + first .. 2q + first + 14]).
                        using V8 = simd::f32x8;
                        for (; q + 8 <= q1; q += 8) {
                            V8 a, b;
                            std::memcpy(&a, src + 2 * q + first, sizeof a);
                            std::memcpy(&b, src + 2 * q + first + 7, sizeof b);
                            const V8 v = __builtin_shufflevector(a, b, 0, 2, 4, 6, 9, 11, 13, 15);
                            std::memcpy(row + q, &v, sizeof v);
                        }
                    }
                    for (; q < q1; ++q) row[q] = src[q * sw + first];
                }
            }
        }
    }
}

// ---- Winograd F(2x2, 3x3) ------------------------------------------------------------------
// Worth it where the GEMMs dominate: both channel counts at least this, output planes of at
// least 16x16 (rows of 8 tiles or more, the transforms' vector width). With fewer channels the
// transforms cost more than the 2.25 times fewer multiply-adds save (BM_Conv3x3Winograd, this
// machine, one thread: 32 -> 32 on 32x32 210 -> 277 us, 32 -> 128 on 8x8 52 -> 102 us); from 64
// on it pays: 64 -> 128 on 16x16 408 -> 317 us, 64 -> 64 on 56x56 2474 -> 1984, 128 -> 128 on
// 28x28 3026 -> 1779. (Rows of fewer than 8 tiles, e.g. 14x14, would need a narrower transform.)
inline constexpr int64_t kWinogradMinChannels = 64;
inline constexpr int64_t kWinogradMinOutput = 16;
// V and M of one band: about this many bytes (a band is at least one row of tiles).
inline constexpr int64_t kWinogradBandBytes = int64_t{2} << 20;

bool winograd_fits(const InferContext& ctx, const ConvProblem& p) {
    if (ctx.type(0) != ElementType::f32 || !ctx.value(1) || p.groups != 1 || p.axes.size() != 2) return false;
    for (const nn::AxisWindow& a : p.axes)
        if (a.kernel != 3 || a.stride != 1 || a.dilation != 1 || a.out < kWinogradMinOutput) return false;
    return p.in_per_group >= kWinogradMinChannels && p.out_per_group >= kWinogradMinChannels;
}

// The padded width of a tile row's input rows: 2 columns per tile and 2 more.
int64_t winograd_row_width(const ConvPlan& plan) { return 2 * plan.wino_tiles_w + 2; }
// Each padded row split by column parity: tiles_w + 1 entries apiece (the last 8 tiles' loads
// from even[j + 1] end there).
int64_t winograd_phase_floats(const ConvPlan& plan) { return plan.wino_tiles_w + 1; }

void plan_winograd(const InferContext& ctx, ConvPlan& plan) {
    const ConvProblem& p = plan.problem;
    const int64_t cin = p.in_per_group, cout = p.out_per_group;
    plan.winograd = true;
    plan.wino_tiles_h = (p.axes[0].out + 1) / 2;
    plan.wino_tiles_w = (p.axes[1].out + 1) / 2;
    const int64_t tw = plan.wino_tiles_w, th = plan.wino_tiles_h;
    const int64_t row_bytes = 16 * (cin + cout) * tw * static_cast<int64_t>(sizeof(float));
    plan.wino_band_rows = std::clamp<int64_t>(kWinogradBandBytes / std::max<int64_t>(row_bytes, 1), 1, th);
    const int64_t band_tiles = plan.wino_band_rows * tw, last = th % plan.wino_band_rows;
    const int workers = nn::gemm_workers(ctx.threads());
    plan.wino_full = nn::plan_gemm(cout, band_tiles, cin, true, false, workers);
    plan.wino_tail = nn::plan_gemm(cout, (last ? last : plan.wino_band_rows) * tw, cin, true, false, workers);
    // The filters transformed, then each of the 16 [Cout, Cin] matrices packed as A (the same
    // panels serve both plans: they depend on M and K only).
    std::vector<float> w(static_cast<size_t>(cout * cin * 9)), u(static_cast<size_t>(16 * cout * cin));
    nn::load_as<float>(*ctx.value(1), w.data());
    nn::winograd_filters(w.data(), cout, cin, u.data());
    plan.wino_u_floats = nn::packed_a_floats(plan.wino_full);
    plan.wino_u.assign(16 * plan.wino_u_floats, 0.0f);
    for (int64_t xi = 0; xi < 16; ++xi)
        nn::pack_a(plan.wino_full, u.data() + xi * cout * cin, cin, false, plan.wino_u.data() + xi * plan.wino_u_floats);
    const auto bytes = [](int64_t floats) { return (static_cast<size_t>(floats) * sizeof(float) + 63) / 64 * 64; };
    plan.wino_v_offset = 0;
    plan.wino_m_offset = bytes(16 * cin * band_tiles);
    plan.wino_rows_offset = plan.wino_m_offset + bytes(16 * cout * band_tiles);
    plan.wino_gemm_offset = plan.wino_rows_offset + bytes(winograd_row_width(plan) + 8 * winograd_phase_floats(plan));
    plan.scratch_bytes = plan.wino_gemm_offset + std::max(nn::scratch_bytes(plan.wino_full), nn::scratch_bytes(plan.wino_tail));
    plan.method = "winograd";
}

// Packs the constant filters of every group as the A operand of the packed GEMM (sgemm.hpp), or
// as the B operand when the GEMM runs transposed.
void pack_filters(const InferContext& ctx, ConvPlan& plan, int64_t rows) {
    const ConvProblem& p = plan.problem;
    const int64_t cout = p.out_per_group;
    if (p.out_spatial() <= kTransposedMaxPixels && cout >= 16 && plan.chunk >= p.out_spatial()) {
        plan.transposed = true;
        // Tiles over Cout: the threads share one image's GEMM (results never depend on tiling).
        // A (im2col^T) is packed once per image by the calling thread, not again by every tile.
        plan.full = nn::plan_gemm(p.out_spatial(), cout, rows, true, true, nn::gemm_workers(ctx.threads()));
        std::vector<float> w(static_cast<size_t>(p.groups * cout * rows));
        nn::load_as<float>(*ctx.value(1), w.data());
        plan.packed_group_floats = nn::packed_b_floats(plan.full.layout, cout);
        plan.packed.resize(plan.packed_group_floats * static_cast<size_t>(p.groups));
        for (int64_t g = 0; g < p.groups; ++g)
            nn::pack_b(plan.full.layout, w.data() + g * cout * rows, rows, true, cout,
                       plan.packed.data() + static_cast<size_t>(g) * plan.packed_group_floats);
        plan.ct_bytes = (static_cast<size_t>(p.out_spatial() * cout) * sizeof(float) + 63) / 64 * 64;
        plan.ct_bytes += (nn::packed_a_floats(plan.full) * sizeof(float) + 63) / 64 * 64;  // then packed A
        if (plan.algorithm == ConvMethod::Im2col && plan.pad_offset) {
            const DwLayout& l = plan.small_plane;
            const nn::AxisWindow& ah = p.axes[0];
            const nn::AxisWindow& aw = p.axes[1];
            const int64_t plane = l.rows * l.width;
            plan.a_k_off.clear();
            plan.a_m_off.clear();
            for (int64_t c = 0; c < p.in_per_group; ++c)
                for (int64_t kh = 0; kh < ah.kernel; ++kh)
                    for (int64_t kw = 0; kw < aw.kernel; ++kw)
                        plan.a_k_off.push_back(c * plane + kh * ah.dilation * l.width + kw * aw.dilation);
            for (int64_t oh = 0; oh < ah.out; ++oh)
                for (int64_t ow = 0; ow < aw.out; ++ow) plan.a_m_off.push_back(oh * ah.stride * l.width + ow * aw.stride);
        }
        // A prologue piece packs its channels' rows of A (and pads their planes first).
        const int64_t a_floats = p.kernel_size() * static_cast<int64_t>(nn::packed_a_floats(plan.full)) / std::max<int64_t>(rows, 1);
        plan.prologue_channels = prologue_channels(
            a_floats + (plan.a_k_off.empty() ? 0 : plan.small_plane.rows * plan.small_plane.width));
        plan.scratch_bytes = plan.col_bytes + plan.ct_bytes + nn::scratch_bytes(plan.full);
        plan.method = "gemm-transposed";
        return;
    }
    if (plan.algorithm == ConvMethod::Im2col && p.axes[1].out % nn::kGemmColumnGroup == 0) {
        plan_implicit(plan);
        // One GEMM over the image; its tiles go to the threads (results never depend on tiling).
        plan.full = nn::plan_gemm(cout, p.out_spatial(), rows, true, false, nn::gemm_workers(ctx.threads()),
                                  nn::gemm_isa_for(p.out_spatial(), true));
        plan.prologue_channels = prologue_channels(p.axes[1].stride * plan.small_plane.rows * plan.phase_width);
        plan.scratch_bytes = plan.phases_bytes + nn::scratch_bytes(plan.full);
        plan.method = "gemm-implicit";
    } else if (plan.chunk >= p.out_spatial()) {
        // The whole image is one column block: its GEMM's tiles go to the threads (results never
        // depend on tiling), or a batch-1 model's 1x1 convolutions would run on one thread.
        plan.tiled_image = true;
        plan.full = plan.tail = nn::plan_gemm(cout, p.out_spatial(), rows, true, false, nn::gemm_workers(ctx.threads()),
                                              nn::gemm_isa_for(p.out_spatial(), true));
        if (plan.im2col_in_pieces())
            plan.prologue_channels = prologue_channels(p.kernel_size() * p.out_spatial() +
                                                       plan.small_plane.rows * plan.small_plane.width);
        plan.scratch_bytes = plan.col_bytes + nn::scratch_bytes(plan.full);
    } else {
        const int64_t last = p.out_spatial() % plan.chunk;
        plan.full = nn::plan_gemm(cout, plan.chunk, rows, true, false, 1);
        plan.tail = nn::plan_gemm(cout, last ? last : plan.chunk, rows, true, false, 1);
        plan.scratch_bytes = plan.col_bytes + std::max(nn::scratch_bytes(plan.full), nn::scratch_bytes(plan.tail));
    }
    std::vector<float> w(static_cast<size_t>(p.groups * cout * rows));
    nn::load_as<float>(*ctx.value(1), w.data());
    plan.packed_group_floats = nn::packed_a_floats(plan.full);  // plan.tail has the same m: the same panels
    plan.packed.resize(plan.packed_group_floats * static_cast<size_t>(p.groups));
    for (int64_t g = 0; g < p.groups; ++g)
        nn::pack_a(plan.full, w.data() + g * cout * rows, rows, false,
                   plan.packed.data() + static_cast<size_t>(g) * plan.packed_group_floats);
}

std::unique_ptr<ConvPlan> plan_method(const InferContext& ctx, ConvKind kind) {
    const PartialShape& data = ctx.shape(0);
    std::optional<std::vector<int64_t>> output_shape;
    if (is_backprop(kind) && ctx.num_inputs() > 2) output_shape = read_output_shape(ctx, ctx.value(2), ctx.shape(2), data.rank() - 2);
    auto plan = std::make_unique<ConvPlan>();
    ConvProblem& p = plan->problem;
    p = analyze(ctx, kind, ctx.attrs<ConvAttrs>(), data.dims(), ctx.shape(1).dims(), output_shape ? &*output_shape : nullptr);
    if (!is_backprop(kind) && ctx.type(0) == ElementType::f32)
        plan->epilogue = nn::FusedEpilogue::from(ctx.attrs<ConvAttrs>().epilogue.get(), p.groups * p.out_per_group);
    if (const QuantizedInput* q = ctx.attrs<ConvAttrs>().quantized.get()) {
        // The pass only hands this to a 2-D Convolution of f32 data (4-D filters).
        const auto weights = static_cast<int64_t>(q->weights.size());
        if (kind != ConvKind::Forward || p.axes.size() != 2 || ctx.type(0) != ElementType::f32 ||
            weights != p.out_per_group * p.in_per_group * p.kernel_size() ||
            p.in_per_group * p.kernel_size() >= nn::kInt8MaxDepth)
            throw Error(ErrorKind::Unsupported, "int8-unsupported", "an int8 input on a convolution the int8 method cannot run");
        nn::Int8ConvShape shape;
        shape.channels = p.in_per_group;
        shape.out_channels = p.out_per_group;
        shape.h = p.axes[0];
        shape.w = p.axes[1];
        plan->int8 = std::make_unique<nn::Int8ConvPlan>(nn::plan_int8_convolution(shape, *q, plan->epilogue, cpu::active_isa()));
        plan->scratch_bytes = plan->int8->scratch_bytes();
        plan->method = "int8-im2col";
        plan->epilogue_in_kernel = true;
        return plan;
    }
    if (!is_backprop(kind) && p.axes.size() == 2) {
        const int64_t rows = p.in_per_group * p.kernel_size();
        if (p.in_per_group == 1 && p.out_per_group <= 4) {
            plan->algorithm = ConvMethod::Direct;
            if (ctx.type(0) == ElementType::f32 && p.out_per_group == 1 && p.out_spatial() <= kChannelsLastMaxPixels &&
                p.axes[1].out < kChannelsLastBelowWidth && p.groups >= kChannelsLastMinChannels && ctx.value(1)) {
                plan_channels_last(ctx, *plan);
            } else {
                plan->padded = dw_phase_layout(p);
                plan->scratch_bytes = plan->padded.bytes(ctx.type(0) == ElementType::f64 ? sizeof(double) : sizeof(float));
            }
        } else if (winograd_fits(ctx, p)) {
            plan->algorithm = ConvMethod::Im2col;
            plan_winograd(ctx, *plan);
            plan->epilogue_in_kernel = true;
            return plan;
        } else if (is_pointwise(p)) {
            plan->algorithm = ConvMethod::Pointwise;
            plan->chunk = pointwise_columns(p.out_spatial());
        } else {
            plan->algorithm = ConvMethod::Im2col;
            plan->chunk = chunk_columns(rows, p.out_spatial());
            const size_t elem = ctx.type(0) == ElementType::f64 ? sizeof(double) : sizeof(float);
            plan->col_bytes = (static_cast<size_t>(rows * plan->chunk) * elem + 63) / 64 * 64;
            if (p.out_spatial() <= kSmallPlanePixels) {
                plan->small_plane = dw_layout(p);
                plan->pad_offset = plan->col_bytes;
                const auto padded = static_cast<size_t>(p.in_per_group * plan->small_plane.rows * plan->small_plane.width + kPadSlack);
                plan->col_bytes += (padded * elem + 63) / 64 * 64;
            }
            plan->scratch_bytes = plan->col_bytes;
        }
        plan->method = plan->channels_last ? "direct-channels-last" : method_name(plan->algorithm);
        if (plan->algorithm != ConvMethod::Direct && ctx.type(0) != ElementType::f64 && ctx.value(1))
            pack_filters(ctx, *plan, rows);
        plan->epilogue_in_kernel = plan->algorithm == ConvMethod::Direct || !plan->packed.empty();
        return plan;
    }
    plan->method = method_name(plan->algorithm);
    const size_t elem = ctx.type(0) == ElementType::f64 ? sizeof(double) : sizeof(float);
    plan->scratch_bytes = static_cast<size_t>(generic_col_elements(p, is_backprop(kind))) * elem;
    return plan;
}

int64_t count_of(const std::vector<int64_t>& dims) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
}

// The method's plan, then room for the f16 / bf16 conversions (ConvPlan::convert_offset).
std::unique_ptr<OpPlan> prepare(const InferContext& ctx, ConvKind kind) {
    std::unique_ptr<ConvPlan> plan = plan_method(ctx, kind);
    plan->reads_filters = !plan->int8 && !plan->winograd && !plan->channels_last && plan->packed.empty();
    plan->x_bytes = nn::conversion_bytes(ctx.type(0), count_of(ctx.shape(0).dims()));
    plan->w_bytes = plan->reads_filters ? nn::conversion_bytes(ctx.type(1), count_of(ctx.shape(1).dims())) : 0;
    plan->y_bytes = nn::conversion_bytes(ctx.type(0), count_of(plan->problem.out_shape));
    if (plan->x_bytes + plan->w_bytes + plan->y_bytes > 0) {
        plan->convert_offset = (plan->scratch_bytes + 63) / 64 * 64;
        plan->scratch_bytes = plan->convert_offset + plan->x_bytes + plan->w_bytes + plan->y_bytes;
    }
    return plan;
}

// Work is cut so that no result depends on the thread count: depthwise by output plane, GEMM
// paths by fixed column blocks (each block's im2col lives in its thread's scratch).
// The part of a fused epilogue that runs on `rows` output channels from `channel` on, over `cols`
// positions at y (row stride ld; res likewise, or null): everything but what the GEMM did.
template <class T>
void finish_block(const ConvPlan& plan, bool after_gemm, int64_t channel, T* y, const T* res, int64_t ld,
                  int64_t rows, int64_t cols) {
    if constexpr (std::is_same_v<T, float>) {
        const nn::FusedEpilogue& e = plan.epilogue;
        if (!e.active) return;
        if (after_gemm) {
            nn::apply_rest(e, y, ld, rows, cols, res, ld);
        } else {
            nn::apply_block(y, ld, rows, cols, e.bias_at(channel), nullptr,
                            e.residual ? res : nullptr, ld, e.act);
        }
    }
}

// The GEMM's B for output columns [first, first + len) of one image: the data itself (pointwise,
// row stride in_spatial) or the im2col block written at the start of `scratch` (row stride len).
template <class T>
const T* column_block(const ConvPlan& plan, const T* xg, int64_t first, int64_t len, std::byte* scratch, int64_t& ldb) {
    const ConvProblem& p = plan.problem;
    if (plan.algorithm != ConvMethod::Im2col) {
        ldb = p.in_spatial();
        return xg + first;
    }
    T* col = reinterpret_cast<T*>(scratch);
    if (plan.pad_offset)
        im2col_2d_padded(p, plan.small_plane, xg, first, len, col, reinterpret_cast<T*>(scratch + plan.pad_offset));
    else
        im2col_2d(p, xg, first, len, col);
    ldb = len;
    return col;
}

// ---- Winograd F(2x2, 3x3): the run (planning above) ----------------------------------------
// V of input channel c for tile rows [i0, i1): 8 tiles at a time (rows of 8 tiles or more:
// winograd_fits) from the padded rows split by column parity (tile j's 4 columns are even[j],
// odd[j], even[j + 1], odd[j + 1]). Tile row i reads padded rows 2i .. 2i + 3, so consecutive tile
// rows share two: each padded row is made once, into slot (row % 4) of four. v: the band's V,
// band_tiles per (xi, channel).
void winograd_input_rows(const ConvPlan& plan, const float* xc, int64_t c, int64_t i0, int64_t i1,
                         int64_t band_tiles, float* rows, float* v) {
    using V8 = simd::f32x8;
    const ConvProblem& p = plan.problem;
    const nn::AxisWindow& ah = p.axes[0];
    const nn::AxisWindow& aw = p.axes[1];
    const int64_t tw = plan.wino_tiles_w, width = winograd_row_width(plan), pf = winograd_phase_floats(plan);
    const int64_t cin = p.in_per_group;
    float* row = rows;
    float* phases = rows + width;  // [slot][even, odd][pf]
    // The padded row: pad_begin zeros, the data (width >= pad_begin + in: 2 * tiles_w + 2 covers
    // out + 2 = in + both pads), zeros to the end; then split into its slot.
    const auto make_row = [&](int64_t pr) {
        float* even = phases + 2 * (pr % 4) * pf;
        float* odd = even + pf;
        const int64_t ih = pr - ah.pad_begin;
        if (ih < 0 || ih >= ah.in) {
            std::memset(even, 0, sizeof(float) * static_cast<size_t>(2 * pf));
            return;
        }
        std::memset(row, 0, sizeof(float) * static_cast<size_t>(aw.pad_begin));
        std::memcpy(row + aw.pad_begin, xc + ih * aw.in, sizeof(float) * static_cast<size_t>(aw.in));
        std::memset(row + aw.pad_begin + aw.in, 0, sizeof(float) * static_cast<size_t>(width - aw.pad_begin - aw.in));
        detail::split_even_odd(row, width, even, odd);
    };
    for (int64_t pr = 2 * i0; pr < 2 * i0 + 2; ++pr) make_row(pr);
    for (int64_t i = i0; i < i1; ++i) {
        make_row(2 * i + 2);
        make_row(2 * i + 3);
        float* out = v + c * band_tiles + (i - i0) * tw;
        const size_t xi_stride = static_cast<size_t>(cin * band_tiles);
        for (int64_t b = 0; b < tw; b += 8) {
            const int64_t j = std::min<int64_t>(b, tw - 8);  // the last block overlaps: same values
            V8 d[4][4], vv[16];
            for (int r = 0; r < 4; ++r) {
                const float* even = phases + 2 * ((2 * i + r) % 4) * pf;
                const float* odd = even + pf;
                std::memcpy(&d[r][0], even + j, sizeof(V8));
                std::memcpy(&d[r][1], odd + j, sizeof(V8));
                std::memcpy(&d[r][2], even + j + 1, sizeof(V8));
                std::memcpy(&d[r][3], odd + j + 1, sizeof(V8));
            }
            nn::winograd_input_tile(d, vv);
            for (int xi = 0; xi < 16; ++xi) std::memcpy(out + xi * xi_stride + j, &vv[xi], sizeof(V8));
        }
    }
}

// Output channel o's rows [2 * i0, 2 * i1) (within the plane) from M, the band's GEMM results
// (band_tiles per (xi, channel)), 8 tiles (16 columns) at a time.
void winograd_output_rows(const ConvPlan& plan, const float* m, int64_t o, int64_t i0, int64_t i1, int64_t band_tiles,
                          float* yo) {
    using V8 = simd::f32x8;
    const ConvProblem& p = plan.problem;
    const int64_t out_h = p.axes[0].out, out_w = p.axes[1].out, tw = plan.wino_tiles_w;
    const size_t xi_stride = static_cast<size_t>(p.out_per_group * band_tiles);
    for (int64_t i = i0; i < i1; ++i) {
        const float* src = m + o * band_tiles + (i - i0) * tw;
        for (int64_t b = 0; b < tw; b += 8) {
            const int64_t j = std::min<int64_t>(b, tw - 8);  // the last block overlaps: same values
            V8 mm[16], yy[2][2];
            for (int xi = 0; xi < 16; ++xi) std::memcpy(&mm[xi], src + xi * xi_stride + j, sizeof(V8));
            nn::winograd_output_tile(mm, yy);
            for (int r = 0; r < 2 && 2 * i + r < out_h; ++r) {
                // Outputs 2j .. 2j + 15 of the row: each tile's two columns side by side.
                const V8 lo = __builtin_shufflevector(yy[r][0], yy[r][1], 0, 8, 1, 9, 2, 10, 3, 11);
                const V8 hi = __builtin_shufflevector(yy[r][0], yy[r][1], 4, 12, 5, 13, 6, 14, 7, 15);
                float pair[16];
                std::memcpy(pair, &lo, sizeof lo);
                std::memcpy(pair + 8, &hi, sizeof hi);
                const int64_t n = std::min<int64_t>(16, out_w - 2 * j);  // an odd width ends mid-tile
                std::memcpy(yo + (2 * i + r) * out_w + 2 * j, pair, sizeof(float) * static_cast<size_t>(n));
            }
        }
    }
}

// The whole convolution, band by band: the input transform by channels, the 16 GEMMs by their
// tiles, the output transform and the fused epilogue by output channels, each across the threads.
// Results depend on no thread count: every value is made by one fixed computation.
void run_winograd(const ConvPlan& plan, const float* x, float* y, const float* res, const KernelContext& ctx) {
    const ConvProblem& p = plan.problem;
    const int64_t cin = p.in_per_group, cout = p.out_per_group, th = plan.wino_tiles_h, tw = plan.wino_tiles_w;
    const int64_t in_spatial = p.in_spatial(), out_spatial = p.out_spatial(), out_h = p.axes[0].out, out_w = p.axes[1].out;
    auto* mine = static_cast<std::byte*>(ctx.scratch());
    float* v = reinterpret_cast<float*>(mine + plan.wino_v_offset);
    float* m = reinterpret_cast<float*>(mine + plan.wino_m_offset);
    const cpu::Isa isa = cpu::active_isa();
    for (int64_t n = 0; n < p.batch; ++n) {
        const float* xn = x + n * cin * in_spatial;
        float* yn = y + n * cout * out_spatial;
        const float* rn = res ? res + n * cout * out_spatial : nullptr;
        for (int64_t i0 = 0; i0 < th; i0 += plan.wino_band_rows) {
            const int64_t i1 = std::min(th, i0 + plan.wino_band_rows), band_tiles = (i1 - i0) * tw;
            const nn::GemmPlan& gp = i1 - i0 == plan.wino_band_rows ? plan.wino_full : plan.wino_tail;
            detail::for_chunks(ctx.pool(), cin, 4, [&](int64_t c0, int64_t c1) {
                float* rows = reinterpret_cast<float*>(static_cast<std::byte*>(ctx.scratch()) + plan.wino_rows_offset);
                cpu::run_at(isa, [&] {
                    for (int64_t c = c0; c < c1; ++c) winograd_input_rows(plan, xn + c * in_spatial, c, i0, i1, band_tiles, rows, v);
                });
            });
            const int64_t tiles = gp.tiles();
            detail::for_chunks(ctx.pool(), 16 * tiles, 1, [&](int64_t t0, int64_t t1) {
                void* gemm_scratch = static_cast<std::byte*>(ctx.scratch()) + plan.wino_gemm_offset;
                for (int64_t t = t0; t < t1; ++t) {
                    const int64_t xi = t / tiles;
                    nn::run_gemm_tile(gp, t % tiles, nn::GemmOperand::prepacked(plan.wino_u.data() + xi * plan.wino_u_floats),
                                      nn::GemmOperand::plain(v + xi * cin * band_tiles, band_tiles),
                                      m + xi * cout * band_tiles, band_tiles, nn::GemmEpilogue{}, gemm_scratch);
                }
            });
            const int64_t first = 2 * i0 * out_w, len = (std::min(2 * i1, out_h) - 2 * i0) * out_w;
            detail::for_chunks(ctx.pool(), cout, 4, [&](int64_t o0, int64_t o1) {
                cpu::run_at(isa, [&] {
                    for (int64_t o = o0; o < o1; ++o) winograd_output_rows(plan, m, o, i0, i1, band_tiles, yn + o * out_spatial);
                });
                finish_block(plan, false, o0, yn + o0 * out_spatial + first, rn ? rn + o0 * out_spatial + first : nullptr,
                             out_spatial, o1 - o0, len);
            });
        }
    }
}

template <class T>
void forward_2d(const ConvPlan& plan, const T* x, const T* w, T* y, const T* res, const KernelContext& ctx) {
    const ConvProblem& p = plan.problem;
    const int64_t cin = p.in_per_group, cout = p.out_per_group, rows = cin * p.kernel_size();
    const int64_t in_spatial = p.in_spatial(), out_spatial = p.out_spatial();
    const int64_t images = p.batch * p.groups;  // (n, g) pairs
    if constexpr (std::is_same_v<T, float>) {
        if (plan.channels_last) {
            const int64_t channels = p.groups, blocks = plan.dw_blocks;
            const cpu::Isa isa = cpu::active_isa();
            detail::for_chunks(ctx.pool(), p.batch * blocks, 1, [&](int64_t begin, int64_t end) {
                float* xp = static_cast<float*>(ctx.scratch());  // 64-byte aligned
                float* out_cl = xp + plan.padded.rows * plan.padded.width * plan.dw_block_max;
                for (int64_t task = begin; task < end; ++task) {
                    const int64_t n = task / blocks, c0 = dw_block_start(plan, task % blocks);
                    const int64_t cn = dw_block_start(plan, task % blocks + 1) - c0;
                    const float* xn = x + n * channels * in_spatial;
                    float* yn = y + n * channels * out_spatial;
                    // Compiled for the CPU's level (cpu_isa.hpp); the same operations in the same order at every level.
                    cpu::run_at(isa, [&] { dw_channels_last_block(plan, xn, c0, cn, xp, out_cl, yn); });
                    if (!plan.dw_epilogue_in_block)
                        finish_block(plan, false, c0, yn + c0 * out_spatial, res ? res + (n * channels + c0) * out_spatial : nullptr,
                                 out_spatial, cn, out_spatial);
                }
            });
            return;
        }
    }
    if (plan.algorithm == ConvMethod::Direct) {
        // Chunks of several planes: the padding written for a chunk's first plane serves the rest.
        // Chunks of equal size (the last one no larger than the others), an even number of them
        // when there are several, so that two threads share the planes evenly.
        const int64_t planes = images * cout;
        const int64_t most = std::max<int64_t>(1, 16384 / std::max<int64_t>(out_spatial * p.kernel_size(), 1));
        int64_t chunks = (planes + most - 1) / most;
        chunks = std::min(planes, chunks + (chunks > 1 ? chunks % 2 : 0));
        const int64_t grain = (planes + chunks - 1) / chunks;
        const cpu::Isa isa = cpu::active_isa();
        detail::for_chunks(ctx.pool(), planes, grain, [&](int64_t begin, int64_t end) {
            T* padded = static_cast<T*>(ctx.scratch());
            // Compiled for the CPU's level (cpu_isa.hpp): the 256-bit vector blocks are single AVX
            // instructions there, two SSE ones at the baseline. Each lane adds the same taps in the
            // same order at every level, so results do not depend on it.
            cpu::run_at(isa, [&] {
                for (int64_t plane = begin; plane < end; ++plane) {
                    const int64_t image = plane / cout, j = plane % cout, g = image % p.groups;
                    // The image's outputs share its padded plane; the padding, written for the
                    // chunk's first plane, stays zero for the next (only the data is copied: a
                    // plane's worth of short zero fills cost as much as its multiply-adds).
                    if (plane == begin)
                        dw_pad_plane(plan.padded, p.axes[0].in, p.axes[1].in, x + image * cin * in_spatial, padded);
                    else if (j == 0)
                        dw_copy_plane_data(plan.padded, p.axes[0].in, p.axes[1].in, x + image * cin * in_spatial, padded);
                    direct_2d(p, plan.padded, padded, w + (g * cout + j) * p.kernel_size(), y + plane * out_spatial);
                }
            });
            // The epilogue once per run of the chunk's planes within one batch item: consecutive
            // planes are consecutive channels, rows of one block (not one call per plane).
            const int64_t channels = p.groups * cout;
            for (int64_t first = begin; first < end;) {
                const int64_t last = std::min(end, (first / channels + 1) * channels);
                finish_block(plan, false, first % channels, y + first * out_spatial,
                             res ? res + first * out_spatial : nullptr, out_spatial, last - first, out_spatial);
                first = last;
            }
        });
        return;
    }
    if constexpr (std::is_same_v<T, float>) {
        if (plan.winograd) {
            run_winograd(plan, x, y, res, ctx);
            return;
        }
        if (plan.implicit) {
            // The image's phase planes live in this thread's scratch and are read by every GEMM
            // tile; the tile tasks make them first, in pieces of channels (SharedPrologue), then
            // each computes its tiles (its own thread's scratch after the planes) and the rest of
            // the epilogue on them.
            auto* phases = static_cast<float*>(ctx.scratch());
            const int64_t pieces = plan.prologue_pieces();
            for (int64_t image = 0; image < images; ++image) {
                const int64_t g = image % p.groups;
                const float* xg = x + image * cin * in_spatial;
                const float* packed = plan.packed.data() + static_cast<size_t>(g) * plan.packed_group_floats;
                const nn::GemmEpilogue epi = plan.epilogue.gemm(nn::GemmEpilogue::BiasAxis::Row, g * cout);
                T* yg = y + image * cout * out_spatial;
                const T* rg = res ? res + image * cout * out_spatial : nullptr;
                const nn::GemmOperand b = nn::GemmOperand::indexed(phases, plan.row_off.data(), plan.col_off.data());
                SharedPrologue prologue(pieces);
                detail::for_chunks(ctx.pool(), plan.full.tiles(), 1, [&](int64_t first, int64_t last) {
                    prologue.run([&](int64_t piece) {
                        const int64_t c0 = piece * plan.prologue_channels;
                        const int64_t c1 = std::min(cin, c0 + plan.prologue_channels);
                        cpu::run([&] { make_phases_rows(plan, xg, phases, c0, c1); });
                    });
                    auto* gemm_scratch = static_cast<std::byte*>(ctx.scratch()) + plan.phases_bytes;
                    for (int64_t t = first; t < last; ++t) {
                        nn::run_gemm_tile(plan.full, t, nn::GemmOperand::prepacked(packed), b, yg, out_spatial, epi,
                                          gemm_scratch);
                        const nn::GemmTileRect r = nn::gemm_tile_rect(plan.full, t);
                        const int64_t at = r.row * out_spatial + r.col;
                        finish_block(plan, true, g * cout + r.row, yg + at, rg ? rg + at : nullptr, out_spatial, r.rows,
                                     r.cols);
                    }
                });
            }
            return;
        }
        if (plan.transposed) {
            // One block per image (few pixels); the GEMM's tiles go to the threads. This thread's
            // scratch holds the padded planes and the packed A (im2col^T), which the tile
            // tasks make first, in pieces of input channels (SharedPrologue: each piece pads its
            // channels' planes and packs their rows of A); each task then computes its tiles of
            // C^T (its own thread's scratch for the GEMM), moves them into the output and applies
            // the rest of the epilogue there.
            auto* mine = static_cast<std::byte*>(ctx.scratch());
            // A is packed after the room for C^T (which each task uses in its own thread's scratch).
            float* apack = reinterpret_cast<float*>(mine + plan.col_bytes) + (static_cast<size_t>(out_spatial * cout) + 15) / 16 * 16;
            const bool indexed = !plan.a_k_off.empty();
            const bool pointwise = plan.algorithm != ConvMethod::Im2col;
            // Im2col without padded planes (not planned for planes this small; kept general): one piece.
            const int64_t pieces =
                indexed || pointwise ? plan.prologue_pieces() : 1;
            const int64_t taps = p.kernel_size();
            for (int64_t image = 0; image < images; ++image) {
                const int64_t g = image % p.groups;
                const T* xg = x + image * cin * in_spatial;
                const float* packed = plan.packed.data() + static_cast<size_t>(g) * plan.packed_group_floats;
                // C^T's columns are the output channels: a column bias.
                const nn::GemmEpilogue epi = plan.epilogue.gemm(nn::GemmEpilogue::BiasAxis::Column, g * cout);
                T* yg = y + image * cout * out_spatial;
                const T* rg = res ? res + image * cout * out_spatial : nullptr;
                const auto piece = [&](int64_t i) {
                    const int64_t c0 = i * plan.prologue_channels, c1 = std::min(cin, c0 + plan.prologue_channels);
                    if (indexed) {
                        float* padded = reinterpret_cast<float*>(mine + plan.pad_offset);
                        const DwLayout& l = plan.small_plane;
                        const int64_t plane = l.rows * l.width, in_h = p.axes[0].in, in_w = p.axes[1].in;
                        cpu::run([&] {  // zeros in one pass, then the data rows (as make_phases_rows)
                            std::memset(padded + c0 * plane, 0, sizeof(float) * static_cast<size_t>((c1 - c0) * plane));
                            for (int64_t c = c0; c < c1; ++c)
                                dw_copy_plane_data(l, in_h, in_w, xg + c * in_spatial, padded + c * plane);
                        });
                        nn::pack_a_indexed(plan.full, padded, plan.a_k_off.data(), plan.a_m_off.data(), apack, c0 * taps,
                                           c1 * taps);
                    } else if (pointwise) {  // A^T is the data itself, [Cin, pixels]
                        nn::pack_a(plan.full, xg, out_spatial, true, apack, c0, c1);
                    } else {
                        auto* col = reinterpret_cast<T*>(mine);
                        if (plan.pad_offset)
                            im2col_2d_padded(p, plan.small_plane, xg, 0, out_spatial, col,
                                             reinterpret_cast<T*>(mine + plan.pad_offset));
                        else
                            im2col_2d(p, xg, 0, out_spatial, col);
                        nn::pack_a(plan.full, col, out_spatial, true, apack);
                    }
                };
                SharedPrologue prologue(pieces);
                detail::for_chunks(ctx.pool(), plan.full.tiles(), 1, [&](int64_t first, int64_t last) {
                    prologue.run(piece);
                    // Each task's tile of C^T goes to its own thread's scratch, which stays in that
                    // core's cache from run to run: tiles written into one C^T in the calling
                    // thread's scratch moved its lines between the cores on every run.
                    auto* own = static_cast<std::byte*>(ctx.scratch());
                    auto* tile_ct = reinterpret_cast<float*>(own + plan.col_bytes);
                    auto* gemm_scratch = own + plan.col_bytes + plan.ct_bytes;
                    for (int64_t t = first; t < last; ++t) {
                        // C^T rows r.row.. (pixels), columns r.col.. (channels): output channels r.col..
                        const nn::GemmTileRect r = nn::gemm_tile_rect(plan.full, t);
                        nn::run_gemm_tile_to(plan.full, t, nn::GemmOperand::prepacked(apack),
                                             nn::GemmOperand::prepacked(packed), tile_ct, r.cols, epi, gemm_scratch);
                        const int64_t at = r.col * out_spatial + r.row;
                        cpu::run([&] { transpose_block(tile_ct, r.cols, r.rows, r.cols, yg + at, out_spatial); });
                        finish_block(plan, true, g * cout + r.col, yg + at, rg ? rg + at : nullptr, out_spatial, r.cols,
                                     r.rows);
                    }
                });
            }
            return;
        }
    }
    if constexpr (std::is_same_v<T, float>) {
        if (plan.tiled_image) {
            // The column block (im2col's, or the data itself) in this thread's scratch, read by the
            // tile tasks, which each use their own thread's scratch after it and apply the rest of
            // the epilogue to their tiles. An im2col from padded planes is made by the tile tasks
            // themselves, in pieces of input channels (SharedPrologue), any other before them.
            auto* mine = static_cast<std::byte*>(ctx.scratch());
            const bool shared_im2col = plan.im2col_in_pieces();
            const int64_t pieces = shared_im2col ? plan.prologue_pieces() : 0;
            for (int64_t image = 0; image < images; ++image) {
                const int64_t g = image % p.groups;
                const T* xg = x + image * cin * in_spatial;
                int64_t ldb = out_spatial;
                const T* b = reinterpret_cast<T*>(mine);
                if (!shared_im2col) b = column_block(plan, xg, 0, out_spatial, mine, ldb);
                const float* packed = plan.packed.data() + static_cast<size_t>(g) * plan.packed_group_floats;
                const nn::GemmEpilogue epi = plan.epilogue.gemm(nn::GemmEpilogue::BiasAxis::Row, g * cout);
                T* yg = y + image * cout * out_spatial;
                const T* rg = res ? res + image * cout * out_spatial : nullptr;
                SharedPrologue prologue(pieces);
                detail::for_chunks(ctx.pool(), plan.full.tiles(), 1, [&](int64_t first, int64_t last) {
                    prologue.run([&](int64_t i) {
                        const int64_t c0 = i * plan.prologue_channels, c1 = std::min(cin, c0 + plan.prologue_channels);
                        im2col_2d_padded(p, plan.small_plane, xg, 0, out_spatial, reinterpret_cast<T*>(mine),
                                         reinterpret_cast<T*>(mine + plan.pad_offset), c0, c1);
                    });
                    auto* gemm_scratch = static_cast<std::byte*>(ctx.scratch()) + plan.col_bytes;
                    for (int64_t t = first; t < last; ++t) {
                        nn::run_gemm_tile(plan.full, t, nn::GemmOperand::prepacked(packed), nn::GemmOperand::plain(b, ldb),
                                          yg, out_spatial, epi, gemm_scratch);
                        const nn::GemmTileRect r = nn::gemm_tile_rect(plan.full, t);
                        const int64_t at = r.row * out_spatial + r.col;
                        finish_block(plan, true, g * cout + r.row, yg + at, rg ? rg + at : nullptr, out_spatial, r.rows,
                                     r.cols);
                    }
                });
            }
            return;
        }
    }
    const int64_t block = plan.chunk;
    const int64_t blocks = (out_spatial + block - 1) / block;
    detail::for_chunks(ctx.pool(), images * blocks, 1, [&](int64_t begin, int64_t end) {
        for (int64_t task = begin; task < end; ++task) {
            const int64_t image = task / blocks, g = image % p.groups;
            const int64_t first = (task % blocks) * block, len = std::min(block, out_spatial - first);
            const T* xg = x + image * cin * in_spatial;
            T* yg = y + image * cout * out_spatial;
            auto* scratch = static_cast<std::byte*>(ctx.scratch());
            int64_t ldb = 0;
            const T* b = column_block(plan, xg, first, len, scratch, ldb);
            if constexpr (std::is_same_v<T, float>) {
                if (!plan.packed.empty()) {
                    const nn::GemmPlan& g_plan = first + len == out_spatial && len != plan.chunk ? plan.tail : plan.full;
                    nn::run_gemm(g_plan, nn::GemmOperand::prepacked(plan.packed.data() + static_cast<size_t>(g) * plan.packed_group_floats),
                                 nn::GemmOperand::plain(b, ldb), yg + first, out_spatial,
                                 plan.epilogue.gemm(nn::GemmEpilogue::BiasAxis::Row, g * cout),
                                 scratch + plan.col_bytes);
                    finish_block(plan, true, g * cout, yg + first,
                                 res ? res + image * cout * out_spatial + first : nullptr, out_spatial, cout, len);
                    continue;
                }
            }
            const T* wg = w + g * cout * rows;  // the filters, unpacked (never null here)
            nn::gemm<T>(false, false, cout, len, rows, wg, rows, b, ldb, yg + first, out_spatial, false);
        }
    });
}

void compute(KernelContext& ctx, ConvKind kind) {
    const ConvPlan& plan = ctx.plan<ConvPlan>();
    const Tensor& data = ctx.input(0);
    if (ctx.output(0).num_elements() == 0) return;
    nn::dispatch_float(data.type(), [&](auto tag) {
        using T = decltype(tag);
        const nn::ComputeIn<T> x(data, plan.convert_space(ctx, 0, plan.x_bytes));
        std::optional<nn::ComputeIn<T>> w;  // none when the filters are packed in the plan
        if (plan.reads_filters) w.emplace(ctx.input(1), plan.convert_space(ctx, plan.x_bytes, plan.w_bytes));
        const T* wd = w ? w->data() : nullptr;
        nn::ComputeOut<T> y(ctx.output(0), plan.convert_space(ctx, plan.x_bytes + plan.w_bytes, plan.y_bytes));
        // A fused residual is the last input (f32, the output's shape).
        const T* res = nullptr;
        if constexpr (std::is_same_v<T, float>)
            if (plan.epilogue.residual) res = ctx.input(ctx.num_inputs() - 1).template data<float>();
        if constexpr (std::is_same_v<T, float>) {
            if (plan.int8) {
                nn::run_int8_convolution(*plan.int8, plan.problem.batch, x.data(), y.data(), res, ctx.scratch(), ctx.pool());
                y.commit();
                return;
            }
        }
        if (is_backprop(kind)) backprop(plan.problem, x.data(), wd, y.data(), static_cast<T*>(ctx.scratch()));
        else if (plan.algorithm == ConvMethod::Generic) forward(plan.problem, x.data(), wd, y.data(), static_cast<T*>(ctx.scratch()));
        else forward_2d(plan, x.data(), wd, y.data(), res, ctx);
        if (!plan.epilogue_in_kernel) {
            // Paths without a fused epilogue of their own: over the whole output, image by image.
            const ConvProblem& p = plan.problem;
            const int64_t channels = p.groups * p.out_per_group, spatial = p.out_spatial();
            for (int64_t n = 0; n < p.batch; ++n)
                finish_block(plan, false, 0, y.data() + n * channels * spatial,
                             res ? res + n * channels * spatial : nullptr, spatial, channels, spatial);
        }
        y.commit();
    });
}

OpDef make_conv_def(const char* type, ConvKind kind) {
    OpDef d;
    d.type = type;
    d.version = 1;
    d.input_roles = {"data", "filters"};
    d.min_inputs = 2;
    if (is_backprop(kind)) {
        d.input_roles.push_back("output_shape");
        d.value_inputs = inputs(2);
    }
    d.parse_attrs = [kind](const AttrReader& r) { return parse(r, kind); };
    d.infer = [kind](const InferContext& ctx) { return infer(ctx, kind); };
    d.prepare = [kind](const InferContext& ctx) { return prepare(ctx, kind); };
    d.compute = [kind](KernelContext& ctx) { compute(ctx, kind); };
    if (!is_backprop(kind)) {
        d.with_epilogue = [](const OpAttrs& a, std::shared_ptr<const Epilogue> e) -> std::unique_ptr<OpAttrs> {
            auto fused = std::make_unique<ConvAttrs>(static_cast<const ConvAttrs&>(a));
            fused->epilogue = std::move(e);
            return fused;
        };
        d.epilogue_channel_axis = 1;
    }
    if (kind == ConvKind::Forward) {
        d.with_quantized_input = [](const OpAttrs& a, std::shared_ptr<const QuantizedInput> q) -> std::unique_ptr<OpAttrs> {
            // 2-D ([Cout, Cin, kH, kW] filters), the depth within the int32 sums' bound.
            const Shape& w = q->weights_shape;
            if (w.size() != 4 || w[1] * w[2] * w[3] >= nn::kInt8MaxDepth) return nullptr;
            auto quantized = std::make_unique<ConvAttrs>(static_cast<const ConvAttrs&>(a));
            quantized->quantized = std::move(q);
            return quantized;
        };
        // The int8 method ends its epilogue with a FakeQuantize (the next quantized layer's).
        d.takes_fake_quantize = [](const OpAttrs& a) { return static_cast<const ConvAttrs&>(a).quantized != nullptr; };
    }
    return d;
}

}  // namespace

OpDef make_convolution_op() { return make_conv_def("Convolution", ConvKind::Forward); }
OpDef make_group_convolution_op() { return make_conv_def("GroupConvolution", ConvKind::GroupForward); }
OpDef make_convolution_backprop_data_op() { return make_conv_def("ConvolutionBackpropData", ConvKind::Backprop); }
OpDef make_group_convolution_backprop_data_op() {
    return make_conv_def("GroupConvolutionBackpropData", ConvKind::GroupBackprop);
}

}  // namespace irlite
