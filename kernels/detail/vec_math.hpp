// Scalar math written so that the compiler vectorises it at any width, for kernels that run at
// the CPU's instruction-set level (cpu_isa.hpp's cpu::run / run_at): the same IEEE operations per
// element at every level, so results do not depend on the level (no FMA: -ffp-contract=off).
//
//   exp_f32(x)          e^x, within 1 ulp of the exact value on [-87.3, 88.7] (checked on every
//                       third float there, isa_dispatch_test samples it); 0
//                       below (flush), +inf above, NaN stays NaN. No libm call, no float->int
//                       conversion (defined for every input, UBSan-clean).
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
