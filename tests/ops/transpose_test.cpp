// Transpose-1: permutations (incl. the empty order = reverse), views when only dims of size 1 move,
// a dtype sweep, load-time rules, and error rows.
#include <gtest/gtest.h>

#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

// out[o] = in[permuted coordinates], computed the slow way.
std::vector<double> reference(const Shape& in_shape, const std::vector<int64_t>& order) {
    Shape out_shape;
    for (int64_t a : order) out_shape.push_back(in_shape[static_cast<size_t>(a)]);
    const auto in_strides = row_major_strides(in_shape);
    const int64_t n = checked_num_elements(out_shape);
    std::vector<double> out;
    for (int64_t flat = 0; flat < n; ++flat) {
        int64_t rest = flat, offset = 0;
        for (size_t d = out_shape.size(); d-- > 0;) {
            offset += (rest % out_shape[d]) * in_strides[static_cast<size_t>(order[d])];
            rest /= out_shape[d];
        }
        out.push_back(static_cast<double>(offset % 1000));
    }
    return out;
}

struct TransposeRow {
    const char* name;
    Shape data;
    std::vector<int64_t> order;  // as given to the op
    std::vector<int64_t> permutation;  // the effective one
};

const TransposeRow kRows[] = {
    {"matrix", {2, 3}, {1, 0}, {1, 0}},
    {"default_reverses", {2, 3, 4}, {}, {2, 1, 0}},
    {"perm_021", {2, 3, 4}, {0, 2, 1}, {0, 2, 1}},
    {"perm_102", {2, 3, 4}, {1, 0, 2}, {1, 0, 2}},
    {"perm_120", {2, 3, 4}, {1, 2, 0}, {1, 2, 0}},
    {"perm_201", {2, 3, 4}, {2, 0, 1}, {2, 0, 1}},
    {"identity", {2, 3, 4}, {0, 1, 2}, {0, 1, 2}},
    {"nchw_to_nhwc", {2, 3, 4, 5}, {0, 2, 3, 1}, {0, 2, 3, 1}},
    {"five_d", {2, 1, 3, 2, 2}, {4, 2, 0, 3, 1}, {4, 2, 0, 3, 1}},
    {"scalar", {}, {}, {}},
    {"empty_dim", {0, 3}, {1, 0}, {1, 0}},
};

class TransposeRows : public ::testing::TestWithParam<TransposeRow> {};

TEST_P(TransposeRows, MatchesReference) {
    const TransposeRow& r = GetParam();
    const OpTester transpose("Transpose", 1);
    const Tensor out = transpose.run1({iota(ElementType::f32, r.data, 1000), i64s(r.order)}, {1});
    Shape shape;
    for (int64_t a : r.permutation) shape.push_back(r.data[static_cast<size_t>(a)]);
    EXPECT_TRUE(tensors_equal(out, make_tensor(ElementType::f32, shape, reference(r.data, r.permutation))));
}

INSTANTIATE_TEST_SUITE_P(Rows, TransposeRows, ::testing::ValuesIn(kRows),
                         [](const auto& row) { return std::string(row.param.name); });

TEST(Transpose, DtypeSweep) {
    const OpTester transpose("Transpose", 1);
    const Shape shape = {3, 2, 4};
    const std::vector<int64_t> order = {2, 0, 1};
    for (int t = 0; t < kNumElementTypes; ++t) {
        const auto type = static_cast<ElementType>(t);
        SCOPED_TRACE(to_string(type));
        std::vector<double> want = reference(shape, order);
        if (type == ElementType::boolean)
            for (double& v : want) v = static_cast<double>(static_cast<int64_t>(v) % 2);
        EXPECT_TRUE(tensors_equal(transpose.run1({iota(type, shape, 1000), i32s({2, 0, 1})}),
                                  make_tensor(type, {4, 3, 2}, want)));
    }
}

TEST(Transpose, MovingOnlyUnitDimsIsAView) {
    const OpTester transpose("Transpose", 1);
    const Tensor data = iota(ElementType::f32, {1, 3, 1, 4});
    const Tensor out = transpose.run1({data, i64s({2, 1, 3, 0})});
    EXPECT_EQ(out.shape(), (Shape{1, 3, 4, 1}));
    EXPECT_TRUE(tensors_equal(out.reshaped(data.shape()), data));
    // The plan says so: the executor makes such an output a view and runs no kernel.
    EXPECT_EQ(transpose.plan({data, i64s({2, 1, 3, 0})})->views.size(), 1u);
    EXPECT_TRUE(transpose.plan({data, i64s({0, 3, 2, 1})})->views.empty());
}

TEST(Transpose, RuleWithUnknownOrder) {
    const OpTester transpose("Transpose", 1);
    auto infos = transpose.infer({unknown(ElementType::f32, {2, 3}), unknown(ElementType::i64, {2})});
    EXPECT_EQ(infos[0].shape, PartialShape::all_dynamic(2));
    infos = transpose.infer({unknown(ElementType::f32, {kDynamic, 3}), known(i64s({1, 0}))});
    EXPECT_EQ(infos[0].shape, PartialShape({3, kDynamic}));
}

TEST(Transpose, Errors) {
    const OpTester transpose("Transpose", 1);
    const Tensor data = iota(ElementType::f32, {2, 3});
    EXPECT_TRUE(throws_error([&] { transpose.run1({data, i64s({0})}); }, ErrorKind::ShapeRule, "order-invalid",
                             "order has 1 values but data [2,3] has rank 2", 1));
    EXPECT_TRUE(throws_error([&] { transpose.run1({data, i64s({0, 2})}); }, ErrorKind::Value, "value-out-of-range",
                             "order[1] = 2: value 2 not in [0, 1]", 1));
    EXPECT_TRUE(throws_error([&] { transpose.run1({data, i64s({1, 1})}); }, ErrorKind::Value, "order-invalid",
                             "repeats an axis", 1));
    EXPECT_TRUE(throws_error([&] { transpose.run1({data, make_tensor<float>({2}, {1, 0})}); }, ErrorKind::Type,
                             "index-type", "order must be an integer tensor", 1));
}

}  // namespace
}  // namespace irlite
