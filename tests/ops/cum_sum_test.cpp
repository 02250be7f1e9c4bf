// CumSum-3: inclusive/exclusive, forward/reverse, every axis, default axis, types and errors.
#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

OpTester cumsum(bool exclusive, bool reverse) {
    return OpTester("CumSum", 3, {{"exclusive", exclusive ? "true" : "false"}, {"reverse", reverse ? "1" : "0"}});
}

TEST(CumSum, SpecExamples) {
    const Tensor x = make_tensor<float>({5}, {1, 2, 3, 4, 5});
    EXPECT_EQ(values_of<float>(cumsum(false, false).run1({x, scalar<int64_t>(0)})), (std::vector<float>{1, 3, 6, 10, 15}));
    EXPECT_EQ(values_of<float>(cumsum(true, false).run1({x, scalar<int64_t>(0)})), (std::vector<float>{0, 1, 3, 6, 10}));
    EXPECT_EQ(values_of<float>(cumsum(false, true).run1({x, scalar<int64_t>(0)})), (std::vector<float>{15, 14, 12, 9, 5}));
    EXPECT_EQ(values_of<float>(cumsum(true, true).run1({x, scalar<int32_t>(-1)})), (std::vector<float>{14, 12, 9, 5, 0}));
    // Without the axis input: axis 0.
    EXPECT_EQ(values_of<float>(cumsum(false, false).run1({x})), (std::vector<float>{1, 3, 6, 10, 15}));
}

TEST(CumSum, AlongEachAxisOfA3dTensor) {
    const Tensor x = iota(ElementType::i32, {2, 3, 2});  // 0..11
    EXPECT_EQ(values_of<int32_t>(cumsum(false, false).run1({x, scalar<int64_t>(0)}, {1})),
              (std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6, 8, 10, 12, 14, 16}));
    EXPECT_EQ(values_of<int32_t>(cumsum(false, false).run1({x, scalar<int64_t>(1)})),
              (std::vector<int32_t>{0, 1, 2, 4, 6, 9, 6, 7, 14, 16, 24, 27}));
    EXPECT_EQ(values_of<int32_t>(cumsum(true, true).run1({x, scalar<int64_t>(-1)})),
              (std::vector<int32_t>{1, 0, 3, 0, 5, 0, 7, 0, 9, 0, 11, 0}));
}

TEST(CumSum, TypesAndWrapAround) {
    for (ElementType t : {ElementType::f16, ElementType::bf16, ElementType::f64, ElementType::i8, ElementType::u16,
                          ElementType::i64}) {
        const Tensor out = cumsum(false, false).run1({make_tensor(t, {4}, {1, 2, 3, 4}), scalar<int64_t>(0)});
        EXPECT_EQ(out.type(), t);
        EXPECT_EQ(to_doubles(out), (std::vector<double>{1, 3, 6, 10})) << to_string(t);
    }
    // Integers wrap like OpenVINO's two's-complement arithmetic.
    EXPECT_EQ(values_of<int8_t>(cumsum(false, false).run1({make_tensor<int8_t>({2}, {100, 100}), scalar<int64_t>(0)})),
              (std::vector<int8_t>{100, -56}));
}

TEST(CumSum, Errors) {
    const Tensor x = iota(ElementType::f32, {2, 2});
    EXPECT_TRUE(throws_error([&] { cumsum(false, false).run1({x, scalar<int64_t>(2)}); }, ErrorKind::Value,
                             "axis-out-of-range", "axis 2", 1));
    EXPECT_TRUE(throws_error([&] { cumsum(false, false).run1({x, i64s({0, 1})}); }, ErrorKind::ShapeRule, "axis-shape",
                             "scalar", 1));
    EXPECT_TRUE(throws_error([&] { cumsum(false, false).run1({x, make_tensor<int16_t>({}, {0})}); }, ErrorKind::Type,
                             "index-type", "axis", 1));
    EXPECT_TRUE(throws_error([&] { cumsum(false, false).run1({make_tensor<bool>({2}, {true, false})}); }, ErrorKind::Type,
                             "element-type-unsupported", "numeric", 0));
    EXPECT_TRUE(throws_error([&] { cumsum(false, false).run1({scalar(1.0f)}); }, ErrorKind::ShapeRule, "rank-invalid",
                             "rank >= 1", 0));
}

}  // namespace
}  // namespace irlite
