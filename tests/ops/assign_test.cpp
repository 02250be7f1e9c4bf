// Assign-6: a sink with no output or one pass-through output that stores a copy of its input in the request's variables
// (the ReadValue + Assign round trip through the API is in read_value_test.cpp).
#include <gtest/gtest.h>

#include "op_tester.hpp"
#include "kernels/all_ops.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

void assign(const std::string& id, const Tensor& value, VariableStore* store) {
    const OpDef* def = builtin_ops().find("Assign", 6);
    IrLayer layer;
    layer.type = "Assign";
    layer.attributes = {{"variable_id", id}};
    const std::unique_ptr<OpAttrs> attrs = def->parse_attrs(AttrReader(layer, nullptr));
    const std::vector<Tensor> inputs = {value};
    std::vector<Tensor> outputs;
    KernelContext ctx(*def, *attrs, inputs, outputs, store, nullptr);
    def->compute(ctx);
}

TEST(Assign, Definition) {
    const OpDef& def = OpTester("Assign", 6).def();
    EXPECT_EQ(def.role, OpRole::Sink);
    EXPECT_EQ(def.num_outputs, -1);
    EXPECT_FALSE(def.foldable);
    const OpTester op("Assign", 6, {{"variable_id", "v"}});
    EXPECT_TRUE(op.infer({unknown(ElementType::f32, {2})}, 0).empty());
    // OpenVINO's Assign has one output, its input passed through (issue 11).
    const auto one = op.infer({unknown(ElementType::f32, {2})}, 1);
    ASSERT_EQ(one.size(), 1u);
    EXPECT_EQ(one[0].type, ElementType::f32);
    EXPECT_EQ(one[0].shape, PartialShape({2}));
    EXPECT_TRUE(throws_error([&] { op.infer({unknown(ElementType::f32, {2})}, 2); }, ErrorKind::Graph, "output-count",
                             "at most one output"));
}

TEST(Assign, PassesItsInputThrough) {
    const OpDef* def = builtin_ops().find("Assign", 6);
    IrLayer layer;
    layer.type = "Assign";
    layer.attributes = {{"variable_id", "v"}};
    const std::unique_ptr<OpAttrs> attrs = def->parse_attrs(AttrReader(layer, nullptr));
    VariableStore store;
    const Tensor value = make_tensor<int64_t>({2}, {4, 5});
    const std::vector<Tensor> inputs = {value};
    std::vector<Tensor> outputs(1);
    KernelContext ctx(*def, *attrs, inputs, outputs, &store, nullptr);
    def->compute(ctx);
    EXPECT_TRUE(tensors_equal(outputs[0], value));
    EXPECT_TRUE(tensors_equal(*store.find("v"), value));
}

TEST(Assign, StoresACopy) {
    VariableStore store;
    Tensor value = make_tensor<int64_t>({3}, {1, 2, 3});
    assign("v", value, &store);
    ASSERT_NE(store.find("v"), nullptr);
    EXPECT_TRUE(tensors_equal(*store.find("v"), value));
    EXPECT_FALSE(store.find("v")->shares_buffer_with(value));
    value.data<int64_t>()[0] = 99;  // later writes to the source do not reach the variable
    EXPECT_EQ(store.find("v")->data<int64_t>()[0], 1);
    assign("v", make_tensor<int64_t>({1}, {7}), &store);  // overwritten, any shape
    EXPECT_TRUE(tensors_equal(*store.find("v"), make_tensor<int64_t>({1}, {7})));
    EXPECT_EQ(store.size(), 1u);
}

TEST(Assign, Errors) {
    EXPECT_TRUE(throws_error([&] { OpTester("Assign", 6).attrs(); }, ErrorKind::Attribute, "attribute-missing",
                             "variable_id"));
    EXPECT_TRUE(throws_error([&] { OpTester("Assign", 6, {{"variable_id", ""}}).attrs(); }, ErrorKind::Attribute,
                             "attribute-invalid", "must not be empty"));
    EXPECT_TRUE(throws_error([&] { assign("v", scalar(1.0f), nullptr); }, ErrorKind::Usage, "no-variables",
                             "needs an infer request"));
}

}  // namespace
}  // namespace irlite
