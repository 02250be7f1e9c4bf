// ShuffleChannels-1: the channel interleave, other axes, every element size, opset1 and opset3+
// (not opset2), and the errors.
#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

TEST(ShuffleChannels, InterleavesGroups) {
    // C = 6, group 2: [0 1 2 | 3 4 5] -> 0 3 1 4 2 5 (each channel a 1x2 plane).
    const Tensor x = iota(ElementType::i32, {1, 6, 1, 2});
    const Tensor out = OpTester("ShuffleChannels", 1, {{"axis", "1"}, {"group", "2"}}).run1({x});
    EXPECT_EQ(values_of<int32_t>(out), (std::vector<int32_t>{0, 1, 6, 7, 2, 3, 8, 9, 4, 5, 10, 11}));
    // group 3 along the last axis, negative axis, in opset3 and later.
    const Tensor y = iota(ElementType::u8, {2, 6});
    EXPECT_EQ(values_of<uint8_t>(OpTester("ShuffleChannels", 3, {{"axis", "-1"}, {"group", "3"}}).run1({y})),
              (std::vector<uint8_t>{0, 2, 4, 1, 3, 5, 6, 8, 10, 7, 9, 11}));
    for (ElementType t : {ElementType::f16, ElementType::f64, ElementType::boolean}) {
        const Tensor z = iota(t, {1, 4, 3});
        const OpTester op("ShuffleChannels", 5, {{"group", "2"}});
        EXPECT_TRUE(tensors_equal(op.run1({op.run1({z})}), z)) << to_string(t);  // twice with 2 groups of 2: identity
    }
    EXPECT_EQ(builtin_ops().find("ShuffleChannels", 2), nullptr);  // opset2 has no ShuffleChannels
}

TEST(ShuffleChannels, Errors) {
    EXPECT_TRUE(throws_error([] { OpTester("ShuffleChannels", 1, {{"group", "4"}}).run1({iota(ElementType::f32, {1, 6, 2})}); },
                             ErrorKind::ShapeRule, "shape-invalid", "not divisible by group 4", 0));
    EXPECT_TRUE(throws_error([] { OpTester("ShuffleChannels", 1, {{"axis", "3"}}).run1({iota(ElementType::f32, {1, 6, 2})}); },
                             ErrorKind::Attribute, "axis-out-of-range", "axis 3", 0));
    EXPECT_TRUE(throws_error([] { OpTester("ShuffleChannels", 1, {{"group", "0"}}).attrs(); }, ErrorKind::Attribute,
                             "attribute-invalid", "group"));
}

}  // namespace
}  // namespace irlite
