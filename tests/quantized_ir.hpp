// A quantized convolution in the form POT/NNCF write it (engine/low_precision.hpp), for the tests
// and the int8 fuzzer: x -> FakeQuantize -> Convolution(i8 Const -> Convert -> Multiply(scale), or
// older POT's u8 levels -> Convert -> FakeQuantize) -> Add(bias) [-> ReLU] [-> FakeQuantize] -> out.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "ir_builder.hpp"

namespace irlite::testing {

using Dims = std::vector<long long>;

inline std::string join(const Dims& d) {
    std::string s;
    for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
    return s;
}
inline size_t count(const Dims& d) {
    size_t n = 1;
    for (long long x : d) n *= static_cast<size_t>(x);
    return n;
}

// Pieces of quantized IR, each given the id of its first layer: it takes the ids from there on and
// returns the last (the piece's output layer); the next piece starts after it.

// Four range Consts of range_dims (scalars when empty), ranges = {in_low, in_high, out_low,
// out_high} (one value per element), then the FakeQuantize of (from, port): output port 5.
inline int add_fake_quantize(IrBuilder& b, int id, const std::string& name, int from, int port, const Dims& dims,
                             const std::vector<float> (&ranges)[4], const Dims& range_dims = {}, int levels = 256) {
    for (int i = 0; i < 4; ++i)
        b.constant(id + i, name + "_range" + std::to_string(i), "f32", range_dims, ranges[i].data(),
                   ranges[i].size() * sizeof(float));
    const int fq = id + 4;
    b.layer(fq, name, "FakeQuantize", "opset1", "levels=\"" + std::to_string(levels) + "\" auto_broadcast=\"numpy\"",
            {{0, "", dims, ""}, {1, "", range_dims, ""}, {2, "", range_dims, ""}, {3, "", range_dims, ""}, {4, "", range_dims, ""}},
            {{5, "FP32", dims, ""}});
    b.edge(from, port, fq, 0);
    for (int i = 0; i < 4; ++i) b.edge(id + i, 0, fq, 1 + i);
    return fq;
}
inline int add_fake_quantize(IrBuilder& b, int id, const std::string& name, int from, int port, const Dims& dims,
                             float il, float ih, float ol, float oh, int levels = 256) {
    const std::vector<float> ranges[4] = {{il}, {ih}, {ol}, {oh}};
    return add_fake_quantize(b, id, name, from, port, dims, ranges, {}, levels);
}

// Weights of shape w and element type `type` (`data`, `bytes` long) -> Convert(f32) ->
// Multiply(scale of scale_dims): output port 2.
inline int add_scaled_weights(IrBuilder& b, int id, const std::string& name, const std::string& type, const Dims& w,
                              const void* data, size_t bytes, const Dims& scale_dims, const std::vector<float>& scale) {
    b.constant(id, name + "_" + type, type, w, data, bytes);
    b.layer(id + 1, name + "_convert", "Convert", "opset1", "destination_type=\"f32\"", {{0, "", w, ""}}, {{1, "FP32", w, ""}});
    b.constant(id + 2, name + "_scale", "f32", scale_dims, scale.data(), scale.size() * sizeof(float));
    b.layer(id + 3, name + "_mul", "Multiply", "opset1", "", {{0, "", w, ""}, {1, "", scale_dims, ""}}, {{2, "FP32", w, ""}});
    b.edge(id, 0, id + 1, 0).edge(id + 1, 1, id + 3, 0).edge(id + 2, 0, id + 3, 1);
    return id + 3;
}
inline int add_i8_weights(IrBuilder& b, int id, const std::string& name, const Dims& w, const std::vector<int8_t>& wq,
                          const Dims& scale_dims, const std::vector<float>& scale) {
    return add_scaled_weights(b, id, name, "i8", w, wq.data(), wq.size(), scale_dims, scale);
}

// Convolution of (from, port) [in] by weights (w_from, w_port) [w] into out, then Add(bias, one
// per output channel): output port 2.
inline int add_conv_bias(IrBuilder& b, int id, const std::string& name, int from, int port, int w_from, int w_port,
                         const Dims& in, const Dims& w, const Dims& out, long long stride, long long pad,
                         long long dilation, const std::vector<float>& bias, const std::string& type = "Convolution") {
    const std::string data = "strides=\"" + join({stride, stride}) + "\" dilations=\"" + join({dilation, dilation}) +
                             "\" pads_begin=\"" + join({pad, pad}) + "\" pads_end=\"" + join({pad, pad}) +
                             "\" auto_pad=\"explicit\"";
    const Dims bias_dims{1, out[1], 1, 1};
    b.layer(id, name, type, "opset1", data, {{0, "", in, ""}, {1, "", w, ""}}, {{2, "FP32", out, ""}});
    b.constant(id + 1, name + "_bias", "f32", bias_dims, bias.data(), bias.size() * sizeof(float));
    b.layer(id + 2, name + "_add", "Add", "opset1", "", {{0, "", out, ""}, {1, "", bias_dims, ""}}, {{2, "FP32", out, ""}});
    b.edge(from, port, id, 0).edge(w_from, w_port, id, 1).edge(id, 2, id + 2, 0).edge(id + 1, 0, id + 2, 1);
    return id + 2;
}

// A Convolution (stride, pad k / 2) of random i8 weights, per-channel scales in [0.002, 0.02) and
// biases in [-0.16, 0.2): i8 -> Convert -> Multiply -> Convolution -> Add(bias); output port 2.
inline int add_random_int8_conv(IrBuilder& b, int id, const std::string& name, int from, int port, const Dims& in,
                                const Dims& out, long long k, long long stride, std::mt19937& rng) {
    const Dims w{out[1], in[1], k, k}, scale_dims{out[1], 1, 1, 1};
    std::uniform_int_distribution<int> wi(-127, 127);
    std::uniform_real_distribution<float> su(0.002f, 0.02f);
    std::vector<int8_t> wq(count(w));
    for (int8_t& v : wq) v = static_cast<int8_t>(wi(rng));
    std::vector<float> scale(count(scale_dims)), bias(static_cast<size_t>(out[1]));
    for (float& s : scale) s = su(rng);
    for (float& v : bias) v = su(rng) * 20 - 0.2f;
    const int weights = add_i8_weights(b, id, name + "_w", w, wq, scale_dims, scale);
    return add_conv_bias(b, weights + 1, name, from, port, weights, 2, in, w, out, stride, k / 2, 1, bias);
}

struct QuantConv {
    long long n = 1, cin = 8, cout = 16, hw = 9, k = 3, stride = 1, pad = 1, dilation = 1;
    int levels = 256;
    float il = -1.f, ih = 1.f, ol = -1.f, oh = 1.f;
    bool per_channel_scale = true, per_channel_range = false, integer_weights = true, relu = false;
    bool fq_weights = false;  // u8 levels -> Convert -> FakeQuantize(255 levels, output range per channel)
    bool out_fq = false;      // a FakeQuantize (scalar ranges) after the activation: fused into the int8 layer
    bool depthwise = false;   // a GroupConvolution of one channel per group (cout = cin), weights [cin, 1, 1, k, k]
    bool reshape_weights = false;  // depthwise: the i8 chain [cin, 1, k, k] -> Reshape -> [cin, 1, 1, k, k] (NNCF's form)
    long long out_hw() const { return (hw + 2 * pad - dilation * (k - 1) - 1) / stride + 1; }
};

// x -> FakeQuantize -> Convolution(i8 Const -> Convert -> Multiply(scale)) -> Add(bias) [-> ReLU]
//   [-> FakeQuantize] -> out
struct Built {
    std::string xml;
    std::vector<uint8_t> weights;
    Dims in_dims, out_dims;
};
inline Built build(const QuantConv& q, std::mt19937& rng) {
    IrBuilder b;
    const long long cout = q.depthwise ? q.cin : q.cout;
    const Dims in{q.n, q.cin, q.hw, q.hw}, out{q.n, cout, q.out_hw(), q.out_hw()};
    const Dims w = q.depthwise ? Dims{q.cin, 1, 1, q.k, q.k} : Dims{q.cout, q.cin, q.k, q.k};
    b.parameter(0, "x", "f32", in);
    const Dims range_dims = q.per_channel_range ? Dims{1, q.cin, 1, 1} : Dims{};
    std::vector<float> ranges[4] = {{q.il}, {q.ih}, {q.ol}, {q.oh}};
    for (std::vector<float>& r : ranges) {
        r.resize(count(range_dims), r[0]);
        if (q.per_channel_range) r[0] *= 0.5f;
    }
    const int fq = add_fake_quantize(b, 1, "fq", 0, 0, in, ranges, range_dims, q.levels);
    // Weights: i8 -> Convert(f32) -> Multiply(scale), or older POT's u8 levels -> Convert ->
    // FakeQuantize, or f32 values off the integers -> Convert -> Multiply.
    std::uniform_int_distribution<int> wi(-127, 127);
    std::vector<int8_t> wq(count(w));
    for (int8_t& v : wq) v = static_cast<int8_t>(wi(rng));
    Dims scale_dims = q.per_channel_scale ? Dims{cout, 1, 1, 1} : Dims{1};
    if (q.depthwise && q.per_channel_scale) scale_dims.push_back(1);
    std::uniform_real_distribution<float> su(0.001f, 0.01f);
    std::vector<float> scale(count(scale_dims));
    for (float& s : scale) s = su(rng);
    const int id = fq + 1;
    int weights = 0;
    if (q.fq_weights) {
        // The levels w + 127 as u8, dequantized by a FakeQuantize whose output range per channel
        // is [-127, 127] steps.
        std::vector<uint8_t> levels(wq.size());
        for (size_t i = 0; i < wq.size(); ++i) levels[i] = static_cast<uint8_t>(wq[i] + 127);
        b.constant(id, "w_u8", "u8", w, levels.data(), levels.size());
        b.layer(id + 1, "w_convert", "Convert", "opset1", "destination_type=\"f32\"", {{0, "", w, ""}}, {{1, "FP32", w, ""}});
        b.edge(id, 0, id + 1, 0);
        std::vector<float> w_ranges[4] = {std::vector<float>(scale.size(), 0.f), std::vector<float>(scale.size(), 254.f),
                                          scale, scale};
        for (size_t c = 0; c < scale.size(); ++c) w_ranges[2][c] = -127 * scale[c], w_ranges[3][c] = 127 * scale[c];
        weights = add_fake_quantize(b, id + 2, "w_fq", id + 1, 1, w, w_ranges, scale_dims, 255);
    } else if (q.integer_weights && q.depthwise && q.reshape_weights) {
        const Dims w4{q.cin, 1, q.k, q.k}, scale4 = q.per_channel_scale ? Dims{q.cin, 1, 1, 1} : Dims{1};
        const int chain = add_i8_weights(b, id, "w", w4, wq, scale4, scale);
        const std::vector<int64_t> target(w.begin(), w.end());
        b.constant(chain + 1, "w_shape", "i64", {5}, target.data(), target.size() * sizeof(int64_t));
        b.layer(chain + 2, "w_reshape", "Reshape", "opset1", "special_zero=\"false\"", {{0, "", w4, ""}, {1, "", {5}, ""}},
                {{2, "FP32", w, ""}});
        b.edge(chain, 2, chain + 2, 0).edge(chain + 1, 0, chain + 2, 1);
        weights = chain + 2;
    } else if (q.integer_weights) {
        weights = add_i8_weights(b, id, "w", w, wq, scale_dims, scale);
    } else {
        std::vector<float> wf(count(w));
        for (size_t i = 0; i < wf.size(); ++i) wf[i] = static_cast<float>(wq[i]) + 0.25f;
        weights = add_scaled_weights(b, id, "w", "f32", w, wf.data(), wf.size() * sizeof(float), scale_dims, scale);
    }
    std::vector<float> bias(static_cast<size_t>(cout));
    for (float& v : bias) v = su(rng) * 10;
    int last = add_conv_bias(b, weights + 1, "conv", fq, 5, weights, q.fq_weights ? 5 : 2, in, w, out, q.stride, q.pad,
                             q.dilation, bias, q.depthwise ? "GroupConvolution" : "Convolution");
    int port = 2;
    if (q.relu) {
        b.layer(last + 1, "relu", "ReLU", "opset1", "", {{0, "", out, ""}}, {{1, "FP32", out, ""}});
        b.edge(last, port, last + 1, 0);
        last = last + 1, port = 1;
    }
    if (q.out_fq) last = add_fake_quantize(b, last + 1, "out_fq", last, port, out, -0.3f, 1.7f, -0.25f, 1.5f), port = 5;
    b.result(last + 1, "out", "f32", out);
    b.edge(last, port, last + 1, 0);
    return {b.xml(), b.weights(), in, out};
}

}  // namespace irlite::testing
