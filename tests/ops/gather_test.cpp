// Gather-1/7/8: the spec's examples (batch_dims, negative indices, out-of-range indices), scalar
// indices, a dtype sweep, load-time rules, and error rows.
#include <gtest/gtest.h>

#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

struct GatherRow {
    const char* name;
    int64_t batch_dims;
    Shape data_shape;
    std::vector<double> data;  // empty: 1, 2, 3, ...
    Shape indices_shape;
    std::vector<int64_t> indices;
    int64_t axis;
    Shape out_shape;
    std::vector<double> out;
};

const GatherRow kRows[] = {
    {"spec_1_default", 0, {5}, {}, {3}, {0, 0, 4}, 0, {3}, {1, 1, 5}},
    {"spec_2_batch_1", 1, {2, 5}, {}, {2, 3}, {0, 0, 4, 4, 0, 0}, 1, {2, 3}, {1, 1, 5, 10, 6, 6}},
    {"spec_3_batch_2", 2, {2, 2, 5}, {}, {2, 2, 3}, {0, 0, 4, 4, 0, 0, 1, 2, 4, 4, 3, 2}, 2, {2, 2, 3},
     {1, 1, 5, 10, 6, 6, 12, 13, 15, 20, 19, 18}},
    {"spec_4_axis_after_batch", 1, {2, 1, 5, 4}, {}, {2, 3}, {1, 2, 4, 4, 3, 2}, 2, {2, 1, 3, 4},
     {5, 6, 7, 8, 9, 10, 11, 12, 17, 18, 19, 20, 37, 38, 39, 40, 33, 34, 35, 36, 29, 30, 31, 32}},
    {"spec_5_negative_batch", -1, {2, 5}, {}, {2, 3}, {0, 0, 4, 4, 0, 0}, 1, {2, 3}, {1, 1, 5, 10, 6, 6}},
    {"spec_6_negative_indices", 0, {5}, {}, {3}, {0, -2, -1}, 0, {3}, {1, 4, 5}},
    {"spec_7_out_of_range_zeros", 0, {5}, {}, {3}, {3, 10, -20}, 0, {3}, {4, 0, 0}},
    {"scalar_index", 0, {3, 2}, {}, {}, {1}, 0, {2}, {3, 4}},
    {"axis_1_rows", 0, {2, 3}, {}, {2, 2}, {2, 0, 1, 1}, 1, {2, 2, 2}, {3, 1, 2, 2, 6, 4, 5, 5}},
    {"negative_axis", 0, {2, 3}, {}, {1}, {2}, -1, {2, 1}, {3, 6}},
    {"empty_indices", 0, {2, 3}, {}, {0}, {}, 0, {0, 3}, {}},
};

Tensor gather_data(const GatherRow& r, ElementType type) {
    std::vector<double> v = r.data;
    if (v.empty())
        for (int64_t i = 0; i < checked_num_elements(r.data_shape); ++i) v.push_back(static_cast<double>(i + 1));
    return make_tensor(type, r.data_shape, v);
}

class GatherRows : public ::testing::TestWithParam<GatherRow> {};

TEST_P(GatherRows, MatchesSpec) {
    const GatherRow& r = GetParam();
    const OpTester gather("Gather", 8, {{"batch_dims", std::to_string(r.batch_dims)}});
    const Tensor indices = make_tensor<int64_t>(r.indices_shape, r.indices);
    const Tensor out = gather.run1({gather_data(r, ElementType::f32), indices, scalar<int64_t>(r.axis)}, {1});
    EXPECT_TRUE(tensors_equal(out, make_tensor(ElementType::f32, r.out_shape, r.out)));
}

INSTANTIATE_TEST_SUITE_P(Rows, GatherRows, ::testing::ValuesIn(kRows),
                         [](const auto& row) { return std::string(row.param.name); });

TEST(Gather, DtypeSweepAndIndexTypes) {
    const GatherRow& r = kRows[8];
    ASSERT_STREQ(r.name, "axis_1_rows");
    const OpTester gather("Gather", 8);
    for (int t = 0; t < kNumElementTypes; ++t) {
        const auto type = static_cast<ElementType>(t);
        SCOPED_TRACE(to_string(type));
        std::vector<double> want = r.out;
        Tensor data = gather_data(r, type);
        if (type == ElementType::boolean) {
            data = iota(type, r.data_shape);  // 0 1 0 1 0 1
            want = {0, 0, 1, 1, 1, 1, 0, 0};
        }
        const Tensor indices = make_tensor(ElementType::u8, r.indices_shape, {2, 0, 1, 1});
        EXPECT_TRUE(tensors_equal(gather.run1({data, indices, make_tensor<int32_t>({1}, {1})}),
                                  make_tensor(type, r.out_shape, want)));
    }
}

TEST(Gather, Versions1And7RejectOutOfRange) {
    for (int opset : {1, 7}) {
        SCOPED_TRACE(opset);
        const OpTester gather("Gather", opset);
        EXPECT_TRUE(throws_error(
            [&] { gather.run1({iota(ElementType::f32, {5}), make_tensor<int64_t>({2}, {1, 5}), scalar<int64_t>(0)}); },
            ErrorKind::Value, "index-out-of-range", "indices[1] = 5: value 5 not in [-5, 4] (data dim 0 has size 5)", 1));
        // Negative indices count from the end in every version.
        EXPECT_TRUE(tensors_equal(
            gather.run1({iota(ElementType::f32, {5}), make_tensor<int64_t>({1}, {-1}), scalar<int64_t>(0)}),
            make_tensor(ElementType::f32, {1}, {4})));
    }
}

TEST(Gather, BatchDimsOnlyFromVersion7) {
    const OpTester v7("Gather", 7, {{"batch_dims", "1"}});
    EXPECT_TRUE(tensors_equal(v7.run1({iota(ElementType::f32, {2, 3}), make_tensor<int32_t>({2, 1}, {2, 0}),
                                       scalar<int64_t>(1)}),
                              make_tensor(ElementType::f32, {2, 1}, {2, 3})));
}

TEST(Gather, RuleWithUnknowns) {
    const OpTester gather("Gather", 8);
    auto infos = gather.infer({unknown(ElementType::f32, {4, 5, 6}), unknown(ElementType::i64, {2, 3}),
                               unknown(ElementType::i64, {})});
    EXPECT_EQ(infos[0].shape, PartialShape::all_dynamic(4));
    infos = gather.infer({unknown(ElementType::f32, {4, kDynamic, 6}), unknown(ElementType::i64, {2, 3}),
                          known(scalar<int64_t>(0))});
    EXPECT_EQ(infos[0].shape, PartialShape({2, 3, kDynamic, 6}));
}

TEST(Gather, Errors) {
    const OpTester gather("Gather", 8);
    const Tensor data = iota(ElementType::f32, {2, 3});
    EXPECT_TRUE(throws_error([&] { gather.run1({data, i64s({0}), scalar<int64_t>(2)}); }, ErrorKind::Value,
                             "axis-out-of-range", "axis 2 out of the tensor rank range [-2, 1]", 2));
    EXPECT_TRUE(throws_error([&] { gather.run1({data, make_tensor<float>({1}, {0}), scalar<int64_t>(0)}); },
                             ErrorKind::Type, "index-type", "indices must be an integer tensor", 1));
    EXPECT_TRUE(throws_error([&] { gather.run1({data, i64s({0}), i64s({0, 1})}); }, ErrorKind::ShapeRule, "not-scalar",
                             "axis must be a scalar", 2));
    const OpTester batch2("Gather", 8, {{"batch_dims", "2"}});
    EXPECT_TRUE(throws_error([&] { batch2.run1({data, make_tensor<int64_t>({2, 1}, {0, 0}), scalar<int64_t>(1)}); },
                             ErrorKind::Attribute, "attribute-invalid", "batch_dims (2) must not exceed axis (1)"));
    const OpTester batch1("Gather", 8, {{"batch_dims", "1"}});
    EXPECT_TRUE(throws_error([&] { batch1.run1({data, make_tensor<int64_t>({3, 1}, {0, 0, 0}), scalar<int64_t>(1)}); },
                             ErrorKind::ShapeRule, "dims-mismatch", "batch dim 0 differs", 1));
}

}  // namespace
}  // namespace irlite
