// Throughput of the window kernels of CNNs: MaxPool 3x3 stride 2 (ResNet's stem) and depthwise 3x3
// convolutions, stride 1 and 2 (MobileNetV2), through the same OpDef path the executor uses: the
// plan is prepared and the scratch allocated once, outside the timed loop, as in a compiled model.
// MaxPool reports GB/s (data read once plus outputs written), depthwise GFLOP/s (multiply and add
// counted as 2 operations).
//   irlite_bench --benchmark_filter='MaxPool|Depthwise'
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/op.hpp"
#include "kernels/all_ops.hpp"

namespace irlite {
namespace {

// One prepared node: attributes parsed, outputs allocated from the shape rule, plan and scratch
// made once; run() is what the executor does per inference (single thread).
class PreparedNode {
public:
    PreparedNode(const std::string& type, int opset, std::vector<IrAttribute> attributes, std::vector<Tensor> inputs)
        : inputs_(std::move(inputs)) {
        layer_.type = strings_.keep(type);
        layer_.version = strings_.keep("opset" + std::to_string(opset));
        layer_.attributes = std::move(attributes);
        def_ = builtin_ops().find(type, opset);
        if (!def_) throw Error(ErrorKind::Unsupported, "unsupported-op", type + " is not registered");
        attrs_ = def_->parse_attrs(AttrReader(layer_, nullptr));
        std::vector<InferContext::Input> in;
        for (const Tensor& t : inputs_) in.push_back({t.type(), PartialShape(t.shape()), &t});
        const InferContext ctx(*def_, *attrs_, std::move(in), def_->num_outputs);
        for (const OutputInfo& info : def_->infer(ctx)) outputs_.emplace_back(info.type, info.shape.to_shape());
        plan_ = def_->prepare(ctx);
        scratch_bytes_ = (plan_->scratch_bytes + 63) / 64 * 64;
        if (scratch_bytes_) scratch_ = std::aligned_alloc(64, scratch_bytes_);
        for (const Tensor& t : inputs_) input_ptrs_.push_back(&t);
    }
    ~PreparedNode() { std::free(scratch_); }
    PreparedNode(const PreparedNode&) = delete;
    PreparedNode& operator=(const PreparedNode&) = delete;

    void run() {
        KernelContext ctx(*def_, *attrs_, input_ptrs_.data(), input_ptrs_.size(), outputs_.data(), outputs_.size(),
                          plan_.get(), scratch_, scratch_bytes_, nullptr);
        def_->compute(ctx);
    }
    const Tensor& output() const { return outputs_[0]; }
    std::string method() const { return plan_->method; }

private:
    IrDocument strings_;  // keeps the layer's strings
    IrLayer layer_;
    const OpDef* def_ = nullptr;
    std::unique_ptr<OpAttrs> attrs_;
    std::vector<Tensor> inputs_, outputs_;
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

void run_loop(benchmark::State& state, PreparedNode& node) {
    for (auto _ : state) {
        node.run();
        benchmark::DoNotOptimize(node.output().data());
        benchmark::ClobberMemory();
    }
    state.SetLabel(node.method());
}

std::vector<IrAttribute> window_attrs(int64_t stride) {
    const std::string s = std::to_string(stride) + ", " + std::to_string(stride);
    return {{"strides", s}, {"dilations", "1, 1"}, {"pads_begin", "1, 1"}, {"pads_end", "1, 1"}, {"auto_pad", "explicit"}};
}

// MaxPool-8 3x3 stride 2 pad 1 (values and i64 indices) on [1, C, H, W]: args C, H.
void BM_MaxPool3x3s2(benchmark::State& state) {
    const int64_t c = state.range(0), h = state.range(1), o = (h - 1) / 2 + 1;
    std::vector<IrAttribute> attrs = window_attrs(2);
    attrs.push_back({"kernel", "3, 3"});
    attrs.push_back({"rounding_type", "floor"});
    PreparedNode node("MaxPool", 8, attrs, {random_f32({1, c, h, h}, 1)});
    run_loop(state, node);
    const double bytes = 4.0 * c * h * h + (4.0 + 8.0) * c * o * o;
    state.counters["GB/s"] = benchmark::Counter(bytes / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_MaxPool3x3s2)->Args({16, 32})->Args({64, 112})->Unit(benchmark::kMicrosecond);

// MaxPool-1 3x3 stride 2, no pads, ceil rounding (SqueezeNet: values only, no indices, so the
// edge-replicated path) on [1, C, H, W]: args C, H.
void BM_MaxPool3x3s2Ceil(benchmark::State& state) {
    const int64_t c = state.range(0), h = state.range(1), o = (h - 2) / 2 + 1;
    std::vector<IrAttribute> attrs = window_attrs(2);
    attrs.erase(attrs.begin() + 1);  // MaxPool-1 has no dilations
    for (IrAttribute& a : attrs)
        if (a.name == "pads_begin" || a.name == "pads_end") a.value = "0, 0";
    attrs.push_back({"kernel", "3, 3"});
    attrs.push_back({"rounding_type", "ceil"});
    PreparedNode node("MaxPool", 1, attrs, {random_f32({1, c, h, h}, 1)});
    run_loop(state, node);
    const double bytes = 4.0 * c * h * h + 4.0 * c * o * o;
    state.counters["GB/s"] = benchmark::Counter(bytes / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_MaxPool3x3s2Ceil)->Args({64, 32})->Args({128, 16})->Args({256, 8})->Unit(benchmark::kMicrosecond);

// AvgPool-1 3x3 stride 1 pad 1, exclude-pad (Inception-like) on [1, C, H, W]: args C, H.
void BM_AvgPool3x3s1(benchmark::State& state) {
    const int64_t c = state.range(0), h = state.range(1);
    std::vector<IrAttribute> attrs = window_attrs(1);
    attrs.erase(attrs.begin() + 1);  // AvgPool-1 has no dilations
    attrs.push_back({"kernel", "3, 3"});
    attrs.push_back({"rounding_type", "floor"});
    attrs.push_back({"exclude-pad", "true"});
    PreparedNode node("AvgPool", 1, attrs, {random_f32({1, c, h, h}, 2)});
    run_loop(state, node);
    const double bytes = 8.0 * c * h * h;
    state.counters["GB/s"] = benchmark::Counter(bytes / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_AvgPool3x3s1)->Args({64, 35})->Unit(benchmark::kMicrosecond);

// GroupConvolution with groups == channels, 3x3 pad 1 on [1, C, H, W]: args C, H, stride.
void BM_Depthwise3x3(benchmark::State& state) {
    const int64_t c = state.range(0), h = state.range(1), s = state.range(2), o = (h - 1) / s + 1;
    PreparedNode node("GroupConvolution", 1, window_attrs(s), {random_f32({1, c, h, h}, 3), random_f32({c, 1, 1, 3, 3}, 4)});
    run_loop(state, node);
    state.counters["GFLOP/s"] = benchmark::Counter(2.0 * c * 9 * o * o / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_Depthwise3x3)
    ->ArgNames({"C", "H", "stride"})
    ->Args({96, 16, 1})     // mobilenet_v2 (64x64 input), features.3
    ->Args({48, 32, 2})     // features.2
    ->Args({96, 16, 2})     // features.4 (channels last)
    ->Args({96, 8, 1})      // features.5, 6 (channels last)
    ->Args({96, 8, 2})      // features.7
    ->Args({192, 4, 1})     // features.8..11
    ->Args({288, 4, 2})     // features.14
    ->Args({480, 2, 1})     // features.15..17
    ->Args({960, 2, 1})     // features.15..17
    ->Args({144, 56, 1})    // MobileNetV2 at 224x224
    ->Args({144, 56, 2})
    ->Args({32, 112, 1})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace irlite
