// Split-1: equal parts along an axis (negative too), a dtype sweep, load-time rules, and errors.
#include <gtest/gtest.h>

#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

IrAttribute num_splits(int64_t n) { return {"num_splits", std::to_string(n)}; }

struct SplitRow {
    const char* name;
    Shape data;  // 0, 1, 2, ...
    int64_t axis, num_splits;
    Shape part;
    std::vector<std::vector<double>> outs;
};

const SplitRow kRows[] = {
    {"1d_three", {6}, 0, 3, {2}, {{0, 1}, {2, 3}, {4, 5}}},
    {"2d_axis_1", {2, 4}, 1, 2, {2, 2}, {{0, 1, 4, 5}, {2, 3, 6, 7}}},
    {"2d_axis_0", {2, 4}, 0, 2, {1, 4}, {{0, 1, 2, 3}, {4, 5, 6, 7}}},
    {"negative_axis", {2, 4}, -1, 4, {2, 1}, {{0, 4}, {1, 5}, {2, 6}, {3, 7}}},
    {"one_part", {3}, 0, 1, {3}, {{0, 1, 2}}},
    {"empty_dim", {0, 2}, 1, 2, {0, 1}, {{}, {}}},
};

class SplitRows : public ::testing::TestWithParam<SplitRow> {};

TEST_P(SplitRows, MatchesExpected) {
    const SplitRow& r = GetParam();
    const OpTester split("Split", 1, {num_splits(r.num_splits)});
    const std::vector<Tensor> outs = split.run({iota(ElementType::f32, r.data), scalar<int64_t>(r.axis)}, {1});
    ASSERT_EQ(outs.size(), r.outs.size());
    for (size_t i = 0; i < outs.size(); ++i)
        EXPECT_TRUE(tensors_equal(outs[i], make_tensor(ElementType::f32, r.part, r.outs[i]))) << "output " << i;
}

INSTANTIATE_TEST_SUITE_P(Rows, SplitRows, ::testing::ValuesIn(kRows),
                         [](const auto& row) { return std::string(row.param.name); });

TEST(Split, DtypeSweep) {
    const OpTester split("Split", 1, {num_splits(2)});
    for (int t = 0; t < kNumElementTypes; ++t) {
        const auto type = static_cast<ElementType>(t);
        SCOPED_TRACE(to_string(type));
        const std::vector<Tensor> outs = split.run({iota(type, {2, 4}), make_tensor<int32_t>({1}, {1})});
        ASSERT_EQ(outs.size(), 2u);
        EXPECT_TRUE(tensors_equal(outs[1], make_tensor(type, {2, 2}, type == ElementType::boolean
                                                                         ? std::vector<double>{0, 1, 0, 1}
                                                                         : std::vector<double>{2, 3, 6, 7})));
    }
}

TEST(Split, RuleWithUnknownAxis) {
    const OpTester split("Split", 1, {num_splits(3)});
    auto infos = split.infer({unknown(ElementType::f32, {6, 3}), unknown(ElementType::i64, {})});
    ASSERT_EQ(infos.size(), 3u);
    EXPECT_EQ(infos[2].shape, PartialShape::all_dynamic(2));
    infos = split.infer({unknown(ElementType::f32, {kDynamic, 3}), known(scalar<int64_t>(1))});
    EXPECT_EQ(infos[0].shape, PartialShape({kDynamic, 1}));
}

TEST(Split, Errors) {
    const OpTester split("Split", 1, {num_splits(4)});
    EXPECT_TRUE(throws_error([&] { split.run({iota(ElementType::f32, {6}), scalar<int64_t>(0)}); }, ErrorKind::ShapeRule,
                             "split-uneven", "(6) is not a multiple of num_splits (4)", 0));
    EXPECT_TRUE(throws_error([&] { split.run({iota(ElementType::f32, {8}), scalar<int64_t>(1)}); }, ErrorKind::Value,
                             "axis-out-of-range", "axis 1 out of the tensor rank range [-1, 0]", 1));
    EXPECT_TRUE(throws_error([&] { split.run({iota(ElementType::f32, {8}), i64s({0, 0})}); }, ErrorKind::ShapeRule,
                             "not-scalar", "axis must be a scalar", 1));
    const OpTester zero("Split", 1, {num_splits(0)});
    EXPECT_TRUE(throws_error([&] { zero.attrs(); }, ErrorKind::Attribute, "attribute-invalid", "'num_splits' = 0"));
}

}  // namespace
}  // namespace irlite
