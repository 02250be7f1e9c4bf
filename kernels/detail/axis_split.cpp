#include "kernels/detail/axis_split.hpp"

#include <algorithm>
#include <cstring>

#include "kernels/detail/parallel.hpp"

namespace irlite::detail {

std::unique_ptr<AxisSplitPlan> plan_axis_split(const Shape& shape, size_t elem_size, size_t axis,
                                               const std::vector<int64_t>& lengths) {
    auto plan = std::make_unique<AxisSplitPlan>();
    for (size_t d = 0; d < axis; ++d) plan->outer *= shape[d];
    size_t inner_bytes = elem_size;
    for (size_t d = axis + 1; d < shape.size(); ++d) inner_bytes *= static_cast<size_t>(shape[d]);
    plan->slab_bytes = static_cast<size_t>(shape[axis]) * inner_bytes;
    size_t at = 0;
    for (int64_t length : lengths) {
        plan->offset.push_back(at);
        plan->chunk.push_back(static_cast<size_t>(length) * inner_bytes);
        at += plan->chunk.back();
    }
    plan->method = "copy";
    if (plan->outer == 1) {
        for (size_t i = 0; i < lengths.size(); ++i) plan->views.push_back({static_cast<int>(i), 0, plan->offset[i]});
        plan->method = "view";
    }
    return plan;
}

void run_axis_split(const AxisSplitPlan& plan, KernelContext& ctx) {
    const std::byte* data = ctx.input(0).bytes();
    for (size_t i = 0; i < plan.chunk.size() && i < ctx.num_outputs(); ++i)
        IRLITE_CHECK(ctx.output(i).byte_size() == plan.chunk[i] * static_cast<size_t>(plan.outer), ErrorKind::ShapeRule,
                     "kernel-output-mismatch", "output ", i, " is ", to_string(ctx.output(i).shape()),
                     ", which disagrees with the split");
    const size_t parts = std::min(plan.chunk.size(), ctx.num_outputs());
    if (plan.outer == 1) {  // one run per part
        for (size_t i = 0; i < parts; ++i) parallel_memcpy(ctx.pool(), ctx.output(i).bytes(), data + plan.offset[i], plan.chunk[i]);
        return;
    }
    const int64_t grain = std::max<int64_t>(1, kCopyGrainBytes / std::max<int64_t>(static_cast<int64_t>(plan.slab_bytes), 1));
    const bool streaming = plan.slab_bytes * static_cast<size_t>(plan.outer) >= kStreamingBytes;
    for_chunks(ctx.pool(), plan.outer, grain, [&](int64_t begin, int64_t end) {
        for (size_t i = 0; i < parts; ++i) {
            const size_t chunk = plan.chunk[i];
            if (chunk == 0) continue;
            const std::byte* src = data + plan.offset[i] + static_cast<size_t>(begin) * plan.slab_bytes;
            std::byte* dst = ctx.output(i).bytes() + static_cast<size_t>(begin) * chunk;
            for (int64_t o = begin; o < end; ++o, src += plan.slab_bytes, dst += chunk) {
                if (streaming) stream_copy(dst, src, chunk);
                else std::memcpy(dst, src, chunk);
            }
        }
    });
}

}  // namespace irlite::detail
