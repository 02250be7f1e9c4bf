// ReadValue-6: init input or declared variable_type/variable_shape, the stored value once set, the
// shape rule, errors; and ReadValue + Assign together through the public API: state that survives
// between runs and InferRequest::reset_state().
#include <gtest/gtest.h>

#include "irlite/irlite.hpp"
#include "ir_builder.hpp"
#include "op_tester.hpp"
#include "kernels/all_ops.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

// Runs ReadValue's kernel against `store` (OpTester has no variables).
Tensor read_value(const std::vector<IrAttribute>& attributes, const std::vector<Tensor>& inputs, VariableStore* store) {
    const OpDef* def = builtin_ops().find("ReadValue", 6);
    IrLayer layer;
    layer.type = "ReadValue";
    layer.attributes = attributes;
    const std::unique_ptr<OpAttrs> attrs = def->parse_attrs(AttrReader(layer, nullptr));
    std::vector<Tensor> outputs(1);
    KernelContext ctx(*def, *attrs, inputs, outputs, store, nullptr);
    def->compute(ctx);
    return outputs[0];
}

TEST(ReadValue, Definition) {
    const OpDef& def = OpTester("ReadValue", 6).def();
    EXPECT_FALSE(def.foldable);
    EXPECT_TRUE(def.allocates_outputs);
    // Opsets 3..5 have ReadValue-3, 6 and later ReadValue-6; opset2 has none.
    ASSERT_NE(builtin_ops().find("ReadValue", 5), nullptr);
    EXPECT_EQ(builtin_ops().find("ReadValue", 5)->version, 3);
    EXPECT_EQ(builtin_ops().find("ReadValue", 2), nullptr);
}

TEST(ReadValue, InitUntilSetThenStored) {
    VariableStore store;
    const Tensor init = make_tensor<float>({2}, {1, 2});
    const Tensor first = read_value({{"variable_id", "v"}}, {init}, &store);
    EXPECT_TRUE(tensors_equal(first, init));
    EXPECT_FALSE(first.shares_buffer_with(init)) << "the init value is copied";
    store.set("v", make_tensor<float>({2}, {5, 6}));
    EXPECT_TRUE(tensors_equal(read_value({{"variable_id", "v"}}, {init}, &store), make_tensor<float>({2}, {5, 6})));
    // Another variable is still unset.
    EXPECT_TRUE(tensors_equal(read_value({{"variable_id", "w"}}, {init}, &store), init));
}

TEST(ReadValue, DeclaredTypeAndShapeWithoutInit) {
    VariableStore store;
    const std::vector<IrAttribute> attrs = {{"variable_id", "v"}, {"variable_type", "i32"}, {"variable_shape", "[2,1]"}};
    EXPECT_TRUE(tensors_equal(read_value(attrs, {}, &store), make_tensor<int32_t>({2, 1}, {0, 0})));
    const auto infos = OpTester("ReadValue", 6, attrs).infer({});
    EXPECT_EQ(infos[0].type, ElementType::i32);
    EXPECT_EQ(infos[0].shape, PartialShape({2, 1}));
}

TEST(ReadValue, Rule) {
    const OpTester rv("ReadValue", 6, {{"variable_id", "v"}});
    const auto infos = rv.infer({unknown(ElementType::f16, {1, kDynamic})});
    EXPECT_EQ(infos[0].type, ElementType::f16);
    EXPECT_EQ(infos[0].shape, PartialShape({1, kDynamic}));
}

TEST(ReadValue, Errors) {
    EXPECT_TRUE(throws_error([&] { OpTester("ReadValue", 6).attrs(); }, ErrorKind::Attribute, "attribute-missing",
                             "variable_id"));
    EXPECT_TRUE(throws_error([&] { OpTester("ReadValue", 6, {{"variable_id", "v"}}).infer({}); }, ErrorKind::Attribute,
                             "attribute-missing", "needs both variable_type and variable_shape"));
    const OpTester typed("ReadValue", 6, {{"variable_id", "v"}, {"variable_type", "f32"}});
    EXPECT_TRUE(throws_error([&] { typed.infer({unknown(ElementType::i32, {1})}); }, ErrorKind::Type, "type-mismatch",
                             "init is i32 but variable_type is f32", 0));
    EXPECT_TRUE(throws_error([&] { read_value({{"variable_id", "v"}}, {scalar(1.0f)}, nullptr); }, ErrorKind::Usage,
                             "no-variables", "needs an infer request"));
}

// acc = ReadValue(init 10) + x; Assign(acc); output acc. Each run adds x to the running sum.
IrBuilder accumulator(const std::string& opset = "opset6") {
    IrBuilder b;
    const float init[2] = {10.0f, 20.0f};
    b.constant(0, "init", "f32", {2}, init, sizeof init);
    b.layer(1, "read", "ReadValue", opset, "variable_id=\"acc\"", {{0, "", {2}, ""}}, {{1, "FP32", {2}, ""}});
    b.parameter(2, "x", "f32", {2});
    b.layer(3, "sum", "Add", "opset1", "", {{0, "", {2}, ""}, {1, "", {2}, ""}}, {{2, "FP32", {2}, "sum"}});
    b.layer(4, "save", "Assign", opset, "variable_id=\"acc\"", {{0, "", {2}, ""}}, {});
    b.result(5, "sum/sink_port_0", "f32", {2});
    b.edge(0, 0, 1, 0).edge(1, 1, 3, 0).edge(2, 0, 3, 1).edge(3, 2, 4, 0).edge(3, 2, 5, 0);
    return b;
}

TEST(ReadValue, StateSurvivesRunsUntilReset) {
    const IrBuilder b = accumulator();
    const CompiledModel model(Model::read_from_memory(b.xml(), b.weights().data(), b.weights().size()));
    InferRequest req = model.create_infer_request();
    std::vector<float> x = {1.0f, 2.0f};
    req.set_input("x", Tensor::wrap(ElementType::f32, {2}, x.data()));
    const auto run = [&] {
        req.infer();
        return values_of<float>(req.output(0));
    };
    EXPECT_EQ(run(), (std::vector<float>{11, 22}));
    EXPECT_EQ(run(), (std::vector<float>{12, 24}));
    x = {0.5f, 0.5f};  // the input is a zero-copy view: the new values are read
    EXPECT_EQ(run(), (std::vector<float>{12.5f, 24.5f}));
    req.reset_state();
    EXPECT_EQ(run(), (std::vector<float>{10.5f, 20.5f}));
    // A second request has its own state.
    InferRequest other = model.create_infer_request();
    other.set_input("x", Tensor::wrap(ElementType::f32, {2}, x.data()));
    other.infer();
    EXPECT_EQ(values_of<float>(other.output(0)), (std::vector<float>{10.5f, 20.5f}));
}

TEST(ReadValue, Version3KeepsStateToo) {
    // ReadValue-3 / Assign-3 (opset3..5): the same state, 'init' required.
    const IrBuilder b = accumulator("opset3");
    const CompiledModel model(Model::read_from_memory(b.xml(), b.weights().data(), b.weights().size()));
    InferRequest req = model.create_infer_request();
    std::vector<float> x = {1.0f, 2.0f};
    req.set_input("x", Tensor::wrap(ElementType::f32, {2}, x.data()));
    req.infer();
    req.infer();
    EXPECT_EQ(values_of<float>(req.output(0)), (std::vector<float>{12, 24}));
    EXPECT_EQ(OpTester("ReadValue", 5, {{"variable_id", "v"}}).def().min_inputs, 1);
}

// InferRequest::query_state: each variable by name, to read, set and reset (OpenVINO's VariableState).
TEST(ReadValue, QueryStateReadsSetsAndResets) {
    const IrBuilder b = accumulator();
    const CompiledModel model(Model::read_from_memory(b.xml(), b.weights().data(), b.weights().size()));
    InferRequest req = model.create_infer_request();
    std::vector<VariableState> states = req.query_state();
    ASSERT_EQ(states.size(), 1u);
    EXPECT_EQ(states[0].name(), "acc");
    EXPECT_FALSE(states[0].state().valid());  // nothing yet: ReadValue gives its init
    std::vector<float> x = {1.0f, 2.0f};
    req.set_input("x", Tensor::wrap(ElementType::f32, {2}, x.data()));
    req.infer();
    EXPECT_EQ(values_of<float>(states[0].state()), (std::vector<float>{11, 22}));
    std::vector<float> mine = {100.0f, 200.0f};
    states[0].set_state(Tensor::wrap(ElementType::f32, {2}, mine.data()));
    mine = {0.0f, 0.0f};  // set_state copied it
    req.infer();
    EXPECT_EQ(values_of<float>(req.output(0)), (std::vector<float>{101, 202}));
    states[0].reset();
    req.infer();
    EXPECT_EQ(values_of<float>(req.output(0)), (std::vector<float>{11, 22}));
}

// start_async / wait: the same results as infer(), errors rethrown by wait(), one run at a time.
TEST(ReadValue, AsyncRunsGiveTheSameResults) {
    const IrBuilder b = accumulator();
    const CompiledModel model(Model::read_from_memory(b.xml(), b.weights().data(), b.weights().size()));
    InferRequest req = model.create_infer_request();
    std::vector<float> x = {1.0f, 2.0f};
    req.set_input("x", Tensor::wrap(ElementType::f32, {2}, x.data()));
    for (int i = 1; i <= 3; ++i) {
        req.start_async();
        req.wait();
        EXPECT_EQ(values_of<float>(req.output(0)), (std::vector<float>{10.0f + i, 20.0f + 2.0f * i}));
    }
    std::vector<float> wrong(3);
    req.set_input("x", Tensor::wrap(ElementType::f32, {3}, wrong.data()));
    // A mismatching input is caught by set_input or by the run; either way wait() reports it.
    bool threw = false;
    try {
        req.start_async();
        req.wait();
    } catch (const Error&) {
        threw = true;
    }
    EXPECT_TRUE(threw);
    req.wait();  // nothing pending: returns at once
    // A request destroyed with a run in flight joins it.
    InferRequest other = model.create_infer_request();
    other.set_input("x", Tensor::wrap(ElementType::f32, {2}, x.data()));
    other.start_async();
}

}  // namespace
}  // namespace irlite
