// The model's weights (.bin): memory-mapped from a file, or viewed in memory the caller owns.
// Const tensors are zero-copy views into the blob.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "engine/ir_document.hpp"

namespace irlite {

// Maps `path` read-only. A 0-byte file is legal (data null, size 0). Throws Error(kind Io,
// code "bin-unreadable") naming the path and the system's reason when it cannot be opened or mapped.
std::shared_ptr<WeightsBlob> map_weights_file(const std::string& path);

// A zero-copy view of memory kept alive by `owner` (which may be null when the caller guarantees
// the lifetime).
std::shared_ptr<WeightsBlob> weights_from_memory(const void* data, size_t size, std::shared_ptr<const void> owner);

// Takes ownership of `bytes`.
std::shared_ptr<WeightsBlob> weights_from_memory(std::vector<std::byte> bytes);

}  // namespace irlite
