// DepthToSpace-1 and SpaceToDepth-1: both modes against a direct index formula, 1-D and 3-D
// spatial, round trips, every element size, and the errors.
#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

std::vector<IrAttribute> attrs(const char* mode, int64_t bs) { return {{"mode", mode}, {"block_size", std::to_string(bs)}}; }

// DepthToSpace by the definition, for 2-D spatial data [N, C*bs*bs, H, W].
std::vector<double> d2s_reference(const std::vector<double>& x, const Shape& in, int64_t bs, bool blocks_first) {
    const int64_t n = in[0], c_in = in[1], h = in[2], w = in[3], c = c_in / (bs * bs);
    std::vector<double> out(x.size());
    for (int64_t b = 0; b < n; ++b)
        for (int64_t ch = 0; ch < c; ++ch)
            for (int64_t y = 0; y < h * bs; ++y)
                for (int64_t xx = 0; xx < w * bs; ++xx) {
                    const int64_t by = y % bs, bx = xx % bs;
                    const int64_t src_c = blocks_first ? (by * bs + bx) * c + ch : ch * bs * bs + by * bs + bx;
                    out[static_cast<size_t>(((b * c + ch) * h * bs + y) * w * bs + xx)] =
                        x[static_cast<size_t>(((b * c_in + src_c) * h + y / bs) * w + xx / bs)];
                }
    return out;
}

TEST(DepthToSpace, BothModesMatchTheDefinition) {
    const Shape in{2, 12, 2, 3};
    const Tensor x = iota(ElementType::f32, in, 1000);
    const std::vector<double> xs = to_doubles(x);
    for (const char* mode : {"blocks_first", "depth_first"}) {
        const Tensor out = OpTester("DepthToSpace", 1, attrs(mode, 2)).run1({x});
        ASSERT_EQ(out.shape(), (Shape{2, 3, 4, 6}));
        EXPECT_EQ(to_doubles(out), d2s_reference(xs, in, 2, std::string(mode) == "blocks_first")) << mode;
    }
}

TEST(DepthToSpace, RoundTripsWithSpaceToDepthInAnyRank) {
    for (const Shape& in : {Shape{1, 6, 5}, Shape{2, 8, 2, 3}, Shape{1, 16, 2, 1, 3}})
        for (const char* mode : {"blocks_first", "depth_first"})
            for (ElementType t : {ElementType::u8, ElementType::f16, ElementType::i32, ElementType::f64}) {
                const int64_t bs = 2;
                const Tensor x = iota(t, in, 100);
                const Tensor space = OpTester("DepthToSpace", 1, attrs(mode, bs)).run1({x});
                const Tensor back = OpTester("SpaceToDepth", 1, attrs(mode, bs)).run1({space});
                EXPECT_TRUE(tensors_equal(back, x)) << mode << " " << to_string(PartialShape(in)) << " " << to_string(t);
            }
    // 1-D spatial, blocks_first by hand: [1, 4, 2] with bs 2 -> [1, 2, 4].
    const Tensor x = make_tensor<int32_t>({1, 4, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
    EXPECT_EQ(values_of<int32_t>(OpTester("DepthToSpace", 1, attrs("blocks_first", 2)).run1({x})),
              (std::vector<int32_t>{0, 4, 1, 5, 2, 6, 3, 7}));
    EXPECT_EQ(values_of<int32_t>(OpTester("DepthToSpace", 1, attrs("depth_first", 2)).run1({x})),
              (std::vector<int32_t>{0, 2, 1, 3, 4, 6, 5, 7}));
    // block_size 1 is the identity.
    EXPECT_TRUE(tensors_equal(OpTester("SpaceToDepth", 1, attrs("depth_first", 1)).run1({x}), x));
}

TEST(DepthToSpace, Errors) {
    EXPECT_TRUE(throws_error([] { OpTester("DepthToSpace", 1, attrs("blocks_first", 2)).run1({iota(ElementType::f32, {1, 6, 2, 2})}); },
                             ErrorKind::ShapeRule, "shape-invalid", "channels 6 not divisible by block_size^2", 0));
    EXPECT_TRUE(throws_error([] { OpTester("SpaceToDepth", 1, attrs("blocks_first", 2)).run1({iota(ElementType::f32, {1, 1, 4, 3})}); },
                             ErrorKind::ShapeRule, "shape-invalid", "spatial dim 3", 0));
    EXPECT_TRUE(throws_error([] { OpTester("SpaceToDepth", 1, attrs("blocks_first", 2)).run1({iota(ElementType::f32, {4, 4})}); },
                             ErrorKind::ShapeRule, "rank-invalid", "rank >= 3", 0));
    EXPECT_TRUE(throws_error([] { OpTester("DepthToSpace", 1, attrs("sideways", 2)).attrs(); }, ErrorKind::Attribute,
                             "attribute-invalid", "mode"));
    EXPECT_TRUE(throws_error([] { OpTester("DepthToSpace", 1, attrs("depth_first", 0)).attrs(); }, ErrorKind::Attribute,
                             "attribute-invalid", "block_size"));
    EXPECT_THROW(OpTester("SpaceToDepth", 1, {{"block_size", "2"}}).attrs(), Error);  // mode is required
    // Dynamic dims stay dynamic; known ones are checked.
    const auto infos = OpTester("DepthToSpace", 1, attrs("depth_first", 2))
                           .infer({unknown(ElementType::f32, PartialShape({-1, 8, -1, 3}))});
    EXPECT_EQ(infos[0].shape, PartialShape({-1, 2, -1, 6}));
}

}  // namespace
}  // namespace irlite
