// The level index of each float of a row (the FakeQuantize's formula of
// engine/quantized_input.hpp's quantized_level) in a form that vectorises: the int8 layers'
// quantizing loops (call quantize_chunk inside cpu::run_at so that it is compiled for the level).
#pragma once

#include <cstdint>
#include <cstring>

#include "engine/quantized_input.hpp"
#include "kernels/detail/cpu_isa.hpp"
#include "kernels/detail/simd.hpp"

// quantize16 passes GCC vector-extension values between inlined functions only.
#if defined(__clang__) || defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace irlite::nn {

// levels[i] = the level of x[i]: quantized_level's result, in a form that vectorises (plain
// arithmetic and min/max). Rounding to the nearest even integer is (t + 2^23) - 2^23 for
// 0 <= t < 2^23, as nearbyint rounds; every t below 0 (x <= in_low, NaN) ends at level 0 and every
// t above `steps` (x > in_high) at the top level, as in quantized_level.
inline constexpr int64_t kQuantizeChunk = 2048;
IRLITE_ISA_INLINE void quantize16(const float* x, float il, float range, float steps, uint8_t* levels) {
    using F = simd::vec_t<float, 64>;
    using I = simd::vec_t<int32_t, 64>;
    using B = simd::vec_t<uint8_t, 16>;
    const F zero = F{} + 0.f, top = F{} + steps, magic = F{} + 8388608.f;
    F v;
    std::memcpy(&v, x, sizeof v);
    const F t = (v - il) / range * steps;
    F r = (t + magic) - magic;
    r = r > zero ? r : zero;
    r = r < top ? r : top;
    const B bytes = __builtin_convertvector(__builtin_convertvector(r, I), B);
    std::memcpy(levels, &bytes, sizeof bytes);
}
// In blocks of 16 (a zmm's floats), the last one through a zero-padded copy: small planes (4x4,
// 8x8) would otherwise spend their time in the compiler's scalar remainder loop.
inline void quantize_chunk(const float* x, int64_t n, float il, float ih, float steps, uint8_t* levels) {
    const float range = ih - il;
    const int64_t whole = n / 16 * 16;
    for (int64_t i = 0; i < whole; i += 16) quantize16(x + i, il, range, steps, levels + i);
    if (whole < n) {
        float tail[16] = {};
        uint8_t out[16];
        std::memcpy(tail, x + whole, static_cast<size_t>(n - whole) * sizeof(float));
        quantize16(tail, il, range, steps, out);
        std::memcpy(levels + whole, out, static_cast<size_t>(n - whole));
    }
}

}  // namespace irlite::nn

#if defined(__clang__) || defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
