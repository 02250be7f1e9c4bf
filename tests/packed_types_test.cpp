// Packed weight types (u1, u4, i4; the 4- and 8-bit floats nf4, f4e2m1, f8e4m3, f8e5m2, f8e8m0): OpenVINO's packing, Const values, Convert unpacking, views,
// the NNCF decompression pattern end to end, and that unpacking is not folded into the model.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "engine/execution_plan.hpp"
#include "engine/graph.hpp"
#include "irlite/irlite.hpp"
#include "ir_builder.hpp"
#include "kernels/all_ops.hpp"
#include "op_tester.hpp"

namespace irlite {
namespace {

using testing::IrBuilder;

TEST(PackedTypes, ElementsAsOpenVinoPacksThem) {
    // u4/i4: element 0 in the low nibble. u1: element 0 in the most significant bit.
    const uint8_t nibbles[] = {0x21, 0xF8};
    EXPECT_EQ(packed_element(nibbles, ElementType::u4, 0), 1);
    EXPECT_EQ(packed_element(nibbles, ElementType::u4, 1), 2);
    EXPECT_EQ(packed_element(nibbles, ElementType::u4, 2), 8);
    EXPECT_EQ(packed_element(nibbles, ElementType::u4, 3), 15);
    EXPECT_EQ(packed_element(nibbles, ElementType::i4, 2), -8);
    EXPECT_EQ(packed_element(nibbles, ElementType::i4, 3), -1);
    const uint8_t bits[] = {0xA0};  // 1010 0000
    EXPECT_EQ(packed_element(bits, ElementType::u1, 0), 1);
    EXPECT_EQ(packed_element(bits, ElementType::u1, 1), 0);
    EXPECT_EQ(packed_element(bits, ElementType::u1, 2), 1);
    // Byte sizes round up: 3 u4 take 2 bytes, 9 u1 take 2.
    EXPECT_EQ(Tensor(ElementType::u4, {3}).byte_size(), 2u);
    EXPECT_EQ(Tensor(ElementType::u1, {9}).byte_size(), 2u);
    EXPECT_EQ(Tensor(ElementType::i4, {2, 3}).num_elements(), 6);
}

TEST(PackedTypes, ConvertUnpacks) {
    Tensor q(ElementType::i4, {3});
    static_cast<uint8_t*>(q.data())[0] = 0x9F;  // -1, -7
    static_cast<uint8_t*>(q.data())[1] = 0x07;  // 7
    const testing::OpTester convert("Convert", 1, {{"destination_type", "f32"}});
    EXPECT_EQ(testing::values_of<float>(convert.run1({q})), (std::vector<float>{-1, -7, 7}));
    const testing::OpTester to_u8("Convert", 1, {{"destination_type", "u8"}});
    Tensor b(ElementType::u1, {3});
    static_cast<uint8_t*>(b.data())[0] = 0x60;  // 0 1 1
    EXPECT_EQ(testing::values_of<uint8_t>(to_u8.run1({b})), (std::vector<uint8_t>{0, 1, 1}));
}

TEST(PackedTypes, PackingIntoU4IsRefusedWhenTheModelCompiles) {
    IrBuilder b;
    b.parameter(0, "x", "f32", {2});
    b.layer(1, "pack", "Convert", "opset1", "destination_type=\"u4\"", {{0, "FP32", {2}, ""}}, {{1, "U4", {2}, ""}});
    b.layer(2, "back", "Convert", "opset1", "destination_type=\"f32\"", {{0, "U4", {2}, ""}}, {{1, "FP32", {2}, ""}});
    b.result(3, "out", "f32", {2});
    b.edge(0, 0, 1, 0).edge(1, 1, 2, 0).edge(2, 1, 3, 0);
    try {
        CompiledModel m(Model::read_from_memory(b.xml(), nullptr, 0));
        FAIL() << "compiled";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), "unsupported-element-type") << e.what();
        EXPECT_NE(std::string(e.what()).find("u4"), std::string::npos) << e.what();
    }
}

// u4 weights [2, 3] with a zero point and a scale: w = (q - zp) * s, then x @ w^T.
IrBuilder nncf_model() {
    IrBuilder b;
    const uint8_t q[] = {0x31, 0x75, 0xB9};  // 1 3 5 7 9 11
    const uint8_t zp = 4;                    // u8 zero point
    const float scale[] = {0.5f, 2.0f};      // per output row
    b.parameter(0, "x", "f32", {1, 3});
    b.constant(1, "q", "u4", {2, 3}, q, sizeof q);
    b.layer(2, "cq", "Convert", "opset1", "destination_type=\"f32\"", {{0, "U4", {2, 3}, ""}}, {{1, "FP32", {2, 3}, ""}});
    b.constant(3, "zp", "u8", {}, &zp, 1);
    b.layer(4, "czp", "Convert", "opset1", "destination_type=\"f32\"", {{0, "U8", {}, ""}}, {{1, "FP32", {}, ""}});
    b.layer(5, "sub", "Subtract", "opset1", "", {{0, "FP32", {2, 3}, ""}, {1, "FP32", {}, ""}}, {{2, "FP32", {2, 3}, ""}});
    b.constant(6, "s", "f32", {2, 1}, scale, sizeof scale);
    b.layer(7, "mul", "Multiply", "opset1", "", {{0, "FP32", {2, 3}, ""}, {1, "FP32", {2, 1}, ""}}, {{2, "FP32", {2, 3}, ""}});
    b.layer(8, "mm", "MatMul", "opset1", "transpose_a=\"false\" transpose_b=\"true\"",
            {{0, "FP32", {1, 3}, ""}, {1, "FP32", {2, 3}, ""}}, {{2, "FP32", {1, 2}, "y"}});
    b.result(9, "out", "f32", {1, 2});
    b.edge(1, 0, 2, 0).edge(3, 0, 4, 0).edge(2, 1, 5, 0).edge(4, 1, 5, 1).edge(5, 2, 7, 0).edge(6, 0, 7, 1);
    b.edge(0, 0, 8, 0).edge(7, 2, 8, 1).edge(8, 2, 9, 0);
    return b;
}

TEST(PackedTypes, CompressedWeightsDecompressAtRunTimeNotInTheModel) {
    const IrBuilder b = nncf_model();
    const auto bin = std::make_shared<std::vector<unsigned char>>(b.weights());
    const Model model = Model::read_from_memory(b.xml(), bin->data(), bin->size(), bin);
    const CompiledModel compiled(model);
    InferRequest request = compiled.create_infer_request();
    std::vector<float> x = {1, 2, 3};
    request.set_input("x", Tensor::wrap(ElementType::f32, {1, 3}, x.data()));
    request.infer();
    // w = [[-3,-1,1],[3,5,7]] * [0.5, 2] -> [[-1.5,-0.5,0.5],[6,10,14]]; y = [-1, 68].
    const Tensor& y = request.output(0);
    EXPECT_EQ(testing::values_of<float>(y), (std::vector<float>{-1.0f, 68.0f}));
    // The u4 Const stays packed; the Convert that unpacks it was not folded into a constant.
    const BuildResult g = build_graph(model.document_ptr(), builtin_ops());
    for (const Node& n : g.graph->nodes) {
        if (n.layer->name == "q") {
            EXPECT_TRUE(n.is_constant());
        }
        if (n.layer->name == "cq") {
            EXPECT_FALSE(n.is_constant()) << "the unpacked weights were folded into the model";
        }
        if (n.layer->name == "czp") {
            EXPECT_TRUE(n.is_constant());
        }
    }
}

TEST(PackedTypes, FloatCodesDecodeAsOpenVinoDefinesThem) {
    const auto code = [](ElementType t, unsigned c) { return packed_float_code(t, c); };
    // f8e4m3 ("fn": bias 7, no infinities, all-ones mantissa and exponent = NaN, largest 448).
    EXPECT_EQ(code(ElementType::f8e4m3, 0x00), 0.0f);
    EXPECT_EQ(code(ElementType::f8e4m3, 0x01), std::ldexp(1.0f, -9));  // smallest subnormal
    EXPECT_EQ(code(ElementType::f8e4m3, 0x08), std::ldexp(1.0f, -6));  // smallest normal
    EXPECT_EQ(code(ElementType::f8e4m3, 0x38), 1.0f);
    EXPECT_EQ(code(ElementType::f8e4m3, 0x7E), 448.0f);
    EXPECT_EQ(code(ElementType::f8e4m3, 0xFE), -448.0f);
    EXPECT_TRUE(std::isnan(code(ElementType::f8e4m3, 0x7F)));
    // f8e5m2 (bias 15, IEEE-like).
    EXPECT_EQ(code(ElementType::f8e5m2, 0x3C), 1.0f);
    EXPECT_EQ(code(ElementType::f8e5m2, 0x01), std::ldexp(1.0f, -16));
    EXPECT_EQ(code(ElementType::f8e5m2, 0x7B), 57344.0f);
    EXPECT_EQ(code(ElementType::f8e5m2, 0x7C), std::numeric_limits<float>::infinity());
    EXPECT_EQ(code(ElementType::f8e5m2, 0xFC), -std::numeric_limits<float>::infinity());
    EXPECT_TRUE(std::isnan(code(ElementType::f8e5m2, 0x7D)));
    // f8e8m0: a power of two.
    EXPECT_EQ(code(ElementType::f8e8m0, 127), 1.0f);
    EXPECT_EQ(code(ElementType::f8e8m0, 130), 8.0f);
    EXPECT_EQ(code(ElementType::f8e8m0, 0), std::ldexp(1.0f, -127));
    EXPECT_TRUE(std::isnan(code(ElementType::f8e8m0, 0xFF)));
    // f4e2m1: 0, 0.5, 1, 1.5, 2, 3, 4, 6 and their negatives.
    const float e2m1[] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
    for (unsigned c = 0; c < 8; ++c) {
        EXPECT_EQ(code(ElementType::f4e2m1, c), e2m1[c]) << c;
        EXPECT_EQ(code(ElementType::f4e2m1, c | 8), -e2m1[c]) << c;
    }
    // nf4: 16 levels from -1 to 1, increasing, 0 at code 7.
    EXPECT_EQ(code(ElementType::nf4, 0), -1.0f);
    EXPECT_EQ(code(ElementType::nf4, 7), 0.0f);
    EXPECT_EQ(code(ElementType::nf4, 15), 1.0f);
    for (unsigned c = 1; c < 16; ++c) EXPECT_LT(code(ElementType::nf4, c - 1), code(ElementType::nf4, c));
    // Sizes: 4-bit codes two per byte, 8-bit ones a byte each.
    EXPECT_EQ(Tensor(ElementType::nf4, {3}).byte_size(), 2u);
    EXPECT_EQ(Tensor(ElementType::f4e2m1, {4}).byte_size(), 2u);
    EXPECT_EQ(Tensor(ElementType::f8e4m3, {3}).byte_size(), 3u);
}

TEST(PackedTypes, ConvertUnpacksFloatCodes) {
    Tensor q(ElementType::nf4, {3});
    static_cast<uint8_t*>(q.data())[0] = 0xF0;  // codes 0, 15: -1, 1
    static_cast<uint8_t*>(q.data())[1] = 0x07;  // code 7: 0
    const testing::OpTester to_f32("Convert", 1, {{"destination_type", "f32"}});
    EXPECT_EQ(testing::values_of<float>(to_f32.run1({q})), (std::vector<float>{-1, 1, 0}));
    EXPECT_EQ(q.value_as_double(1), 1.0);

    Tensor f8(ElementType::f8e4m3, {4});
    const uint8_t codes[] = {0x38, 0xC0, 0x7E, 0x7F};  // 1, -2, 448, NaN
    std::memcpy(f8.data(), codes, sizeof codes);
    const std::vector<float> got = testing::values_of<float>(to_f32.run1({f8}));
    EXPECT_EQ(got[0], 1.0f);
    EXPECT_EQ(got[1], -2.0f);
    EXPECT_EQ(got[2], 448.0f);
    EXPECT_TRUE(std::isnan(got[3]));
    // To f16 and to integers as any float would convert (NaN -> 0, truncation toward zero).
    const testing::OpTester to_i32("Convert", 1, {{"destination_type", "i32"}});
    EXPECT_EQ(testing::values_of<int32_t>(to_i32.run1({f8})), (std::vector<int32_t>{1, -2, 448, 0}));
    const testing::OpTester to_f16("Convert", 1, {{"destination_type", "f16"}});
    const Tensor h = to_f16.run1({f8});
    EXPECT_EQ(f16_to_f32(h.data<float16>()[2].bits), 448.0f);
}

TEST(PackedTypes, Fp8WeightsDecompressAtRunTime) {
    // f8e4m3 weights [2, 2] with a per-row f32 scale, as FP8-compressed linear layers are written.
    IrBuilder b;
    const uint8_t w[] = {0x38, 0x40, 0xB8, 0x30};  // 1, 2, -1, 0.5
    const float scale[] = {2.0f, 4.0f};
    b.parameter(0, "x", "f32", {1, 2});
    b.constant(1, "w", "f8e4m3", {2, 2}, w, sizeof w);
    b.layer(2, "cw", "Convert", "opset1", "destination_type=\"f32\"", {{0, "F8E4M3", {2, 2}, ""}}, {{1, "FP32", {2, 2}, ""}});
    b.constant(3, "s", "f32", {2, 1}, scale, sizeof scale);
    b.layer(4, "mul", "Multiply", "opset1", "", {{0, "FP32", {2, 2}, ""}, {1, "FP32", {2, 1}, ""}}, {{2, "FP32", {2, 2}, ""}});
    b.layer(5, "mm", "MatMul", "opset1", "transpose_a=\"false\" transpose_b=\"true\"",
            {{0, "FP32", {1, 2}, ""}, {1, "FP32", {2, 2}, ""}}, {{2, "FP32", {1, 2}, "y"}});
    b.result(6, "out", "f32", {1, 2});
    b.edge(1, 0, 2, 0).edge(2, 1, 4, 0).edge(3, 0, 4, 1).edge(0, 0, 5, 0).edge(4, 2, 5, 1).edge(5, 2, 6, 0);
    const std::vector<unsigned char>& bin = b.weights();
    const CompiledModel compiled(Model::read_from_memory(b.xml(), bin.data(), bin.size()));
    InferRequest request = compiled.create_infer_request();
    float x[] = {1.0f, 3.0f};
    request.set_input(0, Tensor::wrap(ElementType::f32, {1, 2}, x));
    request.infer();
    // rows: (1, 2) * 2 = (2, 4); (-1, 0.5) * 4 = (-4, 2). y = (1*2 + 3*4, 1*-4 + 3*2) = (14, 2).
    EXPECT_EQ(testing::values_of<float>(request.output(0)), (std::vector<float>{14, 2}));
}

TEST(PackedTypes, ConvertingToFp8IsRefusedWhenTheModelCompiles) {
    IrBuilder b;
    b.parameter(0, "x", "f32", {2});
    b.layer(1, "pack", "Convert", "opset1", "destination_type=\"f8e4m3\"", {{0, "FP32", {2}, ""}}, {{1, "F8E4M3", {2}, ""}});
    b.result(2, "out", "f8e4m3", {2});
    b.edge(0, 0, 1, 0).edge(1, 1, 2, 0);
    try {
        CompiledModel m(Model::read_from_memory(b.xml(), nullptr, 0));
        FAIL() << "compiled";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), "unsupported-element-type") << e.what();
        EXPECT_NE(std::string(e.what()).find("f8e4m3"), std::string::npos) << e.what();
    }
}

TEST(PackedTypes, EachLayersWeightsAreUnpackedJustBeforeTheirMatMul) {
    // Four linear layers with u4 weights [64, 64] (16 KiB each once unpacked to f32): node order
    // would unpack all four first and keep them alive together; the plan defers each unpacking to
    // just before its MatMul, so the arena holds one layer's weights (and their next stage) at a
    // time, not four.
    constexpr int kLayers = 4, kD = 64;
    IrBuilder b;
    b.parameter(0, "x", "f32", {1, kD});
    std::vector<uint8_t> q(kD * kD / 2, 0x21);
    int prev = 0, prev_port = 0, id = 1;
    for (int l = 0; l < kLayers; ++l) {
        const int c = id++, cv = id++, mm = id++;
        b.constant(c, "q" + std::to_string(l), "u4", {kD, kD}, q.data(), q.size());
        b.layer(cv, "cq" + std::to_string(l), "Convert", "opset1", "destination_type=\"f32\"",
                {{0, "U4", {kD, kD}, ""}}, {{1, "FP32", {kD, kD}, ""}});
        b.layer(mm, "mm" + std::to_string(l), "MatMul", "opset1", "transpose_a=\"false\" transpose_b=\"true\"",
                {{0, "FP32", {1, kD}, ""}, {1, "FP32", {kD, kD}, ""}}, {{2, "FP32", {1, kD}, ""}});
        b.edge(c, 0, cv, 0).edge(prev, prev_port, mm, 0).edge(cv, 1, mm, 1);
        prev = mm, prev_port = 2;
    }
    b.result(id, "y", "f32", {1, kD});
    b.edge(prev, prev_port, id, 0);
    const auto bin = std::make_shared<std::vector<unsigned char>>(b.weights());
    const Model model = Model::read_from_memory(b.xml(), bin->data(), bin->size(), bin);
    const BuildResult g = build_graph(model.document_ptr(), builtin_ops());
    const auto plan = make_execution_plan(g.graph, "test");
    const size_t layer_bytes = kD * kD * sizeof(float);
    EXPECT_LT(plan->arena_bytes, 2 * layer_bytes + 4096) << "unpacked weights of several layers alive at once";
    // Each Convert runs right before its own MatMul.
    std::vector<std::string> order;
    for (const ExecStep& step : plan->steps) order.emplace_back(g.graph->nodes[static_cast<size_t>(step.node)].layer->name);
    for (int l = 0; l < kLayers; ++l) {
        const auto at = std::find(order.begin(), order.end(), "cq" + std::to_string(l));
        ASSERT_NE(at, order.end());
        ASSERT_NE(at + 1, order.end());
        EXPECT_EQ(*(at + 1), "mm" + std::to_string(l));
    }
    // And the results are those of the model run in node order: x = 1 everywhere, every weight
    // 1 or 2 (0x21), a row sums to 96: each layer multiplies every element by 96.
    const CompiledModel compiled(model);
    InferRequest request = compiled.create_infer_request();
    std::vector<float> x(kD, 1.0f);
    request.set_input(0, Tensor::wrap(ElementType::f32, {1, kD}, x.data()));
    request.infer();
    const std::vector<float> y = testing::values_of<float>(request.output(0));
    EXPECT_FLOAT_EQ(y[0], 96.0f * 96.0f * 96.0f * 96.0f);
}

}  // namespace
}  // namespace irlite
