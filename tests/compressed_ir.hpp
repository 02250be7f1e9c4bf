// A linear layer with compressed weights in NNCF's form (engine/weight_compression.hpp), for the
// tests: x [M, K] -> MatMul(transpose_b) <- [Convert f32] <- [Reshape [N, K]] <- Multiply(scale)
// <- [Subtract(Convert(zero point))] <- Convert <- w Const (u4, i4, u8 or i8) [-> Add(bias)].
// The exact weights come back too, for the tests' tolerances.
#pragma once

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ir_builder.hpp"

namespace irlite::testing {

struct CompressedLinear {
    std::string format = "u4";  // u4 and u8 asymmetric (a zero point), i4 and i8 symmetric
    long long rows = 1, depth = 256, columns = 40;  // M, K, N
    long long group = 32;  // 0: one per output column
    bool f16 = false;      // decompress in f16, then Convert to f32
    bool bias = false;
    bool transpose_b = true;
    unsigned seed = 1;
};

struct BuiltLinear {
    std::string xml;
    std::vector<unsigned char> weights;
    std::vector<double> w;  // the decompressed weights [N][K], exactly
};

// f16 bits of a float that f16 holds exactly (a normal number with an 11-bit significand).
inline uint16_t exact_f16(float v) {
    uint32_t b;
    std::memcpy(&b, &v, 4);
    const int e = static_cast<int>((b >> 23) & 0xFF) - 127;
    return static_cast<uint16_t>(((b >> 16) & 0x8000) | ((e + 15) << 10) | ((b >> 13) & 0x3FF));
}

inline BuiltLinear build_compressed_linear(const CompressedLinear& c) {
    const bool four = c.format[1] == '4', is_signed = c.format[0] == 'i';
    const long long n = c.columns, k = c.depth, gs = c.group > 0 ? c.group : k, groups = k / gs;
    const int lo = is_signed ? (four ? -8 : -128) : 0, hi = is_signed ? (four ? 7 : 127) : (four ? 15 : 255);
    std::mt19937 rng(c.seed);
    std::uniform_int_distribution<int> qd(lo, hi);
    std::vector<int> q(static_cast<size_t>(n * k)), zp(static_cast<size_t>(n * groups), 0);
    std::vector<float> scale(static_cast<size_t>(n * groups));
    for (int& v : q) v = qd(rng);
    if (!is_signed)
        for (int& v : zp) v = qd(rng);
    for (size_t i = 0; i < scale.size(); ++i) scale[i] = static_cast<float>(1 + rng() % 13) / 1024.f;  // exact in f16
    const auto raw = [&](const std::vector<int>& v) {
        std::vector<unsigned char> out;
        if (four) {
            out.assign((v.size() + 1) / 2, 0);
            for (size_t i = 0; i < v.size(); ++i) out[i / 2] |= static_cast<unsigned char>((v[i] & 0xF) << (i % 2 * 4));
        } else {
            for (int x : v) out.push_back(static_cast<unsigned char>(x & 0xFF));
        }
        return out;
    };
    BuiltLinear built;
    built.w.resize(static_cast<size_t>(n * k));
    for (long long r = 0; r < n; ++r)
        for (long long j = 0; j < k; ++j) {
            const size_t g = static_cast<size_t>(r * groups + j / gs);
            built.w[static_cast<size_t>(r * k + j)] = (q[static_cast<size_t>(r * k + j)] - zp[g]) * static_cast<double>(scale[g]);
        }
    const bool grouped = gs != k;
    using D = std::vector<long long>;
    const D w3 = grouped ? D{n, groups, gs} : D{n, k}, s3 = grouped ? D{n, groups, 1} : D{n, 1};
    const std::string dt = c.f16 ? "f16" : "f32", prec = c.f16 ? "FP16" : "FP32";
    IrBuilder b;
    b.parameter(0, "x", "f32", {c.rows, k});
    const std::vector<unsigned char> wq = raw(q);
    b.constant(1, "w", c.format, w3, wq.data(), wq.size());
    b.layer(2, "w_convert", "Convert", "opset1", "destination_type=\"" + dt + "\"", {{0, "", w3, ""}}, {{1, prec, w3, ""}});
    b.edge(1, 0, 2, 0);
    int last = 2, port = 1;
    if (!is_signed) {
        const std::vector<unsigned char> zq = raw(zp);
        b.constant(3, "zero_point", c.format, s3, zq.data(), zq.size());
        b.layer(4, "zp_convert", "Convert", "opset1", "destination_type=\"" + dt + "\"", {{0, "", s3, ""}}, {{1, prec, s3, ""}});
        b.layer(5, "w_subtract", "Subtract", "opset1", "", {{0, prec, w3, ""}, {1, prec, s3, ""}}, {{2, prec, w3, ""}});
        b.edge(3, 0, 4, 0).edge(2, 1, 5, 0).edge(4, 1, 5, 1);
        last = 5, port = 2;
    }
    if (c.f16) {
        std::vector<uint16_t> h;
        for (float s : scale) h.push_back(exact_f16(s));
        b.constant(6, "scale", "f16", s3, h.data(), h.size() * 2);
    } else {
        b.constant(6, "scale", "f32", s3, scale.data(), scale.size() * 4);
    }
    b.layer(7, "w_multiply", "Multiply", "opset1", "", {{0, prec, w3, ""}, {1, prec, s3, ""}}, {{2, prec, w3, ""}});
    b.edge(last, port, 7, 0).edge(6, 0, 7, 1);
    last = 7, port = 2;
    const D w2{n, k};
    if (grouped) {
        const long long shape[2] = {n, k};
        b.constant(8, "w_shape", "i64", {2}, shape, sizeof shape);
        b.layer(9, "w_reshape", "Reshape", "opset1", "special_zero=\"false\"", {{0, prec, w3, ""}, {1, "I64", {2}, ""}},
                {{2, prec, w2, ""}});
        b.edge(last, port, 9, 0).edge(8, 0, 9, 1);
        last = 9, port = 2;
    }
    if (c.f16) {
        b.layer(10, "w_to_f32", "Convert", "opset1", "destination_type=\"f32\"", {{0, prec, w2, ""}}, {{1, "FP32", w2, ""}});
        b.edge(last, port, 10, 0);
        last = 10, port = 1;
    }
    const D wb = c.transpose_b ? w2 : D{k, n};
    if (!c.transpose_b) {
        const long long order[2] = {1, 0};
        b.constant(15, "w_order", "i64", {2}, order, sizeof order);
        b.layer(16, "w_transpose", "Transpose", "opset1", "", {{0, "FP32", w2, ""}, {1, "I64", {2}, ""}}, {{2, "FP32", wb, ""}});
        b.edge(last, port, 16, 0).edge(15, 0, 16, 1);
        last = 16, port = 2;
    }
    const D out{c.rows, n};
    b.layer(11, "linear", "MatMul", "opset1",
            std::string("transpose_a=\"false\" transpose_b=\"") + (c.transpose_b ? "true" : "false") + "\"",
            {{0, "FP32", {c.rows, k}, ""}, {1, "FP32", wb, ""}}, {{2, "FP32", out, ""}});
    b.edge(0, 0, 11, 0).edge(last, port, 11, 1);
    last = 11, port = 2;
    if (c.bias) {
        std::vector<float> bias(static_cast<size_t>(n));
        for (size_t i = 0; i < bias.size(); ++i) bias[i] = static_cast<float>(i % 5) * 0.25f - 0.5f;
        b.constant(12, "bias", "f32", {n}, bias.data(), bias.size() * 4);
        b.layer(13, "add", "Add", "opset1", "", {{0, "FP32", out, ""}, {1, "FP32", {n}, ""}}, {{2, "FP32", out, ""}});
        b.edge(11, 2, 13, 0).edge(12, 0, 13, 1);
        last = 13, port = 2;
    }
    b.result(14, "y", "f32", out);
    b.edge(last, port, 14, 0);
    built.xml = b.xml();
    built.weights = b.weights();
    return built;
}

}  // namespace irlite::testing
