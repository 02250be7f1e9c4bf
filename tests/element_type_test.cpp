#include <gtest/gtest.h>

#include <cmath>

#include "irlite/element_type.hpp"
#include "irlite/error.hpp"

namespace irlite {
namespace {

struct SpellingRow {
    const char* text;
    ElementType type;
};

TEST(ElementType, ParsesBothSpellings) {
    const SpellingRow rows[] = {
        {"f16", ElementType::f16},   {"FP16", ElementType::f16},   {"bf16", ElementType::bf16},
        {"BF16", ElementType::bf16}, {"f32", ElementType::f32},    {"FP32", ElementType::f32},
        {"f64", ElementType::f64},   {"FP64", ElementType::f64},   {"i8", ElementType::i8},
        {"I8", ElementType::i8},     {"i16", ElementType::i16},    {"I16", ElementType::i16},
        {"i32", ElementType::i32},   {"I32", ElementType::i32},    {"i64", ElementType::i64},
        {"I64", ElementType::i64},   {"u8", ElementType::u8},      {"U8", ElementType::u8},
        {"u16", ElementType::u16},   {"U16", ElementType::u16},    {"u32", ElementType::u32},
        {"U32", ElementType::u32},   {"u64", ElementType::u64},    {"U64", ElementType::u64},
        {"boolean", ElementType::boolean}, {"BOOL", ElementType::boolean},
    };
    for (const auto& row : rows) EXPECT_EQ(parse_element_type(row.text), row.type) << row.text;
}

TEST(ElementType, RejectsUnknown) {
    for (const char* text : {"f33", "bool", "float", "", "Fp32", "u5", "Bin"}) {
        try {
            parse_element_type(text);
            FAIL() << text;
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::Parse) << text;
            EXPECT_EQ(e.code(), "unknown-element-type");
            EXPECT_NE(e.message().find(text), std::string::npos);
        }
    }
}

// Every element type OpenVINO defines is valid IR, in both spellings, storable or not (issue 11:
// string, u1 written as BIN, u4 and the f8 types were rejected).
TEST(ElementType, AcceptsEveryOpenVinoType) {
    const struct {
        const char* text;
        ElementType type;
    } rows[] = {
        {"u1", ElementType::u1},           {"U1", ElementType::u1},         {"BIN", ElementType::u1},
        {"u2", ElementType::u2},           {"u3", ElementType::u3},         {"u4", ElementType::u4},
        {"U4", ElementType::u4},           {"u6", ElementType::u6},         {"i4", ElementType::i4},
        {"I4", ElementType::i4},           {"nf4", ElementType::nf4},       {"NF4", ElementType::nf4},
        {"f8e4m3", ElementType::f8e4m3},   {"F8E4M3", ElementType::f8e4m3}, {"f8e5m2", ElementType::f8e5m2},
        {"f4e2m1", ElementType::f4e2m1},   {"f8e8m0", ElementType::f8e8m0}, {"string", ElementType::string},
        {"STRING", ElementType::string},   {"dynamic", ElementType::dynamic}, {"undefined", ElementType::dynamic},
        {"UNSPECIFIED", ElementType::dynamic},
    };
    for (const auto& row : rows) {
        EXPECT_EQ(parse_element_type(row.text), row.type) << row.text;
        EXPECT_FALSE(is_storable(row.type)) << row.text;
    }
    EXPECT_STREQ(to_string(ElementType::string), "string");
    EXPECT_STREQ(to_string(ElementType::u1), "u1");
    // Packed sizes as the .bin holds them.
    EXPECT_EQ(packed_byte_size(ElementType::u1, 9), 2);
    EXPECT_EQ(packed_byte_size(ElementType::u4, 3), 2);
    EXPECT_EQ(packed_byte_size(ElementType::f32, 3), 12);
    EXPECT_EQ(packed_byte_size(ElementType::string, 3), -1);
    for (int i = 0; i < kNumElementTypes; ++i) EXPECT_TRUE(is_storable(static_cast<ElementType>(i)));
}

TEST(ElementType, TraitsAreConsistent) {
    EXPECT_EQ(element_size(ElementType::boolean), 1u);
    EXPECT_EQ(element_size(ElementType::bf16), 2u);
    EXPECT_EQ(element_size(ElementType::u64), 8u);
    EXPECT_TRUE(is_float(ElementType::f16));
    EXPECT_FALSE(is_integral(ElementType::boolean));
    EXPECT_TRUE(is_integral(ElementType::u8));
    for (int i = 0; i < kNumElementTypes; ++i) {
        const auto t = static_cast<ElementType>(i);
        dispatch_type(t, [&](auto tag) { EXPECT_EQ(sizeof(tag), element_size(t)) << to_string(t); });
    }
}

TEST(ElementType, NpyDescriptors) {
    EXPECT_EQ(element_type_from_npy("<f4"), ElementType::f32);
    EXPECT_EQ(element_type_from_npy("|b1"), ElementType::boolean);
    EXPECT_EQ(element_type_from_npy("|u1"), ElementType::u8);
    EXPECT_EQ(element_type_from_npy("<i1"), ElementType::i8);
    EXPECT_EQ(element_type_from_npy("=i8"), ElementType::i64);
    EXPECT_THROW(element_type_from_npy(">f4"), Error);
    EXPECT_THROW(element_type_from_npy("<c8"), Error);
    EXPECT_THROW(element_type_from_npy("|O"), Error);
}

TEST(Float16, RoundTripsAndRounds) {
    const float values[] = {0.0f, -0.0f, 1.0f, -2.5f, 65504.0f, 6.103515625e-05f, 5.960464477539063e-08f, 0.333251953125f};
    for (float v : values) EXPECT_EQ(f16_to_f32(f32_to_f16(v)), v) << v;
    EXPECT_TRUE(std::isinf(f16_to_f32(f32_to_f16(70000.0f))));
    EXPECT_TRUE(std::isnan(f16_to_f32(f32_to_f16(NAN))));
    EXPECT_EQ(f32_to_f16(1.0f + 1.0f / 4096), f32_to_f16(1.0f));  // ties to even
    EXPECT_EQ(bf16_to_f32(f32_to_bf16(3.0f)), 3.0f);
    EXPECT_EQ(bf16_to_f32(f32_to_bf16(1.00390625f)), 1.0f);  // ties to even
    EXPECT_TRUE(std::isnan(bf16_to_f32(f32_to_bf16(NAN))));
}

}  // namespace
}  // namespace irlite
