// GatherND-5/8: elements and slices, batch dims (merged in v5, kept in v8), negative indices,
// every element size, and the errors.
#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

OpTester gather_nd(int version, int64_t batch_dims = 0) {
    return OpTester("GatherND", version, {{"batch_dims", std::to_string(batch_dims)}});
}

TEST(GatherNd, ElementsAndSlices) {
    const Tensor data = make_tensor<int32_t>({2, 2}, {0, 1, 2, 3});
    // The spec's / ONNX's examples.
    EXPECT_EQ(values_of<int32_t>(gather_nd(8).run1({data, make_tensor<int64_t>({2, 2}, {0, 0, 1, 1})}, {1})),
              (std::vector<int32_t>{0, 3}));
    const Tensor rows = gather_nd(5).run1({data, make_tensor<int32_t>({2, 1}, {1, 0})});
    ASSERT_EQ(rows.shape(), (Shape{2, 2}));
    EXPECT_EQ(values_of<int32_t>(rows), (std::vector<int32_t>{2, 3, 0, 1}));
    // Negative indices count from the end.
    EXPECT_EQ(values_of<int32_t>(gather_nd(8).run1({data, make_tensor<int64_t>({1, 2}, {-1, -2})})), (std::vector<int32_t>{2}));
    for (ElementType t : {ElementType::u8, ElementType::f16, ElementType::f64, ElementType::boolean}) {
        const Tensor d = iota(t, {3, 2});
        const std::vector<double> all = to_doubles(d);
        EXPECT_EQ(to_doubles(gather_nd(8).run1({d, make_tensor<int64_t>({1, 1}, {2})})), (std::vector<double>{all[4], all[5]}))
            << to_string(t);
    }
}

TEST(GatherNd, BatchDimsMergedInV5KeptInV8) {
    // data [2, 3, 4], indices [2, 2, 2] with batch_dims 1: per batch, two (i, j) pairs.
    const Tensor data = iota(ElementType::f32, {2, 3, 4});
    const Tensor idx = make_tensor<int64_t>({2, 2, 2}, {0, 1, 2, 3, 1, 0, 0, 2});
    const Tensor v8 = gather_nd(8, 1).run1({data, idx});
    ASSERT_EQ(v8.shape(), (Shape{2, 2}));
    EXPECT_EQ(values_of<float>(v8), (std::vector<float>{1, 11, 16, 14}));
    const Tensor v5 = gather_nd(5, 1).run1({data, idx});
    ASSERT_EQ(v5.shape(), (Shape{2, 2}));
    EXPECT_EQ(values_of<float>(v5), (std::vector<float>{1, 11, 16, 14}));
    // batch_dims 2 on [2, 2, 3, 4] with indices [2, 2, 3, 1]: v5 merges to [4, 3, 4], v8 keeps [2, 2, 3, 4].
    const Tensor d4 = iota(ElementType::i32, {2, 2, 3, 4}, 1000);
    const Tensor i4 = make_tensor<int32_t>({2, 2, 3, 1}, {0, 1, 2, 2, 1, 0, 1, 1, 1, 0, 0, 0});
    EXPECT_EQ(gather_nd(5, 2).run1({d4, i4}).shape(), (Shape{4, 3, 4}));
    const Tensor k8 = gather_nd(8, 2).run1({d4, i4});
    EXPECT_EQ(k8.shape(), (Shape{2, 2, 3, 4}));
    std::vector<int32_t> want;
    const auto row = [&](int32_t base) {
        for (int32_t i = 0; i < 4; ++i) want.push_back(base + i);
    };
    for (int32_t r : {0, 4, 8, 20, 16, 12, 28, 28, 28, 36, 36, 36}) row(r);
    EXPECT_EQ(values_of<int32_t>(k8), want);
    EXPECT_EQ(values_of<int32_t>(gather_nd(5, 2).run1({d4, i4})), want);
}

TEST(GatherNd, Errors) {
    const Tensor data = iota(ElementType::f32, {2, 3});
    EXPECT_TRUE(throws_error([&] { gather_nd(8).run1({data, make_tensor<int64_t>({1, 3}, {0, 0, 0})}); }, ErrorKind::ShapeRule,
                             "indices-last-dim", "indices.shape[-1] = 3 exceeds data rank 2", 1));
    EXPECT_TRUE(throws_error([&] { gather_nd(8).run1({data, make_tensor<int64_t>({1, 2}, {2, 0})}); }, ErrorKind::Value,
                             "index-out-of-range", "not in [-2, 1]", 1));
    EXPECT_TRUE(throws_error([&] { gather_nd(8).run1({data, make_tensor<int64_t>({1, 2}, {0, -4})}); }, ErrorKind::Value,
                             "index-out-of-range", "not in [-3, 2]", 1));
    EXPECT_TRUE(throws_error([&] { gather_nd(8, 2).run1({data, make_tensor<int64_t>({2, 1}, {0, 0})}); }, ErrorKind::Attribute,
                             "batch-dims-invalid", "batch_dims = 2", 1));
    EXPECT_TRUE(throws_error([&] { gather_nd(8, 1).run1({data, make_tensor<int64_t>({3, 1}, {0, 0, 0})}); }, ErrorKind::ShapeRule,
                             "batch-dims-mismatch", "batch dim 0", 1));
    EXPECT_TRUE(throws_error([&] { gather_nd(8).run1({data, make_tensor<float>({1, 1}, {0})}); }, ErrorKind::Type, "index-type",
                             "indices", 1));
}

}  // namespace
}  // namespace irlite
