// The methods of Convolution, GroupConvolution and their backprop ops: what the front
// (kernels/nn/convolution.cpp: attributes, shape rule, method choice, dispatch) shares with the
// file of each method. Internal to kernels/nn/convolution*.cpp.
//
//   method (profile word)                   file                            plan
//   generic N-d im2col / col2im ("generic") convolution_generic.cpp         GenericPlan
//     (every spatial rank; the backprop ops)
//   depthwise, planar ("direct")            convolution_depthwise.cpp       DepthwisePlan
//   depthwise, channels last                convolution_channels_last.cpp   ChannelsLastPlan
//     ("direct-channels-last")
//   2-D GEMM: im2col ("im2col-gemm"), 1x1   convolution_gemm.cpp            GemmConvPlan
//     ("gemm-1x1"), implicit ("gemm-implicit"),
//     transposed ("gemm-transposed")
//   Winograd F(2x2, 3x3) ("winograd")       convolution_winograd.cpp        WinogradPlan
//   int8 ("int8-im2col", "int8-implicit")   convolution_int8.cpp            nn::Int8ConvPlan
//
// Each method plans once (its plan_* function, at prepare: geometry, packed filters and the bytes
// of per-run scratch it needs) and runs allocating nothing (its run_* function, at compute).
// The zero-padded data planes that several methods read are in convolution_padded.hpp.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "kernels/detail/apply_epilogue.hpp"
#include "kernels/detail/nn_common.hpp"
#include "kernels/detail/sgemm.hpp"

namespace irlite::nn::conv {

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

// One run's arrays in the compute type T: the data, the filters (null when the plan holds them
// packed), the result, and the fused residual (f32, the result's shape; null without one).
template <class T>
struct ConvTensors {
    const T* x = nullptr;
    const T* w = nullptr;
    T* y = nullptr;
    const T* res = nullptr;
};

// Columns per im2col block: enough for GEMM to run at speed, few enough that the block stays in
// cache and that a layer splits into several blocks for the threads.
inline int64_t chunk_columns(int64_t rows, int64_t columns) {
    constexpr int64_t kScratchElements = int64_t{1} << 16;  // 256 KiB of f32: the im2col block stays in L2
    const int64_t fit = rows > 0 ? kScratchElements / rows : columns;
    return std::max<int64_t>(1, std::min(columns, std::max<int64_t>(fit, 64)));
}

inline bool is_pointwise(const ConvProblem& p) {
    for (const auto& a : p.axes)
        if (a.kernel != 1 || a.stride != 1 || a.pad_begin != 0 || a.in != a.out) return false;
    return true;
}

// Work is cut so that no result depends on the thread count: depthwise by output plane, GEMM
// paths by fixed column blocks (each block's im2col lives in its thread's scratch).
// The part of a fused epilogue that runs on `rows` output channels from `channel` on, over `cols`
// positions at y (row stride ld; res likewise, or null): everything but what the GEMM did.
template <class T>
void finish_block(const nn::FusedEpilogue& e, bool after_gemm, int64_t channel, T* y, const T* res, int64_t ld,
                  int64_t rows, int64_t cols) {
    if constexpr (std::is_same_v<T, float>) {
        if (!e.active) return;
        if (after_gemm) {
            nn::apply_rest(e, y, ld, rows, cols, res, ld);
        } else {
            nn::apply_block(y, ld, rows, cols, e.bias_at(channel), nullptr,
                            e.residual ? res : nullptr, ld, e.act);
        }
    }
}

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

// The padded plane of a 2-D convolution's data (convolution_depthwise.cpp), and the planar
// depthwise kernels' form of it, split by column phase.
DwLayout dw_layout(const ConvProblem& p);
DwLayout dw_phase_layout(const ConvProblem& p);

// ---- generic: any spatial rank, forward and backprop (convolution_generic.cpp) -------------------
struct GenericPlan {
    bool backprop = false;
    int64_t col_elements = 0;  // the column block at the start of scratch (0: none)
    size_t scratch_bytes = 0;
};
// elem: bytes of the compute type.
GenericPlan plan_generic(const ConvProblem& p, bool backprop, size_t elem);
// T = float or double; `col`: plan.col_elements of scratch.
template <class T>
void run_generic(const ConvProblem& p, const GenericPlan& plan, const ConvTensors<T>& io, T* col);

// ---- depthwise, 2-D, one input channel per group: planar, direct (convolution_depthwise.cpp) -----
struct DepthwisePlan {
    DwLayout padded;  // the zero-padded data plane (dw_phase_layout), in each thread's scratch
    size_t scratch_bytes = 0;
};
DepthwisePlan plan_depthwise(const ConvProblem& p, size_t elem);
// T = float or double.
template <class T>
void run_depthwise(const ConvProblem& p, const DepthwisePlan& plan, const nn::FusedEpilogue& e,
                   const ConvTensors<T>& io, const KernelContext& ctx);

// ---- depthwise on small planes, channels last (convolution_channels_last.cpp) --------------------
// f32, one output per group, small planes: channels last (dw_channels_last_block).
struct ChannelsLastPlan {
    DwLayout padded;                // pixels, not split by phase: a pixel is a vector of channels
    std::vector<float> weights;     // the filters as [tap][channel]
    std::vector<int64_t> pixel_at;  // data pixel (row-major) -> its pixel in the padded layout
    int64_t blocks = 0, block_max = 0;  // channel blocks per image (dw_block_start), the largest
    bool epilogue_in_block = false;     // the fused bias and ReLU / Clamp applied inside the block
    size_t scratch_bytes = 0;
};
// Whether a depthwise convolution (one input and one output channel per group) of data of type
// `type` runs channels last; constant_filters: the filters are known at prepare.
bool channels_last_fits(ElementType type, const ConvProblem& p, bool constant_filters);
ChannelsLastPlan plan_channels_last(const InferContext& ctx, const ConvProblem& p, const nn::FusedEpilogue& e);
void run_channels_last(const ConvProblem& p, const ChannelsLastPlan& plan, const nn::FusedEpilogue& e,
                       const ConvTensors<float>& io, const KernelContext& ctx);

// ---- 2-D convolution as GEMM: im2col, 1x1, implicit, transposed (convolution_gemm.cpp) -----------
struct GemmConvPlan {
    // How the image's GEMM runs (the f32 modes other than Blocked need the filters packed):
    //   Blocked     fixed column blocks of `chunk` columns are the parallel tasks, each with its
    //               im2col block (or the data itself, 1x1) in its thread's scratch;
    //   TiledImage  one column block per image (pointwise or im2col on a plane of at most `chunk`
    //               pixels): the image's GEMM tiles are the parallel tasks instead;
    //   Implicit    im2col without the im2col matrix: the GEMM reads B where it lies (sgemm.hpp's
    //               indexed B) in a copy of the image's data planes, zero-padded and split by
    //               column phase (one plane per remainder of the column modulo stride_w, so that a
    //               stride-2 row of taps is a contiguous run), made in the calling thread's
    //               scratch: phase planes [c][phase][phase_rows][phase_width]. Needs output rows of
    //               whole column groups (out_w % 8 == 0): each group of 8 columns is one run of
    //               data. row_off: per (c, kh, kw), col_off: per group of 8 output positions;
    //   Transposed  fewer output positions than a B panel is wide (2x2, 3x3): the GEMM runs
    //               transposed, C^T[pixels, Cout] = col^T x W^T, so that the short side is the
    //               GEMM's M (its small-M kernels) instead of a mostly empty N panel; `packed` then
    //               holds W^T as the B operand, and C^T lands in scratch after the im2col block
    //               before it is transposed into the output; ct_bytes counts C^T and, after it, A
    //               packed for the GEMM.
    enum class Mode { Blocked, TiledImage, Implicit, Transposed };
    Mode mode = Mode::Blocked;
    bool im2col = true;  // false: a 1x1 stride-1 convolution, the GEMM on the data itself
    int64_t chunk = 0;   // columns per GEMM (Blocked, TiledImage)
    // f32 with constant filters: each group's [Cout, Cin*K] weights packed once, and the GEMM of a
    // full column block and of the last, shorter one.
    std::vector<float> packed;
    size_t packed_group_floats = 0;
    nn::GemmPlan full, tail;
    size_t col_bytes = 0;  // im2col block, at the start of each thread's scratch
    size_t ct_bytes = 0;   // Transposed
    // Transposed im2col on a small plane: A is packed straight from the zero-padded planes
    // (sgemm's pack_a_indexed) instead of im2col then pack: offsets per (c, kh, kw) and per pixel.
    std::vector<int64_t> a_k_off, a_m_off;
    // Im2col on a small plane: the padded planes' layout and where they start in scratch (after
    // the im2col block); pad_offset 0 = the row walk instead.
    DwLayout small_plane;
    size_t pad_offset = 0;
    // Implicit, Transposed, and a one-block im2col from padded planes: the image's shared operand
    // (phase planes; padded planes and packed A or the im2col block) is made by the tile tasks
    // themselves, in pieces of this many input channels (SharedPrologue), instead of by the
    // calling thread before them.
    int64_t prologue_channels = 1;
    int64_t prologue_pieces(int64_t in_channels) const {
        return (in_channels + prologue_channels - 1) / prologue_channels;
    }
    // The one-block path's im2col is such a shared operand (small planes, padded first).
    bool im2col_in_pieces() const { return mode == Mode::TiledImage && im2col && pad_offset; }
    std::vector<int64_t> row_off, col_off;  // Implicit
    int64_t phase_width = 0;
    size_t phases_bytes = 0;
    size_t scratch_bytes = 0;
};
// Packs the filters (f32 compute type, constant filters) and picks the mode.
GemmConvPlan plan_gemm_conv(const InferContext& ctx, const ConvProblem& p, bool pointwise);
// The profile's word for the plan: "gemm-1x1", "im2col-gemm", "gemm-implicit", "gemm-transposed".
const char* gemm_method_name(const GemmConvPlan& plan);
// T = float or double.
template <class T>
void run_gemm(const ConvProblem& p, const GemmConvPlan& plan, const nn::FusedEpilogue& e, const ConvTensors<T>& io,
              const KernelContext& ctx);

// ---- Winograd F(2x2, 3x3) (convolution_winograd.cpp) ---------------------------------------------
// kernels/detail/winograd.hpp: 3x3, stride 1, one group, f32 constant filters, enough channels.
// The image goes in bands of band_rows rows of 2x2 tiles: the input transform V [16][Cin][band
// tiles] and the GEMMs' results M [16][Cout][band tiles] live in the calling thread's scratch
// (v_offset, m_offset); each thread's scratch also holds its padded rows (rows_offset) and its GEMM
// scratch (gemm_offset). The 16 GEMMs' A, the transformed filters, are packed once (u, u_floats
// apiece).
struct WinogradPlan {
    int64_t tiles_h = 0, tiles_w = 0, band_rows = 0;
    nn::GemmPlan full, tail;  // N = a whole band's tiles, and the last band's
    std::vector<float> u;
    size_t u_floats = 0, v_offset = 0, m_offset = 0, rows_offset = 0, gemm_offset = 0;
    size_t scratch_bytes = 0;
};
bool winograd_fits(const InferContext& ctx, const ConvProblem& p);
WinogradPlan plan_winograd(const InferContext& ctx, const ConvProblem& p);
void run_winograd(const ConvProblem& p, const WinogradPlan& plan, const nn::FusedEpilogue& e,
                  const ConvTensors<float>& io, const KernelContext& ctx);

}  // namespace irlite::nn::conv
