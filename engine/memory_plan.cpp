#include "engine/memory_plan.hpp"

#include <algorithm>
#include <functional>
#include <iterator>
#include <map>
#include <numeric>
#include <queue>
#include <utility>

namespace irlite {

namespace {

// Free byte ranges of the arena, by offset; neighbours are merged on release.
class FreeList {
public:
    // The smallest free block that holds `bytes`, taken from its start; or the arena's end.
    size_t take(size_t bytes, size_t& arena_end) {
        auto best = free_.end();
        for (auto it = free_.begin(); it != free_.end(); ++it)
            if (it->second >= bytes && (best == free_.end() || it->second < best->second)) best = it;
        if (best != free_.end()) {
            const size_t offset = best->first, left = best->second - bytes;
            free_.erase(best);
            if (left) free_.emplace(offset + bytes, left);
            return offset;
        }
        // A free block at the very end of the arena is extended rather than wasted.
        if (!free_.empty()) {
            auto last = std::prev(free_.end());
            if (last->first + last->second == arena_end) {
                const size_t offset = last->first;
                free_.erase(last);
                arena_end = offset + bytes;
                return offset;
            }
        }
        const size_t offset = arena_end;
        arena_end += bytes;
        return offset;
    }

    void give_back(size_t offset, size_t bytes) {
        auto next = free_.lower_bound(offset);
        if (next != free_.end() && offset + bytes == next->first) {
            bytes += next->second;
            next = free_.erase(next);
        }
        if (next != free_.begin()) {
            auto prev = std::prev(next);
            if (prev->first + prev->second == offset) {
                prev->second += bytes;
                return;
            }
        }
        free_.emplace(offset, bytes);
    }

private:
    std::map<size_t, size_t> free_;
};

}  // namespace

MemoryPlan plan_memory(const std::vector<BufferLifetime>& buffers, size_t alignment) {
    MemoryPlan plan;
    plan.offsets.assign(buffers.size(), 0);
    std::vector<size_t> order(buffers.size());
    std::iota(order.begin(), order.end(), size_t{0});
    // By first step; among buffers born together, larger first (they are the hardest to fit).
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        if (buffers[a].first != buffers[b].first) return buffers[a].first < buffers[b].first;
        return buffers[a].bytes > buffers[b].bytes;
    });
    const auto rounded = [&](size_t bytes) { return std::max<size_t>((bytes + alignment - 1) / alignment * alignment, alignment); };
    using Death = std::pair<int, size_t>;  // (last step, buffer)
    std::priority_queue<Death, std::vector<Death>, std::greater<Death>> live;
    FreeList free_list;
    size_t arena_end = 0;
    for (size_t b : order) {
        // Buffers whose last reader ran before this one is written are free again.
        while (!live.empty() && live.top().first < buffers[b].first) {
            const size_t dead = live.top().second;
            live.pop();
            free_list.give_back(plan.offsets[dead], rounded(buffers[dead].bytes));
        }
        plan.offsets[b] = free_list.take(rounded(buffers[b].bytes), arena_end);
        live.emplace(buffers[b].last, b);
    }
    plan.arena_bytes = arena_end;
    return plan;
}

}  // namespace irlite
