// Throughput of the heavy numeric kernels, through the same OpDef path the executor uses (attribute
// parsing and the shape rule run once, outside the timed loop). Each benchmark reports GFLOP/s
// (multiply and add counted as 2 operations).
//   irlite_bench --benchmark_filter=Conv
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/op.hpp"
#include "engine/thread_pool.hpp"
#include "kernels/all_ops.hpp"

namespace irlite {
namespace {

// One node, ready to run: attributes parsed, outputs allocated from the shape rule, the plan
// prepared (weights packed) and its scratch allocated once, as the executor does; the timed loop
// is the kernel alone. threads > 1: on an intra-op pool of that size, one scratch region per thread.
class Node1 {
public:
    Node1(const std::string& type, int opset, std::vector<IrAttribute> attributes, std::vector<Tensor> inputs,
          int threads = 1)
        : inputs_(std::move(inputs)), pool_(threads > 1 ? std::make_unique<ThreadPool>(threads) : nullptr) {
        layer_.type = strings_.keep(type);
        layer_.version = strings_.keep("opset" + std::to_string(opset));
        layer_.attributes = std::move(attributes);
        def_ = builtin_ops().find(type, opset);
        if (!def_) throw Error(ErrorKind::Unsupported, "unsupported-op", type + " is not registered");
        attrs_ = def_->parse_attrs ? def_->parse_attrs(AttrReader(layer_, nullptr)) : std::make_unique<NoAttrs>();
        std::vector<InferContext::Input> in;
        for (const Tensor& t : inputs_) in.push_back({t.type(), PartialShape(t.shape()), &t});
        const InferContext ctx(*def_, *attrs_, std::move(in), def_->num_outputs);
        for (const OutputInfo& info : def_->infer(ctx)) outputs_.emplace_back(info.type, info.shape.to_shape());
        plan_ = def_->prepare(ctx);
        scratch_bytes_ = (plan_->scratch_bytes + 63) / 64 * 64;
        if (scratch_bytes_) scratch_ = std::aligned_alloc(64, scratch_bytes_ * static_cast<size_t>(std::max(threads, 1)));
        for (const Tensor& t : inputs_) input_ptrs_.push_back(&t);
    }
    ~Node1() { std::free(scratch_); }
    Node1(const Node1&) = delete;
    Node1& operator=(const Node1&) = delete;
    void run() {
        KernelContext ctx(*def_, *attrs_, input_ptrs_.data(), input_ptrs_.size(), outputs_.data(), outputs_.size(),
                          plan_.get(), scratch_, scratch_bytes_, pool_.get());
        def_->compute(ctx);
    }
    const Tensor& output() const { return outputs_[0]; }

private:
    IrDocument strings_;  // keeps the layer's strings
    IrLayer layer_;
    const OpDef* def_ = nullptr;
    std::unique_ptr<OpAttrs> attrs_;
    std::vector<Tensor> inputs_, outputs_;
    std::unique_ptr<ThreadPool> pool_;
    std::vector<const Tensor*> input_ptrs_;
    std::unique_ptr<OpPlan> plan_;
    void* scratch_ = nullptr;
    size_t scratch_bytes_ = 0;
};

Tensor random_f32(const Shape& shape, unsigned seed) {
    Tensor t(ElementType::f32, shape);
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (int64_t i = 0; i < t.num_elements(); ++i) t.data<float>()[i] = dist(gen);
    return t;
}

void run_and_report(benchmark::State& state, Node1& node, double flops) {
    for (auto _ : state) {
        node.run();
        benchmark::DoNotOptimize(node.output().data());
        benchmark::ClobberMemory();
    }
    state.counters["GFLOP/s"] = benchmark::Counter(flops / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

std::vector<IrAttribute> conv_attrs(const std::string& strides, const std::string& pads) {
    return {{"strides", strides}, {"dilations", "1, 1"}, {"pads_begin", pads}, {"pads_end", pads}, {"auto_pad", "explicit"}};
}

// ResNet-18's stage-1 convolution: 3x3, 64 -> 64 channels on 56x56.
void BM_Conv3x3_64to64_56x56(benchmark::State& state) {
    Node1 node("Convolution", 1, conv_attrs("1, 1", "1, 1"),
               {random_f32({1, 64, 56, 56}, 1), random_f32({64, 64, 3, 3}, 2)});
    run_and_report(state, node, 2.0 * 64 * 64 * 9 * 56 * 56);
}
BENCHMARK(BM_Conv3x3_64to64_56x56)->Unit(benchmark::kMillisecond);

// A ResNet bottleneck expansion: 1x1, 64 -> 256 channels on 56x56 (a plain GEMM).
void BM_Conv1x1_64to256_56x56(benchmark::State& state) {
    Node1 node("Convolution", 1, conv_attrs("1, 1", "0, 0"),
               {random_f32({1, 64, 56, 56}, 3), random_f32({256, 64, 1, 1}, 4)});
    run_and_report(state, node, 2.0 * 64 * 256 * 56 * 56);
}
BENCHMARK(BM_Conv1x1_64to256_56x56)->Unit(benchmark::kMillisecond);

// A strided 3x3 convolution, 128 -> 128 channels, 56x56 -> 28x28 (im2col + GEMM).
void BM_Conv3x3_stride2_128_56x56(benchmark::State& state) {
    Node1 node("Convolution", 1, conv_attrs("2, 2", "1, 1"),
               {random_f32({1, 128, 56, 56}, 5), random_f32({128, 128, 3, 3}, 6)});
    run_and_report(state, node, 2.0 * 128 * 128 * 9 * 28 * 28);
}
BENCHMARK(BM_Conv3x3_stride2_128_56x56)->Unit(benchmark::kMillisecond);

// Small CNN planes (ResNet-18 at 1/4 width on 64x64, the real-model suite): the stem, 7x7 stride 2,
// 3 -> 16 channels (B read in place from phase planes), a 16 -> 16 3x3 on 16x16 (M = 16: 4-row
// micro-tiles) and a 64 -> 64 3x3 on 4x4 (the transposed GEMM, M = 16 pixels).
void BM_Conv7x7_stride2_3to16_64x64(benchmark::State& state) {
    Node1 node("Convolution", 1, conv_attrs("2, 2", "3, 3"),
               {random_f32({1, 3, 64, 64}, 15), random_f32({16, 3, 7, 7}, 16)});
    run_and_report(state, node, 2.0 * 16 * 3 * 49 * 32 * 32);
}
BENCHMARK(BM_Conv7x7_stride2_3to16_64x64)->Unit(benchmark::kMicrosecond);

// SqueezeNet 1.1's stem on a 66 x 66 input: 3 -> 64, 3x3 stride 2, no padding (K = 27). Arg: threads.
void BM_Conv3x3_stride2_3to64_66x66(benchmark::State& state) {
    Node1 node("Convolution", 1, conv_attrs("2, 2", "0, 0"),
               {random_f32({1, 3, 66, 66}, 35), random_f32({64, 3, 3, 3}, 36)}, static_cast<int>(state.range(0)));
    run_and_report(state, node, 2.0 * 64 * 27 * 32 * 32);
}
BENCHMARK(BM_Conv3x3_stride2_3to64_66x66)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond)->UseRealTime();

// Arg: threads (the tile tasks share the image's phase planes / packed A, made in pieces).
void BM_Conv3x3_16to16_16x16(benchmark::State& state) {
    Node1 node("Convolution", 1, conv_attrs("1, 1", "1, 1"),
               {random_f32({1, 16, 16, 16}, 17), random_f32({16, 16, 3, 3}, 18)}, static_cast<int>(state.range(0)));
    run_and_report(state, node, 2.0 * 16 * 16 * 9 * 16 * 16);
}
BENCHMARK(BM_Conv3x3_16to16_16x16)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_Conv3x3_64to64_4x4(benchmark::State& state) {
    Node1 node("Convolution", 1, conv_attrs("1, 1", "1, 1"),
               {random_f32({1, 64, 4, 4}, 19), random_f32({64, 64, 3, 3}, 20)}, static_cast<int>(state.range(0)));
    run_and_report(state, node, 2.0 * 64 * 64 * 9 * 4 * 4);
}
BENCHMARK(BM_Conv3x3_64to64_4x4)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond)->UseRealTime();

// SqueezeNet 1.1's last expand 3x3 on 66x66 input: 64 -> 256 channels on 4x4 (transposed, M = 16
// pixels; 590 KB of weights, more than one core's L2).
void BM_Conv3x3_64to256_4x4(benchmark::State& state) {
    Node1 node("Convolution", 1, conv_attrs("1, 1", "1, 1"),
               {random_f32({1, 64, 4, 4}, 25), random_f32({256, 64, 3, 3}, 26)}, static_cast<int>(state.range(0)));
    run_and_report(state, node, 2.0 * 64 * 256 * 9 * 4 * 4);
}
BENCHMARK(BM_Conv3x3_64to256_4x4)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond)->UseRealTime();

// ResNet-18's layer4 at 1/4 width: 3x3, 128 -> 128 on 2x2 (transposed, M = 4 gathered pixels).
void BM_Conv3x3_128to128_2x2(benchmark::State& state) {
    Node1 node("Convolution", 1, conv_attrs("1, 1", "1, 1"),
               {random_f32({1, 128, 2, 2}, 23), random_f32({128, 128, 3, 3}, 24)}, static_cast<int>(state.range(0)));
    run_and_report(state, node, 2.0 * 128 * 128 * 9 * 2 * 2);
}
BENCHMARK(BM_Conv3x3_128to128_2x2)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond)->UseRealTime();

// MobileNetV2's deep pointwise convolutions (half width on 64x64): an expansion 32 -> 192 on 4x4
// and a projection 480 -> 80 on 2x2 (both transposed: M = 16 or 4 pixels), 16 -> 96 on 8x8. A few
// microseconds each, so the arg (threads) shows what a parallel region costs against its work.
void BM_Conv1x1_32to192_4x4(benchmark::State& state) {
    Node1 node("Convolution", 1, conv_attrs("1, 1", "0, 0"),
               {random_f32({1, 32, 4, 4}, 27), random_f32({192, 32, 1, 1}, 28)}, static_cast<int>(state.range(0)));
    run_and_report(state, node, 2.0 * 32 * 192 * 4 * 4);
}
BENCHMARK(BM_Conv1x1_32to192_4x4)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_Conv1x1_480to80_2x2(benchmark::State& state) {
    Node1 node("Convolution", 1, conv_attrs("1, 1", "0, 0"),
               {random_f32({1, 480, 2, 2}, 29), random_f32({80, 480, 1, 1}, 30)}, static_cast<int>(state.range(0)));
    run_and_report(state, node, 2.0 * 480 * 80 * 2 * 2);
}
BENCHMARK(BM_Conv1x1_480to80_2x2)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_Conv1x1_16to96_8x8(benchmark::State& state) {
    Node1 node("Convolution", 1, conv_attrs("1, 1", "0, 0"),
               {random_f32({1, 16, 8, 8}, 31), random_f32({96, 16, 1, 1}, 32)}, static_cast<int>(state.range(0)));
    run_and_report(state, node, 2.0 * 16 * 96 * 8 * 8);
}
BENCHMARK(BM_Conv1x1_16to96_8x8)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond)->UseRealTime();

// SqueezeNet 1.1's classifier on a 66 x 66 input: 512 -> 1000 on 4x4 (transposed, M = 16 pixels;
// 2 MB of weights, streamed once per run).
void BM_Conv1x1_512to1000_4x4(benchmark::State& state) {
    Node1 node("Convolution", 1, conv_attrs("1, 1", "0, 0"),
               {random_f32({1, 512, 4, 4}, 33), random_f32({1000, 512, 1, 1}, 34)}, static_cast<int>(state.range(0)));
    run_and_report(state, node, 2.0 * 512 * 1000 * 4 * 4);
}
BENCHMARK(BM_Conv1x1_512to1000_4x4)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond)->UseRealTime();

// 3x3 stride-1 convolutions on either side of the Winograd F(2x2, 3x3) gate (64+ channels and
// 16x16+ outputs run as Winograd; the 32-channel and 14x14 shapes take the direct path, for
// comparison): args Cin, Cout, H (= W). GFLOP/s counts the direct convolution's multiply-adds, so
// that the numbers compare across paths.
void BM_Conv3x3Winograd(benchmark::State& state) {
    const int64_t cin = state.range(0), cout = state.range(1), h = state.range(2);
    Node1 node("Convolution", 1, conv_attrs("1, 1", "1, 1"),
               {random_f32({1, cin, h, h}, 33), random_f32({cout, cin, 3, 3}, 34)});
    run_and_report(state, node, 2.0 * cin * cout * 9 * h * h);
}
BENCHMARK(BM_Conv3x3Winograd)
    ->Args({32, 32, 16})
    ->Args({32, 32, 32})
    ->Args({64, 64, 16})
    ->Args({64, 128, 16})
    ->Args({64, 64, 56})
    ->Args({128, 128, 28})
    ->Args({256, 256, 14})
    ->Unit(benchmark::kMicrosecond);

// A pointwise convolution with a tiny K: MobileNetV2's expansion 8 -> 48 channels on 32x32 (half
// width on 64x64). 0.8 MFLOP: the cost is the output's stores and the per-tile overheads, not FMAs.
void BM_Conv1x1_8to48_32x32(benchmark::State& state) {
    Node1 node("Convolution", 1, conv_attrs("1, 1", "0, 0"),
               {random_f32({1, 8, 32, 32}, 21), random_f32({48, 8, 1, 1}, 22)});
    run_and_report(state, node, 2.0 * 8 * 48 * 32 * 32);
}
BENCHMARK(BM_Conv1x1_8to48_32x32)->Unit(benchmark::kMicrosecond);

// MobileNetV2's depthwise 3x3 convolution: 144 channels on 56x56 (the direct kernel).
void BM_Depthwise3x3_144_56x56(benchmark::State& state) {
    Node1 node("GroupConvolution", 1, conv_attrs("1, 1", "1, 1"),
               {random_f32({1, 144, 56, 56}, 7), random_f32({144, 1, 1, 3, 3}, 8)});
    run_and_report(state, node, 2.0 * 144 * 9 * 56 * 56);
}
BENCHMARK(BM_Depthwise3x3_144_56x56)->Unit(benchmark::kMillisecond);

// Square 512x512 MatMul.
void BM_MatMul_512(benchmark::State& state) {
    Node1 node("MatMul", 1, {{"transpose_a", "false"}, {"transpose_b", "false"}},
               {random_f32({512, 512}, 9), random_f32({512, 512}, 10)});
    run_and_report(state, node, 2.0 * 512 * 512 * 512);
}
BENCHMARK(BM_MatMul_512)->Unit(benchmark::kMillisecond);

// A Transformer linear layer: [1, 128, 512] x [2048, 512]^T.
void BM_MatMul_Linear_128x512x2048(benchmark::State& state) {
    Node1 node("MatMul", 1, {{"transpose_a", "false"}, {"transpose_b", "true"}},
               {random_f32({1, 128, 512}, 11), random_f32({2048, 512}, 12)});
    run_and_report(state, node, 2.0 * 128 * 512 * 2048);
}
BENCHMARK(BM_MatMul_Linear_128x512x2048)->Unit(benchmark::kMillisecond);

// Attention scores: 8 heads of [128, 64] x [64, 128] (many small products).
void BM_MatMul_Attention_8x128x64(benchmark::State& state) {
    Node1 node("MatMul", 1, {{"transpose_a", "false"}, {"transpose_b", "true"}},
               {random_f32({1, 8, 128, 64}, 13), random_f32({1, 8, 128, 64}, 14)});
    run_and_report(state, node, 2.0 * 8 * 128 * 128 * 64);
}
BENCHMARK(BM_MatMul_Attention_8x128x64)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace irlite

BENCHMARK_MAIN();
