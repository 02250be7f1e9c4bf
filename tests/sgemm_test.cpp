// kernels/detail/sgemm: every supported instruction set (and the portable one forced), all four
// operand modes (both per call, constant A, constant B, both constant), transposed storage, epilogues,
// K = 0 and K-blocking, edge tiles; checked against a double-precision reference. Tile schedules
// (reverse, shuffled, finer grids) must give bit-identical results; scratch must stay in bounds.
#include "kernels/detail/sgemm.hpp"

#include "kernels/detail/cpu_isa.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace irlite::nn {
namespace {

enum class Mode { Dynamic, ConstA, ConstB, ConstBoth };
const Mode kModes[] = {Mode::Dynamic, Mode::ConstA, Mode::ConstB, Mode::ConstBoth};
const char* mode_name(Mode m) {
    switch (m) {
        case Mode::Dynamic: return "dynamic";
        case Mode::ConstA: return "const_a";
        case Mode::ConstB: return "const_b";
        case Mode::ConstBoth: return "const_both";
    }
    return "?";
}

std::vector<GemmIsa> supported_isas() {
    std::vector<GemmIsa> v;
    for (GemmIsa isa : {GemmIsa::Portable, GemmIsa::Avx2, GemmIsa::Avx512})
        if (gemm_isa_supported(isa)) v.push_back(isa);
    return v;
}

struct Problem {
    int64_t m = 0, n = 0, k = 0;
    bool trans_a = false, trans_b = false;
    int64_t lda = 0, ldb = 0, ldc = 0;
    std::vector<float> a, b, bias;
    GemmEpilogue ep;
};

Problem make_problem(std::mt19937& rng, int64_t m, int64_t n, int64_t k, bool ta, bool tb) {
    Problem p;
    p.m = m, p.n = n, p.k = k, p.trans_a = ta, p.trans_b = tb;
    std::uniform_int_distribution<int> pad(0, 3);
    p.lda = (ta ? m : k) + pad(rng);
    p.ldb = (tb ? k : n) + pad(rng);
    p.ldc = n + pad(rng);
    std::uniform_real_distribution<float> val(-1.0f, 1.0f);
    p.a.resize(static_cast<size_t>((ta ? k : m) * p.lda) + 1);
    p.b.resize(static_cast<size_t>((tb ? n : k) * p.ldb) + 1);
    for (float& x : p.a) x = val(rng);
    for (float& x : p.b) x = val(rng);
    return p;
}

void set_epilogue(Problem& p, std::mt19937& rng, int bias_kind, GemmActivation act) {
    std::uniform_real_distribution<float> val(-1.0f, 1.0f);
    p.ep = GemmEpilogue{};
    if (bias_kind == 1) {
        p.bias.resize(static_cast<size_t>(p.m) + 1);
        p.ep.axis = GemmEpilogue::BiasAxis::Row;
    } else if (bias_kind == 2) {
        p.bias.resize(static_cast<size_t>(p.n) + 1);
        p.ep.axis = GemmEpilogue::BiasAxis::Column;
    } else {
        p.bias.clear();
    }
    for (float& x : p.bias) x = val(rng);
    p.ep.bias = bias_kind ? p.bias.data() : nullptr;
    p.ep.act = act;
    p.ep.lo = -0.25f;
    p.ep.hi = 0.5f;
}

float a_at(const Problem& p, int64_t i, int64_t q) { return p.trans_a ? p.a[q * p.lda + i] : p.a[i * p.lda + q]; }
float b_at(const Problem& p, int64_t q, int64_t j) { return p.trans_b ? p.b[j * p.ldb + q] : p.b[q * p.ldb + j]; }

// Reference value and an error bound for element (i, j).
void reference(const Problem& p, int64_t i, int64_t j, double* value, double* bound) {
    double s = 0, mag = 0;
    for (int64_t q = 0; q < p.k; ++q) {
        const double t = static_cast<double>(a_at(p, i, q)) * b_at(p, q, j);
        s += t;
        mag += std::fabs(t);
    }
    if (p.ep.bias) {
        const double bv = p.ep.axis == GemmEpilogue::BiasAxis::Row ? p.ep.bias[i] : p.ep.bias[j];
        s += bv;
        mag += std::fabs(bv);
    }
    if (p.ep.act == GemmActivation::Relu) s = std::max(s, 0.0);
    if (p.ep.act == GemmActivation::Clamp) s = std::min(std::max(s, double{p.ep.lo}), double{p.ep.hi});
    *value = s;
    *bound = 2e-6 * mag + 1e-6 + 1e-7 * static_cast<double>(p.k) * mag;
}

constexpr float kSentinel = 12345.0f;

// Runs the product through the public API. `order`: 0 in order, 1 reverse, 2 shuffled.
std::vector<float> run(const Problem& p, Mode mode, GemmIsa isa, int workers = 1, int order = 0,
                       uint32_t seed = 1) {
    const bool ca = mode == Mode::ConstA || mode == Mode::ConstBoth;
    const bool cb = mode == Mode::ConstB || mode == Mode::ConstBoth;
    const GemmPlan plan = plan_gemm(p.m, p.n, p.k, ca, cb, workers, isa);
    EXPECT_EQ(plan.layout.isa, isa);
    EXPECT_EQ(plan.layout, gemm_layout(p.k, isa));
    std::vector<float> pa, pb;
    GemmOperand a = GemmOperand::plain(p.a.data(), p.lda, p.trans_a);
    GemmOperand b = GemmOperand::plain(p.b.data(), p.ldb, p.trans_b);
    if (ca) {
        pa.assign(packed_a_floats(plan) + 1, -7.0f);
        pack_a(plan, p.a.data(), p.lda, p.trans_a, pa.data());
        EXPECT_EQ(pa.back(), -7.0f) << "pack_a wrote past packed_a_floats";
        a = GemmOperand::prepacked(pa.data());
    }
    if (cb) {
        pb.assign(packed_b_floats(plan.layout, p.n) + 1, -7.0f);
        pack_b(plan.layout, p.b.data(), p.ldb, p.trans_b, p.n, pb.data());
        EXPECT_EQ(pb.back(), -7.0f) << "pack_b wrote past packed_b_floats";
        b = GemmOperand::prepacked(pb.data());
    }
    std::vector<float> c(static_cast<size_t>(p.m * p.ldc) + 1, kSentinel);
    // Scratch deliberately misaligned (+1 byte) with guard bytes after the end.
    std::vector<unsigned char> scratch(plan.scratch_bytes + 1 + 64, 0xA5);
    std::vector<int64_t> tiles(static_cast<size_t>(plan.tiles()));
    std::iota(tiles.begin(), tiles.end(), int64_t{0});
    if (order == 1) std::reverse(tiles.begin(), tiles.end());
    if (order == 2) {
        std::mt19937 rng(seed);
        std::shuffle(tiles.begin(), tiles.end(), rng);
    }
    for (int64_t t : tiles) run_gemm_tile(plan, t, a, b, c.data(), p.ldc, p.ep, scratch.data() + 1);
    for (size_t i = plan.scratch_bytes + 1; i < scratch.size(); ++i)
        EXPECT_EQ(scratch[i], 0xA5) << "scratch overrun at byte " << i - 1 << " of " << plan.scratch_bytes;
    return c;
}

void check(const Problem& p, const std::vector<float>& c, const std::string& what) {
    int failures = 0;
    for (int64_t i = 0; i < p.m; ++i) {
        for (int64_t j = 0; j < p.ldc; ++j) {
            const float got = c[i * p.ldc + j];
            if (j >= p.n) {
                if (got != kSentinel && failures++ < 5) ADD_FAILURE() << what << ": padding of C written at " << i << "," << j;
                continue;
            }
            double want = 0, bound = 0;
            reference(p, i, j, &want, &bound);
            if (!(std::fabs(got - want) <= bound) && failures++ < 5)
                ADD_FAILURE() << what << ": C[" << i << "," << j << "] = " << got << ", want " << want;
        }
    }
    EXPECT_EQ(c.back(), kSentinel) << what << ": wrote past C";
}

std::string describe(const Problem& p, Mode mode, GemmIsa isa) {
    return std::string(gemm_isa_name(isa)) + " " + mode_name(mode) + " m=" + std::to_string(p.m) +
           " n=" + std::to_string(p.n) + " k=" + std::to_string(p.k) + (p.trans_a ? " ta" : "") +
           (p.trans_b ? " tb" : "") + " bias=" + std::to_string(p.ep.bias ? 1 + int(p.ep.axis) : 0) +
           " act=" + std::to_string(int(p.ep.act));
}

TEST(Sgemm, RandomShapesEveryModeAndIsa) {
    std::mt19937 rng(42);
    std::uniform_int_distribution<int> dim(0, 70);
    for (GemmIsa isa : supported_isas()) {
        for (int iter = 0; iter < 120; ++iter) {
            const int64_t m = dim(rng), n = dim(rng), k = dim(rng);
            Problem p = make_problem(rng, m, n, k, iter & 1, iter & 2);
            set_epilogue(p, rng, iter % 3, static_cast<GemmActivation>((iter / 3) % 3));
            const Mode mode = kModes[(iter / 9) % 4];
            check(p, run(p, mode, isa), describe(p, mode, isa));
        }
    }
}

TEST(Sgemm, EdgeSizes) {
    std::mt19937 rng(7);
    const int64_t sizes[] = {0, 1, 2, 3, 5, 6, 7, 11, 12, 13, 15, 16, 17, 31, 32, 33};
    for (GemmIsa isa : supported_isas()) {
        for (int64_t m : sizes) {
            for (int64_t n : {int64_t{1}, int64_t{15}, int64_t{16}, int64_t{17}, int64_t{33}, int64_t{48}}) {
                for (int64_t k : {int64_t{0}, int64_t{1}, int64_t{9}}) {
                    Problem p = make_problem(rng, m, n, k, false, false);
                    set_epilogue(p, rng, static_cast<int>((m + n) % 3), GemmActivation::Clamp);
                    for (Mode mode : kModes) check(p, run(p, mode, isa), describe(p, mode, isa));
                }
            }
        }
    }
}

// Sizes past the K block, the tile extents and several tiles in both directions.
TEST(Sgemm, LargeWithKBlocksAndManyTiles) {
    std::mt19937 rng(3);
    const int64_t shapes[][3] = {{150, 1100, 270}, {7, 2100, 300}, {300, 40, 1000}, {1, 3000, 257}};
    for (GemmIsa isa : supported_isas()) {
        int i = 0;
        for (const auto& s : shapes) {
            Problem p = make_problem(rng, s[0], s[1], s[2], i & 1, i & 2);
            set_epilogue(p, rng, 1 + i % 2, static_cast<GemmActivation>(i % 3));
            const Mode mode = kModes[i % 4];
            check(p, run(p, mode, isa), describe(p, mode, isa));
            ++i;
        }
    }
}

// Tiles of 1..4 rows (MatMul with a small batch) go through the wide kernels: several B panels a call.
TEST(Sgemm, SmallM) {
    std::mt19937 rng(19);
    for (GemmIsa isa : supported_isas()) {
        for (int64_t m = 1; m <= 5; ++m) {
            for (int64_t n : {64, 128, 200, 260}) {
                Problem p = make_problem(rng, m, n, 37 + 100 * (n % 3), (m + n) % 2 == 1, n % 5 == 0);
                set_epilogue(p, rng, static_cast<int>(n % 3), static_cast<GemmActivation>(m % 3));
                for (Mode mode : kModes) check(p, run(p, mode, isa), describe(p, mode, isa));
            }
        }
    }
}

// B rows 4 KiB apart (a stride run_gemm_tile packs rather than reads in place) and tall tiles.
TEST(Sgemm, PackedPathForPageStridedB) {
    std::mt19937 rng(17);
    for (GemmIsa isa : supported_isas()) {
        Problem p = make_problem(rng, 30, 1000, 60, false, false);
        p.ldb = 1024;
        p.b.resize(static_cast<size_t>(p.k * p.ldb) + 1);
        std::uniform_real_distribution<float> val(-1.0f, 1.0f);
        for (float& x : p.b) x = val(rng);
        set_epilogue(p, rng, 2, GemmActivation::Clamp);
        for (Mode mode : {Mode::Dynamic, Mode::ConstA}) check(p, run(p, mode, isa), describe(p, mode, isa));
    }
}

// Whatever the tile grid (workers) and order, every element comes out bit-identical.
TEST(Sgemm, TileScheduleIsBitExact) {
    std::mt19937 rng(11);
    const int64_t shapes[][3] = {{64, 256, 576}, {130, 70, 600}, {5, 700, 300}, {200, 300, 40}, {3, 700, 300}};
    for (GemmIsa isa : supported_isas()) {
        for (const auto& s : shapes) {
            Problem p = make_problem(rng, s[0], s[1], s[2], false, false);
            set_epilogue(p, rng, 2, GemmActivation::Relu);
            for (Mode mode : kModes) {
                const std::vector<float> base = run(p, mode, isa);
                for (int workers : {1, 2, 3, 8, 64}) {
                    const GemmPlan plan = plan_gemm(p.m, p.n, p.k, false, false, workers, isa);
                    if (workers == 64) {
                        EXPECT_GT(plan.tiles(), 1) << describe(p, mode, isa);
                    }
                    for (int order = 0; order < 3; ++order) {
                        const std::vector<float> c = run(p, mode, isa, workers, order, 100u + order);
                        EXPECT_EQ(0, std::memcmp(base.data(), c.data(), base.size() * sizeof(float)))
                            << describe(p, mode, isa) << " workers=" << workers << " order=" << order;
                    }
                }
            }
        }
    }
}

// For several workers the grid lets them finish together: taking the tiles in order, each the
// next one when free (the pool's claiming), the last worker finishes within 6 % of an even split
// of the work, or one A panel's row of tiles past it where panels are that coarse (7 tiles of 144
// rows of a 1000-row GEMM kept one of 2 workers busy for 4).
TEST(Sgemm, TilesBalancedAcrossWorkers) {
    const int64_t shapes[][3] = {{1000, 16, 512}, {256, 16, 576}, {128, 64, 288}, {64, 1024, 27}, {16, 256, 64}};
    for (GemmIsa isa : supported_isas())
        for (const auto& s : shapes)
            for (int workers : {2, 3, 4}) {
                const GemmPlan plan = plan_gemm(s[0], s[1], s[2], true, false, workers, isa);
                std::vector<int64_t> load(static_cast<size_t>(workers), 0);
                for (int64_t t = 0; t < plan.tiles(); ++t) {
                    const GemmTileRect r = gemm_tile_rect(plan, t);
                    *std::min_element(load.begin(), load.end()) += r.rows * r.cols;
                }
                const double finish = static_cast<double>(*std::max_element(load.begin(), load.end()));
                const double even = static_cast<double>(s[0] * s[1]) / workers;
                const double panel = static_cast<double>(plan.a_mr * s[1]);
                EXPECT_LE(finish, std::max(1.06 * even, even + panel)) << s[0] << "x" << s[1] << "x" << s[2] << " workers " << workers << " "
                                               << gemm_isa_name(isa) << ": " << plan.tiles() << " tiles";
            }
}

// run_gemm_tile_to writes a tile into a buffer of its own (rows r.cols apart, nothing around it
// touched): the same bits as that tile of run_gemm_tile's C, for every ISA and operand mode,
// including 4-row panels (M = 16) and edge tiles.
TEST(Sgemm, TileIntoOwnBufferMatchesTileInC) {
    std::mt19937 rng(29);
    const int64_t shapes[][3] = {{16, 192, 32}, {4, 80, 480}, {37, 100, 70}, {16, 64, 576}};
    for (GemmIsa isa : supported_isas()) {
        for (const auto& s : shapes) {
            Problem p = make_problem(rng, s[0], s[1], s[2], false, false);
            set_epilogue(p, rng, 2, GemmActivation::Relu);
            const GemmPlan plan = plan_gemm(p.m, p.n, p.k, true, true, 8, isa);
            std::vector<float> pa(packed_a_floats(plan)), pb(packed_b_floats(plan.layout, p.n));
            pack_a(plan, p.a.data(), p.lda, false, pa.data());
            pack_b(plan.layout, p.b.data(), p.ldb, false, p.n, pb.data());
            const GemmOperand a = GemmOperand::prepacked(pa.data()), b = GemmOperand::prepacked(pb.data());
            std::vector<float> c(static_cast<size_t>(p.m * p.ldc), 0.0f);
            std::vector<unsigned char> scratch(plan.scratch_bytes + 1);
            run_gemm(plan, a, b, c.data(), p.ldc, p.ep, scratch.data());
            for (int64_t t = 0; t < plan.tiles(); ++t) {
                const GemmTileRect r = gemm_tile_rect(plan, t);
                const float sentinel = 12345.0f;
                std::vector<float> own(static_cast<size_t>(r.rows * r.cols) + 8, sentinel);
                run_gemm_tile_to(plan, t, a, b, own.data(), r.cols, p.ep, scratch.data());
                for (int64_t i = 0; i < r.rows; ++i)
                    EXPECT_EQ(0, std::memcmp(own.data() + i * r.cols, c.data() + (r.row + i) * p.ldc + r.col,
                                             sizeof(float) * static_cast<size_t>(r.cols)))
                        << gemm_isa_name(isa) << " " << s[0] << "x" << s[1] << "x" << s[2] << " tile " << t << " row " << i;
                for (size_t e = static_cast<size_t>(r.rows * r.cols); e < own.size(); ++e) EXPECT_EQ(own[e], sentinel);
            }
        }
    }
}

// Workers on real threads pulling tiles from a shared counter, each with its own scratch: the same
// bits as one thread running the tiles in order.
TEST(Sgemm, ThreadedWorkersMatchSerial) {
    std::mt19937 rng(23);
    Problem p = make_problem(rng, 100, 900, 300, false, false);
    set_epilogue(p, rng, 1, GemmActivation::Relu);
    const GemmPlan plan = plan_gemm(p.m, p.n, p.k, true, false, 3);
    ASSERT_GT(plan.tiles(), 3);
    std::vector<float> pa(packed_a_floats(plan));
    pack_a(plan, p.a.data(), p.lda, false, pa.data());
    const GemmOperand a = GemmOperand::prepacked(pa.data());
    const GemmOperand b = GemmOperand::plain(p.b.data(), p.ldb);
    std::vector<float> serial(static_cast<size_t>(p.m * p.ldc), 0.0f), threaded(serial.size(), 0.0f);
    std::vector<unsigned char> scratch0(plan.scratch_bytes);
    run_gemm(plan, a, b, serial.data(), p.ldc, p.ep, scratch0.data());
    std::atomic<int64_t> next{0};
    std::vector<std::thread> workers;
    for (int w = 0; w < 3; ++w) {
        workers.emplace_back([&] {
            std::vector<unsigned char> scratch(plan.scratch_bytes);
            for (int64_t t; (t = next.fetch_add(1)) < plan.tiles();)
                run_gemm_tile(plan, t, a, b, threaded.data(), p.ldc, p.ep, scratch.data());
        });
    }
    for (std::thread& t : workers) t.join();
    EXPECT_EQ(0, std::memcmp(serial.data(), threaded.data(), serial.size() * sizeof(float)));
}

TEST(Sgemm, NanPropagatesThroughActivations) {
    for (GemmIsa isa : supported_isas()) {
        for (GemmActivation act : {GemmActivation::Relu, GemmActivation::Clamp}) {
            std::mt19937 rng(5);
            Problem p = make_problem(rng, 3, 20, 4, false, false);
            p.a[0] = std::numeric_limits<float>::quiet_NaN();  // row 0 all NaN
            set_epilogue(p, rng, 0, act);
            const std::vector<float> c = run(p, Mode::Dynamic, isa);
            for (int64_t j = 0; j < p.n; ++j) EXPECT_TRUE(std::isnan(c[j])) << gemm_isa_name(isa) << " col " << j;
        }
    }
}

TEST(Sgemm, ForcedPortableIsa) {
    set_gemm_isa_for_testing(GemmIsa::Portable);
    EXPECT_EQ(gemm_default_isa(), GemmIsa::Portable);
    const GemmPlan plan = plan_gemm(20, 30, 40, false, false);
    EXPECT_EQ(plan.layout.isa, GemmIsa::Portable);
    std::mt19937 rng(9);
    Problem p = make_problem(rng, 20, 30, 40, true, false);
    set_epilogue(p, rng, 1, GemmActivation::Relu);
    check(p, run(p, Mode::ConstA, gemm_default_isa()), "forced portable");
    reset_gemm_isa_for_testing();
    EXPECT_EQ(static_cast<int>(gemm_default_isa()),
              std::min(static_cast<int>(gemm_detected_isa()), static_cast<int>(cpu::active_isa())));
    // A GEMM of two run-time operands with fewer than 64 columns runs at most on the AVX2 kernels
    // (sgemm.hpp: gemm_isa_for); 64 columns and more take the default level, as a convolution's
    // packed form does on any plane (its prepacked A: gemm_isa_for_conv).
    const GemmIsa at_most_avx2 = std::min(gemm_default_isa(), GemmIsa::Avx2);
    EXPECT_EQ(gemm_isa_for(16), at_most_avx2);
    EXPECT_EQ(gemm_isa_for(63), at_most_avx2);
    EXPECT_EQ(gemm_isa_for(64), gemm_default_isa());
    EXPECT_EQ(gemm_isa_for_conv(ConvGemmForm::PackedB), gemm_default_isa());
}

// A convolution's GEMM (sgemm.hpp: gemm_isa_for_conv): its indexed and few-pixel forms take the
// AVX2 kernels where AVX-512 runs at half rate, and every form the level it is given elsewhere.
TEST(Sgemm, ConvolutionLevelFollowsTheAvx512Rate) {
    for (GemmIsa level : {GemmIsa::Portable, GemmIsa::Avx2, GemmIsa::Avx512}) {
        for (ConvGemmForm form : {ConvGemmForm::PackedB, ConvGemmForm::IndexedB, ConvGemmForm::FewPixels}) {
            EXPECT_EQ(gemm_isa_for_conv(form, level, false), level);
            const GemmIsa half = form == ConvGemmForm::PackedB ? level : std::min(level, GemmIsa::Avx2);
            EXPECT_EQ(gemm_isa_for_conv(form, level, true), half) << gemm_isa_name(level);
        }
    }
    EXPECT_EQ(gemm_isa_for_conv(ConvGemmForm::PackedB), gemm_default_isa());
    EXPECT_EQ(gemm_isa_for_conv(ConvGemmForm::IndexedB),
              cpu::avx512_half_rate() ? std::min(gemm_default_isa(), GemmIsa::Avx2) : gemm_default_isa());
}

// Two workers get a tile each on a GEMM of 128 columns and few rows at every level, AVX-512's
// 32-column panels included (tiles of 64 columns and more: sgemm.cpp's min_tile_columns).
TEST(Sgemm, NarrowGemmSplitsForTwoWorkersAtEveryLevel) {
    for (GemmIsa isa : supported_isas()) {
        const GemmPlan wide = plan_gemm(4, 128, 1152, true, true, 2, isa);
        EXPECT_GE(wide.tiles(), 2) << gemm_isa_name(isa);
        const GemmPlan classifier = plan_gemm(1, 1000, 128, false, true, 2, isa);
        EXPECT_GE(classifier.tiles(), 2) << gemm_isa_name(isa);
        EXPECT_GE(classifier.nc, std::min<int64_t>(64, 4 * classifier.layout.nr)) << gemm_isa_name(isa);
    }
}

// IRLITE_ISA's cap (cpu_isa.hpp) applies to the GEMM as to every dispatched kernel.
TEST(Sgemm, FollowsTheIsaCap) {
    cpu::set_isa_cap_for_testing(cpu::Isa::Sse);
    EXPECT_EQ(gemm_default_isa(), GemmIsa::Portable);
    EXPECT_EQ(plan_gemm(20, 30, 40, false, false).layout.isa, GemmIsa::Portable);
    cpu::reset_isa_cap_for_testing();
}

// A constant operand packed once serves any size of the other dimension (its layout depends on K only).
TEST(Sgemm, PackedBServesEveryBatch) {
    std::mt19937 rng(13);
    for (GemmIsa isa : supported_isas()) {
        Problem p = make_problem(rng, 9, 100, 300, false, true);
        const GemmLayout layout = gemm_layout(p.k, isa);
        std::vector<float> pb(packed_b_floats(layout, p.n));
        pack_b(layout, p.b.data(), p.ldb, p.trans_b, p.n, pb.data());
        for (int64_t m : {1, 2, 4, 9}) {
            const GemmPlan plan = plan_gemm(m, p.n, p.k, false, true, 1, isa);
            ASSERT_EQ(plan.layout, layout);
            std::vector<float> c(static_cast<size_t>(m * p.ldc), kSentinel);
            std::vector<unsigned char> scratch(plan.scratch_bytes);
            run_gemm(plan, GemmOperand::plain(p.a.data(), p.lda), GemmOperand::prepacked(pb.data()), c.data(), p.ldc,
                     GemmEpilogue{}, scratch.data());
            Problem q = p;
            q.m = m;
            c.push_back(kSentinel);
            check(q, c, std::string(gemm_isa_name(isa)) + " batch " + std::to_string(m));
        }
    }
}

// An indexed B (element (q, j) at data[row_off[q] + col_off[j / 8] + j % 8], a convolution's
// im2col matrix read in place) gives, bit for bit, what the same B written out as a plain matrix
// gives, on every instruction set (AVX2 reads it in place, the others gather it), for every tile
// grid, with remainders in M, N (partial column groups and panels) and K (several K blocks).
TEST(Sgemm, IndexedBMatchesPlainBitForBit) {
    std::mt19937 rng(23);
    // n = 16 and 48 end on a half-width edge read in place (AVX-512), 260 and 600 span K blocks.
    const int64_t shapes[][3] = {{16, 1024, 147}, {1, 8, 1},     {5, 13, 9},     {6, 16, 27},   {7, 40, 300},
                                 {13, 75, 144},   {16, 256, 144}, {31, 24, 600},  {32, 64, 288}, {4, 200, 33},
                                 {12, 48, 20},    {25, 16, 100},  {3, 48, 17},    {14, 80, 260}};
    for (GemmIsa isa : supported_isas()) {
        for (const auto& s : shapes) {
            const int64_t m = s[0], n = s[1], k = s[2], groups = (n + 7) / 8;
            Problem p = make_problem(rng, m, n, k, false, false);
            set_epilogue(p, rng, static_cast<int>((m + n) % 3), static_cast<GemmActivation>(k % 3));
            const int64_t span = 3 * (n + k) + 64;  // the data: overlapping runs, like taps of a window
            std::vector<float> data(static_cast<size_t>(span));
            std::uniform_real_distribution<float> val(-1.0f, 1.0f);
            for (float& x : data) x = val(rng);
            std::uniform_int_distribution<int64_t> off(0, span / 2 - 8);
            std::vector<int64_t> row_off(static_cast<size_t>(k)), col_off(static_cast<size_t>(groups));
            for (auto& o : row_off) o = off(rng);
            for (auto& o : col_off) o = off(rng);
            p.ldb = n;
            p.b.assign(static_cast<size_t>(k * n) + 1, 0.0f);
            for (int64_t q = 0; q < k; ++q)
                for (int64_t j = 0; j < n; ++j) p.b[q * n + j] = data[row_off[q] + col_off[j / 8] + j % 8];
            for (Mode mode : {Mode::Dynamic, Mode::ConstA}) {
                const std::string what = describe(p, mode, isa) + " indexed";
                const std::vector<float> want = run(p, mode, isa);
                for (int workers : {1, 4}) {
                    const GemmPlan plan = plan_gemm(m, n, k, mode == Mode::ConstA, false, workers, isa);
                    std::vector<float> pa;
                    GemmOperand a = GemmOperand::plain(p.a.data(), p.lda);
                    if (mode == Mode::ConstA) {
                        pa.resize(packed_a_floats(plan));
                        pack_a(plan, p.a.data(), p.lda, false, pa.data());
                        a = GemmOperand::prepacked(pa.data());
                    }
                    std::vector<float> c(static_cast<size_t>(m * p.ldc) + 1, kSentinel);
                    std::vector<unsigned char> scratch(plan.scratch_bytes + 1 + 64, 0xA5);
                    for (int64_t t = plan.tiles(); t-- > 0;)
                        run_gemm_tile(plan, t, a, GemmOperand::indexed(data.data(), row_off.data(), col_off.data()),
                                      c.data(), p.ldc, p.ep, scratch.data() + 1);
                    for (size_t i = plan.scratch_bytes + 1; i < scratch.size(); ++i)
                        ASSERT_EQ(scratch[i], 0xA5) << what << ": scratch overrun";
                    check(p, c, what);
                    EXPECT_EQ(std::memcmp(c.data(), want.data(), sizeof(float) * c.size()), 0)
                        << what << " workers " << workers << ": differs from the plain B";
                }
            }
        }
    }
}

// pack_a_indexed (element (i, p) at data[k_off[p] + m_off[i]]) packs exactly what pack_a packs from
// the same A written out, for every ISA and panel height: rows in runs of consecutive elements and
// gathered ones, M remainders, several K blocks.
TEST(Sgemm, PackAIndexedMatchesPackA) {
    std::mt19937 rng(29);
    std::uniform_real_distribution<float> val(-1.0f, 1.0f);
    const int64_t shapes[][2] = {{16, 576}, {4, 1152}, {1, 7}, {5, 300}, {9, 64}, {13, 257}, {32, 40}, {6, 12}};
    for (GemmIsa isa : supported_isas()) {
        for (const auto& s : shapes) {
            for (bool runs : {true, false}) {
                const int64_t m = s[0], k = s[1];
                std::vector<float> data(static_cast<size_t>(4 * (m + k) + 64));
                for (float& x : data) x = val(rng);
                std::vector<int64_t> k_off(static_cast<size_t>(k)), m_off(static_cast<size_t>(m));
                std::uniform_int_distribution<int64_t> off(0, 2 * (m + k));
                for (auto& o : k_off) o = off(rng);
                for (int64_t i = 0; i < m; ++i) m_off[static_cast<size_t>(i)] = runs ? i : off(rng) % (2 * m + 2);
                std::vector<float> a(static_cast<size_t>(m * k));  // A stored m x k
                for (int64_t i = 0; i < m; ++i)
                    for (int64_t q = 0; q < k; ++q) a[static_cast<size_t>(i * k + q)] = data[k_off[q] + m_off[i]];
                const GemmPlan plan = plan_gemm(m, 40, k, true, true, 1, isa);
                std::vector<float> want(packed_a_floats(plan), -1.0f), got(want.size() + 1, -2.0f);
                pack_a(plan, a.data(), k, false, want.data());
                pack_a_indexed(plan, data.data(), k_off.data(), m_off.data(), got.data());
                EXPECT_EQ(got.back(), -2.0f) << "wrote past packed_a_floats";
                EXPECT_EQ(std::memcmp(want.data(), got.data(), sizeof(float) * want.size()), 0)
                    << gemm_isa_name(isa) << " m=" << m << " k=" << k << (runs ? " runs" : " gathered");
            }
        }
    }
}

// Short K blocks (a pointwise convolution on few input channels) with C's rows a page or more
// apart walk a tile row panel by row panel: several row panels, partial last panels, both bias
// axes, K in one block and, with narrow tiles, in two (the edge panel accumulating through the
// full-width buffer); same values as the reference, and the same bits whatever the tile grid.
TEST(Sgemm, ShortKRowsOuter) {
    std::mt19937 rng(31);
    // 4-row panels (AVX2) too: {16, 200, 8}, {32, 90, 24}, {8, 1024, 16}, {20, 13, 300}.
    const int64_t shapes[][3] = {{48, 1024, 8}, {50, 300, 3}, {13, 77, 16}, {20, 13, 300}, {7, 27, 260},
                                 {33, 200, 1}, {16, 200, 8},  {32, 90, 24}, {8, 1024, 16}};
    for (GemmIsa isa : supported_isas()) {
        int i = 0;
        for (const auto& s : shapes) {
            Problem p = make_problem(rng, s[0], s[1], s[2], false, false);
            set_epilogue(p, rng, 1 + i % 2, i % 3 == 0 ? GemmActivation::Clamp : GemmActivation::Relu);
            for (int64_t ldc : {p.ldc, std::max<int64_t>(p.ldc, 1030)}) {  // C's rows a page apart, or not
                p.ldc = ldc;
                for (Mode mode : kModes) {
                    const std::vector<float> base = run(p, mode, isa);
                    check(p, base, describe(p, mode, isa));
                    const std::vector<float> c = run(p, mode, isa, 8, 2);
                    EXPECT_EQ(0, std::memcmp(base.data(), c.data(), base.size() * sizeof(float))) << describe(p, mode, isa);
                }
            }
            ++i;
        }
    }
}

// pack_a and pack_a_indexed over disjoint K ranges (boundaries inside and across K blocks, in
// any order) write exactly what one whole pack writes, and nothing outside their rows.
TEST(Sgemm, PackARangesMatchWholePack) {
    std::mt19937 rng(37);
    std::uniform_real_distribution<float> val(-1.0f, 1.0f);
    const int64_t shapes[][2] = {{4, 1152}, {16, 576}, {9, 300}, {5, 7}, {32, 513}};
    for (GemmIsa isa : supported_isas()) {
        for (const auto& s : shapes) {
            const int64_t m = s[0], k = s[1];
            const GemmPlan plan = plan_gemm(m, 64, k, true, true, 1, isa);
            std::vector<float> a(static_cast<size_t>(m * k));  // stored k x m (trans), as a convolution's x^T
            for (float& x : a) x = val(rng);
            std::vector<int64_t> k_off(static_cast<size_t>(k)), m_off(static_cast<size_t>(m));
            for (int64_t q = 0; q < k; ++q) k_off[static_cast<size_t>(q)] = q * m;
            for (int64_t r = 0; r < m; ++r) m_off[static_cast<size_t>(r)] = (r * 5) % m;  // gathered rows
            std::vector<float> a_gathered(a.size());
            for (int64_t q = 0; q < k; ++q)
                for (int64_t r = 0; r < m; ++r) a_gathered[static_cast<size_t>(q * m + r)] = a[static_cast<size_t>(q * m + (r * 5) % m)];
            std::vector<float> want(packed_a_floats(plan)), want_idx(want.size());
            pack_a(plan, a.data(), m, true, want.data());
            pack_a(plan, a_gathered.data(), m, true, want_idx.data());
            for (int64_t piece : {int64_t{1}, int64_t{7}, int64_t{100}, k}) {
                std::vector<float> got(want.size() + 1, -3.0f), got_idx(want.size() + 1, -3.0f);
                std::vector<int64_t> starts;
                for (int64_t q = 0; q < k; q += piece) starts.push_back(q);
                std::shuffle(starts.begin(), starts.end(), rng);
                for (int64_t q : starts) {
                    pack_a(plan, a.data(), m, true, got.data(), q, q + piece);
                    pack_a_indexed(plan, a.data(), k_off.data(), m_off.data(), got_idx.data(), q, q + piece);
                }
                const std::string what = std::string(gemm_isa_name(isa)) + " m=" + std::to_string(m) + " k=" +
                                         std::to_string(k) + " piece=" + std::to_string(piece);
                EXPECT_EQ(got.back(), -3.0f) << what;
                EXPECT_EQ(0, std::memcmp(got.data(), want.data(), want.size() * sizeof(float))) << what;
                EXPECT_EQ(0, std::memcmp(got_idx.data(), want_idx.data(), want.size() * sizeof(float))) << what << " indexed";
            }
        }
    }
}


// The AVX2 and AVX-512 kernels run the same algorithm (sgemm_microkernels.inl): every element is
// one fused multiply-add chain, k ascending, in K blocks of the same kc, so their results are the
// same bits whatever the panel widths, half-width edges, wide or 4-row kernels involved.
TEST(Sgemm, Avx2AndAvx512AreBitIdentical) {
    if (!gemm_isa_supported(GemmIsa::Avx512)) GTEST_SKIP() << "this CPU has no AVX-512: nothing to compare";
    std::mt19937 rng(31);
    const int64_t shapes[][3] = {{1, 1000, 1280}, {4, 128, 1152}, {16, 16, 16}, {16, 1024, 147}, {64, 256, 144},
                                 {1000, 16, 512}, {30, 50, 300},  {7, 33, 9},   {128, 48, 600}};
    for (const auto& s : shapes) {
        Problem p = make_problem(rng, s[0], s[1], s[2], s[0] % 2 == 1, s[1] % 3 == 0);
        set_epilogue(p, rng, static_cast<int>((s[0] + s[1]) % 3), static_cast<GemmActivation>(s[2] % 3));
        for (Mode mode : kModes) {
            const std::vector<float> avx2 = run(p, mode, GemmIsa::Avx2);
            const std::vector<float> avx512 = run(p, mode, GemmIsa::Avx512, 2);
            EXPECT_EQ(std::memcmp(avx2.data(), avx512.data(), sizeof(float) * avx2.size()), 0)
                << describe(p, mode, GemmIsa::Avx512) << ": differs from AVX2";
        }
    }
}

}  // namespace
}  // namespace irlite::nn
