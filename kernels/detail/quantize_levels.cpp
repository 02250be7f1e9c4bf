// The quantizer's loop at each level (quantize_levels.hpp). The generic form is GCC vector
// extensions; at AVX2 GCC lowers its min/max and the int32 -> u8 narrowing lane by lane, so the
// x86 levels spell the same operations in intrinsics (same order, same roundings: the levels are
// bit-identical at every level).
#include "kernels/detail/quantize_levels.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "kernels/detail/fake_quantize_row.hpp"
#include "kernels/detail/quantize_levels_avx512.hpp"

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
IRLITE_TARGET_AVX2 __m256i levels8_i32_avx2(__m256 x, __m256 il, __m256 range, __m256 steps) {
    const __m256 magic = _mm256_set1_ps(8388608.f);
    const __m256 t = _mm256_mul_ps(_mm256_div_ps(_mm256_sub_ps(x, il), range), steps);
    __m256 r = _mm256_sub_ps(_mm256_add_ps(t, magic), magic);
    r = _mm256_min_ps(_mm256_max_ps(r, _mm256_setzero_ps()), steps);
    return _mm256_cvttps_epi32(r);
}

IRLITE_TARGET_AVX2 __m256i levels8_avx2(const float* x, __m256 il, __m256 range, __m256 steps) {
    return levels8_i32_avx2(_mm256_loadu_ps(x), il, range, steps);
}

// Int8Quantizer::quantize_quads at AVX2: 8 pixels at a time, as quads_avx512 below; a line's last
// pixels through masked loads and stores (a u8 row's through a copy: AVX2 has no byte mask).
template <class Row>
IRLITE_TARGET_AVX2 void quads_avx2(const Row& row, const Int8Quantizer::QuadLines& at, uint8_t* quads) {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for (int64_t l = 0; l < at.lines; ++l) {
        const int64_t from = l * at.stride;
        uint8_t* out = quads + l * at.quad_stride;
        for (int64_t i = 0; i < at.n; i += 8) {
            const int64_t left = std::min<int64_t>(at.n - i, 8);
            const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(left)), lane);
            __m256i q = row.load(0, from + i, left, mask);
            q = _mm256_or_si256(q, _mm256_slli_epi32(row.load(1, from + i, left, mask), 8));
            q = _mm256_or_si256(q, _mm256_slli_epi32(row.load(2, from + i, left, mask), 16));
            q = _mm256_or_si256(q, _mm256_slli_epi32(row.load(3, from + i, left, mask), 24));
            if (left == 8)
                _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 4 * i), q);
            else
                _mm256_maskstore_epi32(reinterpret_cast<int*>(out + 4 * i), mask, q);
        }
    }
}

struct FloatRowsAvx2 {
    const float* const (&rows)[4];
    __m256 il, range, steps;
    __m256i zero_level;
    IRLITE_TARGET_AVX2 __m256i load(int j, int64_t at, int64_t left, __m256i mask) const {
        if (!rows[j]) return zero_level;
        const __m256 x = left == 8 ? _mm256_loadu_ps(rows[j] + at) : _mm256_maskload_ps(rows[j] + at, mask);
        return levels8_i32_avx2(x, il, range, steps);
    }
};

struct LevelRowsAvx2 {
    const uint8_t* const (&rows)[4];
    __m256i zero_level;
    IRLITE_TARGET_AVX2 __m256i load(int j, int64_t at, int64_t left, __m256i) const {
        if (!rows[j]) return zero_level;
        uint64_t bytes = 0;
        if (left == 8)
            __builtin_memcpy(&bytes, rows[j] + at, 8);
        else
            __builtin_memcpy(&bytes, rows[j] + at, static_cast<size_t>(left));
        return _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(static_cast<long long>(bytes)));
    }
};

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
    return _mm512_mask_cvtepi32_epi8(_mm_setzero_si128(), 0xFFFF, levels16_i32_avx512(_mm512_loadu_ps(x), il, range, steps));
}

// Every lane: the zero-masking forms below stand for the plain ones, whose undefined placeholder
// GCC 12 flags as "maybe uninitialized" (the same instructions).
constexpr __mmask16 kAll = 0xFFFF;

// Quads of 16 pixels at a time: four rows' levels as int32 lanes, each shifted to its byte of the
// quad and joined; a line's last pixels through masked loads and a masked store. Source: channel
// j's elements from `at` on under `mask` as int32 levels (Row::load).
template <class Row>
IRLITE_TARGET_AVX512 void quads_avx512(const Row& row, const Int8Quantizer::QuadLines& at, uint8_t* quads) {
    for (int64_t l = 0; l < at.lines; ++l) {
        const int64_t from = l * at.stride;
        uint8_t* out = quads + l * at.quad_stride;
        for (int64_t i = 0; i < at.n; i += 16) {
            const int64_t left = at.n - i;
            const __mmask16 mask = left >= 16 ? kAll : static_cast<__mmask16>((1u << left) - 1);
            __m512i q = row.load(0, from + i, mask);
            q = _mm512_or_si512(q, _mm512_maskz_slli_epi32(kAll, row.load(1, from + i, mask), 8));
            q = _mm512_or_si512(q, _mm512_maskz_slli_epi32(kAll, row.load(2, from + i, mask), 16));
            q = _mm512_or_si512(q, _mm512_maskz_slli_epi32(kAll, row.load(3, from + i, mask), 24));
            _mm512_mask_storeu_epi32(out + 4 * i, mask, q);
        }
    }
}

struct FloatRowsAvx512 {
    const float* const (&rows)[4];
    __m512 il, range, steps;
    __m512i zero_level;
    IRLITE_TARGET_AVX512 __m512i load(int j, int64_t at, __mmask16 mask) const {
        if (!rows[j]) return zero_level;
        return levels16_i32_avx512(_mm512_maskz_loadu_ps(mask, rows[j] + at), il, range, steps);
    }
};

struct LevelRowsAvx512 {
    const uint8_t* const (&rows)[4];
    __m512i zero_level;
    IRLITE_TARGET_AVX512 __m512i load(int j, int64_t at, __mmask16 mask) const {
        if (!rows[j]) return zero_level;
        return _mm512_maskz_cvtepu8_epi32(kAll, _mm_maskz_loadu_epi8(mask, rows[j] + at));
    }
};

IRLITE_TARGET_AVX2 void quantize_quads_avx2(const Int8Quantizer& z, const float* const (&rows)[4],
                                            const Int8Quantizer::QuadLines& at, uint8_t* quads) {
    const FloatRowsAvx2 source{rows, _mm256_set1_ps(z.in_low), _mm256_set1_ps(z.in_high - z.in_low),
                               _mm256_set1_ps(z.steps), _mm256_set1_epi32(z.zero_level)};
    quads_avx2(source, at, quads);
}

IRLITE_TARGET_AVX2 void levels_as_quads_avx2(const uint8_t* const (&rows)[4], const Int8Quantizer::QuadLines& at,
                                             uint8_t zero_level, uint8_t* quads) {
    quads_avx2(LevelRowsAvx2{rows, _mm256_set1_epi32(zero_level)}, at, quads);
}

IRLITE_TARGET_AVX512 void quantize_quads_avx512(const Int8Quantizer& z, const float* const (&rows)[4],
                                                const Int8Quantizer::QuadLines& at, uint8_t* quads) {
    const FloatRowsAvx512 source{rows, _mm512_set1_ps(z.in_low), _mm512_set1_ps(z.in_high - z.in_low),
                                 _mm512_set1_ps(z.steps), _mm512_set1_epi32(z.zero_level)};
    quads_avx512(source, at, quads);
}

IRLITE_TARGET_AVX512 void levels_as_quads_avx512(const uint8_t* const (&rows)[4], const Int8Quantizer::QuadLines& at,
                                                 uint8_t zero_level, uint8_t* quads) {
    quads_avx512(LevelRowsAvx512{rows, _mm512_set1_epi32(zero_level)}, at, quads);
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

// out[4 i + j] = row j's byte i: four rows of levels as quads (SSE2 unpacks where x86 has them).
void interleave4(const uint8_t* const (&r)[4], int64_t count, uint8_t* out) {
    int64_t n = 0;
#if IRLITE_ISA_X86
    for (; n + 16 <= count; n += 16) {
        const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r[0] + n));
        const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r[1] + n));
        const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r[2] + n));
        const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r[3] + n));
        const __m128i ab_lo = _mm_unpacklo_epi8(a, b), ab_hi = _mm_unpackhi_epi8(a, b);
        const __m128i cd_lo = _mm_unpacklo_epi8(c, d), cd_hi = _mm_unpackhi_epi8(c, d);
        __m128i* o = reinterpret_cast<__m128i*>(out + 4 * n);
        _mm_storeu_si128(o + 0, _mm_unpacklo_epi16(ab_lo, cd_lo));
        _mm_storeu_si128(o + 1, _mm_unpackhi_epi16(ab_lo, cd_lo));
        _mm_storeu_si128(o + 2, _mm_unpacklo_epi16(ab_hi, cd_hi));
        _mm_storeu_si128(o + 3, _mm_unpackhi_epi16(ab_hi, cd_hi));
    }
#endif
    for (; n < count; ++n)
        for (int j = 0; j < 4; ++j) out[4 * n + j] = r[j][n];
}

// The portable form: each line's levels (or copy) in chunks, then interleaved.
template <class T, class Levels>
void quads_portable(const T* const (&rows)[4], const Int8Quantizer::QuadLines& at, uint8_t zero_level, uint8_t* quads,
                    const Levels& levels) {
    alignas(64) uint8_t chunk[4][kQuantizeChunk];
    const uint8_t* const chunks[4] = {chunk[0], chunk[1], chunk[2], chunk[3]};
    for (int64_t l = 0; l < at.lines; ++l)
        for (int64_t i0 = 0; i0 < at.n; i0 += kQuantizeChunk) {
            const int64_t m = std::min(kQuantizeChunk, at.n - i0);
            for (int j = 0; j < 4; ++j) {
                if (rows[j])
                    levels(rows[j] + l * at.stride + i0, m, chunk[j]);
                else
                    std::memset(chunk[j], zero_level, static_cast<size_t>(m));
            }
            interleave4(chunks, m, quads + l * at.quad_stride + 4 * i0);
        }
}

}  // namespace

void Int8Quantizer::quantize_quads(const float* const (&rows)[4], const QuadLines& at, uint8_t* quads) const {
#if IRLITE_ISA_X86
    if (isa == cpu::Isa::Avx512) return quantize_quads_avx512(*this, rows, at, quads);
    if (isa == cpu::Isa::Avx2) return quantize_quads_avx2(*this, rows, at, quads);
#endif
    quads_portable(rows, at, zero_level, quads,
                   [&](const float* x, int64_t m, uint8_t* levels) { quantize(x, m, levels); });
}

void Int8Quantizer::levels_as_quads(const uint8_t* const (&rows)[4], const QuadLines& at, uint8_t* quads) const {
#if IRLITE_ISA_X86
    if (isa == cpu::Isa::Avx512) return levels_as_quads_avx512(rows, at, zero_level, quads);
    if (isa == cpu::Isa::Avx2) return levels_as_quads_avx2(rows, at, zero_level, quads);
#endif
    quads_portable(rows, at, zero_level, quads, [](const uint8_t* x, int64_t m, uint8_t* levels) {
        std::memcpy(levels, x, static_cast<size_t>(m));
    });
}

#if IRLITE_ISA_X86
namespace {

__attribute__((target("avx512f,avx512bw,avx512vbmi"))) void lookup_bytes_vbmi(const uint8_t* table, const uint8_t* in,
                                                                             int64_t n, uint8_t* out) {
    const __m512i t0 = _mm512_loadu_si512(table), t1 = _mm512_loadu_si512(table + 64);
    const __m512i t2 = _mm512_loadu_si512(table + 128), t3 = _mm512_loadu_si512(table + 192);
    for (int64_t i = 0; i < n; i += 64) {
        const __mmask64 mask = n - i >= 64 ? ~__mmask64{0} : (__mmask64{1} << (n - i)) - 1;
        const __m512i idx = _mm512_maskz_loadu_epi8(mask, in + i);
        // Bits 0-6 pick from the table's low or high half; bit 7 which half.
        const __m512i low = _mm512_permutex2var_epi8(t0, idx, t1), high = _mm512_permutex2var_epi8(t2, idx, t3);
        _mm512_mask_storeu_epi8(out + i, mask, _mm512_mask_blend_epi8(_mm512_movepi8_mask(idx), low, high));
    }
}

IRLITE_TARGET_AVX512 void lookup_floats_avx512(const float* table, const uint8_t* in, int64_t n, float* out) {
    for (int64_t i = 0; i < n; i += 16) {
        const __mmask16 mask = n - i >= 16 ? kAll : static_cast<__mmask16>((1u << (n - i)) - 1);
        const __m512i idx = _mm512_maskz_cvtepu8_epi32(kAll, _mm_maskz_loadu_epi8(mask, in + i));
        _mm512_mask_storeu_ps(out + i, mask, _mm512_mask_i32gather_ps(_mm512_setzero_ps(), mask, idx, table, 4));
    }
}

IRLITE_TARGET_AVX2 void lookup_floats_avx2(const float* table, const uint8_t* in, int64_t n, float* out) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256i idx = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(in + i)));
        _mm256_storeu_ps(out + i, _mm256_i32gather_ps(table, idx, 4));
    }
    for (; i < n; ++i) out[i] = table[in[i]];
}

}  // namespace
#endif

void lookup_levels(const uint8_t* table, const uint8_t* in, int64_t n, uint8_t* out, cpu::Isa isa) {
#if IRLITE_ISA_X86
    if (isa == cpu::Isa::Avx512 && cpu::has_avx512_vbmi()) return lookup_bytes_vbmi(table, in, n, out);
#endif
    (void)isa;
    for (int64_t i = 0; i < n; ++i) out[i] = table[in[i]];
}

void lookup_levels(const float* table, const uint8_t* in, int64_t n, float* out, cpu::Isa isa) {
#if IRLITE_ISA_X86
    if (isa == cpu::Isa::Avx512) return lookup_floats_avx512(table, in, n, out);
    if (isa == cpu::Isa::Avx2) return lookup_floats_avx2(table, in, n, out);
#endif
    (void)isa;
    for (int64_t i = 0; i < n; ++i) out[i] = table[in[i]];
}

void Int8Quantizer::quantize(const float* x, int64_t n, uint8_t* levels) const {
#if IRLITE_ISA_X86
    if (isa == cpu::Isa::Avx512) return quantize_avx512(x, n, in_low, in_high, steps, levels);
    if (isa == cpu::Isa::Avx2) return quantize_avx2(x, n, in_low, in_high, steps, levels);
#endif
    cpu::run_at(isa, [&] { quantize_chunk(x, n, in_low, in_high, steps, levels); });
}

// Whether quantizer.quantize(FakeQuantize(x)) == quantizer.quantize(x) for every x: the same input
// range and levels, and the quantizer giving back each level's FakeQuantize value its level (the
// ends included). Then FakeQuantize(x) is either an end (level 0 or the top, as x itself) or level
// q(x)'s value, q being the quantizer's own formula; NaN gives level 0 both ways.
bool fake_quantize_then_levels_is_levels(const EpilogueFakeQuantize& fq, const Int8Quantizer& quantizer) {
    if (!fq.active || fq.in_low != quantizer.in_low || fq.in_high != quantizer.in_high ||
        static_cast<float>(fq.levels - 1) != quantizer.steps)
        return false;
    // The map from the quantizer's levels to those of the FakeQuantize's values, each level its own.
    const std::optional<LevelMap> map = fake_quantize_as_level_map(fq, quantizer);
    if (!map) return false;
    for (int64_t q = 0; q < fq.levels; ++q)
        if (map->level[static_cast<size_t>(q)] != q) return false;
    return true;
}

std::optional<LevelMap> fake_quantize_as_level_map(const EpilogueFakeQuantize& fq, const Int8Quantizer& readers) {
    if (!fq.active || !(fq.in_low < fq.in_high) || fq.levels < 2 || fq.levels > 256) return std::nullopt;
    LevelMap map;
    map.quantizer = readers;
    map.quantizer.in_low = fq.in_low, map.quantizer.in_high = fq.in_high;
    map.quantizer.steps = static_cast<float>(fq.levels - 1);
    const auto levels = static_cast<size_t>(fq.levels);
    const float steps = map.quantizer.steps, ol = fq.out_low, oh = fq.out_high;
    std::vector<float> values(levels + 3);  // each level's value, then out_high, out_low and NaN
    for (size_t q = 0; q < levels; ++q) values[q] = fake_quantize_level_value(static_cast<float>(q), steps, ol, oh);
    values[levels] = oh, values[levels + 1] = ol, values[levels + 2] = std::numeric_limits<float>::quiet_NaN();
    std::vector<uint8_t> got(values.size());
    readers.quantize(values.data(), static_cast<int64_t>(values.size()), got.data());
    if (got[levels - 1] != got[levels] || got[0] != got[levels + 1]) return std::nullopt;
    std::copy(got.begin(), got.begin() + static_cast<std::ptrdiff_t>(levels), map.level.begin());
    map.nan_safe = got[0] == got[levels + 2];
    return map;
}

bool activation_then_levels_is_levels(const Activation& act, const Int8Quantizer& quantizer) {
    if (!(quantizer.in_low < quantizer.in_high)) return false;
    if (act.kind == ActivationKind::Relu) return quantizer.in_low >= 0.f;
    return act.kind == ActivationKind::Clamp && act.alpha <= quantizer.in_low && act.beta >= quantizer.in_high;
}

FusedEpilogue int8_layer_epilogue(const FusedEpilogue& fused, const Int8Quantizer* levels_out) {
    FusedEpilogue e = fused;
    e.bias.clear();
    if (fake_quantize_absorbs(e.act, e.fake_quantize)) e.act = Activation{};
    // Written as levels under the FakeQuantize's own quantizer: its float values are skipped.
    if (levels_out && fake_quantize_then_levels_is_levels(e.fake_quantize, *levels_out)) e.fake_quantize.active = false;
    if (levels_out && !e.fake_quantize.active && activation_then_levels_is_levels(e.act, *levels_out)) e.act = Activation{};
    return e;
}

}  // namespace irlite::nn
