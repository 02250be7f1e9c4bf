// Steady-state infer() of a model with static shapes performs no heap allocation (the property
// that keeps small models fast). Counted at the lowest level: alloc_counter.hpp interposes malloc
// and its siblings (glibc) as well as operator new, so that allocations inside Eigen or the C++
// runtime count too, as an LD_PRELOAD shim would count them. Not built with sanitizers, which own
// malloc themselves.
#define IRLITE_ALLOC_COUNTER_DEFINE_OPERATORS
#include "alloc_counter.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "irlite/irlite.hpp"
#include "compressed_ir.hpp"
#include "data_dependent_ir.hpp"
#include "ir_builder.hpp"
#include "subgraph_ir.hpp"
#include "subgraph_static_ir.hpp"
#include "temp_dir.hpp"
#include "parser/npy.hpp"

namespace irlite {
namespace {

namespace fs = std::filesystem;

// Allocations made by `runs` inferences after two warm-up runs (inputs zero-filled).
long allocations_per_run(const CompiledModel& compiled, int runs = 5) {
    InferRequest request = compiled.create_infer_request();
    std::vector<Tensor> inputs;
    for (size_t i = 0; i < compiled.inputs().size(); ++i) {
        const PortInfo& p = compiled.inputs()[i];
        inputs.push_back(Tensor(p.type, p.shape.to_shape()));
        request.set_input(i, inputs.back());
    }
    request.infer();
    request.infer();
    testing::AllocationCounter counter;
    for (int r = 0; r < runs; ++r) request.infer();
    return static_cast<long>(counter.stop()) / runs;
}

long allocations_per_run(const std::string& xml, int runs = 5) {
    return allocations_per_run(CompiledModel(Model::read(xml)), runs);
}

TEST(ZeroAllocation, CounterSeesAllocations) {
    testing::AllocationCounter counter;
    void* volatile p = std::malloc(16);
    int* volatile q = new int[4];
    const long allocations = static_cast<long>(counter.stop());
    std::free(p);
    delete[] q;
    EXPECT_GE(allocations, 2) << "the counter must be able to fail";
}

TEST(ZeroAllocation, DemoModel) {
    EXPECT_EQ(allocations_per_run(std::string(IRLITE_SOURCE_DIR) + "/models/demo/model.xml"), 0);
}

TEST(ZeroAllocation, RealModels) {
    const fs::path shared = fs::path(IRLITE_SOURCE_DIR) / ".." / "shared" / "models-real";
    if (!fs::exists(shared)) GTEST_SKIP() << "the shared corpora are not beside this clone";
    for (const char* name : {"mlp", "lenet5", "resnet18", "mobilenet_v2", "squeezenet1_1", "transformer"}) {
        SCOPED_TRACE(name);
        EXPECT_EQ(allocations_per_run((shared / name / "model.xml").string()), 0) << name;
    }
}

// FP16 IR computed in f32 (engine/precision.hpp): the conversions at the boundary allocate nothing
// either.
TEST(ZeroAllocation, F16Models) {
    const fs::path shared = fs::path(IRLITE_SOURCE_DIR) / ".." / "shared" / "models-fp16";
    if (!fs::exists(shared)) GTEST_SKIP() << "the shared corpora are not beside this clone";
    for (const char* name : {"resnet18_fp16", "mobilenet_v2_fp16", "squeezenet1_1_fp16", "transformer_fp16"}) {
        SCOPED_TRACE(name);
        EXPECT_EQ(allocations_per_run((shared / name / "model.xml").string()), 0) << name;
    }
    // A real Open Model Zoo FP16 file, with PReLU (its f32 slopes on f16 data converted once).
    const fs::path landmarks = shared / ".." / "wild-ir" / "omz_landmarks_regression_retail_0009_fp16_v10" / "model.xml";
    if (fs::exists(landmarks)) {
        EXPECT_EQ(allocations_per_run(landmarks.string()), 0);
    }
}

// INT8 IR (engine/low_precision.hpp): the int8 convolutions quantize, gather and multiply in the
// plan's scratch; the FakeQuantizes left in float allocate nothing either.
TEST(ZeroAllocation, Int8Models) {
    const fs::path shared = fs::path(IRLITE_SOURCE_DIR) / ".." / "shared" / "models-int8";
    if (!fs::exists(shared)) GTEST_SKIP() << "the shared corpora are not beside this clone";
    for (const char* name : {"resnet18_int8", "mobilenet_v2_int8", "squeezenet1_1_int8", "resnet18_fp16_int8"}) {
        SCOPED_TRACE(name);
        EXPECT_EQ(allocations_per_run((shared / name / "model.xml").string()), 0) << name;
    }
}

// Compressed-weight MatMul (engine/weight_compression.hpp): A reordered in the plan's scratch, the
// weights unpacked in registers.
TEST(ZeroAllocation, CompressedWeightMatMul) {
    for (const char* format : {"u4", "i8"}) {
        testing::CompressedLinear c;
        c.format = format;
        c.rows = 2;
        c.bias = true;
        c.f16 = true;
        const testing::BuiltLinear b = testing::build_compressed_linear(c);
        const testing::TempDir dir;
        const std::string xml = dir.write("model.xml", b.xml);
        dir.write("model.bin", std::string(b.weights.begin(), b.weights.end()));
        EXPECT_EQ(allocations_per_run(xml), 0) << format;
    }
}

// The recurrent ops (kernels/detail/recurrent.hpp): packed weights, projections, gates and states
// in the plan and in scratch; f16 models computed in f32. Sequence lengths are Consts in the ONNX
// cases, zeros (a Parameter filled with zeros: no step, the initial state) in the others.
TEST(ZeroAllocation, RecurrentOps) {
    const fs::path shared = fs::path(IRLITE_SOURCE_DIR) / ".." / "shared" / "conformance" / "subgraphs";
    if (!fs::exists(shared)) GTEST_SKIP() << "the shared corpora are not beside this clone";
    for (const char* name : {"lstmcell4_basic", "lstmsequence5_onnx_lstm_batchwise", "lstmsequence5_f16", "grucell3_lbr",
                             "grusequence5_onnx_gru_with_initial_bias", "grusequence5_seq_len_short_bidir_lbr",
                             "rnncell3_f16", "rnnsequence5_onnx_rnn_seq_length"}) {
        SCOPED_TRACE(name);
        EXPECT_EQ(allocations_per_run((shared / name / "model.xml").string()), 0) << name;
    }
}

// A model with a dynamic batch is planned again when the input shapes change, and only then: a
// run with the shapes of the previous one allocates nothing.
TEST(ZeroAllocation, DynamicModelReplansOnlyWhenShapesChange) {
    testing::IrBuilder b;
    const float w[3] = {1.0f, 2.0f, 3.0f};
    b.parameter(0, "x", "f32", {-1, 3});
    b.constant(1, "w", "f32", {3}, w, sizeof w);
    b.layer(2, "mul", "Multiply", "opset1", "", {{0, "FP32", {-1, 3}, ""}, {1, "FP32", {3}, ""}}, {{2, "FP32", {-1, 3}, ""}});
    b.layer(3, "relu", "ReLU", "opset1", "", {{0, "FP32", {-1, 3}, ""}}, {{1, "FP32", {-1, 3}, "y"}});
    b.result(4, "out", "f32", {-1, 3});
    b.edge(0, 0, 2, 0).edge(1, 0, 2, 1).edge(2, 2, 3, 0).edge(3, 1, 4, 0);
    const CompiledModel compiled(Model::read_from_memory(b.xml(), b.weights().data(), b.weights().size()));
    InferRequest request = compiled.create_infer_request();
    std::vector<float> two(6, 1.0f), five(15, 2.0f);
    const Tensor x2 = Tensor::wrap(ElementType::f32, {2, 3}, two.data());
    const Tensor x5 = Tensor::wrap(ElementType::f32, {5, 3}, five.data());
    const auto count = [&](const Tensor& x) {
        request.set_input(0, x);
        testing::AllocationCounter counter;
        request.infer();
        return static_cast<long>(counter.stop());
    };
    EXPECT_GT(count(x2), 0) << "the first run of a shape plans it";
    EXPECT_EQ(count(x2), 0);
    EXPECT_GT(count(x5), 0) << "new shapes, new plan";
    EXPECT_EQ(count(x5), 0);
    EXPECT_EQ(request.output(0).shape(), (Shape{5, 3}));
    EXPECT_EQ(request.output(0).data<float>()[14], 6.0f);
}

// Outputs whose size depends on the values (NonZero, NonMaxSuppression-5+) live in buffers of the
// request that grow to the largest size a run needs: a run that needs no more than an earlier one
// allocates nothing, whether its output is as large or smaller.
long allocations_of_infer(InferRequest& request) {
    testing::AllocationCounter counter;
    request.infer();
    return static_cast<long>(counter.stop());
}

TEST(ZeroAllocation, NonZeroReusesItsOutputBuffer) {
    const testing::IrBuilder b = testing::non_zero_model();
    const CompiledModel compiled(Model::read_from_memory(b.xml(), b.weights().data(), b.weights().size()));
    InferRequest request = compiled.create_infer_request();
    std::vector<float> x = {1, 0, 2, 0, 0, 3};
    request.set_input(0, Tensor::wrap(ElementType::f32, {2, 3}, x.data()));
    request.infer();
    EXPECT_EQ(allocations_of_infer(request), 0);
    EXPECT_EQ(request.output(0).shape(), (Shape{2, 3}));
    x = {1, 1, 1, 1, 1, 0};
    EXPECT_GT(allocations_of_infer(request), 0) << "five coordinates need more bytes than three: the buffer grows";
    EXPECT_EQ(allocations_of_infer(request), 0);
    EXPECT_EQ(request.output(0).shape(), (Shape{2, 5}));
    x = {0, 0, 0, 0, 7, 0};
    EXPECT_EQ(allocations_of_infer(request), 0);
    ASSERT_EQ(request.output(0).shape(), (Shape{2, 1}));
    EXPECT_EQ(request.output(0).data<int64_t>()[0], 1);
    EXPECT_EQ(request.output(0).data<int64_t>()[1], 1);
}

TEST(ZeroAllocation, NonMaxSuppressionReusesItsOutputBuffers) {
    const testing::IrBuilder b = testing::nms_model();
    const CompiledModel compiled(Model::read_from_memory(b.xml(), b.weights().data(), b.weights().size()));
    InferRequest request = compiled.create_infer_request();
    const std::vector<float> boxes = testing::nms_boxes();
    std::vector<float> scores = {0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f};
    request.set_input(0, Tensor::wrap(ElementType::f32, {1, 6, 4}, const_cast<float*>(boxes.data())));
    request.set_input(1, Tensor::wrap(ElementType::f32, {1, 1, 6}, scores.data()));
    request.infer();
    EXPECT_EQ(allocations_of_infer(request), 0);
    EXPECT_EQ(request.output(0).shape(), (Shape{3, 3}));
    scores = {-1, -1, 0.5f, -1, -1, -1};
    EXPECT_EQ(allocations_of_infer(request), 0);
    ASSERT_EQ(request.output(0).shape(), (Shape{1, 3}));
    EXPECT_EQ(request.output(0).data<int64_t>()[2], 2);
    EXPECT_EQ(request.output(2).data<int64_t>()[0], 1);
}

// Sub-graphs (kernels/graph/iteration_run.cpp, if.cpp): the body is built and planned when the
// model is compiled, and its runner (arena), the back edges' buffers and the gathered outputs are
// the request's, kept from the first run on (OpState). Sliced inputs are views (axis 0) or copies
// into the body's buffers (an inner axis); a count known at compile time writes the concatenated
// outputs in place, one known at run time gathers them in buffers that keep their capacity.
TEST(ZeroAllocation, TensorIteratorRunsInItsRequestState) {
    for (const std::string& xml : {testing::ti_running_sum(), testing::ti_column_sum()}) {
        EXPECT_EQ(allocations_per_run(CompiledModel(Model::read_from_memory(xml, nullptr, 0))), 0);
        CompileOptions one_thread;
        one_thread.threads = 1;
        EXPECT_EQ(allocations_per_run(CompiledModel(Model::read_from_memory(xml, nullptr, 0), one_thread)), 0);
    }
}

TEST(ZeroAllocation, LoopRunsInItsRequestState) {
    // Three iterations known at compile time: the outputs are written in place.
    EXPECT_EQ(allocations_per_run(CompiledModel(Model::read_from_memory(testing::loop_fixed_count(), nullptr, 0))), 0);
    // A count known only at run time: the concatenation is gathered, then made in the request's
    // output buffer, which grows to the longest loop and no further.
    const CompiledModel compiled(Model::read_from_memory(testing::loop_accumulate(), nullptr, 0));
    InferRequest request = compiled.create_infer_request();
    int64_t trip = 3, limit = 100;
    bool cond = true;
    std::vector<float> acc0 = {1, 2}, x = {10, 100};
    request.set_input("trip", Tensor::wrap(ElementType::i64, {}, &trip));
    request.set_input("cond", Tensor::wrap(ElementType::boolean, {}, &cond));
    request.set_input("acc0", Tensor::wrap(ElementType::f32, {1, 2}, acc0.data()));
    request.set_input("x", Tensor::wrap(ElementType::f32, {1, 2}, x.data()));
    request.set_input("limit", Tensor::wrap(ElementType::i64, {}, &limit));
    request.infer();
    EXPECT_EQ(allocations_of_infer(request), 0);
    EXPECT_EQ(request.output("all").shape(), (Shape{3, 2}));
    trip = 2;
    EXPECT_EQ(allocations_of_infer(request), 0);
    EXPECT_EQ(request.output("all").shape(), (Shape{2, 2}));
    EXPECT_EQ(request.output("acc").data<float>()[1], 202.0f);
}

TEST(ZeroAllocation, IfRunsInItsRequestState) {
    const CompiledModel compiled(Model::read_from_memory(testing::if_two_shapes(), nullptr, 0));
    InferRequest request = compiled.create_infer_request();
    std::vector<float> a = {1, 2}, b = {7, 8, 9};
    bool cond = false;
    request.set_input("cond", Tensor::wrap(ElementType::boolean, {}, &cond));
    request.set_input("a", Tensor::wrap(ElementType::f32, {2}, a.data()));
    request.set_input("b", Tensor::wrap(ElementType::f32, {3}, b.data()));
    request.infer();  // else_body's runner, and the output's buffer at its larger size
    cond = true;
    request.infer();  // then_body's runner
    for (const bool c : {false, true, false}) {
        cond = c;
        EXPECT_EQ(allocations_of_infer(request), 0) << c;
        EXPECT_EQ(request.output("out").shape(), (Shape{c ? 2 : 3}));
    }
}

}  // namespace
}  // namespace irlite
