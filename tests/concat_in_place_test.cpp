// Concat written in place by its producers (OpPlan::input_slices): when every input of a Concat
// along an axis with only 1s before it is an arena buffer that only the Concat reads, each input
// becomes a view of the Concat's output, so its producer writes there and the Concat step is
// skipped. Checked on the plan (which values are views, which steps run) and on the results, and
// the cases that must keep the copy.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "engine/execution_plan.hpp"
#include "engine/graph.hpp"
#include "irlite/irlite.hpp"
#include "ir_builder.hpp"
#include "kernels/all_ops.hpp"
#include "op_tester.hpp"

namespace irlite {
namespace {

using testing::IrBuilder;

struct Built {
    Model model;
    std::shared_ptr<const ExecutionPlan> plan;
};

Built build(const IrBuilder& b) {
    const auto bin = std::make_shared<std::vector<unsigned char>>(b.weights());
    Model model = Model::read_from_memory(b.xml(), bin->data(), bin->size(), bin);
    const BuildResult g = build_graph(model.document_ptr(), builtin_ops());
    return {model, make_execution_plan(g.graph, "test")};
}

const ExecStep& step_named(const ExecutionPlan& plan, const std::string& name) {
    for (const ExecStep& step : plan.steps)
        if (plan.graph->nodes[static_cast<size_t>(step.node)].layer->name == name) return step;
    throw std::runtime_error("no step " + name);
}

std::vector<float> run(const Model& model, const std::vector<float>& x, const Shape& shape) {
    const CompiledModel compiled(model);
    InferRequest request = compiled.create_infer_request();
    std::vector<float> in = x;
    request.set_input(0, Tensor::wrap(ElementType::f32, shape, in.data()));
    request.infer();
    return testing::values_of<float>(request.output(0));
}

// x [1, C, H, W] -> Relu (a), Sigmoid (b) -> Concat(a, b, axis) -> [extra consumer of a] -> Result.
IrBuilder fire_model(long long c, long long h, long long w, int axis, bool a_also_an_output) {
    IrBuilder b;
    const std::vector<long long> in = {1, c, h, w};
    std::vector<long long> out = in;
    out[static_cast<size_t>(axis)] *= 2;
    b.parameter(0, "x", "f32", in);
    b.layer(1, "a", "Relu", "opset1", "", {{0, "FP32", in, ""}}, {{1, "FP32", in, ""}});
    b.layer(2, "b", "Sigmoid", "opset1", "", {{0, "FP32", in, ""}}, {{1, "FP32", in, ""}});
    b.layer(3, "cat", "Concat", "opset1", "axis=\"" + std::to_string(axis) + "\"",
            {{0, "FP32", in, ""}, {1, "FP32", in, ""}}, {{2, "FP32", out, ""}});
    b.result(4, "y", "f32", out);
    b.edge(0, 0, 1, 0).edge(0, 0, 2, 0).edge(1, 1, 3, 0).edge(2, 1, 3, 1).edge(3, 2, 4, 0);
    if (a_also_an_output) {
        b.result(5, "a_out", "f32", in);
        b.edge(1, 1, 5, 0);
    }
    return b;
}

std::vector<float> ramp(size_t n) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i % 7) - 3.0f;
    return v;
}

// The expected Concat(Relu(x), Sigmoid(x)) along `axis` of [1, C, H, W].
std::vector<float> expected_fire(const std::vector<float>& x, int64_t c, int64_t h, int64_t w, int axis) {
    const int64_t outer = axis == 1 ? 1 : axis == 2 ? c : c * h;
    const int64_t inner = static_cast<int64_t>(x.size()) / outer;
    std::vector<float> y;
    for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) y.push_back(std::max(x[static_cast<size_t>(o * inner + i)], 0.0f));
        for (int64_t i = 0; i < inner; ++i) y.push_back(1.0f / (1.0f + std::exp(-x[static_cast<size_t>(o * inner + i)])));
    }
    (void)w;
    return y;
}

TEST(ConcatInPlace, ProducersWriteIntoTheOutputAndTheConcatIsSkipped) {
    const Built m = build(fire_model(16, 4, 4, 1, false));
    const ExecutionPlan& plan = *m.plan;
    EXPECT_EQ(step_named(plan, "cat").mode, ExecStep::Mode::Skip);
    const ExecStep& a = step_named(plan, "a");
    const ExecStep& b = step_named(plan, "b");
    const ExecStep& cat = step_named(plan, "cat");
    EXPECT_EQ(a.mode, ExecStep::Mode::Kernel);
    const ValueSlot& va = plan.values[static_cast<size_t>(a.first_output)];
    const ValueSlot& vb = plan.values[static_cast<size_t>(b.first_output)];
    ASSERT_EQ(va.kind, ValueSlot::Kind::View);
    ASSERT_EQ(vb.kind, ValueSlot::Kind::View);
    EXPECT_EQ(va.base, cat.first_output);
    EXPECT_EQ(vb.base, cat.first_output);
    EXPECT_EQ(va.byte_offset, 0u);
    EXPECT_EQ(vb.byte_offset, 16u * 4 * 4 * sizeof(float));
    const std::vector<float> x = ramp(16 * 4 * 4);
    const std::vector<float> y = run(m.model, x, {1, 16, 4, 4});
    const std::vector<float> want = expected_fire(x, 16, 4, 4, 1);
    ASSERT_EQ(y.size(), want.size());
    for (size_t i = 0; i < y.size(); ++i) EXPECT_FLOAT_EQ(y[i], want[i]) << i;
}

TEST(ConcatInPlace, CopiesWhenAnInputCannotBeWrittenInPlace) {
    struct Case {
        const char* name;
        long long c, h, w;
        int axis;
        bool a_also_an_output;
    };
    const Case cases[] = {
        {"an input is also a model output", 16, 4, 4, 1, true},
        {"the inputs interleave (channels before the axis)", 16, 4, 4, 2, false},
        {"a slice would start unaligned (3 floats per input)", 3, 1, 1, 1, false},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        const Built m = build(fire_model(c.c, c.h, c.w, c.axis, c.a_also_an_output));
        EXPECT_EQ(step_named(*m.plan, "cat").mode, ExecStep::Mode::Kernel);
        EXPECT_EQ(m.plan->values[static_cast<size_t>(step_named(*m.plan, "a").first_output)].kind, ValueSlot::Kind::Arena);
        const std::vector<float> x = ramp(static_cast<size_t>(c.c * c.h * c.w));
        const std::vector<float> y = run(m.model, x, {1, c.c, c.h, c.w});
        const std::vector<float> want = expected_fire(x, c.c, c.h, c.w, c.axis);
        ASSERT_EQ(y.size(), want.size());
        for (size_t i = 0; i < y.size(); ++i) EXPECT_FLOAT_EQ(y[i], want[i]) << i;
    }
}

TEST(ConcatInPlace, AModelInputIsCopied) {
    // Concat(x, Relu(x)): x is the caller's buffer, so the Concat copies.
    IrBuilder b;
    const std::vector<long long> in = {1, 16, 2, 2}, out = {1, 32, 2, 2};
    b.parameter(0, "x", "f32", in);
    b.layer(1, "a", "Relu", "opset1", "", {{0, "FP32", in, ""}}, {{1, "FP32", in, ""}});
    b.layer(2, "cat", "Concat", "opset1", "axis=\"1\"", {{0, "FP32", in, ""}, {1, "FP32", in, ""}}, {{2, "FP32", out, ""}});
    b.result(3, "y", "f32", out);
    b.edge(0, 0, 1, 0).edge(0, 0, 2, 0).edge(1, 1, 2, 1).edge(2, 2, 3, 0);
    const Built m = build(b);
    EXPECT_EQ(step_named(*m.plan, "cat").mode, ExecStep::Mode::Kernel);
    const std::vector<float> x = ramp(64);
    const std::vector<float> y = run(m.model, x, {1, 16, 2, 2});
    for (size_t i = 0; i < 64; ++i) {
        EXPECT_EQ(y[i], x[i]);
        EXPECT_EQ(y[64 + i], std::max(x[i], 0.0f));
    }
}

TEST(ConcatInPlace, ChainedFireModulesKeepTheirValues) {
    // Two fire modules: the second reads the first's Concat (written in place) and writes its own
    // Concat in place; the first's output must stay intact while the second's producers run.
    IrBuilder b;
    const std::vector<long long> s1 = {1, 8, 4, 4}, s2 = {1, 16, 4, 4}, s3 = {1, 32, 4, 4};
    b.parameter(0, "x", "f32", s1);
    b.layer(1, "a1", "Relu", "opset1", "", {{0, "FP32", s1, ""}}, {{1, "FP32", s1, ""}});
    b.layer(2, "b1", "Sigmoid", "opset1", "", {{0, "FP32", s1, ""}}, {{1, "FP32", s1, ""}});
    b.layer(3, "cat1", "Concat", "opset1", "axis=\"1\"", {{0, "FP32", s1, ""}, {1, "FP32", s1, ""}}, {{2, "FP32", s2, ""}});
    b.layer(4, "a2", "Relu", "opset1", "", {{0, "FP32", s2, ""}}, {{1, "FP32", s2, ""}});
    b.layer(5, "b2", "Negative", "opset1", "", {{0, "FP32", s2, ""}}, {{1, "FP32", s2, ""}});
    b.layer(6, "cat2", "Concat", "opset1", "axis=\"1\"", {{0, "FP32", s2, ""}, {1, "FP32", s2, ""}}, {{2, "FP32", s3, ""}});
    b.result(7, "y", "f32", s3);
    b.edge(0, 0, 1, 0).edge(0, 0, 2, 0).edge(1, 1, 3, 0).edge(2, 1, 3, 1);
    b.edge(3, 2, 4, 0).edge(3, 2, 5, 0).edge(4, 1, 6, 0).edge(5, 1, 6, 1).edge(6, 2, 7, 0);
    const Built m = build(b);
    EXPECT_EQ(step_named(*m.plan, "cat1").mode, ExecStep::Mode::Skip);
    EXPECT_EQ(step_named(*m.plan, "cat2").mode, ExecStep::Mode::Skip);
    const std::vector<float> x = ramp(128);
    const std::vector<float> y = run(m.model, x, {1, 8, 4, 4});
    std::vector<float> c1 = expected_fire(x, 8, 4, 4, 1);
    ASSERT_EQ(y.size(), 512u);
    for (size_t i = 0; i < 256; ++i) {
        EXPECT_FLOAT_EQ(y[i], std::max(c1[i], 0.0f)) << i;
        EXPECT_FLOAT_EQ(y[256 + i], -c1[i]) << i;
    }
}

}  // namespace
}  // namespace irlite
