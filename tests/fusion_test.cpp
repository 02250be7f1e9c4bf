// Graph fusion (engine/fusion.hpp): fused and unfused models give the same results within
// tolerance (random graphs and the real models of ../shared/models-real), fusion happens where it
// should and nowhere else, the off switch turns it off, and fused results do not depend on threads.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "engine/fusion.hpp"
#include "irlite/irlite.hpp"
#include "ir_builder.hpp"

namespace irlite {
namespace {

namespace fs = std::filesystem;
using testing::IrBuilder;
using Dims = std::vector<long long>;

std::string join(const Dims& d) {
    std::string s;
    for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
    return s;
}

std::vector<float> random_floats(std::mt19937& rng, size_t n, float scale = 1.0f) {
    std::uniform_real_distribution<float> u(-scale, scale);
    std::vector<float> v(n);
    for (float& x : v) x = u(rng);
    return v;
}

size_t count(const Dims& d) {
    size_t n = 1;
    for (long long x : d) n *= static_cast<size_t>(x);
    return n;
}

// An activation layer as IR: type, opset, data attributes.
struct ActSpec {
    const char* type;
    const char* opset;
    const char* data;
};
const ActSpec kActivations[] = {
    {"ReLU", "opset1", ""},
    {"Clamp", "opset1", "min=\"0\" max=\"6\""},
    {"Clamp", "opset1", "min=\"-0.5\" max=\"0.25\""},
    {"Sigmoid", "opset1", ""},
    {"Tanh", "opset1", ""},
    {"Elu", "opset1", "alpha=\"0.7\""},
    {"HSwish", "opset4", ""},
    {"HSigmoid", "opset5", ""},
    {"Swish", "opset4", ""},
    {"Gelu", "opset7", "approximation_mode=\"erf\""},
    {"Gelu", "opset7", "approximation_mode=\"tanh\""},
    {"SoftPlus", "opset4", ""},
    {"Mish", "opset4", ""},
};
constexpr int kNumActivations = sizeof(kActivations) / sizeof(kActivations[0]);

// A chain head -> [Add bias] -> [Add residual] -> [activation] -> Result, built layer by layer.
struct ChainBuilder {
    IrBuilder b;
    std::vector<std::pair<std::string, std::vector<float>>> inputs;  // Parameter name, values
    int next = 0;
    int cur = -1, cur_port = 0;
    Dims shape;

    int id() { return next++; }
    int parameter(const std::string& name, const Dims& dims, std::mt19937& rng) {
        const int i = id();
        b.parameter(i, name, "f32", dims);
        inputs.emplace_back(name, random_floats(rng, count(dims)));
        return i;
    }
    int constant(const std::string& name, const Dims& dims, const std::vector<float>& v) {
        const int i = id();
        b.constant(i, name, "f32", dims, v.data(), v.size() * sizeof(float));
        return i;
    }
    // Binary op `type` of (cur, other) -> cur; `swap` puts the chain's value second.
    void binary(const std::string& type, int other, const Dims& other_dims, bool swap) {
        const int i = id();
        const Dims a = swap ? other_dims : shape, c = swap ? shape : other_dims;
        b.layer(i, type + std::to_string(i), type, "opset1", "", {{0, "", a, ""}, {1, "", c, ""}},
                {{2, "FP32", shape, ""}});
        b.edge(swap ? other : cur, 0 + (swap ? 0 : cur_port), i, 0);
        b.edge(swap ? cur : other, swap ? cur_port : 0, i, 1);
        cur = i;
        cur_port = 2;
    }
    void activation(const ActSpec& a) {
        const int i = id();
        b.layer(i, std::string(a.type) + std::to_string(i), a.type, a.opset, a.data, {{0, "", shape, ""}},
                {{1, "FP32", shape, ""}});
        b.edge(cur, cur_port, i, 0);
        cur = i;
        cur_port = 1;
    }
    void result() {
        const int i = id();
        b.result(i, "out", "f32", shape);
        b.edge(cur, cur_port, i, 0);
    }
};

struct RunResult {
    std::vector<std::vector<float>> outputs;
    std::vector<ProfileEntry> profile;
};

RunResult run(const Model& model, const std::vector<std::pair<std::string, std::vector<float>>>& inputs,
              const std::vector<Dims>& dims, bool fusion, int threads = 1) {
    CompileOptions o;
    o.fusion = fusion;
    o.threads = threads;
    o.profiling = true;
    const CompiledModel compiled(model, o);
    InferRequest r = compiled.create_infer_request();
    std::vector<std::vector<float>> data;
    for (size_t i = 0; i < inputs.size(); ++i) {
        data.push_back(inputs[i].second);
        Shape s(dims[i].begin(), dims[i].end());
        r.set_input(inputs[i].first, Tensor::wrap(ElementType::f32, s, data.back().data()));
    }
    r.infer();
    RunResult out;
    for (size_t o2 = 0; o2 < r.num_outputs(); ++o2) {
        const Tensor& t = r.output(o2);
        if (t.type() != ElementType::f32) {
            out.outputs.emplace_back();
            continue;
        }
        out.outputs.emplace_back(t.data<float>(), t.data<float>() + t.num_elements());
    }
    out.profile = r.profiling();
    return out;
}

void expect_close(const std::vector<float>& fused, const std::vector<float>& plain, const std::string& what) {
    ASSERT_EQ(fused.size(), plain.size()) << what;
    for (size_t i = 0; i < fused.size(); ++i) {
        const float tol = 1e-4f + 1e-4f * std::fabs(plain[i]);
        if (std::isnan(plain[i])) {
            ASSERT_TRUE(std::isnan(fused[i])) << what << " at " << i;
            continue;
        }
        ASSERT_NEAR(fused[i], plain[i], tol) << what << " at " << i;
    }
}

bool has_type(const std::vector<ProfileEntry>& p, const std::string& type) {
    for (const ProfileEntry& e : p)
        if (e.type == type) return true;
    return false;
}

// Random convolutions (plain, grouped, depthwise; 1x1, 3x3, strided, padded; few and many output
// pixels) with every combination of bias / residual / activation.
TEST(Fusion, RandomConvolutionChains) {
    std::mt19937 rng(1234);
    for (int trial = 0; trial < 60; ++trial) {
        const int kind = trial % 4;  // 0 conv, 1 conv 1x1, 2 depthwise, 3 grouped
        const long long n = 1 + trial % 2;
        const long long groups = kind == 2 ? 8 : kind == 3 ? 2 : 1;
        const long long cin = kind == 2 ? 8 : 4 * (1 + trial % 3), cout = kind == 2 ? 8 : 16 + 8 * (trial % 3);
        const long long hw = (trial % 5 == 0) ? 3 : 5 + trial % 7;
        const long long k = kind == 1 ? 1 : 3, stride = kind == 1 ? 1 : 1 + trial % 2, pad = kind == 1 ? 0 : trial % 2;
        const long long out_hw = (hw + 2 * pad - k) / stride + 1;
        const Dims in_dims{n, cin, hw, hw}, out_dims{n, cout, out_hw, out_hw};
        ChainBuilder c;
        const int x = c.parameter("x", in_dims, rng);
        Dims w_dims = groups == 1 ? Dims{cout, cin, k, k} : Dims{groups, cout / groups, cin / groups, k, k};
        const int w = c.constant("w", w_dims, random_floats(rng, count(w_dims), 0.5f));
        const int conv = c.id();
        const std::string data = "strides=\"" + join({stride, stride}) + "\" dilations=\"1,1\" pads_begin=\"" +
                                 join({pad, pad}) + "\" pads_end=\"" + join({pad, pad}) + "\" auto_pad=\"explicit\"";
        c.b.layer(conv, "conv", groups == 1 ? "Convolution" : "GroupConvolution", "opset1", data,
                  {{0, "", in_dims, ""}, {1, "", w_dims, ""}}, {{2, "FP32", out_dims, ""}});
        c.b.edge(x, 0, conv, 0).edge(w, 0, conv, 1);
        c.cur = conv;
        c.cur_port = 2;
        c.shape = out_dims;
        std::vector<Dims> dims{in_dims};
        const bool bias = trial % 3 != 2, residual = trial % 4 == 1 || trial % 7 == 3;
        const int act = trial % (kNumActivations + 1) - 1;  // -1: none
        std::string expected = groups == 1 ? "Convolution" : "GroupConvolution";
        if (bias) {
            const bool scalar = trial % 11 == 5;
            const Dims bd = scalar ? Dims{1} : Dims{1, cout, 1, 1};
            c.binary("Add", c.constant("bias", bd, random_floats(rng, count(bd))), bd, trial % 2 == 0);
            expected += "+Add";
        }
        if (residual) {
            c.binary("Add", c.parameter("res", out_dims, rng), out_dims, trial % 3 == 0);
            dims.push_back(out_dims);
            expected += "+Add";
        }
        if (act >= 0) {
            c.activation(kActivations[act]);
            expected += std::string("+") + kActivations[act].type;
        }
        c.result();
        const Model model = Model::read_from_memory(c.b.xml(), c.b.weights().data(), c.b.weights().size());
        const RunResult plain = run(model, c.inputs, dims, false);
        const RunResult fused = run(model, c.inputs, dims, true);
        const std::string what = "trial " + std::to_string(trial) + " " + expected;
        expect_close(fused.outputs[0], plain.outputs[0], what);
        const bool fuses = bias || residual || act >= 0;
        // With nothing to fuse, `expected` is the bare op type, which both runs show.
        EXPECT_TRUE(has_type(fused.profile, expected)) << what;
        if (fuses) {
            EXPECT_FALSE(has_type(plain.profile, expected)) << what;
            EXPECT_LT(fused.profile.size(), plain.profile.size()) << what;
        }
        // Bit-identical for every thread count.
        const RunResult threaded = run(model, c.inputs, dims, true, 3);
        EXPECT_EQ(threaded.outputs[0], fused.outputs[0]) << what;
    }
}

// MatMul: constant B (a linear layer, packed), both operands dynamic (per batch), a 1-D B (the
// bias axis is not the GEMM's columns), each with bias / residual / activation.
TEST(Fusion, RandomMatMulChains) {
    std::mt19937 rng(99);
    for (int trial = 0; trial < 48; ++trial) {
        const int kind = trial % 3;  // 0 constant B, 1 dynamic B, 2 1-D constant B
        const long long batch = 1 + trial % 3, m = 1 + (trial * 7) % 40, k = 3 + trial % 17, nn = 1 + (trial * 5) % 70;
        const bool tb = trial % 2 == 1;
        ChainBuilder c;
        const Dims a_dims{batch, m, k};
        const int a = c.parameter("a", a_dims, rng);
        std::vector<Dims> dims{a_dims};
        const Dims b_dims = kind == 2 ? Dims{k}
                            : kind == 1 ? (tb ? Dims{batch, nn, k} : Dims{batch, k, nn})
                                        : (tb ? Dims{nn, k} : Dims{k, nn});
        const Dims out_dims = kind == 2 ? Dims{batch, m} : Dims{batch, m, nn};
        int bnode;
        if (kind == 1) {
            bnode = c.parameter("b", b_dims, rng);
            dims.push_back(b_dims);
        } else {
            bnode = c.constant("b", b_dims, random_floats(rng, count(b_dims)));
        }
        const int mm = c.id();
        c.b.layer(mm, "mm", "MatMul", "opset1", std::string("transpose_a=\"false\" transpose_b=\"") + (tb ? "true" : "false") + "\"",
                  {{0, "", a_dims, ""}, {1, "", b_dims, ""}}, {{2, "FP32", out_dims, ""}});
        c.b.edge(a, 0, mm, 0).edge(bnode, 0, mm, 1);
        c.cur = mm;
        c.cur_port = 2;
        c.shape = out_dims;
        const bool bias = trial % 4 != 3, residual = trial % 5 == 2;
        const int act = (trial / 2) % (kNumActivations + 1) - 1;
        std::string expected = "MatMul";
        if (bias) {
            const long long ch = out_dims.back();
            const Dims bd = trial % 3 == 1 ? Dims{ch} : Dims{1, 1, ch};
            const Dims bd2 = out_dims.size() == 2 ? Dims{ch} : bd;
            c.binary("Add", c.constant("bias", bd2, random_floats(rng, count(bd2))), bd2, trial % 2 == 1);
            expected += "+Add";
        }
        if (residual) {
            c.binary("Add", c.parameter("res", out_dims, rng), out_dims, false);
            dims.push_back(out_dims);
            expected += "+Add";
        }
        if (act >= 0) {
            c.activation(kActivations[act]);
            expected += std::string("+") + kActivations[act].type;
        }
        c.result();
        const Model model = Model::read_from_memory(c.b.xml(), c.b.weights().data(), c.b.weights().size());
        const RunResult plain = run(model, c.inputs, dims, false);
        const RunResult fused = run(model, c.inputs, dims, true);
        const std::string what = "trial " + std::to_string(trial) + " " + expected;
        expect_close(fused.outputs[0], plain.outputs[0], what);
        EXPECT_TRUE(has_type(fused.profile, expected)) << what;  // the bare "MatMul" when nothing fuses
        if (bias || residual || act >= 0) {
            EXPECT_FALSE(has_type(plain.profile, expected)) << what;
        }
        const RunResult threaded = run(model, c.inputs, dims, true, 2);
        EXPECT_EQ(threaded.outputs[0], fused.outputs[0]) << what;
    }
}

// conv -> Add(bias) -> ReLU where the Add's output is also a model output: the Add may join the
// convolution (its output keeps its name), the ReLU may not join them.
TEST(Fusion, StopsAtValuesWithSeveralConsumers) {
    std::mt19937 rng(5);
    ChainBuilder c;
    const Dims in{1, 3, 6, 6}, out{1, 4, 6, 6}, wd{4, 3, 1, 1}, bd{1, 4, 1, 1};
    const int x = c.parameter("x", in, rng);
    const int w = c.constant("w", wd, random_floats(rng, count(wd)));
    const int conv = c.id();
    c.b.layer(conv, "conv", "Convolution", "opset1",
              "strides=\"1,1\" dilations=\"1,1\" pads_begin=\"0,0\" pads_end=\"0,0\"",
              {{0, "", in, ""}, {1, "", wd, ""}}, {{2, "FP32", out, ""}});
    c.b.edge(x, 0, conv, 0).edge(w, 0, conv, 1);
    c.cur = conv;
    c.cur_port = 2;
    c.shape = out;
    c.binary("Add", c.constant("bias", bd, random_floats(rng, 4)), bd, false);
    const int add = c.cur;
    c.activation(kActivations[0]);
    c.result();
    const int r2 = c.id();
    c.b.result(r2, "also", "f32", out);
    c.b.edge(add, 2, r2, 0);
    const Model model = Model::read_from_memory(c.b.xml(), c.b.weights().data(), c.b.weights().size());
    const std::vector<Dims> dims{in};
    const RunResult plain = run(model, c.inputs, dims, false);
    const RunResult fused = run(model, c.inputs, dims, true);
    ASSERT_EQ(fused.outputs.size(), 2u);
    expect_close(fused.outputs[0], plain.outputs[0], "relu output");
    expect_close(fused.outputs[1], plain.outputs[1], "add output");
    EXPECT_TRUE(has_type(fused.profile, "Convolution+Add"));
    EXPECT_TRUE(has_type(fused.profile, "ReLU"));
    EXPECT_EQ(fused.profile.size(), 2u);
    EXPECT_EQ(plain.profile.size(), 3u);
}

// The real models: every f32 output within tolerance of the unfused run; CNNs fuse.
TEST(Fusion, RealModelsMatchUnfused) {
    const fs::path root = fs::path(IRLITE_SOURCE_DIR) / ".." / "shared" / "models-real";
    if (!fs::is_directory(root)) GTEST_SKIP() << "no " << root << " (the shared models are not available)";
    int compared = 0;
    for (const auto& entry : fs::directory_iterator(root)) {
        const fs::path xml = entry.path() / "model.xml";
        if (!fs::exists(xml)) continue;
        const Model model = Model::read(xml.string());
        const CompiledModel probe(model);
        std::vector<std::pair<std::string, std::vector<float>>> inputs;
        std::vector<Dims> dims;
        bool ok = true;
        std::mt19937 rng(7);
        for (const PortInfo& p : probe.inputs()) {
            if (p.type != ElementType::f32 || !p.shape.is_static()) ok = false;
            if (!ok) break;
            const Shape s = p.shape.to_shape();
            dims.emplace_back(s.begin(), s.end());
            inputs.emplace_back(p.name, random_floats(rng, count(dims.back())));
        }
        if (!ok || inputs.empty()) continue;
        bool stateful = false;
        for (const IrLayer& l : model.document().layers) stateful = stateful || l.type == "ReadValue";
        if (stateful) continue;
        const RunResult plain = run(model, inputs, dims, false);
        const RunResult fused = run(model, inputs, dims, true);
        ASSERT_EQ(plain.outputs.size(), fused.outputs.size());
        for (size_t o = 0; o < plain.outputs.size(); ++o) {
            // Deep networks accumulate rounding differences: compare relative to the output's scale.
            float scale = 0;
            for (float v : plain.outputs[o]) scale = std::max(scale, std::fabs(v));
            ASSERT_EQ(plain.outputs[o].size(), fused.outputs[o].size());
            for (size_t i = 0; i < plain.outputs[o].size(); ++i)
                ASSERT_NEAR(fused.outputs[o][i], plain.outputs[o][i], 1e-4f * std::max(scale, 1.0f))
                    << entry.path().filename() << " output " << o << " at " << i;
        }
        const std::string name = entry.path().filename().string();
        if (name == "resnet18" || name == "mobilenet_v2" || name == "squeezenet1_1" || name == "lenet5" || name == "mlp") {
            EXPECT_LT(fused.profile.size(), plain.profile.size()) << name;
        }
        ++compared;
    }
    EXPECT_GT(compared, 0);
}

// resnet18's residual blocks: Convolution + Add (bias) + Add (residual) + ReLU as one node, and
// the graph the pass returns keeps every Result's producer.
TEST(Fusion, ResidualBlockInRealModel) {
    const fs::path xml = fs::path(IRLITE_SOURCE_DIR) / ".." / "shared" / "models-real" / "resnet18" / "model.xml";
    if (!fs::exists(xml)) GTEST_SKIP() << "no " << xml;
    const Model model = Model::read(xml.string());
    CompileOptions o;
    o.profiling = true;
    o.threads = 1;
    const CompiledModel compiled(model, o);
    InferRequest r = compiled.create_infer_request();
    ASSERT_TRUE(compiled.inputs()[0].shape.is_static());
    const Shape shape = compiled.inputs()[0].shape.to_shape();
    std::vector<float> x(count(Dims(shape.begin(), shape.end())), 0.5f);
    r.set_input(0, Tensor::wrap(ElementType::f32, shape, x.data()));
    r.infer();
    int residual = 0, conv_relu = 0;
    for (const ProfileEntry& e : r.profiling()) {
        residual += e.type == "Convolution+Add+Add+ReLU" ? 1 : 0;
        conv_relu += e.type == "Convolution+Add+ReLU" ? 1 : 0;
    }
    EXPECT_EQ(residual, 8);
    EXPECT_GE(conv_relu, 9);
}

}  // namespace
}  // namespace irlite
