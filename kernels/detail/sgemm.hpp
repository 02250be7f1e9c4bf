// Single-precision GEMM with prepacked constant operands, caller-owned scratch and independent tiles.
//
//   C[M,N] = act(A[M,K] * B[K,N] + bias)          all matrices row-major (A or B may be stored transposed)
//
// Design (Goto / BLIS): operands are repacked into panels. A into MR-row panels, B into NR-column
// panels, both cut into K blocks of `kc`; a register-blocked micro-kernel (AVX-512: 12x32, or 12x16
// for a right edge of at most 16 columns; AVX2+FMA: 6x16, or 4x24 over 1.5 panels when M is a
// multiple of 4 but not of 6; portable: 4x8) multiplies one A panel by one B panel of one K block. The operand that is
// constant (the weights) is packed once, ahead of time, with pack_a / pack_b; the other is packed on
// each call into the scratch memory the caller passes to run_gemm_tile (a per-call B stored k x n is
// read in place instead when packing would not pay for itself: short tiles, short K blocks). Nothing
// here allocates: run_gemm_tile touches only its arguments (and about 2 KiB of stack).
//
// Parallelism: plan_gemm cuts C into a grid of tiles (plan.tiles() of them). Tiles are independent
// (no two write the same element, none reads another's output) so any number of workers may run them
// in any order, each with its own scratch block of plan.scratch_bytes. Every element of C is summed
// in the same order (k ascending, partial sums per K block of layout.kc, added block after block)
// whatever the tiling, so results are bit-identical for every thread count and tile schedule. They
// depend only on the instruction set (layout.isa) and on K (which fixes kc).
//
// Typical uses:
//   convolution   weights are A (M = Cout, K = Cin*kh*kw) packed once; im2col output is B (N = pixels)
//   MatMul/linear weights are B (K x N, or N x K with trans) packed once; activations are A (M = rows)
//   both dynamic  both are packed per tile into scratch
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/detail/gemm_activation.hpp"

namespace irlite::nn {

// Instruction set of the micro-kernel. Packed layouts differ between them.
enum class GemmIsa : uint8_t { Portable, Avx2, Avx512 };

// The best instruction set this CPU supports (AVX-512F, else AVX2 with FMA, else Portable).
GemmIsa gemm_detected_isa();
// The one plan_gemm / gemm_layout use by default: the detected one unless forced for testing.
GemmIsa gemm_default_isa();
// The level of a GEMM of two run-time operands (MatMul; A packed per call) over `columns`
// columns: the default one, except that with fewer than 64 columns it runs at most the AVX2
// kernels (a kernel family's
// own choice, made at compile time from the CPU and the layer's shape, cpu_isa.hpp). Their 4-row
// panels (M a multiple of 4 but not of 6, kernel_avx2_4rows) fit the small per-head products of
// attention, 16 x 16 x 16 in the Transformer, which the AVX-512 kernels' 12-row panels split into
// 12 + 4 rows: 1.4 times slower there on an AMD EPYC (Zen 5, full-width AVX-512). Convolutions
// choose by gemm_isa_for_conv: with full-width AVX-512 they take it at every shape (they read an
// indexed B where it lies and have half-width, 16-column kernels for a 4 x 4 plane, which ran
// ResNet-18 0.73 and SqueezeNet 0.73 of the time on the AVX2 kernels on Zen 5; README:
// Performance).
GemmIsa gemm_isa_for(int64_t columns);
// How a convolution's GEMM reads its operands (convolution_gemm.cpp): B packed (1x1, im2col
// chunks), B indexed (the implicit im2col, read in place by runs of 8 columns), or transposed
// over a few output pixels (tiles of at most 15 rows, B the packed filters, streamed).
enum class ConvGemmForm { PackedB, IndexedB, FewPixels };
// The level of a convolution's GEMM of that form: the default one, except that on a CPU whose
// AVX-512 runs at half rate (cpu::avx512_half_rate: Zen 4) the indexed and few-pixel forms run
// the AVX2 kernels. There AVX-512 does no more multiply-adds per cycle, and these forms lose what
// it saves: an AVX-512 vector of an indexed B joins two 8-column runs (two loads and an insert
// where AVX2 loads one), and a tile of few rows streams its B panels, one 32-column panel per
// vector pair. Measured on an AMD EPYC (Zen 4), one thread, AVX2 against AVX-512 kernels:
// ResNet-18's implicit 3x3 layers 0.0117 against 0.0124 ms, its 2 x 2 layers of 128 channels
// 0.0142 against 0.0165 ms; the packed form stays faster at AVX-512 (SqueezeNet's 1x1
// layers by 3-10 %, MobileNetV2's 1x1 layers of K = 16 by 1.8 times).
GemmIsa gemm_isa_for_conv(ConvGemmForm form);
// The rule itself, from a level and the CPU's property (for tests).
GemmIsa gemm_isa_for_conv(ConvGemmForm form, GemmIsa level, bool avx512_half_rate);
// Tests: make gemm_default_isa() return `isa` (it must be supported: Portable always is). Not
// thread-safe with concurrent planning; meant for test fixtures. reset_* undoes it.
void set_gemm_isa_for_testing(GemmIsa isa);
void reset_gemm_isa_for_testing();
bool gemm_isa_supported(GemmIsa isa);
const char* gemm_isa_name(GemmIsa isa);

// How packed operands are laid out. It depends only on the instruction set and on K, so a constant
// operand packed once stays valid for every size of the other dimension (e.g. any batch of a MatMul).
struct GemmLayout {
    GemmIsa isa = GemmIsa::Portable;
    int32_t mr = 0, nr = 0;  // micro-kernel: rows of an A panel, columns of a B panel
    int64_t k = 0;           // the reduction length
    int64_t kc = 0;          // K block; blocks are [b*kc, min(k, (b+1)*kc)). kc >= 1 even when k == 0
    bool operator==(const GemmLayout& o) const {
        return isa == o.isa && mr == o.mr && nr == o.nr && k == o.k && kc == o.kc;
    }
    bool operator!=(const GemmLayout& o) const { return !(*this == o); }
};
GemmLayout gemm_layout(int64_t k, GemmIsa isa = gemm_default_isa());

// Packing. op(A) is m x k: A is stored m x k (a[i*lda + p]) or, with trans, k x m (a[p*lda + i]).
// op(B) is k x n: B is stored k x n (b[p*ldb + j]) or, with trans, n x k (b[j*ldb + p]).
// Sizes are in floats; rows/columns are padded to mr / nr with zeros. `out` needs no alignment but
// 64-byte alignment is faster. A is packed for a plan (pack_a(plan, ...), below): its panel height
// depends on m too (GemmPlan::a_mr).
size_t packed_b_floats(const GemmLayout& layout, int64_t n);
void pack_b(const GemmLayout& layout, const float* b, int64_t ldb, bool trans, int64_t n, float* out);

// One operand of run_gemm_tile: either plain memory (row stride ld, maybe transposed) or the output
// of pack_a(plan, ...) for the full m (A) or of pack_b with the plan's layout (plan.layout ==
// gemm_layout(k, isa)) for the full n (B). Which of the two must match the plan's a_prepacked / b_prepacked.
//
// B may also be given by offsets ("indexed", B only, not prepacked): element (p, j) of op(B) is
//   data[row_off[p] + col_off[j / kGemmColumnGroup] + j % kGemmColumnGroup]
// i.e. runs of 8 contiguous columns whose starts come from col_off, shifted per row by row_off.
// A convolution's im2col matrix is such a B over the (zero-padded) data, so the GEMM reads it where
// it is instead of having it written out first. The AVX2 and AVX-512 kernels load it directly (an
// AVX-512 vector joins two runs); the portable ones gather it into their usual packed panels (same
// sums in the same order).
inline constexpr int64_t kGemmColumnGroup = 8;

struct GemmOperand {
    const float* data = nullptr;
    int64_t ld = 0;
    bool trans = false;
    bool packed = false;
    const int64_t* row_off = nullptr;  // indexed B: k entries
    const int64_t* col_off = nullptr;  // indexed B: ceil(n / kGemmColumnGroup) entries
    static GemmOperand plain(const float* d, int64_t ld, bool trans = false) { return {d, ld, trans, false}; }
    static GemmOperand prepacked(const float* d) { return {d, 0, false, true}; }
    static GemmOperand indexed(const float* d, const int64_t* row_off, const int64_t* col_off) {
        return {d, 0, false, false, row_off, col_off};
    }
    bool is_indexed() const { return row_off != nullptr; }
};

// Applied once per element after the full sum: act(sum + bias). Row bias: bias[i] for row i of C (the
// output channel when A holds conv weights). Column bias: bias[j] for column j (the output feature of
// a linear layer whose weights are B). Relu = max(x, 0); Clamp = min(max(x, lo), hi). NaN stays NaN.
struct GemmEpilogue {
    enum class BiasAxis : uint8_t { Row, Column };
    const float* bias = nullptr;  // nullptr: no bias
    BiasAxis axis = BiasAxis::Row;
    GemmActivation act = GemmActivation::None;
    float lo = 0, hi = 0;  // Clamp bounds
};

struct GemmPlan {
    int64_t m = 0, n = 0, k = 0;
    GemmLayout layout;
    bool a_prepacked = false, b_prepacked = false;  // what run_gemm_tile will be given
    int64_t mc = 0, nc = 0;                         // tile extents (multiples of mr / nr, except at the edge)
    int64_t tiles_m = 0, tiles_n = 0;               // tile t covers rows (t / tiles_n)*mc.., cols (t % tiles_n)*nc..
    size_t scratch_bytes = 0;                       // per worker, any alignment (it aligns internally)
    // Rows of a prepacked A panel: layout.mr, or 4 on AVX2 when M is a multiple of 4 but not of 6
    // and small (16 or 32 output channels): 4-row micro-tiles then leave no 4- or 2-row remainder.
    // Pack a prepacked A with pack_a(plan, ...).
    int32_t a_mr = 0;
    int64_t tiles() const { return tiles_m * tiles_n; }
};

// The part of C that tile `tile` computes: rows [row, row + rows), columns [col, col + cols).
struct GemmTileRect {
    int64_t row = 0, rows = 0, col = 0, cols = 0;
};
inline GemmTileRect gemm_tile_rect(const GemmPlan& plan, int64_t tile) {
    GemmTileRect r;
    r.row = tile / plan.tiles_n * plan.mc;
    r.col = tile % plan.tiles_n * plan.nc;
    r.rows = plan.m - r.row < plan.mc ? plan.m - r.row : plan.mc;
    r.cols = plan.n - r.col < plan.nc ? plan.n - r.col : plan.nc;
    return r;
}

// The workers to cut a GEMM's tiles for, given the threads of the pool it will run on: that many
// (one tile per image on one thread pays a tile's fixed costs once: 16 -> 64 1x1 on 16x16, 10.3 ->
// 9.3 us as one tile instead of 16), or 8 when they are unknown (0).
inline int gemm_workers(int threads) { return threads > 0 ? threads : 8; }

// `workers` only shapes the tile grid (more tiles for more workers when the product is big enough);
// it never changes results. a_prepacked / b_prepacked say which operands run_gemm_tile will receive
// packed (then packed with gemm_layout(k, isa)); the others get packed per tile into scratch.
GemmPlan plan_gemm(int64_t m, int64_t n, int64_t k, bool a_prepacked, bool b_prepacked, int workers = 1,
                   GemmIsa isa = gemm_default_isa());
// A packed for `plan` (panels of plan.a_mr rows), all of its m rows.
size_t packed_a_floats(const GemmPlan& plan);
void pack_a(const GemmPlan& plan, const float* a, int64_t lda, bool trans, float* out);
// Only rows [k_begin, k_end) of op(A)'s K (the rest of `out` is left as it is): disjoint ranges
// packed by different threads make the same packed A (a convolution's image shared by tile tasks).
void pack_a(const GemmPlan& plan, const float* a, int64_t lda, bool trans, float* out, int64_t k_begin, int64_t k_end);
// The same from an A given by offsets: element (i, p) of op(A) is data[k_off[p] + m_off[i]] (the
// im2col^T of a convolution on few pixels, read from its zero-padded planes without writing it out).
void pack_a_indexed(const GemmPlan& plan, const float* data, const int64_t* k_off, const int64_t* m_off, float* out);
void pack_a_indexed(const GemmPlan& plan, const float* data, const int64_t* k_off, const int64_t* m_off, float* out,
                    int64_t k_begin, int64_t k_end);
inline size_t scratch_bytes(const GemmPlan& plan) { return plan.scratch_bytes; }

// Compute tile `tile` (0 <= tile < plan.tiles()) of C: writes (never reads before writing) the tile's
// elements of C, leading dimension ldc >= n. `a` / `b` must be packed exactly when the plan says so.
// scratch: plan.scratch_bytes of caller memory, private to this call while it runs (may be nullptr
// when scratch_bytes == 0). No heap allocation, no locks, no global state beyond read-only tables.
void run_gemm_tile(const GemmPlan& plan, int64_t tile, const GemmOperand& a, const GemmOperand& b, float* c,
                   int64_t ldc, const GemmEpilogue& epilogue, void* scratch);

// The same, but the tile is written at `c` (its first element, row r.row and column r.col of C for
// r = gemm_tile_rect(plan, tile)), rows ldc >= r.cols apart: a tile in a buffer of its own, e.g.
// the calling thread's scratch, rather than in a C shared by every thread.
void run_gemm_tile_to(const GemmPlan& plan, int64_t tile, const GemmOperand& a, const GemmOperand& b, float* c,
                      int64_t ldc, const GemmEpilogue& epilogue, void* scratch);

// All tiles in order on the calling thread (same results as any parallel schedule).
void run_gemm(const GemmPlan& plan, const GemmOperand& a, const GemmOperand& b, float* c, int64_t ldc,
              const GemmEpilogue& epilogue, void* scratch);

}  // namespace irlite::nn
