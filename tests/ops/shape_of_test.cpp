// ShapeOf-1 and ShapeOf-3: output types, scalars, shape-only inputs (null data, as constant
// folding passes them), load-time rules, and errors.
#include <gtest/gtest.h>

#include "irlite/irlite.hpp"
#include "ir_builder.hpp"
#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

TEST(ShapeOf, Versions) {
    const Tensor data = iota(ElementType::u8, {2, 3, 4});
    EXPECT_TRUE(tensors_equal(OpTester("ShapeOf", 1).run1({data}), i64s({2, 3, 4})));
    EXPECT_TRUE(tensors_equal(OpTester("ShapeOf", 3).run1({data}), i64s({2, 3, 4})));
    EXPECT_TRUE(tensors_equal(OpTester("ShapeOf", 3, {{"output_type", "i32"}}).run1({data}), i32s({2, 3, 4})));
    EXPECT_TRUE(tensors_equal(OpTester("ShapeOf", 3, {{"output_type", "i64"}}).run1({scalar(1.0f)}), i64s({})));
}

TEST(ShapeOf, ReadsOnlyTheShape) {
    EXPECT_EQ(OpTester("ShapeOf", 3).def().shape_only_inputs, inputs(0));
    // Constant folding hands ShapeOf a tensor with the right shape and no data.
    const Tensor shape_only = Tensor::wrap(ElementType::f32, {5, 0, 7}, nullptr);
    EXPECT_TRUE(tensors_equal(OpTester("ShapeOf", 3).run1({shape_only}), i64s({5, 0, 7})));
}

TEST(ShapeOf, Rule) {
    const OpTester shape_of("ShapeOf", 3, {{"output_type", "i32"}});
    auto infos = shape_of.infer({unknown(ElementType::f32, {kDynamic, 3})});
    EXPECT_EQ(infos[0].type, ElementType::i32);
    EXPECT_EQ(infos[0].shape, PartialShape({2}));
    infos = shape_of.infer({unknown(ElementType::f32, PartialShape::dynamic_rank())});
    EXPECT_EQ(infos[0].shape, PartialShape::all_dynamic(1));
}

TEST(ShapeOf, Errors) {
    EXPECT_TRUE(throws_error([&] { OpTester("ShapeOf", 3, {{"output_type", "f32"}}).attrs(); }, ErrorKind::Attribute,
                             "attribute-invalid", "expected one of i64, i32"));
    const Tensor huge = Tensor::wrap(ElementType::u8, {int64_t{1} << 32, 0}, nullptr);
    EXPECT_TRUE(throws_error([&] { OpTester("ShapeOf", 3, {{"output_type", "i32"}}).run1({huge}); }, ErrorKind::Value,
                             "value-out-of-range", "dim 0 = 4294967296 does not fit output_type i32", 0));
}

// The usual exporter pattern: y = Reshape(x, Concat(Gather(ShapeOf(x), [0]), [-1])).
IrBuilder flatten_model(long long batch) {
    IrBuilder b;
    const int64_t first[1] = {0}, axis0 = 0, minus_one[1] = {-1};
    b.parameter(0, "x", "f32", {batch, 3, 4});
    b.layer(1, "shape", "ShapeOf", "opset3", "output_type=\"i64\"", {{0, "", {batch, 3, 4}, ""}}, {{1, "I64", {3}, ""}});
    b.constant(2, "first", "i64", {1}, first, sizeof first);
    b.constant(3, "axis", "i64", {}, &axis0, sizeof axis0);
    b.layer(4, "batch", "Gather", "opset8", "batch_dims=\"0\"", {{0, "", {3}, ""}, {1, "", {1}, ""}, {2, "", {}, ""}},
            {{3, "I64", {1}, ""}});
    b.constant(5, "rest", "i64", {1}, minus_one, sizeof minus_one);
    b.layer(6, "pattern", "Concat", "opset1", "axis=\"0\"", {{0, "", {1}, ""}, {1, "", {1}, ""}}, {{2, "I64", {2}, ""}});
    b.layer(7, "flat", "Reshape", "opset1", "special_zero=\"false\"", {{0, "", {batch, 3, 4}, ""}, {1, "", {2}, ""}},
            {{2, "FP32", {batch, 12}, "y"}});
    b.result(8, "y/sink_port_0", "f32", {batch, 12});
    b.edge(0, 0, 1, 0).edge(1, 1, 4, 0).edge(2, 0, 4, 1).edge(3, 0, 4, 2).edge(4, 3, 6, 0).edge(5, 0, 6, 1);
    b.edge(0, 0, 7, 0).edge(6, 2, 7, 1).edge(7, 2, 8, 0);
    return b;
}

TEST(ShapeOf, ShapeSubgraphFoldsAtLoadTime) {
    const IrBuilder b = flatten_model(2);
    const CompiledModel model(Model::read_from_memory(b.xml(), b.weights().data(), b.weights().size()));
    // Static at load time: ShapeOf read only the Parameter's shape and the chain folded.
    EXPECT_EQ(model.outputs()[0].shape, PartialShape({2, 12}));
    InferRequest req = model.create_infer_request();
    std::vector<float> x(24, 1.0f);
    const Tensor input = Tensor::wrap(ElementType::f32, {2, 3, 4}, x.data());
    req.set_input("x", input);
    req.infer();
    EXPECT_EQ(req.output(0).shape(), (Shape{2, 12}));
    EXPECT_TRUE(req.output(0).shares_buffer_with(input)) << "Reshape is a view";
}

TEST(ShapeOf, ShapeSubgraphRunsWithADynamicBatch) {
    const IrBuilder b = flatten_model(-1);
    const CompiledModel model(Model::read_from_memory(b.xml(), b.weights().data(), b.weights().size()));
    EXPECT_EQ(model.outputs()[0].shape, PartialShape({kDynamic, kDynamic}));
    InferRequest req = model.create_infer_request();
    for (int64_t batch : {5, 1}) {
        std::vector<float> x(static_cast<size_t>(batch * 12), 2.0f);
        req.set_input("x", Tensor::wrap(ElementType::f32, {batch, 3, 4}, x.data()));
        req.infer();
        EXPECT_EQ(req.output(0).shape(), (Shape{batch, 12}));
    }
}

}  // namespace
}  // namespace irlite
