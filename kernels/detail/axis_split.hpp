// Split and VariadicSplit: cutting a tensor along one axis into consecutive parts. Planned once:
// each part is `outer` chunks of bytes, one per slab of the dims before the axis. When those dims
// are all 1 every part is one run of the input's bytes, and the executor makes it a view.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/op.hpp"

namespace irlite::detail {

struct AxisSplitPlan : OpPlan {
    int64_t outer = 1;           // slabs before the axis
    size_t slab_bytes = 0;       // bytes of one slab of the input
    std::vector<size_t> offset;  // per part: where it starts within a slab
    std::vector<size_t> chunk;   // per part: its bytes within a slab
};

// `lengths` are the parts' lengths along `axis` (already validated to sum to the dim).
std::unique_ptr<AxisSplitPlan> plan_axis_split(const Shape& shape, size_t elem_size, size_t axis,
                                               const std::vector<int64_t>& lengths);
void run_axis_split(const AxisSplitPlan& plan, KernelContext& ctx);

}  // namespace irlite::detail
