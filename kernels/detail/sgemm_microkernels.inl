// The GEMM's micro-kernels, written once for every instruction set. Not a header of its own: each
// level's file (sgemm_portable.cpp, sgemm_avx2.cpp, sgemm_avx512.cpp) includes it inside an
// anonymous namespace, after defining IRLITE_SGEMM_TARGET (the level's target attribute,
// cpu_isa.hpp) and `Vec`, its vector type and operations (with that attribute):
//
//   Reg                           the register type, kWidth floats
//   zero(), set1(x), broadcast(p) all lanes 0, x, *p
//   load(p), store(p, v)          kWidth floats, no alignment needed
//   load_runs(g, o)               kWidth / 8 runs of 8 floats, run i at g[i] + o (an indexed B)
//   fmadd(a, b, c)                a * b + c (fused where the level has FMA)
//   add(a, b), max(a, b), min(a, b)   max(a, b) = a > b ? a : b, min(a, b) = a < b ? a : b, lane
//                                 by lane, so that a NaN in b stays (max(0, NaN) = NaN)
//   prefetch(p)                   the 64-byte line at p into L1
//   kUnrollK                      how many k steps the K loops unroll
//
// A B panel is two vectors wide (nr = 2 * kWidth). Every kernel sums each element in the same
// order, k ascending in one accumulator, so results do not depend on which kernel runs.

// v after the K loop (sgemm_kernels.hpp: KernelEpi); cptr is where it goes.
IRLITE_SGEMM_TARGET inline Vec::Reg finish(Vec::Reg v, const float* cptr, const float* col_bias, float row_bias, bool has_row_bias,
                       const KernelEpi& e) {
    if (e.accumulate) v = Vec::add(Vec::load(cptr), v);
    if (e.last) {
        if (has_row_bias) v = Vec::add(v, Vec::set1(row_bias));
        if (col_bias) v = Vec::add(v, Vec::load(col_bias));
        if (e.act == GemmActivation::Relu) {
            v = Vec::max(Vec::zero(), v);
        } else if (e.act == GemmActivation::Clamp) {
            v = Vec::max(Vec::set1(e.lo), v);
            v = Vec::min(Vec::set1(e.hi), v);
        }
    }
    return v;
}

// Writes ROWS x V vectors of sums to c (row stride ldc) through the epilogue.
template <int ROWS, int V>
IRLITE_SGEMM_TARGET inline void store_tile(const Vec::Reg (&acc)[ROWS][V], float* c, int64_t ldc, const KernelEpi& e) {
#pragma GCC unroll 12
    for (int r = 0; r < ROWS; ++r) {
        float* cr = c + r * ldc;
        const float rb = e.row_bias ? e.row_bias[r] : 0.0f;
        const bool has_rb = e.row_bias != nullptr;
#pragma GCC unroll 8
        for (int v = 0; v < V; ++v) {
            const float* cb = e.col_bias ? e.col_bias + Vec::kWidth * v : nullptr;
            Vec::store(cr + Vec::kWidth * v, finish(acc[r][v], cr + Vec::kWidth * v, cb, rb, has_rb, e));
        }
    }
}

// ROWS x V vectors: row r of the A panel at a[r] (A_STRIDE floats per k), vector v of B's row at
// b + (v / 2) * bps + (v % 2) * kWidth. V = 2: one full panel; V = 1: the half-width kernel, for
// a right edge of at most nr / 2 columns (the 16 pixels of a 4 x 4 plane on AVX-512), which a
// full panel would compute half of in vain; V = 4 or 8: the wide kernels, 2 or 4 panels.
template <int A_STRIDE, int ROWS, int V>
IRLITE_SGEMM_TARGET void kernel(int64_t kc, const float* a, const float* b, int64_t ldb, int64_t bps, float* c, int64_t ldc,
            const KernelEpi& e) {
    constexpr int W = Vec::kWidth;
    Vec::Reg acc[ROWS][V];
#pragma GCC unroll 16
    for (int r = 0; r < ROWS; ++r)
#pragma GCC unroll 8
        for (int v = 0; v < V; ++v) acc[r][v] = Vec::zero();
#pragma GCC unroll Vec::kUnrollK
    for (int64_t p = 0; p < kc; ++p) {
        Vec::Reg bv[V];
#pragma GCC unroll 8
        for (int v = 0; v < V; ++v) bv[v] = Vec::load(b + (v / 2) * bps + (v % 2) * W);
        if constexpr (V > 2) {  // a wide kernel: it streams B (sgemm_kernels.hpp)
#pragma GCC unroll 8
            for (int v = 0; v < V; ++v)  // each 64-byte line of the row once
                if ((v % 2) * W * sizeof(float) % 64 == 0)
                    Vec::prefetch(b + (v / 2) * bps + (v % 2) * W + kStreamPrefetchRows * ldb);
        }
#pragma GCC unroll 12
        for (int r = 0; r < ROWS; ++r) {
            const Vec::Reg av = Vec::broadcast(a + r);
#pragma GCC unroll 8
            for (int v = 0; v < V; ++v) acc[r][v] = Vec::fmadd(av, bv[v], acc[r][v]);
        }
        a += A_STRIDE;
        b += ldb;
    }
    store_tile<ROWS, V>(acc, c, ldc, e);
}

// The same on an indexed B (sgemm.hpp) read where it lies: vector v of row p is the kWidth / 8
// runs at groups[v * kWidth / 8 + i] + roff[p]. Gathering the runs into packed panels first (a
// copy per run, per row, per tile) cost more than the multiply-adds on small planes.
template <int A_STRIDE, int ROWS, int V>
IRLITE_SGEMM_TARGET void kernel_indexed(int64_t kc, const float* a, const int64_t* roff, const float* const* groups, float* c,
                    int64_t ldc, const KernelEpi& e) {
    constexpr int kRuns = Vec::kWidth / kGemmColumnGroup;
    static_assert(A_STRIDE > 0 && kRuns >= 1, "a vector holds whole runs of 8 columns");  // checked when used
    const float* g[V * kRuns];
#pragma GCC unroll 4
    for (int i = 0; i < V * kRuns; ++i) g[i] = groups[i];
    Vec::Reg acc[ROWS][V];
#pragma GCC unroll 16
    for (int r = 0; r < ROWS; ++r)
#pragma GCC unroll 2
        for (int v = 0; v < V; ++v) acc[r][v] = Vec::zero();
#pragma GCC unroll Vec::kUnrollK
    for (int64_t p = 0; p < kc; ++p) {
        const int64_t o = roff[p];
        Vec::Reg bv[V];
#pragma GCC unroll 2
        for (int v = 0; v < V; ++v) bv[v] = Vec::load_runs(g + v * kRuns, o);
#pragma GCC unroll 12
        for (int r = 0; r < ROWS; ++r) {
            const Vec::Reg av = Vec::broadcast(a + r);
#pragma GCC unroll 2
            for (int v = 0; v < V; ++v) acc[r][v] = Vec::fmadd(av, bv[v], acc[r][v]);
        }
        a += A_STRIDE;
    }
    store_tile<ROWS, V>(acc, c, ldc, e);
}

// 4-row A panels against V runs of 8 columns, one vector each (kWidth = 8; V <= 3: 4 x 24 holds
// 12 accumulators, as many as 6 x 16). Tiles whose rows are a multiple of 4 but not of 6 (16
// output channels, a 4 x 4 or 2 x 2 plane as the M of a transposed convolution) then split into
// 4-row micro-tiles with no remainder, where 6-row panels would leave a 4- or 2-row one that runs
// at half speed or less. Run v's row p at b[v] + p * ldb, or b[v] + roff[p] when INDEXED.
template <int V, bool INDEXED>
IRLITE_SGEMM_TARGET void kernel_4rows(int64_t kc, const float* a, const float* const* b, int64_t ldb, const int64_t* roff, float* c,
                  int64_t ldc, const KernelEpi& e) {
    static_assert(V > 0 && Vec::kWidth == kGemmColumnGroup, "one run of 8 columns per vector");  // checked when used
    Vec::Reg acc[kRows4Mr][V];
#pragma GCC unroll 4
    for (int r = 0; r < kRows4Mr; ++r)
#pragma GCC unroll 3
        for (int v = 0; v < V; ++v) acc[r][v] = Vec::zero();
    const float* bp[V];
#pragma GCC unroll 3
    for (int v = 0; v < V; ++v) bp[v] = b[v];
    int64_t o = 0;
#pragma GCC unroll 4
    for (int64_t p = 0; p < kc; ++p) {
        if constexpr (INDEXED) o = roff[p];
        Vec::Reg bv[V];
#pragma GCC unroll 3
        for (int v = 0; v < V; ++v) bv[v] = Vec::load(bp[v] + o);
#pragma GCC unroll 4
        for (int r = 0; r < kRows4Mr; ++r) {
            const Vec::Reg av = Vec::broadcast(a + r);
#pragma GCC unroll 3
            for (int v = 0; v < V; ++v) acc[r][v] = Vec::fmadd(av, bv[v], acc[r][v]);
        }
        a += kRows4Mr;
        if constexpr (!INDEXED) o += ldb;
    }
    store_tile<kRows4Mr, V>(acc, c, ldc, e);
}
