// What every int8 layer (convolution_int8.hpp, mat_mul_int8.hpp) derives from its QuantizedInput:
// the quantizer of its data (the FakeQuantize's level formula of engine/quantized_input.hpp, in a
// form that vectorises) and, per output row of its GEMM, the terms that turn the integer sums into
// floats (igemm.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "engine/epilogue.hpp"
#include "engine/quantized_input.hpp"
#include "kernels/detail/apply_epilogue.hpp"
#include "kernels/detail/cpu_isa.hpp"
#include "kernels/detail/igemm.hpp"
#include "kernels/detail/simd.hpp"

// quantize16 passes GCC vector-extension values between inlined functions only.
#if defined(__clang__) || defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace irlite::nn {

// levels[i] = the level of x[i] (quantized_input.hpp's formula) in a form that vectorises (plain
// arithmetic and min/max). Rounding to the nearest even integer is (t + 2^23) - 2^23 for
// 0 <= t < 2^23, as nearbyint rounds; every t below 0 (x <= in_low, NaN) ends at level 0 and every
// t above `steps` (x > in_high) at the top level.
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

// The data's quantizer: its range, levels and the level of 0, and the level its loop runs at.
struct Int8Quantizer {
    float in_low = 0, in_high = 0, steps = 255;
    uint8_t zero_level = 0;
    cpu::Isa isa = cpu::Isa::Sse;

    Int8Quantizer() = default;
    Int8Quantizer(const QuantizedInput& q, cpu::Isa level)
        : in_low(q.in_low), in_high(q.in_high), steps(static_cast<float>(q.levels - 1)),
          zero_level(static_cast<uint8_t>(q.zero_index)), isa(level) {}
    // The quantizer of a layer's u8 output (QuantizedInput::levels_out); zero_level is unused.
    Int8Quantizer(const QuantizedInput::LevelQuantizer& q, cpu::Isa level)
        : in_low(q.in_low), in_high(q.in_high), steps(static_cast<float>(q.levels - 1)), isa(level) {}
    // levels[0, n) = the levels of x[0, n).
    // AVX2 and AVX-512 in intrinsics (quantize_levels.cpp), bit-identical to quantize_chunk.
    void quantize(const float* x, int64_t n, uint8_t* levels) const;
    // Four channels' data as the int8 GEMM's quads, `lines` lines of n elements (line l of channel
    // j at rows[j] + l * stride; of quads at quads + l * quad_stride bytes): quads[4 i + j] = the
    // level of channel j's element i, zero_level where rows[j] is null (channels past the data's).
    // The same levels as quantize, without rows of levels in between. levels_as_quads: the data
    // is u8 levels already.
    struct QuadLines {
        int64_t lines = 1, n = 0, stride = 0, quad_stride = 0;
    };
    void quantize_quads(const float* const (&rows)[4], const QuadLines& at, uint8_t* quads) const;
    void levels_as_quads(const uint8_t* const (&rows)[4], const QuadLines& at, uint8_t* quads) const;
};

// Whether quantizer.quantize(FakeQuantize(x)) == quantizer.quantize(x) for every x (an epilogue's
// FakeQuantize the layer may skip when it writes levels under that quantizer).
bool fake_quantize_then_levels_is_levels(const EpilogueFakeQuantize& fq, const Int8Quantizer& quantizer);

// An epilogue's FakeQuantize of another range before the readers' levels, as a map: each output's
// level under the FakeQuantize's own range (`quantizer`), then `level[k]`, the readers' level of
// level k's value. That is readers.quantize(FakeQuantize(x)) for every x when the FakeQuantize's
// range is increasing and its levels fit a byte, and its top level's value (k / steps * (oh -
// ol) + ol at k = steps, the op's form) gets the readers' level of out_high (the top is out_high
// itself above the range), and level 0's value that of out_low (x <= in_low). NaN, which the
// FakeQuantize passes on and the readers quantize to 0, gets level[0]: `nan_safe` says whether
// that is 0 too (else the layer must not produce NaN: no residual). nullopt where no map is exact.
struct LevelMap {
    Int8Quantizer quantizer;
    std::array<uint8_t, 256> level{};
    bool nan_safe = false;
};
std::optional<LevelMap> fake_quantize_as_level_map(const EpilogueFakeQuantize& fq, const Int8Quantizer& readers);

// Whether quantizer.quantize(act(x)) == quantizer.quantize(x) for every x: a ReLU, or a Clamp
// whose range holds the quantizer's input range (ReLU6 before levels of [0, 6] or narrower). Below
// the range both give level 0 (x <= in_low, NaN too), above it the top: act(x) >= in_high, and
// in_high itself maps to (in_high - in_low) / (in_high - in_low) * steps = steps.
bool activation_then_levels_is_levels(const Activation& act, const Int8Quantizer& quantizer);

// What an int8 layer's kernel applies after its sums (its bias is in its own terms): `fused`
// without the bias, and without the activation or FakeQuantize that make no difference to what
// follows them (the FakeQuantize, or the levels under `levels_out` when the layer writes levels).
FusedEpilogue int8_layer_epilogue(const FusedEpilogue& fused, const Int8Quantizer* levels_out);

// out[i] = table[in[i]] for i < n, tables of 256 entries: a FakeQuantize node's map of its levels
// to its readers' levels or to its values (fake_quantize.cpp). Lookups, the same at every level:
// at AVX-512 with VBMI the byte map is two two-register byte permutes and a blend per 64 bytes,
// the value map a gather per 8 (AVX2) or 16 (AVX-512) levels; else one element at a time.
void lookup_levels(const uint8_t* table, const uint8_t* in, int64_t n, uint8_t* out, cpu::Isa isa);
void lookup_levels(const float* table, const uint8_t* in, int64_t n, float* out, cpu::Isa isa);

// Per output row m of the GEMM (an output channel): C = float(start + sum) * alpha + beta with
// alpha = weight_scale * out_step, start = -zero_index * sum(w[m]) and beta = the fused bias
// - alpha * zero_offset * sum(w[m]) (rounded once, from doubles); padded with zeros by `padding`
// rows (the column form reads whole panel pairs).
struct Int8RowTerms {
    std::vector<float> alpha, beta;
    std::vector<int32_t> start;

    Int8RowTerms() = default;
    Int8RowTerms(const QuantizedInput& q, const Int8Weights& w, const std::vector<float>& bias, int64_t padding) {
        const auto padded = static_cast<size_t>(w.rows + padding);
        alpha.assign(padded, 0.f), beta.assign(padded, 0.f), start.assign(padded, 0);
        for (size_t i = 0; i < static_cast<size_t>(w.rows); ++i) {
            alpha[i] = q.weight_scale[q.weight_scale.size() == 1 ? 0 : i] * q.out_step;
            const double b = bias.empty() ? 0.0 : bias[bias.size() == 1 ? 0 : i];
            beta[i] = static_cast<float>(b - static_cast<double>(alpha[i]) * q.zero_offset * w.row_sums[i]);
            start[i] = -q.zero_index * w.row_sums[i];
        }
    }
};

}  // namespace irlite::nn

#if defined(__clang__) || defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
