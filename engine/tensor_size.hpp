// What a tensor of a given type and static shape occupies, and the limit every tensor irlite makes
// must keep. One function for the graph builder (an op's output inferred at load time), the
// execution plan and Tensor's own allocation, so that `irlite check`, compiling and allocating
// refuse the same tensors with the same codes.
#pragma once

#include <cstddef>

#include "irlite/element_type.hpp"
#include "irlite/shape.hpp"

namespace irlite {

// Bytes a tensor of `type` and `shape` takes: packed sub-byte types packed as OpenVINO packs them
// (u4: two per byte, rounded up), 0 for string and dynamic, whose size the shape does not give.
// Throws Error(Limit, "size-overflow") when the element count or the byte size does not fit in
// 64 bits (a u4 tensor of 2^62 elements: 2^64 bits).
size_t tensor_storage_bytes(ElementType type, const Shape& shape);

// Throws Error(Limit, "size-overflow") as above, or Error(Limit, "tensor-too-large") when the
// tensor needs more than max_tensor_bytes(). The message names `output` when it is >= 0. Nothing
// is allocated unless it throws: the graph builder calls it for every output of every node.
void check_tensor_fits(ElementType type, const Shape& shape, int output = -1);

}  // namespace irlite
