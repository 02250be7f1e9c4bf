#include "kernels/math/mat_mul_compressed.hpp"

#include <algorithm>
#include <cstring>

#include "engine/isa_trace.hpp"
#include "kernels/detail/parallel.hpp"

#if IRLITE_ISA_X86
#include <immintrin.h>
#endif

namespace irlite {
namespace nn {
namespace {

using RangeFn = void (*)(const CompressedWeights&, const float*, const float*, int64_t, int64_t, float*);

namespace portable {
struct V {
    static constexpr int L = 1;
    using F = float;
    using I = int32_t;
    static F zero() { return 0.f; }
    static F set1(float f) { return f; }
    static F load(const float* p) { return *p; }
    static F fmadd(F a, F b, F c) { return a * b + c; }
    static F fnmadd(F a, F b, F c) { return c - a * b; }
    static F add(F a, F b) { return a + b; }
    static F to_float(I i) { return static_cast<float>(i); }
    static I widen_u8(const uint8_t* p) { return *p; }
    static I widen_i8(const uint8_t* p) { return static_cast<int8_t>(*p); }
    static I low_u(I b) { return b & 0xF; }
    static I high_u(I b) { return b >> 4; }
    static I low_s(I b) { return (b & 0x8) ? (b & 0xF) - 16 : (b & 0xF); }
    static I high_s(I b) { return (b & 0x80) ? (b >> 4) - 16 : (b >> 4); }
    static float hsum(F a) { return a; }
};
#define CW_TARGET
#include "kernels/math/mat_mul_compressed_kernel.inl"
#undef CW_TARGET
}  // namespace portable

#if IRLITE_ISA_X86
// The vector helpers are internal and inlined at their own target.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
namespace avx2 {
#define CW_TARGET IRLITE_TARGET_AVX2
struct V {
    static constexpr int L = 8;
    using F = __m256;
    using I = __m256i;
    CW_TARGET static F zero() { return _mm256_setzero_ps(); }
    CW_TARGET static F set1(float f) { return _mm256_set1_ps(f); }
    CW_TARGET static F load(const float* p) { return _mm256_loadu_ps(p); }
    CW_TARGET static F fmadd(F a, F b, F c) { return _mm256_fmadd_ps(a, b, c); }
    CW_TARGET static F fnmadd(F a, F b, F c) { return _mm256_fnmadd_ps(a, b, c); }
    CW_TARGET static F add(F a, F b) { return _mm256_add_ps(a, b); }
    CW_TARGET static F to_float(I i) { return _mm256_cvtepi32_ps(i); }
    CW_TARGET static I widen_u8(const uint8_t* p) {
        return _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
    }
    CW_TARGET static I widen_i8(const uint8_t* p) {
        return _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
    }
    CW_TARGET static I low_u(I b) { return _mm256_and_si256(b, _mm256_set1_epi32(0xF)); }
    CW_TARGET static I high_u(I b) { return _mm256_srli_epi32(b, 4); }
    CW_TARGET static I low_s(I b) { return _mm256_srai_epi32(_mm256_slli_epi32(b, 28), 28); }
    CW_TARGET static I high_s(I b) { return _mm256_srai_epi32(_mm256_slli_epi32(b, 24), 28); }
    CW_TARGET static float hsum(F a) {
        const __m128 s = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
        const __m128 t = _mm_add_ps(s, _mm_movehl_ps(s, s));
        return _mm_cvtss_f32(_mm_add_ss(t, _mm_movehdup_ps(t)));
    }
};
#include "kernels/math/mat_mul_compressed_kernel.inl"
#undef CW_TARGET
}  // namespace avx2

namespace avx512 {
#define CW_TARGET IRLITE_TARGET_AVX512
struct V {
    static constexpr int L = 16;
    using F = __m512;
    using I = __m512i;
    CW_TARGET static F zero() { return _mm512_setzero_ps(); }
    CW_TARGET static F set1(float f) { return _mm512_set1_ps(f); }
    CW_TARGET static F load(const float* p) { return _mm512_loadu_ps(p); }
    CW_TARGET static F fmadd(F a, F b, F c) { return _mm512_fmadd_ps(a, b, c); }
    CW_TARGET static F fnmadd(F a, F b, F c) { return _mm512_fnmadd_ps(a, b, c); }
    CW_TARGET static F add(F a, F b) { return _mm512_add_ps(a, b); }
    // The masked forms with every lane set: GCC 12 flags the unmasked ones' undefined placeholder.
    CW_TARGET static F to_float(I i) { return _mm512_mask_cvtepi32_ps(_mm512_setzero_ps(), 0xFFFF, i); }
    CW_TARGET static I widen_u8(const uint8_t* p) {
        return _mm512_maskz_cvtepu8_epi32(0xFFFF, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    }
    CW_TARGET static I widen_i8(const uint8_t* p) {
        return _mm512_maskz_cvtepi8_epi32(0xFFFF, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    }
    CW_TARGET static I low_u(I b) { return _mm512_and_si512(b, _mm512_set1_epi32(0xF)); }
    CW_TARGET static I high_u(I b) { return _mm512_maskz_srli_epi32(0xFFFF, b, 4); }
    CW_TARGET static I low_s(I b) { return _mm512_maskz_srai_epi32(0xFFFF, _mm512_maskz_slli_epi32(0xFFFF, b, 28), 28); }
    CW_TARGET static I high_s(I b) { return _mm512_maskz_srai_epi32(0xFFFF, _mm512_maskz_slli_epi32(0xFFFF, b, 24), 28); }
    CW_TARGET static float hsum(F a) {
        const __m256 h = _mm256_add_ps(_mm512_maskz_extractf32x8_ps(0xFF, a, 0), _mm512_maskz_extractf32x8_ps(0xFF, a, 1));
        const __m128 s = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
        const __m128 t = _mm_add_ps(s, _mm_movehl_ps(s, s));
        return _mm_cvtss_f32(_mm_add_ss(t, _mm_movehdup_ps(t)));
    }
};
#include "kernels/math/mat_mul_compressed_kernel.inl"

// The table of scale and zero point `at` ([row][group], see table_rows).
CW_TARGET __m512 group_table(const CompressedWeights& w, __m512 codes, size_t at) {
    const __m512 code = w.zero.empty() ? codes : _mm512_sub_ps(codes, _mm512_set1_ps(w.zero[at]));
    return _mm512_mul_ps(code, _mm512_set1_ps(w.scale[at]));
}

// The weights the low nibbles of b name: from `low` alone, or with kHalves from `low` in dwords
// 0-7 and `high` in 8-15 (index (b & 15) | upper, upper = 16 in dwords 8-15).
template <bool kHalves>
CW_TARGET __m512 lookup(__m512i b, __m512 low, __m512 high, __m512i upper) {
    if constexpr (kHalves)
        return _mm512_permutex2var_ps(low, _mm512_ternarylogic_epi32(b, _mm512_set1_epi32(0xF), upper, 0xEA), high);
    else
        return _mm512_maskz_permutexvar_ps(0xFFFF, b, low);
}

// 4-bit weights through a table (plan.table: AVX-512, groups of 64 or a multiple of 128). vpermps
// picks, for each of 16 dwords, the table entry its low nibble names; the table holds the group's
// 16 weights (code - zero) * scale, each as the float decompression computes it in f32. A vector of
// 16 weights then costs a permute, a shift and an FMA, where the generic kernel widens, masks or
// shifts, converts and multiplies (1.2-1.5x slower; a form that makes each nibble a float by
// merging its bits under 2^23's, shift, merge, subtract and FMA, was slower still: more operations
// per weight). A 64-byte block holds 128 weights, dword i the weights 8i..8i+7 from its low nibble
// up, so the j-th lookup of a block meets A's elements 8i + j: prepare_row reorders A to match.
// With groups of 64 (kHalves) the block's dwords 0-7 are one group and 8-15 the next: the two
// tables sit side by side in vpermt2ps's 32 entries, and each lookup's index gets bit 4 set in the
// upper dwords (one vpternlogd: the nibble, or 16). Groups of 32 keep the generic kernel (four
// tables to a block). AVX2's vpermps indexes only 8 entries, so AVX2 keeps the generic kernel.
template <bool kSigned, bool kHalves, int R>
CW_TARGET void table_rows(const CompressedWeights& w, const float* a, int64_t n, float* y) {
    const int64_t depth = w.depth, groups = w.groups(), row_bytes = depth / 2;
    const int64_t ahead = R * row_bytes;  // as in compressed_rows
    const uint8_t* q[R];
    for (int r = 0; r < R; ++r) q[r] = w.data.data() + (n + r) * row_bytes;
    // The value of each code: u4 0..15; i4's codes 8..15 are -8..-1.
    const __m512 codes = kSigned ? _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, -8, -7, -6, -5, -4, -3, -2, -1)
                                 : _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512i upper = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 16, 16, 16, 16, 16, 16, 16, 16);
    __m512 acc0[R], acc1[R], low[R], high[R];  // the tables are set at k = 0
    for (int r = 0; r < R; ++r) acc0[r] = acc1[r] = low[r] = high[r] = _mm512_setzero_ps();
    // The next group and where it starts, stepped without a division per block.
    int64_t g = 0, group_start = 0;
    for (int64_t k = 0; k < depth; k += 128) {
        if (k == group_start) {
            for (int r = 0; r < R; ++r) {
                const auto at = static_cast<size_t>((n + r) * groups + g);
                low[r] = group_table(w, codes, at);
                high[r] = kHalves ? group_table(w, codes, at + 1) : low[r];
            }
            g += kHalves ? 2 : 1;
            group_start += kHalves ? 128 : w.group;
        }
        for (int r = 0; r < R; ++r) {
            __builtin_prefetch(q[r] + k / 2 + ahead);
            __m512i b = _mm512_loadu_si512(q[r] + k / 2);
            // Two chains per row. (Choosing the chain through a reference made GCC 12 keep the
            // accumulators in memory: 1.3x slower.)
            for (int j = 0; j < 8; j += 2) {
                const __m512 even = lookup<kHalves>(b, low[r], high[r], upper);
                acc0[r] = _mm512_fmadd_ps(even, _mm512_loadu_ps(a + k + 16 * j), acc0[r]);
                b = _mm512_maskz_srli_epi32(0xFFFF, b, 4);
                const __m512 odd = lookup<kHalves>(b, low[r], high[r], upper);
                acc1[r] = _mm512_fmadd_ps(odd, _mm512_loadu_ps(a + k + 16 * j + 16), acc1[r]);
                b = _mm512_maskz_srli_epi32(0xFFFF, b, 4);
            }
        }
    }
    for (int r = 0; r < R; ++r) y[r] = V::hsum(_mm512_add_ps(acc0[r], acc1[r]));
}

template <bool kSigned, bool kHalves>
void table_range(const CompressedWeights& w, const float* a, const float*, int64_t n0, int64_t n1, float* y) {
    int64_t n = n0;
    for (; n + 4 <= n1; n += 4) table_rows<kSigned, kHalves, 4>(w, a, n, y + n);
    for (; n < n1; ++n) table_rows<kSigned, kHalves, 1>(w, a, n, y + n);
}

inline RangeFn table_range_for(const CompressedWeights& w) {
    const bool i4 = w.format == CompressedWeights::Format::I4, halves = w.group == 64;
    if (halves) return i4 ? table_range<true, true> : table_range<false, true>;
    return i4 ? table_range<true, false> : table_range<false, false>;
}
#undef CW_TARGET
}  // namespace avx512
#pragma GCC diagnostic pop
#endif

RangeFn range_of(const CompressedMatMulPlan& plan) {
#if IRLITE_ISA_X86
    if (plan.table) return avx512::table_range_for(*plan.weights);
    if (plan.lanes == 16) return avx512::range_for(plan.weights->format);
    if (plan.lanes == 8) return avx2::range_for(plan.weights->format);
#endif
    return portable::range_for(plan.weights->format);
}

// One row of A, reordered for the level (mat_mul_compressed.hpp) into `out`, and with zero points
// the per-lane sums of each group of the reordered row into `sums` ([groups][lanes]).
void prepare_row(const CompressedMatMulPlan& plan, const float* a, float* out, float* sums) {
    const CompressedWeights& w = *plan.weights;
    const int64_t lanes = plan.lanes;
    if (plan.table) {
        for (int64_t k = 0; k < w.depth; k += 128)
            for (int64_t j = 0; j < 8; ++j)
                for (int64_t i = 0; i < 16; ++i) out[k + 16 * j + i] = a[k + 8 * i + j];
        return;
    }
    if (w.four_bit()) {
        for (int64_t k = 0; k < w.depth; k += 2 * lanes)
            for (int64_t j = 0; j < lanes; ++j) out[k + j] = a[k + 2 * j], out[k + lanes + j] = a[k + 2 * j + 1];
    } else {
        std::memcpy(out, a, static_cast<size_t>(w.depth) * sizeof(float));
    }
    if (w.zero.empty()) return;
    for (int64_t g = 0; g < w.groups(); ++g) {
        float* s = sums + g * lanes;
        std::fill(s, s + lanes, 0.f);
        for (int64_t k = g * w.group; k < (g + 1) * w.group; k += lanes)
            for (int64_t j = 0; j < lanes; ++j) s[j] += out[k + j];
    }
}

}  // namespace

int64_t CompressedMatMulPlan::a_floats() const {
    return weights->depth + (weights->zero.empty() || table ? 0 : weights->groups() * lanes);
}

size_t CompressedMatMulPlan::scratch_bytes() const {
    return static_cast<size_t>(rows * a_floats()) * sizeof(float) + 64;
}

CompressedMatMulPlan plan_compressed_mat_mul(int64_t rows, std::shared_ptr<const CompressedWeights> weights,
                                             const FusedEpilogue& epilogue, cpu::Isa isa) {
    CompressedMatMulPlan plan;
    plan.rows = rows;
    plan.epilogue = epilogue;
    // The widest level whose blocks (2 x lanes elements for 4-bit weights, lanes for 8-bit) tile
    // every group; the portable one tiles any.
    const int64_t per_lane = weights->four_bit() ? 2 : 1;
    const auto tiles = [&](int64_t lanes) { return weights->group % (lanes * per_lane) == 0; };
    // Blocks of 128 weights tile the row, with one group (or two of 64) each.
    plan.table = isa == cpu::Isa::Avx512 && weights->four_bit() && weights->depth % 128 == 0 &&
                 (weights->group % 128 == 0 || weights->group == 64);
    if (isa == cpu::Isa::Avx512 && tiles(16)) plan.lanes = 16;
    else if ((isa == cpu::Isa::Avx512 || isa == cpu::Isa::Avx2) && tiles(8)) plan.lanes = 8;
    else plan.lanes = 1;
    plan.weights = std::move(weights);
    return plan;
}

void run_compressed_mat_mul(const CompressedMatMulPlan& plan, const float* a, float* c, const float* res,
                            void* scratch, ThreadPool* pool) {
    const CompressedWeights& w = *plan.weights;
    const int64_t m_rows = plan.rows, n = w.rows, k = w.depth, stride = plan.a_floats();
    auto* prepared = static_cast<float*>(scratch);
    for (int64_t m = 0; m < m_rows; ++m)
        prepare_row(plan, a + m * k, prepared + m * stride, prepared + m * stride + k);
    const RangeFn range = range_of(plan);
    // The kernels are called directly, not through cpu::run, so the profile's ISA column is told here.
    record_isa_level(plan.lanes == 16 ? kIsaTraceAvx512 : plan.lanes == 8 ? kIsaTraceAvx2 : kIsaTraceSse);
    const FusedEpilogue& e = plan.epilogue;
    // Blocks of 64 output columns: whole 4-row kernels, and enough blocks for every thread.
    constexpr int64_t kBlock = 64;
    detail::for_chunks(pool, (n + kBlock - 1) / kBlock, 1, [&](int64_t b0, int64_t b1) {
        const int64_t n0 = b0 * kBlock, n1 = std::min(n, b1 * kBlock);
        for (int64_t m = 0; m < m_rows; ++m) {
            const float* am = prepared + m * stride;
            range(w, am, am + k, n0, n1, c + m * n);
        }
        if (e.active)
            apply_block(c + n0, n, m_rows, n1 - n0, nullptr, e.bias_at(n0), e.residual ? res + n0 : nullptr, n, e.act);
    });
}

}  // namespace nn
}  // namespace irlite
