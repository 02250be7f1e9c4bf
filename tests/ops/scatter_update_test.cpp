// ScatterUpdate-3: slices along an axis replaced, indices of any rank and integer type, in place,
// the shape rule and its errors (negative and out-of-range indices, updates shape, axis).
#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

const OpTester& scatter_update() {
    static const OpTester op("ScatterUpdate", 3);
    return op;
}

TEST(ScatterUpdate, SpecExampleAlongAxis1) {
    // data [3,5], indices {0, 2}, updates [3,2], axis 1 (the spec's example 2).
    const Tensor data = make_tensor<float>({3, 5}, {-1, 1, -1, 3, 4, -1, 6, -1, 8, 9, -1, 11, 1, 13, 14});
    const Tensor out = scatter_update().run1(
        {data, i64s({0, 2}), make_tensor<float>({3, 2}, {1, 1, 1, 1, 1, 2}), i64s({1})}, {1, 2});
    EXPECT_EQ(values_of<float>(out), (std::vector<float>{1, 1, 1, 3, 4, 1, 6, 1, 8, 9, 1, 11, 2, 13, 14}));
}

TEST(ScatterUpdate, Axis0RowsAnd2dIndicesAndScalarIndex) {
    const Tensor data = iota(ElementType::i32, {4, 3});
    // Rows 3 and 1 replaced (axis 0, 1-D indices).
    const Tensor rows = scatter_update().run1(
        {data, i32s({3, 1}), make_tensor<int32_t>({2, 3}, {-1, -2, -3, -4, -5, -6}), scalar<int64_t>(0)});
    EXPECT_EQ(values_of<int32_t>(rows), (std::vector<int32_t>{0, 1, 2, -4, -5, -6, 6, 7, 8, -1, -2, -3}));
    // 2-D indices along axis 1: updates [4, 1, 2].
    const Tensor cols = scatter_update().run1(
        {data, make_tensor<int64_t>({1, 2}, {2, 0}), iota(ElementType::i32, {4, 1, 2}, 100), scalar<int32_t>(-1)});
    EXPECT_EQ(values_of<int32_t>(cols), (std::vector<int32_t>{1, 1, 0, 3, 4, 2, 5, 7, 4, 7, 10, 6}));
    // A scalar index: updates drop the axis.
    const Tensor one = scatter_update().run1({data, scalar<int64_t>(2), make_tensor<int32_t>({3}, {9, 9, 9}), scalar<int64_t>(0)});
    EXPECT_EQ(values_of<int32_t>(one), (std::vector<int32_t>{0, 1, 2, 3, 4, 5, 9, 9, 9, 9, 10, 11}));
    // Repeated indices: the last update wins.
    const Tensor repeated = scatter_update().run1(
        {data, i64s({1, 1}), make_tensor<int32_t>({2, 3}, {5, 5, 5, 6, 6, 6}), scalar<int64_t>(0)});
    EXPECT_EQ(values_of<int32_t>(repeated)[3], 6);
}

TEST(ScatterUpdate, EveryElementTypeAndIndexType) {
    for (ElementType t : {ElementType::f16, ElementType::f32, ElementType::f64, ElementType::i8, ElementType::u64,
                          ElementType::boolean}) {
        const Tensor data = iota(t, {3, 2});
        const Tensor upd = make_tensor(t, {1, 2}, {1, 0});
        const Tensor out = scatter_update().run1({data, i64s({2}), upd, scalar<int64_t>(0)});
        EXPECT_EQ(out.type(), t);
        const std::vector<double> v = to_doubles(out);
        EXPECT_EQ(v[4], 1.0) << to_string(t);
        EXPECT_EQ(v[5], 0.0) << to_string(t);
        EXPECT_EQ(v[0], 0.0) << to_string(t);
    }
    for (ElementType it : {ElementType::i8, ElementType::u8, ElementType::i16, ElementType::u32, ElementType::u64}) {
        const Tensor out = scatter_update().run1(
            {iota(ElementType::f32, {3}), make_tensor(it, {1}, {2}), make_tensor<float>({1}, {7}), scalar<int64_t>(0)});
        EXPECT_EQ(values_of<float>(out), (std::vector<float>{0, 1, 7})) << to_string(it);
    }
}

TEST(ScatterUpdate, Errors) {
    const Tensor data = iota(ElementType::f32, {3, 4});
    const Tensor upd = iota(ElementType::f32, {2, 4});
    // Negative and too large indices: at load time (known values) and in the kernel (unknown).
    for (int64_t bad : {-1, 3}) {
        EXPECT_TRUE(throws_error([&] { scatter_update().run1({data, i64s({0, bad}), upd, scalar<int64_t>(0)}); },
                                 ErrorKind::Value, "index-out-of-range", "not in [0, 2]", 1))
            << bad;
        EXPECT_TRUE(throws_error([&] { scatter_update().run_kernel({data, i64s({bad, 0}), upd, scalar<int64_t>(0)}, {1}); },
                                 ErrorKind::Value, "index-out-of-range", "not in [0, 2]", 1))
            << bad;
    }
    // An index into an empty axis points to nothing, even when no byte would move (fuzz_graph).
    EXPECT_TRUE(throws_error([&] {
        scatter_update().run_kernel({Tensor(ElementType::i16, {0, 0, 4}), make_tensor<int8_t>({}, {0}), Tensor(ElementType::i16, {0, 4}),
                                     scalar<int32_t>(0)},
                                    {1});
    }, ErrorKind::Value, "index-out-of-range", "indices", 1));
    // u64 indices above INT64_MAX are out of range, never a wrapped negative.
    EXPECT_TRUE(throws_error([&] {
        scatter_update().run_kernel({data, make_tensor<uint64_t>({1}, {UINT64_MAX}), iota(ElementType::f32, {1, 4}), scalar<int64_t>(0)},
                                    {1});
    }, ErrorKind::Value, "index-out-of-range", "indices", 1));
    // updates of the wrong shape.
    EXPECT_TRUE(throws_error([&] { scatter_update().run1({data, i64s({0, 1}), iota(ElementType::f32, {3, 3}), scalar<int64_t>(0)}); },
                             ErrorKind::ShapeRule, "updates-shape", "[2,4]", 2));
    // axis out of range, axis of two values, float indices, mismatched types, scalar data.
    EXPECT_TRUE(throws_error([&] { scatter_update().run1({data, i64s({0, 1}), upd, scalar<int64_t>(2)}); },
                             ErrorKind::Value, "axis-out-of-range", "axis 2", 3));
    EXPECT_TRUE(throws_error([&] { scatter_update().run1({data, i64s({0, 1}), upd, i64s({0, 1})}); },
                             ErrorKind::ShapeRule, "axis-shape", "one", 3));
    EXPECT_TRUE(throws_error([&] { scatter_update().run1({data, make_tensor<float>({2}, {0, 1}), upd, scalar<int64_t>(0)}); },
                             ErrorKind::Type, "index-type", "indices", 1));
    EXPECT_TRUE(throws_error([&] { scatter_update().run1({data, i64s({0, 1}), iota(ElementType::f64, {2, 4}), scalar<int64_t>(0)}); },
                             ErrorKind::Type, "element-type-mismatch", "updates", 2));
    EXPECT_TRUE(throws_error([&] { scatter_update().run1({scalar(1.0f), i64s({0}), iota(ElementType::f32, {1}), scalar<int64_t>(0)}); },
                             ErrorKind::ShapeRule, "rank-invalid", "rank >= 1", 0));
}

TEST(ScatterUpdate, PlansInPlace) {
    const auto plan = scatter_update().plan({iota(ElementType::f32, {3, 4}), i64s({0}), iota(ElementType::f32, {1, 4}),
                                             scalar<int64_t>(0)});
    ASSERT_NE(plan, nullptr);
    ASSERT_EQ(plan->in_place.size(), 1u);
    EXPECT_EQ(plan->in_place[0].input, 0);
}

}  // namespace
}  // namespace irlite
