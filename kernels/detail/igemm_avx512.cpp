// The int8 GEMM's 512-bit micro-kernels (igemm_microkernels.inl on 16 int32 lanes): AVX-512 VNNI's
// vpdpbusd where the CPU has it, else the same dot product emulated exactly with AVX-512 BW
// (igemm.hpp).
#include <algorithm>
#include <cstring>

#include "kernels/detail/igemm.hpp"
#include "kernels/detail/transpose8.hpp"

#if IRLITE_ISA_X86
#include <immintrin.h>

namespace irlite::nn::int8 {
namespace {

#define IRLITE_INT8_TARGET IRLITE_TARGET_AVX512
struct Vec {
    static constexpr int kLanes = 16;
    using Reg = __m512i;
    IRLITE_INT8_TARGET static Reg zero() { return _mm512_setzero_si512(); }
    IRLITE_INT8_TARGET static Reg load_i32(const int32_t* p) { return _mm512_loadu_si512(p); }
    IRLITE_INT8_TARGET static void to_float_store_rows(float* c, Reg acc, const float* alpha, const float* beta) {
        const __m512 f = _mm512_add_ps(_mm512_mul_ps(_mm512_mask_cvtepi32_ps(_mm512_setzero_ps(), 0xFFFF, acc),
                                                     _mm512_loadu_ps(alpha)), _mm512_loadu_ps(beta));
        _mm512_storeu_ps(c, f);
    }
    IRLITE_INT8_TARGET static Reg set1(int32_t x) { return _mm512_set1_epi32(x); }
    IRLITE_INT8_TARGET static Reg load_b(const uint8_t* p) { return _mm512_loadu_si512(p); }
    IRLITE_INT8_TARGET static Reg load_b_pair(const uint8_t* lo, const uint8_t* hi) {
        // The masked form with every lane set (as to_float_store below): the unmasked one's undefined
        // placeholder draws GCC 12's "maybe uninitialized"; both are one vinserti64x4.
        const __m512i low = _mm512_castsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(lo)));
        return _mm512_mask_inserti64x4(low, 0xFF, low, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(hi)), 1);
    }
    IRLITE_INT8_TARGET static Reg broadcast_a(const int8_t* p) {
        int32_t bits;
        __builtin_memcpy(&bits, p, 4);
        return _mm512_set1_epi32(bits);
    }
    IRLITE_INT8_TARGET static Reg dot(Reg acc, Reg b, Reg a) {
        const Reg b_even = _mm512_and_si512(b, _mm512_set1_epi16(0x00FF));
        const Reg b_odd = _mm512_srli_epi16(b, 8);
        const Reg a_even = _mm512_srai_epi16(_mm512_slli_epi16(a, 8), 8);
        const Reg a_odd = _mm512_srai_epi16(a, 8);
        const Reg sum = _mm512_add_epi32(_mm512_madd_epi16(b_even, a_even), _mm512_madd_epi16(b_odd, a_odd));
        return _mm512_add_epi32(acc, sum);
    }
    // The masked form with every lane set: GCC 12 flags the unmasked conversion's
    // _mm512_undefined_ps placeholder as "maybe uninitialized"; it compiles to the same vcvtdq2ps.
    IRLITE_INT8_TARGET static void to_float_store(float* c, Reg acc, float alpha, float beta) {
        const __m512 f = _mm512_add_ps(_mm512_mul_ps(_mm512_mask_cvtepi32_ps(_mm512_setzero_ps(), 0xFFFF, acc), _mm512_set1_ps(alpha)), _mm512_set1_ps(beta));
        _mm512_storeu_ps(c, f);
    }
};
#include "kernels/detail/igemm_microkernels.inl"
#undef IRLITE_INT8_TARGET

}  // namespace

namespace vnni {
namespace {

// The AVX-512 level's features plus VNNI: a superset, so that Vec's AVX-512 members inline here.
#define IRLITE_INT8_TARGET \
    __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma,f16c,bmi,bmi2,lzcnt,movbe,popcnt,avx512vnni")))
struct Vec : int8::Vec {
    // vpdpbusd in place: through the intrinsic, GCC 12 copies each accumulator to another register
    // and back around every instruction (two moves per product), which cost the kernels a fifth
    // to a quarter of their speed.
    IRLITE_INT8_TARGET static Reg dot(Reg acc, Reg b, Reg a) {
        __asm__("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(b), "v"(a));
        return acc;
    }
};
#include "kernels/detail/igemm_microkernels.inl"
#undef IRLITE_INT8_TARGET

}  // namespace
}  // namespace vnni

const Kernels& avx512_kernels(bool with_vnni) {
    static const Kernels plain = make_kernels();
    static const Kernels dp = vnni::make_kernels();
    return with_vnni ? dp : plain;
}

}  // namespace irlite::nn::int8

#else
namespace irlite::nn::int8 {
const Kernels& avx512_kernels(bool) { return portable_kernels(); }
}  // namespace irlite::nn::int8
#endif
