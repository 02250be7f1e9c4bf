// The compile passes a built graph goes through before it is planned, in order: inference
// precision (f16/bf16 computed in f32, engine/precision.hpp), low precision (int8 layers from
// FakeQuantize, engine/low_precision.hpp) with weight compression (engine/weight_compression.hpp),
// then fusion (engine/fusion.hpp), then u8 level tensors between int8 layers
// (engine/level_tensors.hpp). A model's graph gets them from its CompileOptions; a sub-graph
// body (TensorIterator, Loop, If) gets the same ones when its plan is made, so that a body
// computes as the graph around it does.
#pragma once

#include <memory>

#include "engine/graph.hpp"

namespace irlite {

// Which passes run. The defaults are CompileOptions' (precision F32, int8 on, fusion on, no
// keep_intermediates).
struct CompilePasses {
    bool compute_in_f32 = true;
    bool int8 = true;
    bool fusion = true;
    bool level_tensors = true;  // with int8 only

    bool operator==(const CompilePasses& o) const {
        return compute_in_f32 == o.compute_in_f32 && int8 == o.int8 && fusion == o.fusion &&
               level_tensors == o.level_tensors;
    }
    bool operator!=(const CompilePasses& o) const { return !(*this == o); }
};

// The graph after the passes (the input is not modified). Callers first give its sub-graph layers
// the same passes for their bodies (with_body_passes, engine/subgraph.hpp).
std::shared_ptr<const Graph> run_compile_passes(std::shared_ptr<const Graph> graph, const CompilePasses& passes,
                                                const OpRegistry& registry);

}  // namespace irlite
