// Every layer's outputs kept (CompileOptions::keep_intermediates) and listed after a run
// (InferRequest::node_outputs): topological order, no Consts or Results, each value its own (no
// in-place write over it), fused nodes named by their layers; keeping them changes no output.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/ir_document.hpp"
#include "irlite/irlite.hpp"
#include "mlp_ir.hpp"
#include "parser/npy.hpp"

namespace irlite {
namespace {

namespace fs = std::filesystem;
using testing::Mlp;

// The outputs of one run, as copies.
std::vector<NodeOutput> run(const Model& m, bool fusion) {
    const CompiledModel compiled = testing::compile_keeping(m, fusion);
    InferRequest request = compiled.create_infer_request();
    const Tensor x = testing::mlp_input();
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
    const CompiledModel compiled = testing::compile_keeping(model, false);
    InferRequest request = compiled.create_infer_request();
    EXPECT_TRUE(request.node_outputs().empty());  // nothing ran yet
    const Tensor x = testing::mlp_input();
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
    const CompiledModel compiled = testing::compile_keeping(model, true, false);
    InferRequest request = compiled.create_infer_request();
    request.set_input("x", testing::mlp_input());
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


// The real models (squeezenet's Concats written in place, MaxPool indices nobody reads, views, the
// in-place elementwise ops of the transformer): keeping every value changes no output, fused or not,
// and the last listed value of each output's producer is that output.
TEST(NodeOutputs, KeepingThemChangesNoOutputOfTheRealModels) {
    const fs::path root = fs::path(IRLITE_SOURCE_DIR) / ".." / "shared" / "models-real";
    if (!fs::is_directory(root)) GTEST_SKIP() << "no " << root << " (the shared models are not available)";
    int compared = 0;
    for (const auto& entry : fs::directory_iterator(root)) {
        const fs::path xml = entry.path() / "model.xml";
        if (!fs::exists(xml)) continue;
        const Model model = Model::read(xml.string());
        bool stateful = false;
        for (const IrLayer& l : model.document().layers) stateful = stateful || l.type == "ReadValue";
        if (stateful) continue;
        for (const bool fusion : {true, false}) {
            const CompiledModel plain = testing::compile_keeping(model, fusion, false), kept = testing::compile_keeping(model, fusion, true);
            std::vector<Tensor> inputs;
            for (const PortInfo& p : plain.inputs()) {
                const fs::path npy = entry.path() / "inputs" / (p.name + ".npy");
                if (fs::exists(npy)) inputs.push_back(read_npy(npy.string()));
            }
            if (inputs.size() != plain.inputs().size()) continue;
            InferRequest a = plain.create_infer_request(), b = kept.create_infer_request();
            for (size_t i = 0; i < inputs.size(); ++i) {
                a.set_input(i, inputs[i]);
                b.set_input(i, inputs[i]);
            }
            a.infer();
            b.infer();
            const std::vector<NodeOutput> outs = b.node_outputs();
            EXPECT_FALSE(outs.empty());
            for (size_t o = 0; o < a.num_outputs(); ++o) {
                const Tensor &x = a.output(o), &y = b.output(o);
                ASSERT_EQ(x.byte_size(), y.byte_size());
                EXPECT_EQ(std::memcmp(x.data(), y.data(), x.byte_size()), 0)
                    << entry.path().filename() << " output " << o << (fusion ? " fused" : " unfused");
                bool listed = false;
                for (const NodeOutput& n : outs) listed = listed || n.value.data() == y.data();
                EXPECT_TRUE(listed) << entry.path().filename() << " output " << o;
            }
            ++compared;
        }
    }
    EXPECT_GT(compared, 0);
}

}  // namespace
}  // namespace irlite
