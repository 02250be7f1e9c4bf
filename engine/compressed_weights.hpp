// What the weight-compression pass (engine/weight_compression.hpp) hands to an op whose kernel
// reads compressed weights itself (OpDef::with_compressed_weights): the weights of a linear layer
// as NNCF's weight compression writes them, kept in their stored integers. Typed data only (no
// XML); the op's prepare step turns it into its plan.
//
// Weight w[n][k] of the [rows, depth] matrix (B of a MatMul with transpose_b: n the output
// column, k the depth) is
//
//   w[n][k] = (q[n][k] - zero[n][g]) * scale[n][g]      g = k / group
//
// q the stored integer (u4 0..15, i4 -8..7, u8, i8), zero empty for a symmetric format (0).
#pragma once

#include <cstdint>
#include <vector>

namespace irlite {

struct CompressedWeights {
    enum class Format : uint8_t { U4, I4, U8, I8 };
    Format format = Format::U4;
    int64_t rows = 0, depth = 0, group = 0;  // group divides depth
    // q, row-major [rows][depth]; u4/i4 two per byte, element 0 in the low nibble (OpenVINO's
    // packing; depth is even so that every row starts on a byte).
    std::vector<uint8_t> data;
    std::vector<float> scale;  // [rows][depth / group]
    std::vector<float> zero;   // the same, or empty
    int64_t groups() const { return depth / group; }
    bool four_bit() const { return format == Format::U4 || format == Format::I4; }
};

}  // namespace irlite
