// Range-1 and Range-4: positive, negative and fractional steps, empty ranges, output types,
// load-time rules, and error rows.
#include <gtest/gtest.h>

#include <limits>

#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

struct RangeRow {
    const char* name;
    double start, stop, step;
    ElementType output_type;
    std::vector<double> out;
};

const RangeRow kRows[] = {
    {"spec_positive_step", 2, 23, 3, ElementType::i32, {2, 5, 8, 11, 14, 17, 20}},
    {"spec_negative_step", 23, 2, -3, ElementType::i32, {23, 20, 17, 14, 11, 8, 5}},
    {"spec_float", 1, 2.5, 0.5, ElementType::f32, {1, 1.5, 2}},
    {"empty_wrong_direction", 5, 1, 1, ElementType::i64, {}},
    {"empty_equal", 3, 3, 1, ElementType::f32, {}},
    {"integer_output_truncates_inputs", 0.9, 5.7, 2.2, ElementType::i64, {0, 2, 4}},
    {"f16_output", 0, 1, 0.25, ElementType::f16, {0, 0.25, 0.5, 0.75}},
    {"u8_output", 250, 255, 2, ElementType::u8, {250, 252, 254}},
};

class RangeRows : public ::testing::TestWithParam<RangeRow> {};

TEST_P(RangeRows, Range4) {
    const RangeRow& r = GetParam();
    const OpTester range("Range", 4, {{"output_type", to_string(r.output_type)}});
    const Tensor out = range.run1({scalar(r.start), scalar(static_cast<float>(r.stop)), scalar(r.step)}, {0, 1, 2});
    EXPECT_TRUE(tensors_equal(out, make_tensor(r.output_type, {static_cast<int64_t>(r.out.size())}, r.out)));
}

INSTANTIATE_TEST_SUITE_P(Rows, RangeRows, ::testing::ValuesIn(kRows),
                         [](const auto& row) { return std::string(row.param.name); });

TEST(Range, Range1KeepsTheInputType) {
    const OpTester range("Range", 1);
    EXPECT_TRUE(tensors_equal(range.run1({scalar<int32_t>(2), scalar<int32_t>(23), scalar<int32_t>(3)}),
                              i32s({2, 5, 8, 11, 14, 17, 20})));
    EXPECT_TRUE(tensors_equal(range.run1({scalar(1.0f), scalar(2.5f), scalar(0.5f)}),
                              make_tensor<float>({3}, {1, 1.5f, 2})));
    // Exact for large int64 values (a double would lose the last digits).
    const int64_t big = (int64_t{1} << 60) + 1;
    EXPECT_TRUE(tensors_equal(range.run1({scalar<int64_t>(big), scalar<int64_t>(big + 3), scalar<int64_t>(1)}),
                              i64s({big, big + 1, big + 2})));
}

TEST(Range, RuleWithUnknownValues) {
    const OpTester range("Range", 4, {{"output_type", "f32"}});
    auto infos = range.infer({unknown(ElementType::i64, {}), known(scalar<int64_t>(5)), known(scalar<int64_t>(1))});
    EXPECT_EQ(infos[0].type, ElementType::f32);
    EXPECT_EQ(infos[0].shape, PartialShape::all_dynamic(1));
    infos = range.infer({known(scalar<int64_t>(0)), known(scalar<int64_t>(5)), known(scalar<int64_t>(2))});
    EXPECT_EQ(infos[0].shape, PartialShape({3}));
}

TEST(Range, Errors) {
    const OpTester range("Range", 4, {{"output_type", "i32"}});
    EXPECT_TRUE(throws_error([&] { range.run1({scalar(0.0f), scalar(5.0f), scalar(0.5f)}); }, ErrorKind::Value,
                             "invalid-value", "step must not be 0", 2));
    EXPECT_TRUE(throws_error([&] { range.run1({scalar(0.0f), scalar(std::numeric_limits<float>::infinity()), scalar(1.0f)}); }, ErrorKind::Value,
                             "invalid-value", "stop must be finite", 1));
    EXPECT_TRUE(throws_error([&] { range.run1({i64s({0, 1}), scalar<int64_t>(5), scalar<int64_t>(1)}); },
                             ErrorKind::ShapeRule, "not-scalar", "start must be a scalar", 0));
    EXPECT_TRUE(throws_error([&] { OpTester("Range", 1).run1({scalar<int32_t>(0), scalar<int64_t>(5), scalar<int32_t>(1)}); },
                             ErrorKind::Type, "type-mismatch", "stop is i64", 1));
    EXPECT_TRUE(throws_error([&] { range.run1({scalar<int64_t>(0), scalar<int64_t>(int64_t{1} << 62), scalar<int64_t>(1)}); },
                             ErrorKind::Value, "invalid-value", "too many to allocate", 1));
}

}  // namespace
}  // namespace irlite
