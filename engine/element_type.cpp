#include "irlite/element_type.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <string_view>
#include <vector>

#include "irlite/error.hpp"

namespace irlite {
namespace {

// Indexed by ElementType.
constexpr ElementTypeTraits kTraits[kNumAllElementTypes] = {
    {"f16", "FP16", "<f2", 2, true, true, false, 16},
    {"bf16", "BF16", "", 2, true, true, false, 16},  // numpy has no bf16
    {"f32", "FP32", "<f4", 4, true, true, false, 32},
    {"f64", "FP64", "<f8", 8, true, true, false, 64},
    {"i8", "I8", "|i1", 1, false, true, true, 8},
    {"i16", "I16", "<i2", 2, false, true, true, 16},
    {"i32", "I32", "<i4", 4, false, true, true, 32},
    {"i64", "I64", "<i8", 8, false, true, true, 64},
    {"u8", "U8", "|u1", 1, false, false, true, 8},
    {"u16", "U16", "<u2", 2, false, false, true, 16},
    {"u32", "U32", "<u4", 4, false, false, true, 32},
    {"u64", "U64", "<u8", 8, false, false, true, 64},
    {"boolean", "BOOL", "|b1", 1, false, false, false, 8},
    // Not storable: size 0, so that nothing can allocate them by mistake.
    {"u1", "U1", "", 0, false, false, true, 1},
    {"u2", "U2", "", 0, false, false, true, 2},
    {"u3", "U3", "", 0, false, false, true, 3},
    {"u4", "U4", "", 0, false, false, true, 4},
    {"u6", "U6", "", 0, false, false, true, 6},
    {"i4", "I4", "", 0, false, true, true, 4},
    {"nf4", "NF4", "", 0, true, true, false, 4},
    {"f8e4m3", "F8E4M3", "", 0, true, true, false, 8},
    {"f8e5m2", "F8E5M2", "", 0, true, true, false, 8},
    {"f4e2m1", "F4E2M1", "", 0, true, true, false, 4},
    {"f8e8m0", "F8E8M0", "", 0, true, false, false, 8},
    {"string", "STRING", "", 0, false, false, false, 0},
    {"dynamic", "DYNAMIC", "", 0, false, false, false, 0},
};

// Other spellings OpenVINO reads: IR v10 writes u1 as precision "BIN"; "undefined" and
// "UNSPECIFIED" are the older names of dynamic.
struct Alias {
    const char* text;
    ElementType type;
};
constexpr Alias kAliases[] = {
    {"BIN", ElementType::u1},
    {"undefined", ElementType::dynamic},
    {"UNSPECIFIED", ElementType::dynamic},
    {"UNDEFINED", ElementType::dynamic},
};

}  // namespace

const ElementTypeTraits& traits(ElementType t) { return kTraits[static_cast<int>(t)]; }

ElementType parse_element_type(std::string_view text) {
    // OpenVINO accepts the lower-case names and the upper-case precision names, not mixed case
    // (so "bool" and "Fp32" are errors there too). Every spelling as a string_view, made once: the
    // lengths compare first, and a large model parses a precision for every port.
    struct Spelling {
        std::string_view text;
        ElementType type;
    };
    static const std::vector<Spelling> spellings = [] {
        std::vector<Spelling> all;
        for (int i = 0; i < kNumAllElementTypes; ++i) all.push_back({kTraits[i].name, static_cast<ElementType>(i)});
        for (int i = 0; i < kNumAllElementTypes; ++i)
            all.push_back({kTraits[i].precision, static_cast<ElementType>(i)});
        for (const Alias& a : kAliases) all.push_back({a.text, a.type});
        return all;
    }();
    for (const Spelling& s : spellings)
        if (s.text == text) return s.type;
    throw Error(ErrorKind::Parse, "unknown-element-type",
                str("unknown element type '", text, "' (expected one of f16, bf16, f32, f64, i8, i16, i32, i64, u8, ",
                    "u16, u32, u64, boolean, u1, u2, u3, u4, u6, i4, nf4, f8e4m3, f8e5m2, f4e2m1, f8e8m0, string, ",
                    "dynamic, or the precisions FP16, FP32, I64, BOOL, BIN, ...)"));
}

float packed_float_code(ElementType t, unsigned code) {
    // NF4: the 16 quantiles of a normal distribution, scaled to [-1, 1] (QLoRA's table, which
    // OpenVINO uses).
    static const float kNf4[16] = {-1.0f, -0.6961928009986877f, -0.5250730514526367f, -0.39491748809814453f,
                                   -0.28444138169288635f, -0.18477343022823334f, -0.09105003625154495f, 0.0f,
                                   0.07958029955625534f, 0.16093020141124725f, 0.24611230194568634f,
                                   0.33791524171829224f, 0.44070982933044434f, 0.5626170039176941f,
                                   0.7229568362236023f, 1.0f};
    const auto with_sign = [](bool negative, float v) { return negative ? -v : v; };
    switch (t) {
        case ElementType::nf4:
            return kNf4[code & 0xF];
        case ElementType::f4e2m1: {  // s.ee.m, bias 1
            const unsigned e = (code >> 1) & 3, m = code & 1;
            const float v = e == 0 ? 0.5f * static_cast<float>(m) : std::ldexp(1.0f + 0.5f * static_cast<float>(m), static_cast<int>(e) - 1);
            return with_sign(code & 8, v);
        }
        case ElementType::f8e4m3: {  // s.eeee.mmm, bias 7, finite only ("fn")
            const unsigned e = (code >> 3) & 0xF, m = code & 7;
            if (e == 15 && m == 7) return std::numeric_limits<float>::quiet_NaN();
            const float v = e == 0 ? std::ldexp(static_cast<float>(m), -9)
                                   : std::ldexp(1.0f + static_cast<float>(m) / 8.0f, static_cast<int>(e) - 7);
            return with_sign(code & 0x80, v);
        }
        case ElementType::f8e5m2: {  // s.eeeee.mm, bias 15, IEEE-like
            const unsigned e = (code >> 2) & 0x1F, m = code & 3;
            if (e == 31) return m ? std::numeric_limits<float>::quiet_NaN() : with_sign(code & 0x80, std::numeric_limits<float>::infinity());
            const float v = e == 0 ? std::ldexp(static_cast<float>(m), -16)
                                   : std::ldexp(1.0f + static_cast<float>(m) / 4.0f, static_cast<int>(e) - 15);
            return with_sign(code & 0x80, v);
        }
        case ElementType::f8e8m0:  // an exponent alone: 2^(code - 127)
            return (code & 0xFF) == 0xFF ? std::numeric_limits<float>::quiet_NaN()
                                         : std::ldexp(1.0f, static_cast<int>(code & 0xFF) - 127);
        default:
            return std::numeric_limits<float>::quiet_NaN();
    }
}

double packed_value(const void* data, ElementType t, int64_t i) {
    const auto* bytes = static_cast<const uint8_t*>(data);
    switch (t) {
        case ElementType::u1: case ElementType::u4: case ElementType::i4:
            return static_cast<double>(packed_element(data, t, i));
        case ElementType::nf4: case ElementType::f4e2m1:
            return packed_float_code(t, (bytes[i >> 1] >> ((i & 1) * 4)) & 0xF);
        default:
            return packed_float_code(t, bytes[i]);
    }
}

int64_t packed_byte_size(ElementType t, int64_t count) {
    const int bits = traits(t).bits;
    if (bits == 0 || count < 0) return -1;
    if (count > (INT64_MAX - 7) / bits) return -1;
    return (count * bits + 7) / 8;
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
        // inf / NaN; a NaN comes out quiet with its payload, as F16C's vcvtph2ps makes it.
        bits = sign | 0x7f800000u | (mant << 13) | (mant ? 0x400000u : 0u);
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
        // A NaN stays quiet with the top of its payload, as F16C's vcvtps2ph makes it.
        return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u | ((abs >> 13) & 0x3ffu) : 0u));
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
