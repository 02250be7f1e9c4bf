// .npy files: numpy's array format, versions 1.0, 2.0 and 3.0, little-endian, C order.
// Supported dtypes: <f2 <f4 <f8 |i1 <i2 <i4 <i8 |u1 <u2 <u4 <u8 |b1. Every error is
// Error(kind Input) whose message starts with the file name.
//
// numpy has no bfloat16: callers convert (a bf16 input is given as f32; a bf16 output is written as
// f32) with the two helpers below.
#pragma once

#include <string>

#include "engine/tensor.hpp"

namespace irlite {

// Parses .npy bytes into a tensor with its own buffer.
Tensor parse_npy(const void* bytes, size_t size, const std::string& name_for_messages);
// Reads a .npy file (Io error when it cannot be read).
Tensor read_npy(const std::string& path);

// Format 1.0 (2.0 when the header needs it), header padded so that data starts at a multiple of 64.
std::string encode_npy(const Tensor& t);
// Writes atomically: a temporary file in the same directory, fsync, rename. On failure the
// temporary file is removed and Error(kind Io) is thrown; nothing half-written is left.
void write_npy(const std::string& path, const Tensor& t);

Tensor convert_f32_to_bf16(const Tensor& t);
Tensor convert_bf16_to_f32(const Tensor& t);

}  // namespace irlite
