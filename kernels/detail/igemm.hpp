// The int8 GEMM of the low-precision layers (engine/low_precision.hpp): unsigned 8-bit activations
// times signed 8-bit weights, accumulated exactly in int32, then turned into floats per row:
//
//   C[m][n] = float(start[m] + sum_k A[m][k] * B[k][n]) * alpha[m] + beta[m]
//
// (start: an int32 per row, e.g. the activations' zero point times the row's weight sum, or none).
// A (weights, s8) is packed once: panels of kInt8Rows rows, each k-quad of a row's four weights
// together: [row panel][depth / 4][kInt8Rows][4] (zero-padded to whole panels and quads), with
// each row's sum of weights (for the activation zero point's compensation).
// B (activations, u8) is packed by the caller, one k-quad of a column together: [depth / 4][ldb][4];
// ldb is a multiple of kInt8ColumnAlign and the columns past n1 may hold anything.
//
// Exactness: the products are summed in int32 without rounding or saturation at every level
// (|A| <= 128, B <= 255, depth < 2^16), and the conversion to float is one fixed sequence
// (convert, multiply by alpha, add beta: two roundings, no FMA) for every element, so results are
// bit-identical for every level, thread count and tile split.
//
// Levels, chosen from the active ISA (IRLITE_ISA caps it) and the CPU's VNNI extensions:
//   Avx512Vnni  vpdpbusd on 16 columns per register (AVX-512 VNNI: Ice Lake, Zen 4 on)
//   Avx512      the same dot product emulated exactly: even and odd bytes widened to 16 bits, two
//               vpmaddwd (vpmaddubsw would saturate its 16-bit pair sums)
//   AvxVnni     vpdpbusd on 8 columns (AVX-VNNI: Alder Lake and later cores without AVX-512)
//   Avx2        the emulated dot product on 8 columns
//   Portable    scalar int32 arithmetic
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/detail/cpu_isa.hpp"

namespace irlite::nn {

enum class Int8Level : uint8_t { Portable, Avx2, AvxVnni, Avx512, Avx512Vnni };

inline constexpr int kInt8Rows = 4;
inline constexpr int64_t kInt8ColumnAlign = 16;
// The largest depth the int32 accumulators hold without overflow: 255 * 128 * depth < 2^31.
inline constexpr int64_t kInt8MaxDepth = int64_t{1} << 16;

// The best level at or below `isa` that this CPU runs.
Int8Level int8_level_for(cpu::Isa isa);
bool int8_level_supported(Int8Level level);
const char* int8_level_name(Int8Level level);  // "vnni512", "avx512", "avxvnni", "avx2", "portable"

struct Int8Weights {
    std::vector<int8_t> packed;
    std::vector<int32_t> row_sums;  // per row: the sum of its weights
    int64_t rows = 0, depth = 0, quads = 0;
    int panel_rows = kInt8Rows;
};

// Packs row-major weights [rows][depth] (row stride ld) in panels of panel_rows rows: kInt8Rows
// for int8_gemm, int8_column_panel_rows(level) for int8_gemm_columns.
Int8Weights pack_int8_weights(const int8_t* w, int64_t rows, int64_t depth, int64_t ld, int panel_rows = kInt8Rows);

// B's row length for `columns` columns: whole vectors, and an odd number of 64-byte lines per
// k-quad row (ldb * 4 bytes). The kernels read a few lines of every row in turn: at a stride of a
// power of two (256 columns: 1 KB) those lines fall into a quarter of L1's sets and evict each
// other, which cost the row form a fifth of its speed.
static_assert(kInt8ColumnAlign * 4 == 64, "a vector's worth of column quads is one 64-byte line");
inline int64_t int8_padded_columns(int64_t columns) {
    int64_t lines = (columns + kInt8ColumnAlign - 1) / kInt8ColumnAlign;
    if (lines % 2 == 0) ++lines;
    return lines * kInt8ColumnAlign;
}

// C rows [m0, m1) and columns [n0, n1); m0 a multiple of kInt8Rows. c points at C[m0][n0] (a
// block of a larger C, or a tile of its own); start may be null (zeros).
void int8_gemm(Int8Level level, const Int8Weights& a, const uint8_t* b, int64_t ldb, int64_t m0, int64_t m1,
               int64_t n0, int64_t n1, const float* alpha, const float* beta, const int32_t* start, float* c,
               int64_t ldc);

// The same with B read where it lies (an "indexed" B, no im2col copy): B's columns are runs of
// kInt8Run consecutive columns, run r's quads of k-quad q at b + run_offset[r] + quad_offset[q]
// (bytes; a quad plane of a convolution: run r is 8 pixels of an output row, quad q a tap of four
// channels). n0 and n1 are multiples of kInt8Run; every run's 32 bytes at every quad offset must
// be readable.
inline constexpr int64_t kInt8Run = 8;
void int8_gemm_indexed(Int8Level level, const Int8Weights& a, const uint8_t* b, const int64_t* run_offset,
                       const int64_t* quad_offset, int64_t m0, int64_t m1, int64_t n0, int64_t n1, const float* alpha,
                       const float* beta, const int32_t* start, float* c, int64_t ldc);

// The column form, for few columns (a small output plane, a batch-1 MatMul): rows in the vector
// lanes and each column's quad broadcast, so that no lane is spent on a missing column. The same
// results as int8_gemm. A packed with panel_rows = int8_column_panel_rows(level); alpha, beta and
// start (not null) readable up to a whole pair of panels past m1 (zero-padded by the caller).
// B by offsets in bytes: quad q of column n at b + column_offset[n] + quad_offset[q] ([quads][ldb][4]
// has quad offsets 4 ldb q and column offsets 4 n, int8_offsets; a row-major [columns][quads][4]
// has 4 q and 4 quads n; a convolution's quad planes read in place a tap's offset and a pixel's).
// C by strides in floats: C[m][n] at c + (m - m0) * c_row + (n - n0) * c_column.
struct Int8Strides {
    const int64_t* quad_offset = nullptr;
    const int64_t* column_offset = nullptr;
    int64_t c_row = 0, c_column = 1;
};
// {0, step, 2 step, ...}: count offsets of a strided B.
std::vector<int64_t> int8_offsets(int64_t count, int64_t step);
int int8_column_panel_rows(Int8Level level);
void int8_gemm_columns(Int8Level level, const Int8Weights& a, const uint8_t* b, const Int8Strides& strides, int64_t m0,
                       int64_t m1, int64_t n0, int64_t n1, const float* alpha, const float* beta, const int32_t* start,
                       float* c);

namespace int8 {

// One micro-kernel: rows (<= kInt8Rows) x cols (<= V * lanes) of C from one A panel and the B
// columns at b; a vector holds `lanes` columns.
using KernelFn = void (*)(const int8_t* a, const uint8_t* b, int64_t ldb, int64_t quads, int rows, int cols,
                          const float* alpha, const float* beta, const int32_t* start, float* c, int64_t ldc);
inline constexpr int kMaxVectors = 4;
// The indexed form (int8_gemm_indexed): the tile's runs of kInt8Run columns at runs[i].
using KernelIndexedFn = void (*)(const int8_t* a, const uint8_t* const* runs, const int64_t* quad_offset,
                                 int64_t quads, int rows, int cols, const float* alpha, const float* beta,
                                 const int32_t* start, float* c, int64_t ldc);
// The column form's kernel: column j's quads at columns[j] + strides.quad_offset[q].
using ColumnsFn = void (*)(const int8_t* a, int64_t panel_bytes, const uint8_t* const* columns,
                          const Int8Strides& strides, int64_t quads, int rows, const float* alpha, const float* beta,
                          const int32_t* start, float* c);
inline constexpr int kMaxColumns = 8;
struct Kernels {
    int lanes = 0;
    KernelFn by_vectors[kMaxVectors] = {};  // [V - 1]: kernels of 1..kMaxVectors vectors
    KernelIndexedFn indexed[kMaxVectors] = {};
    ColumnsFn columns[kMaxColumns][2] = {};  // [columns - 1][panels - 1]
};
const Kernels& portable_kernels();
const Kernels& avx2_kernels(bool vnni);
const Kernels& avx512_kernels(bool vnni);

}  // namespace int8
}  // namespace irlite::nn
