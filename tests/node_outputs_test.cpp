// Every layer's outputs kept (CompileOptions::keep_intermediates) and listed after a run
// (InferRequest::node_outputs): topological order, no Consts or Results, each value its own (no
// in-place write over it), fused nodes named by their layers.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "irlite/irlite.hpp"
#include "mlp_ir.hpp"

namespace irlite {
namespace {

using testing::Mlp;

Tensor input_x() {
    Tensor x(ElementType::f32, {2, 8});
    for (int i = 0; i < 16; ++i) x.data<float>()[i] = static_cast<float>((i * 7) % 11) / 5.0f - 1.0f;
    return x;
}

CompiledModel compile(const Model& m, bool fusion, bool keep = true) {
    CompileOptions o;
    o.threads = 1;
    o.fusion = fusion;
    o.keep_intermediates = keep;
    return CompiledModel(m, o);
}

// The outputs of one run, as copies.
std::vector<NodeOutput> run(const Model& m, bool fusion) {
    const CompiledModel compiled = compile(m, fusion);
    InferRequest request = compiled.create_infer_request();
    const Tensor x = input_x();
    request.set_input("x", x);
    request.infer();
    std::vector<NodeOutput> outs = request.node_outputs();
    for (NodeOutput& o : outs) o.value = o.value.clone();
    return outs;
}

std::vector<std::string> names_of(const std::vector<NodeOutput>& v) {
    std::vector<std::string> n;
    for (const NodeOutput& o : v) n.push_back(o.name);
    return n;
}

TEST(NodeOutputs, EveryLayerInTopologicalOrderWithItsOwnValue) {
    const Model model = Mlp().model();
    const CompiledModel compiled = compile(model, false);
    InferRequest request = compiled.create_infer_request();
    EXPECT_TRUE(request.node_outputs().empty());  // nothing ran yet
    const Tensor x = input_x();
    request.set_input("x", x);
    request.infer();
    const std::vector<NodeOutput> outs = request.node_outputs();
    // No Consts, no Result.
    EXPECT_EQ(names_of(outs), (std::vector<std::string>{"x", "mm1", "add1", "relu1", "mm2", "add2"}));
    EXPECT_EQ(outs[0].value.data(), x.data());  // the bound input itself
    EXPECT_EQ(outs[2].type, "Add");
    EXPECT_EQ(outs[2].tensor_names, std::vector<std::string>{"add1:0"});
    EXPECT_EQ(outs[2].port, 0);
    EXPECT_EQ(outs[2].num_ports, 1);
    // ReLU could run in place over add1's output; kept, add1 still holds its negative values.
    const Tensor& add1 = outs[2].value;
    const Tensor& relu1 = outs[3].value;
    ASSERT_EQ(add1.num_elements(), 32);
    EXPECT_NE(add1.data(), relu1.data());
    int negatives = 0;
    for (int i = 0; i < 32; ++i) {
        const float a = add1.data<float>()[i];
        negatives += a < 0 ? 1 : 0;
        EXPECT_EQ(relu1.data<float>()[i], a > 0 ? a : 0.0f) << i;
    }
    EXPECT_GT(negatives, 0);
    // The last output is the model's output.
    EXPECT_EQ(outs.back().value.data(), request.output(0).data());
}

TEST(NodeOutputs, NeedKeepIntermediates) {
    const Model model = Mlp().model();
    const CompiledModel compiled = compile(model, true, false);
    InferRequest request = compiled.create_infer_request();
    request.set_input("x", input_x());
    request.infer();
    try {
        (void)request.node_outputs();
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), "intermediates-not-kept");
    }
}

TEST(NodeOutputs, FusedNodeNamedByItsLayers) {
    const Model model = Mlp().model();
    const std::vector<NodeOutput> outs = run(model, true);
    EXPECT_EQ(names_of(outs), (std::vector<std::string>{"x", "mm1+add1+relu1", "mm2+add2"}));
    EXPECT_EQ(outs[1].type, "MatMul+Add+Relu");
    EXPECT_EQ(outs[1].layer, "relu1");
    EXPECT_EQ(outs[1].tensor_names, std::vector<std::string>{"relu1:0"});
    // The same values as unfused, within rounding.
    const std::vector<NodeOutput> plain = run(model, false);
    ASSERT_EQ(plain.back().value.num_elements(), 8);
    for (int i = 0; i < 8; ++i)
        EXPECT_NEAR(outs.back().value.data<float>()[i], plain.back().value.data<float>()[i], 1e-5) << i;
}

}  // namespace
}  // namespace irlite
