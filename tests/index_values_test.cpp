// kernels/detail/index_values: reading every integer type, type checks at the port, axis
// normalization and the wording of range errors.
#include "kernels/detail/index_values.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;
using detail::IndexTypes;

TEST(IndexValues, ReadsEveryIntegerType) {
    EXPECT_EQ(detail::read_index_values(make_tensor<int8_t>({3}, {-128, 0, 127})),
              (std::vector<int64_t>{-128, 0, 127}));
    EXPECT_EQ(detail::read_index_values(make_tensor<int16_t>({2}, {-32768, 32767})),
              (std::vector<int64_t>{-32768, 32767}));
    EXPECT_EQ(detail::read_index_values(make_tensor<int32_t>({2}, {INT32_MIN, INT32_MAX})),
              (std::vector<int64_t>{INT32_MIN, INT32_MAX}));
    EXPECT_EQ(detail::read_index_values(make_tensor<int64_t>({2}, {INT64_MIN, INT64_MAX})),
              (std::vector<int64_t>{INT64_MIN, INT64_MAX}));
    EXPECT_EQ(detail::read_index_values(make_tensor<uint8_t>({1}, {255})), (std::vector<int64_t>{255}));
    EXPECT_EQ(detail::read_index_values(make_tensor<uint16_t>({1}, {65535})), (std::vector<int64_t>{65535}));
    EXPECT_EQ(detail::read_index_values(make_tensor<uint32_t>({1}, {UINT32_MAX})), (std::vector<int64_t>{UINT32_MAX}));
    // u64 above INT64_MAX saturates.
    EXPECT_EQ(detail::read_index_values(make_tensor<uint64_t>({3}, {7, uint64_t{1} << 63, UINT64_MAX})),
              (std::vector<int64_t>{7, INT64_MAX, INT64_MAX}));
    EXPECT_EQ(detail::read_index_values(scalar<int32_t>(-5)), (std::vector<int64_t>{-5}));
    EXPECT_TRUE(detail::read_index_values(make_tensor<int64_t>({0}, {})).empty());
}

TEST(IndexValues, RejectsFloatAndBoolean) {
    for (ElementType t :
         {ElementType::f16, ElementType::bf16, ElementType::f32, ElementType::f64, ElementType::boolean}) {
        SCOPED_TRACE(to_string(t));
        EXPECT_TRUE(throws_error([&] { detail::read_index_values(make_tensor(t, {1}, {1})); }, ErrorKind::Type,
                                 "index-type", std::string("got a ") + to_string(t) + " tensor"));
    }
}

TEST(IndexValues, AllowedTypes) {
    for (int i = 0; i < kNumElementTypes; ++i) {
        const auto t = static_cast<ElementType>(i);
        SCOPED_TRACE(to_string(t));
        EXPECT_EQ(detail::index_type_allowed(t, IndexTypes::AnyInteger), is_integral(t));
        EXPECT_EQ(detail::index_type_allowed(t, IndexTypes::I32OrI64), t == ElementType::i32 || t == ElementType::i64);
    }
}

// The context-taking helpers, on a stand-in op whose inputs have roles.
class IndexValuesAtPort : public ::testing::Test {
protected:
    IndexValuesAtPort() { def_.input_roles = {"data", "axes"}; }
    InferContext context(ElementType index_type, const Tensor* value = nullptr) {
        return InferContext(def_, attrs_,
                            {{ElementType::f32, PartialShape{2, 3}, nullptr}, {index_type, PartialShape{1}, value}}, 1);
    }
    OpDef def_;
    NoAttrs attrs_;
};

TEST_F(IndexValuesAtPort, RequireIndexTypeNamesTheRole) {
    EXPECT_NO_THROW(detail::require_index_type(context(ElementType::u16), 1, IndexTypes::AnyInteger));
    EXPECT_TRUE(throws_error(
        [&] { detail::require_index_type(context(ElementType::f32), 1, IndexTypes::AnyInteger); }, ErrorKind::Type,
        "index-type", "input 1 'axes': axes must be an integer tensor (i8, i16, i32, i64, u8, u16, u32, u64), got f32",
        1));
    EXPECT_TRUE(throws_error([&] { detail::require_index_type(context(ElementType::u8), 1, IndexTypes::I32OrI64); },
                             ErrorKind::Type, "index-type", "axes must be an integer tensor (i32 or i64), got u8", 1));
}

TEST_F(IndexValuesAtPort, NormalizesAxes) {
    const InferContext ctx = context(ElementType::i64);
    EXPECT_EQ(detail::normalize_axis_at(ctx, 1, -1, 3), 2);
    EXPECT_EQ(detail::normalize_axis_at(ctx, 1, -3, 3), 0);
    EXPECT_EQ(detail::normalize_axis_at(ctx, 1, 2, 3), 2);
    EXPECT_TRUE(throws_error([&] { detail::normalize_axis_at(ctx, 1, 3, 3); }, ErrorKind::Value, "axis-out-of-range",
                             "input 1 'axes': axis 3 out of the tensor rank range [-3, 2]", 1));
    EXPECT_TRUE(throws_error([&] { detail::normalize_axis_at(ctx, 1, INT64_MIN, 8); }, ErrorKind::Value,
                             "axis-out-of-range", "axis -9223372036854775808 out of the tensor rank range [-8, 7]", 1));
}

TEST_F(IndexValuesAtPort, ReadsKnownValuesAndChecksRanges) {
    const Tensor v = make_tensor<uint8_t>({1}, {9});
    const InferContext ctx = context(ElementType::u8, &v);
    EXPECT_EQ(detail::read_index_values(ctx, 1), (std::vector<int64_t>{9}));
    EXPECT_NO_THROW(detail::check_value_in_range(ctx, 1, 9, 0, 9, "value-invalid", "axes[0] = 9"));
    EXPECT_TRUE(throws_error([&] { detail::check_value_in_range(ctx, 1, 10, -10, 9, "value-invalid", "axes[0] = 10"); },
                             ErrorKind::Value, "value-invalid", "axes[0] = 10: value 10 not in [-10, 9]", 1));
}

TEST(IndexValues, Messages) {
    EXPECT_EQ(detail::value_range_message(-4, -3, 2), "value -4 not in [-3, 2]");
    EXPECT_EQ(detail::axis_out_of_range_message(-20, 8), "axis -20 out of the tensor rank range [-8, 7]");
    EXPECT_EQ(detail::position_text({2, 3, 4}, 23), "[1,2,3]");
    EXPECT_EQ(detail::position_text({2, 3, 4}, 0), "[0,0,0]");
    EXPECT_EQ(detail::position_text({}, 0), "[]");
    EXPECT_EQ(detail::index_out_of_range_message("indices", {2, 2}, 3, 7, 1, 5),
              "indices[1,1] = 7: value 7 not in [-5, 4] (data dim 1 has size 5)");
}

}  // namespace
}  // namespace irlite
