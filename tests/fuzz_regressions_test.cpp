// Bugs the fuzzers found (tests/fuzz/, scripts/fuzz.sh), one test each, so that they stay fixed,
// and a replay of every input kept in tests/data/fuzz/<harness>/ through what the harness does
// with it (tests/fuzz/targets.hpp). fuzz_graph inputs need libFuzzer's FuzzedDataProvider to
// decode, so their findings are restated here as plain models; the raw inputs seed the fuzz_graph
// corpus in scripts/fuzz.sh.
#include <gtest/gtest.h>
#include <dirent.h>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "irlite/irlite.hpp"
#include "fuzz/targets.hpp"
#include "ir_builder.hpp"
#include "op_tester.hpp"

namespace irlite {
namespace {

using testing::IrBuilder;
using testing::throws_error;

Model load(const IrBuilder& b) {
    static const unsigned char none = 0;
    return Model::read_from_memory(b.xml(), b.weights().empty() ? &none : b.weights().data(), b.weights().size());
}

std::vector<std::string> files_in(const std::string& dir) {
    std::vector<std::string> out;
    if (DIR* d = opendir(dir.c_str())) {
        while (const dirent* e = readdir(d))
            if (e->d_name[0] != '.') out.push_back(dir + "/" + e->d_name);
        closedir(d);
    }
    return out;
}

std::vector<uint8_t> read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

class FuzzLimit {
public:
    FuzzLimit() : saved_(max_tensor_bytes()) { set_max_tensor_bytes(fuzz::kFuzzTensorLimit); }
    ~FuzzLimit() { set_max_tensor_bytes(saved_); }

private:
    size_t saved_;
};

// ---- kept inputs -----------------------------------------------------------------------------

TEST(FuzzRegressions, KeptIrInputs) {
    const FuzzLimit limit;
    for (const std::string& path : files_in(std::string(IRLITE_SOURCE_DIR) + "/tests/data/fuzz/fuzz_ir")) {
        SCOPED_TRACE(path);
        const std::vector<uint8_t> bytes = read_bytes(path);
        EXPECT_EQ(fuzz::run_ir_input(bytes.data(), bytes.size()), "");
    }
}

TEST(FuzzRegressions, KeptNpyInputs) {
    const FuzzLimit limit;
    for (const std::string& path : files_in(std::string(IRLITE_SOURCE_DIR) + "/tests/data/fuzz/fuzz_npy")) {
        SCOPED_TRACE(path);
        const std::vector<uint8_t> bytes = read_bytes(path);
        EXPECT_EQ(fuzz::run_npy_input(bytes.data(), bytes.size()), "");
    }
}

// ---- fuzz_graph findings ---------------------------------------------------------------------

// A Const whose offset is not a multiple of its element size (the .bin has no padding: an i64
// after a 1-byte i8) was a misaligned view, read as int64 by the kernels (UBSan: "load of
// misaligned address"). Such a Const now gets an aligned copy.
// ---- sub-graph models (tests/data/fuzz/fuzz_graph_models/, written by hand from fuzz_graph's
// findings; each file's comment says what it computes) ------------------------------------------

// Runs a model of that folder on x = [1, 2, 3] and s0 = [10]: each output's values by name.
std::map<std::string, std::vector<float>> run_state_model(const std::string& file) {
    const Model model = Model::read(std::string(IRLITE_SOURCE_DIR) + "/tests/data/fuzz/fuzz_graph_models/" + file);
    const CompiledModel compiled(model);
    InferRequest req = compiled.create_infer_request();
    float x[3] = {1, 2, 3}, s0[1] = {10};
    req.set_input("x", Tensor::wrap(ElementType::f32, {3}, x));
    req.set_input("s0", Tensor::wrap(ElementType::f32, {1}, s0));
    std::map<std::string, std::vector<float>> out;
    for (int run = 0; run < 2; ++run) {  // the second run reuses the layer's state
        req.infer();
        for (const PortInfo& o : compiled.outputs()) {
            const Tensor& t = req.output(o.name);
            out[o.name] = std::vector<float>(t.data<float>(), t.data<float>() + t.num_elements());
        }
    }
    return out;
}

// A body Result fed directly by the Parameter a back edge feeds gave the next iteration's state as
// its last value (16), not the state the last iteration started from.
TEST(FuzzRegressions, ResultOfABackEdgedParameterGivesTheLastIterationsValue) {
    const auto out = run_state_model("back_edged_parameter_result.xml");
    EXPECT_EQ(out.at("state_in_last"), (std::vector<float>{13}));
    EXPECT_EQ(out.at("state_in_all"), (std::vector<float>{10, 11, 13}));
}

// A body Parameter that feeds nothing was dropped by the graph builder, and the body then no
// longer matched its port map: "could not be built".
TEST(FuzzRegressions, BodyParameterThatFeedsNothingIsKept) {
    const auto out = run_state_model("unused_body_parameter.xml");
    EXPECT_EQ(out.at("state_last"), (std::vector<float>{80}));
    EXPECT_EQ(out.at("state_all"), (std::vector<float>{20, 40, 80}));
}

TEST(FuzzRegressions, MisalignedConstIsReadCorrectly) {
    IrBuilder b;
    const int8_t start = 1;
    const int64_t stop = 3;
    const int64_t step = 1;
    b.parameter(0, "x", "f32", {4});
    b.constant(1, "start", "i8", {1}, &start, sizeof start);  // offset 0
    b.constant(2, "stop", "i64", {1}, &stop, sizeof stop);     // offset 1: misaligned
    b.constant(3, "step", "i64", {1}, &step, sizeof step);     // offset 9: misaligned
    b.layer(4, "slice", "Slice", "opset8", "", {{0, "", {4}, ""}, {1, "", {1}, ""}, {2, "", {1}, ""}, {3, "", {1}, ""}},
            {{4, "FP32", {2}, ""}});
    b.result(5, "out", "f32", {2});
    b.edge(0, 0, 4, 0).edge(1, 0, 4, 1).edge(2, 0, 4, 2).edge(3, 0, 4, 3).edge(4, 4, 5, 0);
    const CompiledModel m(load(b));
    InferRequest req = m.create_infer_request();
    float x[4] = {10, 11, 12, 13};
    req.set_input(0, Tensor::wrap(ElementType::f32, {4}, x));
    req.infer();
    ASSERT_EQ(req.output(0).shape(), (Shape{2}));
    EXPECT_EQ(req.output(0).data<float>()[0], 11.0f);
    EXPECT_EQ(req.output(0).data<float>()[1], 12.0f);
}

// Output shapes inferred as static at load time from a dynamic input ([0] + [?] -> [0]) were
// reused at run time without checking the real input: [0] + [2] ran as if valid. Now the rule
// runs again whenever an input shape was not static at load time.
TEST(FuzzRegressions, StaticOutputOfADynamicInputIsCheckedAtRunTime) {
    IrBuilder b;
    b.constant(0, "empty", "f32", {0}, nullptr, 0);
    b.parameter(1, "x", "f32", {-1});
    b.layer(2, "add", "Add", "opset1", "", {{0, "", {0}, ""}, {1, "", {-1}, ""}}, {{2, "FP32", {-1}, ""}});
    b.result(3, "out", "f32", {-1});
    b.edge(0, 0, 2, 0).edge(1, 0, 2, 1).edge(2, 2, 3, 0);
    const CompiledModel m(load(b));
    InferRequest req = m.create_infer_request();
    float x[2] = {1, 2};
    req.set_input(0, Tensor::wrap(ElementType::f32, {2}, x));
    EXPECT_TRUE(throws_error([&] { req.infer(); }, ErrorKind::ShapeRule, "broadcast-incompatible", "[0] and [2]"));
    float one = 1;
    req.set_input(0, Tensor::wrap(ElementType::f32, {1}, &one));
    req.infer();
    EXPECT_EQ(req.output(0).shape(), (Shape{0}));
}

// The same hole with a kernel that trusts its shapes: GatherElements' output [1,2] is static at
// load time for data [?,?], but data [3,5] at run time breaks the non-axis dims rule.
TEST(FuzzRegressions, GatherElementsChecksRunTimeDataShape) {
    IrBuilder b;
    const int64_t indices[2] = {0, 1};
    b.parameter(0, "x", "f32", {-1, -1});
    b.constant(1, "indices", "i64", {1, 2}, indices, sizeof indices);
    b.layer(2, "gather", "GatherElements", "opset6", "axis=\"0\"", {{0, "", {-1, -1}, ""}, {1, "", {1, 2}, ""}},
            {{2, "FP32", {1, 2}, ""}});
    b.result(3, "out", "f32", {1, 2});
    b.edge(0, 0, 2, 0).edge(1, 0, 2, 1).edge(2, 2, 3, 0);
    const CompiledModel m(load(b));
    InferRequest req = m.create_infer_request();
    std::vector<float> x(15, 1.0f);
    req.set_input(0, Tensor::wrap(ElementType::f32, {3, 5}, x.data()));
    try {
        req.infer();
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::ShapeRule) << e.what();
        EXPECT_NE(std::string(e.what()).find("GatherElements layer id=2"), std::string::npos) << e.what();
    }
}

// Slice with a negative step and a start still below 0 after adding the dim: Python's rule (numpy,
// OpenVINO's shape inference, the generated corpus) takes nothing. A fuzzer once saw the kernel
// and the shape rule disagree here. data [-2, -8], start INT8_MIN, stop -3, step -2 -> [].
TEST(FuzzRegressions, SliceNegativeStepStartBeforeFirstElementIsEmpty) {
    IrBuilder b;
    const int8_t start = INT8_MIN;
    const int16_t stop = -3;
    const int64_t step = -2;
    b.parameter(0, "x", "i16", {2});
    b.constant(1, "start", "i8", {1}, &start, sizeof start);
    b.constant(2, "stop", "i16", {1}, &stop, sizeof stop);
    b.constant(3, "step", "i64", {1}, &step, sizeof step);
    b.layer(4, "slice", "Slice", "opset8", "", {{0, "", {2}, ""}, {1, "", {1}, ""}, {2, "", {1}, ""}, {3, "", {1}, ""}},
            {{4, "I16", {0}, ""}});
    b.result(5, "out", "i16", {0});
    b.edge(0, 0, 4, 0).edge(1, 0, 4, 1).edge(2, 0, 4, 2).edge(3, 0, 4, 3).edge(4, 4, 5, 0);
    const CompiledModel m(load(b));
    InferRequest req = m.create_infer_request();
    int16_t x[2] = {-2, -8};
    req.set_input(0, Tensor::wrap(ElementType::i16, {2}, x));
    req.infer();
    EXPECT_EQ(req.output(0).shape(), (Shape{0}));
}

}  // namespace
}  // namespace irlite
