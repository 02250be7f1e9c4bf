// .npy files: numpy's array format, versions 1.0, 2.0 and 3.0 (header length u16 for 1.0, u32 for
// 2.0/3.0; the 3.0 header is UTF-8), little-endian, C or Fortran order (Fortran-order data is
// reordered to C order on reading; files are always written in C order).
//
// Supported dtypes: <f2 <f4 <f8 |i1 <i2 <i4 <i8 |u1 <u2 <u4 <u8 |b1 (through element_type_from_npy;
// '=' native order is accepted as little-endian). The header dict is parsed as a Python literal:
// keys in any order, any spacing, trailing commas, shapes (), (5,), (2, 3), (2,3,).
//
// Errors while reading are Error(kind Input) whose message starts with the file name:
//   npy-malformed            bad magic, header or shape, or a data size other than shape x itemsize
//                            (the file is truncated or has trailing bytes; overflow is checked first)
//   npy-unsupported-version  a format version other than 1.0, 2.0, 3.0
//   npy-unsupported-dtype    big-endian, structured or unknown dtypes
// plus Error(kind Io, "npy-unreadable") when read_npy cannot read the file, and Error(kind Limit)
// when the data exceeds max_tensor_bytes().
//
// Project decision: numpy has no bfloat16, so there is no "read as bf16". Callers convert with the
// two helpers at the end: a bf16 Parameter accepts an f32 .npy (convert_f32_to_bf16), and a bf16
// output is written as f32 (convert_bf16_to_f32).
#pragma once

#include <cstddef>
#include <string>

#include "irlite/tensor.hpp"

namespace irlite {

// Parses .npy bytes into a tensor with its own buffer. Bool values are normalised to 0/1.
Tensor parse_npy(const void* bytes, size_t size, const std::string& name_for_messages);
// Reads a .npy file straight into a tensor-owned buffer; the file size bounds every allocation.
Tensor read_npy(const std::string& path);

// Format 1.0 (2.0 only if the header outgrows a u16), numpy's header layout:
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } padded with spaces and a '\n' so that
// the data starts at a multiple of 64 bytes. bool is '|b1', a scalar's shape is ().
// Throws Error(kind Unsupported, "npy-unsupported-dtype") for bf16.
std::string encode_npy(const Tensor& t);
// Writes atomically: a temporary file in the same directory, fsync, rename. On any failure the
// temporary file is removed and Error(kind Io, "output-unwritable") is thrown; nothing
// half-written is left, and an existing file at `path` is untouched.
void write_npy(const std::string& path, const Tensor& t);
// The same for any bytes (`run --dump`'s index.json).
void write_file_atomically(const std::string& path, const std::string& bytes);

// Element-wise f32 -> bf16 (round to nearest even) and bf16 -> f32 (exact), same shape.
// Throw Error(kind Usage, "convert-wrong-type") when the input is not of the source type.
Tensor convert_f32_to_bf16(const Tensor& t);
Tensor convert_bf16_to_f32(const Tensor& t);

}  // namespace irlite
