// A sub-graph body's plan gets the model's compile passes (engine/compile_passes.hpp): an f16
// body computes in f32 by default and in f16 on request, and fusion runs inside bodies when on.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/compile_passes.hpp"
#include "engine/fusion.hpp"
#include "engine/graph.hpp"
#include "engine/subgraph.hpp"
#include "irlite/irlite.hpp"
#include "kernels/all_ops.hpp"
#include "kernels/detail/half_convert.hpp"
#include "subgraph_ir.hpp"

namespace irlite {
namespace {

using testing::dims_xml;
using testing::edge_xml;
using testing::net_xml;
using testing::parameter_xml;
using testing::result_xml;

std::string port(int id, const std::string& precision, const std::string& dims, const std::string& names = "") {
    return "<port id=\"" + std::to_string(id) + "\" precision=\"" + precision + "\"" +
           (names.empty() ? "" : " names=\"" + names + "\"") + ">" + dims_xml(dims) + "</port>";
}

// TensorIterator 'ti' over x [3,4] (axis 0) with w [4,4] invariant; the body computes
// tanh(x[i] MatMul w) MatMul w, the output concatenates the three rows. Every float value is `type`.
std::string ti_matmul_tanh(const std::string& type) {
    const std::string p = type == "f16" ? "FP16" : "FP32";
    const std::string body =
        "<body><layers>\n" + parameter_xml(0, "b_x", type, "1,4") + parameter_xml(1, "b_w", type, "4,4") +
        "<layer id=\"2\" name=\"matmul\" type=\"MatMul\" version=\"opset1\"><data transpose_a=\"false\" "
        "transpose_b=\"false\"/><input>" + port(0, p, "1,4") + port(1, p, "4,4") + "</input><output>" + port(2, p, "1,4") +
        "</output></layer>\n<layer id=\"3\" name=\"tanh\" type=\"Tanh\" version=\"opset1\"><input>" + port(0, p, "1,4") +
        "</input><output>" + port(1, p, "1,4") + "</output></layer>\n" +
        "<layer id=\"4\" name=\"matmul2\" type=\"MatMul\" version=\"opset1\"><data transpose_a=\"false\" "
        "transpose_b=\"false\"/><input>" + port(0, p, "1,4") + port(1, p, "4,4") + "</input><output>" + port(2, p, "1,4") +
        "</output></layer>\n" + result_xml(5, "b_out", p, "1,4") + "</layers><edges>\n" + edge_xml(0, 0, 2, 0) +
        edge_xml(1, 0, 2, 1) + edge_xml(2, 2, 3, 0) + edge_xml(3, 1, 4, 0) + edge_xml(1, 0, 4, 1) + edge_xml(4, 2, 5, 0) +
        "</edges></body>\n";
    const std::string ti = "<layer id=\"2\" name=\"ti\" type=\"TensorIterator\" version=\"opset1\">\n<input>" +
                           port(0, p, "3,4") + port(1, p, "4,4") + "</input>\n<output>" + port(2, p, "3,4", "y") +
                           "</output>\n<port_map>\n"
                           "<input axis=\"0\" external_port_id=\"0\" internal_layer_id=\"0\"/>\n"
                           "<input external_port_id=\"1\" internal_layer_id=\"1\"/>\n"
                           "<output axis=\"0\" external_port_id=\"2\" internal_layer_id=\"5\"/>\n</port_map>\n" +
                           body + "</layer>\n";
    return net_xml(parameter_xml(0, "x", type, "3,4") + parameter_xml(1, "w", type, "4,4") + ti + result_xml(3, "out", p, "3,4"),
                   edge_xml(0, 0, 2, 0) + edge_xml(1, 0, 2, 1) + edge_xml(2, 2, 3, 0));
}

// Values f16 holds exactly, so that the f16 and f32 models read the same numbers.
std::vector<float> exact_values(size_t n, int seed) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(static_cast<int>((i * 7 + static_cast<size_t>(seed)) % 11) - 5) / 8 + 1.f / 1024;
    return v;
}

std::vector<uint16_t> to_f16(const std::vector<float>& v) {
    std::vector<uint16_t> out;
    for (float x : v) out.push_back(f32_to_f16(x));
    return out;
}

Tensor run(const std::string& xml, const std::vector<Tensor>& inputs, const CompileOptions& options) {
    const Model model = Model::read_from_memory(xml, nullptr, 0);
    const CompiledModel compiled(model, options);
    InferRequest request = compiled.create_infer_request();
    for (size_t i = 0; i < inputs.size(); ++i) request.set_input(i, inputs[i]);
    request.infer();
    return request.output(0).clone();
}

TEST(SubgraphPasses, F16BodyComputesInF32AndRoundsOnce) {
    const std::vector<float> x = exact_values(12, 1), w = exact_values(16, 4);
    std::vector<uint16_t> x16 = to_f16(x), w16 = to_f16(w);
    const Tensor y32 = run(ti_matmul_tanh("f32"), {Tensor::wrap(ElementType::f32, {3, 4}, const_cast<float*>(x.data())),
                                                   Tensor::wrap(ElementType::f32, {4, 4}, const_cast<float*>(w.data()))},
                           {});
    const std::vector<Tensor> in16 = {Tensor::wrap(ElementType::f16, {3, 4}, x16.data()),
                                      Tensor::wrap(ElementType::f16, {4, 4}, w16.data())};
    const Tensor y16 = run(ti_matmul_tanh("f16"), in16, {});
    ASSERT_EQ(y16.type(), ElementType::f16);
    ASSERT_EQ(y16.num_elements(), 12);
    // The body computes in f32 and its Result rounds to f16 once: the f32 model's values rounded.
    for (int64_t i = 0; i < 12; ++i)
        EXPECT_EQ(static_cast<const uint16_t*>(y16.data())[i], f32_to_f16(y32.data<float>()[i])) << "element " << i;
    // As declared, the body computes in f16: close to it.
    CompileOptions declared;
    declared.precision = InferencePrecision::Declared;
    const Tensor strict = run(ti_matmul_tanh("f16"), in16, declared);
    for (int64_t i = 0; i < 12; ++i)
        EXPECT_NEAR(f16_to_f32(static_cast<const uint16_t*>(strict.data())[i]), y32.data<float>()[i], 4e-3) << i;
}

// The body plan the TensorIterator of the f16 model builds after the passes.
std::shared_ptr<const ExecutionPlan> body_plan(const CompilePasses& passes) {
    const Model model = Model::read_from_memory(ti_matmul_tanh("f16"), nullptr, 0);
    const BuildResult built = build_graph(model.document_ptr(), builtin_ops());
    const std::shared_ptr<const Graph> g = run_compile_passes(with_body_passes(built.graph, passes), passes, builtin_ops());
    for (const Node& n : g->nodes) {
        const auto* attrs = dynamic_cast<const SubgraphAttrs*>(n.attrs.get());
        if (!n.live || !attrs) continue;
        EXPECT_TRUE(attrs->passes == passes);
        const SubgraphBody& body = attrs->bodies[0];
        std::vector<OutputInfo> parameters;
        for (size_t p = 0; p < body.parameter_layers.size(); ++p) parameters.push_back(declared_parameter(body, p));
        return attrs->build(0, parameters, builtin_ops(), nullptr)->plan;
    }
    return nullptr;
}

// The op types of the plan's steps that compute in f16, and of every step.
void step_types(const ExecutionPlan& plan, std::vector<std::string>& in_f16, std::vector<std::string>& all) {
    for (const ExecStep& step : plan.steps) {
        const Node& n = plan.graph->nodes[static_cast<size_t>(step.node)];
        const std::string type = node_type_name(n);
        all.push_back(type);
        for (const OutputInfo& o : n.outputs)
            if (o.type == ElementType::f16 && type != "Parameter" && type != "Convert") in_f16.push_back(type);
    }
}

TEST(SubgraphPasses, BodyPlanFollowsTheModelsPasses) {
    const std::shared_ptr<const ExecutionPlan> fast = body_plan(CompilePasses{});
    ASSERT_NE(fast, nullptr);
    std::vector<std::string> f16_ops, ops;
    step_types(*fast, f16_ops, ops);
    EXPECT_TRUE(f16_ops.empty()) << f16_ops[0] << " computes in f16";
    EXPECT_NE(std::find(ops.begin(), ops.end(), "MatMul+Tanh"), ops.end()) << "the body's MatMul and Tanh are not fused";

    CompilePasses as_declared;
    as_declared.compute_in_f32 = false;
    as_declared.fusion = false;
    const std::shared_ptr<const ExecutionPlan> strict = body_plan(as_declared);
    ASSERT_NE(strict, nullptr);
    f16_ops.clear();
    ops.clear();
    step_types(*strict, f16_ops, ops);
    EXPECT_NE(std::find(f16_ops.begin(), f16_ops.end(), "MatMul"), f16_ops.end());
    EXPECT_EQ(std::find(ops.begin(), ops.end(), "MatMul+Tanh"), ops.end());
}

}  // namespace
}  // namespace irlite
