// Add-1 and Multiply-1 (kernels/detail/eltwise.hpp): the numpy broadcast rule on partial shapes,
// the row plan, a broadcast table checked against a plain per-element reference for every element
// type, integer wrap-around, f16/bf16 rounding, and error rows.
#include <gtest/gtest.h>

#include <limits>

#include "kernels/detail/broadcast.hpp"
#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;
using detail::AutoBroadcast;

// ---- the broadcast rule --------------------------------------------------------------------

struct BroadcastRow {
    const char* name;
    PartialShape a, b;
    AutoBroadcast mode;
    std::optional<PartialShape> out;  // nullopt: incompatible
};

const BroadcastRow kBroadcastRows[] = {
    {"same", {2, 3}, {2, 3}, AutoBroadcast::Numpy, PartialShape{2, 3}},
    {"scalar_left", {}, {2, 3}, AutoBroadcast::Numpy, PartialShape{2, 3}},
    {"scalar_right", {4}, {}, AutoBroadcast::Numpy, PartialShape{4}},
    {"lower_rank", {2, 3, 4}, {3, 1}, AutoBroadcast::Numpy, PartialShape{2, 3, 4}},
    {"both_stretch", {8, 1, 6, 1}, {7, 1, 5}, AutoBroadcast::Numpy, PartialShape{8, 7, 6, 5}},
    {"zero_dim", {0, 3}, {1, 3}, AutoBroadcast::Numpy, PartialShape{0, 3}},
    {"zero_with_one", {1}, {0}, AutoBroadcast::Numpy, PartialShape{0}},
    {"dynamic_with_static", {kDynamic, 3}, {5, 3}, AutoBroadcast::Numpy, PartialShape{5, 3}},
    {"dynamic_with_one", {kDynamic, 3}, {1, 3}, AutoBroadcast::Numpy, PartialShape{kDynamic, 3}},
    {"dynamic_with_dynamic", {kDynamic}, {kDynamic}, AutoBroadcast::Numpy, PartialShape{kDynamic}},
    {"dynamic_with_missing", {kDynamic, 4}, {4}, AutoBroadcast::Numpy, PartialShape{kDynamic, 4}},
    {"dynamic_rank", PartialShape::dynamic_rank(), {2}, AutoBroadcast::Numpy, PartialShape::dynamic_rank()},
    {"clash", {2, 3}, {4}, AutoBroadcast::Numpy, std::nullopt},
    {"clash_inner", {2, 3, 4}, {2, 1, 5}, AutoBroadcast::Numpy, std::nullopt},
    {"none_same", {2, 3}, {2, 3}, AutoBroadcast::None, PartialShape{2, 3}},
    {"none_dynamic_takes_static", {kDynamic, 3}, {2, kDynamic}, AutoBroadcast::None, PartialShape{2, 3}},
    {"none_rank_differs", {2, 3}, {3}, AutoBroadcast::None, std::nullopt},
    {"none_no_stretching", {2, 3}, {1, 3}, AutoBroadcast::None, std::nullopt},
};

TEST(Broadcast, ShapeRule) {
    for (const BroadcastRow& r : kBroadcastRows) {
        SCOPED_TRACE(r.name);
        if (r.out) {
            EXPECT_EQ(detail::broadcast_shapes(r.a, r.b, r.mode), *r.out);
            EXPECT_EQ(detail::broadcast_shapes(r.b, r.a, r.mode), *r.out) << "not symmetric";
        } else {
            EXPECT_TRUE(throws_error([&] { detail::broadcast_shapes(r.a, r.b, r.mode); }, ErrorKind::ShapeRule,
                                     "broadcast-incompatible", "are not compatible with auto_broadcast="));
        }
    }
}

TEST(Broadcast, PlanMergesDimsIntoLongRows) {
    const detail::BroadcastPlan same = detail::plan_broadcast({2, 3, 4}, {2, 3, 4}, {2, 3, 4});
    EXPECT_EQ(same.row_length, 24);
    EXPECT_TRUE(same.outer_counts.empty());
    const detail::BroadcastPlan scalar = detail::plan_broadcast({}, {5, 6}, {5, 6});
    EXPECT_EQ(scalar.row_length, 30);
    EXPECT_FALSE(scalar.varies[0]);
    EXPECT_TRUE(scalar.varies[1]);
    // [4,1,3] x [2,1] -> [4,2,3]: rows of 3 where a varies and b repeats, 8 of them.
    const detail::BroadcastPlan mixed = detail::plan_broadcast({4, 1, 3}, {2, 1}, {4, 2, 3});
    EXPECT_EQ(mixed.row_length, 3);
    EXPECT_TRUE(mixed.varies[0]);
    EXPECT_FALSE(mixed.varies[1]);
    EXPECT_EQ(mixed.num_rows(), 8);
    EXPECT_THROW(detail::plan_broadcast({2, 3}, {4}, {2, 3}), Error);
}

// ---- compute -------------------------------------------------------------------------------

struct ShapeRow {
    const char* name;
    Shape a, b;
};

const ShapeRow kShapeRows[] = {
    {"same", {2, 3, 4}, {2, 3, 4}},
    {"scalar_left", {}, {2, 5}},
    {"scalar_right", {3, 2}, {}},
    {"both_scalar", {}, {}},
    {"one_element_each", {1}, {1, 1}},
    {"row_vector", {4, 3}, {3}},
    {"column_vector", {4, 3}, {4, 1}},
    {"outer_product", {4, 1}, {1, 3}},
    {"both_stretch", {3, 1, 5}, {3, 4, 1}},
    {"lower_rank_middle", {2, 4, 1, 3}, {4, 2, 1}},
    {"empty", {0, 3}, {1, 3}},
    {"longer_than_a_chunk", {3, 700}, {700}},
    {"long_scalar_broadcast", {1}, {1031}},
};

// Values that stay small under + and * in every type (i8 included): 1..7 and 1..5.
std::vector<double> small_values(const Shape& s, int64_t modulo) {
    std::vector<double> v(static_cast<size_t>(checked_num_elements(s)));
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(static_cast<int64_t>(i) % modulo + 1);
    return v;
}

// The plain definition: for every output coordinate, the aligned input coordinates (dims of 1
// repeat), one element at a time.
std::vector<double> reference(const Shape& a, const std::vector<double>& va, const Shape& b,
                              const std::vector<double>& vb, const Shape& out, bool multiply) {
    const auto index_in = [&](const Shape& s, const std::vector<int64_t>& coord) {
        int64_t flat = 0;
        for (size_t i = 0; i < s.size(); ++i) {
            const int64_t c = s[i] == 1 ? 0 : coord[coord.size() - s.size() + i];
            flat = flat * s[i] + c;
        }
        return static_cast<size_t>(flat);
    };
    std::vector<double> result(static_cast<size_t>(checked_num_elements(out)));
    std::vector<int64_t> coord(out.size(), 0);
    for (size_t n = 0; n < result.size(); ++n) {
        const double x = va[index_in(a, coord)], y = vb[index_in(b, coord)];
        result[n] = multiply ? x * y : x + y;
        for (size_t d = out.size(); d-- > 0;)
            if (++coord[d] < out[d])
                break;
            else
                coord[d] = 0;
    }
    return result;
}

class BinaryCompute : public ::testing::TestWithParam<ShapeRow> {};

TEST_P(BinaryCompute, MatchesReferenceForEveryType) {
    const ShapeRow& r = GetParam();
    const Shape out_shape = detail::broadcast_shapes(r.a, r.b, AutoBroadcast::Numpy).to_shape();
    const std::vector<double> va = small_values(r.a, 7), vb = small_values(r.b, 5);
    for (const char* op : {"Add", "Multiply"}) {
        const bool multiply = std::string(op) == "Multiply";
        const std::vector<double> want = reference(r.a, va, r.b, vb, out_shape, multiply);
        for (int t = 0; t < kNumElementTypes; ++t) {
            const auto type = static_cast<ElementType>(t);
            if (type == ElementType::boolean) continue;
            SCOPED_TRACE(std::string(op) + " " + to_string(type));
            const Tensor out = OpTester(op, 1).run1({make_tensor(type, r.a, va), make_tensor(type, r.b, vb)}, {0, 1});
            EXPECT_TRUE(tensors_equal(out, make_tensor(type, out_shape, want)));
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Rows, BinaryCompute, ::testing::ValuesIn(kShapeRows),
                         [](const auto& row) { return std::string(row.param.name); });

// Integer results wrap modulo 2^bits, like OpenVINO's, on the same-shape, scalar and broadcast
// paths alike.
TEST(BinaryEltwise, IntegersWrap) {
    const OpTester add("Add", 1), mul("Multiply", 1);
    EXPECT_EQ(values_of<int8_t>(add.run1({make_tensor<int8_t>({2}, {100, -128}), make_tensor<int8_t>({2}, {100, -1})})),
              (std::vector<int8_t>{-56, 127}));
    EXPECT_EQ(values_of<int8_t>(mul.run1({make_tensor<int8_t>({2}, {-128, 16}), scalar<int8_t>(-1)})),
              (std::vector<int8_t>{-128, -16}));
    EXPECT_EQ(values_of<uint16_t>(
                  mul.run1({make_tensor<uint16_t>({2, 1}, {65535, 256}), make_tensor<uint16_t>({2}, {65535, 256})})),
              (std::vector<uint16_t>{1, 65280, 65280, 0}));
    EXPECT_EQ(values_of<int16_t>(mul.run1({make_tensor<int16_t>({1}, {-32768}), make_tensor<int16_t>({1}, {-32768})})),
              (std::vector<int16_t>{0}));
    EXPECT_EQ(values_of<int32_t>(add.run1({scalar<int32_t>(INT32_MAX), make_tensor<int32_t>({2}, {1, 2})})),
              (std::vector<int32_t>{INT32_MIN, INT32_MIN + 1}));
    EXPECT_EQ(values_of<int64_t>(mul.run1({make_tensor<int64_t>({1}, {INT64_MIN}), make_tensor<int64_t>({1}, {-1})})),
              (std::vector<int64_t>{INT64_MIN}));
    EXPECT_EQ(
        values_of<uint64_t>(add.run1({make_tensor<uint64_t>({1}, {UINT64_MAX}), make_tensor<uint64_t>({1}, {2})})),
        (std::vector<uint64_t>{1}));
    EXPECT_EQ(
        values_of<uint32_t>(mul.run1({make_tensor<uint32_t>({1}, {0x10000}), make_tensor<uint32_t>({1}, {0x10000})})),
        (std::vector<uint32_t>{0}));
}

// f16 and bf16 compute in f32 and round back to nearest even; f32 and f64 keep their precision.
TEST(BinaryEltwise, FloatPrecision) {
    const OpTester add("Add", 1), mul("Multiply", 1);
    EXPECT_EQ(to_doubles(add.run1(
                  {make_tensor(ElementType::f16, {2}, {2048, 0.5}), make_tensor(ElementType::f16, {2}, {1, 0.25})})),
              (std::vector<double>{2048, 0.75}));
    EXPECT_EQ(
        to_doubles(add.run1({make_tensor(ElementType::bf16, {1}, {256}), make_tensor(ElementType::bf16, {1}, {1})})),
        (std::vector<double>{256}));
    EXPECT_EQ(
        to_doubles(mul.run1({make_tensor(ElementType::f16, {1}, {300}), make_tensor(ElementType::f16, {1}, {300})})),
        (std::vector<double>{std::numeric_limits<double>::infinity()}));
    EXPECT_EQ(values_of<double>(add.run1({make_tensor<double>({1}, {1.0}), make_tensor<double>({1}, {1e-12})})),
              (std::vector<double>{1.0 + 1e-12}));
    EXPECT_EQ(values_of<float>(mul.run1({make_tensor<float>({3}, {1.5f, -2.f, 0.1f}), scalar<float>(2.f)})),
              (std::vector<float>{3.f, -4.f, 0.2f}));
}

TEST(BinaryEltwise, AutoBroadcastNone) {
    const OpTester add("Add", 1, {{"auto_broadcast", "none"}});
    EXPECT_TRUE(tensors_equal(add.run1({make_tensor<float>({2}, {1, 2}), make_tensor<float>({2}, {3, 4})}),
                              make_tensor<float>({2}, {4, 6})));
    EXPECT_TRUE(throws_error(
        [&] {
            add.run({make_tensor<float>({2}, {1, 2}), make_tensor<float>({1}, {3})});
        },
        ErrorKind::ShapeRule, "broadcast-incompatible",
        "input shapes [2] and [1] are not compatible with auto_broadcast=none"));
    EXPECT_TRUE(tensors_equal(OpTester("Multiply", 1, {{"auto_broadcast", "explicit"}})
                                  .run1({make_tensor<int32_t>({1}, {3}), make_tensor<int32_t>({1}, {4})}),
                              make_tensor<int32_t>({1}, {12})));
}

// ---- errors --------------------------------------------------------------------------------

TEST(BinaryEltwise, Errors) {
    for (const char* op : {"Add", "Multiply"}) {
        SCOPED_TRACE(op);
        const OpTester tester(op, 1);
        EXPECT_TRUE(throws_error(
            [&] {
                tester.infer({unknown(ElementType::boolean, {2}), unknown(ElementType::boolean, {2})});
            },
            ErrorKind::Type, "element-type-unsupported", std::string(op) + " does not support element type boolean",
            0));
        EXPECT_TRUE(throws_error(
            [&] {
                tester.infer({unknown(ElementType::f32, {2}), unknown(ElementType::i32, {2})});
            },
            ErrorKind::Type, "element-type-mismatch",
            "element type i32 differs from input 0's f32; both inputs must have the same type", 1));
        EXPECT_TRUE(throws_error(
            [&] {
                tester.infer({unknown(ElementType::f32, {2, 3}), unknown(ElementType::f32, {4})});
            },
            ErrorKind::ShapeRule, "broadcast-incompatible",
            "input shapes [2,3] and [4] are not compatible with auto_broadcast=numpy: dim 3 and dim 4"));
        EXPECT_TRUE(throws_error(
            [&] {
                OpTester(op, 1, {{"auto_broadcast", "pdpd"}}).attrs();
            },
            ErrorKind::Unsupported, "auto-broadcast-unsupported", "\"pdpd\" is not supported"));
        EXPECT_TRUE(throws_error(
            [&] {
                OpTester(op, 1, {{"auto_broadcast", "bidirectional"}}).attrs();
            },
            ErrorKind::Attribute, "attribute-invalid", "attribute 'auto_broadcast' = \"bidirectional\" is invalid"));
    }
}

}  // namespace
}  // namespace irlite
