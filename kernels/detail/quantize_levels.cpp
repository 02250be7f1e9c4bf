// The quantizer's loop at each level (quantize_levels.hpp). The generic form is GCC vector
// extensions; at AVX2 GCC lowers its min/max and the int32 -> u8 narrowing lane by lane, so the
// x86 levels spell the same operations in intrinsics (same order, same roundings: the levels are
// bit-identical at every level).
#include "kernels/detail/quantize_levels.hpp"

#if IRLITE_ISA_X86
#include <immintrin.h>
#endif

// The vector helpers below are internal and inlined at their own target.
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace irlite::nn {
namespace {

#if IRLITE_ISA_X86
// t = (x - il) / range * steps; r = (t + 2^23) - 2^23; r = max(r, 0) (NaN -> 0); r = min(r, top).
IRLITE_TARGET_AVX2 __m256i levels8_avx2(const float* x, __m256 il, __m256 range, __m256 steps) {
    const __m256 magic = _mm256_set1_ps(8388608.f);
    const __m256 t = _mm256_mul_ps(_mm256_div_ps(_mm256_sub_ps(_mm256_loadu_ps(x), il), range), steps);
    __m256 r = _mm256_sub_ps(_mm256_add_ps(t, magic), magic);
    r = _mm256_min_ps(_mm256_max_ps(r, _mm256_setzero_ps()), steps);
    return _mm256_cvttps_epi32(r);
}

// 16 levels: packs gives [a0-3 b0-3 | a4-7 b4-7] as int16, packus the same as bytes; the
// permutation puts the four dword groups in order.
IRLITE_TARGET_AVX2 void levels16_avx2(const float* x, __m256 il, __m256 range, __m256 steps, uint8_t* out) {
    const __m256i a = levels8_avx2(x, il, range, steps), b = levels8_avx2(x + 8, il, range, steps);
    const __m256i bytes = _mm256_packus_epi16(_mm256_packs_epi32(a, b), _mm256_setzero_si256());
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(bytes, order)));
}

IRLITE_TARGET_AVX2 void quantize_avx2(const float* x, int64_t n, float il, float ih, float steps, uint8_t* levels) {
    const __m256 vil = _mm256_set1_ps(il), range = _mm256_set1_ps(ih - il), vsteps = _mm256_set1_ps(steps);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) levels16_avx2(x + i, vil, range, vsteps, levels + i);
    if (i < n) {
        alignas(32) float tail[16] = {};
        alignas(16) uint8_t out[16];
        __builtin_memcpy(tail, x + i, static_cast<size_t>(n - i) * sizeof(float));
        levels16_avx2(tail, vil, range, vsteps, out);
        __builtin_memcpy(levels + i, out, static_cast<size_t>(n - i));
    }
}

IRLITE_TARGET_AVX512 __m128i levels16_avx512(const float* x, __m512 il, __m512 range, __m512 steps) {
    const __m512 magic = _mm512_set1_ps(8388608.f);
    const __m512 t = _mm512_mul_ps(_mm512_div_ps(_mm512_sub_ps(_mm512_loadu_ps(x), il), range), steps);
    __m512 r = _mm512_sub_ps(_mm512_add_ps(t, magic), magic);
    // The masked forms with every lane set: GCC 12 flags the unmasked ones' undefined placeholder.
    const __m512 zero = _mm512_setzero_ps();
    r = _mm512_mask_min_ps(zero, 0xFFFF, _mm512_mask_max_ps(zero, 0xFFFF, r, zero), steps);
    return _mm512_mask_cvtepi32_epi8(_mm_setzero_si128(), 0xFFFF, _mm512_mask_cvttps_epi32(_mm512_setzero_si512(), 0xFFFF, r));
}

IRLITE_TARGET_AVX512 void quantize_avx512(const float* x, int64_t n, float il, float ih, float steps,
                                          uint8_t* levels) {
    const __m512 vil = _mm512_set1_ps(il), range = _mm512_set1_ps(ih - il), vsteps = _mm512_set1_ps(steps);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm_storeu_si128(reinterpret_cast<__m128i*>(levels + i), levels16_avx512(x + i, vil, range, vsteps));
    if (i < n) {
        alignas(64) float tail[16] = {};
        alignas(16) uint8_t out[16];
        __builtin_memcpy(tail, x + i, static_cast<size_t>(n - i) * sizeof(float));
        _mm_store_si128(reinterpret_cast<__m128i*>(out), levels16_avx512(tail, vil, range, vsteps));
        __builtin_memcpy(levels + i, out, static_cast<size_t>(n - i));
    }
}
#endif

}  // namespace

void Int8Quantizer::quantize(const float* x, int64_t n, uint8_t* levels) const {
#if IRLITE_ISA_X86
    if (isa == cpu::Isa::Avx512) return quantize_avx512(x, n, in_low, in_high, steps, levels);
    if (isa == cpu::Isa::Avx2) return quantize_avx2(x, n, in_low, in_high, steps, levels);
#endif
    cpu::run_at(isa, [&] { quantize_chunk(x, n, in_low, in_high, steps, levels); });
}

}  // namespace irlite::nn
