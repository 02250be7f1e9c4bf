// The graph builder: edges, ports, cycles, ordering, declared-vs-inferred dims, keep-going mode.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/graph.hpp"
#include "irlite/irlite.hpp"
#include "ir_builder.hpp"
#include "parser/ir_reader.hpp"
#include "kernels/all_ops.hpp"

namespace irlite {
namespace {

using testing::IrBuilder;

std::shared_ptr<const IrDocument> parse(const IrBuilder& b) {
    std::shared_ptr<WeightsBlob> none;
    return std::make_shared<const IrDocument>(read_ir_memory(b.xml(), none, "test.xml"));
}

BuildResult check(const IrBuilder& b) {
    BuildOptions opt;
    opt.keep_going = true;
    return build_graph(parse(b), builtin_ops(), opt);
}

std::vector<std::string> codes(const BuildResult& r, Severity s = Severity::Error) {
    std::vector<std::string> out;
    for (const auto& d : r.diagnostics)
        if (d.severity == s) out.push_back(d.code);
    return out;
}

Error build_error(const IrBuilder& b) {
    try {
        build_graph(parse(b), builtin_ops());
    } catch (const Error& e) {
        return e;
    }
    ADD_FAILURE() << "no error";
    return Error(ErrorKind::Usage, "none", "none");
}

// x -> Add(x, x) -> Result, with ids out of order and port ids that are not positions.
IrBuilder add_model() {
    IrBuilder b;
    b.result(7, "out", "f32", {2, 3});
    b.layer(3, "sum", "Add", "opset1", "", {{10, "FP32", {2, 3}, ""}, {11, "FP32", {2, 3}, ""}},
            {{12, "FP32", {2, 3}, "sum"}});
    b.parameter(5, "x", "f32", {2, 3});
    b.edge(5, 0, 3, 10).edge(5, 0, 3, 11).edge(3, 12, 7, 0);
    return b;
}

TEST(GraphBuilder, OrdersLayersAndResolvesPortsById) {
    const BuildResult r = build_graph(parse(add_model()), builtin_ops());
    ASSERT_TRUE(r.graph);
    const Graph& g = *r.graph;
    ASSERT_EQ(g.nodes.size(), 3u);
    EXPECT_EQ(g.nodes[0].layer->name, "x");
    EXPECT_EQ(g.nodes[1].layer->name, "sum");
    EXPECT_EQ(g.nodes[2].layer->name, "out");
    EXPECT_EQ(g.parameters.size(), 1u);
    EXPECT_EQ(g.results.size(), 1u);
    EXPECT_TRUE(g.nodes[1].shapes_static);
    EXPECT_EQ(g.nodes[1].outputs[0].shape, PartialShape({2, 3}));
}

TEST(GraphBuilder, DeclaredDimsMismatchNamesBoth) {
    IrBuilder b;
    b.parameter(0, "x", "f32", {2, 3});
    b.layer(1, "sum", "Add", "opset1", "", {{0, "FP32", {2, 3}, ""}, {1, "FP32", {2, 3}, ""}}, {{2, "FP32", {2, 4}, "s"}});
    b.result(2, "out", "f32", {2, 4});
    b.edge(0, 0, 1, 0).edge(0, 0, 1, 1).edge(1, 2, 2, 0);
    const Error e = build_error(b);
    EXPECT_EQ(e.code(), "dims-mismatch");
    EXPECT_EQ(e.kind(), ErrorKind::ShapeRule);
    EXPECT_NE(e.message().find("[2,4]"), std::string::npos) << e.what();
    EXPECT_NE(e.message().find("[2,3]"), std::string::npos) << e.what();
    EXPECT_EQ(e.location().layer_name, "sum");
    EXPECT_GT(e.location().line, 0);
}

TEST(GraphBuilder, DeclaredMinusOneMatchesAnything) {
    IrBuilder b;
    b.parameter(0, "x", "f32", {2, 3});
    b.layer(1, "sum", "Add", "opset1", "", {{0, "FP32", {-1, 3}, ""}, {1, "FP32", {2, -1}, ""}}, {{2, "FP32", {-1, -1}, "s"}});
    b.result(2, "out", "f32", {-1, -1});
    b.edge(0, 0, 1, 0).edge(0, 0, 1, 1).edge(1, 2, 2, 0);
    EXPECT_FALSE(check(b).has_errors());
}

struct EdgeFaultRow {
    const char* name;
    void (*mutate)(IrBuilder&);
    const char* code;
};

TEST(GraphBuilder, EdgeFaults) {
    const EdgeFaultRow rows[] = {
        {"missing_layer", [](IrBuilder& b) { b.edge(99, 0, 3, 10); }, "edge-missing-layer"},
        {"missing_port", [](IrBuilder& b) { b.edge(5, 4, 7, 0); }, "edge-missing-port"},
        {"from_input_port", [](IrBuilder& b) { b.edge(3, 10, 7, 0); }, "edge-from-input-port"},
        {"into_output_port", [](IrBuilder& b) { b.edge(5, 0, 3, 12); }, "edge-into-output-port"},
    };
    for (const auto& row : rows) {
        IrBuilder b = add_model();
        row.mutate(b);
        const auto found = codes(check(b));
        EXPECT_NE(std::find(found.begin(), found.end(), row.code), found.end()) << row.name;
    }
}

TEST(GraphBuilder, InputWithNoEdgeOrTwo) {
    IrBuilder b;
    b.parameter(0, "x", "f32", {2});
    b.parameter(1, "y", "f32", {2});
    b.layer(2, "sum", "Add", "opset1", "", {{0, "FP32", {2}, ""}, {1, "FP32", {2}, ""}}, {{2, "FP32", {2}, "s"}});
    b.result(3, "out", "f32", {2});
    b.edge(0, 0, 2, 0).edge(1, 0, 2, 0).edge(2, 2, 3, 0);  // port 0 twice, port 1 never
    const auto found = codes(check(b));
    EXPECT_NE(std::find(found.begin(), found.end(), "input-multiple-edges"), found.end());
    EXPECT_NE(std::find(found.begin(), found.end(), "input-unconnected"), found.end());
}

TEST(GraphBuilder, DuplicateIds) {
    IrBuilder b = add_model();
    b.parameter(5, "x_again", "f32", {2, 3});
    EXPECT_EQ(build_error(b).code(), "duplicate-layer-id");
    IrBuilder p;
    p.parameter(0, "x", "f32", {2});
    p.layer(1, "sum", "Add", "opset1", "", {{0, "FP32", {2}, ""}, {0, "FP32", {2}, ""}}, {{2, "FP32", {2}, "s"}});
    p.result(2, "out", "f32", {2});
    p.edge(0, 0, 1, 0).edge(1, 2, 2, 0);
    const auto found = codes(check(p));
    EXPECT_NE(std::find(found.begin(), found.end(), "duplicate-port-id"), found.end());
}

TEST(GraphBuilder, CycleIsPrintedAsAChain) {
    IrBuilder b;
    b.parameter(0, "x", "f32", {2});
    b.layer(1, "a", "Add", "opset1", "", {{0, "FP32", {2}, ""}, {1, "FP32", {2}, ""}}, {{2, "FP32", {2}, "a"}});
    b.layer(2, "b", "Add", "opset1", "", {{0, "FP32", {2}, ""}, {1, "FP32", {2}, ""}}, {{2, "FP32", {2}, "b"}});
    b.result(3, "out", "f32", {2});
    b.edge(0, 0, 1, 0).edge(2, 2, 1, 1).edge(0, 0, 2, 0).edge(1, 2, 2, 1).edge(2, 2, 3, 0);
    const Error e = build_error(b);
    EXPECT_EQ(e.code(), "cycle");
    EXPECT_NE(e.message().find("a (id 1)"), std::string::npos) << e.what();
    EXPECT_NE(e.message().find("b (id 2)"), std::string::npos) << e.what();
}

TEST(GraphBuilder, UnknownOpAndOpset) {
    IrBuilder b;
    b.parameter(0, "x", "f32", {2});
    b.layer(1, "f", "FancySliceX", "opset8", "", {{0, "FP32", {2}, ""}}, {{1, "FP32", {2}, "f"}});
    b.result(2, "out", "f32", {2});
    b.edge(0, 0, 1, 0).edge(1, 1, 2, 0);
    const Error e = build_error(b);
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_NE(e.message().find("FancySliceX"), std::string::npos);
}

TEST(GraphBuilder, KeepGoingReportsEveryFault) {
    IrBuilder b;
    b.parameter(0, "x", "f32", {2, 3});
    b.parameter(0, "dup", "f32", {2});                                                          // 1 duplicate id
    b.layer(1, "sum", "Add", "opset1", "", {{0, "FP32", {2, 3}, ""}, {1, "FP32", {2, 3}, ""}},
            {{2, "FP32", {2, 9}, "s"}});                                                        // 2 dims mismatch
    b.layer(2, "bad", "NoSuchOp", "opset1", "", {{0, "FP32", {2, 3}, ""}}, {{1, "FP32", {2, 3}, "b"}});  // 3 unknown op
    b.result(3, "out", "f32", {2, 9});
    b.result(4, "out2", "f32", {2, 3});
    b.edge(0, 0, 1, 0).edge(0, 0, 1, 1).edge(1, 2, 3, 0).edge(0, 0, 2, 0).edge(2, 1, 4, 0);
    b.edge(42, 0, 4, 0);                                                                         // 4 missing layer
    b.edge(0, 7, 3, 0);                                                                          // 5 missing port
    const auto found = codes(check(b));
    for (const char* code : {"duplicate-layer-id", "dims-mismatch", "edge-missing-layer", "edge-missing-port"})
        EXPECT_NE(std::find(found.begin(), found.end(), code), found.end()) << code;
    EXPECT_GE(found.size(), 5u);
}

TEST(GraphBuilder, DeadLayersAreSkippedInRunMode) {
    IrBuilder b = add_model();
    b.layer(9, "dangling", "Add", "opset1", "", {{0, "FP32", {2, 3}, ""}, {1, "FP32", {2, 3}, ""}},
            {{2, "FP32", {2, 3}, "d"}});
    b.edge(5, 0, 9, 0).edge(5, 0, 9, 1);
    const BuildResult r = build_graph(parse(b), builtin_ops());
    EXPECT_EQ(r.graph->nodes.size(), 3u);
    const auto warnings = codes(check(b), Severity::Warning);
    EXPECT_NE(std::find(warnings.begin(), warnings.end(), "dead-layer"), warnings.end());
}

TEST(GraphBuilder, LongChainDoesNotOverflowTheStack) {
    constexpr int kLayers = 100000;
    std::string xml = "<?xml version=\"1.0\"?><net name=\"chain\" version=\"11\"><layers>"
                      "<layer id=\"0\" name=\"x\" type=\"Parameter\" version=\"opset1\"><data shape=\"1\" "
                      "element_type=\"f32\"/><output><port id=\"0\" precision=\"FP32\"><dim>1</dim></port></output></layer>";
    std::string edges;
    for (int i = 1; i <= kLayers; ++i) {
        const std::string id = std::to_string(i);
        xml += "<layer id=\"" + id + "\" name=\"a" + id + "\" type=\"Add\" version=\"opset1\"><input><port id=\"0\"><dim>1</dim>"
               "</port><port id=\"1\"><dim>1</dim></port></input><output><port id=\"2\" precision=\"FP32\"><dim>1</dim>"
               "</port></output></layer>";
        const std::string prev = std::to_string(i - 1), port = i == 1 ? "0" : "2";
        edges += "<edge from-layer=\"" + prev + "\" from-port=\"" + port + "\" to-layer=\"" + id + "\" to-port=\"0\"/>"
                 "<edge from-layer=\"" + prev + "\" from-port=\"" + port + "\" to-layer=\"" + id + "\" to-port=\"1\"/>";
    }
    const std::string last = std::to_string(kLayers), rid = std::to_string(kLayers + 1);
    xml += "<layer id=\"" + rid + "\" name=\"out\" type=\"Result\" version=\"opset1\"><input><port id=\"0\"><dim>1</dim>"
           "</port></input></layer></layers><edges>" + edges + "<edge from-layer=\"" + last +
           "\" from-port=\"2\" to-layer=\"" + rid + "\" to-port=\"0\"/></edges></net>";
    const Model model = Model::read_from_memory(xml, nullptr, 0);
    const CompiledModel compiled(model);
    InferRequest req = compiled.create_infer_request();
    float x = 1.0f;
    req.set_input("x", Tensor::wrap(ElementType::f32, {1}, &x));
    req.infer();
    // x doubles at every Add: 2^100000 overflows to inf, which proves every node ran.
    EXPECT_TRUE(std::isinf(req.output(0).data<float>()[0]));
}

}  // namespace
}  // namespace irlite
