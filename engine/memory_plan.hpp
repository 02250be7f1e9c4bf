// The memory plan: where each intermediate buffer of a compiled model lives in one arena, from
// the steps during which it must hold its value. Two buffers share bytes only when their
// lifetimes do not overlap, so an infer request allocates the arena once and reuses it forever.
#pragma once

#include <cstddef>
#include <vector>

namespace irlite {

struct BufferLifetime {
    size_t bytes = 0;
    int first = 0;  // the step that writes it
    int last = 0;   // the last step that reads it (inclusive)
};

struct MemoryPlan {
    std::vector<size_t> offsets;  // per buffer, a multiple of the alignment
    size_t arena_bytes = 0;
};

// Linear scan in step order with a best-fit free list (adjacent free blocks merge; the arena grows
// at its end only when no free block fits): O(n log n), so that a 100k-layer model plans as fast
// as it parses, and within a few percent of greedy-by-size on CNNs.
MemoryPlan plan_memory(const std::vector<BufferLifetime>& buffers, size_t alignment = 64);

}  // namespace irlite
