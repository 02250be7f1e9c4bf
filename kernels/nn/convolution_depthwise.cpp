// Convolution's depthwise method (kernels/nn/convolution_methods.hpp): 2-D, a group with one input
// channel (MobileNet), planar ("direct"); also the padded-plane layouts other methods share.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "kernels/detail/cpu_isa.hpp"
#include "kernels/detail/parallel.hpp"
#include "kernels/nn/convolution_methods.hpp"
#include "kernels/nn/convolution_padded.hpp"

// The depthwise kernel below passes GCC/clang vector-extension values between functions of this
// file only; without -mavx, compilers warn that such values would change the ABI of an exported
// function. None is exported (anonymous namespace), so the warning does not apply here.
#if defined(__clang__) || defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace irlite::nn::conv {

// ---- depthwise (a group with one input channel), 2-D ------------------------------------------
// The data plane is first copied into scratch with its padding written as zeros (DwLayout), so that
// every output element reads KH x KW real elements: no bounds checks, no border cases. Each output
// row is then made in vector blocks of V columns, the V sums held in one register across all taps
// (kh, kw in order, as the plain loop adds them); the last block of a row overlaps the one before
// it instead of running a scalar tail. Rows narrower than a vector run a scalar loop.
// At a column stride S > 1 the padded rows are stored split by column phase (dw_phase_layout, as
// the implicit GEMM's B: GemmConvPlan::Mode::Implicit), so that the S-strided columns a tap reads
// for V consecutive outputs are V consecutive elements: one plain vector load, no gather or shuffle.

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

namespace {

// dw_rows_vec at 3 x 3 (MobileNets): the 9 weights stay in registers as vectors and 5 blocks are
// made together (5 sums + 9 weights + 1 load: 15 of the 16 vector registers), every loop
// unrolled, so that a tap is one load and a multiply and add per block, with no weight
// broadcast or spilled sum in the loop. Columns of unit stride and dilation (the tap
// columns 0, 1, 2) are address displacements, so the row offsets are the only index
// registers. Same sums in the same order.
// Makes the blocks from `block` on, kBlocks3 at a time while that many are left, each located by
// next(in, out) (dw_rows_vec's cursor); returns the first block not made. tap_w: the taps'
// columns (dw_tap_column), row_step: the padded rows between kernel rows.
template <class T, int V, class Next>
int64_t dw_blocks_3x3(const T* w, const int64_t (&tap_w)[3], int64_t row_step, int64_t block, int64_t total,
                      Next& next) {
    using Vec = typename DwVec<T, V>::type;
    constexpr int kBlocks3 = 5;
    // Through an array: GCC 12 makes that one broadcast at every width, where `w[t] - Vec{}` or a
    // lane-by-lane assignment at 512 bits became 16 masked broadcasts, one per lane.
    const auto splat = [&](int t) -> Vec {
        T lanes[V];
        for (int i = 0; i < V; ++i) lanes[i] = w[t];
        Vec v;
        std::memcpy(&v, lanes, sizeof v);
        return v;
    };
    const Vec wv[9] = {splat(0), splat(1), splat(2), splat(3), splat(4), splat(5), splat(6), splat(7), splat(8)};
    const auto run3 = [&](auto unit_columns) {
        constexpr bool kUnit = decltype(unit_columns)::value;
        const int64_t rs[3] = {0, row_step, 2 * row_step};
        const int64_t cols[3] = {kUnit ? 0 : tap_w[0], kUnit ? 1 : tap_w[1], kUnit ? 2 : tap_w[2]};
        const T* in5[kBlocks3];
        T* out5[kBlocks3];
        for (; block + kBlocks3 <= total; block += kBlocks3) {
#pragma GCC unroll 5
            for (int i = 0; i < kBlocks3; ++i) next(in5[i], out5[i]);
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
    return block;
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
    if constexpr (K == 3) {  // 3 x 3 (MobileNets): dw_blocks_3x3
        auto next = [&](const T*& in_block, T*& out_block) {
            locate(0);
            in_block = in[0];
            out_block = out[0];
        };
        block = dw_blocks_3x3<T, V>(w, tap_w, row_step, block, total, next);
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

// One output plane of a depthwise convolution from the padded data plane `xp` (dw_pad_plane).
template <class T>
void direct_2d(const ConvProblem& p, const DwLayout& l, const T* xp, const T* w, T* y, cpu::Isa isa) {
    constexpr int kWide = 32 / sizeof(T), kNarrow = 16 / sizeof(T);
    const int64_t out_w = p.axes[1].out;
    if constexpr (std::is_same_v<T, float>) {
        // A 512-bit vector of a row where AVX-512 has them (32 registers: dw_blocks_3x3's 15 fit
        // without spilling); below that level a 64-byte vector would be two or four registers.
        if (isa == cpu::Isa::Avx512 && out_w >= 16) return dw_rows_vec<T, 16>(p, l, xp, w, y);
    }
    if (out_w >= kWide) dw_rows_vec<T, kWide>(p, l, xp, w, y);
    else if (out_w >= kNarrow) dw_rows_vec<T, kNarrow>(p, l, xp, w, y);
    else dw_rows_scalar(p, l, xp, w, y);
}

}  // namespace

DepthwisePlan plan_depthwise(const ConvProblem& p, size_t elem) {
    DepthwisePlan plan;
    plan.padded = dw_phase_layout(p);
    plan.scratch_bytes = plan.padded.bytes(elem);
    return plan;
}

template <class T>
void run_depthwise(const ConvProblem& p, const DepthwisePlan& plan, const nn::FusedEpilogue& e,
                   const ConvTensors<T>& io, const KernelContext& ctx) {
    const T* x = io.x;
    const T* w = io.w;
    T* y = io.y;
    const T* res = io.res;
    const int64_t cin = p.in_per_group, cout = p.out_per_group;
    const int64_t in_spatial = p.in_spatial(), out_spatial = p.out_spatial();
    const int64_t images = p.batch * p.groups;  // (n, g) pairs
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
                direct_2d(p, plan.padded, padded, w + (g * cout + j) * p.kernel_size(), y + plane * out_spatial, isa);
            }
        });
        // The epilogue once per run of the chunk's planes within one batch item: consecutive
        // planes are consecutive channels, rows of one block (not one call per plane).
        const int64_t channels = p.groups * cout;
        for (int64_t first = begin; first < end;) {
            const int64_t last = std::min(end, (first / channels + 1) * channels);
            finish_block(e, false, first % channels, y + first * out_spatial,
                         res ? res + first * out_spatial : nullptr, out_spatial, last - first, out_spatial);
            first = last;
        }
    });
}

template void run_depthwise<float>(const ConvProblem&, const DepthwisePlan&, const nn::FusedEpilogue&,
                                   const ConvTensors<float>&, const KernelContext&);
template void run_depthwise<double>(const ConvProblem&, const DepthwisePlan&, const nn::FusedEpilogue&,
                                    const ConvTensors<double>&, const KernelContext&);

}  // namespace irlite::nn::conv
