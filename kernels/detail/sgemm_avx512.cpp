// The GEMM's AVX-512 micro-kernels (sgemm_microkernels.inl on 16-float vectors): 12 x 32 on A
// panels of 12 rows, the wide 1 x 128 and 2..4 x 64 for short tiles, 12 x 16 half-width ones for a
// right edge of 16 columns or fewer, and an indexed B read in place (a vector joins two runs).
#include "kernels/detail/sgemm.hpp"
#include "kernels/detail/sgemm_kernels.hpp"

#if IRLITE_ISA_X86
#include <immintrin.h>

#define IRLITE_SGEMM_TARGET IRLITE_TARGET_AVX512

namespace irlite::nn::sgemm {
namespace {

// Full masks: GCC 12 flags the unmasked _mm512_max_ps/_mm512_min_ps (their _mm512_undefined_ps
// placeholder) as "maybe uninitialized"; the masked forms with every lane set compile to the same vmaxps.
constexpr __mmask16 kAll16 = 0xFFFF;

struct Vec {
    using Reg = __m512;
    static constexpr int kWidth = 16;
    static constexpr int kUnrollK = 2;
    IRLITE_SGEMM_TARGET static Reg zero() { return _mm512_setzero_ps(); }
    IRLITE_SGEMM_TARGET static Reg set1(float x) { return _mm512_set1_ps(x); }
    IRLITE_SGEMM_TARGET static Reg broadcast(const float* p) { return _mm512_set1_ps(*p); }
    IRLITE_SGEMM_TARGET static Reg load(const float* p) { return _mm512_loadu_ps(p); }
    IRLITE_SGEMM_TARGET static void store(float* p, Reg v) { _mm512_storeu_ps(p, v); }
    IRLITE_SGEMM_TARGET static Reg load_runs(const float* const* g, int64_t o) {
        return _mm512_insertf32x8(_mm512_castps256_ps512(_mm256_loadu_ps(g[0] + o)), _mm256_loadu_ps(g[1] + o), 1);
    }
    IRLITE_SGEMM_TARGET static Reg fmadd(Reg a, Reg b, Reg c) { return _mm512_fmadd_ps(a, b, c); }
    IRLITE_SGEMM_TARGET static Reg add(Reg a, Reg b) { return _mm512_add_ps(a, b); }
    IRLITE_SGEMM_TARGET static Reg max(Reg a, Reg b) { return _mm512_mask_max_ps(b, kAll16, a, b); }
    IRLITE_SGEMM_TARGET static Reg min(Reg a, Reg b) { return _mm512_mask_min_ps(b, kAll16, a, b); }
    IRLITE_SGEMM_TARGET static void prefetch(const float* p) {
        _mm_prefetch(reinterpret_cast<const char*>(p), _MM_HINT_T0);
    }
};

#include "kernels/detail/sgemm_microkernels.inl"

constexpr int kMr = 12;

constexpr IsaParams kParams = {
    kMr,
    2 * Vec::kWidth,
    256,
    144,
    1024,
    {kernel<kMr, 1, 2>, kernel<kMr, 2, 2>, kernel<kMr, 3, 2>, kernel<kMr, 4, 2>, kernel<kMr, 5, 2>,
     kernel<kMr, 6, 2>, kernel<kMr, 7, 2>, kernel<kMr, 8, 2>, kernel<kMr, 9, 2>, kernel<kMr, 10, 2>,
     kernel<kMr, 11, 2>, kernel<kMr, 12, 2>},
    {kernel<kMr, 1, 8>, kernel<kMr, 2, 4>, kernel<kMr, 3, 4>, kernel<kMr, 4, 4>},
    {4, 2, 2, 2},
    {kernel_indexed<kMr, 1, 2>, kernel_indexed<kMr, 2, 2>, kernel_indexed<kMr, 3, 2>, kernel_indexed<kMr, 4, 2>,
     kernel_indexed<kMr, 5, 2>, kernel_indexed<kMr, 6, 2>, kernel_indexed<kMr, 7, 2>, kernel_indexed<kMr, 8, 2>,
     kernel_indexed<kMr, 9, 2>, kernel_indexed<kMr, 10, 2>, kernel_indexed<kMr, 11, 2>, kernel_indexed<kMr, 12, 2>},
    {kernel<kMr, 1, 1>, kernel<kMr, 2, 1>, kernel<kMr, 3, 1>, kernel<kMr, 4, 1>, kernel<kMr, 5, 1>,
     kernel<kMr, 6, 1>, kernel<kMr, 7, 1>, kernel<kMr, 8, 1>, kernel<kMr, 9, 1>, kernel<kMr, 10, 1>,
     kernel<kMr, 11, 1>, kernel<kMr, 12, 1>},
    {kernel_indexed<kMr, 1, 1>, kernel_indexed<kMr, 2, 1>, kernel_indexed<kMr, 3, 1>, kernel_indexed<kMr, 4, 1>,
     kernel_indexed<kMr, 5, 1>, kernel_indexed<kMr, 6, 1>, kernel_indexed<kMr, 7, 1>, kernel_indexed<kMr, 8, 1>,
     kernel_indexed<kMr, 9, 1>, kernel_indexed<kMr, 10, 1>, kernel_indexed<kMr, 11, 1>, kernel_indexed<kMr, 12, 1>},
    {},
};

}  // namespace

const IsaParams& avx512_params() { return kParams; }

}  // namespace irlite::nn::sgemm
#endif  // IRLITE_ISA_X86
