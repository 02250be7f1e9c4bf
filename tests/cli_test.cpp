// The irlite command-line tool, run as a user runs it: exit codes, what `run` writes, what
// `check` reports (text and JSON) on a model with many independent faults, `info`, and `dot`
// output that Graphviz accepts.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "compressed_ir.hpp"
#include "irlite/irlite.hpp"
#include "parser/npy.hpp"
#include "temp_dir.hpp"

namespace irlite {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

const std::string kSource = IRLITE_SOURCE_DIR;
const std::string kDemo = kSource + "/models/demo/model.xml";
const std::string kDemoInput = kSource + "/models/demo/inputs/x.npy";
const std::string kManyFaults = kSource + "/tests/data/check/many_faults.xml";

using testing::CliResult;
using testing::irlite;
using testing::run_program;
using testing::slurp;

bool has_program(const std::string& name) { return run_program({"sh", "-c", "command -v " + name}).exit_code == 0; }

int count_of(const std::string& text, const std::string& what) {
    int n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

// ---- exit codes ----------------------------------------------------------------------------

TEST(Cli, UsageErrorsExitTwo) {
    const std::vector<std::vector<std::string>> usages = {
        {},
        {"frobnicate"},
        {"run"},
        {"check"},
        {"run", kDemo, "-i"},
        {"run", kDemo, "-i", "no_equals_sign"},
        {"check", kDemo, "--shape", "x=[1,oops]"},
        {"check", kDemo, "--no-such-flag"},
    };
    for (const auto& args : usages) {
        const CliResult r = irlite(args);
        std::string shown;
        for (const auto& a : args) shown += " " + a;
        EXPECT_EQ(r.exit_code, 2) << "irlite" << shown << "\n" << r.err;
        EXPECT_FALSE(r.err.empty()) << "irlite" << shown;
    }
}

TEST(Cli, HelpExitsZero) {
    for (const char* cmd : {"run", "check", "info", "dot", "bench"}) {
        const CliResult r = irlite({cmd, "--help"});
        EXPECT_EQ(r.exit_code, 0) << cmd;
        EXPECT_NE(r.out.find("usage: irlite"), std::string::npos) << cmd;
    }
    EXPECT_EQ(irlite({"--help"}).exit_code, 0);
}

// --version says what the CPU offers and what the kernels run at.
TEST(Cli, VersionNamesTheCpuAndTheKernelLevel) {
    const CliResult r = irlite({"--version"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("cpu "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("kernels  " + irlite::active_isa()), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("GEMM"), std::string::npos) << r.out;
}

// ---- run -----------------------------------------------------------------------------------

// An FP16 model computes in f32 by default and in f16 with --precision f16; both write f16 outputs,
// and info says what the layers compute in.
TEST(Cli, PrecisionOfAnF16Model) {
    const fs::path model = fs::path(IRLITE_SOURCE_DIR) / ".." / "shared" / "models-fp16" / "resnet18_fp16" / "model.xml";
    if (!fs::exists(model)) GTEST_SKIP() << "the shared corpora are not beside this clone";
    TempDir dir;
    for (const char* precision : {"f32", "f16"}) {
        const CliResult r = irlite({"run", model.string(), "--fill", "random", "--precision", precision, "-o",
                                    dir.file(precision)});
        ASSERT_EQ(r.exit_code, 0) << r.err;
        for (const auto& entry : fs::directory_iterator(dir.file(precision)))
            EXPECT_EQ(read_npy(entry.path().string()).type(), ElementType::f16) << entry.path();
    }
    EXPECT_EQ(irlite({"run", model.string(), "--fill", "random", "--precision", "f8"}).exit_code, 2);
    const CliResult info = irlite({"info", model.string()});
    ASSERT_EQ(info.exit_code, 0) << info.err;
    EXPECT_NE(info.out.find("precision: f16/bf16 computed in f32"), std::string::npos) << info.out;
    const CliResult profile = irlite({"bench", model.string(), "-n", "2", "--profile", "--json"});
    ASSERT_EQ(profile.exit_code, 0) << profile.err;
    EXPECT_NE(profile.out.find("\"precision\": \"f32\""), std::string::npos) << profile.out.substr(0, 2000);
}

TEST(Cli, RunWritesEveryOutput) {
    TempDir dir;
    const CliResult r = irlite({"run", kDemo, "-i", "x=" + kDemoInput, "-o", dir.file("out")});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const char* name : {"head", "reversed", "patched", "scaled"}) {
        const fs::path p = dir.file("out/" + std::string(name) + ".npy");
        ASSERT_TRUE(fs::exists(p)) << p;
        const Tensor t = read_npy(p.string());
        EXPECT_EQ(t.type(), ElementType::f32) << name;
    }
    // The values models/make_demo.py computed for head: [[101, 203, 305]].
    const Tensor head = read_npy(dir.file("out/head.npy"));
    ASSERT_EQ(head.shape(), (Shape{1, 3}));
    EXPECT_EQ(head.data<float>()[0], 101.0f);
    EXPECT_EQ(head.data<float>()[2], 305.0f);
}

TEST(Cli, RunInputErrorsListWhatTheModelExpects) {
    TempDir dir;
    const CliResult missing = irlite({"run", kDemo});
    EXPECT_EQ(missing.exit_code, 1);
    EXPECT_NE(missing.err.find("'x' f32 [4,6]"), std::string::npos) << missing.err;

    const CliResult unknown = irlite({"run", kDemo, "-i", "x=" + kDemoInput, "-i", "nope=" + kDemoInput});
    EXPECT_EQ(unknown.exit_code, 1);
    EXPECT_NE(unknown.err.find("nope"), std::string::npos) << unknown.err;
    EXPECT_NE(unknown.err.find("'x' f32 [4,6]"), std::string::npos) << unknown.err;

    // A [2,2] f32 array for a [4,6] Parameter.
    Tensor small(ElementType::f32, {2, 2});
    const std::string small_path = dir.file("small.npy");
    write_npy(small_path, small);
    const CliResult wrong = irlite({"run", kDemo, "-i", "x=" + small_path});
    EXPECT_EQ(wrong.exit_code, 1);
    EXPECT_NE(wrong.err.find("[2,2]"), std::string::npos) << wrong.err;
    EXPECT_NE(wrong.err.find("[4,6]"), std::string::npos) << wrong.err;

    const CliResult no_file = irlite({"run", kDemo, "-i", "x=" + dir.file("absent.npy")});
    EXPECT_EQ(no_file.exit_code, 1);
    EXPECT_NE(no_file.err.find("absent.npy"), std::string::npos) << no_file.err;

    const CliResult no_model = irlite({"run", dir.file("absent.xml")});
    EXPECT_EQ(no_model.exit_code, 1);
    EXPECT_NE(no_model.err.find("absent.xml"), std::string::npos) << no_model.err;
}

TEST(Cli, RunFillsInputsNotGiven) {
    TempDir dir;
    // zeros: x = 0 everywhere, so head = the demo's constant part alone.
    ASSERT_EQ(irlite({"run", kDemo, "--fill", "zeros", "-o", dir.file("zeros"), "-q"}).exit_code, 0);
    ASSERT_EQ(irlite({"run", kDemo, "--fill", "ones", "-o", dir.file("ones"), "-q"}).exit_code, 0);
    const Tensor z = read_npy(dir.file("zeros/head.npy")), o = read_npy(dir.file("ones/head.npy"));
    ASSERT_EQ(z.shape(), (Shape{1, 3}));
    EXPECT_NE(z.data<float>()[0], o.data<float>()[0]);

    // random: the same seed gives the same values, another seed others; values in [0, 1).
    const auto random_head = [&](const std::string& seed, const std::string& out) {
        EXPECT_EQ(irlite({"run", kDemo, "--fill", "random", "--seed", seed, "-o", dir.file(out), "-q"}).exit_code, 0);
        return slurp(dir.file(out + "/head.npy"));
    };
    const std::string a = random_head("0", "r0"), b = random_head("0", "r0_again"), c = random_head("7", "r7");
    EXPECT_FALSE(a.empty());
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
    const CliResult shown = irlite({"run", kDemo, "--fill", "random"});
    ASSERT_EQ(shown.exit_code, 0) << shown.err;
    EXPECT_NE(shown.out.find("(random fill)"), std::string::npos) << shown.out;

    // A given input is used as given; bad modes and seeds are usage errors.
    EXPECT_EQ(irlite({"run", kDemo, "-i", "x=" + kDemoInput, "--fill", "zeros", "-o", dir.file("given"), "-q"}).exit_code, 0);
    EXPECT_EQ(read_npy(dir.file("given/head.npy")).data<float>()[0], 101.0f);
    EXPECT_EQ(irlite({"run", kDemo, "--fill", "noise"}).exit_code, 2);
    EXPECT_EQ(irlite({"run", kDemo, "--fill", "random", "--seed", "-1"}).exit_code, 2);
}

TEST(Cli, BenchSaysItFilledInputs) {
    const CliResult r = irlite({"bench", kDemo, "-n", "2", "--warmup", "0"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("inputs   random fill (seed 0) for 'x'"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("read     "), std::string::npos) << r.out;
    const CliResult given = irlite({"bench", kDemo, "-i", "x=" + kDemoInput, "-n", "2", "--load-runs", "3"});
    ASSERT_EQ(given.exit_code, 0) << given.err;
    EXPECT_EQ(given.out.find("inputs   "), std::string::npos) << given.out;
    EXPECT_NE(given.out.find("(median of 3)"), std::string::npos) << given.out;
}

// ---- check ---------------------------------------------------------------------------------

TEST(Cli, CheckOfAValidModelIsClean) {
    const CliResult r = irlite({"check", kDemo});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("0 errors, 0 warnings"), std::string::npos) << r.out;
}

// many_faults.xml has six independent faults (errors); one must not hide another. (The Result's
// FP16 precision on an f32 edge and its [3,5] dims on gather's [3,2] output are only warnings:
// OpenVINO ignores a consumer's precision, and a Result's output is what its producer makes.)
TEST(Cli, CheckReportsEveryIndependentFault) {
    const CliResult r = irlite({"check", kManyFaults});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    const std::vector<std::string> expected = {
        "many_faults.xml:29: error: [step-zero] layer 'slice' (Slice id=4) port 3 'step'",
        "many_faults.xml:46: error: [const-out-of-bin] layer 'past_the_bin' (Const id=6): offset 16 + size 48",
        "many_faults.xml:64: error: [dims-mismatch] layer 'gather' (GatherElements id=8) port 2: declared dims [3,5] "
        "differ from the inferred [3,2]",
        "many_faults.xml:69: warning: [precision-mismatch] layer 'gathered/sink' (Result id=9) port 0",
        "many_faults.xml:69: warning: [dims-mismatch] layer 'gathered/sink' (Result id=9) port 0",
        "many_faults.xml:72: error: [unknown-op] layer 'typo' (Slise id=10)",
        "did you mean 'Slice'?",
        "many_faults.xml:96: error: [edge-missing-port] layer 'typo/sink' (Result id=11)",
        "many_faults.xml:72: warning: [dead-layer] layer 'typo'",
    };
    for (const std::string& line : expected) EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n---\n" << r.out;
    EXPECT_NE(r.out.find("many_faults.xml: 6 errors, 4 warnings"), std::string::npos) << r.out;
}

TEST(Cli, CheckJsonIsOneDocumentWithEveryFinding) {
    const CliResult r = irlite({"check", "--json", kManyFaults});
    EXPECT_EQ(r.exit_code, 1);
    ASSERT_FALSE(r.out.empty());
    EXPECT_EQ(r.out.front(), '{');
    EXPECT_EQ(r.out[r.out.find_last_not_of('\n')], '}');
    for (const char* key : {"\"file\"", "\"ir_version\"", "\"valid\"", "\"errors\"", "\"summary\"", "\"code\"",
                            "\"severity\"", "\"line\"", "\"layer_id\"", "\"layer_name\"", "\"layer_type\"", "\"port\"",
                            "\"message\"", "\"declared\"", "\"inferred\"", "\"warnings\""})
        EXPECT_NE(r.out.find(key), std::string::npos) << key;
    EXPECT_EQ(count_of(r.out, "\"severity\":\"error\"") + count_of(r.out, "\"severity\": \"error\""), 6) << r.out;
    EXPECT_EQ(count_of(r.out, "\"severity\":\"warning\"") + count_of(r.out, "\"severity\": \"warning\""), 4) << r.out;
    if (has_program("python3")) {
        const CliResult parsed = run_program(
            {"python3", "-c", "import json,sys; d=json.loads(sys.argv[1]); assert d['valid'] is False; "
                              "assert d['summary'] == {'errors': 6, 'warnings': 4}, d['summary']; "
                              "assert [e['declared'] for e in d['errors'] if e['code'] == 'dims-mismatch'][0] == '[3,5]'",
             r.out});
        EXPECT_EQ(parsed.exit_code, 0) << parsed.err;
    }
}

// Several models in one call (as `irlite check models/*.xml`): each is reported as alone, the exit
// code says whether any has an error, and --json gives an array of the per-model documents.
TEST(Cli, CheckOfSeveralModels) {
    const CliResult text = irlite({"check", kDemo, kManyFaults});
    EXPECT_EQ(text.exit_code, 1) << text.err;
    const size_t demo = text.out.find("0 errors, 0 warnings");
    const size_t faults = text.out.find("many_faults.xml: 6 errors, 4 warnings");
    ASSERT_NE(demo, std::string::npos) << text.out;
    ASSERT_NE(faults, std::string::npos) << text.out;
    EXPECT_LT(demo, faults) << "reports in the order given";
    EXPECT_EQ(irlite({"check", kDemo, kDemo}).exit_code, 0);
    const CliResult json = irlite({"check", "--json", kManyFaults, kDemo});
    EXPECT_EQ(json.exit_code, 1);
    ASSERT_FALSE(json.out.empty());
    EXPECT_EQ(json.out.front(), '[') << json.out;
    if (has_program("python3")) {
        const CliResult parsed = run_program(
            {"python3", "-c", "import json,sys; d=json.loads(sys.argv[1]); assert len(d) == 2; "
                              "assert [x['valid'] for x in d] == [False, True], d; "
                              "assert d[0]['summary'] == {'errors': 6, 'warnings': 4}",
             json.out});
        EXPECT_EQ(parsed.exit_code, 0) << parsed.err;
    }
    const CliResult weights = irlite({"check", kDemo, kManyFaults, "-w", "x.bin"});
    EXPECT_EQ(weights.exit_code, 2) << weights.out;
    EXPECT_NE(weights.err.find("2 models were given"), std::string::npos) << weights.err;
}

TEST(Cli, CheckWithAShapeOverride) {
    // The demo's x is [4,6]; checked as [5,6], the declared dims downstream no longer hold.
    const CliResult r = irlite({"check", kDemo, "--shape", "x=[5,6]"});
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_NE(r.out.find("[dims-mismatch]"), std::string::npos) << r.out;
    const CliResult unknown = irlite({"check", kDemo, "--shape", "nope=[5,6]"});
    EXPECT_EQ(unknown.exit_code, 2) << unknown.out << unknown.err;
}

TEST(Cli, RunAndBenchWithAShapeOverride) {
    // A Parameter with a dynamic dim: --fill cannot choose it, --shape does (Model::reshape).
    TempDir dir;
    const std::string xml = dir.file("dyn.xml");
    std::ofstream(xml) << R"(<?xml version="1.0"?>
<net name="dyn" version="11"><layers>
<layer id="0" name="x" type="Parameter" version="opset1"><data shape="?,2" element_type="f32"/>
<output><port id="0" precision="FP32" names="x"><dim>-1</dim><dim>2</dim></port></output></layer>
<layer id="1" name="r" type="ReLU" version="opset1"><input><port id="0"><dim>-1</dim><dim>2</dim></port></input>
<output><port id="1" precision="FP32" names="y"><dim>-1</dim><dim>2</dim></port></output></layer>
<layer id="2" name="y/sink_port_0" type="Result" version="opset1"><input><port id="0"><dim>-1</dim><dim>2</dim></port></input></layer>
</layers><edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/><edge from-layer="1" from-port="1" to-layer="2" to-port="0"/></edges></net>
)";
    const CliResult without = irlite({"run", xml, "--fill", "ones"});
    EXPECT_EQ(without.exit_code, 1) << without.out << without.err;
    const CliResult run = irlite({"run", xml, "--fill", "ones", "--shape", "x=[3,2]", "-o", dir.file("out")});
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
    EXPECT_NE(slurp(dir.file("out") + "/y.npy").find("(3, 2)"), std::string::npos);
    const CliResult bench = irlite({"bench", xml, "--shape", "x=[3,2]", "-n", "2"});
    EXPECT_EQ(bench.exit_code, 0) << bench.out << bench.err;
    const CliResult unknown = irlite({"run", xml, "--fill", "ones", "--shape", "nope=[3,2]"});
    EXPECT_EQ(unknown.exit_code, 2) << unknown.out << unknown.err;
    EXPECT_NE(unknown.err.find("no Parameter named 'nope'"), std::string::npos) << unknown.err;
}

TEST(Cli, CheckOfAFileThatIsNotXml) {
    TempDir dir;
    const std::string path = dir.file("junk.xml");
    std::ofstream(path) << "this is <not xml";
    const CliResult r = irlite({"check", path});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("[xml-malformed]"), std::string::npos) << r.out;
}

// ---- info and dot --------------------------------------------------------------------------

TEST(Cli, InfoSummarisesTheModel) {
    const CliResult r = irlite({"info", kDemo});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const char* part : {"inputs (1)", "outputs (4)", "GatherElements", "opset6", "Const data"})
        EXPECT_NE(r.out.find(part), std::string::npos) << part << "\n" << r.out;
    const CliResult json = irlite({"info", "--json", kDemo});
    ASSERT_EQ(json.exit_code, 0) << json.err;
    EXPECT_EQ(json.out.front(), '{');
}

// `info` counts the layers that run in int8, and `--no-int8` none.
TEST(Cli, InfoCountsInt8Layers) {
    const std::string xml = std::string(IRLITE_SOURCE_DIR) + "/../shared/models-int8/resnet18_int8/model.xml";
    if (!std::filesystem::exists(xml)) GTEST_SKIP() << "no " << xml;
    const CliResult r = irlite({"info", xml});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("int8:    20 Convolution, 1 MatMul"), std::string::npos) << r.out;
    const CliResult json = irlite({"info", "--json", xml});
    const size_t at = json.out.find("\"int8\": [");
    ASSERT_NE(at, std::string::npos) << json.out;
    const std::string list = json.out.substr(at, json.out.find(']', at) - at);
    EXPECT_NE(list.find("\"count\": 20"), std::string::npos) << list;
    EXPECT_NE(list.find("\"Convolution\""), std::string::npos) << list;
    const CliResult off = irlite({"info", "--no-int8", xml});
    EXPECT_EQ(off.out.find("int8:"), std::string::npos) << off.out;
}

// `info` counts the layers that read compressed weights, and `--no-int8` none; `bench --profile`
// names their method.
TEST(Cli, InfoCountsCompressedWeightLayers) {
    TempDir dir;
    testing::CompressedLinear c;
    c.f16 = true;
    const testing::BuiltLinear b = testing::build_compressed_linear(c);
    const std::string xml = dir.write("model.xml", b.xml);
    dir.write("model.bin", std::string(b.weights.begin(), b.weights.end()));
    const CliResult r = irlite({"info", xml});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("compressed: 1 MatMul"), std::string::npos) << r.out;
    const CliResult json = irlite({"info", "--json", xml});
    EXPECT_NE(json.out.find("\"compressed\": ["), std::string::npos) << json.out;
    const CliResult off = irlite({"info", "--no-int8", xml});
    EXPECT_EQ(off.out.find("compressed:"), std::string::npos) << off.out;
    const CliResult bench = irlite({"bench", xml, "-n", "2", "--profile"});
    ASSERT_EQ(bench.exit_code, 0) << bench.err;
    EXPECT_NE(bench.out.find("compressed-u4"), std::string::npos) << bench.out;
}

TEST(Cli, DotIsValidGraphvizWithFindingsInRed) {
    TempDir dir;
    const std::string dot = dir.file("g.dot");
    const CliResult r = irlite({"dot", kManyFaults, "-o", dot});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string text = slurp(dot);
    EXPECT_EQ(text.rfind("digraph", 0), 0u) << text.substr(0, 80);
    EXPECT_NE(text.find("Slice-opset8"), std::string::npos);
    EXPECT_NE(text.find("red"), std::string::npos);
    EXPECT_NE(text.find("step must not be 0"), std::string::npos);  // the finding as a tooltip
    if (!has_program("dot")) GTEST_SKIP() << "graphviz (dot) is not installed; the DOT text was not rendered";
    for (const std::string& model : {kManyFaults, kDemo}) {
        ASSERT_EQ(irlite({"dot", model, "-o", dot}).exit_code, 0);
        const CliResult svg = run_program({"dot", "-Tsvg", dot, "-o", dir.file("g.svg")});
        EXPECT_EQ(svg.exit_code, 0) << model << ": " << svg.err;
        EXPECT_NE(slurp(dir.file("g.svg")).find("<svg"), std::string::npos) << model;
    }
}

}  // namespace
}  // namespace irlite
