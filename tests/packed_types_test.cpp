// Packed sub-byte types (u1, u4, i4): OpenVINO's packing, Const values, Convert unpacking, views,
// the NNCF decompression pattern end to end, and that unpacking is not folded into the model.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace irlite
