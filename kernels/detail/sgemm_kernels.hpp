// The GEMM's micro-kernels as its driver (sgemm.cpp) sees them: one table per instruction set,
// each defined in a file of its own (sgemm_portable.cpp, sgemm_avx2.cpp, sgemm_avx512.cpp) from
// the one kernel template (sgemm_microkernels.inl) and that set's vector operations.
#pragma once

#include "kernels/detail/cpu_isa.hpp"
#include "kernels/detail/gemm_activation.hpp"

#include <cstdint>

namespace irlite::nn::sgemm {

inline constexpr int kMaxMr = 12;  // rows of an A panel, at most
inline constexpr int kMaxNr = 32;  // columns of a B panel, at most

// B rows ahead that the wide kernels (tiles of at most 4 rows, IsaParams::wide) prefetch. Such a
// tile (a MatMul of batch 1, a classifier, a transposed convolution of a few pixels) streams its
// prepacked weights once, through several panels at once, and its few multiply-adds per weight
// do not hide the latency of L3 or memory; 16 rows is 1-2 KiB ahead per panel. On an AMD EPYC
// (Zen 5), one thread: MobileNetV2's 1280 -> 1000 classifier 0.095 -> 0.081 ms, ResNet-18's 2x2
// layers 5-8 % faster; 8 or 24 rows ahead were slower.
inline constexpr int64_t kStreamPrefetchRows = 16;

// What a micro-kernel does after the K loop of one block. The kernel computes
//   S = sum over the block of A panel (rows) x B panel (its columns)
// then C = (accumulate ? C + S : S), and when `last`, C = act(C + bias).
struct KernelEpi {
    bool accumulate = false;
    bool last = false;
    const float* row_bias = nullptr;  // bias of the micro-tile's first row, or nullptr
    const float* col_bias = nullptr;  // a float per column of the micro-tile, or nullptr
    GemmActivation act = GemmActivation::None;
    float lo = 0, hi = 0;
};

// kc >= 1; a: packed A panel (its rows' floats per k, `rows` of them used); b: B's row p at
// b + p * ldb (ldb = nr for a packed panel, the matrix's row stride when B is read in place).
// "Wide" kernels for short tiles take P adjacent B panels at once, `bps` floats apart (ignored
// when P == 1). Every kernel sums each element in the same order (k ascending, one accumulator,
// fused multiply-adds on AVX2 and AVX-512, a product then a sum on the portable level), so which
// kernel, panel height or tiling computes an element never changes its value on one level.
using KernelFn = void (*)(int64_t kc, const float* a, const float* b, int64_t ldb, int64_t bps, float* c,
                          int64_t ldc, const KernelEpi& e);
// A panel of an indexed B read in place: its 8-column runs at groups[0], groups[1], ... (nr / 8 of
// them, half as many for a half-width kernel), row p of each shifted by roff[p].
using IndexedKernelFn = void (*)(int64_t kc, const float* a, const int64_t* roff, const float* const* groups,
                                 float* c, int64_t ldc, const KernelEpi& e);
// 4-row A panels against V runs of 8 columns: run v's row p at b[v] + p * ldb, or b[v] + roff[p]
// when roff (an indexed B).
using Rows4Fn = void (*)(int64_t kc, const float* a, const float* const* b, int64_t ldb, const int64_t* roff, float* c,
                         int64_t ldc, const KernelEpi& e);

// One instruction set's register block, K block, tile extents and kernels (nullptr: none).
struct IsaParams {
    int mr, nr;      // rows of an A panel, columns of a B panel
    int64_t kc_max;  // K block
    int64_t mc, nc;  // default tile extents (A block mc x kc in L2, B block kc x nc in L2/L3)
    KernelFn kernels[kMaxMr];  // by rows of the micro-tile - 1
    // For tiles of 1..4 rows: kernels taking wide_panels[rows - 1] B panels at once
    KernelFn wide[4];
    int wide_panels[4];
    IndexedKernelFn indexed[kMaxMr];  // reading an indexed B in place (none: it is gathered)
    // Half-width kernels (nr / 2 columns) for a right edge of at most nr / 2 columns
    KernelFn half[kMaxMr];
    IndexedKernelFn indexed_half[kMaxMr];
    // A in 4-row panels (M a multiple of 4 but not of mr): [indexed][runs - 1], runs of 8 columns
    Rows4Fn rows4[2][3];
};

const IsaParams& portable_params();
#if IRLITE_ISA_X86
const IsaParams& avx2_params();
const IsaParams& avx512_params();
#endif

// Rows of the 4-row A panels (IsaParams::rows4).
inline constexpr int kRows4Mr = 4;

// Scalar activation with the vector kernels' NaN rule (NaN stays NaN).
inline float activate(float x, GemmActivation act, float lo, float hi) {
    switch (act) {
        case GemmActivation::None: return x;
        case GemmActivation::Relu: return 0.0f > x ? 0.0f : x;
        case GemmActivation::Clamp: x = lo > x ? lo : x; return hi < x ? hi : x;
    }
    return x;
}

}  // namespace irlite::nn::sgemm
