// Byte-level data movement for every element type: copies a strided N-d region of a dense
// row-major tensor into a dense row-major buffer. Serves Slice (and later StridedSlice, Reverse,
// Broadcast with step 0, ...) for any rank and any element type.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "irlite/shape.hpp"

namespace irlite {
class ThreadPool;
}

namespace irlite::detail {

// For every output coordinate o (row-major over out_shape):
//   dst[o] = src[start[0] + o[0]*step[0], ..., start[r-1] + o[r-1]*step[r-1]]
// `src` is dense row-major with `src_shape`; `dst` is dense row-major with `out_shape`; both hold
// elements of `elem_size` bytes. Steps may be negative or 0 (a repeated read). start, step,
// src_shape and out_shape all have the same length (the rank; 0 copies one element).
//
// Whole dims read with step 1 and contiguous runs are coalesced into one memcpy; what remains is
// walked with an odometer (no recursion, no per-rank code) and the innermost strided loop copies
// 1/2/4/8-byte items with fixed-size moves.
//
// Throws Error(kind Value, code "strided-copy-out-of-range") when the region reaches outside
// `src` (a caller bug; it is checked once per dim, so it never turns into a stray read).
void strided_copy(const void* src, const Shape& src_shape, void* dst, const Shape& out_shape, size_t elem_size,
                  const std::vector<int64_t>& start, const std::vector<int64_t>& step);

// The general form, for views whose dims do not follow the source's order (Transpose), repeat
// (Broadcast, Tile: stride 0) or run backwards (StridedSlice):
//   dst[o] = the elem_size bytes at src + offset + sum_d o[d] * byte_strides[d]
// for every output coordinate o (row-major over out_shape; dst is dense). byte_strides has one
// entry per output dim, in bytes, of any sign. Same coalescing and 1/2/4/8-byte inner copies as
// strided_copy. Throws Error(kind Value, code "strided-copy-out-of-range") when some read would
// fall outside the src_bytes bytes at src (checked once, from the extreme offsets).
void view_copy(const void* src, size_t src_bytes, int64_t offset, void* dst, const Shape& out_shape,
               const std::vector<int64_t>& byte_strides, size_t elem_size);

// The same copies prepared once (a kernel's plan) and run many times without allocation. The
// output is `rows` rows of `inner_count` blocks of `block` bytes; blocks can be copied in any split
// (threads).
struct CopyPlan {
    struct Loop {
        int64_t count;
        int64_t src_stride;  // bytes
    };
    int64_t offset = 0;        // bytes into the source of the first byte read
    int64_t block = 0;         // bytes moved by one memcpy (0: the output is empty)
    int64_t inner_count = 1;   // blocks per row, read inner_stride bytes apart
    int64_t inner_stride = 0;
    std::vector<Loop> outer;   // the odometer over rows, outermost first
    int64_t rows = 0;
    int64_t row_bytes() const { return inner_count * block; }
    int64_t total_bytes() const { return rows * row_bytes(); }
    // The output is one run of bytes of the source, from `offset`: a view needs no copy at all.
    bool is_contiguous() const { return outer.empty() && inner_count == 1; }
};
// Plans of view_copy and strided_copy; same arguments, same checks (thrown here, not per run).
CopyPlan plan_view_copy(size_t src_bytes, int64_t offset, const Shape& out_shape,
                        const std::vector<int64_t>& byte_strides, size_t elem_size);
CopyPlan plan_strided_copy(const Shape& src_shape, const Shape& out_shape, size_t elem_size,
                           const std::vector<int64_t>& start, const std::vector<int64_t>& step);
// Copies blocks [begin, end) of the plan's output, counted row-major over rows x inner_count
// (dst is the whole output).
void run_copy(const CopyPlan& plan, const void* src, void* dst, int64_t begin, int64_t end);
inline void run_copy(const CopyPlan& plan, const void* src, void* dst) {
    run_copy(plan, src, dst, 0, plan.rows * plan.inner_count);
}
// run_copy split across the pool (null: inline), in chunks of about kCopyGrainBytes.
void run_copy(const CopyPlan& plan, const void* src, void* dst, ThreadPool* pool);

}  // namespace irlite::detail
