// GatherElements-6 (opset6+): out[i0, .., ia, .., ir-1] = data[i0, .., indices[i0, .., ia, .., ir-1], .., ir-1]
// along `axis` (numpy's take_along_axis).
// Inputs: 0 'data' (any type, rank r >= 1); 1 'indices' (i32 or i64, rank r; every dim but the
// axis dim equal to data's; the axis dim may be any size, 0 included).
// Attribute: axis (required, in [-r, r-1]).
// Output: data's type, indices' shape. Every index must be in [-d, d-1] with d = data.shape[axis]
// (negatives count from the end, as in ONNX); anything else is an error naming the position in
// indices. Types: data all.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif
#if defined(__GNUC__) && !defined(__clang__)
// GCC 12 warns inside its own AVX-512 intrinsics (`__m512i __Y = __Y;`) when they are inlined into
// target("avx512f") functions of a build without -march=native (CMakeLists.txt silences it for
// native builds only).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

#include "engine/op.hpp"
#include "kernels/detail/cpu_isa.hpp"
#include "kernels/detail/index_values.hpp"
#include "kernels/detail/parallel.hpp"

namespace irlite {
namespace {

constexpr size_t kData = 0, kIndices = 1;

struct GatherElementsAttrs : OpAttrs {
    int64_t axis = 0;
};

// The attribute normalized against a rank; an error names the attribute, not a port.
int64_t normalize_axis_attr(int64_t axis, int64_t rank) {
    if (axis < -rank || axis >= rank)
        throw Error(ErrorKind::Attribute, "axis-out-of-range",
                    str("attribute 'axis' = ", axis, ": ", detail::axis_out_of_range_message(axis, rank)));
    return axis < 0 ? axis + rank : axis;
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    detail::require_index_type(ctx, kIndices, detail::IndexTypes::I32OrI64);
    const PartialShape& data = ctx.shape(kData);
    const PartialShape& indices = ctx.shape(kIndices);
    const ElementType type = ctx.type(kData);
    if (data.rank_known() && data.rank() == 0)
        throw ctx.input_error(kData, ErrorKind::ShapeRule, "rank-invalid", "data must have rank >= 1, got a scalar");
    if (indices.rank_known() && indices.rank() == 0)
        throw ctx.input_error(kIndices, ErrorKind::ShapeRule, "rank-invalid",
                              "indices must have rank >= 1, got a scalar");
    const int64_t attr_axis = ctx.attrs<GatherElementsAttrs>().axis;
    if (!data.rank_known()) {
        if (indices.rank_known()) normalize_axis_attr(attr_axis, static_cast<int64_t>(indices.rank()));
        return {{type, indices}};
    }
    const auto axis = static_cast<size_t>(normalize_axis_attr(attr_axis, static_cast<int64_t>(data.rank())));
    if (!indices.rank_known()) {
        PartialShape out = data;
        out[axis] = kDynamic;
        return {{type, out}};
    }
    if (indices.rank() != data.rank())
        throw ctx.input_error(
            kIndices, ErrorKind::ShapeRule, "rank-mismatch",
            str("indices has rank ", indices.rank(), ", data has rank ", data.rank(), "; they must be equal"));
    PartialShape out = indices;
    for (size_t d = 0; d < data.rank(); ++d) {
        if (d == axis) continue;
        if (!dims_compatible(data[d], indices[d]))
            throw ctx.input_error(
                kIndices, ErrorKind::ShapeRule, "shape-mismatch",
                str("indices shape ", to_string(indices), " differs from data shape ", to_string(data), " in dim ", d,
                    " (", indices[d], " vs ", data[d], "); only the axis dim (", axis, ") may differ"));
        if (out[d] == kDynamic) out[d] = data[d];
    }
    detail::check_known_indices(ctx, kIndices, data, [axis](int64_t) { return axis; });
    return {{type, out}};
}

// ---- the kernel -------------------------------------------------------------------------------
//
// Data is seen as [outer, dim, inner] and indices/out as [outer, index_dim, inner], dim being the
// axis. Every index v is checked as one unsigned compare, u = v + dim < 2 * dim, and the row is
// then u or u - dim; a run stops at the first bad index before it reads anything with it, and the
// kernel then finds the first bad position in flat order (the same error for every thread count).
//
// Two traversals:
//  - the last axis (inner == 1): each output row gathers from one data row (it stays in L1) while
//    indices stream in and the output streams out; the output is the only thing written, with
//    non-temporal stores when large.
//  - any other axis: column blocks. For a block of W columns (a cache line or more) the kernel
//    walks the index rows j of one outer slab; every read falls into the dim x W block of data,
//    so each data line comes from memory about once instead of once per element (row-major order
//    over a slab larger than the cache misses on nearly every read). The block is first copied
//    into scratch memory ("staged", see Geometry) when that pays.
// Each has a portable version and, for 4- and 8-byte elements, AVX2 and AVX-512 versions (vector
// gathers, vector bounds checks) chosen at prepare time by cpu::active_isa() (cpu_isa.hpp, so
// IRLITE_ISA caps it); results are identical.

using cpu::Isa;

// Index rows are fetched this many rows ahead of use in the column-block traversal (the hardware
// prefetcher does not follow a stride of one index row), data rows this many ahead when staged.
constexpr int64_t kIndexRowsAhead = 8;
constexpr int64_t kDataRowsAhead = 16;
// Bytes of one staged column block (dim x width x N): half a core's L2, leaving room for the
// index and output lines passing through.
constexpr int64_t kStageBytes = int64_t{512} << 10;
// Without staging, bytes of data one column block may span, so that its lines stay in L2.
constexpr int64_t kBlockBytes = int64_t{256} << 10;
// Output elements per task of the column-block traversal.
constexpr int64_t kTaskElements = int64_t{1} << 16;

// How the column-block traversal (inner > 1) cuts the work. A block is `width` columns of one
// outer slab and `rows` index rows. Staged: each task first copies the block's dim x width data
// into its scratch memory, and gathers from there: the gathers then touch a few dozen pages, not
// one page per data row (a TLB miss on nearly every read otherwise), and never leave L2.
struct Geometry {
    int64_t outer = 1, dim = 0, index_dim = 0, inner = 1;
    int64_t width = 1, rows = 1;
    bool staged = false;
    int64_t stage_bytes() const { return staged ? dim * width : 0; }  // times the element size
};

Geometry geometry(const Shape& data, const Shape& indices, size_t axis, int64_t element_bytes, bool may_stage = true) {
    Geometry g;
    for (size_t d = 0; d < axis; ++d) g.outer *= indices[d];
    for (size_t d = axis + 1; d < indices.size(); ++d) g.inner *= indices[d];
    g.dim = data[axis];
    g.index_dim = indices[axis];
    // The last-axis traversal has no blocks.
    if (g.inner == 1) return g;
    const int64_t line = std::max<int64_t>(1, 64 / element_bytes);  // elements per cache line
    const int64_t column_bytes = std::max<int64_t>(1, g.dim * element_bytes);
    const int64_t staged_width = kStageBytes / column_bytes / line * line;
    // Staging pays when the block is at least a cache line wide and the gathers read its rows
    // about once or more (copying 4096 rows to gather 10 would not).
    g.staged = may_stage && staged_width > 0 && g.index_dim * 4 >= g.dim;
    g.width = g.staged ? staged_width : std::max(line, kBlockBytes / column_bytes / line * line);
    g.width = std::max<int64_t>(1, std::min(g.width, g.inner));  // inner may be 0
    // Tasks of at least kTaskElements, and of at least dim rows when the block is loaded once per
    // task (staged, or small enough to stay in cache), so that loading it is paid for.
    g.rows = std::max<int64_t>(1, kTaskElements / g.width);
    if (g.staged || g.dim * g.width * element_bytes <= kBlockBytes) g.rows = std::max(g.rows, g.dim);
    g.rows = std::max<int64_t>(1, std::min(g.rows, g.index_dim));
    return g;
}

struct GatherElementsPlan : OpPlan {
    Isa isa = Isa::Sse;  // for 4- and 8-byte elements; other widths always run portable
};

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    auto plan = std::make_unique<GatherElementsPlan>();
    plan->isa = cpu::active_isa();
    plan->method = cpu::isa_name(plan->isa);
    const PartialShape& data = ctx.shape(kData);
    const PartialShape& indices = ctx.shape(kIndices);
    if (data.is_static() && indices.is_static() && data.rank() == indices.rank() && data.rank() > 0) {
        const int64_t axis = ctx.attrs<GatherElementsAttrs>().axis;
        const auto rank = static_cast<int64_t>(data.rank());
        if (axis >= -rank && axis < rank) {
            const auto element_bytes = static_cast<int64_t>(element_size(ctx.type(kData)));
            const Geometry g = geometry(data.to_shape(), indices.to_shape(),
                                        static_cast<size_t>(axis < 0 ? axis + rank : axis), element_bytes);
            plan->scratch_bytes = static_cast<size_t>(g.stage_bytes() * element_bytes);
        }
    }
    return plan;
}

// One element: out[k] = base[row * stride + c] with row = idx[k] wrapped; false if idx[k] is bad.
template <class Index, size_t N>
inline bool gather_one(const Index* idx, const std::byte* base, std::byte* out, int64_t k, int64_t stride, int64_t c,
                       uint64_t dim) {
    const uint64_t u = static_cast<uint64_t>(static_cast<int64_t>(idx[k])) + dim;
    if (u >= 2 * dim) return false;
    const uint64_t row = u >= dim ? u - dim : u;
    std::memcpy(out + k * static_cast<int64_t>(N),
                base + (static_cast<int64_t>(row) * stride + c) * static_cast<int64_t>(N), N);
    return true;
}

inline void prefetch_lines(const void* p, int64_t bytes) {
    const auto* b = static_cast<const char*>(p);
    for (int64_t at = 0; at < bytes; at += 64) __builtin_prefetch(b + at);
}

// memcpy in whole cache lines (inlined, where a call per short row would cost more than the copy).
inline void copy_row(std::byte* dst, const std::byte* src, int64_t bytes) {
    int64_t at = 0;
    for (; at + 64 <= bytes; at += 64) std::memcpy(dst + at, src + at, 64);
    if (at < bytes) std::memcpy(dst + at, src + at, static_cast<size_t>(bytes - at));
}

// Last axis: flat positions [begin, end) of indices/out, in rows of index_dim indices that each
// gather from one data row of dim elements (outer rows in all).
struct Rows {
    const void* idx;
    const std::byte* data;
    std::byte* out;
    int64_t begin, end, index_dim, dim, outer;
    bool stream;  // non-temporal stores where aligned
};

// Fetches data row o + 1 while row o is gathered from, a few lines per step of `per_step`
// indices, spread over the row: the first reads of a row otherwise each wait for memory, in
// random order, which no hardware prefetcher follows. Only when most of the row will be read.
struct NextRow {
    const char* next = nullptr;
    int64_t at = 0, bytes = 0, lines = 0;
    NextRow(const Rows& r, int64_t o, int64_t per_step, int64_t element_bytes) {
        if (o + 1 >= r.outer || r.dim > 4 * r.index_dim) return;
        bytes = r.dim * element_bytes;
        next = reinterpret_cast<const char*>(r.data) + (o + 1) * bytes;
        lines = std::max<int64_t>(1, (bytes * per_step + r.index_dim * 64 - 1) / (r.index_dim * 64));
    }
    void step() {
        for (int64_t l = 0; l < lines && at < bytes; ++l, at += 64) __builtin_prefetch(next + at);
    }
};

template <class Index, size_t N>
bool last_axis_portable(const Rows& r) {
    const auto* idx = static_cast<const Index*>(r.idx);
    for (int64_t at = r.begin; at < r.end;) {
        const int64_t o = at / r.index_dim, stop = std::min(r.end, (o + 1) * r.index_dim);
        const std::byte* row = r.data + o * r.dim * static_cast<int64_t>(N);
        NextRow ahead(r, o, 8, static_cast<int64_t>(N));
        for (int64_t k = at; k < stop; ++k) {
            if ((k - at) % 8 == 0) ahead.step();
            if (!gather_one<Index, N>(idx, row, r.out, k, 1, 0, static_cast<uint64_t>(r.dim))) return false;
        }
        at = stop;
    }
    return true;
}

// One column block: rows x cols outputs. idx and out point at its first element, their rows
// `stride` elements apart; data at the block's first column of data row 0, dim rows
// `data_stride` elements apart.
struct Block {
    const void* idx;
    const std::byte* data;
    std::byte* out;
    int64_t rows, cols, stride, data_stride, dim;
    bool stream;  // non-temporal stores (the caller checked that each output row starts a line)
};

template <class Index, size_t N>
bool block_portable(const Block& b) {
    const auto* idx = static_cast<const Index*>(b.idx);
    std::byte* out = b.out;
    const int64_t bytes = b.cols * static_cast<int64_t>(sizeof(Index));
    for (int64_t r = 0; r < b.rows; ++r, idx += b.stride, out += b.stride * static_cast<int64_t>(N)) {
        if (r + kIndexRowsAhead < b.rows) prefetch_lines(idx + kIndexRowsAhead * b.stride, bytes);
        for (int64_t c = 0; c < b.cols; ++c)
            if (!gather_one<Index, N>(idx, b.data, out, c, b.data_stride, c, static_cast<uint64_t>(b.dim)))
                return false;
    }
    return true;
}

#if IRLITE_ISA_X86
// AVX-512: eight indices at a time, widened to 64 bits.
template <class Index>
IRLITE_TARGET_AVX512 inline __m512i load8(const Index* p) {
    if constexpr (sizeof(Index) == 8)
        return _mm512_loadu_si512(p);
    else
        return _mm512_cvtepi32_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
}

template <class Index, size_t N>
IRLITE_TARGET_AVX512 bool last_axis_avx512(const Rows& r) {
    const __m512i dimv = _mm512_set1_epi64(r.dim), limit = _mm512_set1_epi64(2 * r.dim);
    const auto udim = static_cast<uint64_t>(r.dim);
    const auto* idx = static_cast<const Index*>(r.idx);
    std::byte* out = r.out;
    const bool stream = r.stream;
    constexpr int64_t kVector = 8 * static_cast<int64_t>(N);  // bytes of out per step
    for (int64_t at = r.begin; at < r.end;) {
        const int64_t o = at / r.index_dim, stop = std::min(r.end, (o + 1) * r.index_dim);
        const std::byte* row = r.data + o * r.dim * static_cast<int64_t>(N);
        NextRow ahead(r, o, 8, static_cast<int64_t>(N));
        int64_t k = at;
        // Up to an aligned output address, so that the stores can stream.
        for (; k < stop && reinterpret_cast<uintptr_t>(out + k * static_cast<int64_t>(N)) % kVector != 0; ++k)
            if (!gather_one<Index, N>(idx, row, out, k, 1, 0, udim)) return false;
        for (; k + 8 <= stop; k += 8) {
            ahead.step();
            const __m512i u = _mm512_add_epi64(load8(idx + k), dimv);
            if (_mm512_cmpge_epu64_mask(u, limit)) return false;
            const __m512i w = _mm512_mask_sub_epi64(u, _mm512_cmpge_epu64_mask(u, dimv), u, dimv);
            std::byte* d = out + k * static_cast<int64_t>(N);
            if constexpr (N == 4) {
                const __m256 v = _mm512_i64gather_ps(w, row, 4);
                if (stream)
                    _mm256_stream_ps(reinterpret_cast<float*>(d), v);
                else
                    _mm256_storeu_ps(reinterpret_cast<float*>(d), v);
            } else {
                const __m512i v = _mm512_i64gather_epi64(w, row, 8);
                if (stream)
                    _mm512_stream_si512(reinterpret_cast<__m512i*>(d), v);
                else
                    _mm512_storeu_si512(d, v);
            }
        }
        for (; k < stop; ++k)
            if (!gather_one<Index, N>(idx, row, out, k, 1, 0, udim)) return false;
        at = stop;
    }
    return true;
}

template <class Index, size_t N>
IRLITE_TARGET_AVX512 bool block_avx512(const Block& b) {
    const __m512i dimv = _mm512_set1_epi64(b.dim), limit = _mm512_set1_epi64(2 * b.dim);
    const __m512i stridev = _mm512_set1_epi64(b.data_stride), lanes = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
    const auto udim = static_cast<uint64_t>(b.dim);
    const auto* idx = static_cast<const Index*>(b.idx);
    std::byte* out = b.out;
    const int64_t bytes = b.cols * static_cast<int64_t>(sizeof(Index));
    for (int64_t r = 0; r < b.rows; ++r, idx += b.stride, out += b.stride * static_cast<int64_t>(N)) {
        if (r + kIndexRowsAhead < b.rows) prefetch_lines(idx + kIndexRowsAhead * b.stride, bytes);
        int64_t c = 0;
        for (; c + 8 <= b.cols; c += 8) {
            const __m512i u = _mm512_add_epi64(load8(idx + c), dimv);
            if (_mm512_cmpge_epu64_mask(u, limit)) return false;
            const __m512i w = _mm512_mask_sub_epi64(u, _mm512_cmpge_epu64_mask(u, dimv), u, dimv);
            // row * data_stride + column: both factors below 2^31 (checked by the caller).
            const __m512i at =
                _mm512_add_epi64(_mm512_mul_epu32(w, stridev), _mm512_add_epi64(lanes, _mm512_set1_epi64(c)));
            std::byte* d = out + c * static_cast<int64_t>(N);
            if constexpr (N == 4) {
                const __m256 v = _mm512_i64gather_ps(at, b.data, 4);
                if (b.stream)
                    _mm256_stream_ps(reinterpret_cast<float*>(d), v);
                else
                    _mm256_storeu_ps(reinterpret_cast<float*>(d), v);
            } else {
                const __m512i v = _mm512_i64gather_epi64(at, b.data, 8);
                if (b.stream)
                    _mm512_stream_si512(reinterpret_cast<__m512i*>(d), v);
                else
                    _mm512_storeu_si512(d, v);
            }
        }
        for (; c < b.cols; ++c)
            if (!gather_one<Index, N>(idx, b.data, out, c, b.data_stride, c, udim)) return false;
    }
    return true;
}

// AVX2: four indices at a time, widened to 64 bits; no unsigned 64-bit compare, so two signed
// ones (v > dim - 1, -dim > v).
template <class Index>
IRLITE_TARGET_AVX2 inline __m256i load4(const Index* p) {
    if constexpr (sizeof(Index) == 8)
        return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    else
        return _mm256_cvtepi32_epi64(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

template <class Index, size_t N>
IRLITE_TARGET_AVX2 bool last_axis_avx2(const Rows& r) {
    const __m256i dimv = _mm256_set1_epi64x(r.dim), high = _mm256_set1_epi64x(r.dim - 1);
    const __m256i low = _mm256_set1_epi64x(-r.dim), zero = _mm256_setzero_si256();
    const auto udim = static_cast<uint64_t>(r.dim);
    const auto* idx = static_cast<const Index*>(r.idx);
    std::byte* out = r.out;
    const bool stream = r.stream;
    constexpr int64_t kVector = 4 * static_cast<int64_t>(N);
    for (int64_t at = r.begin; at < r.end;) {
        const int64_t o = at / r.index_dim, stop = std::min(r.end, (o + 1) * r.index_dim);
        const std::byte* row = r.data + o * r.dim * static_cast<int64_t>(N);
        NextRow ahead(r, o, 4, static_cast<int64_t>(N));
        int64_t k = at;
        for (; k < stop && reinterpret_cast<uintptr_t>(out + k * static_cast<int64_t>(N)) % kVector != 0; ++k)
            if (!gather_one<Index, N>(idx, row, out, k, 1, 0, udim)) return false;
        for (; k + 4 <= stop; k += 4) {
            ahead.step();
            const __m256i v = load4(idx + k);
            const __m256i bad = _mm256_or_si256(_mm256_cmpgt_epi64(v, high), _mm256_cmpgt_epi64(low, v));
            if (!_mm256_testz_si256(bad, bad)) return false;
            const __m256i w = _mm256_add_epi64(v, _mm256_and_si256(_mm256_cmpgt_epi64(zero, v), dimv));
            std::byte* d = out + k * static_cast<int64_t>(N);
            if constexpr (N == 4) {
                const __m128 g = _mm256_i64gather_ps(reinterpret_cast<const float*>(row), w, 4);
                if (stream)
                    _mm_stream_ps(reinterpret_cast<float*>(d), g);
                else
                    _mm_storeu_ps(reinterpret_cast<float*>(d), g);
            } else {
                const __m256i g = _mm256_i64gather_epi64(reinterpret_cast<const long long*>(row), w, 8);
                if (stream)
                    _mm256_stream_si256(reinterpret_cast<__m256i*>(d), g);
                else
                    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d), g);
            }
        }
        for (; k < stop; ++k)
            if (!gather_one<Index, N>(idx, row, out, k, 1, 0, udim)) return false;
        at = stop;
    }
    return true;
}

template <class Index, size_t N>
IRLITE_TARGET_AVX2 bool block_avx2(const Block& b) {
    const __m256i dimv = _mm256_set1_epi64x(b.dim), high = _mm256_set1_epi64x(b.dim - 1);
    const __m256i low = _mm256_set1_epi64x(-b.dim), zero = _mm256_setzero_si256();
    const __m256i stridev = _mm256_set1_epi64x(b.data_stride), lanes = _mm256_set_epi64x(3, 2, 1, 0);
    const auto udim = static_cast<uint64_t>(b.dim);
    const auto* idx = static_cast<const Index*>(b.idx);
    std::byte* out = b.out;
    const int64_t bytes = b.cols * static_cast<int64_t>(sizeof(Index));
    for (int64_t r = 0; r < b.rows; ++r, idx += b.stride, out += b.stride * static_cast<int64_t>(N)) {
        if (r + kIndexRowsAhead < b.rows) prefetch_lines(idx + kIndexRowsAhead * b.stride, bytes);
        int64_t c = 0;
        for (; c + 4 <= b.cols; c += 4) {
            const __m256i v = load4(idx + c);
            const __m256i bad = _mm256_or_si256(_mm256_cmpgt_epi64(v, high), _mm256_cmpgt_epi64(low, v));
            if (!_mm256_testz_si256(bad, bad)) return false;
            const __m256i w = _mm256_add_epi64(v, _mm256_and_si256(_mm256_cmpgt_epi64(zero, v), dimv));
            const __m256i at =
                _mm256_add_epi64(_mm256_mul_epu32(w, stridev), _mm256_add_epi64(lanes, _mm256_set1_epi64x(c)));
            std::byte* d = out + c * static_cast<int64_t>(N);
            if constexpr (N == 4) {
                const __m128 g = _mm256_i64gather_ps(reinterpret_cast<const float*>(b.data), at, 4);
                if (b.stream)
                    _mm_stream_ps(reinterpret_cast<float*>(d), g);
                else
                    _mm_storeu_ps(reinterpret_cast<float*>(d), g);
            } else {
                const __m256i g = _mm256_i64gather_epi64(reinterpret_cast<const long long*>(b.data), at, 8);
                if (b.stream)
                    _mm256_stream_si256(reinterpret_cast<__m256i*>(d), g);
                else
                    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d), g);
            }
        }
        for (; c < b.cols; ++c)
            if (!gather_one<Index, N>(idx, b.data, out, c, b.data_stride, c, udim)) return false;
    }
    return true;
}
#endif

using LastAxisFn = bool (*)(const Rows&);
using BlockFn = bool (*)(const Block&);

// The first index out of [-dim, dim) in flat order, as the error the kernel reports.
template <class Index>
Error first_bad_index(const KernelContext& ctx, const Tensor& indices, size_t axis, int64_t dim) {
    const Index* idx = indices.data<Index>();
    for (int64_t k = 0; k < indices.num_elements(); ++k) {
        const auto v = static_cast<int64_t>(idx[k]);
        if (v < -dim || v >= dim)
            return ctx.input_error(
                kIndices, ErrorKind::Value, "index-out-of-range",
                detail::index_out_of_range_message("indices", indices.shape(), k, v, static_cast<int64_t>(axis), dim));
    }
    return Error(ErrorKind::Value, "internal-error", "GatherElements: a bad index vanished");
}

// The kernel for one index type and one element width (N bytes).
template <class Index, size_t N>
void gather(const KernelContext& ctx, const GatherElementsPlan& plan, const Tensor& data, const Tensor& indices,
            Tensor& out, size_t axis) {
    constexpr int64_t kN = static_cast<int64_t>(N);
    Geometry g = geometry(data.shape(), indices.shape(), axis, kN);
    // Scratch memory comes from the plan: one prepared for other shapes means no staging.
    if (g.staged && static_cast<size_t>(g.stage_bytes() * kN) > plan.scratch_bytes)
        g = geometry(data.shape(), indices.shape(), axis, kN, false);
    const int64_t total = g.outer * g.index_dim * g.inner;
    if (total == 0) return;
    const Index* idx = indices.data<Index>();
    const std::byte* src = data.bytes();
    std::byte* dst = out.bytes();
    const bool stream = out.byte_size() >= detail::kStreamingBytes;

    LastAxisFn last_axis = last_axis_portable<Index, N>;
    BlockFn block = block_portable<Index, N>;
#if IRLITE_ISA_X86
    // The vector versions multiply row by row stride in 32 x 32 -> 64 bits.
    const bool fits = g.dim < (int64_t{1} << 31) && g.inner < (int64_t{1} << 31);
    if constexpr (N == 4 || N == 8) {
        if (plan.isa == Isa::Avx512 && fits) last_axis = last_axis_avx512<Index, N>, block = block_avx512<Index, N>;
        if (plan.isa == Isa::Avx2 && fits) last_axis = last_axis_avx2<Index, N>, block = block_avx2<Index, N>;
    }
#endif

    std::atomic<bool> bad{false};
    if (g.inner == 1) {
        detail::for_chunks(ctx.pool(), total, detail::kCopyGrainBytes / kN,
                           [&, idx, src, dst](int64_t begin, int64_t end) {
                               if (bad.load(std::memory_order_relaxed)) return;
                               if (!last_axis(Rows{idx, src, dst, begin, end, g.index_dim, g.dim, g.outer, stream}))
                                   bad.store(true, std::memory_order_relaxed);
                               if (stream) detail::stream_fence();
                           });
    } else {
        const int64_t blocks = (g.inner + g.width - 1) / g.width, segments = (g.index_dim + g.rows - 1) / g.rows;
        const int64_t tasks = g.outer * segments * blocks;
        const int64_t grain = std::max<int64_t>(1, kTaskElements / (g.rows * g.width));
        // Streaming stores only where every output row of a block starts a cache line.
        const bool aligned = stream && reinterpret_cast<uintptr_t>(dst) % 64 == 0 && (g.inner * kN) % 64 == 0;
        detail::for_chunks(ctx.pool(), tasks, grain, [&, idx, src, dst](int64_t begin, int64_t end) {
            std::byte* stage = g.staged ? static_cast<std::byte*>(ctx.scratch()) : nullptr;
            for (int64_t t = begin; t < end && !bad.load(std::memory_order_relaxed); ++t) {
                const int64_t s = t / blocks % segments, o = t / blocks / segments;
                const int64_t j0 = s * g.rows, c0 = t % blocks * g.width;
                const int64_t first = (o * g.index_dim + j0) * g.inner + c0;
                Block b{idx + first,
                        src + (o * g.dim * g.inner + c0) * kN,
                        dst + first * kN,
                        std::min(g.rows, g.index_dim - j0),
                        std::min(g.width, g.inner - c0),
                        g.inner,
                        g.inner,
                        g.dim,
                        aligned};
                if (stage) {
                    // The block's dim x cols data, rows packed; fetched a few rows ahead (each row
                    // is on its own page: no hardware prefetcher follows).
                    const int64_t bytes = b.cols * kN;
                    for (int64_t r = 0; r < g.dim; ++r) {
                        if (r + kDataRowsAhead < g.dim)
                            prefetch_lines(b.data + (r + kDataRowsAhead) * g.inner * kN, bytes);
                        copy_row(stage + r * bytes, b.data + r * g.inner * kN, bytes);
                    }
                    b.data = stage;
                    b.data_stride = b.cols;
                }
                if (!block(b)) bad.store(true, std::memory_order_relaxed);
            }
            if (aligned) detail::stream_fence();
        });
    }
    if (bad.load()) throw first_bad_index<Index>(ctx, indices, axis, g.dim);
}

template <class Index>
void gather_any_width(const KernelContext& ctx, const GatherElementsPlan& plan, const Tensor& data,
                      const Tensor& indices, Tensor& out, size_t axis) {
    switch (element_size(data.type())) {
        case 1:
            return gather<Index, 1>(ctx, plan, data, indices, out, axis);
        case 2:
            return gather<Index, 2>(ctx, plan, data, indices, out, axis);
        case 4:
            return gather<Index, 4>(ctx, plan, data, indices, out, axis);
        case 8:
            return gather<Index, 8>(ctx, plan, data, indices, out, axis);
    }
    throw Error(ErrorKind::Unsupported, "element-size",
                str("element size ", element_size(data.type()), " unsupported"));
}

void compute(KernelContext& ctx) {
    const Tensor& data = ctx.input(kData);
    const Tensor& indices = ctx.input(kIndices);
    Tensor& out = ctx.output(0);
    const auto axis = static_cast<size_t>(
        normalize_axis_attr(ctx.attrs<GatherElementsAttrs>().axis, static_cast<int64_t>(data.rank())));
    bool consistent = (indices.type() == ElementType::i32 || indices.type() == ElementType::i64) &&
                      indices.rank() == data.rank() && out.shape() == indices.shape() && out.type() == data.type();
    for (size_t d = 0; consistent && d < data.rank(); ++d)
        consistent = d == axis || data.shape()[d] == indices.shape()[d];
    IRLITE_CHECK(consistent, ErrorKind::ShapeRule, "kernel-output-mismatch", "data ", to_string(data.shape()),
                 ", indices ", to_string(indices.shape()), " and output ", to_string(out.shape()),
                 " disagree with the shape rule");
    const auto& plan = ctx.plan<GatherElementsPlan>();
    if (indices.type() == ElementType::i32)
        gather_any_width<int32_t>(ctx, plan, data, indices, out, axis);
    else
        gather_any_width<int64_t>(ctx, plan, data, indices, out, axis);
}

}  // namespace

OpDef make_gather_elements_op() {
    OpDef d;
    d.type = "GatherElements";
    d.version = 6;
    d.first_opset = 6;
    d.input_roles = {"data", "indices"};
    d.min_inputs = 2;
    d.parse_attrs = [](const AttrReader& r) -> std::unique_ptr<OpAttrs> {
        auto a = std::make_unique<GatherElementsAttrs>();
        a->axis = r.get_i64("axis");
        return a;
    };
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace irlite
