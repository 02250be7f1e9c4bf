// The quantizer's formula (quantize_levels.hpp) on 16 floats in an AVX-512 register, for the
// kernels that quantize in registers (quantize_levels.cpp's loops, the int8 depthwise's blocks):
// one copy of the sequence, so every caller gives the same levels bit for bit. x86 only; include
// after <immintrin.h> from code compiled with at least IRLITE_TARGET_AVX512's features.
#pragma once

#if IRLITE_ISA_X86
#include <immintrin.h>

#include "kernels/detail/cpu_isa.hpp"

namespace irlite::nn {

// The levels of 16 floats as int32 lanes: nearest-even of (x - il) / range * steps, clamped to
// [0, steps] (NaN at 0).
IRLITE_TARGET_AVX512 inline __m512i levels16_i32_avx512(__m512 x, __m512 il, __m512 range, __m512 steps) {
    const __m512 magic = _mm512_set1_ps(8388608.f);
    const __m512 t = _mm512_mul_ps(_mm512_div_ps(_mm512_sub_ps(x, il), range), steps);
    __m512 r = _mm512_sub_ps(_mm512_add_ps(t, magic), magic);
    // The masked forms with every lane set: GCC 12 flags the unmasked ones' undefined placeholder.
    const __m512 zero = _mm512_setzero_ps();
    r = _mm512_mask_min_ps(zero, 0xFFFF, _mm512_mask_max_ps(zero, 0xFFFF, r, zero), steps);
    return _mm512_mask_cvttps_epi32(_mm512_setzero_si512(), 0xFFFF, r);
}

}  // namespace irlite::nn
#endif
