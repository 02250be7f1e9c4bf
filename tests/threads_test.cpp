// One CompiledModel shared by several threads, each running its own InferRequest: the results
// must be those of a single-threaded run, and ThreadSanitizer (scripts/tsan.sh) must see no race.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "irlite/irlite.hpp"
#include "ir_builder.hpp"

namespace irlite {
namespace {

using testing::IrBuilder;

// x f32 [?,4] -> Slice(x, start=1, stop=INT64_MAX, step=1, axis 1) -> Add(., bias) -> Multiply(., x[:,1:])
//   -> VariadicSplit(axis 1, [1, -1]) -> Concat(part1, part0) -> Result.
// Shapes depend on the input (dynamic batch), so every request re-runs shape rules, and the Consts
// are shared views into the one weights blob.
IrBuilder shared_model() {
    IrBuilder b;
    const int64_t start = 1, stop = INT64_MAX, step = 1, axis = 1;
    const float bias[3] = {0.5f, -1.0f, 2.0f};
    const int64_t lengths[2] = {1, -1};
    b.parameter(0, "x", "f32", {-1, 4});
    b.constant(1, "start", "i64", {1}, &start, sizeof start);
    b.constant(2, "stop", "i64", {1}, &stop, sizeof stop);
    b.constant(3, "step", "i64", {1}, &step, sizeof step);
    b.constant(4, "axes", "i64", {1}, &axis, sizeof axis);
    b.layer(5, "slice", "Slice", "opset8", "",
            {{0, "", {-1, 4}, ""}, {1, "", {1}, ""}, {2, "", {1}, ""}, {3, "", {1}, ""}, {4, "", {1}, ""}},
            {{5, "FP32", {-1, 3}, ""}});
    b.constant(6, "bias", "f32", {3}, bias, sizeof bias);
    b.layer(7, "add", "Add", "opset1", "", {{0, "", {-1, 3}, ""}, {1, "", {3}, ""}}, {{2, "FP32", {-1, 3}, ""}});
    b.layer(8, "mul", "Multiply", "opset1", "", {{0, "", {-1, 3}, ""}, {1, "", {-1, 3}, ""}}, {{2, "FP32", {-1, 3}, ""}});
    b.constant(9, "split_axis", "i64", {}, &axis, sizeof axis);
    b.constant(10, "lengths", "i64", {2}, lengths, sizeof lengths);
    b.layer(11, "split", "VariadicSplit", "opset1", "", {{0, "", {-1, 3}, ""}, {1, "", {}, ""}, {2, "", {2}, ""}},
            {{3, "FP32", {-1, 1}, ""}, {4, "FP32", {-1, 2}, ""}});
    b.layer(12, "join", "Concat", "opset1", "axis=\"1\"", {{0, "", {-1, 2}, ""}, {1, "", {-1, 1}, ""}},
            {{2, "FP32", {-1, 3}, "y"}});
    b.result(13, "out", "f32", {-1, 3});
    b.edge(0, 0, 5, 0).edge(1, 0, 5, 1).edge(2, 0, 5, 2).edge(3, 0, 5, 3).edge(4, 0, 5, 4);
    b.edge(5, 5, 7, 0).edge(6, 0, 7, 1).edge(7, 2, 8, 0).edge(5, 5, 8, 1);
    b.edge(8, 2, 11, 0).edge(9, 0, 11, 1).edge(10, 0, 11, 2);
    b.edge(11, 4, 12, 0).edge(11, 3, 12, 1).edge(12, 2, 13, 0);
    return b;
}

// The model computed by hand: s = x[:,1:]; m = (s + bias) * s; y = [m[:,1:], m[:,:1]].
std::vector<float> expected(const std::vector<float>& x, int64_t batch) {
    const float bias[3] = {0.5f, -1.0f, 2.0f};
    std::vector<float> y;
    for (int64_t r = 0; r < batch; ++r) {
        float m[3];
        for (int c = 0; c < 3; ++c) {
            const float s = x[static_cast<size_t>(r * 4 + c + 1)];
            m[c] = (s + bias[c]) * s;
        }
        y.insert(y.end(), {m[1], m[2], m[0]});
    }
    return y;
}

// Runs body(t) for t in [0, threads) on that many threads at once.
template <class Body>
void in_parallel(int threads, Body body) {
    std::vector<std::thread> running;
    for (int t = 0; t < threads; ++t) running.emplace_back(body, t);
    for (auto& th : running) th.join();
}

TEST(Threads, SharedCompiledModel) {
    const IrBuilder b = shared_model();
    const CompiledModel compiled(Model::read_from_memory(b.xml(), b.weights().data(), b.weights().size()));
    constexpr int kThreads = 4, kRuns = 50;
    std::atomic<int> failures{0};
    in_parallel(kThreads, [&](int t) {
        InferRequest req = compiled.create_infer_request();
        for (int run = 0; run < kRuns; ++run) {
            const int64_t batch = 1 + (t + run) % 5;  // shapes change from run to run
            std::vector<float> x(static_cast<size_t>(batch * 4));
            for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((t * 31 + run * 7 + static_cast<int>(i)) % 17) - 8;
            req.set_input("x", Tensor::wrap(ElementType::f32, {batch, 4}, x.data()));
            req.infer();
            const Tensor& y = req.output("y");
            const std::vector<float> want = expected(x, batch);
            if (y.shape() != Shape{batch, 3} ||
                !std::equal(want.begin(), want.end(), y.data<float>()))
                ++failures;
        }
    });
    EXPECT_EQ(failures.load(), 0);
}

// A small CNN: x f32 [?,1,6,6] -> Convolution 2x1x3x3 -> ReLU -> MaxPool 2x2 -> Reshape [?,8]
// -> MatMul [8,3] -> SoftMax. The numeric kernels (GEMM, pooling, reductions) in threads.
IrBuilder cnn_model() {
    IrBuilder b;
    std::vector<float> filters(2 * 9), weights(8 * 3);
    for (size_t i = 0; i < filters.size(); ++i) filters[i] = static_cast<float>(static_cast<int>(i % 7) - 3) / 4;
    for (size_t i = 0; i < weights.size(); ++i) weights[i] = static_cast<float>(static_cast<int>(i % 5) - 2) / 3;
    const int64_t flat[2] = {-1, 8};
    b.parameter(0, "x", "f32", {-1, 1, 6, 6});
    b.constant(1, "filters", "f32", {2, 1, 3, 3}, filters.data(), filters.size() * sizeof(float));
    b.layer(2, "conv", "Convolution", "opset1",
            "strides=\"1,1\" dilations=\"1,1\" pads_begin=\"0,0\" pads_end=\"0,0\" auto_pad=\"explicit\"",
            {{0, "", {-1, 1, 6, 6}, ""}, {1, "", {2, 1, 3, 3}, ""}}, {{2, "FP32", {-1, 2, 4, 4}, ""}});
    b.layer(3, "relu", "ReLU", "opset1", "", {{0, "", {-1, 2, 4, 4}, ""}}, {{1, "FP32", {-1, 2, 4, 4}, ""}});
    b.layer(4, "pool", "MaxPool", "opset1",
            "strides=\"2,2\" pads_begin=\"0,0\" pads_end=\"0,0\" kernel=\"2,2\" rounding_type=\"floor\" "
            "auto_pad=\"explicit\"",
            {{0, "", {-1, 2, 4, 4}, ""}}, {{1, "FP32", {-1, 2, 2, 2}, ""}});
    b.constant(5, "flat", "i64", {2}, flat, sizeof flat);
    b.layer(6, "reshape", "Reshape", "opset1", "special_zero=\"false\"", {{0, "", {-1, 2, 2, 2}, ""}, {1, "", {2}, ""}},
            {{2, "FP32", {-1, 8}, ""}});
    b.constant(7, "weights", "f32", {8, 3}, weights.data(), weights.size() * sizeof(float));
    b.layer(8, "fc", "MatMul", "opset1", "transpose_a=\"false\" transpose_b=\"false\"",
            {{0, "", {-1, 8}, ""}, {1, "", {8, 3}, ""}}, {{2, "FP32", {-1, 3}, ""}});
    b.layer(9, "softmax", "SoftMax", "opset1", "axis=\"1\"", {{0, "", {-1, 3}, ""}}, {{1, "FP32", {-1, 3}, "y"}});
    b.result(10, "out", "f32", {-1, 3});
    b.edge(0, 0, 2, 0).edge(1, 0, 2, 1).edge(2, 2, 3, 0).edge(3, 1, 4, 0).edge(4, 1, 6, 0).edge(5, 0, 6, 1);
    b.edge(6, 2, 8, 0).edge(7, 0, 8, 1).edge(8, 2, 9, 0).edge(9, 1, 10, 0);
    return b;
}

std::vector<float> cnn_input(int64_t batch, int seed) {
    std::vector<float> x(static_cast<size_t>(batch * 36));
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((seed * 13 + static_cast<int>(i) * 5) % 11) - 5;
    return x;
}

// Every thread's results equal those of a single-threaded run of the same inputs, bit for bit.
TEST(Threads, SharedCnnMatchesSingleThreadedRuns) {
    const IrBuilder b = cnn_model();
    const CompiledModel compiled(Model::read_from_memory(b.xml(), b.weights().data(), b.weights().size()));
    constexpr int kThreads = 4, kRuns = 20, kInputs = 6;
    std::vector<std::vector<float>> reference(kInputs);
    {
        InferRequest req = compiled.create_infer_request();
        for (int i = 0; i < kInputs; ++i) {
            std::vector<float> x = cnn_input(1 + i % 3, i);
            req.set_input("x", Tensor::wrap(ElementType::f32, {1 + i % 3, 1, 6, 6}, x.data()));
            req.infer();
            const Tensor& y = req.output("y");
            reference[static_cast<size_t>(i)].assign(y.data<float>(), y.data<float>() + y.num_elements());
        }
    }
    std::atomic<int> failures{0};
    in_parallel(kThreads, [&](int t) {
        InferRequest req = compiled.create_infer_request();
        for (int run = 0; run < kRuns; ++run) {
            const int i = (t + run) % kInputs;
            std::vector<float> x = cnn_input(1 + i % 3, i);
            req.set_input("x", Tensor::wrap(ElementType::f32, {1 + i % 3, 1, 6, 6}, x.data()));
            req.infer();
            const Tensor& y = req.output("y");
            const std::vector<float>& want = reference[static_cast<size_t>(i)];
            if (y.num_elements() != static_cast<int64_t>(want.size()) ||
                !std::equal(want.begin(), want.end(), y.data<float>()))
                ++failures;
        }
    });
    EXPECT_EQ(failures.load(), 0);
}

// A model big enough that every kernel family splits its work across the intra-op pool:
// x [4,8,32,32] -> Convolution 16x8x3x3 (im2col + GEMM) -> ReLU -> GroupConvolution 16x1x1x3x3
// (depthwise) -> MaxPool 2x2 -> Transpose -> Slice (strided) -> Reshape [4,?] -> MatMul -> Add.
IrBuilder wide_model() {
    IrBuilder b;
    std::vector<float> filters(16 * 8 * 9), depthwise(16 * 9), weights(2048 * 300);
    for (size_t i = 0; i < filters.size(); ++i) filters[i] = static_cast<float>(static_cast<int>(i * 7 % 13) - 6) / 16;
    for (size_t i = 0; i < depthwise.size(); ++i) depthwise[i] = static_cast<float>(static_cast<int>(i % 5) - 2) / 4;
    const int64_t order[4] = {0, 2, 3, 1}, start[1] = {0}, stop[1] = {16}, step[1] = {2}, axis[1] = {3};
    const int64_t flat[2] = {4, -1};
    for (size_t i = 0; i < weights.size(); ++i) weights[i] = static_cast<float>(static_cast<int>(i * 3 % 17) - 8) / 64;
    const std::string conv = "strides=\"1,1\" dilations=\"1,1\" pads_begin=\"1,1\" pads_end=\"1,1\" auto_pad=\"explicit\"";
    b.parameter(0, "x", "f32", {4, 8, 32, 32});
    b.constant(1, "filters", "f32", {16, 8, 3, 3}, filters.data(), filters.size() * sizeof(float));
    b.layer(2, "conv", "Convolution", "opset1", conv, {{0, "", {4, 8, 32, 32}, ""}, {1, "", {16, 8, 3, 3}, ""}},
            {{2, "FP32", {4, 16, 32, 32}, ""}});
    b.layer(3, "relu", "ReLU", "opset1", "", {{0, "", {4, 16, 32, 32}, ""}}, {{1, "FP32", {4, 16, 32, 32}, ""}});
    b.constant(4, "dw", "f32", {16, 1, 1, 3, 3}, depthwise.data(), depthwise.size() * sizeof(float));
    b.layer(5, "dwconv", "GroupConvolution", "opset1", conv,
            {{0, "", {4, 16, 32, 32}, ""}, {1, "", {16, 1, 1, 3, 3}, ""}}, {{2, "FP32", {4, 16, 32, 32}, ""}});
    b.layer(6, "pool", "MaxPool", "opset1",
            "strides=\"2,2\" pads_begin=\"0,0\" pads_end=\"0,0\" kernel=\"2,2\" rounding_type=\"floor\" auto_pad=\"explicit\"",
            {{0, "", {4, 16, 32, 32}, ""}}, {{1, "FP32", {4, 16, 16, 16}, ""}});
    b.constant(7, "order", "i64", {4}, order, sizeof order);
    b.layer(8, "transpose", "Transpose", "opset1", "", {{0, "", {4, 16, 16, 16}, ""}, {1, "", {4}, ""}},
            {{2, "FP32", {4, 16, 16, 16}, ""}});
    b.constant(9, "start", "i64", {1}, start, sizeof start);
    b.constant(10, "stop", "i64", {1}, stop, sizeof stop);
    b.constant(11, "step", "i64", {1}, step, sizeof step);
    b.constant(12, "axis", "i64", {1}, axis, sizeof axis);
    b.layer(13, "slice", "Slice", "opset8", "",
            {{0, "", {4, 16, 16, 16}, ""}, {1, "", {1}, ""}, {2, "", {1}, ""}, {3, "", {1}, ""}, {4, "", {1}, ""}},
            {{5, "FP32", {4, 16, 16, 8}, ""}});
    b.constant(14, "flat", "i64", {2}, flat, sizeof flat);
    b.layer(15, "reshape", "Reshape", "opset1", "special_zero=\"false\"", {{0, "", {4, 16, 16, 8}, ""}, {1, "", {2}, ""}},
            {{2, "FP32", {4, 2048}, ""}});
    b.constant(16, "weights", "f32", {2048, 300}, weights.data(), 2048 * 300 * sizeof(float));
    b.layer(17, "fc", "MatMul", "opset1", "", {{0, "", {4, 2048}, ""}, {1, "", {2048, 300}, ""}},
            {{2, "FP32", {4, 300}, ""}});
    b.layer(18, "add", "Add", "opset1", "", {{0, "", {4, 300}, ""}, {1, "", {4, 300}, ""}}, {{2, "FP32", {4, 300}, "y"}});
    b.result(19, "out", "f32", {4, 300});
    b.layer(20, "features", "Result", "opset1", "", {{0, "FP32", {4, 16, 16, 16}, ""}}, {});
    b.edge(0, 0, 2, 0).edge(1, 0, 2, 1).edge(2, 2, 3, 0).edge(3, 1, 5, 0).edge(4, 0, 5, 1).edge(5, 2, 6, 0);
    b.edge(6, 1, 8, 0).edge(7, 0, 8, 1).edge(8, 2, 13, 0).edge(9, 0, 13, 1).edge(10, 0, 13, 2).edge(11, 0, 13, 3);
    b.edge(12, 0, 13, 4).edge(13, 5, 15, 0).edge(14, 0, 15, 1).edge(15, 2, 17, 0).edge(16, 0, 17, 1);
    b.edge(17, 2, 18, 0).edge(17, 2, 18, 1).edge(18, 2, 19, 0).edge(8, 2, 20, 0);
    return b;
}

std::vector<std::vector<float>> run_wide(const CompiledModel& compiled, const std::vector<float>& x) {
    InferRequest req = compiled.create_infer_request();
    req.set_input("x", Tensor::wrap(ElementType::f32, {4, 8, 32, 32}, const_cast<float*>(x.data())));
    req.infer();
    std::vector<std::vector<float>> out;
    for (size_t i = 0; i < req.num_outputs(); ++i) {
        const Tensor& t = req.output(i);
        out.emplace_back(t.data<float>(), t.data<float>() + t.num_elements());
    }
    return out;
}

// Work is cut into chunks that depend on the data only, so every thread count gives the same bits.
TEST(Threads, ResultsIdenticalForEveryThreadCount) {
    const IrBuilder b = wide_model();
    const Model model = Model::read_from_memory(b.xml(), b.weights().data(), b.weights().size());
    std::vector<float> x(4 * 8 * 32 * 32);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int>(i * 2654435761u % 97) - 48) / 32;
    CompileOptions one;
    one.threads = 1;
    const std::vector<std::vector<float>> reference = run_wide(CompiledModel(model, one), x);
    ASSERT_EQ(reference.size(), 2u);
    for (int threads : {2, 3, 4, 7}) {
        CompileOptions options;
        options.threads = threads;
        EXPECT_EQ(run_wide(CompiledModel(model, options), x), reference) << threads << " threads";
    }
}

// Convolutions whose whole image is one GEMM column block (a 1x1 on 10x10, a 3x3 im2col on 10x10):
// the threads share the image's GEMM tiles, and every thread count still gives the same bits.
TEST(Threads, SingleBlockConvolutionsIdenticalForEveryThreadCount) {
    IrBuilder b;
    std::vector<float> pointwise(64 * 32), filters(48 * 64 * 9);
    for (size_t i = 0; i < pointwise.size(); ++i) pointwise[i] = static_cast<float>(static_cast<int>(i * 5 % 11) - 5) / 8;
    for (size_t i = 0; i < filters.size(); ++i) filters[i] = static_cast<float>(static_cast<int>(i * 7 % 13) - 6) / 32;
    const std::string pads0 = "strides=\"1,1\" dilations=\"1,1\" pads_begin=\"0,0\" pads_end=\"0,0\" auto_pad=\"explicit\"";
    const std::string pads1 = "strides=\"1,1\" dilations=\"1,1\" pads_begin=\"1,1\" pads_end=\"1,1\" auto_pad=\"explicit\"";
    b.parameter(0, "x", "f32", {1, 32, 10, 10});
    b.constant(1, "pw", "f32", {64, 32, 1, 1}, pointwise.data(), pointwise.size() * sizeof(float));
    b.layer(2, "conv1x1", "Convolution", "opset1", pads0, {{0, "", {1, 32, 10, 10}, ""}, {1, "", {64, 32, 1, 1}, ""}},
            {{2, "FP32", {1, 64, 10, 10}, ""}});
    b.layer(3, "relu", "ReLU", "opset1", "", {{0, "", {1, 64, 10, 10}, ""}}, {{1, "FP32", {1, 64, 10, 10}, ""}});
    b.constant(4, "filters", "f32", {48, 64, 3, 3}, filters.data(), filters.size() * sizeof(float));
    b.layer(5, "conv3x3", "Convolution", "opset1", pads1, {{0, "", {1, 64, 10, 10}, ""}, {1, "", {48, 64, 3, 3}, ""}},
            {{2, "FP32", {1, 48, 10, 10}, "y"}});
    b.result(6, "out", "f32", {1, 48, 10, 10});
    b.edge(0, 0, 2, 0).edge(1, 0, 2, 1).edge(2, 2, 3, 0).edge(3, 1, 5, 0).edge(4, 0, 5, 1).edge(5, 2, 6, 0);
    const Model model = Model::read_from_memory(b.xml(), b.weights().data(), b.weights().size());
    std::vector<float> x(32 * 10 * 10);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int>(i * 2654435761u % 89) - 44) / 16;
    const auto run = [&](int threads) {
        CompileOptions options;
        options.threads = threads;
        const CompiledModel compiled(model, options);
        InferRequest req = compiled.create_infer_request();
        req.set_input("x", Tensor::wrap(ElementType::f32, {1, 32, 10, 10}, x.data()));
        req.infer();
        const Tensor& y = req.output("y");
        return std::vector<float>(y.data<float>(), y.data<float>() + y.num_elements());
    };
    const std::vector<float> reference = run(1);
    ASSERT_EQ(reference.size(), 48u * 10 * 10);
    for (int threads : {2, 3, 4, 7}) EXPECT_EQ(run(threads), reference) << threads << " threads";
}

// Convolution + bias Add + residual Add + ReLU (fused into one node) on the GEMM paths whose tile
// tasks make the image's shared operand themselves and finish their own tiles: one-block im2col
// (3x3 on 4x4, stride-2 3x3 onto 4x4), transposed (stride-2 3x3 onto 3x3, 3x3 on 2x2 with its
// gathered 4-row panels, 1x1 on 3x3 with K in two blocks), implicit (3x3 on 16x16) and one-block
// pointwise (1x1 on 10x10), batch 2, channel counts not multiples of 8. Every thread count gives
// the same bits, and they match a plain loop.
struct ConvCase {
    int64_t cin, cout, in, kernel, stride, pad;
    const char* method;  // the path the case is meant for
};

std::vector<float> pattern(size_t n, unsigned mul, int mod, float scale) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(static_cast<int>(i * mul % static_cast<unsigned>(mod)) - mod / 2) * scale;
    return v;
}

TEST(Threads, FusedGemmConvolutionsMatchReferenceForEveryThreadCount) {
    // 4x4 outputs (16 pixels, a full B panel) take the plain GEMM over an im2col that the tile
    // tasks make in pieces of channels; fewer pixels, the transposed GEMM.
    const ConvCase cases[] = {{24, 40, 4, 3, 1, 1, "im2col-gemm"},     {20, 36, 7, 3, 2, 1, "im2col-gemm"},
                              {20, 36, 5, 3, 2, 1, "gemm-transposed"}, {20, 36, 2, 3, 1, 1, "gemm-transposed"},
                              {300, 20, 3, 1, 1, 0, "gemm-transposed"}, {19, 20, 16, 3, 1, 1, "gemm-implicit"},
                              {13, 21, 10, 1, 1, 0, "gemm-1x1"}};
    for (const ConvCase& cc : cases) {
        const int64_t n = 2, out = (cc.in + 2 * cc.pad - cc.kernel) / cc.stride + 1;
        SCOPED_TRACE("cin " + std::to_string(cc.cin) + " cout " + std::to_string(cc.cout) + " in " + std::to_string(cc.in) +
                     " kernel " + std::to_string(cc.kernel));
        const std::vector<float> w = pattern(static_cast<size_t>(cc.cout * cc.cin * cc.kernel * cc.kernel), 7, 13, 1.0f / 32);
        const std::vector<float> bias = pattern(static_cast<size_t>(cc.cout), 3, 7, 1.0f / 4);
        const std::vector<float> x = pattern(static_cast<size_t>(n * cc.cin * cc.in * cc.in), 2654435761u, 89, 1.0f / 16);
        const std::vector<float> r = pattern(static_cast<size_t>(n * cc.cout * out * out), 40503u, 31, 1.0f / 8);
        const std::vector<long long> xs = {n, cc.cin, cc.in, cc.in}, ws = {cc.cout, cc.cin, cc.kernel, cc.kernel};
        const std::vector<long long> ys = {n, cc.cout, out, out}, bs = {1, cc.cout, 1, 1};
        const std::string s = std::to_string(cc.stride), pd = std::to_string(cc.pad);
        IrBuilder b;
        b.parameter(0, "x", "f32", xs);
        b.parameter(1, "r", "f32", ys);
        b.constant(2, "w", "f32", ws, w.data(), w.size() * sizeof(float));
        b.layer(3, "conv", "Convolution", "opset1",
                "strides=\"" + s + "," + s + "\" dilations=\"1,1\" pads_begin=\"" + pd + "," + pd + "\" pads_end=\"" + pd +
                    "," + pd + "\" auto_pad=\"explicit\"",
                {{0, "", xs, ""}, {1, "", ws, ""}}, {{2, "FP32", ys, ""}});
        b.constant(4, "bias", "f32", bs, bias.data(), bias.size() * sizeof(float));
        b.layer(5, "add_bias", "Add", "opset1", "", {{0, "", ys, ""}, {1, "", bs, ""}}, {{2, "FP32", ys, ""}});
        b.layer(6, "add_res", "Add", "opset1", "", {{0, "", ys, ""}, {1, "", ys, ""}}, {{2, "FP32", ys, ""}});
        b.layer(7, "relu", "ReLU", "opset1", "", {{0, "", ys, ""}}, {{1, "FP32", ys, "y"}});
        b.result(8, "out", "f32", ys);
        b.edge(0, 0, 3, 0).edge(2, 0, 3, 1).edge(3, 2, 5, 0).edge(4, 0, 5, 1).edge(5, 2, 6, 0).edge(1, 0, 6, 1);
        b.edge(6, 2, 7, 0).edge(7, 1, 8, 0);
        const Model model = Model::read_from_memory(b.xml(), b.weights().data(), b.weights().size());
        const auto run = [&](int threads) {
            CompileOptions options;
            options.threads = threads;
            options.profiling = true;
            const CompiledModel compiled(model, options);
            InferRequest req = compiled.create_infer_request();
            req.set_input("x", Tensor::wrap(ElementType::f32, {n, cc.cin, cc.in, cc.in}, const_cast<float*>(x.data())));
            req.set_input("r", Tensor::wrap(ElementType::f32, {n, cc.cout, out, out}, const_cast<float*>(r.data())));
            req.infer();
            bool fused = false;
            for (const ProfileEntry& e : req.profiling())
                if (e.type == "Convolution+Add+Add+ReLU") {
                    fused = true;
                    EXPECT_EQ(e.method, cc.method);
                }
            EXPECT_TRUE(fused) << "the convolution and its epilogue did not fuse";
            const Tensor& y = req.output("y");
            return std::vector<float>(y.data<float>(), y.data<float>() + y.num_elements());
        };
        const std::vector<float> single = run(1);
        ASSERT_EQ(single.size(), r.size());
        for (int64_t i = 0; i < n; ++i)
            for (int64_t co = 0; co < cc.cout; ++co)
                for (int64_t oh = 0; oh < out; ++oh)
                    for (int64_t ow = 0; ow < out; ++ow) {
                        double sum = 0, mag = 0;
                        for (int64_t ci = 0; ci < cc.cin; ++ci)
                            for (int64_t kh = 0; kh < cc.kernel; ++kh)
                                for (int64_t kw = 0; kw < cc.kernel; ++kw) {
                                    const int64_t ih = oh * cc.stride - cc.pad + kh, iw = ow * cc.stride - cc.pad + kw;
                                    if (ih < 0 || iw < 0 || ih >= cc.in || iw >= cc.in) continue;
                                    const double t = double{x[static_cast<size_t>(((i * cc.cin + ci) * cc.in + ih) * cc.in + iw)]} *
                                                     w[static_cast<size_t>(((co * cc.cin + ci) * cc.kernel + kh) * cc.kernel + kw)];
                                    sum += t;
                                    mag += std::abs(t);
                                }
                        const size_t at = static_cast<size_t>(((i * cc.cout + co) * out + oh) * out + ow);
                        const double want = std::max(0.0, sum + bias[static_cast<size_t>(co)] + r[at]);
                        ASSERT_NEAR(single[at], want, 1e-5 * (mag + 1)) << "at " << at;
                    }
        for (int threads : {2, 3, 4, 7}) EXPECT_EQ(run(threads), single) << threads << " threads";
    }
}

// Many requests over one compiled model whose pool they share (one request gets the workers at a
// time, the others run inline): still the single-threaded results, and no race for TSan.
TEST(Threads, RequestsShareTheIntraOpPool) {
    const IrBuilder b = wide_model();
    const Model model = Model::read_from_memory(b.xml(), b.weights().data(), b.weights().size());
    std::vector<float> x(4 * 8 * 32 * 32);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int>(i % 23) - 11) / 8;
    CompileOptions one;
    one.threads = 1;
    const std::vector<std::vector<float>> reference = run_wide(CompiledModel(model, one), x);
    CompileOptions options;
    options.threads = 3;
    const CompiledModel shared(model, options);
    std::atomic<int> failures{0};
    in_parallel(3, [&](int) {
        for (int run = 0; run < 4; ++run)
            if (run_wide(shared, x) != reference) ++failures;
    });
    EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace irlite
