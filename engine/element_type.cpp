#include "engine/element_type.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "engine/error.hpp"

namespace irlite {
namespace {

// Indexed by ElementType.
constexpr ElementTypeTraits kTraits[kNumElementTypes] = {
    {"f16", "FP16", "<f2", 2, true, true, false},
    {"bf16", "BF16", "", 2, true, true, false},  // numpy has no bf16
    {"f32", "FP32", "<f4", 4, true, true, false},
    {"f64", "FP64", "<f8", 8, true, true, false},
    {"i8", "I8", "|i1", 1, false, true, true},
    {"i16", "I16", "<i2", 2, false, true, true},
    {"i32", "I32", "<i4", 4, false, true, true},
    {"i64", "I64", "<i8", 8, false, true, true},
    {"u8", "U8", "|u1", 1, false, false, true},
    {"u16", "U16", "<u2", 2, false, false, true},
    {"u32", "U32", "<u4", 4, false, false, true},
    {"u64", "U64", "<u8", 8, false, false, true},
    {"boolean", "BOOL", "|b1", 1, false, false, false},
};

// Real OpenVINO element types that irlite recognises but cannot store.
constexpr const char* kUnsupportedTypes[] = {
    "u1", "bin", "u2", "u3", "u4", "u6", "i4", "nf4", "f8e4m3", "f8e5m2", "f4e2m1", "f8e8m0",
    "f8e4m3fnuz", "f8e5m2fnuz", "f6e2m3", "f6e3m2", "e8m0", "string", "undefined", "unspecified",
    "dynamic"};

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

}  // namespace

const ElementTypeTraits& traits(ElementType t) { return kTraits[static_cast<int>(t)]; }

ElementType parse_element_type(std::string_view text) {
    // OpenVINO accepts the lower-case names and the upper-case precision names, not mixed case
    // (so "bool" and "Fp32" are errors there too).
    for (int i = 0; i < kNumElementTypes; ++i) {
        if (text == kTraits[i].name || text == kTraits[i].precision) return static_cast<ElementType>(i);
    }
    const std::string low = lower(text);
    for (const char* name : kUnsupportedTypes) {
        if (low == name) {
            throw Error(ErrorKind::Unsupported, "unsupported-element-type",
                        str("element type '", text, "' is not supported by irlite (supported: ",
                            "f16, bf16, f32, f64, i8, i16, i32, i64, u8, u16, u32, u64, boolean)"));
        }
    }
    throw Error(ErrorKind::Parse, "unknown-element-type",
                str("unknown element type '", text, "' (expected one of f16, bf16, f32, f64, i8, ",
                    "i16, i32, i64, u8, u16, u32, u64, boolean, or FP16, FP32, I64, BOOL, ...)"));
}

ElementType element_type_from_npy(std::string_view descr) {
    // numpy writes '|' for 1-byte types and '<' for little-endian; '=' means native (little here).
    std::string d(descr);
    if (d.size() >= 2 && d[0] == '=') d[0] = (d.size() == 3 && d[2] == '1') ? '|' : '<';
    if (d.size() == 3 && d[2] == '1' && d[0] == '<') d[0] = '|';
    for (int i = 0; i < kNumElementTypes; ++i) {
        if (kTraits[i].npy_descr[0] != '\0' && d == kTraits[i].npy_descr) return static_cast<ElementType>(i);
    }
    if (!d.empty() && d[0] == '>')
        throw Error(ErrorKind::Input, "npy-unsupported-dtype",
                    str("big-endian .npy data ('", descr, "') is not supported; save it little-endian"));
    throw Error(ErrorKind::Input, "npy-unsupported-dtype",
                str(".npy dtype '", descr, "' is not supported (supported: <f2 <f4 <f8 |i1 <i2 <i4 <i8 ",
                    "|u1 <u2 <u4 <u8 |b1)"));
}

float f16_to_f32(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    uint32_t bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (mant << 13);  // inf / NaN
    } else if (exp != 0) {
        bits = sign | ((exp + 112u) << 23) | (mant << 13);
    } else if (mant == 0) {
        bits = sign;  // +-0
    } else {
        // Subnormal half: normalise.
        int e = -1;
        do {
            ++e;
            mant <<= 1;
        } while ((mant & 0x400u) == 0);
        bits = sign | (static_cast<uint32_t>(112 - e) << 23) | ((mant & 0x3ffu) << 13);
    }
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

uint16_t f32_to_f16(float value) {
    uint32_t x;
    std::memcpy(&x, &value, sizeof x);
    const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
    const uint32_t abs = x & 0x7fffffffu;
    if (abs >= 0x7f800000u) {  // inf or NaN
        return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
    }
    if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to inf
    if (abs < 0x38800000u) {                                               // subnormal or zero
        if (abs < 0x33000000u) return sign;                                // rounds to 0
        const uint32_t e = abs >> 23;
        const uint32_t m = (abs & 0x7fffffu) | 0x800000u;
        const uint32_t shift = 126u - e;  // 14..24
        uint32_t half = m >> shift;
        const uint32_t rem = m & ((1u << shift) - 1u);
        const uint32_t mid = 1u << (shift - 1u);
        if (rem > mid || (rem == mid && (half & 1u))) ++half;
        return static_cast<uint16_t>(sign | half);
    }
    uint32_t h = ((abs >> 13) - (112u << 10));
    const uint32_t rem = abs & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
    return static_cast<uint16_t>(sign | h);
}

uint16_t f32_to_bf16(float value) {
    uint32_t x;
    std::memcpy(&x, &value, sizeof x);
    if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet NaN
    const uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
    return static_cast<uint16_t>((x + rounding) >> 16);
}

}  // namespace irlite
