// Issue 11: rules where irlite was stricter than OpenVINO on IR that OpenVINO writes and reads.
// One regression test per false finding, each on a minimal IR written here (not copied from the
// files in ../shared/wild-ir), checked in check mode (every finding collected) and, where irlite
// can run it, compiled and run.
#include <gtest/gtest.h>

#include <cstring>

#include "engine/graph.hpp"
#include "irlite/irlite.hpp"
#include "ir_builder.hpp"
#include "op_tester.hpp"
#include "parser/ir_reader.hpp"
#include "kernels/all_ops.hpp"

namespace irlite {
namespace {

using testing::IrBuilder;
using testing::throws_error;

// The weights of `b`, or none at all (a model checked without its .bin).
std::shared_ptr<WeightsBlob> weights_of(const IrBuilder& b) {
    auto bytes = std::make_shared<std::vector<unsigned char>>(b.weights());
    auto w = std::make_shared<WeightsBlob>();
    w->data = reinterpret_cast<const std::byte*>(bytes->data());
    w->size = bytes->size();
    w->owner = bytes;
    return w;
}

BuildResult check(const IrBuilder& b, bool with_weights = true) {
    BuildOptions opt;
    opt.keep_going = true;
    auto doc = std::make_shared<const IrDocument>(
        read_ir_memory(b.xml(), with_weights ? weights_of(b) : nullptr, "test.xml"));
    return build_graph(doc, builtin_ops(), opt);
}

// "code" of every finding of the severity, for messages and EXPECTs.
std::vector<std::string> codes(const BuildResult& r, Severity s) {
    std::vector<std::string> out;
    for (const Diagnostic& d : r.diagnostics)
        if (d.severity == s) out.push_back(d.code);
    return out;
}

std::string all_findings(const BuildResult& r) {
    std::string out;
    for (const Diagnostic& d : r.diagnostics) out += d.format() + "\n";
    return out;
}

#define EXPECT_NO_ERRORS(r) EXPECT_TRUE(codes(r, Severity::Error).empty()) << all_findings(r)

const Diagnostic* find_code(const BuildResult& r, const std::string& code) {
    for (const Diagnostic& d : r.diagnostics)
        if (d.code == code) return &d;
    return nullptr;
}

Model load(const IrBuilder& b) {
    static const unsigned char none = 0;
    const auto& w = b.weights();
    return Model::read_from_memory(b.xml(), w.empty() ? &none : w.data(), w.size());
}

// ---- Assign has one output --------------------------------------------------------------------

// ReadValue(init = x) -> Add(+x) -> Assign, and the sum to a Result; the Assign declares the
// pass-through output OpenVINO's serializer writes (feeding nothing).
IrBuilder accumulator(bool assign_declares_output) {
    IrBuilder b;
    b.parameter(0, "x", "f32", {2});
    b.layer(1, "state", "ReadValue", "opset6", "variable_id=\"acc\"", {{0, "FP32", {2}, ""}}, {{1, "FP32", {2}, ""}});
    b.layer(2, "sum", "Add", "opset1", "", {{0, "FP32", {2}, ""}, {1, "FP32", {2}, ""}}, {{2, "FP32", {2}, "sum"}});
    std::vector<testing::PortSpec> outputs;
    if (assign_declares_output) outputs.push_back({1, "FP32", {2}, ""});
    b.layer(3, "store", "Assign", "opset6", "variable_id=\"acc\"", {{0, "FP32", {2}, ""}}, outputs);
    b.result(4, "out", "f32", {2});
    b.edge(0, 0, 1, 0).edge(1, 1, 2, 0).edge(0, 0, 2, 1).edge(2, 2, 3, 0).edge(2, 2, 4, 0);
    return b;
}

TEST(WildIr, AssignDeclaresItsPassThroughOutput) {
    for (const bool declared : {true, false}) {
        SCOPED_TRACE(declared ? "with output port" : "without output port");
        const BuildResult r = check(accumulator(declared));
        EXPECT_NO_ERRORS(r);
        const CompiledModel m(load(accumulator(declared)));
        InferRequest req = m.create_infer_request();
        float x[2] = {1.0f, 2.0f};
        req.set_input(0, Tensor::wrap(ElementType::f32, {2}, x));
        req.infer();  // state = x, sum = 2x
        req.infer();  // state = 2x, sum = 3x
        EXPECT_EQ(req.output(0).data<float>()[1], 6.0f);
    }
}

// ---- PReLU converts its slope ----------------------------------------------------------------

TEST(WildIr, PReluWithAnF32SlopeOnF16Data) {
    IrBuilder b(10);
    const float slope[3] = {0.5f, 0.25f, 2.0f};
    b.parameter(0, "x", "f16", {1, 3, 2});
    b.constant(1, "slope", "f32", {3}, slope, sizeof slope);
    b.layer(2, "prelu", "PReLU", "opset1", "", {{0, "FP16", {1, 3, 2}, ""}, {1, "FP32", {3}, ""}},
            {{2, "FP16", {1, 3, 2}, ""}});
    b.result(3, "out", "f16", {1, 3, 2});
    b.edge(0, 0, 2, 0).edge(1, 0, 2, 1).edge(2, 2, 3, 0);
    EXPECT_NO_ERRORS(check(b));
    const CompiledModel m(load(b));
    InferRequest req = m.create_infer_request();
    const float in[6] = {-2, 2, -4, 4, -1, 1};
    uint16_t x[6];
    for (int i = 0; i < 6; ++i) x[i] = f32_to_f16(in[i]);
    req.set_input(0, Tensor::wrap(ElementType::f16, {1, 3, 2}, x));
    req.infer();
    const Tensor& y = req.output(0);
    ASSERT_EQ(y.type(), ElementType::f16);
    const float expected[6] = {-1, 2, -1, 4, -2, 1};
    for (int i = 0; i < 6; ++i) EXPECT_EQ(f16_to_f32(y.data<float16>()[i].bits), expected[i]) << i;
}

// ---- precisions OpenVINO ignores --------------------------------------------------------------

// MaxPool-8 whose unused i64 indices output declares FP32 (as POT writes it).
IrBuilder max_pool(const std::string& indices_precision, bool indices_used) {
    IrBuilder b;
    b.parameter(0, "x", "f32", {1, 1, 4});
    b.layer(1, "pool", "MaxPool", "opset8",
            "strides=\"2\" dilations=\"1\" pads_begin=\"0\" pads_end=\"0\" kernel=\"2\" rounding_type=\"floor\" "
            "auto_pad=\"explicit\" index_element_type=\"i64\" axis=\"0\"",
            {{0, "FP32", {1, 1, 4}, ""}}, {{1, "FP32", {1, 1, 2}, ""}, {2, indices_precision, {1, 1, 2}, ""}});
    b.result(2, "out", "f32", {1, 1, 2});
    b.edge(0, 0, 1, 0).edge(1, 1, 2, 0);
    if (indices_used) {
        b.result(3, "indices", "i64", {1, 1, 2});
        b.edge(1, 2, 3, 0);
    }
    return b;
}

TEST(WildIr, PrecisionOfAnOutputThatFeedsNothingIsIgnored) {
    EXPECT_NO_ERRORS(check(max_pool("FP32", false)));
    EXPECT_EQ(find_code(check(max_pool("FP32", false)), "precision-mismatch"), nullptr);
    // Where the output is used, the declaration is the tensor's type and must be right.
    const BuildResult used = check(max_pool("FP32", true));
    ASSERT_NE(find_code(used, "precision-mismatch"), nullptr) << all_findings(used);
    EXPECT_EQ(find_code(used, "precision-mismatch")->severity, Severity::Error);
    EXPECT_NO_ERRORS(check(max_pool("I64", true)));
}

TEST(WildIr, ConsumerPrecisionIsOnlyAWarning) {
    // A Result declaring FP32 on an i32 edge: OpenVINO takes the producer's type.
    IrBuilder b;
    b.parameter(0, "x", "i32", {2});
    b.layer(1, "out", "Result", "opset1", "", {{0, "FP32", {2}, ""}}, {});
    b.edge(0, 0, 1, 0);
    const BuildResult r = check(b);
    EXPECT_NO_ERRORS(r);
    ASSERT_NE(find_code(r, "precision-mismatch"), nullptr);
    EXPECT_EQ(find_code(r, "precision-mismatch")->severity, Severity::Warning);
}

// ---- Const size -------------------------------------------------------------------------------

IrBuilder const_model(const std::string& type, const std::string& shape, const std::vector<long long>& dims,
                      int size, const std::string& precision) {
    IrBuilder b;
    const unsigned char bytes[16] = {};
    b.constant(0, "c", "u8", {16}, bytes, sizeof bytes);  // the bytes the Const under test points into
    b.layer(1, "k", "Const", "opset1",
            "element_type=\"" + type + "\" shape=\"" + shape + "\" offset=\"0\" size=\"" + std::to_string(size) + "\"", {},
            {{0, precision, dims, ""}});
    b.result(2, "out", type, dims);
    b.result(3, "bytes", "u8", {16});
    b.edge(1, 0, 2, 0).edge(0, 0, 3, 0);
    return b;
}

// OpenVINO's serialization fixture ovtest_nms5_dynamism declares [10,3] on a Result fed by
// NonMaxSuppression-5's [1] valid_outputs. A Result's declared dims are a warning: it checks with
// one and runs, giving the producer's shape. Into a layer that computes, the same contradiction
// stays an error (the corpus's generated/neg_edge_dims_disagree).
TEST(WildIr, ResultDeclaringOtherDimsIsAWarningAndRuns) {
    const auto model = [](const char* consumer) {
        IrBuilder b;
        b.parameter(0, "x", "f32", {2});
        b.layer(1, "relu", "ReLU", "opset1", "", {{0, "FP32", {2}, ""}}, {{1, "FP32", {2}, ""}});
        if (std::string(consumer) == "Result") {
            b.layer(2, "out", "Result", "opset1", "", {{0, "FP32", {10, 3}, ""}}, {});
            b.edge(0, 0, 1, 0).edge(1, 1, 2, 0);
        } else {
            b.layer(2, "neg", "Negative", "opset1", "", {{0, "FP32", {10, 3}, ""}}, {{1, "FP32", {2}, ""}});
            b.result(3, "out", "f32", {2});
            b.edge(0, 0, 1, 0).edge(1, 1, 2, 0).edge(2, 1, 3, 0);
        }
        return b;
    };
    const BuildResult r = check(model("Result"));
    EXPECT_NO_ERRORS(r);
    EXPECT_EQ(codes(r, Severity::Warning), (std::vector<std::string>{"dims-mismatch"})) << all_findings(r);
    const CompiledModel compiled(Model::read_from_memory(model("Result").xml(), nullptr, 0));
    InferRequest request = compiled.create_infer_request();
    float x[] = {-1.0f, 2.0f};
    request.set_input(0, Tensor::wrap(ElementType::f32, {2}, x));
    request.infer();
    EXPECT_EQ(request.output(0).shape(), (Shape{2}));
    const BuildResult into_op = check(model("Negative"));
    EXPECT_EQ(codes(into_op, Severity::Error), (std::vector<std::string>{"dims-mismatch"})) << all_findings(into_op);
}

TEST(WildIr, EmptyConstWrittenWithSizeOne) {
    const BuildResult r = check(const_model("u8", "0", {0}, 1, "U8"));
    EXPECT_NO_ERRORS(r);
    EXPECT_TRUE(codes(r, Severity::Warning).empty()) << all_findings(r);  // OpenVINO's own way
}

TEST(WildIr, LargerConstSizeIsAWarning) {
    const BuildResult r = check(const_model("f32", "2", {2}, 12, "FP32"));
    EXPECT_NO_ERRORS(r);
    ASSERT_NE(find_code(r, "const-size-larger"), nullptr) << all_findings(r);
    EXPECT_EQ(find_code(r, "const-size-larger")->severity, Severity::Warning);
    // irlite run reads the first bytes too, as OpenVINO does (issue 24: run is no stricter than
    // check without a reason), with the same warning in its log.
    EXPECT_NO_THROW(CompiledModel(load(const_model("f32", "2", {2}, 12, "FP32"))));
    EXPECT_NO_THROW(CompiledModel(load(const_model("u8", "0", {0}, 1, "U8"))));
    // A smaller size is still an error.
    EXPECT_NE(find_code(check(const_model("f32", "2", {2}, 4, "FP32")), "const-size-mismatch"), nullptr);
}

// ---- ids over the whole u64 range --------------------------------------------------------------

TEST(WildIr, LayerIdsAboveInt64Max) {
    const std::string big = "18446744073709551615", other = "9223372036854775808";
    const std::string xml = "<?xml version=\"1.0\"?><net name=\"ids\" version=\"11\"><layers>"
                            "<layer id=\"" + big + "\" name=\"x\" type=\"Parameter\" version=\"opset1\">"
                            "<data shape=\"2\" element_type=\"f32\"/><output><port id=\"0\" precision=\"FP32\">"
                            "<dim>2</dim></port></output></layer>"
                            "<layer id=\"" + other + "\" name=\"out\" type=\"Result\" version=\"opset1\">"
                            "<input><port id=\"0\"><dim>2</dim></port></input></layer></layers><edges>"
                            "<edge from-layer=\"" + big + "\" from-port=\"0\" to-layer=\"" + other +
                            "\" to-port=\"0\"/></edges></net>";
    BuildOptions opt;
    opt.keep_going = true;
    const BuildResult r =
        build_graph(std::make_shared<const IrDocument>(read_ir_memory(xml, nullptr, "ids.xml")), builtin_ops(), opt);
    EXPECT_TRUE(r.diagnostics.empty()) << all_findings(r);
}

// ---- opsets ------------------------------------------------------------------------------------

TEST(WildIr, ExperimentalVersionIsTheOpset6Definition) {
    IrBuilder b(10);
    b.parameter(0, "rois", "f32", {4, 4});
    b.parameter(1, "probs", "f32", {4});
    b.layer(2, "topk", "ExperimentalDetectronTopKROIs", "experimental", "max_rois=\"2\"",
            {{0, "FP32", {4, 4}, ""}, {1, "FP32", {4}, ""}}, {{2, "FP32", {2, 4}, ""}});
    b.result(3, "out", "f32", {2, 4});
    b.edge(0, 0, 2, 0).edge(1, 0, 2, 1).edge(2, 2, 3, 0);
    const BuildResult r = check(b);
    EXPECT_NO_ERRORS(r);
    EXPECT_EQ(find_code(r, "unsupported-op"), nullptr) << all_findings(r);
    ASSERT_NE(r.graph, nullptr);
    const Node* topk = nullptr;
    for (const Node& n : r.graph->nodes)
        if (n.layer->name == "topk") topk = &n;
    ASSERT_NE(topk, nullptr);
    ASSERT_NE(topk->def, nullptr);
    EXPECT_EQ(topk->def->type, "ExperimentalDetectronTopKROIs");
    EXPECT_EQ(topk->def->version, 6);
    // And it runs: the two ROIs of highest probability, best first.
    const CompiledModel m(load(b));
    InferRequest req = m.create_infer_request();
    float rois[16] = {0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4};
    float probs[4] = {0.25f, 0.75f, 0.5f, 0.125f};
    req.set_input(0, Tensor::wrap(ElementType::f32, {4, 4}, rois));
    req.set_input(1, Tensor::wrap(ElementType::f32, {4}, probs));
    req.infer();
    const Tensor& y = req.output(0);
    ASSERT_EQ(y.shape(), (Shape{2, 4}));
    EXPECT_EQ(std::vector<float>(y.data<float>(), y.data<float>() + 8), (std::vector<float>{1, 1, 2, 2, 2, 2, 3, 3}));
}

TEST(WildIr, MvnWrittenAsOpset1IsLookedUpInOpset2) {
    IrBuilder b(10);
    b.parameter(0, "x", "f32", {1, 2, 3});
    b.layer(1, "mvn", "MVN", "opset1", "eps=\"1e-9\" across_channels=\"false\" normalize_variance=\"true\"",
            {{0, "FP32", {1, 2, 3}, ""}}, {{1, "FP32", {1, 2, 3}, ""}});
    b.result(2, "out", "f32", {1, 2, 3});
    b.edge(0, 0, 1, 0).edge(1, 1, 2, 0);
    const BuildResult r = check(b);
    EXPECT_TRUE(r.diagnostics.empty()) << all_findings(r);
}

// A layer of a custom opset, its output feeding an Add whose other input does not broadcast.
IrBuilder custom_op(const std::string& version, long long other_dim) {
    IrBuilder b;
    b.parameter(0, "x", "f32", {2, 3});
    b.parameter(1, "y", "f32", {2, other_dim});
    b.layer(2, "custom", "Voxelize", version, "", {{0, "FP32", {2, 3}, ""}}, {{1, "FP32", {2, 3}, ""}});
    b.layer(3, "sum", "Add", "opset1", "", {{0, "FP32", {2, 3}, ""}, {1, "FP32", {2, other_dim}, ""}},
            {{2, "FP32", {2, 3}, ""}});
    b.result(4, "out", "f32", {2, 3});
    b.edge(0, 0, 2, 0).edge(2, 1, 3, 0).edge(1, 0, 3, 1).edge(3, 2, 4, 0);
    return b;
}

TEST(WildIr, CustomOpsetsAreAWarningAndCheckedDownstream) {
    for (const char* version : {"extension", "custom_opset", "opset99"}) {
        SCOPED_TRACE(version);
        const BuildResult r = check(custom_op(version, 3));
        EXPECT_NO_ERRORS(r);
        const Diagnostic* d = find_code(r, "unsupported-op");
        ASSERT_NE(d, nullptr) << all_findings(r);
        EXPECT_EQ(d->severity, Severity::Warning);
        // Its declared output is checked downstream.
        EXPECT_FALSE(codes(check(custom_op(version, 4)), Severity::Error).empty());
        // And run cannot run it: a clear error when the model is compiled.
        EXPECT_TRUE(throws_error([&] { CompiledModel m(load(custom_op(version, 3))); }, ErrorKind::Unsupported,
                                 "unsupported-op", "Voxelize"));
    }
}

// ---- element types -------------------------------------------------------------------------------

IrBuilder passthrough(const std::string& element_type, const std::string& precision) {
    IrBuilder b;
    b.layer(0, "x", "Parameter", "opset1", "shape=\"2\" element_type=\"" + element_type + "\"", {},
            {{0, precision, {2}, "x"}});
    b.layer(1, "out", "Result", "opset1", "", {{0, precision, {2}, ""}}, {});
    b.edge(0, 0, 1, 0);
    return b;
}

TEST(WildIr, EveryOpenVinoElementTypeIsValidIr) {
    const char* types[][2] = {{"string", "STRING"}, {"u1", "BIN"},       {"u1", "U1"},         {"u2", "U2"},
                              {"u3", "U3"},         {"u4", "U4"},        {"u6", "U6"},         {"i4", "I4"},
                              {"nf4", "NF4"},       {"f8e4m3", "F8E4M3"}, {"f8e5m2", "F8E5M2"}, {"f4e2m1", "F4E2M1"},
                              {"f8e8m0", "F8E8M0"}, {"dynamic", ""}};
    for (const auto& t : types) {
        SCOPED_TRACE(t[0]);
        const BuildResult r = check(passthrough(t[0], t[1]));
        // Valid IR: no error. irlite cannot run it, which check says as a warning with the code
        // that run refuses it with.
        EXPECT_NO_ERRORS(r);
        for (const std::string& code : codes(r, Severity::Warning)) EXPECT_EQ(code, "unsupported-element-type");
        EXPECT_FALSE(r.diagnostics.empty());
        ASSERT_TRUE(r.graph);
        EXPECT_EQ(r.graph->nodes[0].outputs[0].type, parse_element_type(t[0]));  // what info prints
        // Running on it is refused when the model is compiled.
        EXPECT_TRUE(throws_error([&] { CompiledModel m(load(passthrough(t[0], t[1]))); }, ErrorKind::Unsupported,
                                 "unsupported-element-type", t[0]));
    }
}

TEST(WildIr, OpsOnTypesIrliteDoesNotStoreAreChecked) {
    // Compressed weights: a u4 Const converted to f16 (Const, Convert accept every type).
    IrBuilder b;
    const unsigned char packed[2] = {0x21, 0x43};
    b.parameter(0, "x", "f16", {4});
    b.layer(1, "w", "Const", "opset1", "element_type=\"u4\" shape=\"4\" offset=\"0\" size=\"2\"", {},
            {{0, "U4", {4}, ""}});
    b.layer(2, "w/convert", "Convert", "opset1", "destination_type=\"f16\"", {{0, "U4", {4}, ""}},
            {{1, "FP16", {4}, ""}});
    b.layer(3, "sum", "Add", "opset1", "", {{0, "FP16", {4}, ""}, {1, "FP16", {4}, ""}}, {{2, "FP16", {4}, ""}});
    b.result(4, "out", "f16", {4});
    b.edge(0, 0, 3, 0).edge(1, 0, 2, 0).edge(2, 1, 3, 1).edge(3, 2, 4, 0);
    std::string xml = b.xml();
    auto w = std::make_shared<WeightsBlob>();
    w->data = reinterpret_cast<const std::byte*>(packed);
    w->size = sizeof packed;
    BuildOptions opt;
    opt.keep_going = true;
    const BuildResult r =
        build_graph(std::make_shared<const IrDocument>(read_ir_memory(xml, w, "u4.xml")), builtin_ops(), opt);
    EXPECT_TRUE(r.diagnostics.empty()) << all_findings(r);
    // An op whose rule rejects the type (Add on u1) is a warning: irlite cannot validate it.
    IrBuilder add;
    add.parameter(0, "a", "u1", {8});
    add.parameter(1, "b", "u1", {8});
    add.layer(2, "sum", "Add", "opset1", "", {{0, "BIN", {8}, ""}, {1, "BIN", {8}, ""}}, {{2, "BIN", {8}, ""}});
    add.result(3, "out", "u1", {8});
    add.edge(0, 0, 2, 0).edge(1, 0, 2, 1).edge(2, 2, 3, 0);
    const BuildResult ra = check(add);
    EXPECT_NO_ERRORS(ra);
    EXPECT_NE(find_code(ra, "unsupported-element-type"), nullptr) << all_findings(ra);
}

// ---- dims that no tensor can have ---------------------------------------------------------------

TEST(WildIr, ParameterDimsOverflowingInt64) {
    const long long two40 = 1LL << 40;
    IrBuilder b;
    b.parameter(0, "x", "f32", {two40, two40, two40});
    b.result(1, "out", "f32", {-1, -1, -1});
    b.edge(0, 0, 1, 0);
    const BuildResult r = check(b);
    ASSERT_NE(find_code(r, "dims-overflow"), nullptr) << all_findings(r);
    EXPECT_EQ(find_code(r, "dims-overflow")->severity, Severity::Error);
    // An empty dim makes the tensor empty, whatever the others: fine.
    IrBuilder empty;
    empty.parameter(0, "x", "f32", {two40, 0, two40, two40});
    empty.result(1, "out", "f32", {two40, 0, two40, two40});
    empty.edge(0, 0, 1, 0);
    EXPECT_EQ(find_code(check(empty), "dims-overflow"), nullptr);
}

// ---- checking without weights -------------------------------------------------------------------

// x [6] -> Reshape(pattern Const [2]) declared [3,2] -> Result declared `result_dims`.
IrBuilder reshape_model(const std::vector<long long>& result_dims) {
    IrBuilder b;
    const int64_t pattern[2] = {3, 2};
    b.parameter(0, "x", "f32", {6});
    b.constant(1, "pattern", "i64", {2}, pattern, sizeof pattern);
    b.layer(2, "reshape", "Reshape", "opset1", "special_zero=\"false\"", {{0, "FP32", {6}, ""}, {1, "I64", {2}, ""}},
            {{2, "FP32", {3, 2}, ""}});
    b.layer(3, "out", "Result", "opset1", "", {{0, "FP32", result_dims, ""}}, {});
    b.edge(0, 0, 2, 0).edge(1, 0, 2, 1).edge(2, 2, 3, 0);
    return b;
}

TEST(WildIr, CheckWithoutWeights) {
    // Const values unknown: no error, and the Reshape's declared dims are taken...
    const BuildResult r = check(reshape_model({3, 2}), false);
    EXPECT_TRUE(r.diagnostics.empty()) << all_findings(r);
    // ...and checked downstream.
    const BuildResult bad = check(reshape_model({2, 3}), false);
    ASSERT_NE(find_code(bad, "dims-mismatch"), nullptr) << all_findings(bad);
    // Run needs the weights: one clear error when the model is compiled.
    auto doc = std::make_shared<const IrDocument>(read_ir_memory(reshape_model({3, 2}).xml(), nullptr, "nw.xml"));
    EXPECT_TRUE(throws_error([&] { build_graph(doc, builtin_ops()); }, ErrorKind::Io, "bin-missing",
                             "needs the weights file"));
}

}  // namespace
}  // namespace irlite
