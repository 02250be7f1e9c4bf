#include "kernels/detail/strided_copy.hpp"

#include <cstring>

#include "engine/error.hpp"

namespace irlite::detail {
namespace {

struct Loop {
    int64_t count;
    int64_t src_stride;  // bytes
};

// Copies `count` items of N bytes read `stride` bytes apart into a dense run.
template <size_t N>
void gather_items(const std::byte* src, int64_t stride, std::byte* dst, int64_t count) {
    for (int64_t i = 0; i < count; ++i, src += stride, dst += N) std::memcpy(dst, src, N);
}

void gather_blocks(const std::byte* src, int64_t stride, std::byte* dst, int64_t count, size_t block) {
    switch (block) {
        case 1:
            return gather_items<1>(src, stride, dst, count);
        case 2:
            return gather_items<2>(src, stride, dst, count);
        case 4:
            return gather_items<4>(src, stride, dst, count);
        case 8:
            return gather_items<8>(src, stride, dst, count);
        default:
            for (int64_t i = 0; i < count; ++i, src += stride, dst += block) std::memcpy(dst, src, block);
    }
}

void check_region(const Shape& src_shape, const Shape& out_shape, const std::vector<int64_t>& start,
                  const std::vector<int64_t>& step) {
    const size_t rank = src_shape.size();
    IRLITE_CHECK(out_shape.size() == rank && start.size() == rank && step.size() == rank, ErrorKind::Value,
                 "strided-copy-out-of-range", "strided copy: rank mismatch (source ", rank, ", output ",
                 out_shape.size(), ", start ", start.size(), ", step ", step.size(), ")");
    for (size_t d = 0; d < rank; ++d) {
        int64_t span = 0, last = 0;
        const bool overflow =
            __builtin_mul_overflow(out_shape[d] - 1, step[d], &span) || __builtin_add_overflow(start[d], span, &last);
        IRLITE_CHECK(!overflow && start[d] >= 0 && start[d] < src_shape[d] && last >= 0 && last < src_shape[d],
                     ErrorKind::Value, "strided-copy-out-of-range", "strided copy: dim ", d, " reads from ", start[d],
                     " in steps of ", step[d], " for ", out_shape[d], " items, outside [0, ", src_shape[d], ")");
    }
}

}  // namespace

void strided_copy(const void* src, const Shape& src_shape, void* dst, const Shape& out_shape, size_t elem_size,
                  const std::vector<int64_t>& start, const std::vector<int64_t>& step) {
    for (int64_t d : out_shape)
        if (d == 0) return;
    check_region(src_shape, out_shape, start, step);
    // In range (checked above), so none of these products overflow. A dim read once may have any
    // step (Slice's INT64_MIN included): its stride is never used, so it is 0, not step x stride.
    const std::vector<int64_t> strides = row_major_strides(src_shape);
    const auto elem = static_cast<int64_t>(elem_size);
    int64_t offset = 0;
    std::vector<int64_t> byte_strides(src_shape.size());
    for (size_t d = 0; d < src_shape.size(); ++d) {
        offset += start[d] * strides[d] * elem;
        byte_strides[d] = out_shape[d] > 1 ? step[d] * strides[d] * elem : 0;
    }
    view_copy(src, checked_byte_size(src_shape, elem_size), offset, dst, out_shape, byte_strides, elem_size);
}

void view_copy(const void* src, size_t src_bytes, int64_t offset, void* dst, const Shape& out_shape,
               const std::vector<int64_t>& byte_strides, size_t elem_size) {
    IRLITE_CHECK(byte_strides.size() == out_shape.size(), ErrorKind::Value, "strided-copy-out-of-range",
                 "view copy: ", out_shape.size(), " output dims but ", byte_strides.size(), " strides");
    for (int64_t d : out_shape)
        if (d == 0) return;
    // The lowest and highest byte the view reads, to prove every read stays inside the source.
    int64_t lo = offset, hi = offset;
    bool overflow = false;
    for (size_t d = 0; d < out_shape.size(); ++d) {
        int64_t reach = 0;
        overflow |= __builtin_mul_overflow(out_shape[d] - 1, byte_strides[d], &reach);
        overflow |= __builtin_add_overflow(reach < 0 ? lo : hi, reach, reach < 0 ? &lo : &hi);
    }
    const int64_t elem = static_cast<int64_t>(elem_size);
    IRLITE_CHECK(!overflow && lo >= 0 && hi <= static_cast<int64_t>(src_bytes) - elem, ErrorKind::Value,
                 "strided-copy-out-of-range", "view copy: reads bytes [", lo, ", ", hi + elem, ") of a ", src_bytes,
                 "-byte source");

    // Loops over the dims that move (count > 1), outer to inner; dims of count 1 read one place.
    std::vector<Loop> loops;
    for (size_t d = 0; d < out_shape.size(); ++d)
        if (out_shape[d] > 1) loops.push_back({out_shape[d], byte_strides[d]});
    // Innermost loops that read contiguously grow the block copied by one memcpy.
    int64_t block = elem;
    while (!loops.empty() && loops.back().src_stride == block) {
        block *= loops.back().count;
        loops.pop_back();
    }
    // Adjacent loops that chain evenly (outer stride = inner count x inner stride) become one.
    std::vector<Loop> merged;
    for (const Loop& l : loops) {
        if (!merged.empty() && merged.back().src_stride == l.count * l.src_stride) {
            merged.back().count *= l.count;
            merged.back().src_stride = l.src_stride;
        } else {
            merged.push_back(l);
        }
    }
    const auto* in = static_cast<const std::byte*>(src) + offset;
    auto* out = static_cast<std::byte*>(dst);
    if (merged.empty()) {
        std::memcpy(out, in, static_cast<size_t>(block));
        return;
    }
    // The innermost loop is one strided run per row; the rest is an odometer over rows.
    const Loop inner = merged.back();
    merged.pop_back();
    int64_t rows = 1;
    for (const Loop& l : merged) rows *= l.count;
    std::vector<int64_t> counter(merged.size(), 0);
    int64_t row_offset = 0;
    const int64_t row_bytes = inner.count * block;
    for (int64_t row = 0; row < rows; ++row, out += row_bytes) {
        gather_blocks(in + row_offset, inner.src_stride, out, inner.count, static_cast<size_t>(block));
        for (size_t d = merged.size(); d-- > 0;) {
            row_offset += merged[d].src_stride;
            if (++counter[d] < merged[d].count) break;
            row_offset -= merged[d].src_stride * merged[d].count;
            counter[d] = 0;
        }
    }
}

}  // namespace irlite::detail
