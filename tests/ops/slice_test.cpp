// Slice-8: compute rows (many from OpenVINO's op_reference tests and the spec examples), index
// type combinations, a dtype sweep, build-time shape rules with unknown inputs, and error rows.
#include <gtest/gtest.h>

#include <limits>
#include <optional>

#include "op_tester.hpp"
#include "kernels/all_ops.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

struct SliceRow {
    const char* name;
    Shape data_shape;  // data = 0, 1, 2, ... (f32)
    std::vector<int64_t> start, stop, step;
    std::optional<std::vector<int64_t>> axes;
    Shape out_shape;
    std::vector<double> out;
};

// clang-format off
const SliceRow kRows[] = {
    {"full_axes_1d", {4}, {0}, {5}, {1}, {{0}}, {4}, {0, 1, 2, 3}},
    {"default_axes_1d", {4}, {0}, {5}, {1}, std::nullopt, {4}, {0, 1, 2, 3}},
    {"empty_output_1d", {4}, {6}, {5}, {1}, {{0}}, {0}, {}},
    {"step_2_2d", {2, 4}, {1, 0}, {2, 3}, {1, 2}, {{0, 1}}, {1, 2}, {4, 6}},
    {"big_step", {3, 16}, {0, 0}, {3, 16}, {1, 15}, {{0, 1}}, {3, 2}, {0, 15, 16, 31, 32, 47}},
    {"empty_output_2d", {2, 2}, {10, 0}, {20, 2}, {1, 1}, {{0, 1}}, {0, 2}, {}},
    {"less_axes_3d", {2, 2, 2}, {0, 0}, {2, 2}, {1, 1}, {{0, 1}}, {2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7}},
    {"empty_middle_3d", {2, 2, 2}, {0, 2, 0}, {2, 2, 2}, {1, 1, 1}, {{0, 1, 2}}, {2, 0, 2}, {}},
    {"half_dim_step", {4, 2, 3, 2}, {0}, {4}, {2}, {{0}}, {2, 2, 3, 2},
     {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35}},
    {"negative_step_1d", {4}, {5}, {-6}, {-1}, std::nullopt, {4}, {3, 2, 1, 0}},
    {"empty_output_negative_step", {4}, {0}, {5}, {-1}, {{0}}, {0}, {}},
    {"negative_step_mix", {2, 2}, {0, 3}, {2, -4}, {1, -1}, {{0, 1}}, {2, 2}, {1, 0, 3, 2}},
    {"negative_step_only", {2, 2}, {-1, 3}, {-4, -4}, {-1, -1}, {{0, 1}}, {2, 2}, {3, 2, 1, 0}},
    {"negative_big_step", {3, 16}, {2, 15}, {-4, -17}, {-1, -15}, {{0, 1}}, {3, 2}, {47, 32, 31, 16, 15, 0}},
    {"negative_axes", {2, 2, 2}, {0, 0, 0}, {2, 2, 2}, {1, 1, 1}, {{-3, -2, -1}}, {2, 2, 2},
     {0, 1, 2, 3, 4, 5, 6, 7}},
    {"mixed_step", {2, 4, 3}, {0, 0, 4}, {2, 4, -5}, {3, 2, -2}, {{0, 1, 2}}, {1, 2, 2}, {2, 0, 8, 6}},
    {"int64_min_max", {4, 2, 3, 2}, {kMin, kMax, kMax, kMin}, {kMax, kMin, kMin, kMax}, {1, -1, -1, 1},
     {{0, 1, 2, 3}}, {4, 2, 3, 2},
     {10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1, 22, 23, 20, 21, 18, 19, 16, 17, 14, 15, 12, 13,
      34, 35, 32, 33, 30, 31, 28, 29, 26, 27, 24, 25, 46, 47, 44, 45, 42, 43, 40, 41, 38, 39, 36, 37}},
    {"huge_steps", {5}, {kMin}, {kMax}, {kMax}, {{0}}, {1}, {0}},
    {"int64_min_step", {5}, {kMax}, {kMin}, {kMin}, {{0}}, {1}, {4}},
    {"unordered_axes", {4, 2, 3, 2}, {100, -100}, {-100, 100}, {-1, 2}, {{2, 0}}, {2, 2, 3, 2},
     {4, 5, 2, 3, 0, 1, 10, 11, 8, 9, 6, 7, 28, 29, 26, 27, 24, 25, 34, 35, 32, 33, 30, 31}},
    {"mixed_5d", {2, 4, 2, 2, 3}, {0, 1, -5, 100, 1}, {2, 6, 3, -100, 2}, {1, 2, 2, -1, 1}, {{-5, 1, 4, 2, 3}},
     {2, 2, 2, 1, 2}, {21, 23, 15, 17, 45, 47, 39, 41, 69, 71, 63, 65, 93, 95, 87, 89}},
    {"spec_example_step2", {10}, {1}, {8}, {2}, {{0}}, {4}, {1, 3, 5, 7}},
    {"spec_example_out_of_range", {10}, {-100}, {100}, {1}, {{0}}, {10}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
    {"spec_example_back_stop0", {10}, {9}, {0}, {-1}, {{0}}, {9}, {9, 8, 7, 6, 5, 4, 3, 2, 1}},
    {"spec_example_back_step2", {10}, {9}, {-11}, {-2}, {{0}}, {5}, {9, 7, 5, 3, 1}},
    {"spec_example_back_out_of_range", {10}, {100}, {-100}, {-1}, {{0}}, {10}, {9, 8, 7, 6, 5, 4, 3, 2, 1, 0}},
    {"spec_example_2d", {2, 5}, {0, 1}, {2, 4}, {1, 2}, {{0, 1}}, {2, 2}, {1, 3, 6, 8}},
    {"no_axes_at_all", {2, 3}, {}, {}, {}, std::vector<int64_t>{}, {2, 3}, {0, 1, 2, 3, 4, 5}},
    {"empty_data", {0, 3}, {0}, {2}, {1}, {{1}}, {0, 2}, {}},
    {"empty_data_negative_step", {3, 0}, {-1}, {kMin}, {-1}, {{1}}, {3, 0}, {}},
};
// clang-format on

std::vector<Tensor> slice_inputs(const SliceRow& r, ElementType data_type, ElementType index_type) {
    const auto index = [&](const std::vector<int64_t>& v) {
        std::vector<double> d(v.begin(), v.end());
        return index_type == ElementType::i64 ? i64s(v) : make_tensor(index_type, {static_cast<int64_t>(v.size())}, d);
    };
    std::vector<Tensor> in = {iota(data_type, r.data_shape, 1 << 20), index(r.start), index(r.stop), index(r.step)};
    if (r.axes) in.push_back(index(*r.axes));
    return in;
}

class SliceCompute : public ::testing::TestWithParam<SliceRow> {};

TEST_P(SliceCompute, MatchesExpected) {
    const SliceRow& r = GetParam();
    const OpTester slice("Slice", 8);
    // Run as the executor would, with start/stop/step/axes unknown at load time.
    const Tensor out = slice.run1(slice_inputs(r, ElementType::f32, ElementType::i64), {1, 2, 3, 4});
    EXPECT_TRUE(tensors_equal(out, make_tensor(ElementType::f32, r.out_shape, r.out)));
    // And again with everything known at load time (constant start/stop/step/axes).
    EXPECT_TRUE(tensors_equal(slice.run1(slice_inputs(r, ElementType::f32, ElementType::i64)),
                              make_tensor(ElementType::f32, r.out_shape, r.out)));
}

INSTANTIATE_TEST_SUITE_P(Rows, SliceCompute, ::testing::ValuesIn(kRows),
                         [](const auto& row) { return std::string(row.param.name); });

// Every element type through the same byte kernel: 1, 2, 4 and 8-byte data.
TEST(Slice, DtypeSweep) {
    const SliceRow& r = kRows[15];  // mixed_step: positive and negative steps, a clamped start
    ASSERT_STREQ(r.name, "mixed_step");
    const OpTester slice("Slice", 8);
    for (int t = 0; t < kNumElementTypes; ++t) {
        const auto type = static_cast<ElementType>(t);
        SCOPED_TRACE(to_string(type));
        const Tensor data = iota(type, r.data_shape);
        std::vector<double> expected;
        for (double v : r.out) expected.push_back(type == ElementType::boolean ? static_cast<int64_t>(v) % 2 : v);
        std::vector<Tensor> in = slice_inputs(r, type, ElementType::i64);
        in[0] = data;
        EXPECT_TRUE(tensors_equal(slice.run1(in), make_tensor(type, r.out_shape, expected)));
    }
}

// start/stop/step/axes may be any integer type, mixed freely.
TEST(Slice, IndexTypes) {
    const OpTester slice("Slice", 8);
    const ElementType index_types[] = {ElementType::i8, ElementType::i16, ElementType::i32, ElementType::i64,
                                       ElementType::u8, ElementType::u16, ElementType::u32, ElementType::u64};
    const SliceRow& r = kRows[3];  // step_2_2d: only non-negative values
    ASSERT_STREQ(r.name, "step_2_2d");
    for (ElementType t : index_types) {
        SCOPED_TRACE(to_string(t));
        EXPECT_TRUE(tensors_equal(slice.run1(slice_inputs(r, ElementType::f32, t), {1, 2, 3, 4}),
                                  make_tensor(ElementType::f32, r.out_shape, r.out)));
    }
    // Mixed: i8 start, u16 stop, i32 step, u64 axes.
    std::vector<Tensor> in = {iota(ElementType::f32, {2, 4}), make_tensor<int8_t>({2}, {1, 0}),
                              make_tensor<uint16_t>({2}, {2, 3}), make_tensor<int32_t>({2}, {1, 2}),
                              make_tensor<uint64_t>({2}, {0, 1})};
    EXPECT_TRUE(tensors_equal(slice.run1(in), make_tensor(ElementType::f32, {1, 2}, {4, 6})));
}

// The open ends of every index width: numeric_limits min/max of i8, i16, i32 and u64 max.
TEST(Slice, IndexTypeLimitsAreOpenEnds) {
    const OpTester slice("Slice", 8);
    const Tensor data = iota(ElementType::f32, {4, 3});
    const Tensor reversed_rows = make_tensor(ElementType::f32, {4, 3}, {9, 10, 11, 6, 7, 8, 3, 4, 5, 0, 1, 2});
    const auto run = [&](Tensor start, Tensor stop, Tensor step) {
        return slice.run1({data, start, stop, step, i64s({0})});
    };
    EXPECT_TRUE(tensors_equal(
        run(make_tensor<int8_t>({1}, {127}), make_tensor<int8_t>({1}, {-128}), make_tensor<int8_t>({1}, {-1})),
        reversed_rows));
    EXPECT_TRUE(tensors_equal(
        run(make_tensor<int16_t>({1}, {32767}), make_tensor<int16_t>({1}, {-32768}), make_tensor<int16_t>({1}, {-1})),
        reversed_rows));
    EXPECT_TRUE(tensors_equal(run(make_tensor<int32_t>({1}, {INT32_MAX}), make_tensor<int32_t>({1}, {INT32_MIN}),
                                  make_tensor<int32_t>({1}, {-1})),
                              reversed_rows));
    EXPECT_TRUE(tensors_equal(run(make_tensor<uint64_t>({1}, {0}), make_tensor<uint64_t>({1}, {UINT64_MAX}),
                                  make_tensor<uint64_t>({1}, {UINT64_MAX})),
                              make_tensor(ElementType::f32, {1, 3}, {0, 1, 2})));
}

// ---- shape rule at load time -----------------------------------------------------------------

struct RuleRow {
    const char* name;
    PartialShape data;
    std::optional<std::vector<int64_t>> start, stop, step;  // nullopt: unknown value
    std::optional<std::vector<int64_t>> axes;               // nullopt: unknown (or absent, see has_axes)
    bool has_axes;
    int64_t index_length;  // kDynamic: unknown length
    PartialShape out;
};

// clang-format off
const RuleRow kRuleRows[] = {
    {"all_known", {10, 10, 10}, {{1, -20, 9}}, {{8, 20, -11}}, {{1, 1, -1}}, {{0, 1, 2}}, true, 3, {7, 10, 10}},
    {"default_axes", {5, 5, 5, 5, 9, 9}, {{0, 0, 0, 5, 0, 10}}, {{5, 5, 5, 5, 9, 9}}, {{2, -3, 1, 5, 2, 1}},
     std::nullopt, false, 6, {3, 0, 5, 0, 5, 0}},
    {"unknown_axes_all_dims_dynamic", {5, 10, 15}, {{0}}, {{1}}, {{1}}, std::nullopt, true, 1,
     {kDynamic, kDynamic, kDynamic}},
    {"unknown_axes_keep_zero_dims", {5, 0}, {{0}}, {{1}}, {{1}}, std::nullopt, true, 1, {kDynamic, 0}},
    {"unknown_start_listed_axes_dynamic", {10, 2, 7, 4}, std::nullopt, {{1, 1, 1}}, {{1, 1, 1}}, {{0, 3, 1}}, true, 3,
     {kDynamic, kDynamic, 7, kDynamic}},
    {"unknown_step_negative_axes", {10, 2, 7, 4}, {{0, 0, 0}}, {{1, 1, 1}}, std::nullopt, {{-4, -1, -3}}, true, 3,
     {kDynamic, kDynamic, 7, kDynamic}},
    {"unknown_sss_default_axes", {10, 10, 10, 16}, std::nullopt, std::nullopt, std::nullopt, std::nullopt, false, 3,
     {kDynamic, kDynamic, kDynamic, 16}},
    {"unknown_length_default_axes", {10, 16}, std::nullopt, std::nullopt, std::nullopt, std::nullopt, false, kDynamic,
     {kDynamic, kDynamic}},
    {"dynamic_data_dim_stays_dynamic", {1, 256, kDynamic}, {{-7}}, {{kMax}}, {{1}}, {{2}}, true, 1,
     {1, 256, kDynamic}},
    {"dynamic_dim_unsliced_kept", {kDynamic, 12}, {{0}}, {{6}}, {{2}}, {{1}}, true, 1, {kDynamic, 3}},
    {"dynamic_rank", PartialShape::dynamic_rank(), {{1}}, {{8}}, {{1}}, {{0}}, true, 1, PartialShape::dynamic_rank()},
};
// clang-format on

std::vector<RuleInput> rule_inputs(const RuleRow& r) {
    const auto input = [&](const std::optional<std::vector<int64_t>>& v) {
        return v ? known(i64s(*v)) : unknown(ElementType::i64, PartialShape({r.index_length}));
    };
    std::vector<RuleInput> in = {unknown(ElementType::f32, r.data), input(r.start), input(r.stop), input(r.step)};
    if (r.has_axes) in.push_back(input(r.axes));
    return in;
}

class SliceRule : public ::testing::TestWithParam<RuleRow> {};

TEST_P(SliceRule, InfersShape) {
    const RuleRow& r = GetParam();
    const std::vector<OutputInfo> out = OpTester("Slice", 8).infer(rule_inputs(r));
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].type, ElementType::f32);
    EXPECT_EQ(out[0].shape, r.out) << to_string(out[0].shape) << " vs " << to_string(r.out);
}

INSTANTIATE_TEST_SUITE_P(Rows, SliceRule, ::testing::ValuesIn(kRuleRows),
                         [](const auto& row) { return std::string(row.param.name); });

// ---- errors --------------------------------------------------------------------------------

struct ErrorRow {
    const char* name;
    std::vector<RuleInput> inputs;
    ErrorKind kind;
    const char* code;
    int port;
    const char* message;
};

std::vector<ErrorRow> error_rows() {
    const auto f32 = [](PartialShape s) { return unknown(ElementType::f32, std::move(s)); };
    const RuleInput data = f32({10, 10, 10, 10, 10, 10, 10, 10});
    const RuleInput three = known(i64s({1, 1, 1}));
    return {
        {"scalar_data",
         {f32({}), three, three, three},
         ErrorKind::ShapeRule,
         "rank-invalid",
         0,
         "data must have rank >= 1, got a scalar"},
        {"start_not_1d",
         {f32({100, 100}), unknown(ElementType::i64, {}), three, three},
         ErrorKind::ShapeRule,
         "rank-invalid",
         1,
         "start must be a 1-D tensor, got shape []"},
        {"axes_not_1d",
         {f32({100, 100, 100}), three, three, three, unknown(ElementType::i64, {3, 1})},
         ErrorKind::ShapeRule,
         "rank-invalid",
         4,
         "axes must be a 1-D tensor"},
        {"start_longer_than_rank",
         {f32({100, 100}), three, three, three},
         ErrorKind::ShapeRule,
         "length-invalid",
         1,
         "start has 3 elements, more than the data rank 2"},
        {"lengths_differ",
         {f32({100, 100, 100, 100}), known(i64s({1, 1})), three, three},
         ErrorKind::ShapeRule,
         "length-mismatch",
         2,
         "start, stop and step must have the same number of elements: stop has 3, start has 2"},
        {"axes_length_differs",
         {f32({100, 100, 100, 100}), three, three, three, known(i64s({0, 1}))},
         ErrorKind::ShapeRule,
         "length-mismatch",
         4,
         "axes must have as many elements as start, stop and step"},
        {"float_start",
         {f32({100, 100, 100}), unknown(ElementType::f32, {3}), three, three},
         ErrorKind::Type,
         "index-type",
         1,
         "start must be an integer tensor (i8, i16, i32, i64, u8, u16, u32, u64), got f32"},
        {"boolean_axes",
         {f32({100, 100, 100}), three, three, three, unknown(ElementType::boolean, {3})},
         ErrorKind::Type,
         "index-type",
         4,
         "axes must be an integer tensor"},
        {"step_zero",
         {data, known(i64s({1, 1, -20})), known(i64s({8, 8, 20})), known(i64s({1, 2, 0}))},
         ErrorKind::Value,
         "step-zero",
         3,
         "step[2] = 0: step must not be 0"},
        {"step_zero_with_unknown_start",
         {data, unknown(ElementType::i64, {3}), unknown(ElementType::i64, {3}), known(i64s({0, 1, 1}))},
         ErrorKind::Value,
         "step-zero",
         3,
         "step[0] = 0"},
        {"axis_too_low",
         {data, three, three, three, known(i64s({2, 0, -20}))},
         ErrorKind::Value,
         "axis-out-of-range",
         4,
         "axes[2] = -20: axis -20 out of the tensor rank range [-8, 7]"},
        {"axis_too_high",
         {f32({100, 100, 100}), three, three, three, known(i64s({1, 2, 3}))},
         ErrorKind::Value,
         "axis-out-of-range",
         4,
         "axes[2] = 3: axis 3 out of the tensor rank range [-3, 2]"},
        {"duplicate_axes",
         {f32({100, 100, 100, 100}), three, three, three, known(i64s({2, 1, -2}))},
         ErrorKind::Value,
         "axes-duplicate",
         4,
         "axes[2] = -2 names axis 2 again (axes[0] = 2); axes must be unique"},
    };
}

TEST(Slice, Errors) {
    const OpTester slice("Slice", 8);
    for (const ErrorRow& r : error_rows()) {
        SCOPED_TRACE(r.name);
        EXPECT_TRUE(throws_error([&] { slice.infer(r.inputs); }, r.kind, r.code, r.message, r.port));
    }
}

// A kernel run re-checks what the load-time rule could not (step only known at run time).
TEST(Slice, RunTimeStepZeroIsAnError) {
    const OpTester slice("Slice", 8);
    EXPECT_TRUE(throws_error(
        [&] {
            slice.run({iota(ElementType::f32, {4}), i64s({0}), i64s({4}), i64s({0})}, {3});
        },
        ErrorKind::Value, "step-zero", "input 3 'step': step[0] = 0: step must not be 0", 3));
}

TEST(Slice, OptionalAxesInputCount) {
    EXPECT_EQ(OpTester("Slice", 8).def().min_inputs, 4);
    EXPECT_EQ(OpTester("Slice", 8).def().max_inputs(), 5);
    EXPECT_EQ(builtin_ops().find("Slice", 7), nullptr);
}

}  // namespace
}  // namespace irlite
