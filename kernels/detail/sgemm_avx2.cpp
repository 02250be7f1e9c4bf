// The GEMM's AVX2 + FMA micro-kernels (sgemm_microkernels.inl on 8-float vectors): 6 x 16 on A
// panels of 6 rows, the wide 1 x 64 and 2 x 32 for short tiles, an indexed B read in place (a
// vector is one run), and 4 x 8..24 on 4-row A panels (M a multiple of 4 but not of 6).
#include "kernels/detail/sgemm.hpp"
#include "kernels/detail/sgemm_kernels.hpp"

#if IRLITE_ISA_X86
#include <immintrin.h>

#define IRLITE_SGEMM_TARGET IRLITE_TARGET_AVX2

namespace irlite::nn::sgemm {
namespace {

struct Vec {
    using Reg = __m256;
    static constexpr int kWidth = 8;
    static constexpr int kUnrollK = 4;
    IRLITE_SGEMM_TARGET static Reg zero() { return _mm256_setzero_ps(); }
    IRLITE_SGEMM_TARGET static Reg set1(float x) { return _mm256_set1_ps(x); }
    IRLITE_SGEMM_TARGET static Reg broadcast(const float* p) { return _mm256_broadcast_ss(p); }
    IRLITE_SGEMM_TARGET static Reg load(const float* p) { return _mm256_loadu_ps(p); }
    IRLITE_SGEMM_TARGET static void store(float* p, Reg v) { _mm256_storeu_ps(p, v); }
    IRLITE_SGEMM_TARGET static Reg load_runs(const float* const* g, int64_t o) { return _mm256_loadu_ps(g[0] + o); }
    IRLITE_SGEMM_TARGET static Reg fmadd(Reg a, Reg b, Reg c) { return _mm256_fmadd_ps(a, b, c); }
    IRLITE_SGEMM_TARGET static Reg add(Reg a, Reg b) { return _mm256_add_ps(a, b); }
    // vmaxps returns its second operand when either is NaN: max(0, NaN) = NaN
    IRLITE_SGEMM_TARGET static Reg max(Reg a, Reg b) { return _mm256_max_ps(a, b); }
    IRLITE_SGEMM_TARGET static Reg min(Reg a, Reg b) { return _mm256_min_ps(a, b); }
    IRLITE_SGEMM_TARGET static void prefetch(const float* p) {
        _mm_prefetch(reinterpret_cast<const char*>(p), _MM_HINT_T0);
    }
};

#include "kernels/detail/sgemm_microkernels.inl"

constexpr int kMr = 6;

constexpr IsaParams kParams = {
    kMr,
    2 * Vec::kWidth,
    256,
    144,
    1024,
    {kernel<kMr, 1, 2>, kernel<kMr, 2, 2>, kernel<kMr, 3, 2>, kernel<kMr, 4, 2>, kernel<kMr, 5, 2>,
     kernel<kMr, 6, 2>},
    {kernel<kMr, 1, 8>, kernel<kMr, 2, 4>, nullptr, nullptr},
    {4, 2, 1, 1},
    {kernel_indexed<kMr, 1, 2>, kernel_indexed<kMr, 2, 2>, kernel_indexed<kMr, 3, 2>, kernel_indexed<kMr, 4, 2>,
     kernel_indexed<kMr, 5, 2>, kernel_indexed<kMr, 6, 2>},
    {},
    {},
    {{kernel_4rows<1, false>, kernel_4rows<2, false>, kernel_4rows<3, false>},
     {kernel_4rows<1, true>, kernel_4rows<2, true>, kernel_4rows<3, true>}},
};

}  // namespace

const IsaParams& avx2_params() { return kParams; }

}  // namespace irlite::nn::sgemm
#endif  // IRLITE_ISA_X86
