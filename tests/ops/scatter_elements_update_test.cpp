// ScatterElementsUpdate-3/12: the spec's examples, every reduction with and without the initial
// value, duplicates, negative indices and axes, types, and the errors.
#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

OpTester seu12(const char* reduction, bool init) {
    return OpTester("ScatterElementsUpdate", 12, {{"reduction", reduction}, {"use_init_val", init ? "true" : "false"}});
}

TEST(ScatterElementsUpdate, SpecExamples) {
    const Tensor data = make_tensor<float>({4}, {2, 3, 4, 6});
    const Tensor upd = make_tensor<float>({6}, {10, 20, 30, 40, 70, 60});
    // Example 1: sum with the initial value, negative indices.
    EXPECT_EQ(values_of<float>(seu12("sum", true).run1({data, make_tensor<int64_t>({6}, {1, 0, 0, -2, -1, 2}), upd, i64s({0})})),
              (std::vector<float>{52, 13, 104, 76}));
    // Example 2: sum without it.
    EXPECT_EQ(values_of<float>(seu12("sum", false).run1({data, make_tensor<int64_t>({6}, {1, 0, 0, 2, 3, 2}), upd, i64s({0})})),
              (std::vector<float>{50, 10, 100, 70}));
    // Example 3 (v3, none, axis 1) and 4/5 (sum, prod).
    const Tensor idx = make_tensor<int32_t>({2, 2}, {1, 2, 0, 3});
    const Tensor u = make_tensor<int32_t>({2, 2}, {11, 12, 13, 14});
    EXPECT_EQ(values_of<int32_t>(OpTester("ScatterElementsUpdate", 3).run1({iota(ElementType::i32, {3, 4}, 1), idx, u, scalar<int64_t>(1)})),
              (std::vector<int32_t>{0, 11, 12, 0, 13, 0, 0, 14, 0, 0, 0, 0}));
    const Tensor idx2 = make_tensor<int32_t>({2, 2}, {1, 1, 0, 3});
    const Tensor ones = make_tensor<int32_t>({3, 4}, std::vector<int32_t>(12, 1));
    EXPECT_EQ(values_of<int32_t>(seu12("sum", true).run1({ones, idx2, u, i64s({1})})),
              (std::vector<int32_t>{1, 24, 1, 1, 14, 1, 1, 15, 1, 1, 1, 1}));
    const Tensor twos = make_tensor<int32_t>({3, 4}, std::vector<int32_t>(12, 2));
    EXPECT_EQ(values_of<int32_t>(seu12("prod", true).run1({twos, idx2, u, i64s({1})})),
              (std::vector<int32_t>{2, 264, 2, 2, 26, 2, 2, 28, 2, 2, 2, 2}));
}

TEST(ScatterElementsUpdate, MinMaxMeanAndTypes) {
    const Tensor data = make_tensor<float>({3}, {5, 5, 5});
    const Tensor idx = make_tensor<int64_t>({4}, {0, 0, 2, 2});
    const Tensor upd = make_tensor<float>({4}, {1, 9, 7, 8});
    EXPECT_EQ(values_of<float>(seu12("min", true).run1({data, idx, upd, i64s({0})})), (std::vector<float>{1, 5, 5}));
    EXPECT_EQ(values_of<float>(seu12("max", false).run1({data, idx, upd, i64s({0})})), (std::vector<float>{9, 5, 8}));
    EXPECT_EQ(values_of<float>(seu12("mean", true).run1({data, idx, upd, i64s({0})})), (std::vector<float>{5, 5, 20.0f / 3}));
    EXPECT_EQ(values_of<float>(seu12("mean", false).run1({data, idx, upd, i64s({0})})), (std::vector<float>{5, 5, 7.5f}));
    // Integer mean rounds down (towards negative infinity).
    EXPECT_EQ(values_of<int32_t>(seu12("mean", false).run1({make_tensor<int32_t>({2}, {0, 0}), make_tensor<int32_t>({3}, {0, 0, 1}),
                                                           make_tensor<int32_t>({3}, {-3, -4, 5}), i64s({0})})),
              (std::vector<int32_t>{-4, 5}));
    // Booleans: sum is OR, prod is AND; mean is rejected.
    const Tensor b = make_tensor<bool>({2}, {false, true});
    EXPECT_EQ(values_of<bool>(seu12("sum", true).run1({b, make_tensor<int64_t>({1}, {0}), make_tensor<bool>({1}, {true}), i64s({0})})),
              (std::vector<bool>{true, true}));
    EXPECT_EQ(values_of<bool>(seu12("prod", true).run1({b, make_tensor<int64_t>({1}, {1}), make_tensor<bool>({1}, {false}), i64s({0})})),
              (std::vector<bool>{false, false}));
    EXPECT_TRUE(throws_error([&] { seu12("mean", true).run1({b, make_tensor<int64_t>({1}, {0}), make_tensor<bool>({1}, {true}), i64s({0})}); },
                             ErrorKind::Type, "element-type-unsupported", "mean", 0));
    for (ElementType t : {ElementType::f16, ElementType::bf16, ElementType::f64, ElementType::u8, ElementType::i64}) {
        const Tensor out = seu12("sum", true).run1({make_tensor(t, {3}, {1, 2, 3}), make_tensor<int64_t>({2}, {2, 2}),
                                                    make_tensor(t, {2}, {1, 1}), i64s({-1})});
        EXPECT_EQ(to_doubles(out), (std::vector<double>{1, 2, 5})) << to_string(t);
    }
}

TEST(ScatterElementsUpdate, Errors) {
    const Tensor data = iota(ElementType::f32, {2, 3});
    const OpTester v3("ScatterElementsUpdate", 3);
    EXPECT_TRUE(throws_error([&] { v3.run1({data, make_tensor<int64_t>({2}, {0, 1}), iota(ElementType::f32, {2}), i64s({0})}); },
                             ErrorKind::ShapeRule, "rank-mismatch", "indices rank 1 differs from data rank 2", 1));
    EXPECT_TRUE(throws_error([&] { v3.run1({data, make_tensor<int64_t>({1, 1}, {2}), iota(ElementType::f32, {1, 1}), i64s({0})}); },
                             ErrorKind::Value, "index-out-of-range", "not in [-2, 1]", 1));
    EXPECT_TRUE(throws_error([&] { v3.run_kernel({data, make_tensor<int64_t>({1, 1}, {-3}), iota(ElementType::f32, {1, 1}), i64s({0})}, {1}); },
                             ErrorKind::Value, "index-out-of-range", "not in [-2, 1]", 1));
    EXPECT_TRUE(throws_error([&] { v3.run_kernel({data, make_tensor<uint64_t>({1, 1}, {UINT64_MAX}), iota(ElementType::f32, {1, 1}), i64s({0})}, {1}); },
                             ErrorKind::Value, "index-out-of-range", "not in [-2, 1]", 1));
    EXPECT_TRUE(throws_error([&] { v3.run1({data, make_tensor<int64_t>({1, 1}, {0}), iota(ElementType::f32, {1, 2}), i64s({0})}); },
                             ErrorKind::ShapeRule, "updates-shape", "must equal indices shape", 2));
    EXPECT_TRUE(throws_error([&] { v3.run1({data, make_tensor<int64_t>({1, 4}, {0, 0, 0, 0}), iota(ElementType::f32, {1, 4}), i64s({0})}); },
                             ErrorKind::ShapeRule, "indices-shape", "only the axis dim", 1));
    EXPECT_TRUE(throws_error([&] { v3.run1({data, make_tensor<int64_t>({1, 1}, {0}), iota(ElementType::f32, {1, 1}), i64s({2})}); },
                             ErrorKind::Value, "axis-out-of-range", "axis 2", 3));
}

}  // namespace
}  // namespace irlite
