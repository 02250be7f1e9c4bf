// GatherElements-6: OpenVINO's op_reference vectors and spec examples, negative indices (irlite
// accepts [-d, d-1], as ONNX does), a dtype sweep over 1/2/4/8-byte types, shape rules with
// partial shapes, and error rows.
#include <gtest/gtest.h>

#include <iterator>

#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

struct GatherRow {
    const char* name;
    int64_t axis;
    ElementType type;
    Shape data_shape;
    std::vector<double> data;
    Shape indices_shape;  // = output shape
    std::vector<int64_t> indices;
    std::vector<double> out;
};

// From ../shared/conformance/ov_vectors.json, then irlite's own rows.
// clang-format off
const GatherRow kRows[] = {
    {"1D_3_indices_int32", 0, ElementType::f32, {3}, {1, 2, 3}, {7}, {1, 2, 0, 2, 0, 0, 2}, {2, 3, 1, 3, 1, 1, 3}},
    {"2D_2x2_indices_int32_axis_0", 0, ElementType::f32, {2, 2}, {1, 2, 3, 4}, {2, 2}, {0, 1, 0, 0}, {1, 4, 1, 2}},
    {"2D_2x2_indices_int32_axis_1", 1, ElementType::f32, {2, 2}, {1, 2, 3, 4}, {2, 2}, {0, 1, 0, 0}, {1, 2, 3, 3}},
    {"2D_2x2_indices_int32_axis_minus_1", -1, ElementType::f32, {2, 2}, {1, 2, 3, 4}, {2, 2}, {0, 1, 0, 0},
     {1, 2, 3, 3}},
    {"2D_2x3_indices_int32", 0, ElementType::f32, {3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}, {2, 3}, {1, 2, 0, 2, 0, 0},
     {4, 8, 3, 7, 2, 3}},
    {"3D_3x2x2_indices_int32", -1, ElementType::f32, {3, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, {3, 2, 2},
     {1, 0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 1}, {2, 1, 3, 4, 6, 6, 8, 7, 9, 9, 12, 12}},
    {"4D_3x2x2x2", -1, ElementType::f32, {3, 2, 2, 2},
     {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24}, {3, 2, 2, 4},
     {1, 0, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0, 1, 0, 1, 0, 1, 1, 1, 1, 1,
      0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 0},
     {2, 1, 1, 1, 3, 4, 4, 3, 6, 6, 6, 6, 8, 7, 7, 8, 9, 9, 9, 10, 12, 12, 12, 11, 13, 13, 13, 13, 16, 15, 16, 15, 18,
      18, 18, 18, 20, 19, 20, 19, 22, 21, 21, 22, 23, 23, 23, 23}},
    {"2D_2x2x1_data_float32", 0, ElementType::f32, {2, 2, 1}, {5, 4, 1, 4}, {4, 2, 1}, {0, 0, 1, 1, 1, 1, 0, 1},
     {5, 4, 1, 4, 1, 4, 5, 4}},
    {"2D_3x2_data_bool", 0, ElementType::boolean, {3, 2}, {1, 0, 1, 1, 0, 0}, {2, 2}, {0, 1, 0, 2}, {1, 1, 1, 0}},
    {"example2", 1, ElementType::f32, {2, 2}, {1, 7, 4, 3}, {2, 3}, {1, 1, 0, 1, 0, 1}, {7, 7, 1, 3, 4, 3}},
    {"example3", 0, ElementType::f32, {3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}, {2, 3}, {1, 0, 1, 1, 2, 0},
     {4, 2, 6, 4, 8, 3}},
    {"negative_indices", 1, ElementType::f32, {2, 3}, {1, 2, 3, 4, 5, 6}, {2, 4}, {-1, -3, 0, 2, -2, 1, -1, -3},
     {3, 1, 1, 3, 5, 5, 6, 4}},
    {"larger_axis_dim", 0, ElementType::f32, {2, 2}, {1, 2, 3, 4}, {3, 2}, {1, 0, 0, 1, 1, 1}, {3, 2, 1, 4, 3, 4}},
    {"empty_axis_dim", 1, ElementType::f32, {2, 3}, {1, 2, 3, 4, 5, 6}, {2, 0}, {}, {}},
    {"middle_axis", 1, ElementType::f32, {2, 3, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, {2, 1, 2}, {2, 0, 1, -1},
     {4, 1, 8, 11}},
};
// clang-format on

std::vector<Tensor> inputs_of(const GatherRow& r, ElementType type, ElementType index_type) {
    std::vector<double> idx(r.indices.begin(), r.indices.end());
    return {make_tensor(type, r.data_shape, r.data), make_tensor(index_type, r.indices_shape, idx)};
}

OpTester tester(int64_t axis) { return OpTester("GatherElements", 6, {{"axis", std::to_string(axis)}}); }

class GatherElementsCompute : public ::testing::TestWithParam<GatherRow> {};

TEST_P(GatherElementsCompute, MatchesExpected) {
    const GatherRow& r = GetParam();
    for (ElementType index_type : {ElementType::i32, ElementType::i64}) {
        SCOPED_TRACE(to_string(index_type));
        const Tensor out = tester(r.axis).run1(inputs_of(r, r.type, index_type), {0, 1});
        EXPECT_TRUE(tensors_equal(out, make_tensor(r.type, r.indices_shape, r.out)));
    }
}

INSTANTIATE_TEST_SUITE_P(Rows, GatherElementsCompute, ::testing::ValuesIn(kRows),
                         [](const auto& row) { return std::string(row.param.name); });

TEST(GatherElements, DtypeSweep) {
    for (const GatherRow& r : {kRows[6], kRows[std::size(kRows) - 1]}) {
        for (int t = 0; t < kNumElementTypes; ++t) {
            const auto type = static_cast<ElementType>(t);
            SCOPED_TRACE(std::string(r.name) + " " + to_string(type));
            EXPECT_TRUE(tensors_equal(tester(r.axis).run1(inputs_of(r, type, ElementType::i64)),
                                      make_tensor(type, r.indices_shape, r.out)));
        }
    }
}

// ---- shape rule ------------------------------------------------------------------------------

struct RuleRow {
    const char* name;
    int64_t axis;
    PartialShape data, indices, out;
};

TEST(GatherElements, ShapeRule) {
    const RuleRow rows[] = {
        {"static", -2, {1, 2, 3, 4}, {1, 2, 10, 4}, {1, 2, 10, 4}},
        {"smaller_axis_dim", 0, {3, 3}, {2, 3}, {2, 3}},
        {"larger_axis_dim", 2, {300, 3, 10}, {300, 3, 10000}, {300, 3, 10000}},
        {"zero_axis_dim", 0, {3, 3}, {0, 3}, {0, 3}},
        {"dynamic_dims_merge", 0, {4, 4, kDynamic}, {1, kDynamic, 5}, {1, 4, 5}},
        {"dynamic_out_dim", 0, {4, 4, kDynamic}, {1, kDynamic, kDynamic}, {1, 4, kDynamic}},
        {"dynamic_axis_dim", 1, {4, kDynamic}, {4, 7}, {4, 7}},
        {"data_rank_dynamic", 0, PartialShape::dynamic_rank(), {4, 7, 5}, {4, 7, 5}},
        {"indices_rank_dynamic", 0, {4, kDynamic, 5}, PartialShape::dynamic_rank(), {kDynamic, kDynamic, 5}},
        {"indices_rank_dynamic_static_data", -3, {4, 7, 5}, PartialShape::dynamic_rank(), {kDynamic, 7, 5}},
        {"both_dynamic", 5, PartialShape::dynamic_rank(), PartialShape::dynamic_rank(), PartialShape::dynamic_rank()},
    };
    for (const RuleRow& r : rows) {
        SCOPED_TRACE(r.name);
        const std::vector<OutputInfo> out =
            tester(r.axis).infer({unknown(ElementType::u16, r.data), unknown(ElementType::i64, r.indices)});
        ASSERT_EQ(out.size(), 1u);
        EXPECT_EQ(out[0].type, ElementType::u16);
        EXPECT_EQ(out[0].shape, r.out) << to_string(out[0].shape);
    }
}

// ---- errors --------------------------------------------------------------------------------

TEST(GatherElements, ShapeRuleErrors) {
    struct Row {
        const char* name;
        int64_t axis;
        PartialShape data, indices;
        ElementType index_type;
        ErrorKind kind;
        const char* code;
        int port;
        const char* message;
    };
    const Row rows[] = {
        {"indices_u32",
         1,
         {3, 3},
         {2, 1},
         ElementType::u32,
         ErrorKind::Type,
         "index-type",
         1,
         "indices must be an integer tensor (i32 or i64), got u32"},
        {"indices_f32", 1, {3, 3}, {2, 1}, ElementType::f32, ErrorKind::Type, "index-type", 1, "got f32"},
        {"axis_out_of_range",
         -33,
         {3, 3},
         {2, 1},
         ElementType::i32,
         ErrorKind::Attribute,
         "axis-out-of-range",
         -1,
         "attribute 'axis' = -33: axis -33 out of the tensor rank range [-2, 1]"},
        {"axis_out_of_range_indices_rank",
         3,
         PartialShape::dynamic_rank(),
         {2, 1, 1},
         ElementType::i32,
         ErrorKind::Attribute,
         "axis-out-of-range",
         -1,
         "axis 3 out of the tensor rank range [-3, 2]"},
        {"rank_mismatch",
         0,
         {3, 3},
         {2, 3, 3333},
         ElementType::i32,
         ErrorKind::ShapeRule,
         "rank-mismatch",
         1,
         "indices has rank 3, data has rank 2; they must be equal"},
        {"non_axis_dim_smaller",
         1,
         {3, 3},
         {2, 1},
         ElementType::i32,
         ErrorKind::ShapeRule,
         "shape-mismatch",
         1,
         "indices shape [2,1] differs from data shape [3,3] in dim 0 (2 vs 3); only the axis dim (1) may differ"},
        {"non_axis_dim_larger",
         0,
         {4, 2, 4, kDynamic},
         {1, 3, kDynamic, 5},
         ElementType::i64,
         ErrorKind::ShapeRule,
         "shape-mismatch",
         1,
         "in dim 1 (3 vs 2)"},
        {"scalar_data",
         0,
         {},
         {1},
         ElementType::i32,
         ErrorKind::ShapeRule,
         "rank-invalid",
         0,
         "data must have rank >= 1"},
        {"scalar_indices",
         0,
         {3},
         {},
         ElementType::i32,
         ErrorKind::ShapeRule,
         "rank-invalid",
         1,
         "indices must have rank >= 1"},
    };
    for (const Row& r : rows) {
        SCOPED_TRACE(r.name);
        EXPECT_TRUE(throws_error(
            [&] {
                tester(r.axis).infer({unknown(ElementType::f32, r.data), unknown(r.index_type, r.indices)});
            },
            r.kind, r.code, r.message, r.port));
    }
    EXPECT_TRUE(throws_error([] { OpTester("GatherElements", 6).attrs(); }, ErrorKind::Attribute, "attribute-missing",
                             "required attribute 'axis' is missing"));
}

TEST(GatherElements, IndexErrors) {
    struct Row {
        const char* name;
        int64_t axis;
        Shape data_shape, indices_shape;
        std::vector<int64_t> indices;
        const char* message;
    };
    const Row rows[] = {
        {"past_the_end_1d",
         0,
         {3},
         {7},
         {1, 2, 0, 2, 0, 0, 8},
         "indices[6] = 8: value 8 not in [-3, 2] (data dim 0 has size 3)"},
        {"past_the_end_2d", 0, {3, 3}, {2, 3}, {1, 3, 0, 2, 0, 0}, "indices[0,1] = 3: value 3 not in [-3, 2]"},
        {"too_negative",
         1,
         {2, 2},
         {2, 2},
         {0, 1, -3, 0},
         "indices[1,0] = -3: value -3 not in [-2, 1] (data dim 1 has size 2)"},
        {"empty_data_axis", 0, {0, 2}, {1, 2}, {0, 0}, "indices[0,0] = 0: value 0 not in [0, -1]"},
        // The last-axis path: an empty row, and a bad index after good ones in one run.
        {"empty_last_axis", 1, {2, 0}, {2, 1}, {0, 0}, "indices[0,0] = 0: value 0 not in [0, -1]"},
        {"late_in_a_row", 1, {1, 40}, {1, 40}, [] {
             std::vector<int64_t> v(40, 3);
             v[37] = 40;
             return v;
         }(), "indices[0,37] = 40: value 40 not in [-40, 39]"},
    };
    for (const Row& r : rows) {
        SCOPED_TRACE(r.name);
        for (ElementType index_type : {ElementType::i32, ElementType::i64}) {
            std::vector<double> idx(r.indices.begin(), r.indices.end());
            const std::vector<Tensor> in = {iota(ElementType::i32, r.data_shape),
                                            make_tensor(index_type, r.indices_shape, idx)};
            // Const indices: the shape rule reports them at load time (what `irlite check` sees);
            // indices bound at run time: the kernel does, with the same words.
            EXPECT_TRUE(throws_error([&] { tester(r.axis).run(in); }, ErrorKind::Value, "index-out-of-range",
                                     std::string("input 1 'indices': ") + r.message, 1));
            EXPECT_TRUE(throws_error([&] { tester(r.axis).run_kernel(in, {1}); }, ErrorKind::Value,
                                     "index-out-of-range", std::string("input 1 'indices': ") + r.message, 1));
        }
    }
}

}  // namespace
}  // namespace irlite
