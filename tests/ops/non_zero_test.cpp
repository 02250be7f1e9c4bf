// NonZero-3: coordinates in row-major order, every type, empty results, the output type, and
// the run through the executor (a data-dependent shape).
#include <cmath>

#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

TEST(NonZero, CoordinatesInRowMajorOrder) {
    const OpTester nz("NonZero", 3);
    const Tensor out = nz.run1({make_tensor<float>({2, 3}, {0, 1.5f, 0, -2, 0, NAN})});
    ASSERT_EQ(out.shape(), (Shape{2, 3}));
    EXPECT_EQ(out.type(), ElementType::i64);
    EXPECT_EQ(values_of<int64_t>(out), (std::vector<int64_t>{0, 1, 1, 1, 0, 2}));
    const Tensor none = nz.run1({make_tensor<int32_t>({2, 2}, {0, 0, 0, 0})});
    EXPECT_EQ(none.shape(), (Shape{2, 0}));
    const Tensor b = OpTester("NonZero", 3, {{"output_type", "i32"}}).run1({make_tensor<bool>({4}, {true, false, false, true})});
    EXPECT_EQ(b.type(), ElementType::i32);
    EXPECT_EQ(values_of<int32_t>(b), (std::vector<int32_t>{0, 3}));
    // -0.0 is zero, in f32 and f16.
    EXPECT_EQ(nz.run1({make_tensor<float>({2}, {-0.0f, 1})}).shape(), (Shape{1, 1}));
    EXPECT_EQ(nz.run1({make_tensor(ElementType::f16, {2}, {-0.0, 0.5})}).shape(), (Shape{1, 1}));
}

TEST(NonZero, ShapeRuleIsDynamicAndOutputTypeIsChecked) {
    const auto infos = OpTester("NonZero", 3).infer({unknown(ElementType::f32, PartialShape({3, -1}))});
    EXPECT_EQ(infos[0].shape, PartialShape({2, -1}));
    EXPECT_TRUE(throws_error([] { OpTester("NonZero", 3, {{"output_type", "f32"}}).attrs(); }, ErrorKind::Attribute,
                             "attribute-invalid", "output_type must be i32 or i64"));
}

}  // namespace
}  // namespace irlite
