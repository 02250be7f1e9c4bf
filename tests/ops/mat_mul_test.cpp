// MatMul-1: shapes (1-D operands, transposes, batch broadcasting), values against a plain-loop
// reference in every supported type, and errors.
#include "nn_test_util.hpp"

namespace irlite::testing {
namespace {

OpTester matmul(bool ta, bool tb) {
    return OpTester("MatMul", 1, {attr("transpose_a", ta ? "true" : "false"), attr("transpose_b", tb ? "1" : "0")});
}

// out[batch..., i, j] = sum_k op(A)[batch..., i, k] * op(B)[batch..., k, j], straight from the spec.
std::vector<double> reference(const Tensor& a, const Tensor& b, bool ta, bool tb) {
    Shape as = a.shape(), bs = b.shape();
    const bool a_vec = as.size() == 1, b_vec = bs.size() == 1;
    if (a_vec) as.insert(as.begin(), 1), ta = false;
    if (b_vec) bs.push_back(1), tb = false;
    const int64_t m = ta ? as[as.size() - 1] : as[as.size() - 2];
    const int64_t k = ta ? as[as.size() - 2] : as[as.size() - 1];
    const int64_t n = tb ? bs[bs.size() - 2] : bs[bs.size() - 1];
    const size_t rank = std::max(as.size(), bs.size());
    while (as.size() < rank) as.insert(as.begin(), 1);
    while (bs.size() < rank) bs.insert(bs.begin(), 1);
    Shape out(rank);
    for (size_t d = 0; d + 2 < rank; ++d) out[d] = std::max(as[d], bs[d]);
    out[rank - 2] = m;
    out[rank - 1] = n;
    const std::vector<double> av = to_doubles(a), bv = to_doubles(b);
    std::vector<double> result(static_cast<size_t>(checked_num_elements(out)));
    for (size_t flat = 0; flat < result.size(); ++flat) {
        const std::vector<int64_t> idx = unravel(static_cast<int64_t>(flat), out);
        std::vector<int64_t> ai(rank), bi(rank);
        for (size_t d = 0; d + 2 < rank; ++d) {
            ai[d] = as[d] == 1 ? 0 : idx[d];
            bi[d] = bs[d] == 1 ? 0 : idx[d];
        }
        double sum = 0;
        for (int64_t p = 0; p < k; ++p) {
            ai[rank - 2] = ta ? p : idx[rank - 2];
            ai[rank - 1] = ta ? idx[rank - 2] : p;
            bi[rank - 2] = tb ? idx[rank - 1] : p;
            bi[rank - 1] = tb ? p : idx[rank - 1];
            sum += av[static_cast<size_t>(ravel(ai, as))] * bv[static_cast<size_t>(ravel(bi, bs))];
        }
        result[flat] = sum;
    }
    return result;
}

struct ShapeRow {
    const char* name;
    Shape a, b;
    bool ta, tb;
    Shape out;
};

const ShapeRow kShapeRows[] = {
    {"plain_2d", {2, 3}, {3, 4}, false, false, {2, 4}},
    {"transpose_a", {3, 2}, {3, 4}, true, false, {2, 4}},
    {"transpose_b", {2, 3}, {4, 3}, false, true, {2, 4}},
    {"transpose_both", {3, 2}, {4, 3}, true, true, {2, 4}},
    {"vector_matrix", {3}, {3, 4}, false, false, {4}},
    {"matrix_vector", {2, 3}, {3}, false, false, {2}},
    {"vector_vector", {3}, {3}, false, false, {}},
    {"vector_ignores_transpose", {3}, {4, 3}, true, true, {4}},
    {"batch_shared_b", {2, 3, 4, 5}, {5, 6}, false, false, {2, 3, 4, 6}},
    {"batch_shared_b_transposed", {2, 4, 5}, {6, 5}, false, true, {2, 4, 6}},
    {"batch_transposed_a", {2, 5, 4}, {5, 6}, true, false, {2, 4, 6}},
    {"batch_broadcast_both", {2, 1, 3, 4}, {5, 4, 2}, false, false, {2, 5, 3, 2}},
    {"batch_broadcast_a", {1, 3, 4}, {3, 4, 2}, false, false, {3, 3, 2}},
    {"batch_transpose_both", {3, 4, 2}, {3, 5, 4}, true, true, {3, 2, 5}},
    {"vector_batch", {4}, {2, 4, 3}, false, false, {2, 3}},
    {"batch_vector", {2, 3, 4}, {4}, false, false, {2, 3}},
    {"zero_inner", {2, 0}, {0, 3}, false, false, {2, 3}},
    {"zero_rows", {0, 3}, {3, 2}, false, false, {0, 2}},
    {"large_blocked", {67, 300}, {300, 71}, false, false, {67, 71}},
    {"large_blocked_transposed", {300, 67}, {71, 300}, true, true, {67, 71}},
    // Larger than one of the f64 product's blocks (nn::gemm): compute still allocates nothing.
    {"larger_than_a_block", {96, 400}, {280, 400}, false, true, {96, 280}},
};

TEST(MatMul, ShapeRule) {
    for (const ShapeRow& row : kShapeRows) {
        SCOPED_TRACE(row.name);
        const auto infos = matmul(row.ta, row.tb).infer({unknown(ElementType::f32, row.a), unknown(ElementType::f32, row.b)});
        ASSERT_EQ(infos.size(), 1u);
        EXPECT_EQ(infos[0].shape, PartialShape(row.out));
        EXPECT_EQ(infos[0].type, ElementType::f32);
    }
}

TEST(MatMul, ValuesMatchReferenceInEveryType) {
    struct TypeCase {
        ElementType type;
        double lo, hi, tol;
    };
    const TypeCase types[] = {{ElementType::f32, -1, 1, 1e-5},  {ElementType::f64, -1, 1, 1e-12},
                              {ElementType::f16, -1, 1, 2e-2},  {ElementType::bf16, -1, 1, 5e-2},
                              {ElementType::i32, -9, 9, 0},     {ElementType::i64, -9, 9, 0},
                              {ElementType::i8, -3, 3, 0},      {ElementType::u16, 0, 9, 0}};
    unsigned seed = 1;
    for (const ShapeRow& row : kShapeRows) {
        for (const TypeCase& tc : types) {
            SCOPED_TRACE(std::string(row.name) + " " + to_string(tc.type));
            const Tensor a = random_tensor(tc.type, row.a, seed++, tc.lo, tc.hi);
            const Tensor b = random_tensor(tc.type, row.b, seed++, tc.lo, tc.hi);
            const Tensor out = matmul(row.ta, row.tb).run1({a, b});
            EXPECT_EQ(out.type(), tc.type);
            EXPECT_EQ(out.shape(), row.out);
            std::vector<double> want = reference(a, b, row.ta, row.tb);
            if (tc.type == ElementType::i8)  // integer products wrap modulo 2^8
                for (double& v : want) v = static_cast<int8_t>(static_cast<uint8_t>(static_cast<int64_t>(v) & 0xFF));
            EXPECT_TRUE(all_close(out, want, tc.tol));
        }
    }
}

TEST(MatMul, HandComputed) {
    const Tensor a = make_tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
    const Tensor b = make_tensor<float>({3, 2}, {7, 8, 9, 10, 11, 12});
    EXPECT_TRUE(tensors_equal(matmul(false, false).run1({a, b}), make_tensor<float>({2, 2}, {58, 64, 139, 154})));
    // A^T B^T with the same storage: [[1,4],[2,5],[3,6]] x [[7,9,11],[8,10,12]]
    EXPECT_TRUE(tensors_equal(matmul(true, true).run1({a, b}),
                              make_tensor<float>({3, 3}, {39, 49, 59, 54, 68, 82, 69, 87, 105})));
}

TEST(MatMul, IntegersWrap) {
    const Tensor a = make_tensor<uint8_t>({1, 2}, {200, 100});
    const Tensor b = make_tensor<uint8_t>({2, 1}, {2, 1});
    EXPECT_TRUE(tensors_equal(matmul(false, false).run1({a, b}), make_tensor<uint8_t>({1, 1}, {(400 + 100) % 256})));
    const Tensor big = make_tensor<int64_t>({1, 1}, {int64_t{1} << 62});
    const Tensor four = make_tensor<int64_t>({1, 1}, {4});
    EXPECT_TRUE(tensors_equal(matmul(false, false).run1({big, four}), make_tensor<int64_t>({1, 1}, {0})));
}

TEST(MatMul, DynamicShapes) {
    struct Row {
        const char* name;
        PartialShape a, b, out;
    };
    const Row rows[] = {
        {"dynamic_rows_and_cols", {kDynamic, 3, 4}, {4, kDynamic}, {kDynamic, 3, kDynamic}},
        {"dynamic_inner", {2, kDynamic}, {kDynamic, 5}, {2, 5}},
        {"broadcast_one_vs_dynamic", {1, 3, 4}, {kDynamic, 4, 5}, {kDynamic, 3, 5}},
        {"broadcast_static_vs_dynamic", {2, 3, 4}, {kDynamic, 4, 5}, {2, 3, 5}},
        {"dynamic_rank", PartialShape::dynamic_rank(), {4, 5}, PartialShape::dynamic_rank()},
    };
    for (const Row& row : rows) {
        SCOPED_TRACE(row.name);
        const auto infos = matmul(false, false).infer({unknown(ElementType::f32, row.a), unknown(ElementType::f32, row.b)});
        EXPECT_EQ(infos[0].shape, row.out);
    }
}

TEST(MatMul, Errors) {
    struct Row {
        const char* name;
        ElementType ta, tb;
        PartialShape a, b;
        ErrorKind kind;
        const char* code;
        const char* text;
        int port;
    };
    const auto f32 = ElementType::f32;
    const Row rows[] = {
        {"inner_dims_differ", f32, f32, {2, 3}, {4, 5}, ErrorKind::ShapeRule, "dims-mismatch", "has K = 3", 1},
        {"batch_not_broadcastable", f32, f32, {2, 3, 4}, {3, 4, 5}, ErrorKind::ShapeRule, "dims-mismatch",
         "do not broadcast", 1},
        {"scalar_a", f32, f32, {}, {4, 5}, ErrorKind::ShapeRule, "rank-invalid", "scalar", 0},
        {"scalar_b", f32, f32, {4, 5}, {}, ErrorKind::ShapeRule, "rank-invalid", "scalar", 1},
        {"types_differ", f32, ElementType::f16, {2, 3}, {3, 4}, ErrorKind::Type, "type-mismatch", "f16", 1},
        {"boolean", ElementType::boolean, ElementType::boolean, {2, 3}, {3, 4}, ErrorKind::Type, "type-unsupported",
         "boolean", 0},
    };
    for (const Row& row : rows) {
        SCOPED_TRACE(row.name);
        EXPECT_TRUE(throws_error([&] { matmul(false, false).infer({unknown(row.ta, row.a), unknown(row.tb, row.b)}); },
                                 row.kind, row.code, row.text, row.port));
    }
    EXPECT_TRUE(throws_error([] { OpTester("MatMul", 1, {attr("transpose_a", "maybe")}).attrs(); }, ErrorKind::Attribute,
                             "attribute-invalid", "transpose_a"));
}

}  // namespace
}  // namespace irlite::testing
