// A small MLP as IR for the tests of dumping and comparing layers (compare_test.cpp,
// cli_compare_test.cpp), with a twin whose weights differ in one layer.
#pragma once

#include <cstdint>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "ir_builder.hpp"
#include "irlite/irlite.hpp"

namespace irlite::testing {

// x[2,8] -> mm1 (MatMul W1 [8,16]) -> add1 (+ b1) -> relu1 -> mm2 (MatMul W2 [16,4]) -> add2 (+ b2)
// -> Result. Tensor names: every port is named after its layer ("mm1:0" ...), except when
// `tensor_names` is false (matching then goes by layer name). `changed` scales W2 by 3 and adds a
// constant to it: a copy whose weights differ in layer mm2 only. f16: every type f16.
struct Mlp {
    IrBuilder b;
    explicit Mlp(bool changed = false, bool tensor_names = true, const std::string& type = "f32") {
        std::mt19937 rng(7);
        std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
        const auto values = [&](size_t n, bool change) {
            std::vector<float> v(n);
            for (float& f : v) f = dist(rng);
            if (change)
                for (size_t i = 0; i < n; ++i) v[i] = v[i] * 3.0f + (i % 2 ? 0.5f : -0.25f);
            return v;
        };
        const auto name = [&](const std::string& layer) { return tensor_names ? layer + ":0" : std::string(); };
        const std::string p = IrBuilder::precision(type);
        const auto constant = [&](int id, const std::string& n, const std::vector<long long>& dims, bool change) {
            size_t count = 1;
            for (long long d : dims) count *= static_cast<size_t>(d);
            const std::vector<float> v = values(count, change);
            if (type == "f16") {
                std::vector<uint16_t> h(v.size());
                for (size_t i = 0; i < v.size(); ++i) h[i] = f32_to_f16(v[i]);
                b.constant(id, n, type, dims, h.data(), h.size() * 2);
            } else {
                b.constant(id, n, type, dims, v.data(), v.size() * 4);
            }
        };
        b.layer(0, "x", "Parameter", "opset1", "shape=\"2,8\" element_type=\"" + type + "\"", {}, {{0, p, {2, 8}, "x"}});
        constant(1, "W1", {8, 16}, false);
        b.layer(2, "mm1", "MatMul", "opset1", "transpose_a=\"false\" transpose_b=\"false\"",
                {{0, p, {2, 8}, ""}, {1, p, {8, 16}, ""}}, {{2, p, {2, 16}, name("mm1")}});
        constant(3, "b1", {16}, false);
        b.layer(4, "add1", "Add", "opset1", "", {{0, p, {2, 16}, ""}, {1, p, {16}, ""}}, {{2, p, {2, 16}, name("add1")}});
        b.layer(5, "relu1", "Relu", "opset1", "", {{0, p, {2, 16}, ""}}, {{1, p, {2, 16}, name("relu1")}});
        constant(6, "W2", {16, 4}, changed);
        b.layer(7, "mm2", "MatMul", "opset1", "transpose_a=\"false\" transpose_b=\"false\"",
                {{0, p, {2, 16}, ""}, {1, p, {16, 4}, ""}}, {{2, p, {2, 4}, name("mm2")}});
        constant(8, "b2", {4}, false);
        b.layer(9, "add2", "Add", "opset1", "", {{0, p, {2, 4}, ""}, {1, p, {4}, ""}}, {{2, p, {2, 4}, name("add2")}});
        b.result(10, "out", type, {2, 4});
        b.edge(0, 0, 2, 0).edge(1, 0, 2, 1).edge(2, 2, 4, 0).edge(3, 0, 4, 1).edge(4, 2, 5, 0);
        b.edge(5, 1, 7, 0).edge(6, 0, 7, 1).edge(7, 2, 9, 0).edge(8, 0, 9, 1).edge(9, 2, 10, 0);
    }
    Model model() const { return Model::read_from_memory(b.xml(), b.weights().data(), b.weights().size()); }
    // Writes DIR/STEM.xml and DIR/STEM.bin; returns the xml's path.
    std::string write(const std::string& dir, const std::string& stem) const {
        std::ofstream(dir + "/" + stem + ".xml", std::ios::binary) << b.xml();
        std::ofstream(dir + "/" + stem + ".bin", std::ios::binary)
            .write(reinterpret_cast<const char*>(b.weights().data()), static_cast<std::streamsize>(b.weights().size()));
        return dir + "/" + stem + ".xml";
    }
};

// The input x [2, 8] the MLP's tests feed it.
inline Tensor mlp_input() {
    Tensor x(ElementType::f32, {2, 8});
    for (int i = 0; i < 16; ++i) x.data<float>()[i] = static_cast<float>((i * 7) % 11) / 5.0f - 1.0f;
    return x;
}

// A model compiled on one thread, fused or not, keeping every node's value (or not).
inline CompiledModel compile_keeping(const Model& m, bool fusion, bool keep = true) {
    CompileOptions o;
    o.threads = 1;
    o.fusion = fusion;
    o.keep_intermediates = keep;
    return CompiledModel(m, o);
}

}  // namespace irlite::testing
