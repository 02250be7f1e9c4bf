// TensorIterator-1 ("TensorIterator"), Loop-5 ("Loop") and If-8 ("If"): run features and errors,
// on the small models of tests/subgraph_ir.hpp.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "irlite/irlite.hpp"
#include "subgraph_ir.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

Model load(const std::string& xml) { return Model::read_from_memory(xml, nullptr, 0); }

std::vector<float> values(const Tensor& t) {
    const float* p = t.data<float>();
    return std::vector<float>(p, p + t.num_elements());
}

struct TiRun {
    std::vector<float> acc, all;
};

TiRun run_ti(const std::string& xml) {
    CompiledModel m(load(xml));
    InferRequest req = m.create_infer_request();
    std::vector<float> x = {1, 2, 3, 4, 5, 6}, acc0 = {10, 20};
    req.set_input("x", Tensor::wrap(ElementType::f32, {3, 2}, x.data()));
    req.set_input("acc0", Tensor::wrap(ElementType::f32, {1, 2}, acc0.data()));
    req.infer();
    EXPECT_EQ(req.output("all").shape(), (Shape{3, 2}));
    return {values(req.output("acc")), values(req.output("all"))};
}

TEST(TensorIteratorOp, ForwardSlicesBackEdgeAndConcat) {
    const std::string op = "TensorIterator";
    ASSERT_NE(ti_running_sum().find("type=\"" + op + "\""), std::string::npos);
    const TiRun r = run_ti(ti_running_sum());
    EXPECT_EQ(r.acc, (std::vector<float>{19, 32}));
    EXPECT_EQ(r.all, (std::vector<float>{11, 22, 14, 26, 19, 32}));
}

TEST(TensorIteratorOp, NegativeStrideReadsLastPartFirst) {
    // Input sliced last element first; output in iteration order (stride 1).
    const TiRun r = run_ti(ti_running_sum("start=\"-1\" end=\"0\" stride=\"-1\"", "1"));
    EXPECT_EQ(r.acc, (std::vector<float>{19, 32}));
    EXPECT_EQ(r.all, (std::vector<float>{15, 26, 18, 30, 19, 32}));
    // Output stride -1: the first iteration's part lands last.
    const TiRun back = run_ti(ti_running_sum("start=\"0\" end=\"-1\" stride=\"1\"", "-1"));
    EXPECT_EQ(back.all, (std::vector<float>{19, 32, 14, 26, 11, 22}));
}

TEST(TensorIteratorOp, RunsAgainWithTheSameResults) {
    CompiledModel m(load(ti_running_sum()));
    InferRequest req = m.create_infer_request();
    std::vector<float> x = {1, 2, 3, 4, 5, 6}, acc0 = {0, 0};
    req.set_input("x", Tensor::wrap(ElementType::f32, {3, 2}, x.data()));
    req.set_input("acc0", Tensor::wrap(ElementType::f32, {1, 2}, acc0.data()));
    for (int i = 0; i < 3; ++i) {
        req.infer();
        EXPECT_EQ(values(req.output("acc")), (std::vector<float>{9, 12}));
    }
}

struct LoopRun {
    std::vector<float> acc;
    Shape all_shape;
    std::vector<float> all;
};

LoopRun run_loop(int64_t trip, bool cond, int64_t limit) {
    CompiledModel m(load(loop_accumulate()));
    InferRequest req = m.create_infer_request();
    std::vector<float> acc0 = {1, 2}, x = {10, 100};
    bool c = cond;
    req.set_input("trip", Tensor::wrap(ElementType::i64, {}, &trip));
    req.set_input("cond", Tensor::wrap(ElementType::boolean, {}, &c));
    req.set_input("acc0", Tensor::wrap(ElementType::f32, {1, 2}, acc0.data()));
    req.set_input("x", Tensor::wrap(ElementType::f32, {1, 2}, x.data()));
    req.set_input("limit", Tensor::wrap(ElementType::i64, {}, &limit));
    req.infer();
    return {values(req.output("acc")), req.output("all").shape(), values(req.output("all"))};
}

TEST(LoopOp, TripCountBoundsTheIterations) {
    const std::string op = "Loop";
    ASSERT_NE(loop_accumulate().find("type=\"" + op + "\""), std::string::npos);
    const LoopRun r = run_loop(3, true, 100);
    EXPECT_EQ(r.acc, (std::vector<float>{31, 302}));
    EXPECT_EQ(r.all_shape, (Shape{3, 2}));
    EXPECT_EQ(r.all, (std::vector<float>{11, 102, 21, 202, 31, 302}));
}

TEST(LoopOp, ConditionEndsTheLoopAfterTheIterationThatYieldsFalse) {
    // current_iteration < 1: iteration 0 yields true, iteration 1 false and still counts.
    const LoopRun r = run_loop(-1, true, 1);
    EXPECT_EQ(r.acc, (std::vector<float>{21, 202}));
    EXPECT_EQ(r.all_shape, (Shape{2, 2}));
    // The trip count comes first when it is smaller.
    EXPECT_EQ(run_loop(1, true, 5).all_shape, (Shape{1, 2}));
}

TEST(LoopOp, ZeroIterationsGiveInitialValuesAndEmptyConcatenations) {
    for (const auto& [trip, cond] : {std::pair<int64_t, bool>{0, true}, {5, false}}) {
        const LoopRun r = run_loop(trip, cond, 100);
        EXPECT_EQ(r.acc, (std::vector<float>{1, 2}));
        EXPECT_EQ(r.all_shape, (Shape{0, 2}));
    }
}

TEST(LoopOp, EndlessLoopStopsWithAnError) {
    const auto started = std::chrono::steady_clock::now();
    try {
        run_loop(-1, true, int64_t{1} << 40);
        FAIL() << "ran";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), "loop-too-long");
        EXPECT_NE(std::string(e.what()).find("'loop'"), std::string::npos) << e.what();
    }
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(60));
}

TEST(LoopOp, TripCountMustBeAnInteger) {
    std::string xml = loop_accumulate();
    const std::string trip = "<data shape=\"\" element_type=\"i64\"/><output><port id=\"0\" precision=\"I64\" names=\"trip\">";
    xml.replace(xml.find(trip), trip.size(), "<data shape=\"\" element_type=\"f32\"/><output><port id=\"0\" precision=\"FP32\" names=\"trip\">");
    try {
        CompiledModel m(load(xml));
        FAIL() << "compiled";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("Loop trip count is f32, it must be i64 or i32"), std::string::npos) << e.what();
    }
}

TEST(IfOp, OnlyTheTakenBranchRunsAndGivesItsShape) {
    const std::string op = "If";
    ASSERT_NE(if_two_shapes().find("type=\"" + op + "\""), std::string::npos);
    CompiledModel m(load(if_two_shapes()));
    EXPECT_EQ(m.outputs()[0].shape, PartialShape({kDynamic}));
    InferRequest req = m.create_infer_request();
    std::vector<float> a = {1, 2}, b = {7, 8, 9};
    req.set_input("a", Tensor::wrap(ElementType::f32, {2}, a.data()));
    req.set_input("b", Tensor::wrap(ElementType::f32, {3}, b.data()));
    for (const bool cond : {true, false, true}) {
        bool c = cond;
        req.set_input("cond", Tensor::wrap(ElementType::boolean, {}, &c));
        req.infer();
        if (cond) EXPECT_EQ(values(req.output("out")), (std::vector<float>{2, 4}));
        else EXPECT_EQ(values(req.output("out")), (std::vector<float>{7, 8, 9}));
    }
}

TEST(IfOp, ConditionMustBeBoolean) {
    std::string xml = if_two_shapes();
    const std::string cond = "<data shape=\"\" element_type=\"boolean\"/><output><port id=\"0\" precision=\"BOOL\" names=\"cond\">";
    xml.replace(xml.find(cond), cond.size(), "<data shape=\"\" element_type=\"f32\"/><output><port id=\"0\" precision=\"FP32\" names=\"cond\">");
    try {
        CompiledModel m(load(xml));
        FAIL() << "compiled";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), "type-invalid");
        EXPECT_NE(std::string(e.what()).find("If condition input is f32, it must be boolean"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace irlite
