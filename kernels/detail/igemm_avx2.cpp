// The int8 GEMM's 256-bit micro-kernels (igemm_microkernels.inl on 8 int32 lanes): AVX-VNNI's
// vpdpbusd where the CPU has it, else the same dot product emulated exactly with AVX2 (igemm.hpp).
#include <algorithm>
#include <cstring>

#include "kernels/detail/igemm.hpp"
#include "kernels/detail/transpose8.hpp"

#if IRLITE_ISA_X86
#include <immintrin.h>

namespace irlite::nn::int8 {
namespace {

// Exact u8 x s8 quad sums with AVX2: the even and the odd bytes of each 16-bit lane widened to
// 16 bits (b unsigned, a signed), two vpmaddwd (pair sums of at most 2 * 255 * 128, no overflow).
#define IRLITE_INT8_TARGET IRLITE_TARGET_AVX2
struct Vec {
    static constexpr int kLanes = 8;
    using Reg = __m256i;
    IRLITE_INT8_TARGET static Reg zero() { return _mm256_setzero_si256(); }
    IRLITE_INT8_TARGET static Reg load_i32(const int32_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
    IRLITE_INT8_TARGET static void to_float_store_rows(float* c, Reg acc, const float* alpha, const float* beta) {
        const __m256 f = _mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(acc), _mm256_loadu_ps(alpha)), _mm256_loadu_ps(beta));
        _mm256_storeu_ps(c, f);
    }
    IRLITE_INT8_TARGET static Reg set1(int32_t x) { return _mm256_set1_epi32(x); }
    IRLITE_INT8_TARGET static Reg load_b(const uint8_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
    IRLITE_INT8_TARGET static Reg broadcast_a(const int8_t* p) {
        int32_t bits;
        __builtin_memcpy(&bits, p, 4);
        return _mm256_set1_epi32(bits);
    }
    IRLITE_INT8_TARGET static Reg dot(Reg acc, Reg b, Reg a) {
        const Reg b_even = _mm256_and_si256(b, _mm256_set1_epi16(0x00FF));
        const Reg b_odd = _mm256_srli_epi16(b, 8);
        const Reg a_even = _mm256_srai_epi16(_mm256_slli_epi16(a, 8), 8);
        const Reg a_odd = _mm256_srai_epi16(a, 8);
        const Reg sum = _mm256_add_epi32(_mm256_madd_epi16(b_even, a_even), _mm256_madd_epi16(b_odd, a_odd));
        return _mm256_add_epi32(acc, sum);
    }
    IRLITE_INT8_TARGET static void to_float_store(float* c, Reg acc, float alpha, float beta) {
        const __m256 f = _mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(acc), _mm256_set1_ps(alpha)), _mm256_set1_ps(beta));
        _mm256_storeu_ps(c, f);
    }
};
#include "kernels/detail/igemm_microkernels.inl"
#undef IRLITE_INT8_TARGET

}  // namespace

namespace vnni {
namespace {

// The AVX2 level's features plus AVX-VNNI: a superset, so that Vec's AVX2 members inline here.
#define IRLITE_INT8_TARGET __attribute__((target("avx2,fma,f16c,bmi,bmi2,lzcnt,movbe,popcnt,avxvnni")))
struct Vec : int8::Vec {
    IRLITE_INT8_TARGET static Reg dot(Reg acc, Reg b, Reg a) { return _mm256_dpbusd_avx_epi32(acc, b, a); }
};
#include "kernels/detail/igemm_microkernels.inl"
#undef IRLITE_INT8_TARGET

}  // namespace
}  // namespace vnni

const Kernels& avx2_kernels(bool with_vnni) {
    static const Kernels plain = make_kernels();
    static const Kernels dp = vnni::make_kernels();
    return with_vnni ? dp : plain;
}

}  // namespace irlite::nn::int8

#else
namespace irlite::nn::int8 {
const Kernels& avx2_kernels(bool) { return portable_kernels(); }
}  // namespace irlite::nn::int8
#endif
