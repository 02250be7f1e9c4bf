// Profiles name the instruction-set levels each step's kernels ran at (engine/isa_trace.hpp): a
// GEMM convolution at every level this CPU supports, on one thread and on several (the workers
// record into the submitting step's trace), views as "-", and the names of level sets.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "engine/isa_trace.hpp"
#include "engine/thread_pool.hpp"
#include "irlite/irlite.hpp"
#include "ir_builder.hpp"
#include "kernels/detail/cpu_isa.hpp"

namespace irlite {
namespace {

using testing::IrBuilder;

TEST(IsaTrace, NamesLevelSetsWidestFirst) {
    EXPECT_STREQ(isa_trace_name(0), "sse");
    EXPECT_STREQ(isa_trace_name(1u << kIsaTraceSse), "sse");
    EXPECT_STREQ(isa_trace_name(1u << kIsaTraceAvx2), "avx2");
    EXPECT_STREQ(isa_trace_name(1u << kIsaTraceAvx512 | 1u << kIsaTraceAvx2), "avx512+avx2");
    EXPECT_STREQ(isa_trace_name(1u << kIsaTraceAvx512Vnni | 1u << kIsaTraceAvx512), "avx512-vnni+avx512");
    EXPECT_STREQ(isa_trace_name(1u << kIsaTraceAvxVnni | 1u << kIsaTraceSse), "avx2-vnni+sse");
}

TEST(IsaTrace, RecordsOnlyInsideAScope) {
    IsaTrace trace;
    record_isa_level(kIsaTraceAvx2);
    EXPECT_EQ(trace.levels.load(), 0u);
    {
        const IsaTraceScope scope(&trace);
        record_isa_level(kIsaTraceAvx2);
    }
    record_isa_level(kIsaTraceAvx512);
    EXPECT_EQ(trace.levels.load(), 1u << kIsaTraceAvx2);
}

// A worker records into the trace of the thread that submitted the tasks: two tasks that wait for
// each other run on two threads, the worker's records avx2 and the caller's sse.
TEST(IsaTrace, PoolWorkersRecordIntoTheSubmittersTrace) {
    ThreadPool pool(2);
    IsaTrace trace;
    const IsaTraceScope scope(&trace);
    std::atomic<int> started{0};
    pool.run(2, [&](int64_t) {
        started.fetch_add(1);
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (started.load() < 2 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
        record_isa_level(pool.current_slot() == 0 ? kIsaTraceSse : kIsaTraceAvx2);
    });
    ASSERT_EQ(started.load(), 2);
    EXPECT_EQ(trace.levels.load(), 1u << kIsaTraceSse | 1u << kIsaTraceAvx2);
}

// x [1, 16, 16, 16] -> 1x1 Convolution to 32 channels (256 columns: the GEMM at the capped level)
// -> Reshape (a view) -> y.
Model conv_then_view() {
    const std::vector<float> w(32 * 16, 0.25f);
    IrBuilder b;
    b.parameter(0, "x", "f32", {1, 16, 16, 16});
    b.constant(1, "w", "f32", {32, 16, 1, 1}, w.data(), w.size() * sizeof(float));
    b.layer(2, "conv", "Convolution", "opset1",
            "strides=\"1,1\" dilations=\"1,1\" pads_begin=\"0,0\" pads_end=\"0,0\" auto_pad=\"explicit\"",
            {{0, "", {1, 16, 16, 16}, ""}, {1, "", {32, 16, 1, 1}, ""}}, {{2, "FP32", {1, 32, 16, 16}, ""}});
    const std::vector<int64_t> shape = {1, 8192};
    b.constant(3, "shape", "i64", {2}, shape.data(), shape.size() * sizeof(int64_t));
    b.layer(4, "flat", "Reshape", "opset1", "special_zero=\"false\"", {{0, "", {1, 32, 16, 16}, ""}, {1, "", {2}, ""}},
            {{2, "FP32", {1, 8192}, "y"}});
    b.result(5, "out", "f32", {1, 8192});
    b.edge(0, 0, 2, 0).edge(1, 0, 2, 1).edge(2, 2, 4, 0).edge(3, 0, 4, 1).edge(4, 2, 5, 0);
    return Model::read_from_memory(b.xml(), b.weights().data(), b.weights().size());
}

TEST(IsaTrace, ProfileNamesTheLevelEachStepRanAt) {
    const Model model = conv_then_view();
    const std::vector<float> x(16 * 16 * 16, 1.0f);
    for (cpu::Isa cap : {cpu::Isa::Sse, cpu::Isa::Avx2, cpu::Isa::Avx512}) {
        if (!cpu::isa_supported(cap)) continue;
        for (int threads : {1, 2}) {
            SCOPED_TRACE(std::string(cpu::isa_name(cap)) + ", " + std::to_string(threads) + " threads");
            cpu::set_isa_cap_for_testing(cap);
            CompileOptions options;
            options.threads = threads;
            options.profiling = true;
            const CompiledModel compiled(model, options);
            InferRequest req = compiled.create_infer_request();
            req.set_input("x", Tensor::wrap(ElementType::f32, {1, 16, 16, 16}, const_cast<float*>(x.data())));
            for (int run = 0; run < 2; ++run) {  // the second run's trace starts afresh
                req.infer();
                std::string conv, view;
                for (const ProfileEntry& e : req.profiling()) (e.type == "Reshape" ? view : conv) += e.isa;
                EXPECT_EQ(conv, cpu::isa_name(cap));
                EXPECT_EQ(view, "-");
            }
            cpu::reset_isa_cap_for_testing();
        }
    }
}

}  // namespace
}  // namespace irlite
