// `irlite run --dump` as a user runs it: the files and the index a dump writes, --dump-layers,
// names of layers with several outputs, and usage errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "mlp_ir.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

// x[2,8] -> Split(axis 1, 2 parts) -> two Results: a layer with two outputs.
std::string write_split_model(const TempDir& dir) {
    testing::IrBuilder b;
    const int64_t axis = 1;
    b.parameter(0, "x", "f32", {2, 8});
    b.constant(1, "axis", "i64", {}, &axis, sizeof axis);
    b.layer(2, "split/part", "Split", "opset1", "num_splits=\"2\"", {{0, "FP32", {2, 8}, ""}, {1, "I64", {}, ""}},
            {{2, "FP32", {2, 4}, ""}, {3, "FP32", {2, 4}, ""}});
    b.result(3, "r0", "f32", {2, 4});
    b.result(4, "r1", "f32", {2, 4});
    b.edge(0, 0, 2, 0).edge(1, 0, 2, 1).edge(2, 2, 3, 0).edge(2, 3, 4, 0);
    std::ofstream(dir.file("split.xml"), std::ios::binary) << b.xml();
    std::ofstream(dir.file("split.bin"), std::ios::binary)
        .write(reinterpret_cast<const char*>(b.weights().data()), static_cast<std::streamsize>(b.weights().size()));
    return dir.file("split.xml");
}

TEST(CliDump, WritesEveryLayerAndAnIndex) {
    TempDir dir;
    const std::string model = Mlp().write(dir.file(""), "mlp"), x = input_file(dir);
    const CliResult r = irlite({"run", model, "-i", "x=" + x, "--dump", dir.file("dump"), "-q"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "");
    for (const char* layer : {"x", "mm1", "add1", "relu1", "mm2", "add2"})
        EXPECT_TRUE(fs::exists(dir.file(std::string("dump/") + layer + ".npy"))) << layer;
    EXPECT_FALSE(fs::exists(dir.file("dump/W1.npy")));  // no Consts
    const std::string index = slurp(dir.file("dump/index.json"));
    EXPECT_NE(index.find("\"layers\""), std::string::npos);
    // Topological order, and each entry's fields.
    size_t at = 0;
    for (const char* layer : {"\"x\"", "\"mm1\"", "\"add1\"", "\"relu1\"", "\"mm2\"", "\"add2\""}) {
        const size_t next = index.find(std::string("\"name\": ") + layer, at);
        ASSERT_NE(next, std::string::npos) << layer << "\n" << index;
        at = next;
    }
    for (const char* field : {"\"type\": \"Relu\"", "\"port\": 0", "\"file\": \"relu1.npy\"", "\"element_type\": \"f32\""})
        EXPECT_NE(index.find(field), std::string::npos) << field << "\n" << index;
    // The add1 values are its own (the ReLU after it did not overwrite them), and the last layer's
    // file equals the model's output.
    const Tensor add1 = read_npy(dir.file("dump/add1.npy")), relu1 = read_npy(dir.file("dump/relu1.npy"));
    ASSERT_EQ(add1.shape(), (Shape{2, 16}));
    bool negative = false;
    for (int i = 0; i < 32; ++i) {
        negative = negative || add1.data<float>()[i] < 0;
        EXPECT_EQ(relu1.data<float>()[i], std::max(add1.data<float>()[i], 0.0f));
    }
    EXPECT_TRUE(negative);
    ASSERT_EQ(irlite({"run", model, "-i", "x=" + x, "-o", dir.file("out"), "-q"}).exit_code, 0);
    const Tensor fused = read_npy(dir.file("out/add2_0.npy")), dumped = read_npy(dir.file("dump/add2.npy"));
    ASSERT_EQ(fused.num_elements(), dumped.num_elements());
    for (int64_t i = 0; i < fused.num_elements(); ++i)
        EXPECT_NEAR(fused.data<float>()[i], dumped.data<float>()[i], 1e-5);
}

TEST(CliDump, LimitedToSomeLayersAndPortsNamed) {
    TempDir dir;
    const std::string model = Mlp().write(dir.file(""), "mlp"), x = input_file(dir);
    CliResult r = irlite({"run", model, "-i", "x=" + x, "--dump", dir.file("d"), "--dump-layers", "mm2,relu1", "-q"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(list_dir(dir.file("d")), (std::vector<std::string>{"index.json", "mm2.npy", "relu1.npy"}));
    r = irlite({"run", model, "-i", "x=" + x, "--dump", dir.file("e"), "--dump-layers", "W1"});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("'W1'"), std::string::npos) << r.err;
    EXPECT_EQ(irlite({"run", model, "-i", "x=" + x, "--dump-layers", "mm1"}).exit_code, 2);
    // A layer with two outputs: <layer>.<port>, sanitised as -o's names are.
    const std::string split = write_split_model(dir);
    r = irlite({"run", split, "-i", "x=" + x, "--dump", dir.file("s"), "-q"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(list_dir(dir.file("s")), (std::vector<std::string>{"index.json", "split_part.0.npy", "split_part.1.npy", "x.npy"}));
    EXPECT_NE(slurp(dir.file("s/index.json")).find("\"port\": 1"), std::string::npos);
}

}  // namespace
}  // namespace irlite
