// Graph fusion, at compile time, before the execution plan: an op whose kernel accepts an epilogue
// (OpDef::with_epilogue: Convolution, GroupConvolution, MatMul) absorbs the elementwise ops that
// follow it (engine/epilogue.hpp), in this order, each optional:
//
//   head -> Add(constant bias: a scalar, or per channel along the op's channel axis)
//        -> Add(residual: any tensor of the output's shape)
//        -> activation (an op with OpDef::as_activation: ReLU, Clamp, Sigmoid, Swish, ...)
//        -> FakeQuantize with scalar constant ranges (OpDef::as_fake_quantize), only into a head
//           whose kernel applies it (OpDef::takes_fake_quantize: an int8 Convolution)
//
// e.g. Convolution + Add + ReLU (CNNs), Convolution + Add + Add + ReLU (ResNet's residual block),
// GroupConvolution + Add + Clamp (MobileNet's ReLU6), MatMul + Add (a linear layer).
//
// A chain only grows through a value that has exactly one consumer, is not a model output, and
// keeps the head's shape and type (f32); every node involved has static shapes. The fused node
// takes the place of the chain's last node (same output, same layer, so Results and consumers are
// unchanged) and runs the head's op with the head's inputs, plus the residual when there is one;
// the head and the nodes in between are no longer live. Ops are recognised only through their
// OpDef hooks, never by name.
#pragma once

#include <memory>
#include <string>

#include "engine/graph.hpp"

namespace irlite {

// The graph with fusion applied; the same graph when nothing fuses. The input is not modified.
std::shared_ptr<const Graph> fuse_graph(std::shared_ptr<const Graph> graph);

// The node's op type as profiles and `irlite info` show it: "Convolution+Add+ReLU" for a fused
// node, the layer's type otherwise.
std::string node_type_name(const Node& node);
// The name of the layer whose op runs (the head of a fused node).
std::string_view node_display_name(const Node& node);

}  // namespace irlite
