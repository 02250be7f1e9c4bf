// The weight-compression pass, at compile time, after the low-precision pass and before fusion: a
// linear layer whose weights are NNCF's compressed form (optimum-intel's int4/int8 exports) reads
// them compressed, unpacking them inside its kernel, instead of running the decompression
// subgraph into an f32 copy of the weights on every inference. README: Compressed weights.
//
// A node takes part when its op accepts compressed weights (OpDef::with_compressed_weights: a
// MatMul with transpose_b and A not transposed) and its input 1 is, walking up through float
// Converts and element-order-keeping reshapes (OpDef::is_convert, keeps_element_order):
//
//   Multiply(scale) <- [Subtract(zero point)] <- Convert <- Const of u4, i4, u8 or i8
//
// with the scale and the zero point constants (or a Convert of one) that vary along the leading
// axes of the weights and are constant over a trailing block (per channel: [N, 1]; per group:
// [N, K / G, 1] on [N, K / G, G] weights), the block within one row. The node then takes the
// integer Const as input 1 and the rest of the subgraph is dropped when nothing else reads it.
#pragma once

#include <memory>

#include "engine/graph.hpp"

namespace irlite {

// The graph with compressed-weight layers; the same graph when nothing qualifies. The input is
// not modified.
std::shared_ptr<const Graph> compress_weights(std::shared_ptr<const Graph> graph);

}  // namespace irlite
