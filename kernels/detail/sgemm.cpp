// Single-precision GEMM: the driver. Instruction-set selection, packing, tiling and each tile's
// walk over micro-tiles; the micro-kernels are in one file per instruction set (sgemm_kernels.hpp).
// See sgemm.hpp for the contract. The kernels carry target attributes, so this builds with or
// without -march flags and picks the kernels at run time (plan_gemm records the choice in the
// plan's layout).
#include "kernels/detail/sgemm.hpp"

#include "kernels/detail/cpu_isa.hpp"
#include "kernels/detail/sgemm_kernels.hpp"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cstring>

namespace irlite::nn {
namespace {

using sgemm::activate;
using sgemm::IsaParams;
using sgemm::KernelEpi;
using sgemm::KernelFn;
using sgemm::kMaxMr;
using sgemm::kMaxNr;
using sgemm::kRows4Mr;

// K block x tile width (floats of B) up to which run_gemm_tile walks a tile's micro-tiles row panel
// by row panel (16 KiB: half of L1, so the B block stays there), when C's rows are at least
// kRowsOuterMinLdc floats (a 4 KiB page) apart.
constexpr int64_t kRowsOuterMaxFloats = 4096;
constexpr int64_t kRowsOuterMinLdc = 1024;

const IsaParams& params(GemmIsa isa) {
#if IRLITE_ISA_X86
    if (isa == GemmIsa::Avx512) return sgemm::avx512_params();
    if (isa == GemmIsa::Avx2) return sgemm::avx2_params();
#endif
    (void)isa;
    return sgemm::portable_params();
}

// -1: not forced; otherwise the forced GemmIsa.
std::atomic<int> g_forced_isa{-1};

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t round_up(int64_t a, int64_t b) { return ceil_div(a, b) * b; }

// ---------------------------------------------------------------------------------------------
// Packing. A panel is kcb rows of W floats (W = mr or nr); x < w are taken from the source, the
// rest are zeros. Two source shapes: element (p, x) at src[p*ld + x] ("rows", contiguous in x) or at
// src[x*ld + p] ("cols", contiguous in p). W is a compile-time constant so the copies unroll.
template <int W>
void panel_rows(const float* src, int64_t ld, int w, int64_t kcb, float* out) {
    if (w == W) {
        for (int64_t p = 0; p < kcb; ++p, src += ld, out += W) {
            float tmp[W];
            for (int x = 0; x < W; ++x) tmp[x] = src[x];
            for (int x = 0; x < W; ++x) out[x] = tmp[x];
        }
    } else {
        for (int64_t p = 0; p < kcb; ++p, src += ld, out += W) {
            for (int x = 0; x < w; ++x) out[x] = src[x];
            for (int x = w; x < W; ++x) out[x] = 0.0f;
        }
    }
}

template <int W>
void panel_cols(const float* src, int64_t ld, int w, int64_t kcb, float* out) {
    if (w == W) {
        // Blocks of 8 k: W short contiguous reads, written into one 8*W stretch.
        int64_t p = 0;
        for (; p + 8 <= kcb; p += 8) {
            float* o = out + p * W;
            for (int x = 0; x < W; ++x) {
                const float* s = src + x * ld + p;
                for (int q = 0; q < 8; ++q) o[q * W + x] = s[q];
            }
        }
        for (; p < kcb; ++p)
            for (int x = 0; x < W; ++x) out[p * W + x] = src[x * ld + p];
    } else {
        for (int x = 0; x < w; ++x)
            for (int64_t p = 0; p < kcb; ++p) out[p * W + x] = src[x * ld + p];
        for (int x = w; x < W; ++x)
            for (int64_t p = 0; p < kcb; ++p) out[p * W + x] = 0.0f;
    }
}

// Panels of width W covering `count` of x from x0, k [p0, p0+kcb): x_major says element (p, x) is at
// src[x*ld + p] (A stored m x k, or B stored n x k), otherwise at src[p*ld + x].
template <int W>
void pack_panels_w(const float* src, int64_t ld, bool x_major, int64_t x0, int64_t count, int64_t p0, int64_t kcb,
                   float* out, int64_t panel_floats) {
    for (int64_t x = 0; x < count; x += W, out += panel_floats) {
        const int w = static_cast<int>(std::min<int64_t>(W, count - x));
        if (x_major) panel_cols<W>(src + (x0 + x) * ld + p0, ld, w, kcb, out);
        else panel_rows<W>(src + p0 * ld + x0 + x, ld, w, kcb, out);
    }
}

// panel_floats: where panel x / width starts after panel x / width - 1 (width * kcb, or the
// panels' full height when only some of their K rows are packed).
void pack_panels(int width, const float* src, int64_t ld, bool x_major, int64_t x0, int64_t count, int64_t p0,
                 int64_t kcb, float* out, int64_t panel_floats = 0) {
    if (panel_floats == 0) panel_floats = width * kcb;
    switch (width) {
        case 4: return pack_panels_w<4>(src, ld, x_major, x0, count, p0, kcb, out, panel_floats);
        case 6: return pack_panels_w<6>(src, ld, x_major, x0, count, p0, kcb, out, panel_floats);
        case 8: return pack_panels_w<8>(src, ld, x_major, x0, count, p0, kcb, out, panel_floats);
        case 12: return pack_panels_w<12>(src, ld, x_major, x0, count, p0, kcb, out, panel_floats);
        case 16: return pack_panels_w<16>(src, ld, x_major, x0, count, p0, kcb, out, panel_floats);
        case 32: return pack_panels_w<32>(src, ld, x_major, x0, count, p0, kcb, out, panel_floats);
        default: break;
    }
}

// A block: rows [i0, i0+rows) x k [p0, p0+kcb) into ceil(rows/mr) panels of kcb x mr.
void pack_a_block(const float* a, int64_t lda, bool trans, int64_t i0, int64_t rows, int64_t p0, int64_t kcb, int mr,
                  float* out) {
    pack_panels(mr, a, lda, !trans, i0, rows, p0, kcb, out);
}

// B block: columns [j0, j0+cols) x k [p0, p0+kcb) into ceil(cols/nr) panels of kcb x nr.
void pack_b_block(const float* b, int64_t ldb, bool trans, int64_t j0, int64_t cols, int64_t p0, int64_t kcb, int nr,
                  float* out) {
    pack_panels(nr, b, ldb, trans, j0, cols, p0, kcb, out);
}

// Indexed B (sgemm.hpp): columns [j0, j0+cols) x k [p0, p0+kcb) gathered into ceil(cols/nr) panels
// of kcb x nr, zeros past the last column.
void pack_b_indexed(const GemmOperand& b, int64_t j0, int64_t cols, int64_t p0, int64_t kcb, int nr, float* out) {
    constexpr int64_t G = kGemmColumnGroup;
    for (int64_t x = 0; x < cols; x += nr, out += nr * kcb) {
        const int64_t w = std::min<int64_t>(nr, cols - x);
        for (int64_t p = 0; p < kcb; ++p) {
            const float* row = b.data + b.row_off[p0 + p];
            float* o = out + p * nr;
            int64_t j = 0;
            while (j < w) {  // runs of up to G columns within one column group
                const int64_t col = j0 + x + j, in_group = col % G;
                const int64_t run = std::min(G - in_group, w - j);
                std::memcpy(o + j, row + b.col_off[col / G] + in_group, sizeof(float) * static_cast<size_t>(run));
                j += run;
            }
            std::fill(o + w, o + nr, 0.0f);
        }
    }
}

float* align64(void* p) {
    const auto v = reinterpret_cast<uintptr_t>(p);
    return reinterpret_cast<float*>((v + 63) & ~static_cast<uintptr_t>(63));
}

}  // namespace

// -------------------------------------------------------------------------------------------------
// ISA selection.

bool gemm_isa_supported(GemmIsa isa) {
    // The enums share their order (sse/portable, avx2, avx512).
    return cpu::isa_supported(static_cast<cpu::Isa>(static_cast<int>(isa)));
}

GemmIsa gemm_detected_isa() {
    static const GemmIsa detected = [] {
        if (gemm_isa_supported(GemmIsa::Avx512)) return GemmIsa::Avx512;
        if (gemm_isa_supported(GemmIsa::Avx2)) return GemmIsa::Avx2;
        return GemmIsa::Portable;
    }();
    return detected;
}

GemmIsa gemm_default_isa() {
    const int forced = g_forced_isa.load(std::memory_order_relaxed);
    if (forced >= 0) return static_cast<GemmIsa>(forced);
    // The level every other dispatched kernel runs at (cpu_isa.hpp: the CPU's, capped by
    // IRLITE_ISA), and never above what this file's kernels may use here. The enums share order.
    const auto level = static_cast<GemmIsa>(static_cast<int>(cpu::active_isa()));
    return std::min(level, gemm_detected_isa());
}

GemmIsa gemm_isa_for(int64_t columns) {
    constexpr int64_t kAvx512MinColumns = 64;  // two AVX-512 B panels
    const GemmIsa isa = gemm_default_isa();
    return columns < kAvx512MinColumns ? std::min(isa, GemmIsa::Avx2) : isa;
}

GemmIsa gemm_isa_for_conv(ConvGemmForm form, GemmIsa level, bool avx512_half_rate) {
    if (avx512_half_rate && form != ConvGemmForm::PackedB) return std::min(level, GemmIsa::Avx2);
    return level;
}

GemmIsa gemm_isa_for_conv(ConvGemmForm form) {
    return gemm_isa_for_conv(form, gemm_default_isa(), cpu::avx512_half_rate());
}

void set_gemm_isa_for_testing(GemmIsa isa) {
    g_forced_isa.store(gemm_isa_supported(isa) ? static_cast<int>(isa) : static_cast<int>(GemmIsa::Portable),
                       std::memory_order_relaxed);
}
void reset_gemm_isa_for_testing() { g_forced_isa.store(-1, std::memory_order_relaxed); }

const char* gemm_isa_name(GemmIsa isa) {
    switch (isa) {
        case GemmIsa::Portable: return "portable";
        case GemmIsa::Avx2: return "avx2";
        case GemmIsa::Avx512: return "avx512";
    }
    return "?";
}

// -------------------------------------------------------------------------------------------------
// Layout and packing of whole operands.

GemmLayout gemm_layout(int64_t k, GemmIsa isa) {
    if (!gemm_isa_supported(isa)) isa = GemmIsa::Portable;
    const IsaParams& ip = params(isa);
    GemmLayout l;
    l.isa = isa;
    l.mr = ip.mr;
    l.nr = ip.nr;
    l.k = std::max<int64_t>(k, 0);
    // Equal blocks no longer than kc_max (a short last block would waste the loop overhead).
    const int64_t blocks = std::max<int64_t>(1, ceil_div(l.k, ip.kc_max));
    l.kc = std::max<int64_t>(1, ceil_div(l.k, blocks));
    return l;
}

// Whole-operand layout: K block b (size kcb) starts at b*kc*padded; within it, panels of kcb x mr/nr.
size_t packed_b_floats(const GemmLayout& l, int64_t n) {
    return static_cast<size_t>(round_up(std::max<int64_t>(n, 0), l.nr) * l.k);
}

size_t packed_a_floats(const GemmPlan& plan) {
    return static_cast<size_t>(round_up(plan.m, plan.a_mr) * plan.layout.k);
}

void pack_a(const GemmPlan& plan, const float* a, int64_t lda, bool trans, float* out) {
    pack_a(plan, a, lda, trans, out, 0, plan.layout.k);
}

// The K blocks of packed A that rows [k_begin, k_end) of K touch: fn(p0, kcb, q0, q1, blk) per
// block, p0 its first row, kcb its height, [q0, q1) the rows to pack in it, blk where it starts.
template <class Fn>
void for_a_blocks(const GemmPlan& plan, float* out, int64_t k_begin, int64_t k_end, const Fn& fn) {
    const GemmLayout& l = plan.layout;
    const int64_t mp = round_up(plan.m, plan.a_mr);
    k_begin = std::max<int64_t>(k_begin, 0);
    k_end = std::min(k_end, l.k);
    for (int64_t p0 = k_begin / l.kc * l.kc; p0 < k_end; p0 += l.kc) {
        const int64_t kcb = std::min(l.kc, l.k - p0);
        fn(p0, kcb, std::max(p0, k_begin), std::min(p0 + kcb, k_end), out + p0 * mp);
    }
}

void pack_a(const GemmPlan& plan, const float* a, int64_t lda, bool trans, float* out, int64_t k_begin, int64_t k_end) {
    const int mr = plan.a_mr;
    for_a_blocks(plan, out, k_begin, k_end, [&](int64_t p0, int64_t kcb, int64_t q0, int64_t q1, float* blk) {
        // Rows q0.. of each panel of the block (panels kcb rows tall).
        pack_panels(mr, a, lda, !trans, 0, plan.m, q0, q1 - q0, blk + (q0 - p0) * mr, mr * kcb);
    });
}

void pack_a_indexed(const GemmPlan& plan, const float* data, const int64_t* k_off, const int64_t* m_off, float* out) {
    pack_a_indexed(plan, data, k_off, m_off, out, 0, plan.layout.k);
}

void pack_a_indexed(const GemmPlan& plan, const float* data, const int64_t* k_off, const int64_t* m_off, float* out,
                    int64_t k_begin, int64_t k_end) {
    const int mr = plan.a_mr;
    for_a_blocks(plan, out, k_begin, k_end, [&](int64_t p0, int64_t kcb, int64_t q0, int64_t q1, float* blk) {
        for (int64_t i0 = 0; i0 < plan.m; i0 += mr) {
            const int h = static_cast<int>(std::min<int64_t>(mr, plan.m - i0));
            float* panel = blk + i0 * kcb;  // row p of the panel at panel + (p - p0) * mr
            const int64_t* mo = m_off + i0;
            bool run = h == mr;  // the panel's rows are consecutive elements: one copy per k
            for (int r = 1; r < h && run; ++r) run = mo[r] == mo[0] + r;
            if (run && mr == 4) {  // a fixed size: inlined moves, not a memcpy call per k
                for (int64_t p = q0; p < q1; ++p) std::memcpy(panel + (p - p0) * 4, data + k_off[p] + mo[0], 4 * sizeof(float));
            } else if (run && mr == 6) {
                for (int64_t p = q0; p < q1; ++p) std::memcpy(panel + (p - p0) * 6, data + k_off[p] + mo[0], 6 * sizeof(float));
            } else if (h == 4 && mr == 4) {
                // Four gathered rows (a 2 x 2 plane): the offsets held in registers, not reloaded per k.
                const int64_t m0 = mo[0], m1 = mo[1], m2 = mo[2], m3 = mo[3];
                for (int64_t p = q0; p < q1; ++p) {
                    const float* src = data + k_off[p];
                    float* o = panel + (p - p0) * 4;
                    const float v0 = src[m0], v1 = src[m1], v2 = src[m2], v3 = src[m3];
                    o[0] = v0, o[1] = v1, o[2] = v2, o[3] = v3;
                }
            } else {
                for (int64_t p = q0; p < q1; ++p) {
                    const float* src = data + k_off[p];
                    float* o = panel + (p - p0) * mr;
                    for (int r = 0; r < h; ++r) o[r] = src[mo[r]];
                    for (int r = h; r < mr; ++r) o[r] = 0.0f;
                }
            }
        }
    });
}

void pack_b(const GemmLayout& l, const float* b, int64_t ldb, bool trans, int64_t n, float* out) {
    const int64_t np = round_up(n, l.nr);
    for (int64_t p0 = 0; p0 < l.k; p0 += l.kc) {
        const int64_t kcb = std::min(l.kc, l.k - p0);
        pack_b_block(b, ldb, trans, 0, n, p0, kcb, l.nr, out + p0 * np);
    }
}

// -------------------------------------------------------------------------------------------------
// Planning.

namespace {

constexpr int kMaxBalancedWorkers = 16;
constexpr int64_t kMaxBalancedGrids = 256;

// The narrowest tile worth a task of its own: 4 B panels, but never more than 64 columns (4 AVX2
// panels, 2 AVX-512 ones), so that a level's wider panels do not make its tiles coarser: at 4
// AVX-512 panels (128 columns), ResNet-18's 1000-class classifier and its 2 x 2 layers of 128
// channels stayed on one thread of two (0.018 against 0.005 ms for the classifier on an AMD EPYC,
// Zen 4).
constexpr int64_t kMaxMinTileColumns = 64;

int64_t min_tile_columns(int64_t nr) { return std::min(4 * nr, std::max(kMaxMinTileColumns, nr)); }

// When `workers` workers take the tiles of an m x n grid of mc x nc tiles in order, each the next
// one as soon as it is free (the thread pool's dynamic claiming), with time proportional to a
// tile's area: when the last one finishes.
int64_t finish_time(int64_t m, int64_t n, int64_t mc, int64_t nc, int workers) {
    int64_t load[kMaxBalancedWorkers] = {};
    const int64_t tm = ceil_div(m, mc), tn = ceil_div(n, nc);
    for (int64_t t = 0; t < tm * tn; ++t) {
        const int64_t rows = std::min(mc, m - t / tn * mc), cols = std::min(nc, n - t % tn * nc);
        int64_t* next = std::min_element(load, load + workers);
        *next += rows * cols;
    }
    return *std::max_element(load, load + workers);
}

// The grid for several workers (see plan_gemm): from about the halving's tile counts, every count
// of tiles along M (at least m / mc_max, A blocks within L2) and N (B blocks at least
// min_tile_columns wide unless N is narrower) up to 2 * workers more, tiles of whole panels and of 8k multiply-adds or
// more, at least `workers` of them.
void balance_tiles(int64_t m, int64_t n, int64_t k, int64_t mr, int64_t nr, int64_t mc_max, int workers, int64_t& mc,
                   int64_t& nc) {
    const auto cut = [](int64_t extent, int64_t panel, int64_t t) { return round_up(ceil_div(extent, t), panel); };
    const int64_t tm0 = ceil_div(m, mc), tn0 = ceil_div(n, nc);
    // Large grids are left as they are: claimed dynamically, many tiles even out by themselves,
    // and the search (grids x tiles x workers) would cost more than a plan should.
    if ((tm0 + 2 * workers) * (tn0 + 2 * workers) > kMaxBalancedGrids) return;
    const int64_t nc_min = std::min(min_tile_columns(nr), round_up(n, nr));
    int64_t best = finish_time(m, n, mc, nc, workers), best_tiles = tm0 * tn0;
    for (int64_t tm = ceil_div(m, mc_max); tm <= tm0 + 2 * workers; ++tm) {
        const int64_t mcv = cut(m, mr, tm);
        if (ceil_div(m, mcv) != tm) continue;  // each count once
        for (int64_t tn = 1; tn <= tn0 + 2 * workers; ++tn) {
            const int64_t ncv = cut(n, nr, tn);
            if (ceil_div(n, ncv) != tn || ncv < nc_min || tm * tn < workers) continue;
            if (mcv * ncv * k < (int64_t{1} << 13)) continue;
            const int64_t t = finish_time(m, n, mcv, ncv, workers);
            if (t < best || (t == best && tm * tn < best_tiles)) {
                best = t;
                best_tiles = tm * tn;
                mc = mcv;
                nc = ncv;
            }
        }
    }
}

}  // namespace

GemmPlan plan_gemm(int64_t m, int64_t n, int64_t k, bool a_prepacked, bool b_prepacked, int workers,
                   GemmIsa isa) {
    GemmPlan plan;
    plan.m = std::max<int64_t>(m, 0);
    plan.n = std::max<int64_t>(n, 0);
    plan.k = std::max<int64_t>(k, 0);
    plan.layout = gemm_layout(plan.k, isa);
    plan.a_prepacked = a_prepacked;
    plan.b_prepacked = b_prepacked;
    const IsaParams& ip = params(plan.layout.isa);
    plan.a_mr = ip.mr;
    if (ip.rows4[0][0] && a_prepacked && plan.m % kRows4Mr == 0 && plan.m % ip.mr != 0 && plan.m <= 64)
        plan.a_mr = kRows4Mr;
    const int64_t mr = plan.a_mr, nr = ip.nr;
    int64_t mc = std::min(ip.mc, round_up(std::max<int64_t>(plan.m, 1), mr));
    int64_t nc = std::min(ip.nc, round_up(std::max<int64_t>(plan.n, 1), nr));
    // More workers: cut tiles until there are about two per worker, but keep them worth a task
    // (at least min_tile_columns wide, 2 A panels tall, and some 16k multiply-adds: about half a
    // microsecond, several times what a task costs the thread pool; MobileNetV2's 1x1 convolutions
    // of a few microseconds gain from two threads at this grain, 3.8 -> 2.8 us for 32 -> 192 on 4x4).
    const int64_t want = workers > 1 ? 2 * static_cast<int64_t>(workers) : 1;
    auto count = [&](int64_t mcv, int64_t ncv) { return ceil_div(plan.m, mcv) * ceil_div(plan.n, ncv); };
    while (count(mc, nc) < want) {
        const int64_t nc2 = round_up(nc / 2, nr), mc2 = round_up(mc / 2, mr);
        const bool can_n = nc2 < nc && nc2 >= min_tile_columns(nr);
        const bool can_m = mc2 < mc && mc2 >= 2 * mr;
        if (!can_n && !can_m) break;
        const int64_t next_mc = can_n ? mc : mc2, next_nc = can_n ? nc2 : nc;
        if (next_mc * next_nc * std::max<int64_t>(plan.k, 1) < (int64_t{1} << 14)) break;
        mc = next_mc;
        nc = next_nc;
    }
    // Several workers: the tile grid near this one under which the workers finish first, taking
    // the tiles in order as they do (whole panels per tile, A blocks still within mc_max, tiles
    // still worth a task; fewer tiles on a tie). Halving alone left uneven grids: SqueezeNet's
    // 1000-row classifier made 7 tiles of 144 rows, and on 2 threads one thread ran 4 while the
    // other waited after 3; a 128-row layer made tiles of 36, 36, 36 and 20 rows.
    if (workers > 1 && workers <= kMaxBalancedWorkers && plan.m > 0 && plan.n > 0)
        balance_tiles(plan.m, plan.n, std::max<int64_t>(plan.k, 1), mr, nr, ip.mc, workers, mc, nc);
    plan.mc = mc;
    plan.nc = nc;
    plan.tiles_m = ceil_div(plan.m, mc);
    plan.tiles_n = ceil_div(plan.n, nc);
    if (plan.m == 0 || plan.n == 0) plan.tiles_m = plan.tiles_n = 0;
    size_t floats = 0;
    if (plan.k > 0) {
        if (!a_prepacked) floats += static_cast<size_t>(mc * plan.layout.kc);
        if (!b_prepacked) floats += static_cast<size_t>(nc * plan.layout.kc);
    }
    plan.scratch_bytes = floats ? floats * sizeof(float) + 128 : 0;  // + alignment slack for two buffers
    return plan;
}

// -------------------------------------------------------------------------------------------------
// Execution.

namespace {

// run_gemm_tile_to's parts. They run once per tile, per K block or per micro-tile of the hottest
// loop in irlite, and are split out for the reader only: always inlined back into the driver, so
// that the per-tile values stay in registers and the split adds no calls.
#define IRLITE_GEMM_PART inline __attribute__((always_inline))

// What one tile multiplies and along which paths: fixed for all of its K blocks.
struct TileWork {
    const GemmOperand& a;
    const GemmOperand& b;
    const GemmEpilogue& ep;
    const IsaParams& ip;
    float* c;  // the tile's first element of C
    int64_t ldc;
    int64_t i0, rows, j0, cols;  // the tile's place in C and its extent
    int64_t mp, np;              // M and N rounded up to whole panels: the prepacked operands' strides
    int mr, nr;
    bool row_bias, col_bias;
    float* a_buf;  // where A and B are packed when they are not prepacked
    float* b_buf;
    bool b_indexed;         // B given by row and column offsets (GemmOperand::is_indexed)
    bool b_in_place;        // B stored k x n and read where it is, not packed
    bool b_indexed_direct;  // an indexed B that the kernels read in place, not gathered
    bool rows4;             // 4-row A panels and micro-tiles (IsaParams::rows4)
    KernelFn wide_fn;       // a short tile's kernel taking wide_p B panels a call, or null
    int64_t wide_p;
};

// One K block's operands.
struct KBlock {
    int64_t p0, kcb;  // its first k and its length
    const float* a;   // the A block, in panels
    const float* b;   // the B block (packed or in place), or null: an indexed B the kernels read directly
};

// What the kernel calls of a tile write: the epilogue they are given, and the right edge's
// full-width buffers (not zeroed per tile: 1.5 KiB each call on small GEMMs; when the kernel
// accumulates into it, the columns past the edge are zeroed there).
struct TileScratch {
    KernelEpi ke;
    alignas(64) float c[kMaxMr * kMaxNr];
    alignas(64) float bias[kMaxNr];
};

// k == 0: an empty sum, so each element is act(0 + bias).
void store_empty_sum(const GemmEpilogue& ep, int64_t i0, int64_t rows, int64_t j0, int64_t cols, float* c,
                     int64_t ldc) {
    const bool row_bias = ep.bias && ep.axis == GemmEpilogue::BiasAxis::Row;
    const bool col_bias = ep.bias && ep.axis == GemmEpilogue::BiasAxis::Column;
    for (int64_t i = 0; i < rows; ++i) {
        float* cr = c + i * ldc;
        for (int64_t j = 0; j < cols; ++j) {
            float v = 0.0f;
            if (row_bias) v = v + ep.bias[i0 + i];
            if (col_bias) v = v + ep.bias[j0 + j];
            cr[j] = activate(v, ep.act, ep.lo, ep.hi);
        }
    }
}

// Chooses how the tile reads B and which kernels it runs.
IRLITE_GEMM_PART TileWork plan_tile_work(const GemmPlan& plan, int64_t i0, int64_t rows, int64_t j0, int64_t cols,
                                         const GemmOperand& a, const GemmOperand& b, float* c, int64_t ldc,
                                         const GemmEpilogue& ep, void* scratch) {
    const GemmLayout& l = plan.layout;
    const IsaParams& ip = params(l.isa);
    const int mr = l.mr, nr = l.nr;
    float* a_buf = nullptr;
    float* b_buf = nullptr;
    if (!a.packed) a_buf = align64(scratch);
    if (!b.packed) b_buf = align64(a_buf ? static_cast<void*>(a_buf + plan.mc * l.kc) : scratch);

    // B stored k x n is read in place, without packing (same arithmetic, so the same results), when
    // packing would cost about as much as the multiply-adds it feeds: each B panel serves at most two
    // micro-tiles (a short tile), or K blocks are short. Otherwise only when the row stride is not a
    // multiple of 4 KiB: such strides map a panel's rows onto a few cache sets and thrash L1/L2.
    const bool b_indexed = b.is_indexed();
    const bool b_in_place =
        !b_indexed && !b.packed && !b.trans && (rows <= 2 * mr || l.kc <= 48 || b.ld % 1024 != 0);
    // An indexed B is read in place by kernels that can (AVX2, AVX-512), otherwise gathered block by block.
    const bool b_indexed_direct = b_indexed && ip.indexed[0] != nullptr;
    assert(!b_indexed || j0 % kGemmColumnGroup == 0);

    // A packed here with rows a multiple of 4 but not of mr (6, AVX2): 4-row panels and micro-tiles
    // where the level has them (IsaParams::rows4). Up to a few panels: on taller tiles the 6-row
    // remainder is a small share. A prepacked in 4-row panels (plan.a_mr) always runs them.
    const bool rows4 = ip.rows4[0][0] != nullptr && (a.packed ? plan.a_mr == kRows4Mr
                                                               : rows % kRows4Mr == 0 && rows % mr != 0 && rows <= 64);

    // Tiles of at most 4 rows (one micro-tile tall) use the wide kernels when the ISA has them.
    const KernelFn wide_fn = rows <= std::min(4, mr) && !b_indexed && !rows4 ? ip.wide[rows - 1] : nullptr;
    const int64_t wide_p = wide_fn ? ip.wide_panels[rows - 1] : 1;
    const bool row_bias = ep.bias && ep.axis == GemmEpilogue::BiasAxis::Row;
    const bool col_bias = ep.bias && ep.axis == GemmEpilogue::BiasAxis::Column;
    const int64_t mp = round_up(plan.m, plan.a_mr), np = round_up(plan.n, nr);
    return TileWork{a,         b,        ep,         ip,    c,          ldc,   i0,    rows,
                    j0,        cols,     mp,         np,    mr,         nr,    row_bias, col_bias,
                    a_buf,     b_buf,    b_indexed,  b_in_place, b_indexed_direct, rows4, wide_fn, wide_p};
}

// The K block's A: a slice of the prepacked A, or packed here.
IRLITE_GEMM_PART const float* a_block(const TileWork& t, int64_t p0, int64_t kcb) {
    if (t.a.packed) return t.a.data + p0 * t.mp + t.i0 * kcb;  // i0 is a multiple of a_mr: panel i0/a_mr of this block
    pack_a_block(t.a.data, t.a.ld, t.a.trans, t.i0, t.rows, p0, kcb, t.rows4 ? 4 : t.mr, t.a_buf);
    return t.a_buf;
}

// The K block's B: a slice of the prepacked B, B where it is, nothing (the kernels read an indexed
// B through its offsets), or packed here.
IRLITE_GEMM_PART const float* b_block(const TileWork& t, int64_t p0, int64_t kcb) {
    if (t.b.packed) return t.b.data + p0 * t.np + t.j0 * kcb;
    if (t.b_in_place) return t.b.data + p0 * t.b.ld + t.j0;
    if (t.b_indexed_direct) return nullptr;  // read through b.row_off / b.col_off
    if (t.b_indexed) {
        pack_b_indexed(t.b, t.j0, t.cols, p0, kcb, t.nr, t.b_buf);
    } else {
        pack_b_block(t.b.data, t.b.ld, t.b.trans, t.j0, t.cols, p0, kcb, t.nr, t.b_buf);
    }
    return t.b_buf;
}

// The last, partial B panel from column `full` on (the kernels read nr columns), zero-padded: into
// b_buf when B is read in place (b_buf is unused then), where packing put it otherwise.
IRLITE_GEMM_PART const float* edge_panel_b(const TileWork& t, const KBlock& blk, int64_t full) {
    const int w = static_cast<int>(t.cols - full);
    if (t.b_indexed_direct) {
        pack_b_indexed(t.b, t.j0 + full, w, blk.p0, blk.kcb, t.nr, t.b_buf);
        return t.b_buf;
    }
    if (t.b_in_place) {
        pack_b_block(t.b.data, t.b.ld, false, t.j0 + full, w, blk.p0, blk.kcb, t.nr, t.b_buf);
        return t.b_buf;
    }
    return blk.b + full * blk.kcb;
}

// The column bias of the last, partial panel, zero-padded to nr.
IRLITE_GEMM_PART void edge_bias(const TileWork& t, int64_t full, float* bias) {
    const int64_t w = t.cols - full;
    for (int j = 0; j < t.nr; ++j) bias[j] = j < w ? t.ep.bias[t.j0 + full + j] : 0.0f;
}

// Before a kernel call on the edge buffer (h x nr) for C's h x w corner at cp: C's values when the
// kernel adds to them, zeros past the edge.
IRLITE_GEMM_PART void load_edge_c(const TileScratch& s, float* tmp_c, const float* cp, int64_t ldc, int h, int w,
                                  int nr) {
    if (!s.ke.accumulate) return;
    for (int r = 0; r < h; ++r) {
        std::memcpy(tmp_c + r * nr, cp + r * ldc, sizeof(float) * w);
        std::fill(tmp_c + r * nr + w, tmp_c + (r + 1) * nr, 0.0f);
    }
}

// After it: the w columns inside C copied back.
IRLITE_GEMM_PART void store_edge_c(const float* tmp_c, float* cp, int64_t ldc, int h, int w, int nr) {
    for (int r = 0; r < h; ++r) std::memcpy(cp + r * ldc, tmp_c + r * nr, sizeof(float) * w);
}

// The 4-row path's whole panels: runs of up to 3 column groups (4 x 24), B read where it is.
IRLITE_GEMM_PART void rows4_full_panels(const TileWork& t, const KBlock& blk, TileScratch& s, int64_t groups) {
    constexpr int64_t G = kGemmColumnGroup;
    const int64_t ldb = t.b_in_place ? t.b.ld : t.nr;
    const int64_t* roff = t.b_indexed_direct ? t.b.row_off + blk.p0 : nullptr;
    const auto group = [&](int64_t gi) -> const float* {
        if (t.b_indexed_direct) return t.b.data + t.b.col_off[t.j0 / G + gi];
        if (t.b_in_place) return blk.b + gi * G;
        return blk.b + (gi / 2) * t.nr * blk.kcb + (gi % 2) * G;  // packed panels of nr = 2 groups
    };
    KernelEpi& ke = s.ke;
    for (int64_t gi = 0, v = 0; gi < groups; gi += v) {
        // 3 groups a call; the last 4 as 2 + 2 rather than 3 + 1 (a 4 x 8 kernel has 4 sums).
        v = groups - gi == 4 ? 2 : std::min<int64_t>(3, groups - gi);
        const float* bp[3] = {group(gi), v > 1 ? group(gi + 1) : nullptr, v > 2 ? group(gi + 2) : nullptr};
        ke.col_bias = ke.last && t.col_bias ? t.ep.bias + t.j0 + gi * G : nullptr;
        for (int64_t ir = 0; ir < t.rows; ir += kRows4Mr) {
            ke.row_bias = ke.last && t.row_bias ? t.ep.bias + t.i0 + ir : nullptr;
            t.ip.rows4[roff ? 1 : 0][v - 1](blk.kcb, blk.a + ir * blk.kcb, bp, ldb, roff,
                                            t.c + ir * t.ldc + gi * G, t.ldc, ke);
        }
    }
}

// The 4-row path's last, partial panel from column `full` on, zero-padded to nr, through the edge buffer.
IRLITE_GEMM_PART void rows4_edge_panel(const TileWork& t, const KBlock& blk, TileScratch& s, int64_t full) {
    const int w = static_cast<int>(t.cols - full);
    const float* pb = edge_panel_b(t, blk, full);
    const float* bp[2] = {pb, pb + kGemmColumnGroup};
    KernelEpi& ke = s.ke;
    ke.col_bias = nullptr;
    if (ke.last && t.col_bias) {
        edge_bias(t, full, s.bias);
        ke.col_bias = s.bias;
    }
    for (int64_t ir = 0; ir < t.rows; ir += kRows4Mr) {
        float* cp = t.c + ir * t.ldc + full;
        ke.row_bias = ke.last && t.row_bias ? t.ep.bias + t.i0 + ir : nullptr;
        load_edge_c(s, s.c, cp, t.ldc, kRows4Mr, w, t.nr);
        t.ip.rows4[0][1](blk.kcb, blk.a + ir * blk.kcb, bp, t.nr, nullptr, s.c, t.nr, ke);
        store_edge_c(s.c, cp, t.ldc, kRows4Mr, w, t.nr);
    }
}

// A K block on the 4-row path.
IRLITE_GEMM_PART void run_rows4_block(const TileWork& t, const KBlock& blk, TileScratch& s) {
    const int64_t full = t.cols / t.nr * t.nr;
    rows4_full_panels(t, blk, s, full / kGemmColumnGroup);
    if (full < t.cols) rows4_edge_panel(t, blk, s, full);
}

// How a K block's right edge (its last, partial panel) is run.
struct EdgePanel {
    const float* bp;    // its B panel, zero-padded to nr, or null when it is read in place or there is none
    bool half;          // at most nr / 2 columns: the half-width kernels
    bool half_in_place;  // exactly nr / 2 columns of a B read in place: straight into C
    bool indexed_half;  // the same with an indexed B
};

// Prepares the K block's right edge: its B panel and its column bias.
// An edge of at most nr / 2 columns runs the half-width kernels where the ISA has them (a 4 x 4
// plane's 16 pixels on AVX-512); one of exactly nr / 2 writes C directly, and a B read in place
// (indexed: whole column groups, j0 and nr / 2 being multiples) is read so there too, not copied
// into a zero-padded panel first.
IRLITE_GEMM_PART EdgePanel prepare_edge_panel(const TileWork& t, const KBlock& blk, TileScratch& s) {
    const int64_t full = t.cols / t.nr * t.nr;
    EdgePanel e;
    e.bp = nullptr;
    e.half = full < t.cols && t.cols - full <= t.nr / 2 && t.ip.half[0] != nullptr;
    e.half_in_place = e.half && t.cols - full == t.nr / 2 && (t.b_indexed_direct || t.b_in_place);
    e.indexed_half = e.half_in_place && t.b_indexed_direct;
    if (full < t.cols && !e.half_in_place) e.bp = edge_panel_b(t, blk, full);
    if (full < t.cols && s.ke.last && t.col_bias) edge_bias(t, full, s.bias);
    return e;
}

// Micro-tile (ir, jr): rows [ir, ir + mr) of the tile against the B panel at column jr.
IRLITE_GEMM_PART void micro_tile(const TileWork& t, const KBlock& blk, const EdgePanel& e, TileScratch& s, int64_t ir,
                                 int64_t jr) {
    const int nr = t.nr;
    const int w = static_cast<int>(std::min<int64_t>(nr, t.cols - jr));
    const int h = static_cast<int>(std::min<int64_t>(t.mr, t.rows - ir));
    const int64_t kcb = blk.kcb;
    const float* ap = blk.a + ir * kcb;
    float* cp = t.c + ir * t.ldc + jr;
    KernelEpi& ke = s.ke;
    ke.row_bias = ke.last && t.row_bias ? t.ep.bias + t.i0 + ir : nullptr;
    ke.col_bias = nullptr;
    if (ke.last && t.col_bias) ke.col_bias = w == nr ? t.ep.bias + t.j0 + jr : s.bias;
    if ((w == nr && t.b_indexed_direct) || e.indexed_half) {
        // The panel's column groups, each one run of 8 floats per row.
        constexpr int64_t G = kGemmColumnGroup;
        const int64_t* grp = t.b.col_off + (t.j0 + jr) / G;
        const float* groups[kMaxNr / G];
        for (int gi = 0; gi < w / G; ++gi) groups[gi] = t.b.data + grp[gi];
        (w == nr ? t.ip.indexed : t.ip.indexed_half)[h - 1](kcb, ap, t.b.row_off + blk.p0, groups, cp, t.ldc, ke);
        return;
    }
    const KernelFn fn = t.ip.kernels[h - 1];
    if (w == nr) {
        if (t.b_in_place) fn(kcb, ap, blk.b + jr, t.b.ld, 0, cp, t.ldc, ke);
        else fn(kcb, ap, blk.b + jr * kcb, nr, 0, cp, t.ldc, ke);
        return;
    }
    if (e.half && w == nr / 2) {  // the half-width kernel, straight into C
        if (t.b_in_place) t.ip.half[h - 1](kcb, ap, blk.b + jr, t.b.ld, 0, cp, t.ldc, ke);
        else t.ip.half[h - 1](kcb, ap, e.bp, nr, 0, cp, t.ldc, ke);
        return;
    }
    const KernelFn edge_fn = e.half ? t.ip.half[h - 1] : fn;
    // Right edge: through a full-width buffer.
    load_edge_c(s, s.c, cp, t.ldc, h, w, nr);
    edge_fn(kcb, ap, e.bp, nr, 0, s.c, nr, ke);
    store_edge_c(s.c, cp, t.ldc, h, w, nr);
}

// A short tile (one micro-tile tall): P full panels per call where they fit.
IRLITE_GEMM_PART void run_wide_row(const TileWork& t, const KBlock& blk, const EdgePanel& e, TileScratch& s) {
    const int nr = t.nr;
    KernelEpi& ke = s.ke;
    for (int64_t jr = 0; jr < t.cols; jr += nr) {
        if (jr + t.wide_p * nr <= t.cols) {
            const float* bp = t.b_in_place ? blk.b + jr : blk.b + jr * blk.kcb;
            ke.col_bias = ke.last && t.col_bias ? t.ep.bias + t.j0 + jr : nullptr;
            ke.row_bias = ke.last && t.row_bias ? t.ep.bias + t.i0 : nullptr;
            t.wide_fn(blk.kcb, blk.a, bp, t.b_in_place ? t.b.ld : nr, t.b_in_place ? nr : nr * blk.kcb, t.c + jr,
                      t.ldc, ke);
            jr += (t.wide_p - 1) * nr;
        } else {
            micro_tile(t, blk, e, s, 0, jr);
        }
    }
}

// A K block on the mr-row path: its micro-tiles in the order that suits the tile.
IRLITE_GEMM_PART void run_micro_tiles(const TileWork& t, const KBlock& blk, TileScratch& s) {
    const EdgePanel e = prepare_edge_panel(t, blk, s);
    if (t.wide_fn) {
        run_wide_row(t, blk, e, s);
    } else if (blk.kcb * t.cols <= kRowsOuterMaxFloats && t.ldc >= kRowsOuterMinLdc) {
        // A short K block (a pointwise convolution on few input channels) and C's rows each in
        // their own page (a 32 x 32 plane or more): the tile's B block stays in L1 whatever the
        // order, so go along C's rows: each micro-tile row continues where the last one stopped,
        // a few sequential streams the hardware prefetches. Panel by panel, every micro-tile
        // starts mr rows in mr other pages (tens of streams, one line each), and when K is this
        // short the C lines' misses, not the multiply-adds, set the speed (48 x 1024 x 8: 34 ->
        // 24 us). Rows closer together share pages and lose a little to this order (SqueezeNet's
        // 16 -> 64 expansions on 8 x 8 and 16 x 16 planes), so they keep the other.
        for (int64_t ir = 0; ir < t.rows; ir += t.mr)
            for (int64_t jr = 0; jr < t.cols; jr += t.nr) micro_tile(t, blk, e, s, ir, jr);
    } else {
        // One B panel (kcb x nr, in L1) against the tile's A panels (in L2): B is read from
        // memory once per K block.
        for (int64_t jr = 0; jr < t.cols; jr += t.nr)
            for (int64_t ir = 0; ir < t.rows; ir += t.mr) micro_tile(t, blk, e, s, ir, jr);
    }
}

#undef IRLITE_GEMM_PART

}  // namespace

void run_gemm_tile_to(const GemmPlan& plan, int64_t tile, const GemmOperand& a, const GemmOperand& b, float* c,
                      int64_t ldc, const GemmEpilogue& ep, void* scratch) {
    assert(tile >= 0 && tile < plan.tiles());
    assert(a.packed == plan.a_prepacked && b.packed == plan.b_prepacked);  // scratch is sized by the plan
    const int64_t tm = tile / plan.tiles_n, tn = tile % plan.tiles_n;
    const int64_t i0 = tm * plan.mc, rows = std::min(plan.mc, plan.m - i0);
    const int64_t j0 = tn * plan.nc, cols = std::min(plan.nc, plan.n - j0);
    if (plan.k == 0) {
        store_empty_sum(ep, i0, rows, j0, cols, c, ldc);
        return;
    }
    record_isa_level(static_cast<int>(plan.layout.isa));  // GemmIsa numbers its levels as cpu::Isa does
    const TileWork t = plan_tile_work(plan, i0, rows, j0, cols, a, b, c, ldc, ep, scratch);
    TileScratch s;
    s.ke.act = ep.act;
    s.ke.lo = ep.lo;
    s.ke.hi = ep.hi;
    const int64_t kc = plan.layout.kc;
    for (int64_t p0 = 0; p0 < plan.k; p0 += kc) {
        const int64_t kcb = std::min(kc, plan.k - p0);
        const KBlock blk{p0, kcb, a_block(t, p0, kcb), b_block(t, p0, kcb)};
        s.ke.accumulate = p0 > 0;
        s.ke.last = p0 + kcb >= plan.k;
        if (t.rows4) run_rows4_block(t, blk, s);
        else run_micro_tiles(t, blk, s);
    }
}

void run_gemm_tile(const GemmPlan& plan, int64_t tile, const GemmOperand& a, const GemmOperand& b, float* c,
                   int64_t ldc, const GemmEpilogue& ep, void* scratch) {
    const GemmTileRect r = gemm_tile_rect(plan, tile);
    run_gemm_tile_to(plan, tile, a, b, c + r.row * ldc + r.col, ldc, ep, scratch);
}

void run_gemm(const GemmPlan& plan, const GemmOperand& a, const GemmOperand& b, float* c, int64_t ldc,
              const GemmEpilogue& epilogue, void* scratch) {
    for (int64_t t = 0; t < plan.tiles(); ++t) run_gemm_tile(plan, t, a, b, c, ldc, epilogue, scratch);
}

}  // namespace irlite::nn
