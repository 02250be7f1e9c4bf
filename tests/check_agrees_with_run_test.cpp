// Check agrees with run (issue 24): `irlite check` reports everything `irlite run` refuses before
// it reads any input value, with the same code.
//   - The sweep: every case of the shared corpora (../shared/conformance/*, models-real, wild-ir)
//     is read, compiled and given an infer request as `irlite run` does before it binds inputs;
//     where that throws, irlite::check must report the same code: as an error, or, where the code
//     is a limit of irlite rather than a fault of the file (an op or element type it cannot run,
//     the README's leniency table), at least as a warning. Skipped without ../shared.
//   - Hostile models built here: outputs no tensor can hold (OneHot with depth 2^40 or 2^31-1 on
//     many indices, DetectionOutput with keep_top_k or top_k 2^40), a u4 Const whose bits overflow
//     64 bits, a u4 Const beside an f32 input of MatMul; and a Const `size` larger than needed,
//     which both read.
//   - The mechanism for what only an op's prepare step refuses, with an op made up for it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/graph.hpp"
#include "irlite/irlite.hpp"
#include "ir_builder.hpp"
#include "kernels/all_ops.hpp"
#include "parser/ir_reader.hpp"
#include "temp_dir.hpp"

namespace irlite {
namespace {

namespace fs = std::filesystem;
using testing::IrBuilder;
using testing::TempDir;

const fs::path kShared = fs::path(IRLITE_SOURCE_DIR) / ".." / "shared";

// What `irlite run` does before it binds an input: read, compile, make the request. The refusal,
// if any.
std::optional<Error> refusal_before_inputs(const std::string& xml) {
    try {
        CompileOptions options;
        options.threads = 1;  // a pool per case costs time and decides nothing here
        const CompiledModel compiled(Model::read(xml), options);
        compiled.create_infer_request();
    } catch (const Error& e) {
        return e;
    }
    return std::nullopt;
}

// Codes of refusals that are limits of irlite, not faults of the file: check warns about them
// (OpenVINO reads such files), run refuses them.
bool is_limit_of_irlite(const std::string& code) {
    return code == "unsupported-op" || code == "unsupported-element-type";
}

std::string describe(const CheckResult& r) {
    std::string s;
    for (const Diagnostic& d : r.findings)
        s += str("\n  ", d.severity == Severity::Error ? "error" : "warning", " [", d.code, "] ", d.message);
    return s.empty() ? "\n  (no findings)" : s;
}

// Whether check reports run's refusal: its code as an error (or as any finding for a limit).
bool reports(const CheckResult& r, const Error& refusal) {
    return std::any_of(r.findings.begin(), r.findings.end(), [&](const Diagnostic& d) {
        return d.code == refusal.code() && (d.severity == Severity::Error || is_limit_of_irlite(d.code));
    });
}

// The failure message for a model run refuses and check does not report, or "" when they agree.
std::string disagreement(const std::string& xml) {
    const std::optional<Error> refusal = refusal_before_inputs(xml);
    if (!refusal) return "";
    const CheckResult r = check(xml);
    if (reports(r, *refusal)) return "";
    return str(xml, ":\n run refuses it: [", refusal->code(), "] ", refusal->what(), "\n check reports:", describe(r));
}

std::vector<std::string> models_under(const fs::path& dir) {
    std::vector<std::string> found;
    for (const auto& e : fs::recursive_directory_iterator(dir))
        if (e.is_regular_file() && e.path().filename() == "model.xml") found.push_back(e.path().string());
    std::sort(found.begin(), found.end());
    return found;
}

// Every corpus of ../shared: those of conformance/ (EveryConformanceCorpusIsSwept keeps the list
// complete), the real models and the IR files found in public repositories.
const char* const kCorpora[] = {"conformance/generated", "conformance/onnx-node", "conformance/onnx-ops",
                                "conformance/openvino-ref", "conformance/ops-next", "conformance/subgraphs",
                                "models-real", "wild-ir"};

class CheckAgreesWithRun : public ::testing::TestWithParam<const char*> {};

TEST_P(CheckAgreesWithRun, OnEveryCaseRunRefusesBeforeItsInputs) {
    const fs::path dir = kShared / GetParam();
    if (!fs::is_directory(dir)) GTEST_SKIP() << dir << " not found; the shared corpora are not beside this clone";
    size_t cases = 0, refused = 0;
    for (const std::string& xml : models_under(dir)) {
        ++cases;
        const std::string problem = disagreement(xml);
        refused += refusal_before_inputs(xml) ? 1 : 0;
        EXPECT_TRUE(problem.empty()) << problem;
    }
    EXPECT_GT(cases, 0u) << "no model.xml under " << dir;
    std::printf("%s: %zu cases, %zu refused by run before their inputs, each reported by check\n", GetParam(), cases,
                refused);
}

INSTANTIATE_TEST_SUITE_P(Corpora, CheckAgreesWithRun, ::testing::ValuesIn(kCorpora),
                         [](const ::testing::TestParamInfo<const char*>& corpus) {
                             std::string name = corpus.param;
                             for (char& c : name)
                                 if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                             return name;
                         });

TEST(CheckAgreesWithRun, EveryConformanceCorpusIsSwept) {
    const fs::path conformance = kShared / "conformance";
    if (!fs::is_directory(conformance)) GTEST_SKIP() << conformance << " not found; the shared corpora are not beside this clone";
    const std::set<std::string> swept(std::begin(kCorpora), std::end(kCorpora));
    for (const auto& e : fs::directory_iterator(conformance)) {
        if (!e.is_directory()) continue;
        EXPECT_TRUE(swept.count("conformance/" + e.path().filename().string()))
            << e.path() << " is a corpus the sweep does not cover: add it to kCorpora";
    }
}

// ---- hostile models ------------------------------------------------------------------------------

// Writes the model to a scratch directory: check reads files.
struct ModelFiles {
    TempDir dir;
    std::string xml;
    explicit ModelFiles(const IrBuilder& b) {
        xml = dir.write("model.xml", b.xml());
        const auto& w = b.weights();
        dir.write("model.bin", std::string(w.begin(), w.end()));
    }
};

// Run refuses the model with `code` before its inputs, and check reports `code` as an error.
void expect_both_refuse(const IrBuilder& b, const std::string& code) {
    const ModelFiles files(b);
    const std::optional<Error> refusal = refusal_before_inputs(files.xml);
    ASSERT_TRUE(refusal) << "run accepts it";
    EXPECT_EQ(refusal->code(), code) << refusal->what();
    const CheckResult r = check(files.xml);
    const auto it = std::find_if(r.findings.begin(), r.findings.end(), [&](const Diagnostic& d) { return d.code == code; });
    ASSERT_NE(it, r.findings.end()) << describe(r);
    EXPECT_EQ(it->severity, Severity::Error) << describe(r);
    EXPECT_FALSE(r.valid());
}

// OneHot-1 of i64 indices [n] (a Parameter: nothing is folded) and a constant depth.
IrBuilder one_hot(int64_t n, int64_t depth) {
    IrBuilder b;
    const float on = 1, off = 0;
    b.parameter(0, "indices", "i64", {n});
    b.constant(1, "depth", "i64", {}, &depth, sizeof depth);
    b.constant(2, "on", "f32", {}, &on, sizeof on);
    b.constant(3, "off", "f32", {}, &off, sizeof off);
    b.layer(4, "hot", "OneHot", "opset1", "axis=\"-1\"",
            {{0, "I64", {n}, ""}, {1, "I64", {}, ""}, {2, "FP32", {}, ""}, {3, "FP32", {}, ""}},
            {{4, "FP32", {n, -1}, ""}});  // -1: declared dims of 2^64 elements would be refused as such
    b.result(5, "out", "f32", {n, -1});
    b.edge(0, 0, 4, 0).edge(1, 0, 4, 1).edge(2, 0, 4, 2).edge(3, 0, 4, 3).edge(4, 4, 5, 0);
    return b;
}

TEST(CheckAgreesWithRun, OutputNoTensorCanHold) {
    expect_both_refuse(one_hot(1000, int64_t{1} << 40), "tensor-too-large");
    expect_both_refuse(one_hot(int64_t{1} << 20, (int64_t{1} << 31) - 1), "tensor-too-large");  // 8 PiB of f32
    expect_both_refuse(one_hot(4, int64_t{1} << 62), "size-overflow");                        // 2^64 elements
}

// DetectionOutput-1 on 4 priors of 2 classes, with the given keep_top_k and top_k.
IrBuilder detection_output(const std::string& keep_top_k, const std::string& top_k) {
    IrBuilder b;
    b.parameter(0, "loc", "f32", {1, 16});
    b.parameter(1, "conf", "f32", {1, 8});
    b.parameter(2, "priors", "f32", {1, 2, 16});
    b.layer(3, "det", "DetectionOutput", "opset1",
            "num_classes=\"2\" keep_top_k=\"" + keep_top_k + "\" top_k=\"" + top_k +
                "\" nms_threshold=\"0.5\" normalized=\"true\" code_type=\"caffe.PriorBoxParameter.CORNER\"",
            {{0, "FP32", {1, 16}, ""}, {1, "FP32", {1, 8}, ""}, {2, "FP32", {1, 2, 16}, ""}}, {{3, "FP32", {1, 1, -1, 7}, ""}});
    b.result(4, "out", "f32", {1, 1, -1, 7});
    b.edge(0, 0, 3, 0).edge(1, 0, 3, 1).edge(2, 0, 3, 2).edge(3, 3, 4, 0);
    return b;
}

TEST(CheckAgreesWithRun, DetectionOutputOfImpossibleSize) {
    const std::string two40 = std::to_string(int64_t{1} << 40);
    expect_both_refuse(detection_output(two40, "-1"), "tensor-too-large");
    expect_both_refuse(detection_output("-1", two40), "tensor-too-large");
}

TEST(CheckAgreesWithRun, PackedConstWhoseBitsOverflow) {
    // 2^62 u4 elements are 2^64 bits: the count fits in 64 bits, the size does not.
    const int64_t count = int64_t{1} << 62;
    const unsigned char byte = 0x21;
    IrBuilder b;
    b.constant(0, "w", "u4", {count}, &byte, 1);
    b.layer(1, "unpack", "Convert", "opset1", "destination_type=\"f32\"", {{0, "U4", {count}, ""}},
            {{1, "FP32", {count}, ""}});
    b.result(2, "out", "f32", {count});
    b.edge(0, 0, 1, 0).edge(1, 1, 2, 0);
    expect_both_refuse(b, "size-overflow");
}

// MatMul-1 of x [1, 3] (an f32 Parameter, or a u4 Const) and a u4 Const w [3, 2].
IrBuilder mat_mul_with_u4(bool x_is_u4_too) {
    const unsigned char packed[3] = {0x21, 0x43, 0x65};  // 6 u4 values
    IrBuilder b;
    if (x_is_u4_too) b.constant(0, "x", "u4", {1, 3}, packed, 2);
    else b.parameter(0, "x", "f32", {1, 3});
    b.constant(1, "w", "u4", {3, 2}, packed, 3);
    const std::string precision = x_is_u4_too ? "U4" : "FP32";
    b.layer(2, "mm", "MatMul", "opset1", "", {{0, precision, {1, 3}, ""}, {1, "U4", {3, 2}, ""}},
            {{2, precision, {1, 2}, ""}});
    b.result(3, "out", x_is_u4_too ? "u4" : "f32", {1, 2});
    b.edge(0, 0, 2, 0).edge(1, 0, 2, 1).edge(2, 2, 3, 0);
    return b;
}

TEST(CheckAgreesWithRun, PackedInputOfAnOpThatWantsEqualTypes) {
    // MatMul-1 requires both inputs of one type, whatever the types: f32 and u4 is a fault of the
    // file, an error in check as in run.
    expect_both_refuse(mat_mul_with_u4(false), "type-mismatch");
    // u4 and u4 is valid IR irlite cannot run: run refuses it, check warns with the same code.
    const ModelFiles files(mat_mul_with_u4(true));
    const std::optional<Error> refusal = refusal_before_inputs(files.xml);
    ASSERT_TRUE(refusal);
    EXPECT_EQ(refusal->code(), "unsupported-element-type") << refusal->what();
    const CheckResult r = check(files.xml);
    EXPECT_TRUE(r.valid()) << describe(r);
    EXPECT_TRUE(reports(r, *refusal)) << describe(r);
}

TEST(CheckAgreesWithRun, LargerConstSizeIsReadByBoth) {
    // size 12 for two floats: OpenVINO reads the first 8 bytes, and so do check and run.
    const float values[3] = {1.5f, -2.0f, 99.0f};
    IrBuilder b;
    b.constant(0, "w", "f32", {2}, values, sizeof values);
    b.parameter(1, "x", "f32", {2});
    b.layer(2, "sum", "Add", "opset1", "", {{0, "FP32", {2}, ""}, {1, "FP32", {2}, ""}}, {{2, "FP32", {2}, ""}});
    b.result(3, "out", "f32", {2});
    b.edge(0, 0, 2, 0).edge(1, 0, 2, 1).edge(2, 2, 3, 0);
    const ModelFiles files(b);
    const CheckResult r = check(files.xml);
    EXPECT_TRUE(r.valid()) << describe(r);
    ASSERT_EQ(r.findings.size(), 1u) << describe(r);
    EXPECT_EQ(r.findings[0].code, "const-size-larger");
    EXPECT_EQ(r.findings[0].severity, Severity::Warning);
    const CompiledModel compiled(Model::read(files.xml));
    InferRequest request = compiled.create_infer_request();
    float x[2] = {1.0f, 1.0f};
    request.set_input(0, Tensor::wrap(ElementType::f32, {2}, x));
    request.infer();
    const float* y = request.output(0).data<float>();
    EXPECT_EQ(y[0], 2.5f);
    EXPECT_EQ(y[1], -1.0f);
}

// ---- what only a prepare step refuses ------------------------------------------------------------

// irlite's ops and "PlanRefuses", whose rule accepts anything and whose prepare step refuses it:
// compiling prepares the nodes whose input shapes are static, and check must report the same.
const OpRegistry& ops_with_a_refusing_plan() {
    static const OpRegistry registry = [] {
        OpRegistry r;
        for (const OpDef& d : builtin_ops().all()) r.add(d);
        OpDef d;
        d.type = "PlanRefuses";  // not an OpenVINO op: the registry keeps the opsets it states
        d.first_opset = 1;
        d.last_opset = 1;
        d.input_roles = {"data"};
        d.min_inputs = 1;
        d.infer = [](const InferContext& ctx) { return std::vector<OutputInfo>{{ctx.type(0), ctx.shape(0)}}; };
        d.prepare = [](const InferContext& ctx) -> std::unique_ptr<OpPlan> {
            throw ctx.input_error(0, ErrorKind::Value, "plan-refuses", "the prepare step refuses every input");
        };
        d.compute = [](KernelContext& ctx) { ctx.output(0) = ctx.input(0); };
        r.add(std::move(d));
        return r;
    }();
    return registry;
}

std::shared_ptr<const IrDocument> plan_refuses_model(long long dim) {
    IrBuilder b;
    b.parameter(0, "x", "f32", {dim});
    b.layer(1, "refuses", "PlanRefuses", "opset1", "", {{0, "FP32", {dim}, ""}}, {{1, "FP32", {dim}, ""}});
    b.result(2, "out", "f32", {dim});
    b.edge(0, 0, 1, 0).edge(1, 1, 2, 0);
    return std::make_shared<const IrDocument>(read_ir_memory(b.xml(), nullptr, "plan_refuses.xml"));
}

std::vector<std::string> error_codes(const BuildResult& r) {
    std::vector<std::string> codes;
    for (const Diagnostic& d : r.diagnostics)
        if (d.severity == Severity::Error) codes.push_back(d.code);
    return codes;
}

TEST(CheckAgreesWithRun, WhatOnlyAPrepareStepRefuses) {
    BuildOptions check_mode;
    check_mode.keep_going = true;
    // Static shapes: compiling prepares the node and refuses; check runs the same step.
    const auto fixed = plan_refuses_model(4);
    try {
        const CompiledModel compiled(Model(fixed, ops_with_a_refusing_plan()));
        FAIL() << "compiled";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), "plan-refuses") << e.what();
    }
    EXPECT_EQ(error_codes(build_graph(fixed, ops_with_a_refusing_plan(), check_mode)),
              (std::vector<std::string>{"plan-refuses"}));
    // A dynamic input: the node is prepared at run time only, so neither refuses it before then.
    const auto dynamic = plan_refuses_model(-1);
    EXPECT_NO_THROW(CompiledModel(Model(dynamic, ops_with_a_refusing_plan())));
    EXPECT_TRUE(error_codes(build_graph(dynamic, ops_with_a_refusing_plan(), check_mode)).empty());
}

}  // namespace
}  // namespace irlite
