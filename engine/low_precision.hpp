// The low-precision pass, at compile time, after the precision pass and before fusion: a layer
// whose data input is quantized by a FakeQuantize and whose weights are integers times a scale
// runs in int8 (u8 activations x s8 weights, exact int32 sums), as OpenVINO's low-precision
// transformations make POT/NNCF models run. README: INT8.
//
// A node takes part when, all at compile time:
//   - its op accepts this quantized input (OpDef::with_quantized_input: a 2-D Convolution of depth
//     Cin * kH * kW below 2^16; a MatMul of constant 2-D weights, A not transposed);
//   - its data input is output 0 of a live FakeQuantize (OpDef::quantization_levels) with 2..256
//     levels over f32 data, whose four ranges are constant scalars with in_low < in_high and
//     out_low < out_high, and whose output range holds 0 (its level, -out_low / out_step, may
//     lie between two levels: engine/quantized_input.hpp);
//   - its weights are a constant f32 tensor, folded at load time, that is integers in [-128, 127]
//     times a scale (one value, or one per output channel along axis 0) to a tenth of a step (f16
//     rounding, for FP16-INT8 models that dequantize in f16), the scale read off what made them:
//     a Multiply (OpDef::is_multiply) of integers by the scale (NNCF's and POT's i8 Const ->
//     Convert [-> Subtract] -> Multiply), or a FakeQuantize whose output range per channel sets the
//     step, with a level for 0 (older POT's u8 Const -> Convert -> FakeQuantize, levels 255).
// The node then reads the FakeQuantize's input and quantizes it itself; the FakeQuantize stays
// for its other consumers and is dropped when none is left. Anything else keeps running in float.
#pragma once

#include <memory>
#include <optional>

#include "engine/graph.hpp"
#include "engine/quantized_input.hpp"

namespace irlite {

// The graph with int8 layers; the same graph when nothing qualifies. The input is not modified.
std::shared_ptr<const Graph> quantize_graph(std::shared_ptr<const Graph> graph);

// The quantizer of `fq` (a live FakeQuantize over f32 data) as the int8 kernels apply it: 2..256
// levels, constant scalar ranges in order, 0 inside the output range; nothing otherwise.
std::optional<QuantizedInput> activation_quantizer(const Graph& g, const Node& fq);

}  // namespace irlite
