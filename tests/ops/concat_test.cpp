// Concat-1: axes (negative too), several inputs, empty inputs, a dtype sweep, partial shapes at
// load time, and error rows.
#include <gtest/gtest.h>

#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

IrAttribute axis(int64_t a) { return {"axis", std::to_string(a)}; }

struct ConcatRow {
    const char* name;
    int64_t axis;
    std::vector<Shape> shapes;  // input i holds 100*i + 0, 1, 2, ...
    Shape out_shape;
    std::vector<double> out;
};

const ConcatRow kRows[] = {
    {"1d_axis_0", 0, {{2}, {3}}, {5}, {0, 1, 100, 101, 102}},
    {"2d_axis_0", 0, {{1, 2}, {2, 2}}, {3, 2}, {0, 1, 100, 101, 102, 103}},
    {"2d_axis_1", 1, {{2, 1}, {2, 2}}, {2, 3}, {0, 100, 101, 1, 102, 103}},
    {"2d_axis_negative_1", -1, {{2, 1}, {2, 2}}, {2, 3}, {0, 100, 101, 1, 102, 103}},
    {"2d_axis_negative_2", -2, {{1, 2}, {1, 2}}, {2, 2}, {0, 1, 100, 101}},
    {"three_inputs", 1, {{2, 1}, {2, 1}, {2, 1}}, {2, 3}, {0, 100, 200, 1, 101, 201}},
    {"empty_input", 0, {{0, 2}, {1, 2}}, {1, 2}, {100, 101}},
    {"single_input", 0, {{2}}, {2}, {0, 1}},
    {"3d_axis_2", 2, {{2, 1, 1}, {2, 1, 2}}, {2, 1, 3}, {0, 100, 101, 1, 102, 103}},
};

std::vector<Tensor> make_inputs(ElementType type, const std::vector<Shape>& shapes) {
    std::vector<Tensor> in;
    for (size_t i = 0; i < shapes.size(); ++i) {
        std::vector<double> v(static_cast<size_t>(checked_num_elements(shapes[i])));
        for (size_t k = 0; k < v.size(); ++k) v[k] = static_cast<double>(100 * i + k);
        if (type == ElementType::boolean)
            for (double& x : v) x = static_cast<double>(static_cast<int64_t>(x) % 2);
        in.push_back(make_tensor(type, shapes[i], v));
    }
    return in;
}

class ConcatRows : public ::testing::TestWithParam<ConcatRow> {};

TEST_P(ConcatRows, MatchesExpected) {
    const ConcatRow& r = GetParam();
    const OpTester concat("Concat", 1, {axis(r.axis)});
    EXPECT_TRUE(tensors_equal(concat.run1(make_inputs(ElementType::f32, r.shapes)),
                              make_tensor(ElementType::f32, r.out_shape, r.out)));
}

INSTANTIATE_TEST_SUITE_P(Rows, ConcatRows, ::testing::ValuesIn(kRows),
                         [](const auto& row) { return std::string(row.param.name); });

TEST(Concat, DtypeSweep) {
    const ConcatRow& r = kRows[2];
    ASSERT_STREQ(r.name, "2d_axis_1");
    const OpTester concat("Concat", 1, {axis(r.axis)});
    for (int t = 0; t < kNumElementTypes; ++t) {
        const auto type = static_cast<ElementType>(t);
        SCOPED_TRACE(to_string(type));
        std::vector<double> want = r.out;
        if (type == ElementType::boolean)
            for (double& x : want) x = static_cast<double>(static_cast<int64_t>(x) % 2);
        EXPECT_TRUE(tensors_equal(concat.run1(make_inputs(type, r.shapes)), make_tensor(type, r.out_shape, want)));
    }
}

TEST(Concat, RuleWithPartialShapes) {
    const OpTester concat("Concat", 1, {axis(1)});
    auto infos = concat.infer({unknown(ElementType::f32, {kDynamic, 2}), unknown(ElementType::f32, {3, 4})});
    EXPECT_EQ(infos[0].shape, PartialShape({3, 6}));
    infos = concat.infer({unknown(ElementType::f32, {3, kDynamic}), unknown(ElementType::f32, {3, 4})});
    EXPECT_EQ(infos[0].shape, PartialShape({3, kDynamic}));
    infos = concat.infer({unknown(ElementType::f32, PartialShape::dynamic_rank()), unknown(ElementType::f32, {3, 4})});
    EXPECT_EQ(infos[0].shape, PartialShape({3, kDynamic}));
}

TEST(Concat, Errors) {
    const OpTester concat("Concat", 1, {axis(1)});
    EXPECT_TRUE(throws_error([&] { concat.run1({iota(ElementType::f32, {2, 2}), iota(ElementType::f32, {3, 2})}); },
                             ErrorKind::ShapeRule, "dims-mismatch", "differs from the other inputs in dim 0", 1));
    EXPECT_TRUE(throws_error([&] { concat.run1({iota(ElementType::f32, {2, 2}), iota(ElementType::f32, {2})}); },
                             ErrorKind::ShapeRule, "rank-mismatch", "same rank", 1));
    EXPECT_TRUE(throws_error([&] { concat.run1({iota(ElementType::f32, {2, 2}), iota(ElementType::i32, {2, 2})}); },
                             ErrorKind::Type, "type-mismatch", "type of input 0 (f32)", 1));
    EXPECT_TRUE(throws_error([&] { concat.run1({scalar(1.0f), scalar(2.0f)}); }, ErrorKind::ShapeRule, "rank-invalid",
                             "rank >= 1", 0));
    const OpTester bad_axis("Concat", 1, {axis(2)});
    EXPECT_TRUE(throws_error([&] { bad_axis.run1({iota(ElementType::f32, {2, 2})}); }, ErrorKind::Attribute,
                             "axis-out-of-range", "axis 2 out of the tensor rank range [-2, 1]"));
}

}  // namespace
}  // namespace irlite
