// What TensorIterator-1 and Loop-5 share: the body's Parameters fed from the layer's inputs
// (sliced, invariant, or merged with a back edge), iterations run on one compiled body, and the
// outputs (the last iteration's value, or every iteration's concatenated along an axis).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/op.hpp"
#include "engine/subgraph.hpp"

namespace irlite {

// How an iteration reads a sliced input: elements [offset(i), offset(i) + part) along `axis`.
struct SliceRule {
    size_t axis = 0;
    int64_t first = 0;  // TensorIterator: the first part's offset
    int64_t step = 1;   // offset(i) = first + i * step
    int64_t part = 1;
};

// The body Parameters' types and shapes, from the layer's inputs as the shape rule (or the kernel)
// sees them. `slices` per input entry (ignored for entries without an axis).
std::vector<OutputInfo> body_parameters(const SubgraphAttrs& attrs, const std::vector<PartialShape>& shapes,
                                        const std::vector<ElementType>& types, const std::vector<SliceRule>& slices);

// The layer's outputs from the built body: last values, and concatenations of `iterations`
// (kDynamic: unknown) parts.
std::vector<OutputInfo> iteration_outputs(const SubgraphAttrs& attrs, const BuiltBody& built, int64_t iterations);

// An Error located at a port map entry, as InferContext errors are located at input ports.
Error entry_error(const PortMapEntry& e, ErrorKind kind, std::string code, std::string message);

// What TensorIterator and Loop decide once the layer's input shapes are static: the body built
// and planned for them, how each sliced input is cut, and the iteration count when it is known
// then (a TensorIterator's always; a Loop's when constants settle it). With every output's shape
// static (OpPlan::writes_outputs), the kernel writes each iteration's part straight into them.
struct IterationPlan : OpPlan {
    std::shared_ptr<const BuiltBody> built;
    std::vector<SliceRule> slices;  // per input entry
    std::vector<bool> slice_views;  // per input entry: its parts are contiguous, the body reads views
    int64_t iterations = kDynamic;
};

// Fills in the rest of `plan` (built, slices and iterations set): which slices are views, and
// whether the outputs are written in place.
void finish_iteration_plan(const InferContext& ctx, const SubgraphAttrs& attrs, IterationPlan& plan);

struct IterationLimits {
    int64_t max_iterations = -1;  // -1: no limit but kMaxIterations
    bool initial_condition = true;
    bool use_condition = false;  // read the body's execution condition after each iteration
};

// Runs the iterations and writes (or makes) the kernel's outputs. The body runner and the buffers
// live in the node's OpState (KernelContext::state): made on the first run, reused after.
void run_iterations(KernelContext& ctx, const SubgraphAttrs& attrs, const IterationPlan& plan,
                    const IterationLimits& limits);

}  // namespace irlite
