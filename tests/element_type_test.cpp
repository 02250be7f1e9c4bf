#include <gtest/gtest.h>

#include <cmath>

#include "engine/element_type.hpp"
#include "engine/error.hpp"

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

TEST(ElementType, RejectsUnknownAndUnsupported) {
    for (const char* text : {"f33", "bool", "float", "", "Fp32"}) {
        try {
            parse_element_type(text);
            FAIL() << text;
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::Parse) << text;
            EXPECT_EQ(e.code(), "unknown-element-type");
            EXPECT_NE(e.message().find(text), std::string::npos);
        }
    }
    for (const char* text : {"u1", "u4", "i4", "nf4", "string", "f8e4m3", "U4", "BIN"}) {
        try {
            parse_element_type(text);
            FAIL() << text;
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::Unsupported) << text;
            EXPECT_NE(e.message().find("not supported"), std::string::npos);
        }
    }
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
