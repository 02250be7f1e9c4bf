// Inference precision, at compile time, before fusion: an f16 (or bf16) graph is compiled to
// compute in f32, as OpenVINO's CPU plugin does on CPUs without fast f16 arithmetic. FP16 IR
// (Model Optimizer's --data_type FP16, most Open Model Zoo downloads) then runs on the f32
// kernels, with their packed weights, fusion and threads, instead of on generic f16 loops.
//
// The rule (README: Precision):
//   - Consts and folded values of f16/bf16 become f32 once, here (the conversion is exact);
//   - every other op takes its float inputs in f32 and makes f32 where it made f16/bf16;
//   - conversions stay at the boundary: an f16 Parameter is converted once on entry, and an f16
//     Result converted back once on exit, so the caller sees the types the file declares;
//   - where the f16 result is part of an op's meaning, the op keeps computing in the declared
//     type between conversions: an op that turns f16 values into no float at all (Convert to an
//     integer or boolean, comparisons, IsNaN, NonMaxSuppression's indices, ...) reads its inputs
//     rounded to f16, and an op whose output type is set by an attribute (Convert to f16, Range
//     with output_type f16) still rounds to it; stateful ops (ReadValue, Assign) keep the
//     variable's declared type; an op that refuses f32 inputs for a reason of its own keeps them.
// The conversions are ordinary Convert nodes that the pass adds, named `<layer>/to_f32` and
// `<layer>/to_f16` after the layer whose value they convert (Graph::added_layers).
#pragma once

#include <memory>
#include <string_view>

#include "engine/graph.hpp"

namespace irlite {

// The graph computing in f32 wherever the rule above allows; the same graph when it has no f16 or
// bf16 value. The input is not modified. Needs the registry's Convert-1 (unchanged without it).
std::shared_ptr<const Graph> compute_in_f32(std::shared_ptr<const Graph> graph, const OpRegistry& registry);

// Whether a live node of the graph makes an f16 or bf16 value (what compute_in_f32 changes).
bool has_half_values(const Graph& graph);

// The element type a node computes in, for `info` and profiles: the type of its first float
// output, else of its first float input; "-" when it handles no float value (shapes, indices).
std::string_view node_precision(const Graph& graph, const Node& node);

// A node the precision pass added (a conversion), rather than a layer of the file; the same for a
// layer (a fused node's).
bool node_is_added(const Graph& graph, const Node& node);
bool layer_is_added(const Graph& graph, const IrLayer* layer);

}  // namespace irlite
