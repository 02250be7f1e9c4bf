// The public API: read from memory, compile once, many infer requests, zero-copy tensors, input
// errors that say what the model expects, dynamic dims resolved at run time.
#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include "irlite/irlite.hpp"
#include "data_dependent_ir.hpp"
#include "ir_builder.hpp"

namespace irlite {
namespace {

using testing::IrBuilder;

// y = x * w + x  (w a Const), x f32 [?,3]
IrBuilder scale_model() {
    IrBuilder b;
    const float w[3] = {1.0f, 2.0f, 3.0f};
    b.parameter(0, "x", "f32", {-1, 3});
    b.constant(1, "w", "f32", {3}, w, sizeof w);
    b.layer(2, "mul", "Multiply", "opset1", "auto_broadcast=\"numpy\"", {{0, "FP32", {-1, 3}, ""}, {1, "FP32", {3}, ""}},
            {{2, "FP32", {-1, 3}, "mul"}});
    b.layer(3, "add", "Add", "opset1", "", {{0, "FP32", {-1, 3}, ""}, {1, "FP32", {-1, 3}, ""}}, {{2, "FP32", {-1, 3}, "y,y:0"}});
    b.result(4, "y/sink_port_0", "f32", {-1, 3});
    b.edge(0, 0, 2, 0).edge(1, 0, 2, 1).edge(2, 2, 3, 0).edge(0, 0, 3, 1).edge(3, 2, 4, 0);
    return b;
}

Model load(const IrBuilder& b) { return Model::read_from_memory(b.xml(), b.weights().data(), b.weights().size()); }

TEST(Runtime, PortsAndNames) {
    const CompiledModel m(load(scale_model()));
    ASSERT_EQ(m.inputs().size(), 1u);
    EXPECT_EQ(m.inputs()[0].name, "x");
    EXPECT_EQ(m.inputs()[0].shape, PartialShape({kDynamic, 3}));
    ASSERT_EQ(m.outputs().size(), 1u);
    EXPECT_EQ(m.outputs()[0].name, "y");  // first tensor name of the producing port
    EXPECT_EQ(m.outputs()[0].names, (std::vector<std::string>{"y", "y:0"}));
}

// A Parameter that feeds nothing is still an input (OpenVINO keeps it): it is listed, may be set,
// and the model runs. The graph builder used to drop it as dead, which also broke sub-graph bodies
// whose port maps count their Parameters (tests/fuzz findings).
TEST(Runtime, AnInputThatFeedsNothingStaysAnInput) {
    IrBuilder b;
    b.parameter(0, "x", "f32", {2});
    b.parameter(1, "unused", "f32", {3});
    b.layer(2, "relu", "ReLU", "opset1", "", {{0, "", {2}, ""}}, {{1, "FP32", {2}, "y"}});
    b.result(3, "out", "f32", {2});
    b.edge(0, 0, 2, 0).edge(2, 1, 3, 0);
    const CompiledModel m(load(b));
    ASSERT_EQ(m.inputs().size(), 2u);
    EXPECT_EQ(m.inputs()[1].name, "unused");
    InferRequest req = m.create_infer_request();
    float x[2] = {-1, 2}, u[3] = {0, 0, 0};
    req.set_input("x", Tensor::wrap(ElementType::f32, {2}, x));
    req.set_input("unused", Tensor::wrap(ElementType::f32, {3}, u));
    req.infer();
    const Tensor& y = req.output("y");
    EXPECT_EQ(std::vector<float>(y.data<float>(), y.data<float>() + 2), (std::vector<float>{0, 2}));
}

TEST(Runtime, DynamicBatchResolvedAtRunTime) {
    const CompiledModel m(load(scale_model()));
    InferRequest req = m.create_infer_request();
    for (int64_t batch : {1, 4, 0}) {
        std::vector<float> x(static_cast<size_t>(batch * 3), 1.0f);
        req.set_input("x", Tensor::wrap(ElementType::f32, {batch, 3}, x.data()));
        req.infer();
        const Tensor& y = req.output("y:0");
        ASSERT_EQ(y.shape(), (Shape{batch, 3}));
        for (int64_t i = 0; i < batch * 3; ++i) EXPECT_EQ(y.data<float>()[i], 1.0f + static_cast<float>(i % 3 + 1));
    }
}

template <class T>
std::vector<T> values(const Tensor& t) {
    return std::vector<T>(t.data<T>(), t.data<T>() + t.num_elements());
}

// NonZero's output lives in the request's buffer for it (DynamicOutputBuffer): a run with more
// non-zeros grows it, one with fewer gets the smaller shape in the same bytes. A copy of an output
// taken before a run that grows the buffer keeps the old memory alive (its values are valid until
// the next infer(), and it never dangles after it).
TEST(Runtime, DataDependentOutputsGrowAndShrink) {
    const CompiledModel m(load(testing::non_zero_model()));
    InferRequest req = m.create_infer_request();
    std::vector<float> x = {1, 0, 2, 0, 0, 3};
    req.set_input("x", Tensor::wrap(ElementType::f32, {2, 3}, x.data()));
    req.infer();
    const Tensor before = req.output("y");
    ASSERT_EQ(before.shape(), (Shape{2, 3}));
    EXPECT_EQ(values<int64_t>(before), (std::vector<int64_t>{0, 0, 1, 0, 2, 2}));
    x = {1, 1, 1, 1, 1, 0};
    req.infer();
    ASSERT_EQ(req.output("y").shape(), (Shape{2, 5}));
    EXPECT_EQ(values<int64_t>(req.output("y")), (std::vector<int64_t>{0, 0, 0, 1, 1, 0, 1, 2, 0, 1}));
    // The old buffer is still alive (no dangling read: the sanitizer build checks it); its bytes are
    // unspecified after the run (sanitizer builds poison every buffer before a run).
    EXPECT_EQ(values<int64_t>(before).size(), 6u);
    x = {0, 0, 0, 0, 7, 0};
    req.infer();
    ASSERT_EQ(req.output("y").shape(), (Shape{2, 1}));
    EXPECT_EQ(values<int64_t>(req.output("y")), (std::vector<int64_t>{1, 1}));
    x = {0, 0, 0, 0, 0, 0};
    req.infer();
    EXPECT_EQ(req.output("y").shape(), (Shape{2, 0}));
}

TEST(Runtime, NonMaxSuppressionOutputsGrowAndShrink) {
    const CompiledModel m(load(testing::nms_model()));
    InferRequest req = m.create_infer_request();
    std::vector<float> boxes = testing::nms_boxes();
    std::vector<float> scores = {0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f};
    req.set_input("boxes", Tensor::wrap(ElementType::f32, {1, 6, 4}, boxes.data()));
    req.set_input("scores", Tensor::wrap(ElementType::f32, {1, 1, 6}, scores.data()));
    req.infer();
    EXPECT_EQ(values<int64_t>(req.output(0)), (std::vector<int64_t>{0, 0, 3, 0, 0, 0, 0, 0, 5}));
    EXPECT_EQ(values<float>(req.output(1)), (std::vector<float>{0, 0, 0.95f, 0, 0, 0.9f, 0, 0, 0.3f}));
    EXPECT_EQ(values<int64_t>(req.output(2)), (std::vector<int64_t>{3}));
    // Six boxes apart from each other: all kept, by descending score (more rows than before).
    for (size_t i = 0; i < 6; ++i) {
        const float at = 10.0f * static_cast<float>(i);
        for (size_t j = 0; j < 4; ++j) boxes[i * 4 + j] = at + (j >= 2 ? 1.0f : 0.0f);
        scores[i] = 0.1f * static_cast<float>(i + 1);
    }
    req.infer();
    EXPECT_EQ(values<int64_t>(req.output(0)), (std::vector<int64_t>{0, 0, 5, 0, 0, 4, 0, 0, 3, 0, 0, 2, 0, 0, 1, 0, 0, 0}));
    EXPECT_EQ(req.output(1).shape(), (Shape{6, 3}));
    EXPECT_EQ(values<int64_t>(req.output(2)), (std::vector<int64_t>{6}));
    // One score above the threshold: one row.
    scores = {-1, -1, 0.5f, -1, -1, -1};
    req.infer();
    EXPECT_EQ(values<int64_t>(req.output(0)), (std::vector<int64_t>{0, 0, 2}));
    EXPECT_EQ(values<float>(req.output(1)), (std::vector<float>{0, 0, 0.5f}));
    EXPECT_EQ(values<int64_t>(req.output(2)), (std::vector<int64_t>{1}));
}

TEST(Runtime, InputErrorsListWhatTheModelExpects) {
    const CompiledModel m(load(scale_model()));
    InferRequest req = m.create_infer_request();
    try {
        req.infer();
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), "input-missing");
        EXPECT_NE(e.message().find("'x' f32 [?,3]"), std::string::npos) << e.what();
    }
    try {
        req.set_input("nope", Tensor(ElementType::f32, {1, 3}));
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), "input-unknown");
        EXPECT_NE(e.message().find("'x'"), std::string::npos);
    }
    struct Row {
        const char* name;
        Tensor t;
    };
    const Row rows[] = {{"dtype", Tensor(ElementType::f64, {1, 3})},
                        {"rank", Tensor(ElementType::f32, {3})},
                        {"dims", Tensor(ElementType::f32, {1, 4})}};
    for (const auto& row : rows) {
        req.set_input(0, row.t);
        try {
            req.infer();
            FAIL() << row.name;
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::Input) << row.name;
            EXPECT_NE(e.message().find("expected f32 [?,3]"), std::string::npos) << e.what();
            EXPECT_EQ(e.location().layer_name, "x");
        }
    }
}

TEST(Runtime, RequestsAreIndependentAndShareTheModel) {
    const CompiledModel m(load(scale_model()));
    auto run = [&](float v, int rounds) {
        InferRequest req = m.create_infer_request();
        std::vector<float> x(6, v);
        req.set_input("x", Tensor::wrap(ElementType::f32, {2, 3}, x.data()));
        for (int r = 0; r < rounds; ++r) {
            req.infer();
            for (int i = 0; i < 6; ++i) ASSERT_EQ(req.output(0).data<float>()[i], v * static_cast<float>(i % 3 + 2));
        }
    };
    std::thread a(run, 1.0f, 200), b(run, 3.0f, 200);
    a.join();
    b.join();
}

// Outputs live in the request's memory until the next infer(); a copy (or set_output) keeps one.
TEST(Runtime, OutputsStayValidUntilTheNextInfer) {
    const CompiledModel m(load(scale_model()));
    InferRequest req = m.create_infer_request();
    std::vector<float> x(3, 1.0f);
    req.set_input("x", Tensor::wrap(ElementType::f32, {1, 3}, x.data()));
    req.infer();
    const Tensor first = req.output(0).clone();
    const void* where = req.output(0).data();
    x.assign(3, 2.0f);
    req.infer();
    EXPECT_EQ(first.data<float>()[0], 2.0f);
    EXPECT_EQ(req.output(0).data<float>()[0], 4.0f);
    EXPECT_EQ(req.output(0).data(), where) << "the request reuses its memory";
}

TEST(Runtime, SetOutputWritesIntoTheCallersMemory) {
    const CompiledModel m(load(scale_model()));
    InferRequest req = m.create_infer_request();
    std::vector<float> x(3, 1.0f), y(3, -1.0f);
    req.set_input("x", Tensor::wrap(ElementType::f32, {1, 3}, x.data()));
    req.set_output(0, Tensor::wrap(ElementType::f32, {1, 3}, y.data()));
    req.infer();
    EXPECT_EQ(y[0], 2.0f);
    EXPECT_EQ(req.output(0).data(), y.data());
    x.assign(3, 2.0f);
    req.infer();
    EXPECT_EQ(y[0], 4.0f);
    // Checked for type and shape, and undone with an empty tensor.
    std::vector<int32_t> wrong(3);
    EXPECT_THROW(req.set_output(0, Tensor::wrap(ElementType::i32, {1, 3}, wrong.data())), Error);
    EXPECT_THROW(req.set_output(0, Tensor::wrap(ElementType::f32, {3, 1}, y.data())), Error);
    EXPECT_THROW(req.set_output("no_such_output", Tensor::wrap(ElementType::f32, {1, 3}, y.data())), Error);
    req.set_output(0, Tensor());
    req.infer();
    EXPECT_NE(req.output(0).data(), y.data());
}

TEST(Runtime, ReadErrorsNameTheFile) {
    try {
        Model::read("/nonexistent/model.xml");
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Io);
        EXPECT_NE(std::string(e.what()).find("/nonexistent/model.xml"), std::string::npos);
    }
    try {
        Model::read_from_memory("<net version=\"11\"><layers>", nullptr, 0);
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Parse);
    }
}

TEST(Runtime, ConstWithoutWeightsIsAClearError) {
    const IrBuilder b = scale_model();
    try {
        CompiledModel m(Model::read_from_memory(b.xml(), nullptr, 0));
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), "bin-missing");
        EXPECT_EQ(e.location().layer_name, "w");
    }
}

}  // namespace
}  // namespace irlite

namespace irlite {
namespace {

// A view of a view of an input (Slice along axis 0, then Reshape) has no memory until the input
// is bound: making the request must not compute an address from nothing (fuzz_graph found it).
TEST(Runtime, ViewOfAnInputViewBeforeBinding) {
    testing::IrBuilder b;
    const int64_t start = 1, stop = 3, step = 1, axis = 0, flat[1] = {-1};
    b.parameter(0, "x", "f32", {4, 3});
    b.constant(1, "start", "i64", {1}, &start, sizeof start);
    b.constant(2, "stop", "i64", {1}, &stop, sizeof stop);
    b.constant(3, "step", "i64", {1}, &step, sizeof step);
    b.constant(4, "axes", "i64", {1}, &axis, sizeof axis);
    b.layer(5, "slice", "Slice", "opset8", "",
            {{0, "", {4, 3}, ""}, {1, "", {1}, ""}, {2, "", {1}, ""}, {3, "", {1}, ""}, {4, "", {1}, ""}},
            {{5, "FP32", {2, 3}, ""}});
    b.constant(6, "flat", "i64", {1}, flat, sizeof flat);
    b.layer(7, "reshape", "Reshape", "opset1", "special_zero=\"false\"", {{0, "", {2, 3}, ""}, {1, "", {1}, ""}},
            {{2, "FP32", {6}, "y"}});
    b.result(8, "out", "f32", {6});
    b.edge(0, 0, 5, 0).edge(1, 0, 5, 1).edge(2, 0, 5, 2).edge(3, 0, 5, 3).edge(4, 0, 5, 4).edge(5, 5, 7, 0);
    b.edge(6, 0, 7, 1).edge(7, 2, 8, 0);
    const CompiledModel m(Model::read_from_memory(b.xml(), b.weights().data(), b.weights().size()));
    InferRequest req = m.create_infer_request();
    std::vector<float> x(12);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
    req.set_input("x", Tensor::wrap(ElementType::f32, {4, 3}, x.data()));
    req.infer();
    EXPECT_EQ(req.output(0).data<float>(), x.data() + 3) << "an O(1) view of the input";
    EXPECT_EQ(req.output(0).data<float>()[5], 8.0f);
}

// MaxPool-8's indices: computed when a Result reads them, skipped when nothing does (the step's
// unused-output bit); the pooled values are the same either way.
IrBuilder max_pool_model(bool indices_are_output) {
    IrBuilder b;
    b.parameter(0, "x", "f32", {1, 2, 4, 4});
    b.layer(1, "pool", "MaxPool", "opset8",
            "strides=\"2,2\" dilations=\"1,1\" pads_begin=\"0,0\" pads_end=\"0,0\" kernel=\"2,2\" "
            "rounding_type=\"floor\" auto_pad=\"explicit\" index_element_type=\"i64\" axis=\"0\"",
            {{0, "FP32", {1, 2, 4, 4}, ""}}, {{1, "FP32", {1, 2, 2, 2}, "y"}, {2, "I64", {1, 2, 2, 2}, "idx"}});
    b.result(2, "y/sink_port_0", "f32", {1, 2, 2, 2});
    b.edge(0, 0, 1, 0).edge(1, 1, 2, 0);
    if (indices_are_output) {
        b.result(3, "idx/sink_port_0", "i64", {1, 2, 2, 2});
        b.edge(1, 2, 3, 0);
    }
    return b;
}

TEST(Runtime, UnreadOutputsAreSkippedReadOnesComputed) {
    std::vector<float> x(32);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7) % 32);
    std::vector<float> pooled[2];
    for (int with_indices = 0; with_indices < 2; ++with_indices) {
        const CompiledModel compiled(load(max_pool_model(with_indices == 1)));
        InferRequest req = compiled.create_infer_request();
        req.set_input(0, Tensor::wrap(ElementType::f32, {1, 2, 4, 4}, x.data()));
        req.infer();
        const Tensor& y = req.output("y");
        pooled[with_indices].assign(y.data<float>(), y.data<float>() + 8);
        if (with_indices == 0) continue;
        const Tensor& idx = req.output("idx");
        for (int64_t i = 0; i < 8; ++i) {
            const int64_t at = idx.data<int64_t>()[i];
            ASSERT_GE(at, 0);
            ASSERT_LT(at, 32);
            EXPECT_EQ(x[static_cast<size_t>(at)], y.data<float>()[i]) << i;
        }
    }
    EXPECT_EQ(pooled[0], pooled[1]);
}

// Model::reshape: a static Parameter given another batch; the other layers' declared dims (for the
// old batch) no longer bind; models compiled before keep the old shape; unknown names are errors.
TEST(Runtime, ReshapeBeforeCompile) {
    IrBuilder b;
    b.parameter(0, "x", "f32", {1, 3});
    b.layer(1, "twice", "Add", "opset1", "", {{0, "FP32", {1, 3}, ""}, {1, "FP32", {1, 3}, ""}}, {{2, "FP32", {1, 3}, "y"}});
    b.result(2, "y/sink_port_0", "f32", {1, 3});
    b.edge(0, 0, 1, 0).edge(0, 0, 1, 1).edge(1, 2, 2, 0);
    Model model = load(b);
    const CompiledModel before(model);
    model.reshape({{"x", PartialShape({4, 3})}});
    const CompiledModel after(model);
    EXPECT_EQ(before.inputs()[0].shape, PartialShape({1, 3}));
    EXPECT_EQ(after.inputs()[0].shape, PartialShape({4, 3}));
    EXPECT_EQ(after.outputs()[0].shape, PartialShape({4, 3}));
    std::vector<float> x(12);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
    InferRequest req = after.create_infer_request();
    req.set_input(0, Tensor::wrap(ElementType::f32, {4, 3}, x.data()));
    req.infer();
    ASSERT_EQ(req.output(0).shape(), Shape({4, 3}));
    for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(req.output(0).data<float>()[i], 2.0f * x[i]);
    // A dim may stay dynamic; a tensor name works as well as the layer name.
    model.reshape({{"x", PartialShape({kDynamic, 3})}});
    EXPECT_EQ(CompiledModel(model).inputs()[0].shape, PartialShape({kDynamic, 3}));
    try {
        model.reshape({{"nope", PartialShape({2, 3})}});
        FAIL() << "no error for an unknown input";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), "reshape-unknown-input");
        EXPECT_NE(e.message().find("'x'"), std::string::npos) << e.what();
    }
}

// Before compiling: the declared inputs, outputs and ops; irlite's version and op list.
TEST(Runtime, ModelIntrospectionAndVersion) {
    const Model model = load(scale_model());
    const std::vector<PortInfoDeclared> in = model.inputs();
    ASSERT_EQ(in.size(), 1u);
    EXPECT_EQ(in[0].name, "x");
    EXPECT_EQ(in[0].element_type, "f32");
    EXPECT_EQ(in[0].shape, PartialShape({kDynamic, 3}));
    const std::vector<PortInfoDeclared> out = model.outputs();
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].name, "y");
    EXPECT_EQ(out[0].names, (std::vector<std::string>{"y", "y:0"}));
    EXPECT_EQ(out[0].shape, PartialShape({kDynamic, 3}));
    EXPECT_EQ(model.ops(), (std::vector<std::string>{"Parameter-1", "Const-1", "Multiply-1", "Add-1", "Result-1"}));
    EXPECT_STREQ(version(), "0.1.0");
    const std::vector<SupportedOp> ops = supported_ops();
    EXPECT_GT(ops.size(), 150u);
    const auto slice = std::find_if(ops.begin(), ops.end(), [](const SupportedOp& o) { return o.type == "Slice"; });
    ASSERT_NE(slice, ops.end());
    EXPECT_EQ(slice->version, 8);
    EXPECT_EQ(slice->first_opset, 8);
}

}  // namespace
}  // namespace irlite
