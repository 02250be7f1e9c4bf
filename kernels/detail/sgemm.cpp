// Single-precision GEMM: packing, tiling and the micro-kernels (portable, AVX2+FMA, AVX-512F) with
// run-time dispatch. See sgemm.hpp for the contract. The ISA-specific kernels are compiled with
// function target attributes, so this file builds with or without -march flags and picks the kernel
// at run time (plan_gemm records the choice in the plan's layout).
#include "kernels/detail/sgemm.hpp"

#include "kernels/detail/cpu_isa.hpp"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cstring>

// Kernels carry cpu_isa.hpp's target attributes (IRLITE_TARGET_AVX2/AVX512), the same levels as
// every other dispatched kernel.
#define IRLITE_SGEMM_X86 IRLITE_ISA_X86
#if IRLITE_SGEMM_X86
#include <immintrin.h>
#endif

namespace irlite::nn {
namespace {

constexpr int kMaxMr = 12;
constexpr int kMaxNr = 32;
// B rows ahead that the kernels of tiles of at most 4 rows prefetch. Such a tile (a MatMul of batch
// 1, a classifier, a transposed convolution of a few pixels) streams its prepacked weights once,
// through several panels at once, and its few multiply-adds per weight do not hide the latency of
// L3 or memory; 16 rows is 1-2 KiB ahead per panel. On an AMD EPYC (Zen 5), one thread:
// MobileNetV2's 1280 -> 1000 classifier 0.095 -> 0.081 ms, ResNet-18's 2x2 layers 5-8 % faster;
// 8 or 24 rows ahead were slower.
constexpr int64_t kStreamPrefetchRows = 16;
constexpr int kStreamPrefetchMaxRows = 4;
// K block x tile width (floats of B) up to which run_gemm_tile walks a tile's micro-tiles row panel
// by row panel (16 KiB: half of L1, so the B block stays there), when C's rows are at least
// kRowsOuterMinLdc floats (a 4 KiB page) apart.
constexpr int64_t kRowsOuterMaxFloats = 4096;
constexpr int64_t kRowsOuterMinLdc = 1024;

// What a micro-kernel does after the K loop of one block. The kernel computes
//   S = sum over the block of A panel (rows) x B panel (nr columns, all of them)
// then C = (accumulate ? C + S : S), and when `last`, C = act(C + bias).
struct KernelEpi {
    bool accumulate = false;
    bool last = false;
    const float* row_bias = nullptr;  // bias of the micro-tile's first row, or nullptr
    const float* col_bias = nullptr;  // nr floats for the micro-tile's columns, or nullptr
    GemmActivation act = GemmActivation::None;
    float lo = 0, hi = 0;
};

// kc >= 1; a: packed A panel (mr floats per k, `rows` of them used); b: nr floats per k, row stride
// ldb (nr for a packed panel, the matrix's row stride when B is read in place). "Wide" kernels for
// short tiles take P adjacent B panels at once, `bps` floats apart (ignored when P == 1), and write
// `rows` x P*nr of c (row stride ldc). Every kernel sums each element in the same order (k ascending,
// one accumulator), so which kernel computes an element never changes its value.
using KernelFn = void (*)(int64_t kc, const float* a, const float* b, int64_t ldb, int64_t bps, float* c,
                          int64_t ldc, const KernelEpi& e);
// A panel of an indexed B read in place: its 8-column runs at groups[0], groups[1], ... (nr / 8 of
// them, or half as many for a half-width kernel), row p of each shifted by roff[p].
using IndexedKernelFn = void (*)(int64_t kc, const float* a, const int64_t* roff, const float* const* groups,
                                 float* c, int64_t ldc, const KernelEpi& e);

// Scalar activation with the same NaN rule as the vector max/min below (NaN stays NaN).
inline float activate(float x, GemmActivation act, float lo, float hi) {
    switch (act) {
        case GemmActivation::None: return x;
        case GemmActivation::Relu: return 0.0f > x ? 0.0f : x;
        case GemmActivation::Clamp: x = lo > x ? lo : x; return hi < x ? hi : x;
    }
    return x;
}

// ---------------------------------------------------------------------------------------------
// Portable micro-kernel: 4 x 8 on 4-float vectors (SSE2 on any x86-64, NEON on Arm, else scalar).
constexpr int kPortMr = 4, kPortNr = 8;

// GCC/clang vector extension: 4 floats, lowered to SSE, NEON or scalar code as the target allows.
typedef float V4 __attribute__((vector_size(16)));

inline V4 load4(const float* p) {
    V4 v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

template <int ROWS>
void kernel_portable(int64_t kc, const float* a, const float* b, int64_t ldb, int64_t /*bps*/, float* c, int64_t ldc,
                     const KernelEpi& e) {
    V4 acc[ROWS][2];
    for (int r = 0; r < ROWS; ++r) acc[r][0] = acc[r][1] = V4{0, 0, 0, 0};
    for (int64_t p = 0; p < kc; ++p) {
        const V4 b0 = load4(b), b1 = load4(b + 4);
        for (int r = 0; r < ROWS; ++r) {
            const float av = a[r];
            acc[r][0] += av * b0;
            acc[r][1] += av * b1;
        }
        a += kPortMr;
        b += ldb;
    }
    for (int r = 0; r < ROWS; ++r) {
        float* cr = c + r * ldc;
        float sum[kPortNr];
        std::memcpy(sum, acc[r], sizeof sum);
        for (int j = 0; j < kPortNr; ++j) {
            float v = sum[j];
            if (e.accumulate) v = cr[j] + v;
            if (e.last) {
                if (e.row_bias) v = v + e.row_bias[r];
                if (e.col_bias) v = v + e.col_bias[j];
                v = activate(v, e.act, e.lo, e.hi);
            }
            cr[j] = v;
        }
    }
}

#if IRLITE_SGEMM_X86
// ---------------------------------------------------------------------------------------------
// AVX2 + FMA micro-kernel: 6 x 16 (12 accumulators, 2 B loads and 6 broadcasts per k).
constexpr int kAvx2Mr = 6, kAvx2Nr = 16;

IRLITE_TARGET_AVX2 inline __m256 avx2_finish(__m256 v, const float* cptr, const float* col_bias, float row_bias,
                                             bool has_row_bias, const KernelEpi& e) {
    if (e.accumulate) v = _mm256_add_ps(_mm256_loadu_ps(cptr), v);
    if (e.last) {
        if (has_row_bias) v = _mm256_add_ps(v, _mm256_set1_ps(row_bias));
        if (col_bias) v = _mm256_add_ps(v, _mm256_loadu_ps(col_bias));
        if (e.act == GemmActivation::Relu) {
            v = _mm256_max_ps(_mm256_setzero_ps(), v);  // max(0, NaN) = NaN: the second operand wins
        } else if (e.act == GemmActivation::Clamp) {
            v = _mm256_max_ps(_mm256_set1_ps(e.lo), v);
            v = _mm256_min_ps(_mm256_set1_ps(e.hi), v);
        }
    }
    return v;
}

// Writes ROWS x V vectors of sums to c (row stride ldc) through the epilogue.
template <int ROWS, int V>
IRLITE_TARGET_AVX2 inline void avx2_store(const __m256 (&acc)[ROWS][V], float* c, int64_t ldc, const KernelEpi& e) {
#pragma GCC unroll 12
    for (int r = 0; r < ROWS; ++r) {
        float* cr = c + r * ldc;
        const float rb = e.row_bias ? e.row_bias[r] : 0.0f;
        const bool has_rb = e.row_bias != nullptr;
#pragma GCC unroll 8
        for (int v = 0; v < V; ++v)
            _mm256_storeu_ps(cr + 8 * v, avx2_finish(acc[r][v], cr + 8 * v, e.col_bias ? e.col_bias + 8 * v : nullptr,
                                                     rb, has_rb, e));
    }
}

template <int ROWS, int P>
IRLITE_TARGET_AVX2 void kernel_avx2(int64_t kc, const float* a, const float* b, int64_t ldb, int64_t bps, float* c,
                                    int64_t ldc, const KernelEpi& e) {
    constexpr int V = 2 * P;  // vectors per row
    __m256 acc[ROWS][V];
#pragma GCC unroll 16
    for (int r = 0; r < ROWS; ++r)
#pragma GCC unroll 8
        for (int v = 0; v < V; ++v) acc[r][v] = _mm256_setzero_ps();
#pragma GCC unroll 4
    for (int64_t p = 0; p < kc; ++p) {
        __m256 bv[V];
#pragma GCC unroll 8
        for (int v = 0; v < V; ++v) bv[v] = _mm256_loadu_ps(b + (v / 2) * bps + (v % 2) * 8);
        if constexpr (ROWS <= kStreamPrefetchMaxRows) {  // one 64-byte line per panel and row
#pragma GCC unroll 4
            for (int v = 0; v < V; v += 2)
                _mm_prefetch(reinterpret_cast<const char*>(b + (v / 2) * bps + kStreamPrefetchRows * ldb), _MM_HINT_T0);
        }
#pragma GCC unroll 12
        for (int r = 0; r < ROWS; ++r) {
            const __m256 av = _mm256_broadcast_ss(a + r);
#pragma GCC unroll 8
            for (int v = 0; v < V; ++v) acc[r][v] = _mm256_fmadd_ps(av, bv[v], acc[r][v]);
        }
        a += kAvx2Mr;
        b += ldb;
    }
    avx2_store<ROWS, V>(acc, c, ldc, e);
}

static_assert(kAvx2Nr == 2 * kGemmColumnGroup, "an AVX2 B panel is two column groups");

// The 6 x 16 kernel on an indexed B (sgemm.hpp): row p of the two 8-column runs starts at
// b0 + roff[p] and b1 + roff[p]. One more load per k (the offset) than the plain kernel.
template <int ROWS>
IRLITE_TARGET_AVX2 void kernel_avx2_indexed(int64_t kc, const float* a, const int64_t* roff, const float* const* groups,
                                            float* c, int64_t ldc, const KernelEpi& e) {
    const float* b0 = groups[0];
    const float* b1 = groups[1];
    __m256 acc[ROWS][2];
#pragma GCC unroll 16
    for (int r = 0; r < ROWS; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
#pragma GCC unroll 4
    for (int64_t p = 0; p < kc; ++p) {
        const int64_t o = roff[p];
        const __m256 bv0 = _mm256_loadu_ps(b0 + o), bv1 = _mm256_loadu_ps(b1 + o);
#pragma GCC unroll 12
        for (int r = 0; r < ROWS; ++r) {
            const __m256 av = _mm256_broadcast_ss(a + r);
            acc[r][0] = _mm256_fmadd_ps(av, bv0, acc[r][0]);
            acc[r][1] = _mm256_fmadd_ps(av, bv1, acc[r][1]);
        }
        a += kAvx2Mr;
    }
    avx2_store<ROWS, 2>(acc, c, ldc, e);
}

// 4 x 8V kernels on A panels of 4 rows (V <= 3: 4 x 24 holds 12 accumulators, as many as 6 x 16).
// Tiles whose rows are a multiple of 4 but not of 6 (16 output channels, a 4 x 4 or 2 x 2 plane
// as the M of a transposed convolution) then split into 4-row micro-tiles with no remainder,
// where 6-row panels would leave a 4- or 2-row one that runs at half speed or less.
// B is V runs of 8 columns: run v's row p at b[v] + p * ldb, or b[v] + roff[p] when roff (an
// indexed B). Same sums in the same order as every other kernel.
constexpr int kAvx2Mr4 = 4;

template <int V, bool INDEXED>
IRLITE_TARGET_AVX2 void kernel_avx2_4rows(int64_t kc, const float* a, const float* const* b, int64_t ldb,
                                          const int64_t* roff, float* c, int64_t ldc, const KernelEpi& e) {
    __m256 acc[kAvx2Mr4][V];
#pragma GCC unroll 4
    for (int r = 0; r < kAvx2Mr4; ++r)
#pragma GCC unroll 3
        for (int v = 0; v < V; ++v) acc[r][v] = _mm256_setzero_ps();
    const float* bp[V];
#pragma GCC unroll 3
    for (int v = 0; v < V; ++v) bp[v] = b[v];
    int64_t o = 0;
#pragma GCC unroll 4
    for (int64_t p = 0; p < kc; ++p) {
        if constexpr (INDEXED) o = roff[p];
        __m256 bv[V];
#pragma GCC unroll 3
        for (int v = 0; v < V; ++v) bv[v] = _mm256_loadu_ps(bp[v] + o);
#pragma GCC unroll 4
        for (int r = 0; r < kAvx2Mr4; ++r) {
            const __m256 av = _mm256_broadcast_ss(a + r);
#pragma GCC unroll 3
            for (int v = 0; v < V; ++v) acc[r][v] = _mm256_fmadd_ps(av, bv[v], acc[r][v]);
        }
        a += kAvx2Mr4;
        if constexpr (!INDEXED) o += ldb;
    }
    avx2_store<kAvx2Mr4, V>(acc, c, ldc, e);
}

using Rows4Fn = void (*)(int64_t kc, const float* a, const float* const* b, int64_t ldb, const int64_t* roff, float* c,
                         int64_t ldc, const KernelEpi& e);
// [indexed][V - 1]
const Rows4Fn kRows4[2][3] = {{kernel_avx2_4rows<1, false>, kernel_avx2_4rows<2, false>, kernel_avx2_4rows<3, false>},
                              {kernel_avx2_4rows<1, true>, kernel_avx2_4rows<2, true>, kernel_avx2_4rows<3, true>}};

// ---------------------------------------------------------------------------------------------
// AVX-512F micro-kernel: 12 x 32 (24 accumulators, 2 B loads and 12 broadcasts per k).
constexpr int kAvx512Mr = 12, kAvx512Nr = 32;
// Full masks: GCC 12 flags the unmasked _mm512_max_ps/_mm512_min_ps (their _mm512_undefined_ps
// placeholder) as "maybe uninitialized"; the masked forms with every lane set compile to the same vmaxps.
constexpr __mmask16 kAll16 = 0xFFFF;

IRLITE_TARGET_AVX512 inline __m512 avx512_finish(__m512 v, const float* cptr, const float* col_bias,
                                                 float row_bias, bool has_row_bias, const KernelEpi& e) {
    if (e.accumulate) v = _mm512_add_ps(_mm512_loadu_ps(cptr), v);
    if (e.last) {
        if (has_row_bias) v = _mm512_add_ps(v, _mm512_set1_ps(row_bias));
        if (col_bias) v = _mm512_add_ps(v, _mm512_loadu_ps(col_bias));
        if (e.act == GemmActivation::Relu) {
            v = _mm512_mask_max_ps(v, kAll16, _mm512_setzero_ps(), v);
        } else if (e.act == GemmActivation::Clamp) {
            v = _mm512_mask_max_ps(v, kAll16, _mm512_set1_ps(e.lo), v);
            v = _mm512_mask_min_ps(v, kAll16, _mm512_set1_ps(e.hi), v);
        }
    }
    return v;
}

// Writes ROWS x V vectors of sums to c (row stride ldc) through the epilogue.
template <int ROWS, int V>
IRLITE_TARGET_AVX512 inline void avx512_store(const __m512 (&acc)[ROWS][V], float* c, int64_t ldc,
                                              const KernelEpi& e) {
#pragma GCC unroll 12
    for (int r = 0; r < ROWS; ++r) {
        float* cr = c + r * ldc;
        const float rb = e.row_bias ? e.row_bias[r] : 0.0f;
        const bool has_rb = e.row_bias != nullptr;
#pragma GCC unroll 8
        for (int v = 0; v < V; ++v)
            _mm512_storeu_ps(cr + 16 * v, avx512_finish(acc[r][v], cr + 16 * v,
                                                        e.col_bias ? e.col_bias + 16 * v : nullptr, rb, has_rb, e));
    }
}

// ROWS x 16V: V vectors of 16 columns per row, vector v at b + (v / 2) * bps + (v % 2) * 16 (V = 2:
// one full panel; V = 1: the half-width kernel, 16 columns, for an edge of at most 16 columns,
// e.g. the 16 pixels of a 4 x 4 plane, which a full panel would compute half of in vain; V = 4
// or 8: the wide kernels, 2 or 4 adjacent panels).
template <int ROWS, int V>
IRLITE_TARGET_AVX512 void kernel_avx512(int64_t kc, const float* a, const float* b, int64_t ldb, int64_t bps,
                                        float* c, int64_t ldc, const KernelEpi& e) {
    __m512 acc[ROWS][V];
#pragma GCC unroll 16
    for (int r = 0; r < ROWS; ++r)
#pragma GCC unroll 8
        for (int v = 0; v < V; ++v) acc[r][v] = _mm512_setzero_ps();
#pragma GCC unroll 2
    for (int64_t p = 0; p < kc; ++p) {
        __m512 bv[V];
#pragma GCC unroll 8
        for (int v = 0; v < V; ++v) bv[v] = _mm512_loadu_ps(b + (v / 2) * bps + (v % 2) * 16);
        if constexpr (ROWS <= kStreamPrefetchMaxRows) {
#pragma GCC unroll 8
            for (int v = 0; v < V; ++v)
                _mm_prefetch(reinterpret_cast<const char*>(b + (v / 2) * bps + (v % 2) * 16 + kStreamPrefetchRows * ldb),
                             _MM_HINT_T0);
        }
#pragma GCC unroll 12
        for (int r = 0; r < ROWS; ++r) {
            const __m512 av = _mm512_set1_ps(a[r]);
#pragma GCC unroll 8
            for (int v = 0; v < V; ++v) acc[r][v] = _mm512_fmadd_ps(av, bv[v], acc[r][v]);
        }
        a += kAvx512Mr;
        b += ldb;
    }
    avx512_store<ROWS, V>(acc, c, ldc, e);
}

// The ROWS x 16V kernel on an indexed B (sgemm.hpp) read where it lies: vector v of row p joins
// the 8-column runs at groups[2v] + roff[p] and groups[2v + 1] + roff[p]. Gathering the runs
// into packed panels first (a copy per run, per row, per tile) cost more than the multiply-adds
// on the small planes of real models.
template <int ROWS, int V>
IRLITE_TARGET_AVX512 void kernel_avx512_indexed(int64_t kc, const float* a, const int64_t* roff,
                                                const float* const* groups, float* c, int64_t ldc,
                                                const KernelEpi& e) {
    const float* g[2 * V];
#pragma GCC unroll 4
    for (int v = 0; v < 2 * V; ++v) g[v] = groups[v];
    __m512 acc[ROWS][V];
#pragma GCC unroll 16
    for (int r = 0; r < ROWS; ++r)
#pragma GCC unroll 2
        for (int v = 0; v < V; ++v) acc[r][v] = _mm512_setzero_ps();
#pragma GCC unroll 2
    for (int64_t p = 0; p < kc; ++p) {
        const int64_t o = roff[p];
        __m512 bv[V];
#pragma GCC unroll 2
        for (int v = 0; v < V; ++v)
            bv[v] = _mm512_insertf32x8(_mm512_castps256_ps512(_mm256_loadu_ps(g[2 * v] + o)),
                                       _mm256_loadu_ps(g[2 * v + 1] + o), 1);
#pragma GCC unroll 12
        for (int r = 0; r < ROWS; ++r) {
            const __m512 av = _mm512_set1_ps(a[r]);
#pragma GCC unroll 2
            for (int v = 0; v < V; ++v) acc[r][v] = _mm512_fmadd_ps(av, bv[v], acc[r][v]);
        }
        a += kAvx512Mr;
    }
    avx512_store<ROWS, V>(acc, c, ldc, e);
}
#endif  // IRLITE_SGEMM_X86

// ---------------------------------------------------------------------------------------------
// Per-ISA parameters: register block, K block, tile extents, kernels by row count, and the wide
// kernels for tiles of at most 4 rows (nullptr: none) with the number of panels they take.
struct IsaParams {
    int mr, nr;
    int64_t kc_max;  // K block
    int64_t mc, nc;  // default tile extents (A block mc x kc in L2, B block kc x nc in L2/L3)
    KernelFn kernels[kMaxMr];
    KernelFn wide[4];
    int wide_panels[4];
    IndexedKernelFn indexed[kMaxMr];  // kernels reading an indexed B in place (nullptr: gather it)
    // Half-width kernels (nr / 2 columns) for a right edge of at most nr / 2 columns (nullptr: none)
    KernelFn half[kMaxMr];
    IndexedKernelFn indexed_half[kMaxMr];
};

const IsaParams kPortable = {kPortMr,
                             kPortNr,
                             256,
                             64,
                             1024,
                             {kernel_portable<1>, kernel_portable<2>, kernel_portable<3>, kernel_portable<4>},
                             {},
                             {},
                             {},
                             {},
                             {}};
#if IRLITE_SGEMM_X86
const IsaParams kAvx2 = {kAvx2Mr,
                         kAvx2Nr,
                         256,
                         144,
                         1024,
                         {kernel_avx2<1, 1>, kernel_avx2<2, 1>, kernel_avx2<3, 1>, kernel_avx2<4, 1>,
                          kernel_avx2<5, 1>, kernel_avx2<6, 1>},
                         {kernel_avx2<1, 4>, kernel_avx2<2, 2>, nullptr, nullptr},
                         {4, 2, 1, 1},
                         {kernel_avx2_indexed<1>, kernel_avx2_indexed<2>, kernel_avx2_indexed<3>,
                          kernel_avx2_indexed<4>, kernel_avx2_indexed<5>, kernel_avx2_indexed<6>},
                         {},
                         {}};
const IsaParams kAvx512 = {kAvx512Mr,
                           kAvx512Nr,
                           256,
                           144,
                           1024,
                           {kernel_avx512<1, 2>, kernel_avx512<2, 2>, kernel_avx512<3, 2>, kernel_avx512<4, 2>,
                            kernel_avx512<5, 2>, kernel_avx512<6, 2>, kernel_avx512<7, 2>, kernel_avx512<8, 2>,
                            kernel_avx512<9, 2>, kernel_avx512<10, 2>, kernel_avx512<11, 2>, kernel_avx512<12, 2>},
                           {kernel_avx512<1, 8>, kernel_avx512<2, 4>, kernel_avx512<3, 4>, kernel_avx512<4, 4>},
                           {4, 2, 2, 2},
                           {kernel_avx512_indexed<1, 2>, kernel_avx512_indexed<2, 2>, kernel_avx512_indexed<3, 2>,
                            kernel_avx512_indexed<4, 2>, kernel_avx512_indexed<5, 2>, kernel_avx512_indexed<6, 2>,
                            kernel_avx512_indexed<7, 2>, kernel_avx512_indexed<8, 2>, kernel_avx512_indexed<9, 2>,
                            kernel_avx512_indexed<10, 2>, kernel_avx512_indexed<11, 2>, kernel_avx512_indexed<12, 2>},
                           {kernel_avx512<1, 1>, kernel_avx512<2, 1>, kernel_avx512<3, 1>, kernel_avx512<4, 1>,
                            kernel_avx512<5, 1>, kernel_avx512<6, 1>, kernel_avx512<7, 1>, kernel_avx512<8, 1>,
                            kernel_avx512<9, 1>, kernel_avx512<10, 1>, kernel_avx512<11, 1>, kernel_avx512<12, 1>},
                           {kernel_avx512_indexed<1, 1>, kernel_avx512_indexed<2, 1>, kernel_avx512_indexed<3, 1>,
                            kernel_avx512_indexed<4, 1>, kernel_avx512_indexed<5, 1>, kernel_avx512_indexed<6, 1>,
                            kernel_avx512_indexed<7, 1>, kernel_avx512_indexed<8, 1>, kernel_avx512_indexed<9, 1>,
                            kernel_avx512_indexed<10, 1>, kernel_avx512_indexed<11, 1>, kernel_avx512_indexed<12, 1>}};
#endif

const IsaParams& params(GemmIsa isa) {
#if IRLITE_SGEMM_X86
    if (isa == GemmIsa::Avx512) return kAvx512;
    if (isa == GemmIsa::Avx2) return kAvx2;
#endif
    (void)isa;
    return kPortable;
}

// -1: not forced; otherwise the forced GemmIsa.
std::atomic<int> g_forced_isa{-1};

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t round_up(int64_t a, int64_t b) { return ceil_div(a, b) * b; }

// ---------------------------------------------------------------------------------------------
// Packing. A panel is kcb rows of W floats (W = mr or nr); x < w are taken from the source, the
// rest are zeros. Two source shapes: element (p, x) at src[p*ld + x] ("rows", contiguous in x) or at
// src[x*ld + p] ("cols", contiguous in p). W is a compile-time constant so the copies unroll.
template <int W>
void panel_rows(const float* src, int64_t ld, int w, int64_t kcb, float* out) {
    if (w == W) {
        for (int64_t p = 0; p < kcb; ++p, src += ld, out += W) {
            float tmp[W];
            for (int x = 0; x < W; ++x) tmp[x] = src[x];
            for (int x = 0; x < W; ++x) out[x] = tmp[x];
        }
    } else {
        for (int64_t p = 0; p < kcb; ++p, src += ld, out += W) {
            for (int x = 0; x < w; ++x) out[x] = src[x];
            for (int x = w; x < W; ++x) out[x] = 0.0f;
        }
    }
}

template <int W>
void panel_cols(const float* src, int64_t ld, int w, int64_t kcb, float* out) {
    if (w == W) {
        // Blocks of 8 k: W short contiguous reads, written into one 8*W stretch.
        int64_t p = 0;
        for (; p + 8 <= kcb; p += 8) {
            float* o = out + p * W;
            for (int x = 0; x < W; ++x) {
                const float* s = src + x * ld + p;
                for (int q = 0; q < 8; ++q) o[q * W + x] = s[q];
            }
        }
        for (; p < kcb; ++p)
            for (int x = 0; x < W; ++x) out[p * W + x] = src[x * ld + p];
    } else {
        for (int x = 0; x < w; ++x)
            for (int64_t p = 0; p < kcb; ++p) out[p * W + x] = src[x * ld + p];
        for (int x = w; x < W; ++x)
            for (int64_t p = 0; p < kcb; ++p) out[p * W + x] = 0.0f;
    }
}

// Panels of width W covering `count` of x from x0, k [p0, p0+kcb): x_major says element (p, x) is at
// src[x*ld + p] (A stored m x k, or B stored n x k), otherwise at src[p*ld + x].
template <int W>
void pack_panels_w(const float* src, int64_t ld, bool x_major, int64_t x0, int64_t count, int64_t p0, int64_t kcb,
                   float* out, int64_t panel_floats) {
    for (int64_t x = 0; x < count; x += W, out += panel_floats) {
        const int w = static_cast<int>(std::min<int64_t>(W, count - x));
        if (x_major) panel_cols<W>(src + (x0 + x) * ld + p0, ld, w, kcb, out);
        else panel_rows<W>(src + p0 * ld + x0 + x, ld, w, kcb, out);
    }
}

// panel_floats: where panel x / width starts after panel x / width - 1 (width * kcb, or the
// panels' full height when only some of their K rows are packed).
void pack_panels(int width, const float* src, int64_t ld, bool x_major, int64_t x0, int64_t count, int64_t p0,
                 int64_t kcb, float* out, int64_t panel_floats = 0) {
    if (panel_floats == 0) panel_floats = width * kcb;
    switch (width) {
        case 4: return pack_panels_w<4>(src, ld, x_major, x0, count, p0, kcb, out, panel_floats);
        case 6: return pack_panels_w<6>(src, ld, x_major, x0, count, p0, kcb, out, panel_floats);
        case 8: return pack_panels_w<8>(src, ld, x_major, x0, count, p0, kcb, out, panel_floats);
        case 12: return pack_panels_w<12>(src, ld, x_major, x0, count, p0, kcb, out, panel_floats);
        case 16: return pack_panels_w<16>(src, ld, x_major, x0, count, p0, kcb, out, panel_floats);
        case 32: return pack_panels_w<32>(src, ld, x_major, x0, count, p0, kcb, out, panel_floats);
        default: break;
    }
}

// A block: rows [i0, i0+rows) x k [p0, p0+kcb) into ceil(rows/mr) panels of kcb x mr.
void pack_a_block(const float* a, int64_t lda, bool trans, int64_t i0, int64_t rows, int64_t p0, int64_t kcb, int mr,
                  float* out) {
    pack_panels(mr, a, lda, !trans, i0, rows, p0, kcb, out);
}

// B block: columns [j0, j0+cols) x k [p0, p0+kcb) into ceil(cols/nr) panels of kcb x nr.
void pack_b_block(const float* b, int64_t ldb, bool trans, int64_t j0, int64_t cols, int64_t p0, int64_t kcb, int nr,
                  float* out) {
    pack_panels(nr, b, ldb, trans, j0, cols, p0, kcb, out);
}

// Indexed B (sgemm.hpp): columns [j0, j0+cols) x k [p0, p0+kcb) gathered into ceil(cols/nr) panels
// of kcb x nr, zeros past the last column.
void pack_b_indexed(const GemmOperand& b, int64_t j0, int64_t cols, int64_t p0, int64_t kcb, int nr, float* out) {
    constexpr int64_t G = kGemmColumnGroup;
    for (int64_t x = 0; x < cols; x += nr, out += nr * kcb) {
        const int64_t w = std::min<int64_t>(nr, cols - x);
        for (int64_t p = 0; p < kcb; ++p) {
            const float* row = b.data + b.row_off[p0 + p];
            float* o = out + p * nr;
            int64_t j = 0;
            while (j < w) {  // runs of up to G columns within one column group
                const int64_t col = j0 + x + j, in_group = col % G;
                const int64_t run = std::min(G - in_group, w - j);
                std::memcpy(o + j, row + b.col_off[col / G] + in_group, sizeof(float) * static_cast<size_t>(run));
                j += run;
            }
            std::fill(o + w, o + nr, 0.0f);
        }
    }
}

float* align64(void* p) {
    const auto v = reinterpret_cast<uintptr_t>(p);
    return reinterpret_cast<float*>((v + 63) & ~static_cast<uintptr_t>(63));
}

}  // namespace

// -------------------------------------------------------------------------------------------------
// ISA selection.

bool gemm_isa_supported(GemmIsa isa) {
    // The enums share their order (sse/portable, avx2, avx512).
    return cpu::isa_supported(static_cast<cpu::Isa>(static_cast<int>(isa)));
}

GemmIsa gemm_detected_isa() {
    static const GemmIsa detected = [] {
        if (gemm_isa_supported(GemmIsa::Avx512)) return GemmIsa::Avx512;
        if (gemm_isa_supported(GemmIsa::Avx2)) return GemmIsa::Avx2;
        return GemmIsa::Portable;
    }();
    return detected;
}

GemmIsa gemm_default_isa() {
    const int forced = g_forced_isa.load(std::memory_order_relaxed);
    if (forced >= 0) return static_cast<GemmIsa>(forced);
    // The level every other dispatched kernel runs at (cpu_isa.hpp: the CPU's, capped by
    // IRLITE_ISA), and never above what this file's kernels may use here. The enums share order.
    const auto level = static_cast<GemmIsa>(static_cast<int>(cpu::active_isa()));
    return std::min(level, gemm_detected_isa());
}

GemmIsa gemm_isa_for(int64_t columns, bool a_prepacked) {
    constexpr int64_t kAvx512MinColumns = 2 * kAvx512Nr;
    const GemmIsa isa = gemm_default_isa();
    return !a_prepacked && columns < kAvx512MinColumns ? std::min(isa, GemmIsa::Avx2) : isa;
}

void set_gemm_isa_for_testing(GemmIsa isa) {
    g_forced_isa.store(gemm_isa_supported(isa) ? static_cast<int>(isa) : static_cast<int>(GemmIsa::Portable),
                       std::memory_order_relaxed);
}
void reset_gemm_isa_for_testing() { g_forced_isa.store(-1, std::memory_order_relaxed); }

const char* gemm_isa_name(GemmIsa isa) {
    switch (isa) {
        case GemmIsa::Portable: return "portable";
        case GemmIsa::Avx2: return "avx2";
        case GemmIsa::Avx512: return "avx512";
    }
    return "?";
}

// -------------------------------------------------------------------------------------------------
// Layout and packing of whole operands.

GemmLayout gemm_layout(int64_t k, GemmIsa isa) {
    if (!gemm_isa_supported(isa)) isa = GemmIsa::Portable;
    const IsaParams& ip = params(isa);
    GemmLayout l;
    l.isa = isa;
    l.mr = ip.mr;
    l.nr = ip.nr;
    l.k = std::max<int64_t>(k, 0);
    // Equal blocks no longer than kc_max (a short last block would waste the loop overhead).
    const int64_t blocks = std::max<int64_t>(1, ceil_div(l.k, ip.kc_max));
    l.kc = std::max<int64_t>(1, ceil_div(l.k, blocks));
    return l;
}

// Whole-operand layout: K block b (size kcb) starts at b*kc*padded; within it, panels of kcb x mr/nr.
size_t packed_b_floats(const GemmLayout& l, int64_t n) {
    return static_cast<size_t>(round_up(std::max<int64_t>(n, 0), l.nr) * l.k);
}

size_t packed_a_floats(const GemmPlan& plan) {
    return static_cast<size_t>(round_up(plan.m, plan.a_mr) * plan.layout.k);
}

void pack_a(const GemmPlan& plan, const float* a, int64_t lda, bool trans, float* out) {
    pack_a(plan, a, lda, trans, out, 0, plan.layout.k);
}

// The K blocks of packed A that rows [k_begin, k_end) of K touch: fn(p0, kcb, q0, q1, blk) per
// block, p0 its first row, kcb its height, [q0, q1) the rows to pack in it, blk where it starts.
template <class Fn>
void for_a_blocks(const GemmPlan& plan, float* out, int64_t k_begin, int64_t k_end, const Fn& fn) {
    const GemmLayout& l = plan.layout;
    const int64_t mp = round_up(plan.m, plan.a_mr);
    k_begin = std::max<int64_t>(k_begin, 0);
    k_end = std::min(k_end, l.k);
    for (int64_t p0 = k_begin / l.kc * l.kc; p0 < k_end; p0 += l.kc) {
        const int64_t kcb = std::min(l.kc, l.k - p0);
        fn(p0, kcb, std::max(p0, k_begin), std::min(p0 + kcb, k_end), out + p0 * mp);
    }
}

void pack_a(const GemmPlan& plan, const float* a, int64_t lda, bool trans, float* out, int64_t k_begin, int64_t k_end) {
    const int mr = plan.a_mr;
    for_a_blocks(plan, out, k_begin, k_end, [&](int64_t p0, int64_t kcb, int64_t q0, int64_t q1, float* blk) {
        // Rows q0.. of each panel of the block (panels kcb rows tall).
        pack_panels(mr, a, lda, !trans, 0, plan.m, q0, q1 - q0, blk + (q0 - p0) * mr, mr * kcb);
    });
}

void pack_a_indexed(const GemmPlan& plan, const float* data, const int64_t* k_off, const int64_t* m_off, float* out) {
    pack_a_indexed(plan, data, k_off, m_off, out, 0, plan.layout.k);
}

void pack_a_indexed(const GemmPlan& plan, const float* data, const int64_t* k_off, const int64_t* m_off, float* out,
                    int64_t k_begin, int64_t k_end) {
    const int mr = plan.a_mr;
    for_a_blocks(plan, out, k_begin, k_end, [&](int64_t p0, int64_t kcb, int64_t q0, int64_t q1, float* blk) {
        for (int64_t i0 = 0; i0 < plan.m; i0 += mr) {
            const int h = static_cast<int>(std::min<int64_t>(mr, plan.m - i0));
            float* panel = blk + i0 * kcb;  // row p of the panel at panel + (p - p0) * mr
            const int64_t* mo = m_off + i0;
            bool run = h == mr;  // the panel's rows are consecutive elements: one copy per k
            for (int r = 1; r < h && run; ++r) run = mo[r] == mo[0] + r;
            if (run && mr == 4) {  // a fixed size: inlined moves, not a memcpy call per k
                for (int64_t p = q0; p < q1; ++p) std::memcpy(panel + (p - p0) * 4, data + k_off[p] + mo[0], 4 * sizeof(float));
            } else if (run && mr == 6) {
                for (int64_t p = q0; p < q1; ++p) std::memcpy(panel + (p - p0) * 6, data + k_off[p] + mo[0], 6 * sizeof(float));
            } else if (h == 4 && mr == 4) {
                // Four gathered rows (a 2 x 2 plane): the offsets held in registers, not reloaded per k.
                const int64_t m0 = mo[0], m1 = mo[1], m2 = mo[2], m3 = mo[3];
                for (int64_t p = q0; p < q1; ++p) {
                    const float* src = data + k_off[p];
                    float* o = panel + (p - p0) * 4;
                    const float v0 = src[m0], v1 = src[m1], v2 = src[m2], v3 = src[m3];
                    o[0] = v0, o[1] = v1, o[2] = v2, o[3] = v3;
                }
            } else {
                for (int64_t p = q0; p < q1; ++p) {
                    const float* src = data + k_off[p];
                    float* o = panel + (p - p0) * mr;
                    for (int r = 0; r < h; ++r) o[r] = src[mo[r]];
                    for (int r = h; r < mr; ++r) o[r] = 0.0f;
                }
            }
        }
    });
}

void pack_b(const GemmLayout& l, const float* b, int64_t ldb, bool trans, int64_t n, float* out) {
    const int64_t np = round_up(n, l.nr);
    for (int64_t p0 = 0; p0 < l.k; p0 += l.kc) {
        const int64_t kcb = std::min(l.kc, l.k - p0);
        pack_b_block(b, ldb, trans, 0, n, p0, kcb, l.nr, out + p0 * np);
    }
}

// -------------------------------------------------------------------------------------------------
// Planning.

namespace {

constexpr int kMaxBalancedWorkers = 16;
constexpr int64_t kMaxBalancedGrids = 256;

// When `workers` workers take the tiles of an m x n grid of mc x nc tiles in order, each the next
// one as soon as it is free (the thread pool's dynamic claiming), with time proportional to a
// tile's area: when the last one finishes.
int64_t finish_time(int64_t m, int64_t n, int64_t mc, int64_t nc, int workers) {
    int64_t load[kMaxBalancedWorkers] = {};
    const int64_t tm = ceil_div(m, mc), tn = ceil_div(n, nc);
    for (int64_t t = 0; t < tm * tn; ++t) {
        const int64_t rows = std::min(mc, m - t / tn * mc), cols = std::min(nc, n - t % tn * nc);
        int64_t* next = std::min_element(load, load + workers);
        *next += rows * cols;
    }
    return *std::max_element(load, load + workers);
}

// The grid for several workers (see plan_gemm): from about the halving's tile counts, every count
// of tiles along M (at least m / mc_max, A blocks within L2) and N (B blocks at least 4 panels wide
// unless N is narrower) up to 2 * workers more, tiles of whole panels and of 8k multiply-adds or
// more, at least `workers` of them.
void balance_tiles(int64_t m, int64_t n, int64_t k, int64_t mr, int64_t nr, int64_t mc_max, int workers, int64_t& mc,
                   int64_t& nc) {
    const auto cut = [](int64_t extent, int64_t panel, int64_t t) { return round_up(ceil_div(extent, t), panel); };
    const int64_t tm0 = ceil_div(m, mc), tn0 = ceil_div(n, nc);
    // Large grids are left as they are: claimed dynamically, many tiles even out by themselves,
    // and the search (grids x tiles x workers) would cost more than a plan should.
    if ((tm0 + 2 * workers) * (tn0 + 2 * workers) > kMaxBalancedGrids) return;
    const int64_t nc_min = std::min(4 * nr, round_up(n, nr));
    int64_t best = finish_time(m, n, mc, nc, workers), best_tiles = tm0 * tn0;
    for (int64_t tm = ceil_div(m, mc_max); tm <= tm0 + 2 * workers; ++tm) {
        const int64_t mcv = cut(m, mr, tm);
        if (ceil_div(m, mcv) != tm) continue;  // each count once
        for (int64_t tn = 1; tn <= tn0 + 2 * workers; ++tn) {
            const int64_t ncv = cut(n, nr, tn);
            if (ceil_div(n, ncv) != tn || ncv < nc_min || tm * tn < workers) continue;
            if (mcv * ncv * k < (int64_t{1} << 13)) continue;
            const int64_t t = finish_time(m, n, mcv, ncv, workers);
            if (t < best || (t == best && tm * tn < best_tiles)) {
                best = t;
                best_tiles = tm * tn;
                mc = mcv;
                nc = ncv;
            }
        }
    }
}

}  // namespace

GemmPlan plan_gemm(int64_t m, int64_t n, int64_t k, bool a_prepacked, bool b_prepacked, int workers,
                   GemmIsa isa) {
    GemmPlan plan;
    plan.m = std::max<int64_t>(m, 0);
    plan.n = std::max<int64_t>(n, 0);
    plan.k = std::max<int64_t>(k, 0);
    plan.layout = gemm_layout(plan.k, isa);
    plan.a_prepacked = a_prepacked;
    plan.b_prepacked = b_prepacked;
    const IsaParams& ip = params(plan.layout.isa);
    plan.a_mr = ip.mr;
#if IRLITE_SGEMM_X86
    if (plan.layout.isa == GemmIsa::Avx2 && a_prepacked && plan.m % kAvx2Mr4 == 0 && plan.m % ip.mr != 0 &&
        plan.m <= 64)
        plan.a_mr = kAvx2Mr4;
#endif
    const int64_t mr = plan.a_mr, nr = ip.nr;
    int64_t mc = std::min(ip.mc, round_up(std::max<int64_t>(plan.m, 1), mr));
    int64_t nc = std::min(ip.nc, round_up(std::max<int64_t>(plan.n, 1), nr));
    // More workers: cut tiles until there are about two per worker, but keep them worth a task
    // (at least 4 B panels wide, 2 A panels tall, and some 16k multiply-adds: about half a
    // microsecond, several times what a task costs the thread pool; MobileNetV2's 1x1 convolutions
    // of a few microseconds gain from two threads at this grain, 3.8 -> 2.8 us for 32 -> 192 on 4x4).
    const int64_t want = workers > 1 ? 2 * static_cast<int64_t>(workers) : 1;
    auto count = [&](int64_t mcv, int64_t ncv) { return ceil_div(plan.m, mcv) * ceil_div(plan.n, ncv); };
    while (count(mc, nc) < want) {
        const int64_t nc2 = round_up(nc / 2, nr), mc2 = round_up(mc / 2, mr);
        const bool can_n = nc2 < nc && nc2 >= 4 * nr;
        const bool can_m = mc2 < mc && mc2 >= 2 * mr;
        if (!can_n && !can_m) break;
        const int64_t next_mc = can_n ? mc : mc2, next_nc = can_n ? nc2 : nc;
        if (next_mc * next_nc * std::max<int64_t>(plan.k, 1) < (int64_t{1} << 14)) break;
        mc = next_mc;
        nc = next_nc;
    }
    // Several workers: the tile grid near this one under which the workers finish first, taking
    // the tiles in order as they do (whole panels per tile, A blocks still within mc_max, tiles
    // still worth a task; fewer tiles on a tie). Halving alone left uneven grids: SqueezeNet's
    // 1000-row classifier made 7 tiles of 144 rows, and on 2 threads one thread ran 4 while the
    // other waited after 3; a 128-row layer made tiles of 36, 36, 36 and 20 rows.
    if (workers > 1 && workers <= kMaxBalancedWorkers && plan.m > 0 && plan.n > 0)
        balance_tiles(plan.m, plan.n, std::max<int64_t>(plan.k, 1), mr, nr, ip.mc, workers, mc, nc);
    plan.mc = mc;
    plan.nc = nc;
    plan.tiles_m = ceil_div(plan.m, mc);
    plan.tiles_n = ceil_div(plan.n, nc);
    if (plan.m == 0 || plan.n == 0) plan.tiles_m = plan.tiles_n = 0;
    size_t floats = 0;
    if (plan.k > 0) {
        if (!a_prepacked) floats += static_cast<size_t>(mc * plan.layout.kc);
        if (!b_prepacked) floats += static_cast<size_t>(nc * plan.layout.kc);
    }
    plan.scratch_bytes = floats ? floats * sizeof(float) + 128 : 0;  // + alignment slack for two buffers
    return plan;
}

// -------------------------------------------------------------------------------------------------
// Execution.

void run_gemm_tile_to(const GemmPlan& plan, int64_t tile, const GemmOperand& a, const GemmOperand& b, float* c,
                      int64_t ldc, const GemmEpilogue& ep, void* scratch) {
    assert(tile >= 0 && tile < plan.tiles());
    assert(a.packed == plan.a_prepacked && b.packed == plan.b_prepacked);  // scratch is sized by the plan
    const GemmLayout& l = plan.layout;
    const int64_t tm = tile / plan.tiles_n, tn = tile % plan.tiles_n;
    const int64_t i0 = tm * plan.mc, rows = std::min(plan.mc, plan.m - i0);
    const int64_t j0 = tn * plan.nc, cols = std::min(plan.nc, plan.n - j0);
    const bool row_bias = ep.bias && ep.axis == GemmEpilogue::BiasAxis::Row;
    const bool col_bias = ep.bias && ep.axis == GemmEpilogue::BiasAxis::Column;

    if (plan.k == 0) {  // an empty sum: act(0 + bias)
        for (int64_t i = 0; i < rows; ++i) {
            float* cr = c + i * ldc;
            for (int64_t j = 0; j < cols; ++j) {
                float v = 0.0f;
                if (row_bias) v = v + ep.bias[i0 + i];
                if (col_bias) v = v + ep.bias[j0 + j];
                cr[j] = activate(v, ep.act, ep.lo, ep.hi);
            }
        }
        return;
    }

    const IsaParams& ip = params(l.isa);
    const int mr = l.mr, nr = l.nr;
    const int64_t mp = round_up(plan.m, plan.a_mr), np = round_up(plan.n, nr);
    float* a_buf = nullptr;
    float* b_buf = nullptr;
    if (!a.packed) a_buf = align64(scratch);
    if (!b.packed) b_buf = align64(a_buf ? static_cast<void*>(a_buf + plan.mc * l.kc) : scratch);

    // B stored k x n is read in place, without packing (same arithmetic, so the same results), when
    // packing would cost about as much as the multiply-adds it feeds: each B panel serves at most two
    // micro-tiles (a short tile), or K blocks are short. Otherwise only when the row stride is not a
    // multiple of 4 KiB: such strides map a panel's rows onto a few cache sets and thrash L1/L2.
    const bool b_indexed = b.is_indexed();
    const bool b_in_place =
        !b_indexed && !b.packed && !b.trans && (rows <= 2 * mr || l.kc <= 48 || b.ld % 1024 != 0);
    // An indexed B is read in place by kernels that can (AVX2, AVX-512), otherwise gathered block by block.
    const bool b_indexed_direct = b_indexed && ip.indexed[0] != nullptr;
    assert(!b_indexed || j0 % kGemmColumnGroup == 0);

#if IRLITE_SGEMM_X86
    // A packed here with rows a multiple of 4 but not of 6: 4-row panels and micro-tiles (see
    // kernel_avx2_4rows). Up to a few panels: on taller tiles the 6-row remainder is a small share.
    // A prepacked in 4-row panels (plan.a_mr) always runs them.
    const bool rows4 = l.isa == GemmIsa::Avx2 && (a.packed ? plan.a_mr == kAvx2Mr4
                                                           : rows % kAvx2Mr4 == 0 && rows % mr != 0 && rows <= 64);
#else
    constexpr bool rows4 = false;
#endif

    // Tiles of at most 4 rows (one micro-tile tall) use the wide kernels when the ISA has them.
    const KernelFn wide_fn = rows <= std::min(4, mr) && !b_indexed && !rows4 ? ip.wide[rows - 1] : nullptr;
    const int64_t wide_p = wide_fn ? ip.wide_panels[rows - 1] : 1;

    KernelEpi ke;
    ke.act = ep.act;
    ke.lo = ep.lo;
    ke.hi = ep.hi;
    // The right edge's full-width buffer: not zeroed per call (1.5 KiB per tile on small GEMMs);
    // when the kernel accumulates into it, the columns past the edge are zeroed there.
    alignas(64) float tmp_c[kMaxMr * kMaxNr];
    alignas(64) float tmp_bias[kMaxNr];

    for (int64_t p0 = 0; p0 < plan.k; p0 += l.kc) {
        const int64_t kcb = std::min(l.kc, plan.k - p0);
        const float* ablk;
        if (a.packed) {
            ablk = a.data + p0 * mp + i0 * kcb;  // i0 is a multiple of a_mr: panel i0/a_mr of this block
        } else {
            pack_a_block(a.data, a.ld, a.trans, i0, rows, p0, kcb, rows4 ? 4 : mr, a_buf);
            ablk = a_buf;
        }
        const float* bblk;
        if (b.packed) {
            bblk = b.data + p0 * np + j0 * kcb;
        } else if (b_in_place) {
            bblk = b.data + p0 * b.ld + j0;
        } else if (b_indexed_direct) {
            bblk = nullptr;  // read through b.row_off / b.col_off below
        } else if (b_indexed) {
            pack_b_indexed(b, j0, cols, p0, kcb, nr, b_buf);
            bblk = b_buf;
        } else {
            pack_b_block(b.data, b.ld, b.trans, j0, cols, p0, kcb, nr, b_buf);
            bblk = b_buf;
        }
        ke.accumulate = p0 > 0;
        ke.last = p0 + kcb >= plan.k;
#if IRLITE_SGEMM_X86
        if (rows4) {
            constexpr int64_t G = kGemmColumnGroup;
            // Whole panels in runs of up to 3 column groups (4 x 24), B read where it is.
            const int64_t full = cols / nr * nr, groups = full / G;
            const int64_t ldb = b_in_place ? b.ld : nr;
            const int64_t* roff = b_indexed_direct ? b.row_off + p0 : nullptr;
            const auto group = [&](int64_t gi) -> const float* {
                if (b_indexed_direct) return b.data + b.col_off[j0 / G + gi];
                if (b_in_place) return bblk + gi * G;
                return bblk + (gi / 2) * nr * kcb + (gi % 2) * G;  // packed panels of nr = 2 groups
            };
            for (int64_t gi = 0, v = 0; gi < groups; gi += v) {
                // 3 groups a call; the last 4 as 2 + 2 rather than 3 + 1 (a 4 x 8 kernel has 4 sums).
                v = groups - gi == 4 ? 2 : std::min<int64_t>(3, groups - gi);
                const float* bp[3] = {group(gi), v > 1 ? group(gi + 1) : nullptr, v > 2 ? group(gi + 2) : nullptr};
                ke.col_bias = ke.last && col_bias ? ep.bias + j0 + gi * G : nullptr;
                for (int64_t ir = 0; ir < rows; ir += kAvx2Mr4) {
                    ke.row_bias = ke.last && row_bias ? ep.bias + i0 + ir : nullptr;
                    kRows4[roff ? 1 : 0][v - 1](kcb, ablk + ir * kcb, bp, ldb, roff, c + ir * ldc + gi * G,
                                                ldc, ke);
                }
            }
            if (full < cols) {  // the last, partial panel, zero-padded to nr, through tmp_c
                const int w = static_cast<int>(cols - full);
                const float* pb = bblk ? bblk + full * kcb : nullptr;  // null: an indexed B, packed below
                if (b_indexed_direct) {
                    pack_b_indexed(b, j0 + full, w, p0, kcb, nr, b_buf);
                    pb = b_buf;
                } else if (b_in_place) {
                    pack_b_block(b.data, b.ld, false, j0 + full, w, p0, kcb, nr, b_buf);
                    pb = b_buf;
                }
                const float* bp[2] = {pb, pb + G};
                ke.col_bias = nullptr;
                if (ke.last && col_bias) {
                    for (int j = 0; j < nr; ++j) tmp_bias[j] = j < w ? ep.bias[j0 + full + j] : 0.0f;
                    ke.col_bias = tmp_bias;
                }
                for (int64_t ir = 0; ir < rows; ir += kAvx2Mr4) {
                    float* cp = c + ir * ldc + full;
                    ke.row_bias = ke.last && row_bias ? ep.bias + i0 + ir : nullptr;
                    if (ke.accumulate)
                        for (int r = 0; r < kAvx2Mr4; ++r) {
                            std::memcpy(tmp_c + r * nr, cp + r * ldc, sizeof(float) * w);
                            std::fill(tmp_c + r * nr + w, tmp_c + (r + 1) * nr, 0.0f);
                        }
                    kRows4[0][1](kcb, ablk + ir * kcb, bp, nr, nullptr, tmp_c, nr, ke);
                    for (int r = 0; r < kAvx2Mr4; ++r) std::memcpy(cp + r * ldc, tmp_c + r * nr, sizeof(float) * w);
                }
            }
            continue;
        }
#endif

        // The last, partial panel (the kernels read nr columns): zero-padded once per K block,
        // into b_buf when B is read in place (b_buf is unused then), where packing put it otherwise.
        const int64_t full = cols / nr * nr;
        const float* edge_bp = nullptr;
        // An edge of at most nr / 2 columns runs the half-width kernels where the ISA has them (a
        // 4 x 4 plane's 16 pixels on AVX-512); one of exactly nr / 2 writes C directly, and a B
        // read in place (indexed: whole column groups, j0 and nr / 2 being multiples) is read so
        // there too, not copied into a zero-padded panel first.
        const bool edge_half = full < cols && cols - full <= nr / 2 && ip.half[0] != nullptr;
        const bool edge_half_in_place = edge_half && cols - full == nr / 2 && (b_indexed_direct || b_in_place);
        const bool edge_indexed_half = edge_half_in_place && b_indexed_direct;
        if (full < cols && !edge_half_in_place) {
            const int w = static_cast<int>(cols - full);
            if (b_indexed_direct) {
                pack_b_indexed(b, j0 + full, w, p0, kcb, nr, b_buf);
                edge_bp = b_buf;
            } else if (b_in_place) {
                pack_b_block(b.data, b.ld, false, j0 + full, w, p0, kcb, nr, b_buf);
                edge_bp = b_buf;
            } else {
                edge_bp = bblk + full * kcb;
            }
        }
        if (full < cols && ke.last && col_bias) {
            const int64_t w = cols - full;
            for (int j = 0; j < nr; ++j) tmp_bias[j] = j < w ? ep.bias[j0 + full + j] : 0.0f;
        }
        // Micro-tile (ir, jr): rows [ir, ir + mr) of the tile, B panel at column jr.
        const auto micro = [&](int64_t ir, int64_t jr) __attribute__((always_inline)) {
            const int w = static_cast<int>(std::min<int64_t>(nr, cols - jr));
            const int h = static_cast<int>(std::min<int64_t>(mr, rows - ir));
            const float* ap = ablk + ir * kcb;
            float* cp = c + ir * ldc + jr;
            ke.row_bias = ke.last && row_bias ? ep.bias + i0 + ir : nullptr;
            ke.col_bias = nullptr;
            if (ke.last && col_bias) ke.col_bias = w == nr ? ep.bias + j0 + jr : tmp_bias;
            if ((w == nr && b_indexed_direct) || edge_indexed_half) {
                // The panel's column groups, each one run of 8 floats per row.
                constexpr int64_t G = kGemmColumnGroup;
                const int64_t* grp = b.col_off + (j0 + jr) / G;
                const float* groups[kMaxNr / G];
                for (int gi = 0; gi < w / G; ++gi) groups[gi] = b.data + grp[gi];
                (w == nr ? ip.indexed : ip.indexed_half)[h - 1](kcb, ap, b.row_off + p0, groups, cp, ldc, ke);
                return;
            }
            const KernelFn fn = ip.kernels[h - 1];
            if (w == nr) {
                if (b_in_place) fn(kcb, ap, bblk + jr, b.ld, 0, cp, ldc, ke);
                else fn(kcb, ap, bblk + jr * kcb, nr, 0, cp, ldc, ke);
                return;
            }
            if (edge_half && w == nr / 2) {  // the half-width kernel, straight into C
                if (b_in_place) ip.half[h - 1](kcb, ap, bblk + jr, b.ld, 0, cp, ldc, ke);
                else ip.half[h - 1](kcb, ap, edge_bp, nr, 0, cp, ldc, ke);
                return;
            }
            const KernelFn edge_fn = edge_half ? ip.half[h - 1] : fn;
            // Right edge: through a full-width buffer.
            if (ke.accumulate)
                for (int r = 0; r < h; ++r) {
                    std::memcpy(tmp_c + r * nr, cp + r * ldc, sizeof(float) * w);
                    std::fill(tmp_c + r * nr + w, tmp_c + (r + 1) * nr, 0.0f);
                }
            edge_fn(kcb, ap, edge_bp, nr, 0, tmp_c, nr, ke);
            for (int r = 0; r < h; ++r) std::memcpy(cp + r * ldc, tmp_c + r * nr, sizeof(float) * w);
        };

        if (wide_fn) {  // a short tile (one micro-tile tall): P full panels per call where they fit
            for (int64_t jr = 0; jr < cols; jr += nr) {
                if (jr + wide_p * nr <= cols) {
                    const float* bp = b_in_place ? bblk + jr : bblk + jr * kcb;
                    ke.col_bias = ke.last && col_bias ? ep.bias + j0 + jr : nullptr;
                    ke.row_bias = ke.last && row_bias ? ep.bias + i0 : nullptr;
                    wide_fn(kcb, ablk, bp, b_in_place ? b.ld : nr, b_in_place ? nr : nr * kcb, c + jr,
                            ldc, ke);
                    jr += (wide_p - 1) * nr;
                } else {
                    micro(0, jr);
                }
            }
        } else if (kcb * cols <= kRowsOuterMaxFloats && ldc >= kRowsOuterMinLdc) {
            // A short K block (a pointwise convolution on few input channels) and C's rows each in
            // their own page (a 32 x 32 plane or more): the tile's B block stays in L1 whatever the
            // order, so go along C's rows: each micro-tile row continues where the last one stopped,
            // a few sequential streams the hardware prefetches. Panel by panel, every micro-tile
            // starts mr rows in mr other pages (tens of streams, one line each), and when K is this
            // short the C lines' misses, not the multiply-adds, set the speed (48 x 1024 x 8: 34 ->
            // 24 us). Rows closer together share pages and lose a little to this order (SqueezeNet's
            // 16 -> 64 expansions on 8 x 8 and 16 x 16 planes), so they keep the other.
            for (int64_t ir = 0; ir < rows; ir += mr)
                for (int64_t jr = 0; jr < cols; jr += nr) micro(ir, jr);
        } else {
            // One B panel (kcb x nr, in L1) against the tile's A panels (in L2): B is read from
            // memory once per K block.
            for (int64_t jr = 0; jr < cols; jr += nr)
                for (int64_t ir = 0; ir < rows; ir += mr) micro(ir, jr);
        }
    }
}

void run_gemm_tile(const GemmPlan& plan, int64_t tile, const GemmOperand& a, const GemmOperand& b, float* c,
                   int64_t ldc, const GemmEpilogue& ep, void* scratch) {
    const GemmTileRect r = gemm_tile_rect(plan, tile);
    run_gemm_tile_to(plan, tile, a, b, c + r.row * ldc + r.col, ldc, ep, scratch);
}

void run_gemm(const GemmPlan& plan, const GemmOperand& a, const GemmOperand& b, float* c, int64_t ldc,
              const GemmEpilogue& epilogue, void* scratch) {
    for (int64_t t = 0; t < plan.tiles(); ++t) run_gemm_tile(plan, t, a, b, c, ldc, epilogue, scratch);
}

}  // namespace irlite::nn
