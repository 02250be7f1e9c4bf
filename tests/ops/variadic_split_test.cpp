// VariadicSplit-1: compute rows (from OpenVINO's op_reference tests and edge cases), a dtype
// sweep, build-time shape rules with unknown inputs, and error rows.
#include <gtest/gtest.h>

#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

struct Piece {
    Shape shape;
    std::vector<double> values;
};

struct SplitRow {
    const char* name;
    Shape data_shape;  // data = 0, 1, 2, ...
    int64_t axis;
    std::vector<int64_t> lengths;
    std::vector<Piece> out;
};

// clang-format off
const SplitRow kRows[] = {
    {"one_d", {10}, 0, {5, 3, 2}, {{{5}, {0, 1, 2, 3, 4}}, {{3}, {5, 6, 7}}, {{2}, {8, 9}}}},
    {"axis_0", {6, 2}, 0, {4, 2}, {{{4, 2}, {0, 1, 2, 3, 4, 5, 6, 7}}, {{2, 2}, {8, 9, 10, 11}}}},
    {"axis_1", {4, 3}, 1, {1, 2}, {{{4, 1}, {0, 3, 6, 9}}, {{4, 2}, {1, 2, 4, 5, 7, 8, 10, 11}}}},
    {"rest_first", {2, 1, 6, 2}, 2, {-1, 1, 2},
     {{{2, 1, 3, 2}, {0, 1, 2, 3, 4, 5, 12, 13, 14, 15, 16, 17}},
      {{2, 1, 1, 2}, {6, 7, 18, 19}},
      {{2, 1, 2, 2}, {8, 9, 10, 11, 20, 21, 22, 23}}}},
    {"negative_axis_rest_last", {2, 1, 2, 6}, -1, {1, 2, -1},
     {{{2, 1, 2, 1}, {0, 6, 12, 18}},
      {{2, 1, 2, 2}, {1, 2, 7, 8, 13, 14, 19, 20}},
      {{2, 1, 2, 3}, {3, 4, 5, 9, 10, 11, 15, 16, 17, 21, 22, 23}}}},
    {"zero_lengths", {2, 3}, 1, {0, 3, 0}, {{{2, 0}, {}}, {{2, 3}, {0, 1, 2, 3, 4, 5}}, {{2, 0}, {}}}},
    {"rest_is_zero", {2, 3}, 0, {2, -1}, {{{2, 3}, {0, 1, 2, 3, 4, 5}}, {{0, 3}, {}}}},
    {"single_piece", {3, 2}, 1, {2}, {{{3, 2}, {0, 1, 2, 3, 4, 5}}}},
    {"empty_outer", {0, 4}, 1, {1, 3}, {{{0, 1}, {}}, {{0, 3}, {}}}},
};
// clang-format on

class VariadicSplitCompute : public ::testing::TestWithParam<SplitRow> {};

TEST_P(VariadicSplitCompute, MatchesExpected) {
    const SplitRow& r = GetParam();
    const OpTester split("VariadicSplit", 1);
    const std::vector<Tensor> in = {iota(ElementType::f32, r.data_shape), scalar<int64_t>(r.axis), i64s(r.lengths)};
    for (const std::vector<size_t>& unknown_at_load : {std::vector<size_t>{}, {1}, {2}, {1, 2}}) {
        SCOPED_TRACE(unknown_at_load.size());
        const std::vector<Tensor> out = split.run(in, unknown_at_load);
        ASSERT_EQ(out.size(), r.out.size());
        for (size_t i = 0; i < out.size(); ++i)
            EXPECT_TRUE(tensors_equal(out[i], make_tensor(ElementType::f32, r.out[i].shape, r.out[i].values)))
                << "output " << i;
    }
}

INSTANTIATE_TEST_SUITE_P(Rows, VariadicSplitCompute, ::testing::ValuesIn(kRows),
                         [](const auto& row) { return std::string(row.param.name); });

// Every element type (1, 2, 4, 8 bytes), with axis and lengths of assorted integer types.
TEST(VariadicSplit, DtypeSweep) {
    const SplitRow& r = kRows[3];
    ASSERT_STREQ(r.name, "rest_first");
    const OpTester split("VariadicSplit", 1);
    const Tensor axes[] = {make_tensor<int8_t>({}, {2}), make_tensor<uint32_t>({1}, {2}),
                           make_tensor<int16_t>({}, {-2}), make_tensor<uint64_t>({1}, {2})};
    const Tensor lengths[] = {make_tensor<int32_t>({3}, {-1, 1, 2}), make_tensor<uint8_t>({3}, {3, 1, 2}),
                              make_tensor<int64_t>({3}, {3, 1, -1}), make_tensor<uint16_t>({3}, {3, 1, 2})};
    for (int t = 0; t < kNumElementTypes; ++t) {
        const auto type = static_cast<ElementType>(t);
        SCOPED_TRACE(to_string(type));
        const std::vector<Tensor> out = split.run({iota(type, r.data_shape), axes[t % 4], lengths[t % 4]}, {1, 2});
        ASSERT_EQ(out.size(), 3u);
        for (size_t i = 0; i < out.size(); ++i) {
            std::vector<double> want = r.out[i].values;
            if (type == ElementType::boolean)
                for (double& v : want) v = static_cast<double>(static_cast<int64_t>(v) % 2);
            EXPECT_TRUE(tensors_equal(out[i], make_tensor(type, r.out[i].shape, want))) << "output " << i;
        }
    }
}

// ---- shape rule at load time -----------------------------------------------------------------

struct RuleRow {
    const char* name;
    PartialShape data;
    std::optional<int64_t> axis;                  // nullopt: unknown
    std::optional<std::vector<int64_t>> lengths;  // nullopt: unknown, of shape lengths_shape
    PartialShape lengths_shape;
    int declared_outputs;
    std::vector<PartialShape> out;
};

// clang-format off
const RuleRow kRuleRows[] = {
    {"all_known", {6, 2, 10}, -1, {{6, -1, 3}}, {3}, 3, {{6, 2, 6}, {6, 2, 1}, {6, 2, 3}}},
    {"rest_first", {1, 20, 3}, 1, {{-1, 10, 3, 5}}, {4}, 4, {{1, 2, 3}, {1, 10, 3}, {1, 3, 3}, {1, 5, 3}}},
    {"dynamic_axis_dim_rest_unknown", {kDynamic, 2}, 0, {{4, 1, -1}}, {3}, 3, {{4, 2}, {1, 2}, {kDynamic, 2}}},
    {"dynamic_axis_dim_no_rest", {kDynamic, kDynamic, 6}, 2, {{3, 1, 2}}, {3}, 3,
     {{kDynamic, kDynamic, 3}, {kDynamic, kDynamic, 1}, {kDynamic, kDynamic, 2}}},
    {"dynamic_other_dim", {12, kDynamic}, -2, {{7, -1, 2}}, {3}, 3, {{7, kDynamic}, {3, kDynamic}, {2, kDynamic}}},
    {"zero_length", {kDynamic, 6}, 1, {{6, 0}}, {2}, 2, {{kDynamic, 6}, {kDynamic, 0}}},
    {"unknown_lengths_static_count", {6, 2}, 1, std::nullopt, {3}, 3, {{6, kDynamic}, {6, kDynamic}, {6, kDynamic}}},
    {"unknown_lengths_declared_count", {6, 2}, 0, std::nullopt, {kDynamic}, 2, {{kDynamic, 2}, {kDynamic, 2}}},
    {"unknown_axis", {6, 2}, std::nullopt, {{3, 3}}, {2}, 2, {{kDynamic, kDynamic}, {kDynamic, kDynamic}}},
    {"dynamic_rank", PartialShape::dynamic_rank(), 0, {{3, 3}}, {2}, 2,
     {PartialShape::dynamic_rank(), PartialShape::dynamic_rank()}},
};
// clang-format on

TEST(VariadicSplit, ShapeRule) {
    const OpTester split("VariadicSplit", 1);
    for (const RuleRow& r : kRuleRows) {
        SCOPED_TRACE(r.name);
        const RuleInput axis = r.axis ? known(scalar<int64_t>(*r.axis)) : unknown(ElementType::i64, {});
        const RuleInput lengths = r.lengths ? known(i64s(*r.lengths)) : unknown(ElementType::i64, r.lengths_shape);
        const std::vector<OutputInfo> out =
            split.infer({unknown(ElementType::f16, r.data), axis, lengths}, r.declared_outputs);
        ASSERT_EQ(out.size(), r.out.size());
        for (size_t i = 0; i < out.size(); ++i) {
            EXPECT_EQ(out[i].type, ElementType::f16);
            EXPECT_EQ(out[i].shape, r.out[i]) << "output " << i << ": " << to_string(out[i].shape);
        }
    }
}

// ---- errors --------------------------------------------------------------------------------

struct ErrorRow {
    const char* name;
    std::vector<RuleInput> inputs;
    ErrorKind kind;
    const char* code;
    int port;
    const char* message;
};

TEST(VariadicSplit, Errors) {
    const auto data = [](PartialShape s) { return unknown(ElementType::f32, std::move(s)); };
    const RuleInput axis0 = known(scalar<int64_t>(0));
    const RuleInput two = known(i64s({4, 2}));
    const ErrorRow rows[] = {
        {"sum_too_small",
         {data({6, 2}), axis0, known(i64s({4, 1}))},
         ErrorKind::Value,
         "split-sum-mismatch",
         2,
         "split lengths add up to 5, but data dim 0 is 6; they must add up to it exactly"},
        {"sum_too_large_with_rest",
         {data({6, 2}), axis0, known(i64s({4, -1, 3}))},
         ErrorKind::Value,
         "split-sum-mismatch",
         2,
         "split lengths other than -1 add up to 7, more than data dim 0 (6)"},
        {"sum_overflows",
         {data({6, 2}), axis0, known(i64s({INT64_MAX, INT64_MAX}))},
         ErrorKind::Value,
         "split-sum-mismatch",
         2,
         "add up to more than 2^63-1"},
        {"two_rests",
         {data({6, 2}), axis0, known(i64s({-1, -1}))},
         ErrorKind::Value,
         "split-length-invalid",
         2,
         "split_lengths[0] and split_lengths[1] are both -1; at most one length may be -1"},
        {"length_below_minus_one",
         {data({6, 2}), axis0, known(i64s({8, -2}))},
         ErrorKind::Value,
         "split-length-invalid",
         2,
         "split_lengths[1] = -2: value -2 not in [-1, 6]"},
        {"length_invalid_with_unknown_axis",
         {data({6, 2}), unknown(ElementType::i64, {}), known(i64s({-3, 9}))},
         ErrorKind::Value,
         "split-length-invalid",
         2,
         "split_lengths[0] = -3"},
        {"axis_out_of_range",
         {data({6, 2}), known(scalar<int64_t>(2)), two},
         ErrorKind::Value,
         "axis-out-of-range",
         1,
         "axis 2 out of the tensor rank range [-2, 1]"},
        {"axis_too_negative",
         {data({6, 2}), known(make_tensor<int32_t>({1}, {-3})), two},
         ErrorKind::Value,
         "axis-out-of-range",
         1,
         "axis -3 out of the tensor rank range [-2, 1]"},
        {"axis_shape",
         {data({6, 2}), unknown(ElementType::i64, {2}), two},
         ErrorKind::ShapeRule,
         "rank-invalid",
         1,
         "axis must be a scalar or of shape [1], got shape [2]"},
        {"lengths_rank",
         {data({6, 2}), axis0, unknown(ElementType::i64, {1, 2})},
         ErrorKind::ShapeRule,
         "rank-invalid",
         2,
         "split_lengths must be a 1-D tensor, got shape [1,2]"},
        {"scalar_data",
         {data({}), axis0, two},
         ErrorKind::ShapeRule,
         "rank-invalid",
         0,
         "data must have rank >= 1, got a scalar"},
        {"float_axis",
         {data({6, 2}), unknown(ElementType::f32, {}), two},
         ErrorKind::Type,
         "index-type",
         1,
         "axis must be an integer tensor"},
        {"boolean_lengths",
         {data({6, 2}), axis0, unknown(ElementType::boolean, {2})},
         ErrorKind::Type,
         "index-type",
         2,
         "split_lengths must be an integer tensor (i8, i16, i32, i64, u8, u16, u32, u64), got boolean"},
    };
    const OpTester split("VariadicSplit", 1);
    for (const ErrorRow& r : rows) {
        SCOPED_TRACE(r.name);
        EXPECT_TRUE(throws_error([&] { split.infer(r.inputs, 2); }, r.kind, r.code, r.message, r.port));
    }
}

// Lengths known only at run time are checked by the kernel's run of the rule.
TEST(VariadicSplit, RunTimeSumMismatch) {
    const OpTester split("VariadicSplit", 1);
    EXPECT_TRUE(throws_error(
        [&] {
            split.run({iota(ElementType::u8, {5}), scalar<int32_t>(0), i32s({2, 2})}, {2});
        },
        ErrorKind::Value, "split-sum-mismatch",
        "input 2 'split_lengths': split lengths add up to 4, but data dim 0 is 5", 2));
}

}  // namespace
}  // namespace irlite
