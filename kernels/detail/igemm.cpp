// The int8 GEMM's driver, weight packing and level choice (igemm.hpp).
#include "kernels/detail/igemm.hpp"

#include <algorithm>

#include "engine/isa_trace.hpp"

namespace irlite::nn {
namespace {

const int8::Kernels& kernels_of(Int8Level level) {
    switch (level) {
        case Int8Level::Avx512Vnni: return int8::avx512_kernels(true);
        case Int8Level::Avx512: return int8::avx512_kernels(false);
        case Int8Level::AvxVnni: return int8::avx2_kernels(true);
        case Int8Level::Avx2: return int8::avx2_kernels(false);
        case Int8Level::Portable: break;
    }
    return int8::portable_kernels();
}

}  // namespace

bool int8_level_supported(Int8Level level) {
    switch (level) {
        case Int8Level::Portable: return true;
        case Int8Level::Avx2: return cpu::isa_supported(cpu::Isa::Avx2);
        // AVX-512 VNNI has the 256-bit vpdpbusd too (EVEX), but the VEX form the AvxVnni kernels
        // use needs AVX-VNNI itself.
        case Int8Level::AvxVnni: return cpu::isa_supported(cpu::Isa::Avx2) && cpu::has_avx_vnni();
        case Int8Level::Avx512: return cpu::isa_supported(cpu::Isa::Avx512);
        case Int8Level::Avx512Vnni: return cpu::isa_supported(cpu::Isa::Avx512) && cpu::has_avx512_vnni();
    }
    return false;
}

Int8Level int8_level_for(cpu::Isa isa) {
    isa = cpu::isa_supported(isa) ? isa : cpu::detected_isa();
    if (isa == cpu::Isa::Avx512) return cpu::has_avx512_vnni() ? Int8Level::Avx512Vnni : Int8Level::Avx512;
    if (isa == cpu::Isa::Avx2) return cpu::has_avx_vnni() ? Int8Level::AvxVnni : Int8Level::Avx2;
    return Int8Level::Portable;
}

const char* int8_level_name(Int8Level level) {
    switch (level) {
        case Int8Level::Portable: return "portable";
        case Int8Level::Avx2: return "avx2";
        case Int8Level::AvxVnni: return "avxvnni";
        case Int8Level::Avx512: return "avx512";
        case Int8Level::Avx512Vnni: return "vnni512";
    }
    return "?";
}

Int8Weights pack_int8_weights(const int8_t* w, int64_t rows, int64_t depth, int64_t ld, int panel_rows) {
    Int8Weights p;
    p.rows = rows;
    p.depth = depth;
    p.quads = (depth + 3) / 4;
    p.panel_rows = panel_rows;
    const int64_t pr = panel_rows;
    const int64_t panels = (rows + pr - 1) / pr;
    p.packed.assign(static_cast<size_t>(panels * p.quads * pr * 4), 0);
    p.row_sums.assign(static_cast<size_t>(rows), 0);
    for (int64_t m = 0; m < rows; ++m) {
        int8_t* panel = p.packed.data() + (m / pr) * p.quads * pr * 4;
        const int64_t r = m % pr;
        int32_t sum = 0;
        for (int64_t k = 0; k < depth; ++k) {
            const int8_t v = w[m * ld + k];
            panel[((k / 4) * pr + r) * 4 + k % 4] = v;
            sum += v;
        }
        p.row_sums[static_cast<size_t>(m)] = sum;
    }
    return p;
}

// The level's bit in a profile's trace (engine/isa_trace.hpp).
static void record_int8_level(Int8Level level) {
    switch (level) {
        case Int8Level::Portable: return record_isa_level(kIsaTraceSse);
        case Int8Level::Avx2: return record_isa_level(kIsaTraceAvx2);
        case Int8Level::AvxVnni: return record_isa_level(kIsaTraceAvxVnni);
        case Int8Level::Avx512: return record_isa_level(kIsaTraceAvx512);
        case Int8Level::Avx512Vnni: return record_isa_level(kIsaTraceAvx512Vnni);
    }
}

void int8_gemm(Int8Level level, const Int8Weights& a, const uint8_t* b, int64_t ldb, int64_t m0, int64_t m1,
               int64_t n0, int64_t n1, const float* alpha, const float* beta, const int32_t* start, float* c,
               int64_t ldc) {
    record_int8_level(level);
    const int8::Kernels& k = kernels_of(level);
    const int64_t block = int64_t{int8::kMaxVectors} * k.lanes;
    const int64_t panel_bytes = a.quads * kInt8Rows * 4;
    for (int64_t n = n0; n < n1; n += block) {
        const int cols = static_cast<int>(std::min(block, n1 - n));
        const int vectors = (cols + k.lanes - 1) / k.lanes;
        const int8::KernelFn kernel = k.by_vectors[vectors - 1];
        for (int64_t m = m0; m < m1; m += kInt8Rows) {
            const int rows = static_cast<int>(std::min<int64_t>(kInt8Rows, m1 - m));
            kernel(a.packed.data() + (m / kInt8Rows) * panel_bytes, b + n * 4, ldb, a.quads, rows, cols, alpha + m,
                   beta + m, start ? start + m : nullptr, c + (m - m0) * ldc + (n - n0), ldc);
        }
    }
}

void int8_gemm_indexed(Int8Level level, const Int8Weights& a, const uint8_t* b, const int64_t* run_offset,
                       const int64_t* quad_offset, int64_t m0, int64_t m1, int64_t n0, int64_t n1, const float* alpha,
                       const float* beta, const int32_t* start, float* c, int64_t ldc) {
    record_int8_level(level);
    const int8::Kernels& k = kernels_of(level);
    const int64_t block = int64_t{int8::kMaxVectors} * k.lanes;
    const int64_t panel_bytes = a.quads * kInt8Rows * 4;
    constexpr int64_t kMaxRuns = int64_t{int8::kMaxVectors} * 16 / kInt8Run;
    const uint8_t* runs[kMaxRuns];
    for (int64_t n = n0; n < n1; n += block) {
        const int cols = static_cast<int>(std::min(block, n1 - n));
        const int vectors = (cols + k.lanes - 1) / k.lanes;
        // The kernel reads whole vectors: runs past the tile's last repeat it (read, not stored).
        const int64_t have = cols / kInt8Run, want = std::max<int64_t>(have, (vectors * k.lanes + kInt8Run - 1) / kInt8Run);
        for (int64_t i = 0; i < want; ++i) runs[i] = b + run_offset[n / kInt8Run + std::min(i, have - 1)];
        const int8::KernelIndexedFn kernel = k.indexed[vectors - 1];
        for (int64_t m = m0; m < m1; m += kInt8Rows) {
            const int rows = static_cast<int>(std::min<int64_t>(kInt8Rows, m1 - m));
            kernel(a.packed.data() + (m / kInt8Rows) * panel_bytes, runs, quad_offset, a.quads, rows, cols, alpha + m,
                   beta + m, start ? start + m : nullptr, c + (m - m0) * ldc + (n - n0), ldc);
        }
    }
}

}  // namespace irlite::nn

namespace irlite::nn {

int int8_column_panel_rows(Int8Level level) { return kernels_of(level).lanes; }

std::vector<int64_t> int8_offsets(int64_t count, int64_t step) {
    std::vector<int64_t> offsets(static_cast<size_t>(std::max<int64_t>(count, 0)));
    for (int64_t i = 0; i < count; ++i) offsets[static_cast<size_t>(i)] = i * step;
    return offsets;
}

void int8_gemm_columns(Int8Level level, const Int8Weights& a, const uint8_t* b, const Int8Strides& strides, int64_t m0,
                       int64_t m1, int64_t n0, int64_t n1, const float* alpha, const float* beta, const int32_t* start,
                       float* c) {
    record_int8_level(level);
    const int8::Kernels& k = kernels_of(level);
    const int64_t lanes = k.lanes, panel_bytes = a.quads * lanes * 4;
    const uint8_t* columns[int8::kMaxColumns];
    for (int64_t n = n0; n < n1; n += int8::kMaxColumns) {
        const int cols = static_cast<int>(std::min<int64_t>(int8::kMaxColumns, n1 - n));
        for (int j = 0; j < cols; ++j) columns[j] = b + strides.column_offset[n + j];
        for (int64_t m = m0; m < m1; m += 2 * lanes) {
            const int rows = static_cast<int>(std::min(2 * lanes, m1 - m));
            const int8::ColumnsFn kernel = k.columns[cols - 1][rows > lanes ? 1 : 0];
            kernel(a.packed.data() + (m / lanes) * panel_bytes, panel_bytes, columns, strides, a.quads,
                   rows, alpha + m, beta + m, start ? start + m : nullptr,
                   c + (m - m0) * strides.c_row + (n - n0) * strides.c_column);
        }
    }
}

}  // namespace irlite::nn
