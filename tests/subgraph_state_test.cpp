// TensorIterator, Loop and If keep their body runner and buffers per infer request (OpState):
// two requests on one compiled model, run in turn with different inputs, each get their own
// results, on the planned path (static shapes, outputs written in place) and on the buffered one
// (counts and shapes known only at run time), for one thread and several.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "engine/graph.hpp"
#include "irlite/irlite.hpp"
#include "kernels/all_ops.hpp"
#include "subgraph_ir.hpp"
#include "subgraph_static_ir.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

std::vector<float> values(const Tensor& t) {
    const float* p = t.data<float>();
    return std::vector<float>(p, p + t.num_elements());
}

CompiledModel compile(const std::string& xml, int threads) {
    CompileOptions options;
    options.threads = threads;
    return CompiledModel(Model::read_from_memory(xml, nullptr, 0), options);
}

// Running sums of the rows of x [n,2] from acc0 [1,2]: every row's sum, in order.
std::vector<float> running_rows(const std::vector<float>& x, const std::vector<float>& acc0) {
    std::vector<float> all;
    std::vector<float> acc = acc0;
    for (size_t r = 0; r + 1 < x.size(); r += 2) {
        acc = {acc[0] + x[r], acc[1] + x[r + 1]};
        all.insert(all.end(), acc.begin(), acc.end());
    }
    return all;
}

// One request's inputs and what it must give (acc is the last part of all).
struct RowCase {
    std::vector<float> x, acc0;
};

void expect_rows(const InferRequest& req, const RowCase& c) {
    const std::vector<float> all = running_rows(c.x, c.acc0);
    EXPECT_EQ(values(req.output("all")), all);
    EXPECT_EQ(values(req.output("acc")), std::vector<float>(all.end() - 2, all.end()));
}

TEST(SubgraphState, TwoRequestsOfATensorIteratorKeepTheirOwnState) {
    for (const int threads : {1, 3}) {
        const CompiledModel m = compile(ti_running_sum(), threads);
        std::vector<RowCase> cases = {{{1, 2, 3, 4, 5, 6}, {10, 20}}, {{-1, 0, 7, 7, 0.5f, 2}, {0, 100}}};
        std::vector<InferRequest> reqs;
        for (RowCase& c : cases) {
            reqs.push_back(m.create_infer_request());
            reqs.back().set_input("x", Tensor::wrap(ElementType::f32, {3, 2}, c.x.data()));
            reqs.back().set_input("acc0", Tensor::wrap(ElementType::f32, {1, 2}, c.acc0.data()));
        }
        for (int round = 0; round < 3; ++round)
            for (size_t r = 0; r < reqs.size(); ++r) {
                reqs[r].infer();
                expect_rows(reqs[r], cases[r]);
                cases[r].x[0] += 1;  // the next round's input differs
            }
    }
}

TEST(SubgraphState, ATensorIteratorSlicingAnInnerAxisCopiesItsParts) {
    for (const int threads : {1, 2}) {
        const CompiledModel m = compile(ti_column_sum(), threads);
        InferRequest a = m.create_infer_request(), b = m.create_infer_request();
        std::vector<float> xa = {1, 2, 3, 4, 5, 6}, xb = {0, 0, 1, 1, 1, 1}, acc_a = {0, 0}, acc_b = {100, 200};
        a.set_input("x", Tensor::wrap(ElementType::f32, {2, 3}, xa.data()));
        a.set_input("acc0", Tensor::wrap(ElementType::f32, {2, 1}, acc_a.data()));
        b.set_input("x", Tensor::wrap(ElementType::f32, {2, 3}, xb.data()));
        b.set_input("acc0", Tensor::wrap(ElementType::f32, {2, 1}, acc_b.data()));
        for (int round = 0; round < 2; ++round) {
            a.infer();
            b.infer();
            EXPECT_EQ(values(a.output("all")), (std::vector<float>{1, 3, 6, 4, 9, 15}));
            EXPECT_EQ(values(a.output("acc")), (std::vector<float>{6, 15}));
            EXPECT_EQ(values(b.output("all")), (std::vector<float>{100, 100, 101, 201, 202, 203}));
            EXPECT_EQ(values(b.output("acc")), (std::vector<float>{101, 203}));
        }
    }
}

TEST(SubgraphState, ALoopWithAConstantCountWritesItsOutputsInPlace) {
    for (const int threads : {1, 2}) {
        const CompiledModel m = compile(loop_fixed_count(), threads);
        EXPECT_EQ(m.outputs()[1].shape, PartialShape({3, 2}));
        std::vector<RowCase> cases = {{{1, 2, 3, 4, 5, 6}, {1, 1}}, {{9, 8, 7, 6, 5, 4}, {-5, 0}}};
        std::vector<float> n = {0, 0, 0};
        std::vector<InferRequest> reqs;
        for (RowCase& c : cases) {
            reqs.push_back(m.create_infer_request());
            reqs.back().set_input("n", Tensor::wrap(ElementType::f32, {3}, n.data()));
            reqs.back().set_input("x", Tensor::wrap(ElementType::f32, {3, 2}, c.x.data()));
            reqs.back().set_input("acc0", Tensor::wrap(ElementType::f32, {1, 2}, c.acc0.data()));
        }
        for (int round = 0; round < 3; ++round)
            for (size_t r = 0; r < reqs.size(); ++r) {
                reqs[r].infer();
                expect_rows(reqs[r], cases[r]);
            }
    }
}

TEST(SubgraphState, TwoRequestsOfALoopWithARunTimeCountKeepTheirOwnBuffers) {
    const CompiledModel m = compile(loop_accumulate(), 2);
    int64_t trips[2] = {3, 1}, limit = 100;
    bool cond = true;
    std::vector<float> acc0[2] = {{1, 2}, {0, 0}}, x[2] = {{10, 100}, {5, 5}};
    InferRequest reqs[2] = {m.create_infer_request(), m.create_infer_request()};
    for (int r = 0; r < 2; ++r) {
        reqs[r].set_input("trip", Tensor::wrap(ElementType::i64, {}, &trips[r]));
        reqs[r].set_input("cond", Tensor::wrap(ElementType::boolean, {}, &cond));
        reqs[r].set_input("acc0", Tensor::wrap(ElementType::f32, {1, 2}, acc0[r].data()));
        reqs[r].set_input("x", Tensor::wrap(ElementType::f32, {1, 2}, x[r].data()));
        reqs[r].set_input("limit", Tensor::wrap(ElementType::i64, {}, &limit));
    }
    for (int round = 0; round < 3; ++round) {
        for (int r = 0; r < 2; ++r) reqs[r].infer();
        for (int r = 0; r < 2; ++r) {
            std::vector<float> rows;  // x once per iteration
            for (int64_t k = 0; k < trips[r]; ++k) rows.insert(rows.end(), x[r].begin(), x[r].end());
            const std::vector<float> all = running_rows(rows, acc0[r]);
            EXPECT_EQ(values(reqs[r].output("all")), all) << round;
            EXPECT_EQ(values(reqs[r].output("acc")), std::vector<float>(all.end() - 2, all.end())) << round;
        }
        std::swap(trips[0], trips[1]);  // the longer loop moves to the other request
        std::swap(x[0], x[1]);
        std::swap(acc0[0], acc0[1]);
        for (int r = 0; r < 2; ++r) {
            reqs[r].set_input("acc0", Tensor::wrap(ElementType::f32, {1, 2}, acc0[r].data()));
            reqs[r].set_input("x", Tensor::wrap(ElementType::f32, {1, 2}, x[r].data()));
        }
    }
}

TEST(SubgraphState, TwoRequestsOfAnIfTakeTheirOwnBranches) {
    const CompiledModel m = compile(if_two_shapes(), 2);
    std::vector<float> a = {1, 2}, b = {7, 8, 9};
    bool conds[2] = {true, false};
    InferRequest reqs[2] = {m.create_infer_request(), m.create_infer_request()};
    for (int r = 0; r < 2; ++r) {
        reqs[r].set_input("a", Tensor::wrap(ElementType::f32, {2}, a.data()));
        reqs[r].set_input("b", Tensor::wrap(ElementType::f32, {3}, b.data()));
        reqs[r].set_input("cond", Tensor::wrap(ElementType::boolean, {}, &conds[r]));
    }
    for (int round = 0; round < 4; ++round) {
        for (int r = 0; r < 2; ++r) reqs[r].infer();
        for (int r = 0; r < 2; ++r)
            EXPECT_EQ(values(reqs[r].output("out")), (conds[r] ? std::vector<float>{2, 4} : std::vector<float>{7, 8, 9}));
        conds[0] = !conds[0];
        conds[1] = !conds[1];
    }
}

// Requests on two threads at once: each runs its own body runner (a shared one would mix them).
TEST(SubgraphState, RequestsOnTwoThreadsRunTheirOwnBodies) {
    const CompiledModel m = compile(ti_running_sum(), 1);
    std::vector<RowCase> cases = {{{1, 2, 3, 4, 5, 6}, {10, 20}}, {{6, 5, 4, 3, 2, 1}, {-1, -2}}};
    std::vector<int> wrong(cases.size(), 0);
    std::vector<std::thread> threads;
    for (size_t t = 0; t < cases.size(); ++t)
        threads.emplace_back([&, t] {
            InferRequest req = m.create_infer_request();
            req.set_input("x", Tensor::wrap(ElementType::f32, {3, 2}, cases[t].x.data()));
            req.set_input("acc0", Tensor::wrap(ElementType::f32, {1, 2}, cases[t].acc0.data()));
            const std::vector<float> all = running_rows(cases[t].x, cases[t].acc0);
            for (int run = 0; run < 200; ++run) {
                req.infer();
                wrong[t] += values(req.output("all")) == all ? 0 : 1;
            }
        });
    for (std::thread& t : threads) t.join();
    EXPECT_EQ(wrong, (std::vector<int>{0, 0}));
}

// A TensorIterator whose input's shape is known only at run time (after an If whose branches give
// different lengths) is prepared on every run; its runner stays in the node's state slot as long
// as the plan's body is the same one (the body is built once per body input signature: here the
// parts are [1] whatever the length).
TEST(SubgraphState, RunTimeShapedLayerKeepsItsRunner) {
    const Model model = Model::read_from_memory(ti_after_if(), nullptr, 0);
    const BuildResult built = build_graph(model.document_ptr(), builtin_ops());
    const Node* ti = nullptr;
    for (const Node& n : built.graph->nodes)
        if (n.layer && n.layer->name == "ti") ti = &n;
    ASSERT_NE(ti, nullptr);
    const ValueRef in = ti->inputs[0];
    EXPECT_FALSE(built.graph->nodes[static_cast<size_t>(in.node)].outputs[static_cast<size_t>(in.output)].shape.is_static())
        << "the test needs an input shape known only at run time";
    std::vector<float> three = {7, 8, 9}, two = {2, 4}, acc0 = {100};
    std::unique_ptr<OpState> slot;
    const auto run = [&](std::vector<float>& x) {
        const std::vector<Tensor> inputs = {Tensor::wrap(ElementType::f32, {static_cast<int64_t>(x.size())}, x.data()),
                                            Tensor::wrap(ElementType::f32, {1}, acc0.data())};
        return run_node(*ti, inputs, nullptr, nullptr, nullptr, "ti.xml", &slot)[0].data<float>()[0];
    };
    EXPECT_EQ(run(three), 124.0f);
    const OpState* first = slot.get();
    ASSERT_NE(first, nullptr);
    EXPECT_EQ(run(two), 106.0f);
    EXPECT_EQ(run(three), 124.0f);
    EXPECT_EQ(slot.get(), first) << "the runner was made again";
}

}  // namespace
}  // namespace irlite
