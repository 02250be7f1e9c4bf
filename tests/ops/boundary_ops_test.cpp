// "Parameter" (shape with ?, -1, intervals, scalars, dynamic rank), "Const" (size and offset checks,
// shared offsets, zero-copy) and "Result", through the public API.
#include <gtest/gtest.h>

#include "irlite/irlite.hpp"
#include "ir_builder.hpp"
#include "op_tester.hpp"

namespace irlite {
namespace {

using irlite::testing::IrBuilder;
using irlite::testing::throws_error;

// Parameter x -> Result, with the given `shape` attribute and port dims.
CompiledModel passthrough(const std::string& shape, const std::vector<long long>& dims, const std::string& type = "f32") {
    IrBuilder b;
    b.layer(0, "x", "Parameter", "opset1", "shape=\"" + shape + "\" element_type=\"" + type + "\"", {},
            {{0, IrBuilder::precision(type), dims, "x"}});
    b.layer(1, "out", "Result", "opset1", "", {{0, IrBuilder::precision(type), dims, ""}}, {});
    b.edge(0, 0, 1, 0);
    return CompiledModel(Model::read_from_memory(b.xml(), nullptr, 0));
}

struct ParameterRow {
    const char* name;
    const char* shape;
    std::vector<long long> dims;
    Shape input;
    bool accepted;
};

TEST(Parameter, ShapesAndIntervals) {
    const ParameterRow rows[] = {
        {"static", "2,3", {2, 3}, {2, 3}, true},
        {"static_wrong", "2,3", {2, 3}, {2, 4}, false},
        {"question", "?,3", {-1, 3}, {7, 3}, true},
        {"minus_one", "-1,3", {-1, 3}, {0, 3}, true},
        {"brackets", "[2,3]", {2, 3}, {2, 3}, true},
        {"interval_in", "1..4,3", {-1, 3}, {4, 3}, true},
        {"interval_above", "1..4,3", {-1, 3}, {5, 3}, false},
        {"interval_below", "2..,3", {-1, 3}, {1, 3}, false},
        {"interval_open", "2..,3", {-1, 3}, {200, 3}, true},
        {"interval_upper_only", "..5", {-1}, {0}, true},
        {"scalar", "", {}, {}, true},
        {"scalar_wrong_rank", "", {}, {1}, false},
        {"dynamic_rank", "...", {}, {2, 2, 2}, true},
    };
    for (const ParameterRow& r : rows) {
        SCOPED_TRACE(r.name);
        const CompiledModel m = passthrough(r.shape, r.dims);
        InferRequest req = m.create_infer_request();
        req.set_input("x", Tensor(ElementType::f32, r.input));
        if (r.accepted) {
            EXPECT_NO_THROW(req.infer());
            EXPECT_EQ(req.output(0).shape(), r.input);
        } else {
            EXPECT_TRUE(throws_error([&] { req.infer(); }, ErrorKind::Input, "input-mismatch", "expected f32"));
        }
    }
}

TEST(Parameter, BadShapeAttribute) {
    for (const char* shape : {"1,,2", "a,3", "3..1", "-2"}) {
        SCOPED_TRACE(shape);
        EXPECT_TRUE(throws_error([&] { passthrough(shape, {1}); }, ErrorKind::Attribute, "attribute-invalid", "shape"));
    }
}

TEST(Parameter, ZeroCopyPassthrough) {
    const CompiledModel m = passthrough("4", {4});
    InferRequest req = m.create_infer_request();
    float data[4] = {1, 2, 3, 4};
    req.set_input("x", Tensor::wrap(ElementType::f32, {4}, data));
    req.infer();
    EXPECT_EQ(req.output(0).data<float>(), data);  // the Result hands back the bound buffer itself
}

// Const -> Result with the given attributes and a weights blob of `bin_size` bytes.
void load_const(const std::string& data_attr, const std::vector<long long>& dims, size_t bin_size) {
    IrBuilder b;
    b.layer(0, "c", "Const", "opset1", data_attr, {}, {{0, "I32", dims, "c"}});
    b.layer(1, "out", "Result", "opset1", "", {{0, "I32", dims, ""}}, {});
    b.edge(0, 0, 1, 0);
    std::vector<unsigned char> bin(bin_size, 1);
    CompiledModel(Model::read_from_memory(b.xml(), bin.data(), bin.size()));
}

TEST(Const, SizeAndOffsetChecks) {
    EXPECT_NO_THROW(load_const("element_type=\"i32\" shape=\"2, 3\" offset=\"0\" size=\"24\"", {2, 3}, 24));
    EXPECT_NO_THROW(load_const("element_type=\"i32\" shape=\"\" offset=\"4\" size=\"4\"", {}, 8));
    // OpenVINO requires size >= what the shape needs and reads only that; so does irlite, with a
    // warning about more (tests/wild_ir_test.cpp).
    EXPECT_TRUE(throws_error([] { load_const("element_type=\"i32\" shape=\"2,3\" offset=\"0\" size=\"20\"", {2, 3}, 64); },
                             ErrorKind::Attribute, "const-size-mismatch", "needs 24 bytes"));
    EXPECT_TRUE(throws_error([] { load_const("element_type=\"i32\" shape=\"2,3\" offset=\"8\" size=\"24\"", {2, 3}, 24); },
                             ErrorKind::Parse, "const-out-of-bin", "beyond the end of the weights file (24 bytes"));
    EXPECT_TRUE(throws_error(
        [] { load_const("element_type=\"i32\" shape=\"1\" offset=\"18446744073709551615\" size=\"4\"", {1}, 24); },
        ErrorKind::Attribute, "attribute-invalid", "offset"));
    EXPECT_TRUE(throws_error(
        [] { load_const("element_type=\"i32\" shape=\"1099511627776,1024\" offset=\"0\" size=\"4\"", {1099511627776LL, 1024}, 24); },
        ErrorKind::Attribute, "const-size-mismatch", ""));
    EXPECT_TRUE(throws_error([] { load_const("element_type=\"i32\" shape=\"-1\" offset=\"0\" size=\"4\"", {1}, 24); },
                             ErrorKind::Attribute, "attribute-invalid", "shape"));
}

TEST(Const, SharedOffsetsAndResult) {
    // Two Consts at one offset (OpenVINO deduplicates identical blobs) feeding two Results.
    IrBuilder b;
    b.layer(0, "a", "Const", "opset1", "element_type=\"i64\" shape=\"1\" offset=\"0\" size=\"8\"", {}, {{0, "I64", {1}, "a"}});
    b.layer(1, "b", "Const", "opset1", "element_type=\"i64\" shape=\"1\" offset=\"0\" size=\"8\"", {}, {{0, "I64", {1}, "b"}});
    b.layer(2, "ra", "Result", "opset1", "", {{0, "I64", {1}, ""}}, {});
    b.layer(3, "rb", "Result", "opset1", "", {{0, "I64", {1}, ""}}, {});
    b.edge(0, 0, 2, 0).edge(1, 0, 3, 0);
    const int64_t value = 42;
    const CompiledModel m(Model::read_from_memory(b.xml(), &value, sizeof value));
    InferRequest req = m.create_infer_request();
    req.infer();
    EXPECT_EQ(req.output("a").data<int64_t>()[0], 42);
    EXPECT_EQ(req.output("b").data<int64_t>()[0], 42);
}

// A boolean Const's bytes other than 0 and 1 are true (as OpenVINO reads them), and kernels, which
// load C++ bools, see 0 and 1 only (fuzz_ir found a byte 16 loaded as bool by Convert: undefined).
TEST(Const, BooleanBytesBeyondOneAreTrue) {
    IrBuilder b;
    b.layer(0, "c", "Const", "opset1", "element_type=\"boolean\" shape=\"4\" offset=\"0\" size=\"4\"", {},
            {{0, "BOOL", {4}, "c"}});
    b.layer(1, "to_i32", "Convert", "opset1", "destination_type=\"i32\"", {{0, "BOOL", {4}, ""}}, {{1, "I32", {4}, "i"}});
    b.layer(2, "rc", "Result", "opset1", "", {{0, "BOOL", {4}, ""}}, {});
    b.layer(3, "ri", "Result", "opset1", "", {{0, "I32", {4}, ""}}, {});
    b.edge(0, 0, 1, 0).edge(0, 0, 2, 0).edge(1, 1, 3, 0);
    const unsigned char bin[4] = {0, 1, 16, 255};
    const CompiledModel m(Model::read_from_memory(b.xml(), bin, sizeof bin));
    InferRequest req = m.create_infer_request();
    req.infer();
    const auto* bytes = req.output("c").data<uint8_t>();
    EXPECT_EQ(std::vector<int>(bytes, bytes + 4), (std::vector<int>{0, 1, 1, 1}));
    const int32_t* ints = req.output("i").data<int32_t>();
    EXPECT_EQ(std::vector<int32_t>(ints, ints + 4), (std::vector<int32_t>{0, 1, 1, 1}));
}

}  // namespace
}  // namespace irlite
