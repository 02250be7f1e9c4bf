// A kernel's inputs seen the way its shape rule sees them (every value known), so that a kernel
// can reuse the validation and planning code of its rule instead of repeating it (OpenVINO core's
// "shape rules as free functions that the compute path reuses").
#pragma once

#include <vector>

#include "engine/op.hpp"

namespace irlite::detail {

inline InferContext rule_context(const KernelContext& ctx) {
    std::vector<InferContext::Input> inputs;
    inputs.reserve(ctx.num_inputs());
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
        const Tensor& t = ctx.input(i);
        inputs.push_back({t.type(), PartialShape(t.shape()), &t});
    }
    return InferContext(ctx.def(), ctx.attrs<OpAttrs>(), std::move(inputs), static_cast<int>(ctx.num_outputs()));
}

}  // namespace irlite::detail
