// The comparison of two runs layer by layer (api/compare.hpp): the measures, matching by tensor
// name and by layer, the first divergent layer, FP16 against FP32, inputs bound by name, a model
// against itself run another way (--vs), the instruction-set cap.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "api/compare.hpp"
#include "irlite/irlite.hpp"
#include "mlp_ir.hpp"

namespace irlite {
namespace {

using testing::Mlp;

std::vector<NamedInput> inputs_of_x() { return {{{"x"}, testing::mlp_input(), "test"}}; }

std::vector<NodeOutput> run_all(const Model& m, bool fusion) {
    return run_keeping_outputs(testing::compile_keeping(m, fusion), inputs_of_x());
}

TEST(TensorDifference, Measures) {
    const auto t = [](std::vector<float> v) {
        Tensor out(ElementType::f32, {static_cast<int64_t>(v.size())});
        for (size_t i = 0; i < v.size(); ++i) out.data<float>()[i] = v[i];
        return out;
    };
    TensorDifference d = tensor_difference(t({1, 2, 3}), t({1, 2, 3}));
    EXPECT_EQ(d.cosine, 1);
    EXPECT_EQ(d.max_abs, 0);
    EXPECT_EQ(d.max_rel, 0);
    EXPECT_FALSE(d.nonfinite_differs);
    d = tensor_difference(t({1, 0}), t({0, 1}));
    EXPECT_NEAR(d.cosine, 0, 1e-12);
    EXPECT_EQ(d.max_abs, 1);
    EXPECT_EQ(d.max_rel, 1);
    d = tensor_difference(t({2, -4}), t({2, -3}));
    EXPECT_EQ(d.max_abs, 1);
    EXPECT_EQ(d.max_rel, 0.25);
    EXPECT_NEAR(d.cosine, (4.0 + 12.0) / (std::sqrt(20.0) * std::sqrt(13.0)), 1e-12);
    d = tensor_difference(t({0, 0}), t({0, 0}));
    EXPECT_EQ(d.cosine, 1);
    d = tensor_difference(t({0, 0}), t({0, 1}));
    EXPECT_EQ(d.cosine, 0);
    EXPECT_TRUE(std::isinf(d.max_rel));
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    d = tensor_difference(t({1, nan, inf}), t({1, nan, inf}));
    EXPECT_FALSE(d.nonfinite_differs);
    EXPECT_EQ(d.cosine, 1);
    EXPECT_TRUE(tensor_difference(t({1, nan}), t({1, 2})).nonfinite_differs);
    EXPECT_TRUE(tensor_difference(t({1, inf}), t({1, -inf})).nonfinite_differs);
    // Different element types, compared in double.
    Tensor h(ElementType::f16, {3});
    for (int i = 0; i < 3; ++i) h.data<uint16_t>()[i] = f32_to_f16(static_cast<float>(i + 1));
    EXPECT_EQ(tensor_difference(t({1, 2, 3}), h).max_abs, 0);
}

TEST(Compare, AModelAgainstItselfDoesNotDiverge) {
    const Model model = Mlp().model();
    const Comparison c = compare_outputs(run_all(model, false), run_all(model, false));
    ASSERT_EQ(c.tensors.size(), 6u);
    EXPECT_EQ(c.first_divergent, -1);
    for (const MatchedTensor& t : c.tensors) {
        EXPECT_EQ(t.difference.cosine, 1) << t.name;
        EXPECT_EQ(t.difference.max_abs, 0) << t.name;
        EXPECT_EQ(t.layer_a, t.layer_b);
    }
    EXPECT_EQ(c.tensors[0].name, "x");
    EXPECT_EQ(c.tensors[1].name, "mm1:0");
    EXPECT_TRUE(c.unmatched_a.empty());
    EXPECT_TRUE(c.unmatched_b.empty());
}

TEST(Compare, NamesTheLayerWhoseWeightsChanged) {
    for (const bool tensor_names : {true, false}) {
        const Comparison c =
            compare_outputs(run_all(Mlp(false, tensor_names).model(), false), run_all(Mlp(true, tensor_names).model(), false));
        ASSERT_GE(c.first_divergent, 0);
        const MatchedTensor& t = c.tensors[static_cast<size_t>(c.first_divergent)];
        EXPECT_EQ(t.layer_a, "mm2") << tensor_names;
        EXPECT_EQ(t.name, tensor_names ? "mm2:0" : "mm2");
        EXPECT_LT(t.difference.cosine, 0.999);
        // Everything before it matches exactly.
        for (int i = 0; i < c.first_divergent; ++i) EXPECT_EQ(c.tensors[static_cast<size_t>(i)].difference.max_abs, 0);
    }
    // An absolute tolerance above every difference: nothing diverges by its cosine.
    const Comparison tolerant = compare_outputs(run_all(Mlp().model(), false), run_all(Mlp(true).model(), false), 0.999, 1e9);
    EXPECT_EQ(tolerant.first_divergent, -1);
    EXPECT_EQ(tolerant.atol, 1e9);
    // Fused on both sides: the fused node holding it.
    const Comparison f = compare_outputs(run_all(Mlp().model(), true), run_all(Mlp(true).model(), true));
    ASSERT_GE(f.first_divergent, 0);
    EXPECT_EQ(f.tensors[static_cast<size_t>(f.first_divergent)].layer_a, "mm2+add2");
}

TEST(Compare, FusedAgainstUnfusedMatchesByTensorAndLayer) {
    for (const bool tensor_names : {true, false}) {
        const Model model = Mlp(false, tensor_names).model();
        const Comparison c = compare_outputs(run_all(model, true), run_all(model, false));
        ASSERT_EQ(c.tensors.size(), 3u) << tensor_names;
        EXPECT_EQ(c.tensors[1].layer_a, "mm1+add1+relu1");
        EXPECT_EQ(c.tensors[1].layer_b, "relu1");
        EXPECT_EQ(c.first_divergent, -1);
        EXPECT_TRUE(c.unmatched_a.empty());
        EXPECT_EQ(c.unmatched_b, (std::vector<std::string>{"mm1", "add1", "mm2"}));
    }
}

TEST(Compare, Fp16AgainstFp32TakesTheInputsRounded) {
    const Model a = Mlp().model(), b = Mlp(false, true, "f16").model();
    CompareSide sa, sb;
    sa.model = &a;
    sb.model = &b;
    sa.options.threads = sb.options.threads = 1;
    sa.options.fusion = sb.options.fusion = false;
    const Comparison c = compare_models(sa, sb, [](const CompiledModel&) { return inputs_of_x(); });
    ASSERT_EQ(c.tensors.size(), 6u);
    EXPECT_EQ(c.first_divergent, -1);
    for (const MatchedTensor& t : c.tensors) {
        EXPECT_GT(t.difference.cosine, 0.999) << t.name;
        EXPECT_LT(t.difference.max_rel, 0.02) << t.name;
    }
    EXPECT_GT(c.tensors.back().difference.max_abs, 0);  // f16 rounding shows
}

TEST(Compare, InputsBoundByName) {
    const Model a = Mlp().model();
    const CompiledModel compiled = testing::compile_keeping(a, false);
    try {
        run_keeping_outputs(compiled, {{{"y"}, testing::mlp_input(), "test"}});
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), "input-missing");
        EXPECT_NE(e.message().find("'x'"), std::string::npos) << e.message();
    }
}

TEST(Compare, AModelRunAnotherWay) {
    const Model model = Mlp().model();
    CompareSide a;
    a.model = &model;
    a.options.threads = 1;
    const std::string isa = active_isa();
    for (const char* vs : {"no-fusion", "threads=2", "isa=sse", "isa=avx2"}) {
        const CompareSide b = side_run_another_way(a, vs);
        const Comparison c = compare_models(a, b, [](const CompiledModel&) { return inputs_of_x(); });
        EXPECT_EQ(c.first_divergent, -1) << vs;
        EXPECT_GE(c.tensors.size(), 3u) << vs;
        if (std::string(vs) != "no-fusion") {
            EXPECT_TRUE(c.unmatched_a.empty() && c.unmatched_b.empty()) << vs;
        }
    }
    EXPECT_EQ(side_run_another_way(a, "threads=3").options.threads, 3);
    EXPECT_EQ(side_run_another_way(a, "isa=avx2").isa, "avx2");
    EXPECT_FALSE(side_run_another_way(a, "no-fusion").options.fusion);
    for (const char* bad : {"fusion", "threads=0", "threads=x", "isa=mmx", ""}) {
        try {
            side_run_another_way(a, bad);
            ADD_FAILURE() << bad;
        } catch (const Error& e) {
            EXPECT_EQ(e.code(), "vs-invalid");
        }
    }
    EXPECT_EQ(active_isa(), isa);  // the cap was lifted again
}

TEST(Compare, IsaCap) {
    const std::string before = active_isa();
    {
        const IsaCapScope cap("sse");
        EXPECT_EQ(active_isa(), "sse");
    }
    EXPECT_EQ(active_isa(), before);
    try {
        set_isa_cap("mmx");
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), "isa-unknown");
    }
}

}  // namespace
}  // namespace irlite
