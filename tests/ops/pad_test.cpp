// Pad-1 and Pad-12: the spec's examples for every pad_mode with positive, negative and mixed pads,
// pad_value, a dtype sweep, load-time rules, and error rows.
#include <gtest/gtest.h>

#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

// The spec's data: [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]].
Tensor spec_data(ElementType type = ElementType::f32) {
    return make_tensor(type, {3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
}

struct PadRow {
    const char* name;
    int opset;
    const char* mode;
    std::vector<int64_t> begin, end;
    Shape out_shape;
    std::vector<double> out;
};

const PadRow kRows[] = {
    {"spec_constant", 1, "constant", {0, 1}, {2, 3}, {5, 8},
     {0, 1, 2, 3, 4, 0, 0, 0, 0, 5, 6, 7, 8, 0, 0, 0, 0, 9, 10, 11, 12, 0, 0, 0,
      0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
    {"spec_edge", 1, "edge", {0, 1}, {2, 3}, {5, 8},
     {1, 1, 2, 3, 4, 4, 4, 4, 5, 5, 6, 7, 8, 8, 8, 8, 9, 9, 10, 11, 12, 12, 12, 12,
      9, 9, 10, 11, 12, 12, 12, 12, 9, 9, 10, 11, 12, 12, 12, 12}},
    {"spec_reflect", 1, "reflect", {0, 1}, {2, 3}, {5, 8},
     {2, 1, 2, 3, 4, 3, 2, 1, 6, 5, 6, 7, 8, 7, 6, 5, 10, 9, 10, 11, 12, 11, 10, 9,
      6, 5, 6, 7, 8, 7, 6, 5, 2, 1, 2, 3, 4, 3, 2, 1}},
    {"spec_symmetric", 1, "symmetric", {0, 1}, {2, 3}, {5, 8},
     {1, 1, 2, 3, 4, 4, 3, 2, 5, 5, 6, 7, 8, 8, 7, 6, 9, 9, 10, 11, 12, 12, 11, 10,
      9, 9, 10, 11, 12, 12, 11, 10, 5, 5, 6, 7, 8, 8, 7, 6}},
    {"spec_negative_constant", 12, "constant", {-1, -1}, {-1, -1}, {1, 2}, {6, 7}},
    {"spec_negative_reflect", 12, "reflect", {-1, -1}, {-1, -1}, {1, 2}, {6, 7}},
    {"spec_mixed_constant", 12, "constant", {2, -1}, {-1, 3}, {4, 6},
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 3, 4, 0, 0, 0, 6, 7, 8, 0, 0, 0}},
    {"spec_mixed_edge", 12, "edge", {2, -1}, {-1, 3}, {4, 6},
     {2, 3, 4, 4, 4, 4, 2, 3, 4, 4, 4, 4, 2, 3, 4, 4, 4, 4, 6, 7, 8, 8, 8, 8}},
    {"spec_mixed_reflect", 12, "reflect", {2, -1}, {-1, 3}, {4, 6},
     {10, 11, 12, 11, 10, 9, 6, 7, 8, 7, 6, 5, 2, 3, 4, 3, 2, 1, 6, 7, 8, 7, 6, 5}},
    {"spec_mixed_symmetric", 12, "symmetric", {2, -1}, {-1, 3}, {4, 6},
     {6, 7, 8, 8, 7, 6, 2, 3, 4, 4, 3, 2, 2, 3, 4, 4, 3, 2, 6, 7, 8, 8, 7, 6}},
    {"crop_to_empty", 12, "constant", {-2, 0}, {-1, 0}, {0, 4}, {}},
    {"no_pads", 1, "edge", {0, 0}, {0, 0}, {3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}},
};

class PadRows : public ::testing::TestWithParam<PadRow> {};

TEST_P(PadRows, MatchesSpec) {
    const PadRow& r = GetParam();
    const OpTester pad("Pad", r.opset, {{"pad_mode", r.mode}});
    EXPECT_TRUE(tensors_equal(pad.run1({spec_data(), i64s(r.begin), i64s(r.end)}, {1, 2}),
                              make_tensor(ElementType::f32, r.out_shape, r.out)));
}

INSTANTIATE_TEST_SUITE_P(Rows, PadRows, ::testing::ValuesIn(kRows),
                         [](const auto& row) { return std::string(row.param.name); });

TEST(Pad, PadValue) {
    const OpTester pad("Pad", 12, {{"pad_mode", "constant"}});
    EXPECT_TRUE(tensors_equal(pad.run1({make_tensor<float>({2}, {1, 2}), i64s({1}), i64s({2}), scalar(7.5f)}),
                              make_tensor<float>({5}, {7.5f, 1, 2, 7.5f, 7.5f})));
}

TEST(Pad, DtypeSweep) {
    const PadRow& r = kRows[9];
    ASSERT_STREQ(r.name, "spec_mixed_symmetric");
    const OpTester pad("Pad", 12, {{"pad_mode", r.mode}});
    const OpTester constant("Pad", 12, {{"pad_mode", "constant"}});
    for (int t = 0; t < kNumElementTypes; ++t) {
        const auto type = static_cast<ElementType>(t);
        SCOPED_TRACE(to_string(type));
        if (type == ElementType::boolean) continue;  // the spec data is not boolean
        EXPECT_TRUE(tensors_equal(pad.run1({spec_data(type), i32s({2, -1}), i32s({-1, 3})}),
                                  make_tensor(type, r.out_shape, r.out)));
        EXPECT_TRUE(tensors_equal(constant.run1({make_tensor(type, {1}, {5}), i64s({1}), i64s({1}),
                                                 make_tensor(type, {}, {3})}),
                                  make_tensor(type, {3}, {3, 5, 3})));
    }
    EXPECT_TRUE(tensors_equal(constant.run1({make_tensor<bool>({1}, {true}), i64s({1}), i64s({0})}),
                              make_tensor<bool>({2}, {false, true})));
}

TEST(Pad, RuleWithUnknownPads) {
    const OpTester pad("Pad", 12, {{"pad_mode", "constant"}});
    auto infos = pad.infer({unknown(ElementType::f32, {2, 3}), unknown(ElementType::i64, {2}),
                            unknown(ElementType::i64, {2})});
    EXPECT_EQ(infos[0].shape, PartialShape::all_dynamic(2));
    infos = pad.infer({unknown(ElementType::f32, {kDynamic, 3}), known(i64s({1, 1})), known(i64s({0, 2}))});
    EXPECT_EQ(infos[0].shape, PartialShape({kDynamic, 6}));
}

TEST(Pad, Errors) {
    const OpTester v1("Pad", 1, {{"pad_mode", "constant"}});
    EXPECT_TRUE(throws_error([&] { v1.run1({spec_data(), i64s({-1, 0}), i64s({0, 0})}); }, ErrorKind::Value,
                             "value-out-of-range", "pads_begin[0] = -1 is negative", 1));
    EXPECT_TRUE(throws_error([&] { v1.run1({spec_data(), i64s({0}), i64s({0, 0})}); }, ErrorKind::ShapeRule,
                             "pads-length", "pads_begin has 1 values but data [3,4] has rank 2", 1));
    const OpTester reflect("Pad", 12, {{"pad_mode", "reflect"}});
    EXPECT_TRUE(throws_error([&] { reflect.run1({spec_data(), i64s({0, 0}), i64s({3, 0})}); }, ErrorKind::Value,
                             "value-out-of-range", "pads_end[0] = 3: value 3 not in [0, 2] (pad_mode reflect", 2));
    const OpTester symmetric("Pad", 12, {{"pad_mode", "symmetric"}});
    EXPECT_TRUE(throws_error([&] { symmetric.run1({spec_data(), i64s({0, 5}), i64s({0, 0})}); }, ErrorKind::Value,
                             "value-out-of-range", "value 5 not in [0, 4]", 1));
    const OpTester v12("Pad", 12, {{"pad_mode", "constant"}});
    EXPECT_TRUE(throws_error([&] { v12.run1({spec_data(), i64s({-2, 0}), i64s({-2, 0})}); }, ErrorKind::ShapeRule,
                             "pads-crop-too-much", "-2 + 3 + -2 = -1", 2));
    EXPECT_TRUE(throws_error([&] { v12.run1({spec_data(), i64s({0, 0}), i64s({0, 0}), scalar<int32_t>(1)}); },
                             ErrorKind::Type, "type-mismatch", "pad_value must have data's type f32", 3));
    EXPECT_TRUE(throws_error([&] { OpTester("Pad", 12, {{"pad_mode", "wrap"}}).attrs(); }, ErrorKind::Attribute,
                             "attribute-invalid", "expected one of constant, edge, reflect, symmetric"));
}

}  // namespace
}  // namespace irlite
