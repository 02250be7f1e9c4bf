#include "engine/compile_passes.hpp"

#include "engine/fusion.hpp"
#include "engine/level_tensors.hpp"
#include "engine/low_precision.hpp"
#include "engine/precision.hpp"
#include "engine/weight_compression.hpp"

namespace irlite {

std::shared_ptr<const Graph> run_compile_passes(std::shared_ptr<const Graph> graph, const CompilePasses& passes,
                                                const OpRegistry& registry) {
    if (passes.compute_in_f32) graph = compute_in_f32(std::move(graph), registry);
    if (passes.int8) graph = compress_weights(quantize_graph(std::move(graph)));
    if (passes.fusion) graph = fuse_graph(std::move(graph));
    if (passes.int8 && passes.level_tensors) graph = use_level_tensors(std::move(graph));
    return graph;
}

}  // namespace irlite
