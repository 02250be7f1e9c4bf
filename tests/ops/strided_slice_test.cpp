// StridedSlice-1: slices with every mask (begin/end, new_axis, shrink_axis, ellipsis), clamping
// and negative strides, a dtype sweep, load-time rules, and error rows.
#include <gtest/gtest.h>

#include <optional>

#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

struct Masks {
    std::string begin = "0", end = "0", new_axis = "", shrink = "", ellipsis = "";
};

std::vector<IrAttribute> attrs(const Masks& m) {
    std::vector<IrAttribute> a = {{"begin_mask", m.begin}, {"end_mask", m.end}};
    if (!m.new_axis.empty()) a.push_back({"new_axis_mask", m.new_axis});
    if (!m.shrink.empty()) a.push_back({"shrink_axis_mask", m.shrink});
    if (!m.ellipsis.empty()) a.push_back({"ellipsis_mask", m.ellipsis});
    return a;
}

struct StridedSliceRow {
    const char* name;
    Shape data;  // 0, 1, 2, ...
    std::vector<int64_t> begin, end;
    std::optional<std::vector<int64_t>> stride;
    Masks masks;
    Shape out_shape;
    std::vector<double> out;
};

const StridedSliceRow kRows[] = {
    {"basic", {2, 3, 4}, {1, 0, 0}, {2, 3, 4}, {{1, 1, 1}}, {}, {1, 3, 4},
     {12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}},
    {"negative_end", {2, 3, 4}, {0, 0, 0}, {2, 2, -1}, {{1, 1, 1}}, {}, {2, 2, 3},
     {0, 1, 2, 4, 5, 6, 12, 13, 14, 16, 17, 18}},
    {"spec_masks_reverse", {2, 3, 4}, {1, 1, 123}, {0, 0, 2}, {{1, 1, -1}}, {"0,1,1", "1,1,1"}, {1, 3, 4},
     {15, 14, 13, 12, 19, 18, 17, 16, 23, 22, 21, 20}},
    {"spec_new_axis", {2, 4}, {0, 0, 0, 0}, {0, 2, 0, 4}, {{1, 1, 1, 1}}, {"0,0,0,0", "0,0,0,0", "1,0,1,0"},
     {1, 2, 1, 4}, {0, 1, 2, 3, 4, 5, 6, 7}},
    {"shrink", {2, 3, 4}, {1, 0, 2}, {2, 3, 3}, std::nullopt, {"0", "0", "", "1,0,1"}, {3}, {14, 18, 22}},
    {"shrink_negative_index", {2, 3}, {-1}, {0}, std::nullopt, {"0", "0", "", "1"}, {3}, {3, 4, 5}},
    {"ellipsis", {2, 3, 4}, {0, 1}, {0, 3}, {{1, 1}}, {"0,0", "0,0", "", "", "1"}, {2, 3, 2},
     {1, 2, 5, 6, 9, 10, 13, 14, 17, 18, 21, 22}},
    {"ellipsis_then_new_axis", {2, 3}, {0, 0}, {0, 0}, std::nullopt, {"0,0", "0,0", "0,1", "", "1,0"}, {2, 3, 1},
     {0, 1, 2, 3, 4, 5}},
    {"stride_2", {5}, {0}, {5}, {{2}}, {}, {3}, {0, 2, 4}},
    {"negative_stride_from_end", {5}, {-1}, {-6}, {{-1}}, {}, {5}, {4, 3, 2, 1, 0}},
    {"end_mask_negative_stride_includes_0", {4}, {2}, {0}, {{-1}}, {"0", "1"}, {3}, {2, 1, 0}},
    {"negative_stride_stops_before_end", {4}, {3}, {0}, {{-2}}, {}, {2}, {3, 1}},
    {"begin_past_end_clamped", {4}, {100}, {-100}, {{-1}}, {}, {4}, {3, 2, 1, 0}},
    {"short_begin_keeps_rest", {2, 3}, {1}, {2}, std::nullopt, {}, {1, 3}, {3, 4, 5}},
    {"empty_result", {4}, {3}, {1}, {{1}}, {}, {0}, {}},
    {"huge_stride", {4}, {1}, {4}, {{std::numeric_limits<int64_t>::max()}}, {}, {1}, {1}},
    {"masks_longer_than_entries", {3}, {1}, {2}, std::nullopt, {"0,1,1,1", "0,0,0,0"}, {1}, {1}},
};

std::vector<Tensor> make_inputs(const StridedSliceRow& r, ElementType type) {
    std::vector<Tensor> in = {iota(type, r.data, 1000), i64s(r.begin), i64s(r.end)};
    if (r.stride) in.push_back(i64s(*r.stride));
    return in;
}

class StridedSliceRows : public ::testing::TestWithParam<StridedSliceRow> {};

TEST_P(StridedSliceRows, MatchesNumpy) {
    const StridedSliceRow& r = GetParam();
    const OpTester ss("StridedSlice", 1, attrs(r.masks));
    std::vector<size_t> hidden = {1, 2};
    if (r.stride) hidden.push_back(3);
    EXPECT_TRUE(tensors_equal(ss.run1(make_inputs(r, ElementType::f32), hidden),
                              make_tensor(ElementType::f32, r.out_shape, r.out)));
    EXPECT_TRUE(tensors_equal(ss.run1(make_inputs(r, ElementType::f32)), make_tensor(ElementType::f32, r.out_shape, r.out)));
}

INSTANTIATE_TEST_SUITE_P(Rows, StridedSliceRows, ::testing::ValuesIn(kRows),
                         [](const auto& row) { return std::string(row.param.name); });

TEST(StridedSlice, DtypeSweep) {
    const StridedSliceRow& r = kRows[2];
    ASSERT_STREQ(r.name, "spec_masks_reverse");
    const OpTester ss("StridedSlice", 1, attrs(r.masks));
    for (int t = 0; t < kNumElementTypes; ++t) {
        const auto type = static_cast<ElementType>(t);
        SCOPED_TRACE(to_string(type));
        std::vector<double> want = r.out;
        if (type == ElementType::boolean)
            for (double& v : want) v = static_cast<double>(static_cast<int64_t>(v) % 2);
        EXPECT_TRUE(tensors_equal(ss.run1(make_inputs(r, type)), make_tensor(type, r.out_shape, want)));
    }
}

TEST(StridedSlice, RuleWithUnknownValues) {
    const OpTester ss("StridedSlice", 1, attrs({"0,0,0", "0,0,0", "0,1,0", "0,0,1"}));
    // The rank follows from the masks alone: data rank 2, one new axis, one shrunk dim.
    const auto infos = ss.infer({unknown(ElementType::f32, {4, 5}), unknown(ElementType::i64, {3}),
                                 unknown(ElementType::i64, {3}), unknown(ElementType::i64, {3})});
    EXPECT_EQ(infos[0].shape, PartialShape::all_dynamic(2));
}

TEST(StridedSlice, Errors) {
    const Tensor data = iota(ElementType::f32, {2, 3});
    const OpTester plain("StridedSlice", 1, attrs({}));
    EXPECT_TRUE(throws_error([&] { plain.run1({data, i64s({0, 0}), i64s({1, 1}), i64s({1, 0})}); }, ErrorKind::Value,
                             "step-zero", "stride[1] must not be 0", 3));
    EXPECT_TRUE(throws_error([&] { plain.run1({data, i64s({0, 0, 0}), i64s({1, 1, 1})}); }, ErrorKind::ShapeRule,
                             "too-many-entries", "slicing 3 dims, but data [2,3] has rank 2", 1));
    EXPECT_TRUE(throws_error([&] { plain.run1({data, i64s({0, 0}), i64s({1})}); }, ErrorKind::ShapeRule,
                             "length-mismatch", "equal lengths", 2));
    const OpTester shrink("StridedSlice", 1, attrs({"0", "0", "", "1"}));
    EXPECT_TRUE(throws_error([&] { shrink.run1({data, i64s({2}), i64s({3})}); }, ErrorKind::Value, "index-out-of-range",
                             "begin[0] = 2 selects one element of data dim 0 (shrink_axis_mask): value 2 not in [-2, 1]",
                             1));
    const OpTester two_ellipses("StridedSlice", 1, attrs({"0,0", "0,0", "", "", "1,1"}));
    EXPECT_TRUE(throws_error([&] { two_ellipses.run1({data, i64s({0, 0}), i64s({1, 1})}); }, ErrorKind::Attribute,
                             "attribute-invalid", "more than one 1"));
}

}  // namespace
}  // namespace irlite
