// Convolution's GEMM methods (kernels/nn/convolution_methods.hpp: GemmConvPlan), 2-D: the im2col
// matrix times the filters ("im2col-gemm"), a 1x1 stride-1 convolution as a GEMM on the data itself
// ("gemm-1x1"), the GEMM reading its B from the padded data planes without an im2col matrix
// ("gemm-implicit"), and the transposed GEMM of planes of few pixels ("gemm-transposed").
#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>
#include <type_traits>

#include "kernels/detail/cpu_isa.hpp"
#include "kernels/detail/nn_gemm.hpp"
#include "kernels/detail/parallel.hpp"
#include "kernels/detail/sgemm.hpp"
#include "kernels/detail/simd.hpp"
#include "kernels/detail/transpose8.hpp"
#include "kernels/nn/convolution_methods.hpp"
#include "kernels/nn/convolution_padded.hpp"

// The kernels below pass GCC/clang vector-extension values between functions of this file only;
// without -mavx, compilers warn that such values would change the ABI of an exported function.
// None is exported (anonymous namespace), so the warning does not apply here.
#if defined(__clang__) || defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace irlite::nn::conv {
namespace {

using Mode = GemmConvPlan::Mode;
using detail::transpose8;  // kernels/detail/transpose8.hpp

// Columns per task of a 1x1 convolution: a fixed block, so that results do not depend on threads.
int64_t pointwise_columns(int64_t columns) { return std::min<int64_t>(std::max<int64_t>(columns, 1), 1024); }

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

// A run of n elements of T (n known only at run time) in 32-byte moves, the last one overlapping
// the one before it (writing some elements twice, with the same values) instead of a remainder
// loop; 16-byte moves the same way for shorter runs. dst and src must not overlap. Copied element by
// element, LeNet-5's 5x5 layer on 10-wide rows spent 9.7 us against 7.3 (AMD EPYC Zen 4).
template <class T>
IRLITE_ISA_INLINE void copy_run(T* __restrict dst, const T* __restrict src, int64_t n) {
    auto* d = reinterpret_cast<unsigned char*>(dst);
    const auto* s = reinterpret_cast<const unsigned char*>(src);
    const int64_t bytes = n * static_cast<int64_t>(sizeof(T));
    const auto moves = [&](auto size_tag) {
        constexpr int64_t kB = decltype(size_tag)::value;
        int64_t i = 0;
        for (; i + kB <= bytes; i += kB) std::memcpy(d + i, s + i, kB);
        if (i < bytes) std::memcpy(d + bytes - kB, s + bytes - kB, kB);
    };
    if (bytes >= 32) return moves(std::integral_constant<int64_t, 32>{});
    if (bytes >= 16) return moves(std::integral_constant<int64_t, 16>{});
    for (int64_t i = 0; i < n; ++i) dst[i] = src[i];
}

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
                            else copy_run(dst, src, w);
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
                        copy_run(out + ow, src + ow, ow1 - ow);
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

// Output positions up to which a convolution runs its GEMM transposed (Mode::Transposed): fewer than
// the 16 columns of an AVX2 B panel. At 16 (a 4x4 plane) the plain GEMM's one panel is full, and
// it streams the weights as A panels past a B block that stays in L1; transposed, the weights are
// B blocks 24 columns wide that do not fit in L1 beside the A block (SqueezeNet's 512 -> 1000
// classifier on 4x4: 187 -> 173 us, 64 -> 256 3x3 on 4x4: 58 -> 55 us, one thread).
inline constexpr int64_t kTransposedMaxPixels = 15;

// Floats written per piece of an image's shared operand (GemmConvPlan::prologue_channels): about a
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

// The phase planes' geometry and B's offsets into them (see Mode::Implicit).
void plan_implicit(const ConvProblem& p, GemmConvPlan& plan) {
    const nn::AxisWindow& ah = p.axes[0];
    const nn::AxisWindow& aw = p.axes[1];
    plan.mode = Mode::Implicit;
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

// Input channels [c0, c1) of one image's phase planes (Mode::Implicit) from its [C, H, W]
// data; `out` is the start of the image's phase planes. Disjoint channel ranges write disjoint
// memory (the last range also zeroes the buffer's tail), so tasks may make them side by side.
void make_phases_rows(const ConvProblem& p, const GemmConvPlan& plan, const float* x, float* out, int64_t c0,
                      int64_t c1) {
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

// Packs the constant filters of every group as the A operand of the packed GEMM (sgemm.hpp), or
// as the B operand when the GEMM runs transposed.
void pack_filters(const InferContext& ctx, const ConvProblem& p, GemmConvPlan& plan, int64_t rows) {
    const int64_t cout = p.out_per_group;
    if (p.out_spatial() <= kTransposedMaxPixels && cout >= 16 && plan.chunk >= p.out_spatial()) {
        plan.mode = Mode::Transposed;
        // Tiles over Cout: the threads share one image's GEMM (results never depend on tiling).
        // A (im2col^T) is packed once per image by the calling thread, not again by every tile.
        plan.full = nn::plan_gemm(p.out_spatial(), cout, rows, true, true, nn::gemm_workers(ctx.threads()),
                                  nn::gemm_isa_for_conv(nn::ConvGemmForm::FewPixels));
        std::vector<float> w(static_cast<size_t>(p.groups * cout * rows));
        nn::load_as<float>(*ctx.value(1), w.data());
        plan.packed_group_floats = nn::packed_b_floats(plan.full.layout, cout);
        plan.packed.resize(plan.packed_group_floats * static_cast<size_t>(p.groups));
        for (int64_t g = 0; g < p.groups; ++g)
            nn::pack_b(plan.full.layout, w.data() + g * cout * rows, rows, true, cout,
                       plan.packed.data() + static_cast<size_t>(g) * plan.packed_group_floats);
        plan.ct_bytes = (static_cast<size_t>(p.out_spatial() * cout) * sizeof(float) + 63) / 64 * 64;
        plan.ct_bytes += (nn::packed_a_floats(plan.full) * sizeof(float) + 63) / 64 * 64;  // then packed A
        if (plan.im2col && plan.pad_offset) {
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
        return;
    }
    if (plan.im2col && p.axes[1].out % nn::kGemmColumnGroup == 0) {
        plan_implicit(p, plan);
        // One GEMM over the image; its tiles go to the threads (results never depend on tiling).
        plan.full = nn::plan_gemm(cout, p.out_spatial(), rows, true, false, nn::gemm_workers(ctx.threads()),
                                  nn::gemm_isa_for_conv(nn::ConvGemmForm::IndexedB));
        plan.prologue_channels = prologue_channels(p.axes[1].stride * plan.small_plane.rows * plan.phase_width);
        plan.scratch_bytes = plan.phases_bytes + nn::scratch_bytes(plan.full);
    } else if (plan.chunk >= p.out_spatial()) {
        // The whole image is one column block: its GEMM's tiles go to the threads (results never
        // depend on tiling), or a batch-1 model's 1x1 convolutions would run on one thread.
        plan.mode = Mode::TiledImage;
        plan.full = plan.tail = nn::plan_gemm(cout, p.out_spatial(), rows, true, false, nn::gemm_workers(ctx.threads()),
                                              nn::gemm_isa_for_conv(nn::ConvGemmForm::PackedB));
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

// The GEMM's B for output columns [first, first + len) of one image: the data itself (pointwise,
// row stride in_spatial) or the im2col block written at the start of `scratch` (row stride len).
template <class T>
const T* column_block(const ConvProblem& p, const GemmConvPlan& plan, const T* xg, int64_t first, int64_t len,
                      std::byte* scratch, int64_t& ldb) {
    if (!plan.im2col) {
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

// Mode::Implicit (f32, packed filters).
void run_implicit(const ConvProblem& p, const GemmConvPlan& plan, const nn::FusedEpilogue& e,
                  const ConvTensors<float>& io, const KernelContext& ctx) {
    using T = float;
    const float* x = io.x;
    float* y = io.y;
    const float* res = io.res;
    const int64_t cin = p.in_per_group, cout = p.out_per_group;
    const int64_t in_spatial = p.in_spatial(), out_spatial = p.out_spatial();
    const int64_t images = p.batch * p.groups;  // (n, g) pairs
    // The image's phase planes live in this thread's scratch and are read by every GEMM
    // tile; the tile tasks make them first, in pieces of channels (SharedPrologue), then
    // each computes its tiles (its own thread's scratch after the planes) and the rest of
    // the epilogue on them.
    auto* phases = static_cast<float*>(ctx.scratch());
    const int64_t pieces = plan.prologue_pieces(cin);
    for (int64_t image = 0; image < images; ++image) {
        const int64_t g = image % p.groups;
        const float* xg = x + image * cin * in_spatial;
        const float* packed = plan.packed.data() + static_cast<size_t>(g) * plan.packed_group_floats;
        const nn::GemmEpilogue epi = e.gemm(nn::GemmEpilogue::BiasAxis::Row, g * cout);
        T* yg = y + image * cout * out_spatial;
        const T* rg = res ? res + image * cout * out_spatial : nullptr;
        const nn::GemmOperand b = nn::GemmOperand::indexed(phases, plan.row_off.data(), plan.col_off.data());
        SharedPrologue prologue(pieces);
        detail::for_chunks(ctx.pool(), plan.full.tiles(), 1, [&](int64_t first, int64_t last) {
            prologue.run([&](int64_t piece) {
                const int64_t c0 = piece * plan.prologue_channels;
                const int64_t c1 = std::min(cin, c0 + plan.prologue_channels);
                cpu::run([&] { make_phases_rows(p, plan, xg, phases, c0, c1); });
            });
            auto* gemm_scratch = static_cast<std::byte*>(ctx.scratch()) + plan.phases_bytes;
            for (int64_t t = first; t < last; ++t) {
                nn::run_gemm_tile(plan.full, t, nn::GemmOperand::prepacked(packed), b, yg, out_spatial, epi,
                                  gemm_scratch);
                const nn::GemmTileRect r = nn::gemm_tile_rect(plan.full, t);
                const int64_t at = r.row * out_spatial + r.col;
                finish_block(e, true, g * cout + r.row, yg + at, rg ? rg + at : nullptr, out_spatial, r.rows,
                             r.cols);
            }
        });
    }
}

// Mode::Transposed (f32, packed filters).
void run_transposed(const ConvProblem& p, const GemmConvPlan& plan, const nn::FusedEpilogue& e,
                    const ConvTensors<float>& io, const KernelContext& ctx) {
    using T = float;
    const float* x = io.x;
    float* y = io.y;
    const float* res = io.res;
    const int64_t cin = p.in_per_group, cout = p.out_per_group;
    const int64_t in_spatial = p.in_spatial(), out_spatial = p.out_spatial();
    const int64_t images = p.batch * p.groups;  // (n, g) pairs
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
    const bool pointwise = !plan.im2col;
    // Im2col without padded planes (not planned for planes this small; kept general): one piece.
    const int64_t pieces = indexed || pointwise ? plan.prologue_pieces(cin) : 1;
    const int64_t taps = p.kernel_size();
    for (int64_t image = 0; image < images; ++image) {
        const int64_t g = image % p.groups;
        const T* xg = x + image * cin * in_spatial;
        const float* packed = plan.packed.data() + static_cast<size_t>(g) * plan.packed_group_floats;
        // C^T's columns are the output channels: a column bias.
        const nn::GemmEpilogue epi = e.gemm(nn::GemmEpilogue::BiasAxis::Column, g * cout);
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
                finish_block(e, true, g * cout + r.col, yg + at, rg ? rg + at : nullptr, out_spatial, r.cols,
                             r.rows);
            }
        });
    }
}

// Mode::TiledImage (f32, packed filters).
void run_tiled_image(const ConvProblem& p, const GemmConvPlan& plan, const nn::FusedEpilogue& e,
                     const ConvTensors<float>& io, const KernelContext& ctx) {
    using T = float;
    const float* x = io.x;
    float* y = io.y;
    const float* res = io.res;
    const int64_t cin = p.in_per_group, cout = p.out_per_group;
    const int64_t in_spatial = p.in_spatial(), out_spatial = p.out_spatial();
    const int64_t images = p.batch * p.groups;  // (n, g) pairs
    // The column block (im2col's, or the data itself) in this thread's scratch, read by the
    // tile tasks, which each use their own thread's scratch after it and apply the rest of
    // the epilogue to their tiles. An im2col from padded planes is made by the tile tasks
    // themselves, in pieces of input channels (SharedPrologue), any other before them.
    auto* mine = static_cast<std::byte*>(ctx.scratch());
    const bool shared_im2col = plan.im2col_in_pieces();
    const int64_t pieces = shared_im2col ? plan.prologue_pieces(cin) : 0;
    for (int64_t image = 0; image < images; ++image) {
        const int64_t g = image % p.groups;
        const T* xg = x + image * cin * in_spatial;
        int64_t ldb = out_spatial;
        const T* b = reinterpret_cast<T*>(mine);
        if (!shared_im2col) b = column_block(p, plan, xg, 0, out_spatial, mine, ldb);
        const float* packed = plan.packed.data() + static_cast<size_t>(g) * plan.packed_group_floats;
        const nn::GemmEpilogue epi = e.gemm(nn::GemmEpilogue::BiasAxis::Row, g * cout);
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
                finish_block(e, true, g * cout + r.row, yg + at, rg ? rg + at : nullptr, out_spatial, r.rows,
                             r.cols);
            }
        });
    }
}

// Mode::Blocked: fixed column blocks, each with its im2col block in its thread's scratch; the
// packed GEMM (f32) or, without packed filters, the plain one.
template <class T>
void run_blocked(const ConvProblem& p, const GemmConvPlan& plan, const nn::FusedEpilogue& e, const ConvTensors<T>& io,
                 const KernelContext& ctx) {
    const T* x = io.x;
    const T* w = io.w;
    T* y = io.y;
    const T* res = io.res;
    const int64_t cin = p.in_per_group, cout = p.out_per_group, rows = p.in_per_group * p.kernel_size();
    const int64_t in_spatial = p.in_spatial(), out_spatial = p.out_spatial();
    const int64_t images = p.batch * p.groups;  // (n, g) pairs
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
            const T* b = column_block(p, plan, xg, first, len, scratch, ldb);
            if constexpr (std::is_same_v<T, float>) {
                if (!plan.packed.empty()) {
                    const nn::GemmPlan& g_plan = first + len == out_spatial && len != plan.chunk ? plan.tail : plan.full;
                    nn::run_gemm(g_plan, nn::GemmOperand::prepacked(plan.packed.data() + static_cast<size_t>(g) * plan.packed_group_floats),
                                 nn::GemmOperand::plain(b, ldb), yg + first, out_spatial,
                                 e.gemm(nn::GemmEpilogue::BiasAxis::Row, g * cout),
                                 scratch + plan.col_bytes);
                    finish_block(e, true, g * cout, yg + first,
                                 res ? res + image * cout * out_spatial + first : nullptr, out_spatial, cout, len);
                    continue;
                }
            }
            const T* wg = w + g * cout * rows;  // the filters, unpacked (never null here)
            nn::gemm<T>(false, false, cout, len, rows, wg, rows, b, ldb, yg + first, out_spatial, false);
        }
    });
}

}  // namespace

GemmConvPlan plan_gemm_conv(const InferContext& ctx, const ConvProblem& p, bool pointwise) {
    GemmConvPlan plan;
    const int64_t rows = p.in_per_group * p.kernel_size();
    const size_t elem = ctx.type(0) == ElementType::f64 ? sizeof(double) : sizeof(float);
    if (pointwise) {
        plan.im2col = false;
        plan.chunk = pointwise_columns(p.out_spatial());
    } else {
        plan.chunk = chunk_columns(rows, p.out_spatial());
        plan.col_bytes = (static_cast<size_t>(rows * plan.chunk) * elem + 63) / 64 * 64;
        if (p.out_spatial() <= kSmallPlanePixels) {
            plan.small_plane = dw_layout(p);
            plan.pad_offset = plan.col_bytes;
            const auto padded = static_cast<size_t>(p.in_per_group * plan.small_plane.rows * plan.small_plane.width + kPadSlack);
            plan.col_bytes += (padded * elem + 63) / 64 * 64;
        }
        plan.scratch_bytes = plan.col_bytes;
    }
    if (ctx.type(0) != ElementType::f64 && ctx.value(1)) pack_filters(ctx, p, plan, rows);
    return plan;
}

const char* gemm_method_name(const GemmConvPlan& plan) {
    switch (plan.mode) {
        case Mode::Implicit: return "gemm-implicit";
        case Mode::Transposed: return "gemm-transposed";
        case Mode::Blocked:
        case Mode::TiledImage: break;
    }
    return plan.im2col ? "im2col-gemm" : "gemm-1x1";
}

template <class T>
void run_gemm(const ConvProblem& p, const GemmConvPlan& plan, const nn::FusedEpilogue& e, const ConvTensors<T>& io,
              const KernelContext& ctx) {
    if constexpr (std::is_same_v<T, float>) {
        switch (plan.mode) {
            case Mode::Implicit: return run_implicit(p, plan, e, io, ctx);
            case Mode::Transposed: return run_transposed(p, plan, e, io, ctx);
            case Mode::TiledImage: return run_tiled_image(p, plan, e, io, ctx);
            case Mode::Blocked: break;
        }
    }
    run_blocked(p, plan, e, io, ctx);
}

template void run_gemm<float>(const ConvProblem&, const GemmConvPlan&, const nn::FusedEpilogue&,
                              const ConvTensors<float>&, const KernelContext&);
template void run_gemm<double>(const ConvProblem&, const GemmConvPlan&, const nn::FusedEpilogue&,
                               const ConvTensors<double>&, const KernelContext&);

}  // namespace irlite::nn::conv
