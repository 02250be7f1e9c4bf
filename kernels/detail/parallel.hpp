// Splitting a kernel's work across the request's thread pool. Chunk boundaries depend only on the
// amount of work and the grain, never on the number of threads, and each output element is made
// by exactly one chunk: results are bit-identical for every thread count (a test checks it).
// Work that fits in one chunk runs inline, so tiny nodes pay nothing.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "engine/thread_pool.hpp"

namespace irlite::detail {

// Bytes of work per chunk for memory-bound kernels: large enough to amortise a task hand-off
// (about 1 us), small enough to balance two to many cores.
inline constexpr int64_t kCopyGrainBytes = int64_t{256} << 10;

// fn(begin, end) for consecutive chunks of [0, total) of `grain` items each, on `pool` when given.
template <class Fn>
void for_chunks(ThreadPool* pool, int64_t total, int64_t grain, const Fn& fn) {
    grain = std::max<int64_t>(grain, 1);
    if (pool && total > grain) {
        pool->parallel_range(total, grain, fn);
        return;
    }
    for (int64_t begin = 0; begin < total; begin += grain) fn(begin, std::min(total, begin + grain));
}

// Outputs at least this large are written with streaming (non-temporal) stores: they cannot stay
// in cache anyway, and streaming saves the read-for-ownership of every destination line.
inline constexpr size_t kStreamingBytes = size_t{8} << 20;

// memcpy with non-temporal stores where the CPU has them (x86-64: SSE2), plain memcpy elsewhere.
void stream_copy(void* dst, const void* src, size_t bytes);
// The same without the closing store fence: for many small copies in a row, then stream_fence().
void stream_copy_unfenced(void* dst, const void* src, size_t bytes);
void stream_fence();

// memcpy in chunks across the pool; streaming for large copies.
inline void parallel_memcpy(ThreadPool* pool, void* dst, const void* src, size_t bytes) {
    if (bytes == 0 || dst == src) return;
    const bool streaming = bytes >= kStreamingBytes;
    for_chunks(pool, static_cast<int64_t>(bytes), kCopyGrainBytes, [&](int64_t begin, int64_t end) {
        void* d = static_cast<std::byte*>(dst) + begin;
        const void* s = static_cast<const std::byte*>(src) + begin;
        if (streaming) stream_copy(d, s, static_cast<size_t>(end - begin));
        else std::memcpy(d, s, static_cast<size_t>(end - begin));
    });
}

}  // namespace irlite::detail
