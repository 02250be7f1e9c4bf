// The level pass (engine/level_tensors.hpp): between two int8 layers, directly or through a
// Concat, a MaxPool and a FakeQuantize node (which maps levels to levels), the tensors are u8 levels, and the results are bit for bit those of the
// f32 tensors (compiled with keep_intermediates, which skips the pass), for every thread count and
// instruction-set cap; a tensor that another op reads, or whose readers quantize it differently,
// stays f32.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "engine/compile_passes.hpp"
#include "engine/graph.hpp"
#include "engine/quantized_input.hpp"
#include "irlite/irlite.hpp"
#include "ir_builder.hpp"
#include "kernels/all_ops.hpp"
#include "kernels/detail/cpu_isa.hpp"
#include "quantized_ir.hpp"
#include "run_one_input.hpp"

namespace irlite {
namespace {

using testing::Dims;
using testing::IrBuilder;
using testing::count;

// x -> FQ(a) -> conv1 -> Add(bias) [-> ReLU] [-> [FQ(p)] -> MaxPool] -> FQ(b) -> conv2 (k x k)
//   -> Add(bias) -> Add -> out, and from before FQ(b): -> FQ(b or c) -> conv3 (1x1) -> Add(bias) -^
// (conv3 only with `second`; its FakeQuantize is FQ(b) itself, or another one of range c; the
// MaxPool (3x3, stride 2, ceil rounding) with `pool`, behind a FakeQuantize of b's range or of
// another with `pool_fq`).
// With `concat`, conv1's result (after the ReLU) is concatenated along the channels with that of
// conv1b (1x1, 8 channels, from FQ(a) too) before the rest.
struct Chain {
    long long n = 1, cin = 5, mid = 24, cout = 20, hw = 9, k1 = 3, stride1 = 1, k2 = 3;
    bool relu = true, second = true, other_range = false, mid_is_output = false, pool = false, concat = false;
    int pool_fq = 0;  // 0: none, 1: FQ(b)'s range, 2: another
};

class ChainBuilder {
public:
    explicit ChainBuilder(std::mt19937& rng) : rng_(rng) {}

    std::string xml_of(const Chain& c, std::vector<uint8_t>& weights) {
        const long long hw1 = (c.hw + 2 * (c.k1 / 2) - c.k1) / c.stride1 + 1;
        const Dims in{c.n, c.cin, c.hw, c.hw};
        Dims mid{c.n, c.mid, hw1, hw1}, out{c.n, c.cout, hw1, hw1};
        b_.parameter(0, "x", "f32", in);
        const int fq_a = fake_quantize("fq_a", 0, 0, in, -1.28f, 1.27f);  // zero is level 128
        const int y1 = conv("conv1", fq_a, 5, in, c.k1, c.stride1, mid);
        int last = y1, port = 2;
        if (c.relu) {
            b_.layer(next_, "relu", "ReLU", "opset1", "", {{0, "", mid, ""}}, {{1, "FP32", mid, ""}});
            b_.edge(last, port, next_, 0);
            last = next_++, port = 1;
        }
        if (c.concat) {
            const Dims mid_b{c.n, 8, hw1, hw1}, cat{c.n, c.mid + 8, hw1, hw1};
            const int yb = conv("conv1b", fq_a, 5, in, 1, c.stride1, mid_b);
            b_.layer(next_, "cat", "Concat", "opset1", "axis=\"1\"", {{0, "", mid, ""}, {1, "", mid_b, ""}},
                     {{2, "FP32", cat, ""}});
            b_.edge(last, port, next_, 0).edge(yb, 2, next_, 1);
            last = next_++, port = 2;
            mid = cat;
        }
        const long long channels = mid[1];
        Dims pooled = mid;
        if (c.pool) {
            if (c.pool_fq) {
                last = fake_quantize("fq_p", last, port, mid, 0.f, c.pool_fq == 1 ? 3.f : 2.5f);
                port = 5;
            }
            const long long hw2 = (hw1 - 3 + 1) / 2 + 1;  // ceil((hw1 - 3) / 2) + 1
            pooled = {c.n, channels, hw2, hw2};
            out = {c.n, c.cout, hw2, hw2};
            b_.layer(next_, "pool", "MaxPool", "opset1",
                     "kernel=\"3,3\" strides=\"2,2\" pads_begin=\"0,0\" pads_end=\"0,0\" rounding_type=\"ceil\" auto_pad=\"explicit\"",
                     {{0, "", mid, ""}}, {{1, "FP32", pooled, ""}});
            b_.edge(last, port, next_, 0);
            last = next_++, port = 1;
        }
        const int fq_b = fake_quantize("fq_b", last, port, pooled, 0.f, 3.f);
        const int y2 = conv("conv2", fq_b, 5, pooled, c.k2, 1, out);
        int sum = y2;
        if (c.second) {
            const int fq = c.other_range ? fake_quantize("fq_c", last, port, pooled, 0.f, 2.f) : fq_b;
            const int y3 = conv("conv3", fq, 5, pooled, 1, 1, out);
            b_.layer(next_, "sum", "Add", "opset1", "", {{0, "", out, ""}, {1, "", out, ""}}, {{2, "FP32", out, ""}});
            b_.edge(y2, 2, next_, 0).edge(y3, 2, next_, 1);
            sum = next_++;
        }
        b_.result(next_, "out", "f32", out);
        b_.edge(sum, 2, next_++, 0);
        if (c.mid_is_output) {
            b_.result(next_, "mid", "f32", pooled);
            b_.edge(last, port, next_++, 0);
        }
        weights = b_.weights();
        return b_.xml();
    }

private:
    // A FakeQuantize of 256 levels, input and output range [lo, hi]; returns its id (output port 5).
    int fake_quantize(const std::string& name, int from, int port, const Dims& dims, float lo, float hi) {
        const int id = testing::add_fake_quantize(b_, next_, name, from, port, dims, lo, hi, lo, hi);
        next_ = id + 1;
        return id;
    }
    // i8 weights -> Convert -> Multiply(per-channel scale) -> Convolution (pad k / 2) -> Add(bias);
    // returns the Add's id (output port 2).
    int conv(const std::string& name, int from, int port, const Dims& in, long long k, long long stride, const Dims& out) {
        const int add = testing::add_random_int8_conv(b_, next_, name, from, port, in, out, k, stride, rng_);
        next_ = add + 1;
        return add;
    }

    std::mt19937& rng_;
    IrBuilder b_;
    int next_ = 1;
};

Model model_of(const Chain& c, std::mt19937& rng) {
    std::vector<uint8_t> weights;
    const std::string xml = ChainBuilder(rng).xml_of(c, weights);
    return Model::read_from_memory(xml, weights.data(), weights.size());
}

// The names of the nodes whose output the passes made u8, and of those reading levels.
void level_nodes(const Model& model, std::vector<std::string>& writers, std::vector<std::string>& readers) {
    const BuildResult built = build_graph(model.document_ptr(), builtin_ops());
    const std::shared_ptr<const Graph> g = run_compile_passes(built.graph, CompilePasses{}, builtin_ops());
    for (const Node& n : g->nodes) {
        if (!n.live || !n.def) continue;
        const std::string name(n.fused.empty() ? n.layer->name : n.fused.front()->name);
        if (n.outputs.size() == 1 && n.outputs[0].type == ElementType::u8) writers.push_back(name);
        const QuantizedInput* q = n.def->quantized_input_of ? n.def->quantized_input_of(*n.attrs) : nullptr;
        if (q && q->levels_in) readers.push_back(name);
    }
}

std::vector<float> run(const Model& model, const std::vector<float>& x, const Dims& in, bool keep_intermediates,
                       int threads = 1) {
    CompileOptions o;
    o.keep_intermediates = keep_intermediates;
    o.threads = threads;
    return testing::run_one_input(model, x, Shape(in.begin(), in.end()), o).out;
}

TEST(LevelTensors, Int8ChainsGiveTheFloatTensorsResultsBitForBit) {
    std::mt19937 rng(77);
    std::string levels_ran;
    for (int trial = 0; trial < 24; ++trial) {
        Chain c;
        c.n = 1 + trial % 2;
        c.cin = 1 + trial % 5 * 2;
        c.mid = 8 + trial % 4 * 13;       // 8..47: one and several row blocks
        c.cout = 4 + trial % 3 * 17;
        c.hw = trial % 4 == 3 ? 27 : 3 + trial % 4 * 3;  // small planes (the column form) to 729 columns
        c.k1 = trial % 3 == 0 ? 1 : 3;
        c.stride1 = trial % 5 == 4 ? 2 : 1;
        c.k2 = trial % 2 == 0 ? 3 : 1;
        c.relu = trial % 3 != 1;
        c.second = trial % 2 == 1;
        // Trials 12..17: levels through a MaxPool, behind no FakeQuantize, FQ(b)'s range (the
        // producer then skips its float values) or another range.
        // Trials 18..23: through a Concat of two int8 layers' results, then a MaxPool in every other.
        c.pool = (trial >= 12 && trial < 18) || (trial >= 18 && trial % 2 == 0);
        c.concat = trial >= 18;
        // After a Concat the FakeQuantize is no epilogue: a node of its own, reading the Concat's
        // levels under its own quantizer and writing the MaxPool's under FQ(b)'s.
        c.pool_fq = trial % 3;
        if (c.pool) c.hw = std::max<long long>(c.hw, 6);
        const Model model = model_of(c, rng);
        const std::string what = "trial " + std::to_string(trial);
        std::vector<std::string> writers, readers;
        level_nodes(model, writers, readers);
        std::vector<std::string> want_writers{"conv1"};
        if (c.concat) want_writers.insert(want_writers.end(), {"cat", "conv1b"});
        if (c.pool) want_writers.push_back("pool");
        const bool fq_node = c.concat && c.pool && c.pool_fq != 0;
        if (fq_node) want_writers.push_back("fq_p");
        std::sort(writers.begin(), writers.end());
        std::sort(want_writers.begin(), want_writers.end());
        ASSERT_EQ(writers, want_writers) << what;
        EXPECT_EQ(readers.size(), (c.second ? 2u : 1u) + (fq_node ? 1u : 0u)) << what;
        const Dims in{c.n, c.cin, c.hw, c.hw};
        std::uniform_real_distribution<float> u(-1.3f, 1.3f);
        std::vector<float> x(count(in));
        for (float& v : x) v = u(rng);
        const std::vector<float> want = run(model, x, in, true);
        EXPECT_EQ(run(model, x, in, false), want) << what;
        for (int threads : {2, 3, 7}) EXPECT_EQ(run(model, x, in, false, threads), want) << what << ", " << threads << " threads";
        for (cpu::Isa cap : {cpu::Isa::Sse, cpu::Isa::Avx2}) {
            if (!cpu::isa_supported(cap) || cap == cpu::detected_isa()) continue;
            cpu::set_isa_cap_for_testing(cap);
            const std::vector<float> capped = run(model, x, in, false);
            cpu::reset_isa_cap_for_testing();
            EXPECT_EQ(capped, want) << what << ", " << cpu::isa_name(cap);
            if (trial == 0) levels_ran += std::string(" ") + cpu::isa_name(cap);
        }
    }
    std::printf("level tensors checked under the caps:%s and the CPU's own level\n", levels_ran.c_str());
}

TEST(LevelTensors, TensorsOtherReadersNeedStayFloat) {
    std::mt19937 rng(78);
    Chain other_range;  // conv2 and conv3 quantize the tensor with different ranges
    other_range.other_range = true;
    Chain model_output;  // the tensor is also a model output
    model_output.mid_is_output = true;
    for (const Chain& c : {other_range, model_output}) {
        std::vector<std::string> writers, readers;
        level_nodes(model_of(c, rng), writers, readers);
        EXPECT_TRUE(writers.empty()) << writers.size();
        EXPECT_TRUE(readers.empty()) << readers.size();
    }
}

// A layer both reads the levels (through a MaxPool) and writes into them (a Concat):
// x -> FQ(a) -> convA -> MaxPool(3x3, stride 1, pad 1) -> FQ(b) -> convB -.
//                   `--------------------------------------------------- Concat -> FQ(b) -> convC -> out
TEST(LevelTensors, ALayerCanReadAndWriteTheSameLevels) {
    std::mt19937 rng(79);
    testing::IrBuilder b;
    const long long hw = 7, cin = 3, mid = 8, cout = 5;
    const Dims in{1, cin, hw, hw}, a_out{1, mid, hw, hw}, cat{1, 2 * mid, hw, hw}, out{1, cout, hw, hw};
    b.parameter(0, "x", "f32", in);
    const auto conv = [&](int id, const std::string& name, int from, int port, const Dims& d_in, long long co, long long k) {
        return testing::add_random_int8_conv(b, id, name, from, port, d_in, Dims{1, co, hw, hw}, k, 1, rng);
    };
    const int fq_a = testing::add_fake_quantize(b, 1, "fq_a", 0, 0, in, -1.28f, 1.27f, -1.28f, 1.27f);
    const int a = conv(fq_a + 1, "convA", fq_a, 5, in, mid, 3);
    const int pool = a + 1;
    b.layer(pool, "pool", "MaxPool", "opset1",
            "kernel=\"3,3\" strides=\"1,1\" pads_begin=\"1,1\" pads_end=\"1,1\" rounding_type=\"floor\" auto_pad=\"explicit\"",
            {{0, "", a_out, ""}}, {{1, "FP32", a_out, ""}});
    b.edge(a, 2, pool, 0);
    const int fq_b = testing::add_fake_quantize(b, pool + 1, "fq_b", pool, 1, a_out, 0.f, 3.f, 0.f, 3.f);
    const int b_out = conv(fq_b + 1, "convB", fq_b, 5, a_out, mid, 1);
    const int concat = b_out + 1;
    b.layer(concat, "cat", "Concat", "opset1", "axis=\"1\"", {{0, "", a_out, ""}, {1, "", a_out, ""}}, {{2, "FP32", cat, ""}});
    b.edge(a, 2, concat, 0).edge(b_out, 2, concat, 1);
    const int fq_c = testing::add_fake_quantize(b, concat + 1, "fq_c", concat, 2, cat, 0.f, 3.f, 0.f, 3.f);
    const int c = conv(fq_c + 1, "convC", fq_c, 5, cat, cout, 3);
    b.result(c + 1, "out", "f32", out);
    b.edge(c, 2, c + 1, 0);
    const std::vector<uint8_t> weights = b.weights();
    const Model model = Model::read_from_memory(b.xml(), weights.data(), weights.size());
    std::vector<std::string> writers, readers;
    level_nodes(model, writers, readers);
    std::sort(writers.begin(), writers.end());
    std::sort(readers.begin(), readers.end());
    EXPECT_EQ(writers, (std::vector<std::string>{"cat", "convA", "convB", "pool"}));
    EXPECT_EQ(readers, (std::vector<std::string>{"convB", "convC"}));
    std::uniform_real_distribution<float> u(-1.3f, 1.3f);
    std::vector<float> x(count(in));
    for (float& v : x) v = u(rng);
    const std::vector<float> want = run(model, x, in, true);
    EXPECT_EQ(run(model, x, in, false), want);
    EXPECT_EQ(run(model, x, in, false, 3), want);
}

}  // namespace
}  // namespace irlite
