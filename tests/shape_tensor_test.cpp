#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "irlite/error.hpp"
#include "irlite/shape.hpp"
#include "irlite/tensor.hpp"

namespace irlite {
namespace {

TEST(Shape, ToString) {
    EXPECT_EQ(to_string(Shape{}), "[]");
    EXPECT_EQ(to_string(Shape{2, 3}), "[2,3]");
    EXPECT_EQ(to_string(PartialShape({kDynamic, 3})), "[?,3]");
    EXPECT_EQ(to_string(PartialShape::dynamic_rank()), "[...]");
}

TEST(Shape, Compatibility) {
    EXPECT_TRUE(shapes_compatible(PartialShape({2, kDynamic}), PartialShape({2, 5})));
    EXPECT_FALSE(shapes_compatible(PartialShape({2, 4}), PartialShape({2, 5})));
    EXPECT_FALSE(shapes_compatible(PartialShape({2}), PartialShape({2, 1})));
    EXPECT_TRUE(shapes_compatible(PartialShape::dynamic_rank(), PartialShape({2, 1})));
}

TEST(Shape, CheckedSizesRejectOverflow) {
    EXPECT_EQ(checked_num_elements({}), 1);
    EXPECT_EQ(checked_num_elements({3, 0, 5}), 0);
    EXPECT_EQ(checked_num_elements({1 << 20, 1 << 20}), int64_t{1} << 40);
    try {
        checked_num_elements({int64_t{1} << 32, int64_t{1} << 32});
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Limit);
    }
    EXPECT_THROW(checked_byte_size({int64_t{1} << 62}, 8), Error);
    EXPECT_THROW(checked_num_elements({2, -3}), Error);
    // Zero anywhere makes the product 0 even when the other dims are huge.
    EXPECT_EQ(checked_num_elements({0, std::numeric_limits<int64_t>::max(), 7}), 0);
}

TEST(Shape, NormalizeAxis) {
    EXPECT_EQ(normalize_axis(-1, 3), 2);
    EXPECT_EQ(normalize_axis(0, 3), 0);
    try {
        normalize_axis(3, 3);
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(e.message().find("[-3, 2]"), std::string::npos) << e.message();
    }
    EXPECT_THROW(normalize_axis(-4, 3), Error);
}

TEST(Tensor, AllocatesZeroedAndReshapes) {
    Tensor t(ElementType::i32, {2, 3});
    ASSERT_TRUE(t.valid());
    EXPECT_EQ(t.num_elements(), 6);
    EXPECT_EQ(t.byte_size(), 24u);
    for (int i = 0; i < 6; ++i) EXPECT_EQ(t.data<int32_t>()[i], 0);
    Tensor r = t.reshaped({3, 2});
    EXPECT_TRUE(r.shares_buffer_with(t));
    EXPECT_THROW(t.reshaped({4, 2}), Error);
    Tensor c = t.clone();
    EXPECT_FALSE(c.shares_buffer_with(t));
}

TEST(Tensor, WrapIsZeroCopy) {
    float data[4] = {1, 2, 3, 4};
    Tensor t = Tensor::wrap(ElementType::f32, {2, 2}, data);
    EXPECT_EQ(t.data<float>(), data);
    EXPECT_EQ(t.value_as_double(3), 4.0);
}

// Values read for rules and kernels (trip counts, conditions, axes): a boolean is its byte, any
// nonzero byte true (a .bin may hold 255; loading it as a C++ bool is undefined), and a float
// beyond int64 saturates (NaN: 0) instead of an undefined cast.
TEST(Tensor, ValueReadsAreDefinedForEveryByte) {
    uint8_t bytes[3] = {0, 1, 255};
    const Tensor b = Tensor::wrap(ElementType::boolean, {3}, bytes);
    EXPECT_EQ(b.value_as_int64(0), 0);
    EXPECT_EQ(b.value_as_int64(1), 1);
    EXPECT_EQ(b.value_as_int64(2), 1);
    EXPECT_EQ(b.value_as_double(2), 1.0);
    double values[4] = {1e30, -1e30, std::nan(""), -2.75};
    const Tensor d = Tensor::wrap(ElementType::f64, {4}, values);
    EXPECT_EQ(d.value_as_int64(0), INT64_MAX);
    EXPECT_EQ(d.value_as_int64(1), INT64_MIN);
    EXPECT_EQ(d.value_as_int64(2), 0);
    EXPECT_EQ(d.value_as_int64(3), -2);
}

TEST(Tensor, EmptyTensorsHaveValidData) {
    Tensor t(ElementType::f32, {0, 5});
    EXPECT_NE(t.data(), nullptr);
    Tensor w = Tensor::wrap(ElementType::u8, {0}, nullptr);
    EXPECT_NE(w.data(), nullptr);
}

TEST(Tensor, LimitIsEnforced) {
    const size_t old = max_tensor_bytes();
    set_max_tensor_bytes(1000);
    EXPECT_THROW(Tensor(ElementType::f32, {251}), Error);
    EXPECT_NO_THROW(Tensor(ElementType::f32, {250}));
    set_max_tensor_bytes(old);
    try {
        Tensor(ElementType::f64, {int64_t{1} << 40, int64_t{1} << 30});
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Limit);
    }
}

TEST(Error, FormatsLocation) {
    Location where;
    where.file = "model.xml";
    where.line = 57;
    where.layer_id = 42;
    where.layer_name = "encoder/Slice_3";
    where.layer_type = "Slice";
    where.opset = "opset8";
    Error e(ErrorKind::Value, "step-zero", "step must not be 0");
    Location port;
    port.port = 3;
    port.port_role = "step";
    e.add_context(port);
    e.add_context(where);
    EXPECT_STREQ(e.what(), "model.xml:57: Slice layer id=42 'encoder/Slice_3' (opset8), input 3 'step': step must not be 0");
}

}  // namespace
}  // namespace irlite
