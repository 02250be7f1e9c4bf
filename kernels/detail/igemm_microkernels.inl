// The int8 GEMM's micro-kernel, written once for every level (included by igemm_*.cpp after they
// define IRLITE_INT8_TARGET and a `Vec` of int32 lanes with: kLanes, Reg, zero(), set1(i), load_b(p) (the
// u8 quads of kLanes columns), broadcast_a(p) (one row's s8 quad in every lane), dot(acc, b, a)
// (acc + the four u8 x s8 products of each lane, exact), and to_float_store(c, acc, alpha, beta)
// (c[j] = float(acc[j]) * alpha + beta); for the column kernels also load_i32(p) and
// to_float_store_rows(c, acc, alpha, beta) (per-lane alpha and beta); with 16 lanes,
// load_b_pair(lo, hi) (8 columns' quads from each).
// See igemm.hpp for the layouts.

// A row-form tile's accumulators: each row's start (or zeros), in every vector.
template <int V>
IRLITE_INT8_TARGET inline void init_rows(typename Vec::Reg (&acc)[kInt8Rows][V], int rows, const int32_t* start) {
#pragma GCC unroll 4
    for (int r = 0; r < kInt8Rows; ++r) {
        const typename Vec::Reg first = start && r < rows ? Vec::set1(start[r]) : Vec::zero();
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v) acc[r][v] = first;
    }
}

// The products of one k-quad: the A panel's four rows' quads at a against the V vectors bv.
template <int V>
IRLITE_INT8_TARGET inline void dot_rows(typename Vec::Reg (&acc)[kInt8Rows][V], const typename Vec::Reg (&bv)[V],
                                        const int8_t* a) {
#pragma GCC unroll 4
    for (int r = 0; r < kInt8Rows; ++r) {
        const typename Vec::Reg av = Vec::broadcast_a(a + r * 4);
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v) acc[r][v] = Vec::dot(acc[r][v], bv[v], av);
    }
}

// rows x cols of the tile's floats to c. Every index a constant (loops unrolled, rows tested
// inside): the accumulators stay in registers instead of an array on the stack.
template <int V>
IRLITE_INT8_TARGET inline void store_rows(const typename Vec::Reg (&acc)[kInt8Rows][V], int rows, int cols,
                                          const float* alpha, const float* beta, float* c, int64_t ldc) {
    constexpr int L = Vec::kLanes;
#pragma GCC unroll 4
    for (int r = 0; r < kInt8Rows; ++r) {
        if (r >= rows) break;
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v) {
            const int first = v * L;
            if (first >= cols) break;
            float* dst = c + r * ldc + first;
            if (first + L <= cols) {
                Vec::to_float_store(dst, acc[r][v], alpha[r], beta[r]);
            } else {
                float tmp[L];
                Vec::to_float_store(tmp, acc[r][v], alpha[r], beta[r]);
                for (int j = 0; j < cols - first; ++j) dst[j] = tmp[j];
            }
        }
    }
}

template <int V>
IRLITE_INT8_TARGET void int8_kernel(const int8_t* a, const uint8_t* b, int64_t ldb, int64_t quads, int rows, int cols,
                                    const float* alpha, const float* beta, const int32_t* start, float* c,
                                    int64_t ldc) {
    using Reg = typename Vec::Reg;
    constexpr int L = Vec::kLanes;
    Reg acc[kInt8Rows][V];
    init_rows<V>(acc, rows, start);
    const int64_t b_step = ldb * 4;
    for (int64_t q = 0; q < quads; ++q) {
        Reg bv[V];
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v) bv[v] = Vec::load_b(b + q * b_step + v * L * 4);
        dot_rows<V>(acc, bv, a + q * kInt8Rows * 4);
    }
    store_rows<V>(acc, rows, cols, alpha, beta, c, ldc);
}

// Vector v of an indexed B's tile at quad offset o (W: Vec, a template parameter so that only the
// taken branch needs its members).
template <class W>
IRLITE_INT8_TARGET inline typename W::Reg load_run_vector(const uint8_t* const* g, int v, int64_t o) {
    if constexpr (W::kLanes == 16)
        return W::load_b_pair(g[2 * v] + o, g[2 * v + 1] + o);
    else if constexpr (W::kLanes == 8)
        return W::load_b(g[v] + o);
    else
        return W::load_b(g[v / 2] + o + (v % 2) * W::kLanes * 4);
}

// The same on an indexed B (igemm.hpp: int8_gemm_indexed): k-quad q of the tile's run i of
// kInt8Run columns at runs[i] + quad_offset[q]. A vector of 16 lanes joins two runs; one of 4
// lanes is half a run.
template <int V>
IRLITE_INT8_TARGET void int8_kernel_indexed(const int8_t* a, const uint8_t* const* runs, const int64_t* quad_offset,
                                            int64_t quads, int rows, int cols, const float* alpha, const float* beta,
                                            const int32_t* start, float* c, int64_t ldc) {
    using Reg = typename Vec::Reg;
    constexpr int L = Vec::kLanes;
    static_assert(L == 4 || L == 8 || L == 16, "a vector is half a run, a run or two");
    constexpr int kRuns = L >= kInt8Run ? V * L / kInt8Run : (V + 1) / 2;
    const uint8_t* g[kRuns];
#pragma GCC unroll 8
    for (int i = 0; i < kRuns; ++i) g[i] = runs[i];
    Reg acc[kInt8Rows][V];
    init_rows<V>(acc, rows, start);
    for (int64_t q = 0; q < quads; ++q) {
        const int64_t o = quad_offset[q];
        Reg bv[V];
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v) bv[v] = load_run_vector<Vec>(g, v, o);
        dot_rows<V>(acc, bv, a + q * kInt8Rows * 4);
    }
    store_rows<V>(acc, rows, cols, alpha, beta, c, ldc);
}

// The column form's floats (out[v][n]: column n of rows v * L ..) to C's rows, C's columns adjacent:
// blocks of 8 rows x 8 columns turned by transpose8, each row's NC floats one copy (the kernel's
// outputs one at a time cost more than its dot products at depths of 64-96).
template <int NC, int MV, int L>
IRLITE_INT8_TARGET inline void store_rows_of_columns(const float (&out)[MV][NC][L], int rows, int64_t c_row, float* c) {
    static_assert(NC <= 8 && L % 8 == 0, "8 columns at most, whole blocks of 8 rows in a vector");
#pragma GCC unroll 1
    for (int v = 0; v < MV; ++v)
#pragma GCC unroll 1
        for (int h = 0; h < L; h += 8) {
            const int first = v * L + h;
            if (first >= rows) return;
            detail::Float8 r[8];
#pragma GCC unroll 8
            for (int n = 0; n < 8; ++n) {
                if (n < NC) std::memcpy(&r[n], out[v][n] + h, sizeof r[n]);
                else r[n] = detail::Float8{};
            }
            detail::transpose8(r);
            const int lanes = std::min(8, rows - first);
#pragma GCC unroll 1
            for (int j = 0; j < lanes; ++j) std::memcpy(c + (first + j) * c_row, &r[j], NC * sizeof(float));
        }
}

// A single column (a matrix-vector product: a classifier's MatMul) reads each weight once, from L3
// or memory: its panels are prefetched this many quads ahead (2 KB at 16 lanes). MobileNetV2
// INT8's 1280 -> 1000 classifier 0.025 -> 0.019 ms (AVX-512 Zen 5); with 8 columns (SqueezeNet's
// classifier convolution) prefetching made it slower.
constexpr int64_t kColumnPrefetchQuads = 32;

// The column form (igemm.hpp: int8_gemm_columns): MV panels of kLanes rows x NC columns; a lane
// is a row, each column's quad is broadcast.
template <int NC, int MV>
IRLITE_INT8_TARGET void int8_columns_kernel(const int8_t* a, int64_t panel_bytes, const uint8_t* const* columns,
                                            const Int8Strides& strides, int64_t quads, int rows, const float* alpha,
                                            const float* beta, const int32_t* start, float* c) {
    using Reg = typename Vec::Reg;
    constexpr int L = Vec::kLanes;
    Reg acc[MV][NC];
#pragma GCC unroll 2
    for (int v = 0; v < MV; ++v) {
        const Reg first = start ? Vec::load_i32(start + v * L) : Vec::zero();
#pragma GCC unroll 8
        for (int n = 0; n < NC; ++n) acc[v][n] = first;
    }
    const uint8_t* col[NC];
#pragma GCC unroll 8
    for (int n = 0; n < NC; ++n) col[n] = columns[n];
    const int64_t* quad_offset = strides.quad_offset;
    for (int64_t q = 0; q < quads; ++q) {
        const int64_t o = quad_offset[q];
        Reg w[MV];
#pragma GCC unroll 2
        for (int v = 0; v < MV; ++v) {
            if constexpr (NC == 1)
                __builtin_prefetch(a + v * panel_bytes + std::min(q + kColumnPrefetchQuads, quads - 1) * L * 4);
            w[v] = Vec::load_b(reinterpret_cast<const uint8_t*>(a + v * panel_bytes + q * L * 4));
        }
#pragma GCC unroll 8
        for (int n = 0; n < NC; ++n) {
            const Reg x = Vec::broadcast_a(reinterpret_cast<const int8_t*>(col[n] + o));
#pragma GCC unroll 2
            for (int v = 0; v < MV; ++v) acc[v][n] = Vec::dot(acc[v][n], x, w[v]);
        }
    }
    // The floats through a buffer, then out in one plain loop: copies of it per (v, n) would be
    // most of the kernel's code.
    alignas(64) float out[MV][NC][L];
#pragma GCC unroll 2
    for (int v = 0; v < MV; ++v)
#pragma GCC unroll 8
        for (int n = 0; n < NC; ++n) Vec::to_float_store_rows(out[v][n], acc[v][n], alpha + v * L, beta + v * L);
    if constexpr (L % 8 == 0) {
        if (strides.c_column == 1) return store_rows_of_columns<NC, MV>(out, rows, strides.c_row, c);
    }
#pragma GCC unroll 1
    for (int v = 0; v < MV; ++v) {
        const int lanes = std::min(L, rows - v * L);
#pragma GCC unroll 1
        for (int n = 0; n < NC; ++n)
#pragma GCC unroll 1
            for (int j = 0; j < lanes; ++j) c[(v * L + j) * strides.c_row + n * strides.c_column] = out[v][n][j];
    }
}

inline int8::Kernels make_kernels() {
    int8::Kernels k;
    k.lanes = Vec::kLanes;
    k.by_vectors[0] = int8_kernel<1>;
    k.by_vectors[1] = int8_kernel<2>;
    k.by_vectors[2] = int8_kernel<3>;
    k.by_vectors[3] = int8_kernel<4>;
    k.indexed[0] = int8_kernel_indexed<1>;
    k.indexed[1] = int8_kernel_indexed<2>;
    k.indexed[2] = int8_kernel_indexed<3>;
    k.indexed[3] = int8_kernel_indexed<4>;
    k.columns[0][0] = int8_columns_kernel<1, 1>, k.columns[0][1] = int8_columns_kernel<1, 2>;
    k.columns[1][0] = int8_columns_kernel<2, 1>, k.columns[1][1] = int8_columns_kernel<2, 2>;
    k.columns[2][0] = int8_columns_kernel<3, 1>, k.columns[2][1] = int8_columns_kernel<3, 2>;
    k.columns[3][0] = int8_columns_kernel<4, 1>, k.columns[3][1] = int8_columns_kernel<4, 2>;
    k.columns[4][0] = int8_columns_kernel<5, 1>, k.columns[4][1] = int8_columns_kernel<5, 2>;
    k.columns[5][0] = int8_columns_kernel<6, 1>, k.columns[5][1] = int8_columns_kernel<6, 2>;
    k.columns[6][0] = int8_columns_kernel<7, 1>, k.columns[6][1] = int8_columns_kernel<7, 2>;
    k.columns[7][0] = int8_columns_kernel<8, 1>, k.columns[7][1] = int8_columns_kernel<8, 2>;
    return k;
}
