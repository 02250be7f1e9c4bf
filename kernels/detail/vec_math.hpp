// Scalar math written so that the compiler vectorises it at any width, for kernels that run at
// the CPU's instruction-set level (cpu_isa.hpp's cpu::run / run_at): the same IEEE operations per
// element at every level, so results do not depend on the level (no FMA: -ffp-contract=off).
//
//   exp_f32(x)          e^x, within 1 ulp of the exact value on [-87.3, 88.7] (checked on every
//                       third float there, isa_dispatch_test samples it); 0
//                       below (flush), +inf above, NaN stays NaN. No libm call, no float->int
//                       conversion (defined for every input, UBSan-clean).
//   sigmoid_f32(x)      1 / (1 + e^-x) from exp_f32 (within 3 ulp); tanh_f32(x) and erf_f32(x)
//                       rational functions fitted here (within 7 ulp, see below).
//   lane_sum, lane_max  a sum / max over a row with a fixed lane count (kLanes): element i goes to
//                       lane i % kLanes, lanes are combined in a fixed tree. The order, and so the
//                       rounding, is the same at every vector width (unlike a compiler- or
//                       Eigen-vectorised reduction, whose order follows the packet size).
#pragma once

#include <cstdint>
#include <cstring>

#include "kernels/detail/cpu_isa.hpp"

namespace irlite::vmath {

IRLITE_ISA_INLINE float bits_to_float(uint32_t b) {
    float f;
    std::memcpy(&f, &b, sizeof f);
    return f;
}
IRLITE_ISA_INLINE uint32_t float_to_bits(float f) {
    uint32_t b;
    std::memcpy(&b, &f, sizeof b);
    return b;
}

// Cody-Waite range reduction x = n*ln2 + r, |r| <= ln2/2, and Cephes' degree-6 polynomial for e^r.
IRLITE_ISA_INLINE float exp_f32(float x) {
    constexpr float kHi = 88.7228391f, kLo = -87.3365448f;  // e^kLo is FLT_MIN
    // Both compares unconditional, and a factor rather than a select of y at the end: that keeps the
    // loop free of control flow (GCC vectorises it only with -fno-trapping-math, as CMakeLists.txt
    // sets: under its default -ftrapping-math it will not speculate a compare or a multiply).
    const bool below = x < kLo, above = x > kHi;  // both false for NaN, which passes through
    float xc = below ? kLo : x;
    xc = above ? kHi : xc;
    // n = round(x / ln2) by the 1.5 * 2^23 trick: t's low mantissa bits hold n + 127.
    constexpr float kShift = 12582912.0f + 127.0f;
    const float t = xc * 1.44269504088896341f + kShift;
    const float n = t - kShift;
    const float r = (xc - n * 0.693359375f) - n * -2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * (r * r) + r + 1.0f;
    // 2^n from e = n + 127 in [1, 255] (t's low mantissa bits) as two normal factors,
    // 2^((e>>1) - 63) * 2^(e - (e>>1) - 64), so that neither end of the range leaves the exponent.
    const uint32_t e = float_to_bits(t) & 0xFFu;
    const float s1 = bits_to_float(((e >> 1) + 64u) << 23);
    const float s2 = bits_to_float((e - (e >> 1) + 63u) << 23);
    const float y = (p * s1) * s2;
    const float factor = below ? 0.0f : (above ? __builtin_inff() : 1.0f);
    return y * factor;
}

// 1 / (1 + e^-x). Within 2 ulp relative where the result is a normal float (x >= -87.3; the
// test sweeps every 7th float in [-20, 20] and checks more); below that e^-x is near or above
// FLT_MAX and the result is a denormal with up to ~1e-45 absolute error (x = -88: 6.05e-39, as
// e^-88), then 0 for x < -88.72 (where e^-x overflows; the exact value is below 3.4e-39, so the
// absolute error stays below that), as with Eigen's f32 exp. +inf -> 1, -inf -> 0, NaN stays NaN.
IRLITE_ISA_INLINE float sigmoid_f32(float x) { return 1.0f / (1.0f + exp_f32(-x)); }

// tanh(x) = x P(x^2) / Q(x^2) on |x| <= 10, a rational function of degrees 4 and 4 in x^2 fitted
// here for relative error (1.5e-7 before f32 rounding), with |x| clamped to 10 (tanh(10) rounds to
// 1 in f32). Within 7 ulp (isa_dispatch_test; Eigen's float tanh is a rational function of the same
// kind); the sign is x's (tanh(-0) = -0), tiny x gives x, NaN stays NaN. One division and no exp:
// at AVX2 an exp-based form was slower than Eigen's 128-bit rational one.
IRLITE_ISA_INLINE float tanh_f32(float x) {
    const float a0 = __builtin_fabsf(x);
    const float a = a0 > 10.0f ? 10.0f : a0;  // keeps z finite; NaN stays NaN
    const float z = a * a;
    float p = 1.19737882e-08f;
    p = p * z + 1.95815010e-05f;
    p = p * z + 3.43201752e-03f;
    p = p * z + 1.33271828e-01f;
    p = p * z + 1.0f;  // the fit gives 1 - 6e-8: 1 keeps tanh(x) = x for tiny x
    float q = 7.20182413e-07f;
    q = q * z + 3.18242324e-04f;
    q = q * z + 2.56341267e-02f;
    q = q * z + 4.66604799e-01f;
    q = q * z + 1.0f;
    // From |x| = 9.1 on, tanh rounds to 1 (1 - tanh < 2^-25): exactly 1 there, as the fit is not.
    return __builtin_copysignf(a0 >= 9.1f ? 1.0f : a * p / q, x);
}

// Gelu's tanh form 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), the Gelu-7 op's and the fused
// epilogue's (the same bits either way).
IRLITE_ISA_INLINE float gelu_tanh_f32(float x) {
    return 0.5f * x * (1.0f + tanh_f32(0.79788456080286535588f * (x + 0.044715f * x * x * x)));
}

// erf(x) = x P(x^2) / Q(x^2) on |x| <= 4, a rational function of degrees 6 and 5 in x^2 fitted
// here for relative error (5e-9 before f32 rounding), with |x| clamped to 4 (erf(4) rounds to 1
// in f32). Within 7 ulp (the f32 rounding of P and Q near 1; Eigen's float erf measures 6.7 ulp
// on the same sweep); the sign is x's (erf(-0) = -0), NaN stays NaN. One division and no exp:
// cheap enough that the wide vectors pay.
IRLITE_ISA_INLINE float erf_f32(float x) {
    const float a0 = __builtin_fabsf(x);
    const float a = a0 > 4.0f ? 4.0f : a0;  // keeps z finite; NaN stays NaN
    const float z = a * a;
    float p = -1.31734268e-08f;
    p = p * z + 4.68057806e-06f;
    p = p * z + 3.79421603e-04f;
    p = p * z + 3.84688750e-03f;
    p = p * z + 5.43059520e-02f;
    p = p * z + 1.85145140e-01f;
    p = p * z + 1.12837923e+00f;
    float q = 6.30730283e-05f;
    q = q * z + 1.30677898e-03f;
    q = q * z + 1.54558802e-02f;
    q = q * z + 1.13931537e-01f;
    q = q * z + 4.97414023e-01f;
    q = q * z + 1.0f;
    // From |x| = 3.93 on, erf rounds to 1 (erfc < 2^-25): exactly 1 there, as the fit is not.
    return __builtin_copysignf(a0 >= 3.93f ? 1.0f : a * p / q, x);
}

// Gelu's exact form 0.5 x (1 + erf(x / sqrt 2)), the Gelu ops' and the fused epilogue's.
IRLITE_ISA_INLINE float gelu_erf_f32(float x) { return 0.5f * x * (1.0f + erf_f32(x * 0.70710678118654752440f)); }

inline constexpr int kLanes = 16;

// sum over v[0..n) with kLanes lanes (see above).
IRLITE_ISA_INLINE float lane_sum(const float* v, int64_t n) {
    float acc[kLanes] = {};
    int64_t i = 0;
    for (; i + kLanes <= n; i += kLanes)
        for (int l = 0; l < kLanes; ++l) acc[l] += v[i + l];
    for (int l = 0; i + l < n; ++l) acc[l] += v[i + l];
    for (int w = kLanes / 2; w > 0; w /= 2)
        for (int l = 0; l < w; ++l) acc[l] += acc[l + w];
    return acc[0];
}

// max over v[0..n), n >= 1 (NaN elements are skipped unless all are NaN; order-independent).
IRLITE_ISA_INLINE float lane_max(const float* v, int64_t n) {
    float acc[kLanes];
    for (int l = 0; l < kLanes; ++l) acc[l] = v[0];
    int64_t i = 0;
    for (; i + kLanes <= n; i += kLanes)
        for (int l = 0; l < kLanes; ++l) acc[l] = v[i + l] > acc[l] ? v[i + l] : acc[l];
    for (int l = 0; i + l < n; ++l) acc[l] = v[i + l] > acc[l] ? v[i + l] : acc[l];
    for (int w = kLanes / 2; w > 0; w /= 2)
        for (int l = 0; l < w; ++l) acc[l] = acc[l + w] > acc[l] ? acc[l + w] : acc[l];
    return acc[0];
}

}  // namespace irlite::vmath
