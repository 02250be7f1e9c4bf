// Element types: every type OpenVINO defines, with a table of their traits.
//
// The first kNumElementTypes values are the types irlite stores and computes with (tensors,
// kernels, .npy files). The others (sub-byte u1 .. u6, i4, nf4, the f8/f4 types, string, and
// `dynamic`) are valid IR: `check` accepts them and propagates them through the graph, but no
// tensor of them is ever made; running an op on one is refused when the model is compiled.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "irlite/export.hpp"

namespace irlite {

enum class ElementType : uint8_t {
    // Stored and computed by irlite.
    f16, bf16, f32, f64, i8, i16, i32, i64, u8, u16, u32, u64, boolean,
    // Valid IR that irlite does not store (is_storable() is false).
    u1, u2, u3, u4, u6, i4, nf4, f8e4m3, f8e5m2, f4e2m1, f8e8m0, string,
    dynamic,  // OpenVINO's "dynamic" (older spelling "undefined"): any type, decided at run time
};

inline constexpr int kNumElementTypes = 13;     // the storable types, which come first
inline constexpr int kNumAllElementTypes = 26;  // every ElementType value

struct ElementTypeTraits {
    const char* name;       // "f32": the IR's element_type spelling and irlite's own
    const char* precision;  // "FP32": the IR's port precision spelling
    const char* npy_descr;  // "<f4": numpy's dtype.str
    size_t size;            // bytes per element
    bool is_float;
    bool is_signed;         // true for signed integers and floats
    bool is_integral;       // integers only (boolean is not integral)
    int bits;               // bits per element (8 x size for storable types; 0 for string, dynamic)
};

IRLITE_API const ElementTypeTraits& traits(ElementType t);
inline size_t element_size(ElementType t) { return traits(t).size; }
inline const char* to_string(ElementType t) { return traits(t).name; }
inline bool is_float(ElementType t) { return traits(t).is_float; }
inline bool is_integral(ElementType t) { return traits(t).is_integral; }
// True for the types irlite stores (f16 .. boolean); false for sub-byte, f8, string, dynamic.
inline bool is_storable(ElementType t) { return static_cast<int>(t) < kNumElementTypes; }
// The floating-point types irlite stores and computes with: f16, bf16, f32, f64.
inline bool is_storable_float(ElementType t) { return is_storable(t) && is_float(t); }

// The compressed weight types irlite holds packed, as OpenVINO packs them: u4, i4 and the 4-bit
// floats nf4 and f4e2m1 two per byte (element 0 in the low nibble), u1 eight per byte (element 0
// in the most significant bit), the 8-bit floats f8e4m3, f8e5m2 and f8e8m0 one per byte.
// Tensors of them exist (a Const's value, views of it) but only the ops that say so take them:
// Const, Convert (which unpacks them), Reshape, Squeeze and Unsqueeze.
inline bool is_packed(ElementType t) {
    switch (t) {
        case ElementType::u1: case ElementType::u4: case ElementType::i4: case ElementType::nf4:
        case ElementType::f4e2m1: case ElementType::f8e4m3: case ElementType::f8e5m2: case ElementType::f8e8m0:
            return true;
        default:
            return false;
    }
}

// Element i of packed integer data of type t (u1, u4 or i4).
inline int64_t packed_element(const void* data, ElementType t, int64_t i) {
    const auto* bytes = static_cast<const uint8_t*>(data);
    if (t == ElementType::u1) return (bytes[i >> 3] >> (7 - (i & 7))) & 1;
    const unsigned nibble = (bytes[i >> 1] >> ((i & 1) * 4)) & 0xF;
    return t == ElementType::i4 ? static_cast<int64_t>(nibble) - ((nibble & 8) ? 16 : 0) : static_cast<int64_t>(nibble);
}

// The value of `code` (a nibble for nf4 and f4e2m1, a byte for the f8 types) of packed float type
// t: nf4's table of 16 values in [-1, 1]; f4e2m1 (no inf or NaN); f8e4m3 (no inf, NaN = all ones,
// largest 448); f8e5m2 (IEEE-like, with inf); f8e8m0 (2^(code - 127), NaN = 0xFF).
IRLITE_API float packed_float_code(ElementType t, unsigned code);
// Element i of packed data of any packed type, as a double.
IRLITE_API double packed_value(const void* data, ElementType t, int64_t i);

// Parses an element type in either of OpenVINO's spellings: the lower-case name ("f32", "u1",
// "string", "dynamic") or the upper-case port precision ("FP32", "BIN", "STRING", "UNSPECIFIED").
// Every type OpenVINO defines is accepted, storable or not. Throws Error(kind Parse, code
// "unknown-element-type") for anything else; the caller adds the location.
IRLITE_API ElementType parse_element_type(std::string_view text);

// Bytes that `count` elements of type t take in the .bin: sub-byte types are packed (u4: two per
// byte, rounded up). -1 for string and dynamic, whose size is not a function of the count, and
// when the size overflows.
IRLITE_API int64_t packed_byte_size(ElementType t, int64_t count);

// numpy dtype string ("<f4", "|b1", "|u1", ...) -> type. Throws Error(kind Input) when unsupported.
IRLITE_API ElementType element_type_from_npy(std::string_view descr);

// ---- 16-bit floats -------------------------------------------------------------------------
// Storage types for f16 and bf16 so that they can be told apart in templates.
struct float16 {
    uint16_t bits;
};
struct bfloat16 {
    uint16_t bits;
};

IRLITE_API float f16_to_f32(uint16_t bits);
IRLITE_API uint16_t f32_to_f16(float value);  // round to nearest even, overflow to inf, NaN kept
inline float bf16_to_f32(uint16_t bits) {
    uint32_t u = static_cast<uint32_t>(bits) << 16;
    float f;
    __builtin_memcpy(&f, &u, sizeof f);
    return f;
}
IRLITE_API uint16_t f32_to_bf16(float value);  // round to nearest even, NaN kept

// ---- type dispatch ---------------------------------------------------------------------------
// dispatch_type(t, f) calls f(T{}) where T is the C++ storage type of t: float16, bfloat16, float,
// double, int8_t ... uint64_t, and bool for boolean (1 byte). Use it in numeric kernels; data
// movement kernels should work on bytes instead.
template <class F>
decltype(auto) dispatch_type(ElementType t, F&& f) {
    switch (t) {
        case ElementType::f16: return f(float16{});
        case ElementType::bf16: return f(bfloat16{});
        case ElementType::f32: return f(float{});
        case ElementType::f64: return f(double{});
        case ElementType::i8: return f(int8_t{});
        case ElementType::i16: return f(int16_t{});
        case ElementType::i32: return f(int32_t{});
        case ElementType::i64: return f(int64_t{});
        case ElementType::u8: return f(uint8_t{});
        case ElementType::u16: return f(uint16_t{});
        case ElementType::u32: return f(uint32_t{});
        case ElementType::u64: return f(uint64_t{});
        case ElementType::boolean: return f(bool{});
        default: break;  // not storable: the graph builder never lets a kernel see one
    }
    return f(float{});  // unreachable
}

// The ElementType of a C++ storage type.
template <class T>
constexpr ElementType element_type_of();
template <> constexpr ElementType element_type_of<float16>() { return ElementType::f16; }
template <> constexpr ElementType element_type_of<bfloat16>() { return ElementType::bf16; }
template <> constexpr ElementType element_type_of<float>() { return ElementType::f32; }
template <> constexpr ElementType element_type_of<double>() { return ElementType::f64; }
template <> constexpr ElementType element_type_of<int8_t>() { return ElementType::i8; }
template <> constexpr ElementType element_type_of<int16_t>() { return ElementType::i16; }
template <> constexpr ElementType element_type_of<int32_t>() { return ElementType::i32; }
template <> constexpr ElementType element_type_of<int64_t>() { return ElementType::i64; }
template <> constexpr ElementType element_type_of<uint8_t>() { return ElementType::u8; }
template <> constexpr ElementType element_type_of<uint16_t>() { return ElementType::u16; }
template <> constexpr ElementType element_type_of<uint32_t>() { return ElementType::u32; }
template <> constexpr ElementType element_type_of<uint64_t>() { return ElementType::u64; }
template <> constexpr ElementType element_type_of<bool>() { return ElementType::boolean; }

}  // namespace irlite
