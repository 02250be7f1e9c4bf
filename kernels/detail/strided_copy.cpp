#include "kernels/detail/strided_copy.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "irlite/error.hpp"
#include "kernels/detail/cpu_isa.hpp"
#include "kernels/detail/parallel.hpp"

namespace irlite::detail {
namespace {

using Loop = CopyPlan::Loop;

// Copies `count` items of N bytes read `stride` bytes apart into a dense run.
template <size_t N>
void gather_items(const std::byte* src, int64_t stride, std::byte* dst, int64_t count) {
    for (int64_t i = 0; i < count; ++i, src += stride, dst += N) std::memcpy(dst, src, N);
}

// Reversed runs shorter than this many bytes run at the baseline level, inline.
constexpr int64_t kReverseDispatchBytes = 256;

// Items of 2/4/8 bytes copied as integers; a reversed run (stride -N) gets its own loop, which
// compilers vectorise with a permute.
template <class T>
void gather_typed(const std::byte* src, int64_t stride, std::byte* dst, int64_t count) {
    constexpr auto n = static_cast<int64_t>(sizeof(T));
    if (stride == -n) {
        if (reinterpret_cast<uintptr_t>(src) % n == 0 && reinterpret_cast<uintptr_t>(dst) % n == 0) {
            // Aligned items as T: the loop vectorises (loads, a lane permute, stores), at the
            // widest level the CPU has. At the baseline's 16 bytes a step, a reversed 268 MB row
            // ran at half the memory bandwidth, and its speed moved by 15 % with the loop's place
            // in the code.
            // A short row (a reversed inner axis of a few items) is not worth a dispatch: per row
            // of 4 floats, cpu::run's call cost 3.5x the copy (1M rows: 10.9 against 3.1 ms).
            const T* s = reinterpret_cast<const T*>(src);
            T* d = reinterpret_cast<T*>(dst);
            const auto reverse = [&] {
                for (int64_t i = 0; i < count; ++i) d[i] = s[-i];
            };
            if (count * n >= kReverseDispatchBytes) cpu::run(reverse);
            else reverse();
            return;
        }
        for (int64_t i = 0; i < count; ++i) std::memcpy(dst + i * n, src - i * n, sizeof(T));
        return;
    }
    gather_items<sizeof(T)>(src, stride, dst, count);
}

void gather_blocks(const std::byte* src, int64_t stride, std::byte* dst, int64_t count, size_t block,
                   bool streaming) {
    if (streaming && block >= 64) {
        // The hardware prefetchers follow a stream within a page but not the jump to the next
        // block, so each block would start with a row of cold misses (Slice [:, ::2, :] on rows
        // of 4 KiB: 0.45 of the memory bandwidth). Asking for the next block's first page while
        // copying this one keeps the reads flowing (0.65).
        const size_t ahead = std::min<size_t>(block, 4096);
        for (int64_t i = 0; i < count; ++i, src += stride, dst += block) {
            if (i + 1 < count)
                for (size_t o = 0; o < ahead; o += 64) __builtin_prefetch(src + stride + o, 0, 0);
            stream_copy_unfenced(dst, src, block);
        }
        stream_fence();
        return;
    }
    switch (block) {
        case 1:
            return gather_items<1>(src, stride, dst, count);
        case 2:
            return gather_typed<uint16_t>(src, stride, dst, count);
        case 4:
            return gather_typed<uint32_t>(src, stride, dst, count);
        case 8:
            return gather_typed<uint64_t>(src, stride, dst, count);
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

CopyPlan plan_strided_copy(const Shape& src_shape, const Shape& out_shape, size_t elem_size,
                           const std::vector<int64_t>& start, const std::vector<int64_t>& step) {
    for (int64_t d : out_shape)
        if (d == 0) return CopyPlan{};
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
    return plan_view_copy(checked_byte_size(src_shape, elem_size), offset, out_shape, byte_strides, elem_size);
}

void strided_copy(const void* src, const Shape& src_shape, void* dst, const Shape& out_shape, size_t elem_size,
                  const std::vector<int64_t>& start, const std::vector<int64_t>& step) {
    run_copy(plan_strided_copy(src_shape, out_shape, elem_size, start, step), src, dst);
}

CopyPlan plan_view_copy(size_t src_bytes, int64_t offset, const Shape& out_shape,
                        const std::vector<int64_t>& byte_strides, size_t elem_size) {
    IRLITE_CHECK(byte_strides.size() == out_shape.size(), ErrorKind::Value, "strided-copy-out-of-range",
                 "view copy: ", out_shape.size(), " output dims but ", byte_strides.size(), " strides");
    CopyPlan plan;
    for (int64_t d : out_shape)
        if (d == 0) return plan;
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
    for (const Loop& l : loops) {
        if (!plan.outer.empty() && plan.outer.back().src_stride == l.count * l.src_stride) {
            plan.outer.back().count *= l.count;
            plan.outer.back().src_stride = l.src_stride;
        } else {
            plan.outer.push_back(l);
        }
    }
    plan.offset = offset;
    plan.block = block;
    // The innermost loop is one strided run per row; the rest is an odometer over rows.
    if (!plan.outer.empty()) {
        plan.inner_count = plan.outer.back().count;
        plan.inner_stride = plan.outer.back().src_stride;
        plan.outer.pop_back();
    }
    plan.rows = 1;
    for (const Loop& l : plan.outer) plan.rows *= l.count;
    return plan;
}

void run_copy(const CopyPlan& plan, const void* src, void* dst, int64_t begin, int64_t end) {
    if (plan.block == 0 || begin >= end) return;
    const auto* in = static_cast<const std::byte*>(src) + plan.offset;
    auto* out = static_cast<std::byte*>(dst) + begin * plan.block;
    if (plan.is_contiguous()) {
        std::memcpy(out, in, static_cast<size_t>(plan.block));
        return;
    }
    const bool streaming = plan.total_bytes() >= static_cast<int64_t>(kStreamingBytes);
    // The odometer starts at the row of block `begin`; it lives on the stack for every rank a
    // model uses.
    constexpr size_t kStackLoops = 16;
    const size_t n = plan.outer.size();
    int64_t stack_counter[kStackLoops] = {};
    std::vector<int64_t> heap_counter(n > kStackLoops ? n : 0, 0);
    int64_t* counter = n > kStackLoops ? heap_counter.data() : stack_counter;
    int64_t row_offset = 0;
    for (size_t d = n, rest = static_cast<size_t>(begin / plan.inner_count); d-- > 0;) {
        const auto count = static_cast<size_t>(plan.outer[d].count);
        counter[d] = static_cast<int64_t>(rest % count);
        row_offset += counter[d] * plan.outer[d].src_stride;
        rest /= count;
    }
    int64_t first = begin % plan.inner_count;  // block within the row
    for (int64_t at = begin; at < end;) {
        const int64_t count = std::min(plan.inner_count - first, end - at);
        gather_blocks(in + row_offset + first * plan.inner_stride, plan.inner_stride, out, count,
                      static_cast<size_t>(plan.block), streaming);
        out += count * plan.block;
        at += count;
        first = 0;
        for (size_t d = n; d-- > 0;) {
            row_offset += plan.outer[d].src_stride;
            if (++counter[d] < plan.outer[d].count) break;
            row_offset -= plan.outer[d].src_stride * plan.outer[d].count;
            counter[d] = 0;
        }
    }
}

void run_copy(const CopyPlan& plan, const void* src, void* dst, ThreadPool* pool) {
    if (plan.block == 0) return;
    if (plan.is_contiguous()) {
        parallel_memcpy(pool, dst, static_cast<const std::byte*>(src) + plan.offset, static_cast<size_t>(plan.block));
        return;
    }
    const int64_t grain = std::max<int64_t>(1, kCopyGrainBytes / plan.block);
    for_chunks(pool, plan.rows * plan.inner_count, grain,
               [&](int64_t begin, int64_t end) { run_copy(plan, src, dst, begin, end); });
}

void view_copy(const void* src, size_t src_bytes, int64_t offset, void* dst, const Shape& out_shape,
               const std::vector<int64_t>& byte_strides, size_t elem_size) {
    run_copy(plan_view_copy(src_bytes, offset, out_shape, byte_strides, elem_size), src, dst);
}

}  // namespace irlite::detail
