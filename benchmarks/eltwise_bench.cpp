// Throughput of the elementwise kernels that run at the CPU's instruction-set level
// (kernels/detail/cpu_isa.hpp) at each level this CPU supports: the second argument caps the
// level (0 sse, 1 avx2, 2 avx512; levels above the CPU's are skipped), so one run compares the
// baseline with the dispatched paths. Shapes of the real models (mobilenet_v2's Add / Clamp,
// the transformer's attention Softmax, rows of 16). Reports GB/s (inputs read plus output written).
//   irlite_bench --benchmark_filter='Eltwise'
#include <benchmark/benchmark.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/op.hpp"
#include "kernels/all_ops.hpp"
#include "kernels/detail/cpu_isa.hpp"

namespace irlite {
namespace {

// One prepared node, run as the executor runs it (single thread, no scratch: these ops need none).
class EltwiseNode {
public:
    EltwiseNode(const std::string& type, int opset, std::vector<IrAttribute> attributes, std::vector<Tensor> inputs)
        : inputs_(std::move(inputs)) {
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
        if (def_->prepare) plan_ = def_->prepare(ctx);
        for (const Tensor& t : inputs_) input_ptrs_.push_back(&t);
    }
    void run() {
        KernelContext ctx(*def_, *attrs_, input_ptrs_.data(), input_ptrs_.size(), outputs_.data(), outputs_.size(),
                          plan_.get(), nullptr, 0, nullptr);
        def_->compute(ctx);
    }
    const Tensor& output() const { return outputs_[0]; }
    double bytes() const {
        double b = static_cast<double>(outputs_[0].byte_size());
        for (const Tensor& t : inputs_) b += static_cast<double>(t.byte_size());
        return b;
    }

private:
    IrDocument strings_;  // keeps the layer's strings
    IrLayer layer_;
    const OpDef* def_ = nullptr;
    std::unique_ptr<OpAttrs> attrs_;
    std::vector<Tensor> inputs_, outputs_;
    std::vector<const Tensor*> input_ptrs_;
    std::unique_ptr<OpPlan> plan_;
};

Tensor random_f32(const Shape& shape, unsigned seed) {
    Tensor t(ElementType::f32, shape);
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
    for (int64_t i = 0; i < t.num_elements(); ++i) t.data<float>()[i] = dist(gen);
    return t;
}

void run_capped(benchmark::State& state, EltwiseNode& node) {
    const auto cap = static_cast<cpu::Isa>(state.range(1));
    if (!cpu::isa_supported(cap)) {
        state.SkipWithError("level not supported by this CPU");
        return;
    }
    cpu::set_isa_cap_for_testing(cap);
    for (auto _ : state) {
        node.run();
        benchmark::DoNotOptimize(node.output().data());
        benchmark::ClobberMemory();
    }
    cpu::reset_isa_cap_for_testing();
    state.counters["GB/s"] = benchmark::Counter(node.bytes() / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

// arg 0: which case; arg 1: level cap.
void BM_Eltwise(benchmark::State& state) {
    static const Shape kAct = {1, 96, 16, 16};  // mobilenet_v2 (64x64 input), an expanded block
    using Attrs = std::vector<IrAttribute>;
    using Inputs = std::vector<Tensor>;
    std::unique_ptr<EltwiseNode> node;
    switch (state.range(0)) {
        case 0: node = std::make_unique<EltwiseNode>("Add", 1, Attrs{}, Inputs{random_f32(kAct, 1), random_f32(kAct, 2)}); break;
        case 1:
            node = std::make_unique<EltwiseNode>("Multiply", 1, Attrs{},
                                                 Inputs{random_f32(kAct, 1), random_f32({1, 96, 1, 1}, 2)});
            break;
        case 2:
            node = std::make_unique<EltwiseNode>("Clamp", 1, Attrs{{"min", "0"}, {"max", "6"}}, Inputs{random_f32(kAct, 3)});
            break;
        case 3: node = std::make_unique<EltwiseNode>("ReLU", 1, Attrs{}, Inputs{random_f32(kAct, 4)}); break;
        case 4:
            node = std::make_unique<EltwiseNode>("Divide", 1, Attrs{}, Inputs{random_f32(kAct, 5), random_f32({}, 6)});
            break;
        default:
            node = std::make_unique<EltwiseNode>("Softmax", 8, Attrs{{"axis", "-1"}}, Inputs{random_f32({8, 16, 16}, 7)});
            break;
    }
    static const char* const kNames[] = {"Add", "Multiply(channel)", "Clamp", "ReLU", "Divide(scalar)", "Softmax(8x16x16)"};
    run_capped(state, *node);
    state.SetLabel(std::string(kNames[state.range(0)]) + " " + cpu::isa_name(static_cast<cpu::Isa>(state.range(1))));
}
BENCHMARK(BM_Eltwise)->ArgsProduct({{0, 1, 2, 3, 4, 5}, {0, 1, 2}})->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace irlite
