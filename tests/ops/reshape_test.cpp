// Reshape-1: shape rows (-1, special_zero, empty dims, scalars), zero-copy views for every element
// type, load-time rules with the shape unknown, and error rows.
#include <gtest/gtest.h>

#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

IrAttribute special_zero(bool on) { return {"special_zero", on ? "true" : "false"}; }

struct ReshapeRow {
    const char* name;
    Shape data;
    std::vector<int64_t> pattern;
    bool special_zero;
    Shape out;
};

const ReshapeRow kRows[] = {
    {"plain", {2, 3, 4}, {6, 4}, false, {6, 4}},
    {"minus_one_last", {2, 3, 4}, {2, -1}, false, {2, 12}},
    {"minus_one_first", {2, 3, 4}, {-1, 4}, false, {6, 4}},
    {"flatten_all", {2, 3, 4}, {-1}, false, {24}},
    {"special_zero_copies", {2, 3, 4}, {0, -1}, true, {2, 12}},
    {"special_zero_middle", {2, 3, 4}, {0, 0, 2, 2}, true, {2, 3, 2, 2}},
    {"zero_is_a_dim", {0, 3}, {3, 0}, false, {3, 0}},
    {"minus_one_with_empty", {0, 3}, {0, -1}, false, {0, 0}},
    {"to_scalar", {1, 1}, {}, false, {}},
    {"from_scalar", {}, {1, 1, 1}, false, {1, 1, 1}},
    {"reduced_dims", {2, 3, 4}, {2, 12}, false, {2, 12}},
    {"extended_dims", {2, 3, 4}, {2, 3, 2, 2}, false, {2, 3, 2, 2}},
    {"special_zero_and_minus_one", {2, 3, 4}, {-1, 0}, true, {8, 3}},
};

class ReshapeRows : public ::testing::TestWithParam<ReshapeRow> {};

TEST_P(ReshapeRows, ShapeAndView) {
    const ReshapeRow& r = GetParam();
    const OpTester reshape("Reshape", 1, {special_zero(r.special_zero)});
    const Tensor data = iota(ElementType::f32, r.data);
    const Tensor out = reshape.run1({data, i64s(r.pattern)}, {1});
    EXPECT_EQ(out.shape(), r.out);
    EXPECT_TRUE(out.shares_buffer_with(data)) << "Reshape must not copy";
    EXPECT_EQ(to_doubles(out), to_doubles(data));
}

INSTANTIATE_TEST_SUITE_P(Rows, ReshapeRows, ::testing::ValuesIn(kRows),
                         [](const auto& row) { return std::string(row.param.name); });

TEST(Reshape, DtypeSweepIsAView) {
    const OpTester reshape("Reshape", 1, {special_zero(true)});
    for (int t = 0; t < kNumElementTypes; ++t) {
        const auto type = static_cast<ElementType>(t);
        SCOPED_TRACE(to_string(type));
        const Tensor data = iota(type, {2, 3});
        const Tensor out = reshape.run1({data, i32s({3, -1})});
        EXPECT_EQ(out.type(), type);
        EXPECT_EQ(out.shape(), (Shape{3, 2}));
        EXPECT_TRUE(out.shares_buffer_with(data));
    }
}

TEST(Reshape, RuleWithUnknownValues) {
    const OpTester reshape("Reshape", 1, {special_zero(true)});
    // Pattern of known length, unknown values: that many unknown dims.
    auto infos = reshape.infer({unknown(ElementType::f32, {2, 3}), unknown(ElementType::i64, {3})});
    EXPECT_EQ(infos[0].shape, PartialShape::all_dynamic(3));
    // Pattern of unknown length: unknown rank.
    infos = reshape.infer({unknown(ElementType::f32, {2, 3}), unknown(ElementType::i64, {kDynamic})});
    EXPECT_FALSE(infos[0].shape.rank_known());
    // Known pattern over a partly unknown data shape: explicit dims and copied dims are known.
    infos = reshape.infer({unknown(ElementType::f32, {kDynamic, 3, 4}), known(i64s({0, 0, -1}))});
    EXPECT_EQ(infos[0].shape, PartialShape({kDynamic, 3, kDynamic}));
    infos = reshape.infer({unknown(ElementType::f32, {kDynamic, 3, 4}), known(i64s({1, 12, -1}))});
    EXPECT_EQ(infos[0].shape, PartialShape({1, 12, kDynamic}));
}

struct ErrorRow {
    const char* name;
    Shape data;
    std::vector<int64_t> pattern;
    bool special_zero;
    ErrorKind kind;
    const char* code;
    const char* message;
};

const ErrorRow kErrors[] = {
    {"two_minus_ones", {2, 3}, {-1, -1}, false, ErrorKind::Value, "multiple-minus-one", "more than one -1"},
    {"below_minus_one", {2, 3}, {-2, 3}, false, ErrorKind::Value, "value-out-of-range", "shape[0] = -2"},
    {"count_mismatch", {2, 3}, {4, 2}, false, ErrorKind::Value, "shape-incompatible", "(6 elements) to [4,2] (8 elements)"},
    {"not_a_multiple", {2, 3}, {4, -1}, false, ErrorKind::Value, "shape-incompatible", "6 is not a multiple of 4"},
    {"special_zero_past_rank", {6}, {3, 0}, true, ErrorKind::Value, "value-out-of-range", "has rank 1"},
    {"zero_without_special", {2, 3}, {0, 6}, false, ErrorKind::Value, "shape-incompatible", "(0 elements)"},
    {"minus_one_over_zero", {2, 3}, {0, -1}, false, ErrorKind::Value, "shape-incompatible", "multiply to 0"},
};

class ReshapeErrors : public ::testing::TestWithParam<ErrorRow> {};

TEST_P(ReshapeErrors, Throws) {
    const ErrorRow& r = GetParam();
    const OpTester reshape("Reshape", 1, {special_zero(r.special_zero)});
    EXPECT_TRUE(throws_error([&] { reshape.run1({iota(ElementType::f32, r.data), i64s(r.pattern)}); }, r.kind, r.code,
                             r.message, 1));
}

INSTANTIATE_TEST_SUITE_P(Rows, ReshapeErrors, ::testing::ValuesIn(kErrors),
                         [](const auto& row) { return std::string(row.param.name); });

TEST(Reshape, ShapeMustBeIntegerAnd1D) {
    const OpTester reshape("Reshape", 1, {special_zero(false)});
    EXPECT_TRUE(throws_error([&] { reshape.run1({iota(ElementType::f32, {2}), make_tensor<float>({1}, {2.f})}); },
                             ErrorKind::Type, "index-type", "shape must be an integer tensor", 1));
    EXPECT_TRUE(throws_error([&] { reshape.run1({iota(ElementType::f32, {2}), make_tensor<int64_t>({1, 1}, {2})}); },
                             ErrorKind::ShapeRule, "rank-invalid", "shape must be 1-D", 1));
}

}  // namespace
}  // namespace irlite
