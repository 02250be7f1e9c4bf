// The int8 depthwise convolution's fast blocks (convolution_int8_depthwise.hpp): per step one
// 64-byte load, one vpermb giving each lane its four taps' levels, one vpdpbusd adding their
// products to the lane's int32 sum; then the same conversion, product and sum as the portable
// blocks. Compiled for AVX-512 VBMI and VNNI by target attributes; called only on such a CPU
// (int8_depthwise_runs_fast).
#include "kernels/nn/convolution_int8_depthwise.hpp"

#include <algorithm>
#include <cstddef>

#include "engine/isa_trace.hpp"
#include "kernels/detail/quantize_levels_avx512.hpp"

#if IRLITE_ISA_X86
#include <immintrin.h>

// GCC 12's AVX-512 headers start masked builtins from _mm512_undefined_*() (a false positive).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace irlite::nn::dw {
namespace {

// IRLITE_TARGET_AVX512's features and VBMI, VNNI (a superset: its helpers inline here).
#define IRLITE_TARGET_VBMI \
    __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma,f16c,bmi,bmi2,lzcnt,movbe,popcnt,avx512vbmi,avx512vnni")))

// The first n bytes of a 64-byte vector (all of them from 64 on).
inline __mmask64 first_bytes(int64_t n) { return n >= 64 ? ~__mmask64{0} : (__mmask64{1} << n) - 1; }

template <bool PerLane>
IRLITE_TARGET_VBMI inline __attribute__((always_inline)) __m512i lane_vector(const int32_t* values) {
    if constexpr (PerLane) return _mm512_loadu_si512(values);
    else return _mm512_set1_epi32(values[0]);
}

// The window of a block at `at`: 64 bytes, or in the direct tiling the unit's `valid` bytes of
// data and the zero level after them.
template <bool Direct>
IRLITE_TARGET_VBMI inline __attribute__((always_inline)) __m512i window_at(const uint8_t* at, __mmask64 valid,
                                                                           __m512i zero) {
    if constexpr (Direct) return _mm512_mask_loadu_epi8(zero, valid, at);
    else return _mm512_loadu_si512(at);
}

// Steps known at compile time (Steps > 0: a 3x3 kernel's three) keep the permutations in
// registers across the units; Steps 0 reads them per block.
template <int Steps, bool PerLane, bool Direct>
IRLITE_TARGET_VBMI void blocks(const Int8DepthwisePlan& plan, const Units& units) {
    const int steps = Steps > 0 ? Steps : static_cast<int>(plan.window.size());
    const int64_t lv = plan.lane_values, unit_terms = plan.unit_terms();
    const int64_t unit_out = plan.unit_outputs();
    constexpr int kHeld = Steps > 0 ? Steps : 1;
    __m512i held_index[kHeld];
    int64_t held_window[kHeld];
    if constexpr (Steps > 0) {
        for (int s = 0; s < Steps; ++s) {
            held_index[s] = _mm512_loadu_si512(plan.index.data() + s * kDepthwiseWindow);
            held_window[s] = plan.window[static_cast<size_t>(s)];
        }
    }
    const __m512i zero = _mm512_set1_epi8(static_cast<char>(plan.zero_index));
    const int64_t unit_bytes = plan.group * plan.h.in * plan.w.in;  // direct
    const size_t blocks_n = plan.block_in.size();
    const int64_t* block_in = plan.block_in.data();
    const int64_t* block_out = plan.block_out.data();
    const int32_t* block_lanes = plan.block_lanes.data();
    // Where the lanes go: the buffer (all 16), or y's floats or levels (the block's lanes).
    const int store = !plan.stores_y ? 0 : plan.writes_levels ? 2 : 1;
    const Int8Quantizer& oq = plan.out_quantizer;
    const __m512 il = _mm512_set1_ps(oq.in_low), range = _mm512_set1_ps(oq.in_high - oq.in_low);
    const __m512 top = _mm512_set1_ps(oq.steps);
    const uint8_t* in = units.in;
    const int32_t* terms = units.terms;
    auto* out = static_cast<std::byte*>(units.out);
    const int64_t out_bytes = unit_out * (store == 2 ? 1 : 4);
    for (int64_t u = 0; u < units.count; ++u, in += units.in_stride, terms += unit_terms, out += out_bytes) {
        const bool last = u + 1 == units.count;
        const int64_t bytes = last ? units.last_valid : unit_bytes;
        const __mmask64 valid = first_bytes(bytes);
        __m512i held_weights[kHeld];
        if constexpr (Steps > 0)
            for (int s = 0; s < Steps; ++s) held_weights[s] = lane_vector<PerLane>(terms + s * lv);
        const __m512i start = lane_vector<PerLane>(terms + steps * lv);
        const __m512 alpha = _mm512_castsi512_ps(lane_vector<PerLane>(terms + (steps + 1) * lv));
        const __m512 beta = _mm512_castsi512_ps(lane_vector<PerLane>(terms + (steps + 2) * lv));
        for (size_t b = 0; b < blocks_n; ++b) {
            const uint8_t* base = in + block_in[b];
            __m512i acc = start;
            if constexpr (Steps > 0) {
                for (int s = 0; s < Steps; ++s) {
                    const __m512i taps =
                        _mm512_permutexvar_epi8(held_index[s], window_at<Direct>(base + held_window[s], valid, zero));
                    acc = _mm512_dpbusd_epi32(acc, taps, held_weights[s]);
                }
            } else {
                for (int s = 0; s < steps; ++s) {
                    const __m512i index = _mm512_loadu_si512(plan.index.data() + s * kDepthwiseWindow);
                    const __m512i window = window_at<Direct>(base + plan.window[static_cast<size_t>(s)], valid, zero);
                    acc = _mm512_dpbusd_epi32(acc, _mm512_permutexvar_epi8(index, window), lane_vector<PerLane>(terms + s * lv));
                }
            }
            const __m512 y = _mm512_add_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(acc), alpha), beta);
            if (store == 0) {
                _mm512_storeu_ps(reinterpret_cast<float*>(out) + block_out[b], y);
                continue;
            }
            const int64_t lanes = last ? std::min<int64_t>(block_lanes[b], units.last_lanes) : block_lanes[b];
            const auto mask = static_cast<__mmask16>(lanes >= 16 ? 0xFFFF : (1u << lanes) - 1);
            if (store == 1) {
                _mm512_mask_storeu_ps(reinterpret_cast<float*>(out) + block_out[b], mask, y);
                continue;
            }
            // Narrowed in a register, then stored (vpmovdb to memory is slow on AMD's cores).
            const __m128i levels = _mm512_mask_cvtepi32_epi8(_mm_setzero_si128(), 0xFFFF, levels16_i32_avx512(y, il, range, top));
            uint8_t* to = reinterpret_cast<uint8_t*>(out) + block_out[b];
            if (lanes >= 16) _mm_storeu_si128(reinterpret_cast<__m128i*>(to), levels);
            else _mm_mask_storeu_epi8(to, mask, levels);
        }
    }
}

template <int Steps, bool PerLane>
void blocks_of(const Int8DepthwisePlan& plan, const Units& units) {
    if (plan.direct) blocks<Steps, PerLane, true>(plan, units);
    else blocks<Steps, PerLane, false>(plan, units);
}

}  // namespace

IRLITE_TARGET_VBMI void fill_fast(const Int8DepthwisePlan& plan, const uint8_t* levels, int64_t n, uint8_t* padded) {
    const int64_t plane = plan.rows * plan.cols, cols = plan.cols, in_h = plan.h.in, in_w = plan.w.in;
    const __m512i zero = _mm512_set1_epi8(static_cast<char>(plan.zero_index));
    const int64_t bytes = plan.unit_bytes;
    for (int64_t i = 0; i < bytes; i += 64) {
        _mm512_mask_storeu_epi8(padded + i, first_bytes(bytes - i), zero);
    }
    uint8_t* first = padded + plan.h.pad_begin * cols + plan.w.pad_begin;
    for (int64_t ch = 0; ch < n; ++ch)
        for (int64_t y = 0; y < in_h; ++y) {
            uint8_t* to = first + ch * plane + y * cols;
            const uint8_t* from = levels + (ch * in_h + y) * in_w;
            for (int64_t i = 0; i < in_w; i += 64) {
                const __mmask64 m = first_bytes(in_w - i);
                _mm512_mask_storeu_epi8(to + i, m, _mm512_maskz_loadu_epi8(m, from + i));
            }
        }
}

void units_fast(const Int8DepthwisePlan& plan, const Units& units) {
    record_isa_level(kIsaTraceAvx512Vnni);
    const bool per_lane = plan.lane_values != 1;
    if (plan.window.size() == 3) {
        if (per_lane) blocks_of<3, true>(plan, units);
        else blocks_of<3, false>(plan, units);
    } else if (per_lane) {
        blocks_of<0, true>(plan, units);
    } else {
        blocks_of<0, false>(plan, units);
    }
}

}  // namespace irlite::nn::dw
#endif
