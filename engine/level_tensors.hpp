// The level pass, at compile time, after low precision and fusion: the tensor between two int8
// layers becomes the levels themselves (u8) instead of floats, a quarter of the bytes to write and
// read, and the reading layers no longer quantize it (README: INT8).
//
// A node's output 0 becomes levels when, all at compile time:
//   - the node is an int8 layer whose kernel writes levels (OpDef::quantized_input_of: an int8
//     Convolution), with a static f32 output;
//   - every live reader of that output is such a layer too, reads it as its data input (input 0)
//     and nowhere else, and all of them quantize it with one quantizer (the same input range and
//     number of levels). A model output has a Result as a reader, so it stays f32.
//   - or a reader is an op whose output's elements are its inputs' (OpDef::passes_levels: Concat,
//     MaxPool whose indices nothing reads), whose own readers meet the same rule and whose every
//     input is such an int8 layer (or such an op) too: all of them write levels under the end
//     readers' quantizer. The quantizer's level is non-decreasing in its input (in_low < in_high),
//     so the max of the levels is the level of the max, and a window with no data (the type's
//     lowest value) is level 0 either way. Such a region is closed over readers and inputs, so it
//     is found once whichever of its layers it is grown from (linear in the graph), and a layer
//     can both read it and write into it.
// The producer then writes, after its epilogue, the levels its readers would have computed, by the
// same formula (kernels/detail/quantize_levels.hpp): the results are bit for bit those of the f32
// tensor. Compiling with keep_intermediates skips the pass, so that every layer's output stays
// what the layer computes.
#pragma once

#include <memory>

#include "engine/graph.hpp"

namespace irlite {

// The graph with level tensors; the same graph when nothing qualifies. The input is not modified.
std::shared_ptr<const Graph> use_level_tensors(std::shared_ptr<const Graph> graph);

}  // namespace irlite
