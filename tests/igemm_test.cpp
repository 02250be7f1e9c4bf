// kernels/detail/igemm: every int8 level this CPU runs against an int64 reference, bit for bit
// (the integer sums are exact and the float conversion one fixed sequence), on shapes with edge
// panels, edge columns, depths not a multiple of 4 and extreme operands (-128, 127 x 255); and
// the data quantizer at every level against its scalar formula.
#include "kernels/detail/igemm.hpp"
#include "kernels/detail/fake_quantize_row.hpp"
#include "kernels/detail/quantize_levels.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace irlite::nn {
namespace {

const Int8Level kLevels[] = {Int8Level::Portable, Int8Level::Avx2, Int8Level::AvxVnni, Int8Level::Avx512,
                             Int8Level::Avx512Vnni};

struct Problem {
    int64_t m, n, k;
    std::vector<int8_t> a;   // [m][k]
    std::vector<uint8_t> b;  // [k][n]
    std::vector<float> alpha, beta;
    std::vector<int32_t> start;
};

Problem make_problem(int64_t m, int64_t n, int64_t k, uint32_t seed, bool extreme) {
    std::mt19937 rng(seed);
    Problem p{m, n, k, {}, {}, {}, {}, {}};
    std::uniform_int_distribution<int> wa(-128, 127), wb(0, 255);
    for (int64_t i = 0; i < m * k; ++i) p.a.push_back(static_cast<int8_t>(extreme ? (i % 3 ? -128 : 127) : wa(rng)));
    for (int64_t i = 0; i < k * n; ++i) p.b.push_back(static_cast<uint8_t>(extreme ? 255 : wb(rng)));
    std::uniform_real_distribution<float> s(1e-4f, 1e-2f), o(-1.f, 1.f);
    std::uniform_int_distribution<int32_t> st(-(1 << 20), 1 << 20);
    for (int64_t i = 0; i < m; ++i) p.alpha.push_back(s(rng)), p.beta.push_back(o(rng)), p.start.push_back(st(rng));
    return p;
}

// B in the GEMM's layout: [k / 4][ldb][4], padding columns filled with junk.
std::vector<uint8_t> pack_b(const Problem& p, int64_t ldb) {
    const int64_t quads = (p.k + 3) / 4;
    std::vector<uint8_t> b(static_cast<size_t>(quads * ldb * 4), 0xA5);
    for (int64_t q = 0; q < quads; ++q)
        for (int64_t n = 0; n < ldb; ++n)
            for (int64_t j = 0; j < 4; ++j) {
                const int64_t k = q * 4 + j;
                if (k < p.k && n < p.n) b[static_cast<size_t>((q * ldb + n) * 4 + j)] = p.b[static_cast<size_t>(k * p.n + n)];
            }
    return b;
}

std::vector<float> reference(const Problem& p) {
    std::vector<float> c(static_cast<size_t>(p.m * p.n));
    for (int64_t i = 0; i < p.m; ++i)
        for (int64_t j = 0; j < p.n; ++j) {
            int64_t s = p.start[static_cast<size_t>(i)];
            for (int64_t k = 0; k < p.k; ++k) s += int64_t{p.a[static_cast<size_t>(i * p.k + k)]} * p.b[static_cast<size_t>(k * p.n + j)];
            const float product = static_cast<float>(s) * p.alpha[static_cast<size_t>(i)];
            c[static_cast<size_t>(i * p.n + j)] = product + p.beta[static_cast<size_t>(i)];
        }
    return c;
}

TEST(Int8Gemm, EveryLevelMatchesTheExactReferenceBitForBit) {
    const struct {
        int64_t m, n, k;
        bool extreme;
    } shapes[] = {{1, 1, 1, false},   {4, 16, 4, false},  {5, 17, 7, false},   {16, 64, 64, false}, {13, 100, 27, false},
                  {64, 33, 576, false}, {7, 130, 1153, false}, {6, 70, 4096, true}, {3, 5, 3, true}};
    std::string ran;
    for (Int8Level level : kLevels) {
        if (!int8_level_supported(level)) continue;
        ran += std::string(ran.empty() ? "" : ", ") + int8_level_name(level);
        uint32_t seed = 1;
        for (const auto& s : shapes) {
            const Problem p = make_problem(s.m, s.n, s.k, seed++, s.extreme);
            const int64_t ldb = int8_padded_columns(p.n);
            const std::vector<uint8_t> b = pack_b(p, ldb);
            const Int8Weights w = pack_int8_weights(p.a.data(), p.m, p.k, p.k);
            std::vector<float> c(static_cast<size_t>(p.m * p.n), -7.f);
            int8_gemm(level, w, b.data(), ldb, 0, p.m, 0, p.n, p.alpha.data(), p.beta.data(), p.start.data(), c.data(), p.n);
            const std::vector<float> want = reference(p);
            ASSERT_EQ(0, std::memcmp(c.data(), want.data(), c.size() * sizeof(float)))
                << int8_level_name(level) << " " << s.m << "x" << s.n << "x" << s.k;
            // Sub-blocks of C (as threads take them) give the same values and touch nothing else.
            std::vector<float> parts(c.size(), -7.f);
            for (int64_t m0 = 0; m0 < p.m; m0 += 2 * kInt8Rows)
                for (int64_t n0 = 0; n0 < p.n; n0 += 24)
                    int8_gemm(level, w, b.data(), ldb, m0, std::min(p.m, m0 + 2 * kInt8Rows), n0, std::min(p.n, n0 + 24),
                              p.alpha.data(), p.beta.data(), p.start.data(), parts.data() + m0 * p.n + n0, p.n);
            ASSERT_EQ(0, std::memcmp(parts.data(), want.data(), want.size() * sizeof(float))) << int8_level_name(level);
        }

    }
    std::printf("int8 GEMM levels run on this CPU: %s\n", ran.c_str());
}

// The indexed form (B read where it lies: runs of 8 columns at their own offsets, quads at theirs)
// gives the reference's bits too. The runs are laid out in reverse order with junk between them,
// so that a kernel reading a run's neighbour, or one run's offset for another, is caught.
TEST(Int8Gemm, IndexedFormMatchesTheExactReferenceBitForBit) {
    const struct {
        int64_t m, n, k;
        bool extreme;
    } shapes[] = {{1, 8, 1, false},    {4, 16, 4, false},    {5, 24, 7, false},      {16, 64, 64, false},
                  {13, 104, 27, false}, {64, 40, 576, false}, {7, 136, 1153, false}, {6, 72, 4096, true}};
    for (Int8Level level : kLevels) {
        if (!int8_level_supported(level)) continue;
        uint32_t seed = 90;
        for (const auto& s : shapes) {
            const Problem p = make_problem(s.m, s.n, s.k, seed++, s.extreme);
            const int64_t runs = p.n / kInt8Run, quads = (p.k + 3) / 4, run_bytes = kInt8Run * 4;
            const int64_t run_step = run_bytes + 8, quad_step = runs * run_step + 24;
            std::vector<int64_t> run_offset, quad_offset;
            for (int64_t r = 0; r < runs; ++r) run_offset.push_back((runs - 1 - r) * run_step);
            for (int64_t q = 0; q < quads; ++q) quad_offset.push_back(q * quad_step);
            std::vector<uint8_t> b(static_cast<size_t>(quads * quad_step), 0xA5);
            for (int64_t k = 0; k < quads * 4; ++k)
                for (int64_t n = 0; n < p.n; ++n)
                    b[static_cast<size_t>(quad_offset[static_cast<size_t>(k / 4)] +
                                          run_offset[static_cast<size_t>(n / kInt8Run)] + (n % kInt8Run) * 4 + k % 4)] =
                        k < p.k ? p.b[static_cast<size_t>(k * p.n + n)] : 0;
            const Int8Weights w = pack_int8_weights(p.a.data(), p.m, p.k, p.k);
            const std::vector<float> want = reference(p);
            std::vector<float> c(static_cast<size_t>(p.m * p.n), -7.f);
            int8_gemm_indexed(level, w, b.data(), run_offset.data(), quad_offset.data(), 0, p.m, 0, p.n, p.alpha.data(),
                              p.beta.data(), p.start.data(), c.data(), p.n);
            ASSERT_EQ(0, std::memcmp(c.data(), want.data(), c.size() * sizeof(float)))
                << int8_level_name(level) << " " << s.m << "x" << s.n << "x" << s.k;
            std::vector<float> parts(c.size(), -7.f);
            for (int64_t m0 = 0; m0 < p.m; m0 += 2 * kInt8Rows)
                for (int64_t n0 = 0; n0 < p.n; n0 += 24)
                    int8_gemm_indexed(level, w, b.data(), run_offset.data(), quad_offset.data(), m0,
                                      std::min(p.m, m0 + 2 * kInt8Rows), n0, std::min(p.n, n0 + 24), p.alpha.data(),
                                      p.beta.data(), p.start.data(), parts.data() + m0 * p.n + n0, p.n);
            ASSERT_EQ(0, std::memcmp(parts.data(), want.data(), c.size() * sizeof(float))) << int8_level_name(level);
        }
    }
}

// The column form (rows in the lanes, columns broadcast) gives the same bits as the reference
// too, for every column count up to and past a kernel's width, and edge panels.
TEST(Int8Gemm, ColumnFormMatchesTheExactReferenceBitForBit) {
    const struct {
        int64_t m, n, k;
    } shapes[] = {{1, 1, 1}, {16, 4, 36}, {17, 3, 1152}, {128, 4, 1152}, {33, 9, 27}, {1000, 1, 1280}, {5, 16, 7}};
    for (Int8Level level : kLevels) {
        if (!int8_level_supported(level)) continue;
        uint32_t seed = 50;
        for (const auto& s : shapes) {
            Problem p = make_problem(s.m, s.n, s.k, seed++, false);
            const int64_t ldb = int8_padded_columns(p.n);
            const std::vector<uint8_t> b = pack_b(p, ldb);
            const int rows = int8_column_panel_rows(level);
            const Int8Weights w = pack_int8_weights(p.a.data(), p.m, p.k, p.k, rows);
            const std::vector<float> want = reference(p);
            const size_t padded = static_cast<size_t>(p.m + 2 * rows);
            p.alpha.resize(padded, 0.f), p.beta.resize(padded, 0.f), p.start.resize(padded, 0);
            // One row more than C: nothing may be written there.
            std::vector<float> c(static_cast<size_t>((p.m + 1) * p.n), -7.f);
            const int64_t quads = (p.k + 3) / 4;
            const std::vector<int64_t> quad_offset = int8_offsets(quads, ldb * 4), column_offset = int8_offsets(p.n, 4);
            Int8Strides strides;
            strides.quad_offset = quad_offset.data(), strides.column_offset = column_offset.data(), strides.c_row = p.n;
            int8_gemm_columns(level, w, b.data(), strides, 0, p.m, 0, p.n, p.alpha.data(), p.beta.data(), p.start.data(),
                              c.data());
            ASSERT_EQ(0, std::memcmp(c.data(), want.data(), want.size() * sizeof(float)))
                << int8_level_name(level) << " " << s.m << "x" << s.n << "x" << s.k;
            for (size_t i = want.size(); i < c.size(); ++i) ASSERT_EQ(c[i], -7.f) << int8_level_name(level) << " wrote past C";
            // Sub-blocks of C, each written through a pointer at its own first element, the last
            // first (a block writing past its rows would spoil the one after it).
            std::vector<float> parts(want.size(), -7.f);
            for (int64_t m0 = (p.m - 1) / (2 * rows) * (2 * rows); m0 >= 0; m0 -= 2 * rows)
                for (int64_t n0 = 0; n0 < p.n; n0 += 3)
                    int8_gemm_columns(level, w, b.data(), strides, m0, std::min<int64_t>(p.m, m0 + 2 * rows), n0,
                                      std::min<int64_t>(p.n, n0 + 3), p.alpha.data(), p.beta.data(), p.start.data(),
                                      parts.data() + m0 * p.n + n0);
            ASSERT_EQ(0, std::memcmp(parts.data(), want.data(), want.size() * sizeof(float))) << int8_level_name(level);
            // B row-major by column ([n][quads][4]) and C transposed (C^T[n][m]), as MatMul has them.
            std::vector<uint8_t> bt(static_cast<size_t>(p.n * quads * 4), 0);
            for (int64_t n = 0; n < p.n; ++n)
                for (int64_t k = 0; k < p.k; ++k) bt[static_cast<size_t>(n * quads * 4 + k)] = p.b[static_cast<size_t>(k * p.n + n)];
            std::vector<float> ct(want.size(), -7.f);
            const std::vector<int64_t> row_quads = int8_offsets(quads, 4), row_columns = int8_offsets(p.n, quads * 4);
            Int8Strides by_row;
            by_row.quad_offset = row_quads.data(), by_row.column_offset = row_columns.data();
            by_row.c_row = 1, by_row.c_column = p.m;
            int8_gemm_columns(level, w, bt.data(), by_row, 0, p.m, 0, p.n, p.alpha.data(), p.beta.data(), p.start.data(),
                              ct.data());
            for (int64_t i = 0; i < p.m; ++i)
                for (int64_t j = 0; j < p.n; ++j)
                    ASSERT_EQ(ct[static_cast<size_t>(j * p.m + i)], want[static_cast<size_t>(i * p.n + j)])
                        << int8_level_name(level) << " transposed " << i << "," << j;
            // B anywhere (a convolution's quad planes read in place): columns in reverse order 8
            // bytes apart, quads far apart, junk between them.
            const int64_t quad_step = p.n * 8 + 12;
            std::vector<uint8_t> scattered(static_cast<size_t>(quads * quad_step), 0xA5);
            std::vector<int64_t> far_quads = int8_offsets(quads, quad_step), reversed(static_cast<size_t>(p.n));
            for (int64_t n = 0; n < p.n; ++n) reversed[static_cast<size_t>(n)] = (p.n - 1 - n) * 8;
            for (int64_t k = 0; k < quads * 4; ++k)
                for (int64_t n = 0; n < p.n; ++n)
                    scattered[static_cast<size_t>(k / 4 * quad_step + reversed[static_cast<size_t>(n)] + k % 4)] =
                        k < p.k ? p.b[static_cast<size_t>(k * p.n + n)] : 0;
            Int8Strides anywhere;
            anywhere.quad_offset = far_quads.data(), anywhere.column_offset = reversed.data(), anywhere.c_row = p.n;
            std::vector<float> cs(want.size(), -7.f);
            int8_gemm_columns(level, w, scattered.data(), anywhere, 0, p.m, 0, p.n, p.alpha.data(), p.beta.data(),
                              p.start.data(), cs.data());
            ASSERT_EQ(0, std::memcmp(cs.data(), want.data(), want.size() * sizeof(float))) << int8_level_name(level) << " scattered";
        }
    }
}

TEST(Int8Gemm, RowSumsAreTheWeightSums) {
    const Problem p = make_problem(6, 1, 11, 9, false);
    const Int8Weights w = pack_int8_weights(p.a.data(), p.m, p.k, p.k);
    for (int64_t i = 0; i < p.m; ++i) {
        int32_t s = 0;
        for (int64_t k = 0; k < p.k; ++k) s += p.a[static_cast<size_t>(i * p.k + k)];
        EXPECT_EQ(w.row_sums[static_cast<size_t>(i)], s);
    }
}

TEST(Int8Gemm, LevelForCapsNeverExceedsTheCpu) {
    for (cpu::Isa isa : {cpu::Isa::Sse, cpu::Isa::Avx2, cpu::Isa::Avx512})
        EXPECT_TRUE(int8_level_supported(int8_level_for(isa))) << cpu::isa_name(isa);
    EXPECT_EQ(int8_level_for(cpu::Isa::Sse), Int8Level::Portable);
}

// The quantizer's loops (kernels/detail/quantize_levels.cpp: intrinsics at AVX2 and AVX-512, vector
// extensions elsewhere) give the scalar formula's level for every value: ties to even, both ends,
// NaN and infinities, and every length's tail.
TEST(Int8Quantizer, EveryLevelMatchesTheScalarFormula) {
    QuantizedInput q;
    q.in_low = -0.37f, q.in_high = 0.91f, q.levels = 256, q.zero_index = 74;
    const float range = q.in_high - q.in_low, steps = 255.f;
    std::vector<float> x;
    for (int level = -3; level <= 258; ++level)
        for (float f : {0.f, 0.5f, 0.49999f, 0.50001f, -0.5f})
            x.push_back(q.in_low + (static_cast<float>(level) + f) * range / steps);
    for (float v : {std::nanf(""), INFINITY, -INFINITY, 1e30f, -1e30f, 0.f, -0.f}) x.push_back(v);
    std::vector<uint8_t> expected(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
        const float t = (x[i] - q.in_low) / range * steps;
        const float r = t > 0.f ? std::nearbyint(std::min(t, steps)) : 0.f;  // NaN fails t > 0
        expected[i] = static_cast<uint8_t>(r);
    }
    for (cpu::Isa isa : {cpu::Isa::Sse, cpu::Isa::Avx2, cpu::Isa::Avx512}) {
        if (!cpu::isa_supported(isa)) continue;
        const Int8Quantizer quantizer(q, isa);
        for (size_t n : {x.size(), size_t{1}, size_t{15}, size_t{17}, size_t{33}}) {
            std::vector<uint8_t> got(n + 1, 0xAB);
            quantizer.quantize(x.data(), static_cast<int64_t>(n), got.data());
            for (size_t i = 0; i < n; ++i)
                ASSERT_EQ(int{got[i]}, int{expected[i]}) << cpu::isa_name(isa) << " n " << n << " x " << x[i];
            EXPECT_EQ(got[n], 0xAB) << "wrote past n at " << cpu::isa_name(isa);
        }
    }
}

// An epilogue's FakeQuantize before other levels as a map (fake_quantize_as_level_map): every
// float gets the readers' level of its FakeQuantize value through the map of its level under the
// FakeQuantize's own range, ends and both sides of every rounding tie included; NaN is safe only
// where the map's level 0 is the readers' level of NaN (0); no map for a reversed range or more
// levels than a byte holds.
TEST(Int8Quantizer, FakeQuantizeBeforeOtherLevelsIsALevelMap) {
    const auto readers_of = [](float low, float high) {
        QuantizedInput::LevelQuantizer l;
        l.in_low = low, l.in_high = high, l.levels = 256;
        return Int8Quantizer(l, cpu::Isa::Sse);
    };
    struct Case {
        EpilogueFakeQuantize fq;
        Int8Quantizer readers;
        bool nan_safe;
    };
    const Case cases[] = {
        {{true, 0.f, 14.4763f, 0.f, 14.4763f, 256}, readers_of(0.f, 15.5655f), true},  // SqueezeNet's Fire modules
        {{true, -1.f, 1.f, -1.f, 1.f, 256}, readers_of(-2.f, 2.f), false},
        {{true, 0.5f, 3.f, -0.25f, 2.f, 16}, readers_of(-1.f, 2.5f), false},
    };
    for (const Case& c : cases) {
        const std::optional<LevelMap> map = fake_quantize_as_level_map(c.fq, c.readers);
        ASSERT_TRUE(map.has_value());
        EXPECT_EQ(map->nan_safe, c.nan_safe);
        const float steps = static_cast<float>(c.fq.levels - 1), range = c.fq.in_high - c.fq.in_low;
        std::vector<float> x;
        for (int level = -2; level <= c.fq.levels + 1; ++level)
            for (float f : {0.f, 0.5f, 0.49999f, 0.50001f, -0.5f})
                x.push_back(c.fq.in_low + (static_cast<float>(level) + f) * range / steps);
        for (float v : {INFINITY, -INFINITY, c.fq.in_low, c.fq.in_high}) x.push_back(v);
        std::vector<float> fq(x.size());
        fake_quantize_row(x.data(), static_cast<int64_t>(x.size()), c.fq.in_low, c.fq.in_high, c.fq.out_low,
                          c.fq.out_high, steps, fq.data());
        std::vector<uint8_t> want(x.size()), got(x.size());
        c.readers.quantize(fq.data(), static_cast<int64_t>(fq.size()), want.data());
        map->quantizer.quantize(x.data(), static_cast<int64_t>(x.size()), got.data());
        lookup_levels(map->level.data(), got.data(), static_cast<int64_t>(got.size()), got.data(), cpu::Isa::Sse);
        for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(int{got[i]}, int{want[i]}) << "x " << x[i];
    }
    EXPECT_FALSE(fake_quantize_as_level_map({true, 1.f, 0.f, 0.f, 1.f, 256}, readers_of(0.f, 1.f)).has_value());
    EXPECT_FALSE(fake_quantize_as_level_map({true, 0.f, 1.f, 0.f, 1.f, 1024}, readers_of(0.f, 1.f)).has_value());
    EXPECT_FALSE(fake_quantize_as_level_map({false, 0.f, 1.f, 0.f, 1.f, 256}, readers_of(0.f, 1.f)).has_value());
}

// A FakeQuantize node's level maps (lookup_levels) at every level: each byte and each float the
// table's entry, levels 128-255 (the table's high half) included, tails of every length, in place
// for the bytes, and nothing written past n.
TEST(Int8Quantizer, LevelLookupsAreTheTablesEntries) {
    std::mt19937 rng(11);
    std::uniform_int_distribution<int> byte(0, 255);
    uint8_t level_table[256];
    float value_table[256];
    for (int k = 0; k < 256; ++k) level_table[k] = static_cast<uint8_t>(byte(rng)), value_table[k] = 0.25f * k - 3.f;
    for (cpu::Isa isa : {cpu::Isa::Sse, cpu::Isa::Avx2, cpu::Isa::Avx512}) {
        if (!cpu::isa_supported(isa)) continue;
        for (int64_t n : {0, 1, 7, 8, 15, 16, 17, 63, 64, 65, 200, 300}) {
            std::vector<uint8_t> in(static_cast<size_t>(n) + 1);
            for (uint8_t& v : in) v = static_cast<uint8_t>(byte(rng));
            std::vector<uint8_t> levels(in.size(), 0xAB), in_place(in);
            std::vector<float> values(in.size(), -1.f);
            lookup_levels(level_table, in.data(), n, levels.data(), isa);
            lookup_levels(level_table, in_place.data(), n, in_place.data(), isa);
            lookup_levels(value_table, in.data(), n, values.data(), isa);
            for (int64_t i = 0; i < n; ++i) {
                const auto at = static_cast<size_t>(i);
                ASSERT_EQ(int{levels[at]}, int{level_table[in[at]]}) << cpu::isa_name(isa) << " n " << n << " at " << i;
                ASSERT_EQ(int{in_place[at]}, int{level_table[in[at]]}) << cpu::isa_name(isa) << " n " << n << " at " << i;
                ASSERT_EQ(values[at], value_table[in[at]]) << cpu::isa_name(isa) << " n " << n << " at " << i;
            }
            const auto end = static_cast<size_t>(n);
            EXPECT_EQ(levels[end], 0xAB) << cpu::isa_name(isa) << " wrote past n " << n;
            EXPECT_EQ(in_place[end], in[end]) << cpu::isa_name(isa) << " wrote past n " << n;
            EXPECT_EQ(values[end], -1.f) << cpu::isa_name(isa) << " wrote past n " << n;
        }
    }
}

// Four channels' lines as quads, from floats and from u8 levels, at every level: the quantizer's
// own levels (or the bytes) in their quad positions, the zero level for a missing channel, lines
// at their strides, and nothing written between or past the lines' quads (line tails of 1..17
// pixels go through the masked or copied forms).
TEST(Int8Quantizer, QuadsAreTheLevelsOfFourChannels) {
    QuantizedInput q;
    q.in_low = -0.37f, q.in_high = 0.91f, q.levels = 256, q.zero_index = 74;
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> u(-0.5f, 1.0f);
    std::uniform_int_distribution<int> byte(0, 255);
    for (cpu::Isa isa : {cpu::Isa::Sse, cpu::Isa::Avx2, cpu::Isa::Avx512}) {
        if (!cpu::isa_supported(isa)) continue;
        const Int8Quantizer quantizer(q, isa);
        for (int64_t n : {1, 7, 8, 9, 16, 17, 40}) {
            const int64_t lines = 3, stride = n + 5, quad_stride = n * 4 + 12;
            std::vector<float> x(static_cast<size_t>(4 * lines * stride));
            std::vector<uint8_t> levels(x.size());
            for (float& v : x) v = u(rng);
            for (uint8_t& v : levels) v = static_cast<uint8_t>(byte(rng));
            std::vector<uint8_t> want_f(x.size());  // the quantizer's levels of every element
            quantizer.quantize(x.data(), static_cast<int64_t>(x.size()), want_f.data());
            const Int8Quantizer::QuadLines at{lines, n, stride, quad_stride};
            const auto plane = static_cast<size_t>(lines * stride);
            const float* f_rows[4] = {x.data(), x.data() + plane, nullptr, x.data() + 3 * plane};
            const uint8_t* l_rows[4] = {levels.data(), levels.data() + plane, nullptr, levels.data() + 3 * plane};
            std::vector<uint8_t> got_f(static_cast<size_t>(lines * quad_stride), 0xAB), got_l(got_f);
            quantizer.quantize_quads(f_rows, at, got_f.data());
            quantizer.levels_as_quads(l_rows, at, got_l.data());
            for (int64_t l = 0; l < lines; ++l)
                for (int64_t i = 0; i < quad_stride; ++i) {
                    const auto at_byte = static_cast<size_t>(l * quad_stride + i);
                    const int64_t pixel = i / 4, j = i % 4;
                    const auto src = static_cast<size_t>(j * lines * stride + l * stride + pixel);
                    const int want_float = pixel >= n ? 0xAB : j == 2 ? 74 : want_f[src];
                    const int want_level = pixel >= n ? 0xAB : j == 2 ? 74 : levels[src];
                    ASSERT_EQ(int{got_f[at_byte]}, want_float) << cpu::isa_name(isa) << " n " << n << " line " << l << " byte " << i;
                    ASSERT_EQ(int{got_l[at_byte]}, want_level) << cpu::isa_name(isa) << " n " << n << " line " << l << " byte " << i;
                }
        }
    }
}

}  // namespace
}  // namespace irlite::nn
