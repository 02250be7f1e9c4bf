// PriorBox-1/8 and PriorBoxClustered-1: boxes and variances for small grids computed by hand,
// the orders of min / max / aspect-ratio boxes, clipping, steps, and the errors.
#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

std::vector<float> first_box(const Tensor& out, int64_t box) {
    const float* p = out.data<float>() + 4 * box;
    return {p[0], p[1], p[2], p[3]};
}

TEST(PriorBoxClustered, BoxesAndVariances) {
    const OpTester pbc("PriorBoxClustered", 1,
                       {{"width", "4,2"}, {"height", "2,4"}, {"offset", "0.5"}, {"clip", "false"}, {"variance", "0.1,0.1,0.2,0.2"}});
    // Layer [1, 2], image [4, 8]: step 4 both ways; centers (2, 2) and (6, 2).
    const Tensor out = pbc.run1({i64s({1, 2}), i64s({4, 8})});
    ASSERT_EQ(out.shape(), (Shape{2, 16}));
    EXPECT_EQ(first_box(out, 0), (std::vector<float>{0.0f, 0.25f, 0.5f, 0.75f}));   // 4x2 at (2,2)
    EXPECT_EQ(first_box(out, 1), (std::vector<float>{0.125f, 0.0f, 0.375f, 1.0f}));  // 2x4 at (2,2)
    EXPECT_EQ(first_box(out, 2), (std::vector<float>{0.5f, 0.25f, 1.0f, 0.75f}));
    EXPECT_EQ(first_box(out, 4), (std::vector<float>{0.1f, 0.1f, 0.2f, 0.2f}));  // the variances row
    // Clipping (the default), explicit steps, one variance value, and no image_size input.
    const OpTester clipped("PriorBoxClustered", 1, {{"width", "6"}, {"height", "6"}, {"offset", "0"}, {"step_w", "2"},
                                                    {"step_h", "2"}, {"variance", "0.5"}});
    const Tensor c = clipped.run1({i64s({2, 2})});
    EXPECT_EQ(first_box(c, 0), (std::vector<float>{0, 0, 1, 1}));
    EXPECT_EQ(first_box(c, 4), (std::vector<float>{0.5f, 0.5f, 0.5f, 0.5f}));
}

TEST(PriorBox, MinMaxAndAspectRatioBoxesInBothOrders) {
    // Layer [1, 1], image [10, 10], step 0: center (5, 5). min 2, max 8 -> sqrt(16) = 4, ratio 4 -> 4x1.
    const std::vector<IrAttribute> base = {{"min_size", "2"}, {"max_size", "8"}, {"aspect_ratio", "4"}, {"flip", "false"},
                                           {"offset", "0.5"}, {"variance", "0.1"}};
    const Tensor v1 = OpTester("PriorBox", 1, base).run1({i64s({1, 1}), i64s({10, 10})});
    ASSERT_EQ(v1.shape(), (Shape{2, 12}));
    EXPECT_EQ(first_box(v1, 0), (std::vector<float>{0.4f, 0.4f, 0.6f, 0.6f}));    // min
    EXPECT_EQ(first_box(v1, 1), (std::vector<float>{0.3f, 0.3f, 0.7f, 0.7f}));    // max
    EXPECT_EQ(first_box(v1, 2), (std::vector<float>{0.3f, 0.45f, 0.7f, 0.55f}));  // ratio 4
    std::vector<IrAttribute> ar_first = base;
    ar_first.push_back({"min_max_aspect_ratios_order", "false"});
    const Tensor v8 = OpTester("PriorBox", 8, ar_first).run1({i64s({1, 1}), i64s({10, 10})});
    EXPECT_EQ(first_box(v8, 1), (std::vector<float>{0.3f, 0.45f, 0.7f, 0.55f}));
    EXPECT_EQ(first_box(v8, 2), (std::vector<float>{0.3f, 0.3f, 0.7f, 0.7f}));
    // flip adds 1/ar; a duplicate ratio (and 1) adds nothing.
    const Tensor flipped = OpTester("PriorBox", 8, {{"min_size", "2"}, {"aspect_ratio", "2,2,1"}, {"flip", "true"},
                                                    {"offset", "0.5"}}).run1({i64s({2, 3}), i64s({20, 30})});
    EXPECT_EQ(flipped.shape(), (Shape{2, 4 * 6 * 3}));
}

TEST(PriorBox, Errors) {
    const OpTester pb("PriorBox", 1, {{"min_size", "2"}, {"offset", "0.5"}});
    EXPECT_TRUE(throws_error([&] { pb.run1({i64s({1, 2, 3}), i64s({10, 10})}); }, ErrorKind::ShapeRule, "size-invalid",
                             "two elements", 0));
    EXPECT_TRUE(throws_error([] { OpTester("PriorBoxClustered", 1, {{"width", "1,2"}, {"height", "1"}, {"offset", "0"}}).attrs(); },
                             ErrorKind::Attribute, "attribute-invalid", "width has 2 values, height has 1"));
    EXPECT_TRUE(throws_error([] { OpTester("PriorBox", 8, {{"offset", "0"}, {"variance", "1,2"}}).attrs(); }, ErrorKind::Attribute,
                             "attribute-invalid", "variance"));
    // The layer size unknown at load time: the box count is dynamic.
    const auto infos = pb.infer({unknown(ElementType::i64, PartialShape({2})), known(i64s({10, 10}))});
    EXPECT_EQ(infos[0].shape, PartialShape({2, -1}));
}

}  // namespace
}  // namespace irlite
