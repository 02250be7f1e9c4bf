// ReorgYolo-1: OpenVINO's reference vectors in every element type, Darknet's index formula for
// several strides and batches, the stride attribute's spellings, the shape rule, the errors, and
// an IR file that writes the op as opset1 (OpenVINO's legacy spelling, looked up in opset2).
#include <algorithm>

#include "irlite/irlite.hpp"
#include "ir_builder.hpp"
#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

OpTester reorg(const std::string& stride) { return OpTester("ReorgYolo", 2, {{"stride", stride}}); }

// out[n][c][h][w] (indexed with the input's dims) = in seen as [N, C / s^2, H * s, W * s].
std::vector<double> reference(const std::vector<double>& x, const Shape& in, int64_t s) {
    const int64_t n = in[0], c = in[1], h = in[2], w = in[3], c2 = c / (s * s);
    std::vector<double> out(x.size());
    for (int64_t b = 0; b < n; ++b)
        for (int64_t ch = 0; ch < c; ++ch)
            for (int64_t y = 0; y < h; ++y)
                for (int64_t xx = 0; xx < w; ++xx) {
                    const int64_t offset = ch / c2;
                    const int64_t src = ((b * c2 + ch % c2) * h * s + y * s + offset / s) * w * s + xx * s + offset % s;
                    out[static_cast<size_t>(((b * c + ch) * h + y) * w + xx)] = x[static_cast<size_t>(src)];
                }
    return out;
}

TEST(ReorgYolo, OpenVinoReferenceVectorsInEveryType) {
    const std::vector<double> want2 = {
        0,  2,  4,  6,  16, 18, 20, 22, 32,  34,  36,  38,  48,  50,  52,  54,  64, 66, 68, 70, 80, 82,
        84, 86, 96, 98, 100, 102, 112, 114, 116, 118, 1,  3,  5,  7,  17, 19, 21, 23, 33, 35, 37, 39,
        49, 51, 53, 55, 65, 67, 69, 71, 81, 83, 85, 87, 97, 99, 101, 103, 113, 115, 117, 119, 8,  10,
        12, 14, 24, 26, 28, 30, 40,  42,  44,  46,  56,  58,  60,  62,  72, 74, 76, 78, 88, 90, 92, 94,
        104, 106, 108, 110, 120, 122, 124, 126, 9,  11, 13, 15, 25, 27, 29, 31, 41, 43, 45, 47, 57, 59,
        61, 63, 73, 75, 77, 79, 89, 91, 93, 95, 105, 107, 109, 111, 121, 123, 125, 127};
    const std::vector<double> want3 = {
        0,  3,  6,  27, 30, 33, 54, 57, 60, 1,  4,  7,  28, 31, 34, 55, 58, 61, 2,  5,  8,  29, 32, 35, 56, 59, 62,
        9,  12, 15, 36, 39, 42, 63, 66, 69, 10, 13, 16, 37, 40, 43, 64, 67, 70, 11, 14, 17, 38, 41, 44, 65, 68, 71,
        18, 21, 24, 45, 48, 51, 72, 75, 78, 19, 22, 25, 46, 49, 52, 73, 76, 79, 20, 23, 26, 47, 50, 53, 74, 77, 80};
    for (ElementType t : {ElementType::f64, ElementType::f32, ElementType::f16, ElementType::bf16, ElementType::i64,
                          ElementType::i32, ElementType::i16, ElementType::i8, ElementType::u64, ElementType::u32,
                          ElementType::u16, ElementType::u8}) {
        Tensor out = reorg("2").run1({iota(t, {1, 8, 4, 4}, 1000)});
        EXPECT_EQ(out.shape(), (Shape{1, 32, 2, 2})) << to_string(t);
        EXPECT_EQ(out.type(), t);
        EXPECT_EQ(to_doubles(out), want2) << to_string(t);
        out = reorg("3").run1({iota(t, {1, 9, 3, 3}, 1000)});
        EXPECT_EQ(out.shape(), (Shape{1, 81, 1, 1})) << to_string(t);
        EXPECT_EQ(to_doubles(out), want3) << to_string(t);
    }
}

TEST(ReorgYolo, MatchesDarknetsFormula) {
    struct Row {
        Shape in;
        int64_t stride;
    };
    for (const Row& r : {Row{{2, 8, 4, 6}, 2}, Row{{3, 18, 6, 3}, 3}, Row{{1, 64, 26, 26}, 2}, Row{{2, 5, 3, 2}, 1},
                         Row{{1, 32, 4, 8}, 4}, Row{{2, 4, 0, 2}, 2}}) {
        const Tensor x = iota(ElementType::f32, r.in, 1 << 20);
        const Tensor out = reorg(std::to_string(r.stride)).run1({x});
        EXPECT_EQ(out.shape(), (Shape{r.in[0], r.in[1] * r.stride * r.stride, r.in[2] / r.stride, r.in[3] / r.stride}));
        EXPECT_EQ(to_doubles(out), reference(to_doubles(x), r.in, r.stride)) << to_string(PartialShape(r.in));
    }
    // Every element is read once: a permutation.
    const Tensor x = iota(ElementType::i32, {2, 12, 4, 4}, 1 << 20);
    std::vector<int32_t> got = values_of<int32_t>(reorg("2").run1({x}));
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, values_of<int32_t>(x));
    // Booleans move like any byte.
    const Tensor flags = iota(ElementType::boolean, {1, 4, 2, 2});
    EXPECT_EQ(to_doubles(reorg("2").run1({flags})), reference(to_doubles(flags), {1, 4, 2, 2}, 2));
}

TEST(ReorgYolo, StrideAttribute) {
    // OpenVINO keeps the stride as a list and may write one value per spatial dim.
    const Tensor x = iota(ElementType::f32, {1, 8, 4, 4});
    EXPECT_TRUE(tensors_equal(reorg("2,2").run1({x}), reorg("2").run1({x})));
    EXPECT_TRUE(throws_error([] { reorg("2,3").attrs(); }, ErrorKind::Attribute, "attribute-invalid",
                             "every spatial stride must be the same"));
    EXPECT_TRUE(throws_error([] { reorg("0").attrs(); }, ErrorKind::Attribute, "attribute-invalid", "must be >= 1"));
    EXPECT_TRUE(throws_error([] { reorg("").attrs(); }, ErrorKind::Attribute, "attribute-invalid", "empty"));
    EXPECT_THROW(OpTester("ReorgYolo", 2).attrs(), Error);  // stride is required
}

TEST(ReorgYolo, ShapeRule) {
    auto infos = reorg("2").infer({unknown(ElementType::f16, PartialShape({kDynamic, 64, kDynamic, 26}))});
    EXPECT_EQ(infos[0].shape, PartialShape({kDynamic, 256, kDynamic, 13}));
    EXPECT_EQ(infos[0].type, ElementType::f16);
    infos = reorg("2").infer({unknown(ElementType::u8, PartialShape::dynamic_rank())});
    EXPECT_EQ(infos[0].shape, PartialShape::all_dynamic(4));
    // The op is in opset2 .. opset16 only (opset1 files are looked up in opset2 by the builder).
    EXPECT_EQ(builtin_ops().find("ReorgYolo", 1), nullptr);
    EXPECT_NE(builtin_ops().find("ReorgYolo", 16), nullptr);
}

TEST(ReorgYolo, Errors) {
    const auto run = [](const char* stride, Shape shape) {
        return [=] { reorg(stride).run1({iota(ElementType::f32, shape)}); };
    };
    EXPECT_TRUE(throws_error(run("2", {1, 8, 4}), ErrorKind::ShapeRule, "rank-invalid", "rank 4 ([N, C, H, W])", 0));
    EXPECT_TRUE(throws_error(run("2", {1, 3, 4, 4}), ErrorKind::ShapeRule, "shape-invalid",
                             "channels 3 must be a multiple of stride*stride = 4", 0));
    EXPECT_TRUE(throws_error(run("2", {1, 6, 4, 4}), ErrorKind::ShapeRule, "shape-invalid", "not a permutation", 0));
    EXPECT_TRUE(throws_error(run("2", {1, 4, 5, 4}), ErrorKind::ShapeRule, "shape-invalid",
                             "height 5 (dim 2) is not divisible by stride 2", 0));
    EXPECT_TRUE(throws_error(run("3", {1, 9, 3, 4}), ErrorKind::ShapeRule, "shape-invalid", "width 4", 0));
}

// Old IR files (Model Optimizer before opset2 existed) write ReorgYolo as opset1.
TEST(ReorgYolo, LegacyOpset1SpellingRuns) {
    IrBuilder b;
    b.parameter(0, "x", "f32", {1, 8, 4, 4});
    b.layer(1, "reorg", "ReorgYolo", "opset1", "stride=\"2\"", {{0, "", {1, 8, 4, 4}, ""}}, {{1, "FP32", {1, 32, 2, 2}, "y"}});
    b.result(2, "y/sink_port_0", "f32", {1, 32, 2, 2});
    b.edge(0, 0, 1, 0).edge(1, 1, 2, 0);
    const CompiledModel model(Model::read_from_memory(b.xml(), nullptr, 0));
    InferRequest req = model.create_infer_request();
    const Tensor x = iota(ElementType::f32, {1, 8, 4, 4}, 1000);
    req.set_input("x", x);
    req.infer();
    EXPECT_EQ(to_doubles(req.output(0)), reference(to_doubles(x), {1, 8, 4, 4}, 2));
}

}  // namespace
}  // namespace irlite
