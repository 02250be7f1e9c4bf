// Einsum-7: matmul, batch matmul, transpose, sums, traces and diagonals, implicit output,
// ellipsis broadcasting, integers, and the errors.
#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

OpTester einsum(const char* eq) { return OpTester("Einsum", 7, {{"equation", eq}}); }

TEST(Einsum, ContractionsAndReductions) {
    const Tensor a = make_tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
    const Tensor b = make_tensor<float>({3, 2}, {1, 0, 0, 1, 1, 1});
    EXPECT_EQ(values_of<float>(einsum("ij,jk->ik").run1({a, b})), (std::vector<float>{4, 5, 10, 11}));
    EXPECT_EQ(values_of<float>(einsum("ij->ji").run1({a})), (std::vector<float>{1, 4, 2, 5, 3, 6}));
    EXPECT_EQ(values_of<float>(einsum("ij->").run1({a})), (std::vector<float>{21}));
    EXPECT_EQ(values_of<float>(einsum("ij->j").run1({a})), (std::vector<float>{5, 7, 9}));
    EXPECT_EQ(values_of<float>(einsum("i,i").run1({make_tensor<float>({3}, {1, 2, 3}), make_tensor<float>({3}, {4, 5, 6})})),
              (std::vector<float>{32}));
    // Implicit output: "ij,jk" -> "ik"; "ba" -> "ab" (alphabetical).
    EXPECT_EQ(values_of<float>(einsum("ij,jk").run1({a, b})), (std::vector<float>{4, 5, 10, 11}));
    EXPECT_EQ(values_of<float>(einsum("ba").run1({a})), (std::vector<float>{1, 4, 2, 5, 3, 6}));
    // Outer product, three operands.
    EXPECT_EQ(values_of<float>(einsum("i,j->ij").run1({make_tensor<float>({2}, {1, 2}), make_tensor<float>({2}, {3, 4})})),
              (std::vector<float>{3, 4, 6, 8}));
    EXPECT_EQ(values_of<float>(einsum("i,i,i->").run1({make_tensor<float>({2}, {1, 2}), make_tensor<float>({2}, {3, 4}),
                                                       make_tensor<float>({2}, {5, 6})})),
              (std::vector<float>{63}));
}

TEST(Einsum, DiagonalsEllipsisAndTypes) {
    const Tensor m = make_tensor<int32_t>({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
    EXPECT_EQ(values_of<int32_t>(einsum("ii->i").run1({m})), (std::vector<int32_t>{1, 5, 9}));
    EXPECT_EQ(values_of<int32_t>(einsum("ii").run1({m})), (std::vector<int32_t>{15}));  // trace
    // Ellipsis: batch dims broadcast ([2,1,2,2] x [3,2,2] -> [2,3,2,2]).
    const Tensor x = iota(ElementType::f32, {2, 1, 2, 2}), y = iota(ElementType::f32, {3, 2, 2});
    const Tensor out = einsum("...ij,...jk->...ik").run1({x, y});
    ASSERT_EQ(out.shape(), (Shape{2, 3, 2, 2}));
    // Batch (1, 2): x[1] = [[4,5],[6,7]], y[2] = [[8,9],[10,11]] -> [[82,91],[118,131]].
    const std::vector<float> v = values_of<float>(out);
    EXPECT_EQ(std::vector<float>(v.begin() + 20, v.begin() + 24), (std::vector<float>{82, 91, 118, 131}));
    for (ElementType t : {ElementType::f16, ElementType::f64, ElementType::i64, ElementType::u8}) {
        const Tensor r = einsum("ij->i").run1({make_tensor(t, {2, 2}, {1, 2, 3, 4})});
        EXPECT_EQ(to_doubles(r), (std::vector<double>{3, 7})) << to_string(t);
    }
}

TEST(Einsum, Errors) {
    EXPECT_TRUE(throws_error([] { einsum("ij,jk->ik").run1({iota(ElementType::f32, {2, 4}), iota(ElementType::f32, {5, 2})}); },
                             ErrorKind::ShapeRule, "dims-mismatch", "label j has size 4 in one input and 5 in the other", 1));
    EXPECT_TRUE(throws_error([] { einsum("ijk->i").run1({iota(ElementType::f32, {2, 4})}); }, ErrorKind::ShapeRule, "rank-mismatch",
                             "does not fit", 0));
    EXPECT_TRUE(throws_error([] { einsum("ij->kk").attrs(); }, ErrorKind::Attribute, "attribute-invalid", "appears twice"));
    EXPECT_TRUE(throws_error([] { einsum("i1->i").attrs(); }, ErrorKind::Attribute, "attribute-invalid", "not a letter"));
    EXPECT_TRUE(throws_error([] { einsum("ij,jk->ik").run1({iota(ElementType::f32, {2, 2})}); }, ErrorKind::Graph, "input-count",
                             "2 operands", 0));
}

}  // namespace
}  // namespace irlite
