// Profiles show the layers inside sub-graph bodies (ProfileEntry::body, runs; engine/profile.hpp):
// after their TensorIterator / Loop / If, in body order, a nested body after its layer, with the
// time and count over every iteration of the last infer(); a body that did not run has no entries.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "irlite/irlite.hpp"
#include "subgraph_ir.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

CompiledModel compile_profiled(const std::string& xml, bool profiling = true) {
    CompileOptions options;
    options.threads = 1;
    options.profiling = profiling;
    return CompiledModel(Model::read_from_memory(xml, nullptr, 0), options);
}

// The position of the entry named `name` in body `body`; fails (and gives -1) when there is none.
int find_entry(const std::vector<ProfileEntry>& p, const std::string& name, const std::string& body = "") {
    for (size_t i = 0; i < p.size(); ++i)
        if (p[i].name == name && p[i].body == body) return static_cast<int>(i);
    ADD_FAILURE() << "no entry '" << name << "' in body '" << body << "'";
    return -1;
}

std::string describe(const std::vector<ProfileEntry>& p) {
    std::string s;
    for (const ProfileEntry& e : p) s += "[" + e.body + "] " + e.name + " x" + std::to_string(e.runs) + "\n";
    return s;
}

struct TiInputs {
    std::vector<float> x = {1, 2, 3, 4, 5, 6}, acc0 = {0, 0};
    void bind(InferRequest& r, const Shape& x_shape = {3, 2}) {
        r.set_input("x", Tensor::wrap(ElementType::f32, x_shape, x.data()));
        r.set_input("acc0", Tensor::wrap(ElementType::f32, {1, 2}, acc0.data()));
    }
};

TEST(SubgraphProfile, TensorIteratorBodyLayersFollowItWithTheirIterations) {
    const CompiledModel m = compile_profiled(ti_running_sum());
    InferRequest r = m.create_infer_request();
    TiInputs in;
    in.bind(r);
    for (int round = 0; round < 2; ++round) {  // the second run counts its own iterations only
        r.infer();
        const std::vector<ProfileEntry>& p = r.profiling();
        const int ti = find_entry(p, "ti");
        ASSERT_GE(ti, 0) << describe(p);
        ASSERT_LT(static_cast<size_t>(ti) + 1, p.size()) << describe(p);
        const ProfileEntry& add = p[static_cast<size_t>(ti) + 1];
        EXPECT_EQ(add.name, "add") << describe(p);
        EXPECT_EQ(add.body, "ti > body");
        EXPECT_EQ(add.type, "Add");
        EXPECT_EQ(add.precision, "f32");
        EXPECT_EQ(add.runs, 3);
        EXPECT_FALSE(add.method.empty());
        EXPECT_NE(add.isa, "-");
        EXPECT_EQ(p[static_cast<size_t>(ti)].runs, 1);
        // The TensorIterator's own entry includes its body's time and instruction-set levels.
        EXPECT_GE(p[static_cast<size_t>(ti)].ms, add.ms);
        EXPECT_GT(add.ms, 0.0);
        EXPECT_EQ(p[static_cast<size_t>(ti)].isa, add.isa);
        for (size_t i = static_cast<size_t>(ti) + 2; i < p.size(); ++i) EXPECT_EQ(p[i].body, "") << describe(p);
    }
}

TEST(SubgraphProfile, NestedBodiesFollowTheirLayer) {
    const CompiledModel m = compile_profiled(nested_ti("Add", 2));
    InferRequest r = m.create_infer_request();
    TiInputs in;
    in.x.resize(12, 1.0f);
    in.bind(r, {2, 3, 2});
    r.infer();
    const std::vector<ProfileEntry>& p = r.profiling();
    const int outer = find_entry(p, "outer"), ti = find_entry(p, "ti", "outer > body"),
              add = find_entry(p, "add", "outer > body > ti > body");
    ASSERT_TRUE(outer >= 0 && ti >= 0 && add >= 0) << describe(p);
    EXPECT_LT(outer, ti) << describe(p);
    EXPECT_EQ(add, ti + 1) << describe(p);
    for (int i = outer + 1; i < ti; ++i) EXPECT_EQ(p[static_cast<size_t>(i)].body, "outer > body") << describe(p);
    EXPECT_EQ(p[static_cast<size_t>(ti)].runs, 2);
    EXPECT_EQ(p[static_cast<size_t>(add)].runs, 6);
    EXPECT_GE(p[static_cast<size_t>(outer)].ms, p[static_cast<size_t>(ti)].ms);
    EXPECT_GE(p[static_cast<size_t>(ti)].ms, p[static_cast<size_t>(add)].ms);
}

TEST(SubgraphProfile, IfShowsOnlyTheBranchThatRan) {
    const CompiledModel m = compile_profiled(if_two_shapes());
    InferRequest r = m.create_infer_request();
    std::vector<float> a = {1, 2}, b = {7, 8, 9};
    bool cond = true;
    r.set_input("a", Tensor::wrap(ElementType::f32, {2}, a.data()));
    r.set_input("b", Tensor::wrap(ElementType::f32, {3}, b.data()));
    r.set_input("cond", Tensor::wrap(ElementType::boolean, {}, &cond));
    for (int round = 0; round < 4; ++round) {
        cond = round % 2 == 0;
        r.infer();
        const std::vector<ProfileEntry>& p = r.profiling();
        const int at = find_entry(p, "if");
        ASSERT_GE(at, 0);
        const bool then_ran = static_cast<size_t>(at) + 1 < p.size() && p[static_cast<size_t>(at) + 1].name == "t_add";
        EXPECT_EQ(then_ran, cond) << describe(p);
        if (then_ran) {
            EXPECT_EQ(p[static_cast<size_t>(at) + 1].body, "if > then_body");
            EXPECT_EQ(p[static_cast<size_t>(at) + 1].runs, 1);
        }
        for (const ProfileEntry& e : p) EXPECT_TRUE(e.runs > 0) << describe(p);
    }
}

TEST(SubgraphProfile, ALoopOfNoIterationsShowsNoBody) {
    const CompiledModel m = compile_profiled(loop_accumulate());
    InferRequest r = m.create_infer_request();
    int64_t trip = 4, limit = 100;
    bool cond = true;
    std::vector<float> acc0 = {0, 0}, x = {1, 1};
    r.set_input("trip", Tensor::wrap(ElementType::i64, {}, &trip));
    r.set_input("cond", Tensor::wrap(ElementType::boolean, {}, &cond));
    r.set_input("acc0", Tensor::wrap(ElementType::f32, {1, 2}, acc0.data()));
    r.set_input("x", Tensor::wrap(ElementType::f32, {1, 2}, x.data()));
    r.set_input("limit", Tensor::wrap(ElementType::i64, {}, &limit));
    r.infer();
    const int loop = find_entry(r.profiling(), "loop"), add = find_entry(r.profiling(), "add", "loop > body"),
              less = find_entry(r.profiling(), "less", "loop > body");
    ASSERT_TRUE(loop >= 0 && add > loop && less > loop) << describe(r.profiling());
    EXPECT_EQ(r.profiling()[static_cast<size_t>(add)].runs, 4);
    EXPECT_EQ(r.profiling()[static_cast<size_t>(less)].runs, 4);
    trip = 0;
    r.infer();
    for (const ProfileEntry& e : r.profiling()) EXPECT_EQ(e.body, "") << describe(r.profiling());
}

TEST(SubgraphProfile, WithoutProfilingThereAreNoEntries) {
    const CompiledModel m = compile_profiled(nested_ti("Add", 2), false);
    InferRequest r = m.create_infer_request();
    TiInputs in;
    in.x.resize(12, 1.0f);
    in.bind(r, {2, 3, 2});
    r.infer();
    EXPECT_TRUE(r.profiling().empty());
    r.set_profiling(true);
    r.infer();
    EXPECT_GT(r.profiling().size(), 3u);
    r.set_profiling(false);
    r.infer();
    EXPECT_TRUE(r.profiling().empty()) << describe(r.profiling());
}

// A model without sub-graphs profiles as before: one entry per step, each run once.
TEST(SubgraphProfile, ModelsWithoutBodiesHaveOneEntryPerStep) {
    const std::string xml = net_xml(parameter_xml(0, "a", "f32", "2") + add_xml(1, "sum", "2", "2", "2") +
                                        result_xml(2, "out", "FP32", "2"),
                                    edge_xml(0, 0, 1, 0) + edge_xml(0, 0, 1, 1) + edge_xml(1, 2, 2, 0));
    const CompiledModel m = compile_profiled(xml);
    InferRequest r = m.create_infer_request();
    std::vector<float> a = {1, 2};
    r.set_input("a", Tensor::wrap(ElementType::f32, {2}, a.data()));
    r.infer();
    const std::vector<ProfileEntry>& p = r.profiling();
    ASSERT_EQ(p.size(), 1u) << describe(p);
    EXPECT_EQ(p[0].name, "sum");
    EXPECT_EQ(p[0].body, "");
    EXPECT_EQ(p[0].runs, 1);
}

}  // namespace
}  // namespace irlite
