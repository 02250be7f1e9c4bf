// Inference precision (engine/precision.hpp): an f16 model computes in f32 by default, with the
// declared types at its boundary, and in f16 on request; ops whose f16 result is part of their
// meaning keep it.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "ir_builder.hpp"
#include "irlite/irlite.hpp"
#include "kernels/detail/cpu_isa.hpp"
#include "kernels/detail/half_convert.hpp"
#include "parser/npy.hpp"

namespace irlite {
namespace {

namespace fs = std::filesystem;
using testing::IrBuilder;

std::vector<uint16_t> to_f16(const std::vector<float>& v) {
    std::vector<uint16_t> out;
    for (float x : v) out.push_back(f32_to_f16(x));
    return out;
}

std::vector<float> values_of(const Tensor& t) {
    std::vector<float> out;
    for (int64_t i = 0; i < t.num_elements(); ++i) {
        if (t.type() == ElementType::f16) out.push_back(f16_to_f32(static_cast<const uint16_t*>(t.data())[i]));
        else out.push_back(t.data<float>()[i]);
    }
    return out;
}

// x [1,8,6,6] -> Convolution 3x3 (16 filters) -> Add bias -> ReLU -> y, every value of `type`.
IrBuilder conv_model(const std::string& type, std::vector<unsigned char>* keep) {
    std::vector<float> w(16 * 8 * 9), bias(16);
    for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(static_cast<int>(i * 7 % 13) - 6) / 16;
    for (size_t i = 0; i < bias.size(); ++i) bias[i] = static_cast<float>(i % 5) / 8 - 0.25f;
    const auto bytes = [&](const std::vector<float>& v) {
        keep->clear();
        if (type == "f32") {
            keep->resize(v.size() * 4);
            std::memcpy(keep->data(), v.data(), keep->size());
        } else {
            const std::vector<uint16_t> h = to_f16(v);
            keep->resize(h.size() * 2);
            std::memcpy(keep->data(), h.data(), keep->size());
        }
        return keep;
    };
    const std::string p = IrBuilder::precision(type);
    IrBuilder b;
    b.parameter(0, "x", type, {1, 8, 6, 6});
    bytes(w);
    b.constant(1, "w", type, {16, 8, 3, 3}, keep->data(), keep->size());
    b.layer(2, "conv", "Convolution", "opset1",
            "strides=\"1,1\" dilations=\"1,1\" pads_begin=\"1,1\" pads_end=\"1,1\" auto_pad=\"explicit\"",
            {{0, p, {1, 8, 6, 6}, ""}, {1, p, {16, 8, 3, 3}, ""}}, {{2, p, {1, 16, 6, 6}, ""}});
    bytes(bias);
    b.constant(3, "bias", type, {1, 16, 1, 1}, keep->data(), keep->size());
    b.layer(4, "add", "Add", "opset1", "", {{0, p, {1, 16, 6, 6}, ""}, {1, p, {1, 16, 1, 1}, ""}},
            {{2, p, {1, 16, 6, 6}, ""}});
    b.layer(5, "relu", "ReLU", "opset1", "", {{0, p, {1, 16, 6, 6}, ""}}, {{1, p, {1, 16, 6, 6}, "y"}});
    b.result(6, "out", type, {1, 16, 6, 6});
    b.edge(0, 0, 2, 0).edge(1, 0, 2, 1).edge(2, 2, 4, 0).edge(3, 0, 4, 1).edge(4, 2, 5, 0).edge(5, 1, 6, 0);
    return b;
}

std::vector<float> input_values() {
    std::vector<float> x(8 * 36);
    for (size_t i = 0; i < x.size(); ++i) x[i] = f16_to_f32(f32_to_f16(static_cast<float>(static_cast<int>(i * 5 % 17) - 8) / 8));
    return x;
}

struct RunResult {
    Tensor output;
    std::vector<ProfileEntry> profile;
};

RunResult run(const Model& model, const Tensor& x, CompileOptions options) {
    options.profiling = true;
    const CompiledModel compiled(model, options);
    InferRequest request = compiled.create_infer_request();
    request.set_input(0, x);
    request.infer();
    return {request.output(0).clone(), request.profiling()};
}

TEST(Precision, F16ModelComputesInF32WithDeclaredTypesAtItsBoundary) {
    std::vector<unsigned char> scratch;
    const IrBuilder b16 = conv_model("f16", &scratch);
    const Model m16 = Model::read_from_memory(b16.xml(), b16.weights().data(), b16.weights().size());
    const IrBuilder b32 = conv_model("f32", &scratch);
    const Model m32 = Model::read_from_memory(b32.xml(), b32.weights().data(), b32.weights().size());

    std::vector<float> x = input_values();
    std::vector<uint16_t> x16 = to_f16(x);
    const Tensor in16 = Tensor::wrap(ElementType::f16, {1, 8, 6, 6}, x16.data());
    const Tensor in32 = Tensor::wrap(ElementType::f32, {1, 8, 6, 6}, x.data());

    const RunResult fast = run(m16, in16, {});
    CompileOptions declared;
    declared.precision = InferencePrecision::Declared;
    const RunResult strict = run(m16, in16, declared);
    const RunResult twin = run(m32, in32, {});

    // The caller sees the declared types either way.
    EXPECT_EQ(CompiledModel(m16).inputs()[0].type, ElementType::f16);
    EXPECT_EQ(CompiledModel(m16).outputs()[0].type, ElementType::f16);
    EXPECT_EQ(CompiledModel(m16).outputs()[0].name, "y");
    ASSERT_EQ(fast.output.type(), ElementType::f16);
    ASSERT_EQ(strict.output.type(), ElementType::f16);

    // Computed in f32 (weights exactly the f16 ones), rounded to f16 once: the f32 twin's result
    // rounded to f16, bit for bit.
    const std::vector<float> got = values_of(fast.output), want = values_of(twin.output);
    for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], f16_to_f32(f32_to_f16(want[i]))) << i;
    // f16 arithmetic stays close.
    const std::vector<float> f16_result = values_of(strict.output);
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(f16_result[i], want[i], 1e-2 * (1 + std::fabs(want[i]))) << i;

    // The convolution runs fused, in f32, between a conversion on entry and one on exit.
    std::vector<std::string> fast_steps, strict_steps;
    for (const ProfileEntry& e : fast.profile) fast_steps.push_back(e.type + "/" + e.precision);
    for (const ProfileEntry& e : strict.profile) strict_steps.push_back(e.type + "/" + e.precision);
    EXPECT_EQ(fast_steps, (std::vector<std::string>{"Convert/f32", "Convolution+Add+ReLU/f32", "Convert/f16"}));
    EXPECT_EQ(fast.profile[0].name, "x/to_f32");
    EXPECT_EQ(strict_steps, (std::vector<std::string>{"Convolution/f16", "Add/f16", "ReLU/f16"}));
}

// x (f16) * 3 -> Convert to i32 and Less than 1: x = 0.33325195 makes 0.99975586 in f32, which
// rounds to 1.0 in f16. Both results must be those of f16 values.
TEST(Precision, IntegerAndBooleanResultsOfF16ValuesKeepF16Rounding) {
    const uint16_t three = f32_to_f16(3.0f), one = f32_to_f16(1.0f);
    IrBuilder b;
    b.parameter(0, "x", "f16", {1});
    b.constant(1, "three", "f16", {1}, &three, 2);
    b.layer(2, "mul", "Multiply", "opset1", "", {{0, "FP16", {1}, ""}, {1, "FP16", {1}, ""}}, {{2, "FP16", {1}, ""}});
    b.layer(3, "to_int", "Convert", "opset1", "destination_type=\"i32\"", {{0, "FP16", {1}, ""}}, {{1, "I32", {1}, "n"}});
    b.constant(4, "one", "f16", {1}, &one, 2);
    b.layer(5, "less", "Less", "opset1", "", {{0, "FP16", {1}, ""}, {1, "FP16", {1}, ""}}, {{2, "BOOL", {1}, "lt"}});
    b.layer(6, "tanh", "Tanh", "opset1", "", {{0, "FP16", {1}, ""}}, {{1, "FP16", {1}, "t"}});
    b.result(7, "n_out", "i32", {1});
    b.result(8, "lt_out", "boolean", {1});
    b.result(9, "t_out", "f16", {1});
    b.edge(0, 0, 2, 0).edge(1, 0, 2, 1).edge(2, 2, 3, 0).edge(3, 1, 7, 0).edge(2, 2, 5, 0).edge(4, 0, 5, 1);
    b.edge(5, 2, 8, 0).edge(2, 2, 6, 0).edge(6, 1, 9, 0);
    const Model model = Model::read_from_memory(b.xml(), b.weights().data(), b.weights().size());
    uint16_t x = f32_to_f16(0.33325195f);
    ASSERT_EQ(f16_to_f32(x), 0.33325195f);
    for (InferencePrecision precision : {InferencePrecision::F32, InferencePrecision::Declared}) {
        CompileOptions options;
        options.precision = precision;
        const CompiledModel compiled(model, options);
        InferRequest request = compiled.create_infer_request();
        request.set_input(0, Tensor::wrap(ElementType::f16, {1}, &x));
        request.infer();
        EXPECT_EQ(request.output("n").data<int32_t>()[0], 1);
        EXPECT_EQ(request.output("lt").data<bool>()[0], false);
        EXPECT_EQ(request.output("t").type(), ElementType::f16);
    }
}

// An op whose output type is an attribute (Convert to f16) still rounds to it; a Convert of
// compressed integer weights to f16 converts straight to f32 (the same values).
TEST(Precision, ConvertToF16StillRoundsAndExactConvertsWidenDirectly) {
    const int8_t weights[4] = {-128, -1, 7, 127};
    IrBuilder b;
    b.parameter(0, "x", "f32", {4});
    b.layer(1, "round", "Convert", "opset1", "destination_type=\"f16\"", {{0, "FP32", {4}, ""}}, {{1, "FP16", {4}, ""}});
    b.constant(2, "w", "i8", {4}, weights, 4);
    b.layer(3, "w16", "Convert", "opset1", "destination_type=\"f16\"", {{0, "I8", {4}, ""}}, {{1, "FP16", {4}, ""}});
    b.layer(4, "mul", "Multiply", "opset1", "", {{0, "FP16", {4}, ""}, {1, "FP16", {4}, ""}}, {{2, "FP16", {4}, "y"}});
    b.result(5, "out", "f16", {4});
    b.edge(0, 0, 1, 0).edge(1, 1, 4, 0).edge(2, 0, 3, 0).edge(3, 1, 4, 1).edge(4, 2, 5, 0);
    const Model model = Model::read_from_memory(b.xml(), b.weights().data(), b.weights().size());
    std::vector<float> x = {1.0001f, -0.5f, 1000.3f, 0.1f};
    const RunResult r = run(model, Tensor::wrap(ElementType::f32, {4}, x.data()), {});
    const std::vector<float> y = values_of(r.output);
    for (size_t i = 0; i < 4; ++i) {
        const float rounded = f16_to_f32(f32_to_f16(x[i]));
        EXPECT_EQ(y[i], f16_to_f32(f32_to_f16(rounded * static_cast<float>(weights[i])))) << i;
    }
}

// The FP16 twins of the real models: within 1e-2 of their FP32 twins' outputs, and the same bits
// for every thread count.
TEST(Precision, RealF16ModelsMatchTheirF32Twins) {
    const fs::path shared = fs::path(IRLITE_SOURCE_DIR) / ".." / "shared";
    if (!fs::exists(shared / "models-fp16")) GTEST_SKIP() << "the shared corpora are not beside this clone";
    for (const char* name : {"resnet18", "mobilenet_v2", "squeezenet1_1", "transformer"}) {
        SCOPED_TRACE(name);
        const fs::path dir16 = shared / "models-fp16" / (std::string(name) + "_fp16"), dir32 = shared / "models-real" / name;
        if (!fs::exists(dir16 / "model.xml")) continue;
        const Model m16 = Model::read((dir16 / "model.xml").string());
        const Model m32 = Model::read((dir32 / "model.xml").string());
        std::vector<Tensor> reference;
        for (int threads : {1, 2, 3}) {
            CompileOptions options;
            options.threads = threads;
            const CompiledModel c16(m16, options), c32(m32, options);
            InferRequest r16 = c16.create_infer_request(), r32 = c32.create_infer_request();
            std::vector<Tensor> inputs16, inputs32;
            for (const PortInfo& p : c32.inputs()) {
                inputs32.push_back(read_npy((dir32 / "inputs" / (p.name + ".npy")).string()));
                inputs16.push_back(read_npy((dir16 / "inputs" / (p.name + ".npy")).string()));
            }
            for (size_t i = 0; i < inputs16.size(); ++i) r16.set_input(i, inputs16[i]), r32.set_input(i, inputs32[i]);
            r16.infer();
            r32.infer();
            for (size_t o = 0; o < r16.num_outputs(); ++o) {
                const std::vector<float> got = values_of(r16.output(o)), want = values_of(r32.output(o));
                ASSERT_EQ(got.size(), want.size());
                float scale = 0;
                for (float v : want) scale = std::max(scale, std::fabs(v));
                for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-2 * (1 + scale)) << o << " " << i;
                if (threads == 1) {
                    reference.push_back(r16.output(o).clone());
                } else {
                    ASSERT_EQ(std::memcmp(r16.output(o).data(), reference[o].data(), reference[o].byte_size()), 0)
                        << threads << " threads, output " << o;
                }
            }
        }
    }
}

// A Concat of 40 f16 inputs: the pass reads each input's role past the 32 bits of the op's input
// masks (OpDef::reads_only_shape), which UBSan checks in the sanitizer build.
TEST(Precision, ConcatOfManyF16Inputs) {
    constexpr int kInputs = 40;
    IrBuilder b;
    b.parameter(0, "x", "f16", {1, 2});
    std::vector<testing::PortSpec> ins;
    for (int i = 0; i < kInputs; ++i) ins.push_back({i, "FP16", {1, 2}, ""});
    b.layer(1, "cat", "Concat", "opset1", "axis=\"0\"", ins, {{kInputs, "FP16", {kInputs, 2}, "y"}});
    b.result(2, "out", "f16", {kInputs, 2});
    for (int i = 0; i < kInputs; ++i) b.edge(0, 0, 1, i);
    b.edge(1, kInputs, 2, 0);
    const Model model = Model::read_from_memory(b.xml(), b.weights().data(), b.weights().size());
    std::vector<uint16_t> x = to_f16({0.5f, -2.0f});
    const RunResult r = run(model, Tensor::wrap(ElementType::f16, {1, 2}, x.data()), {});
    ASSERT_EQ(r.output.type(), ElementType::f16);
    const std::vector<float> y = values_of(r.output);
    ASSERT_EQ(y.size(), 2u * kInputs);
    for (int i = 0; i < kInputs; ++i) {
        EXPECT_EQ(y[2 * i], 0.5f) << i;
        EXPECT_EQ(y[2 * i + 1], -2.0f) << i;
    }
}

// The boundary conversions give the same bits on every instruction set (F16C or the scalar code),
// for every f16 value and for f32 values around every rounding case, NaNs included.
TEST(Precision, HalfConversionsSameBitsOnEveryInstructionSet) {
    std::vector<uint16_t> halves(65536);
    for (size_t i = 0; i < halves.size(); ++i) halves[i] = static_cast<uint16_t>(i);
    std::vector<float> floats;
    for (uint32_t h = 0; h < 65536; h += 7) {
        const float f = f16_to_f32(static_cast<uint16_t>(h));
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        for (uint32_t delta : {0u, 1u, 0xfffu, 0x1000u, 0x1001u, 0x1fffu}) {
            const uint32_t b = bits + delta;
            float g;
            std::memcpy(&g, &b, 4);
            floats.push_back(g);
        }
    }
    for (uint32_t nan : {0x7f800001u, 0x7fc00000u, 0xffbfffffu, 0x7fa5a5a5u, 0x477ff000u, 0x33000001u}) {
        float g;
        std::memcpy(&g, &nan, 4);
        floats.push_back(g);
    }
    std::vector<float> widened_ref(halves.size());
    std::vector<uint16_t> narrowed_ref(floats.size());
    for (size_t i = 0; i < halves.size(); ++i) widened_ref[i] = f16_to_f32(halves[i]);
    for (size_t i = 0; i < floats.size(); ++i) narrowed_ref[i] = f32_to_f16(floats[i]);
    for (cpu::Isa isa : {cpu::Isa::Sse, cpu::Isa::Avx2, cpu::Isa::Avx512}) {
        if (!cpu::isa_supported(isa)) continue;
        SCOPED_TRACE(cpu::isa_name(isa));
        cpu::set_isa_cap_for_testing(isa);
        std::vector<float> widened(halves.size());
        std::vector<uint16_t> narrowed(floats.size());
        detail::f16_to_f32_buffer(nullptr, halves.data(), widened.data(), static_cast<int64_t>(halves.size()));
        detail::f32_to_f16_buffer(nullptr, floats.data(), narrowed.data(), static_cast<int64_t>(floats.size()));
        cpu::reset_isa_cap_for_testing();
        EXPECT_EQ(std::memcmp(widened.data(), widened_ref.data(), widened.size() * 4), 0);
        for (size_t i = 0; i < floats.size(); ++i) ASSERT_EQ(narrowed[i], narrowed_ref[i]) << i << " " << floats[i];
    }
}

}  // namespace
}  // namespace irlite
