// Scalar math written so that the compiler vectorises it at any width, for kernels that run at
// the CPU's instruction-set level (cpu_isa.hpp's cpu::run / run_at): the same IEEE operations per
// element at every level, so results do not depend on the level (no FMA: -ffp-contract=off).
//
//   exp_f32(x)          e^x, within 1 ulp of the exact value on [-87.3, 88.7] (checked on every
//                       third float there, isa_dispatch_test samples it); 0
//                       below (flush), +inf above, NaN stays NaN. No libm call, no float->int
//                       conversion (defined for every input, UBSan-clean).
//   sigmoid_f32(x)      1 / (1 + e^-x) from exp_f32; tanh_f32(x) an odd polynomial near 0 and
//                       (1 - e) / (1 + e), e = e^(-2|x|), above: within 2 ulp (see below).
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

// tanh(x) within 2 ulp (see isa_dispatch_test: every 7th float in [-20, 20] and the specials).
// |x| < 0.625: x + x^3 P(x^2), Cephes' degree-4 minimax polynomial for tanhf (no cancellation near
// 0, and x itself for tiny x); above: (1 - e) / (1 + e) with e = e^(-2|x|) in (0, 0.29], which
// tends to 1 (e flushes to 0 for |x| > 43.7: no inf / inf). Both are computed and one is selected,
// so the loop has no branch; the sign is x's (tanh(-0) = -0), and NaN stays NaN (the compare fails,
// e^NaN is NaN).
IRLITE_ISA_INLINE float tanh_f32(float x) {
    const float a = __builtin_fabsf(x);
    const float z = a * a;
    float p = -5.70498872745e-3f;
    p = p * z + 2.06390887954e-2f;
    p = p * z - 5.37397155531e-2f;
    p = p * z + 1.33314422036e-1f;
    p = p * z - 3.33332819422e-1f;
    const float small = a + a * (z * p);
    const float e = exp_f32(-2.0f * a);
    const float large = (1.0f - e) / (1.0f + e);
    const float t = a < 0.625f ? small : large;
    return __builtin_copysignf(t, x);
}

// Gelu's tanh form 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), the Gelu-7 op's and the fused
// epilogue's (the same bits either way).
IRLITE_ISA_INLINE float gelu_tanh_f32(float x) {
    return 0.5f * x * (1.0f + tanh_f32(0.79788456080286535588f * (x + 0.044715f * x * x * x)));
}

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
