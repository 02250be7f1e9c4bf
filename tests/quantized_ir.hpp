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

struct QuantConv {
    long long n = 1, cin = 8, cout = 16, hw = 9, k = 3, stride = 1, pad = 1, dilation = 1;
    int levels = 256;
    float il = -1.f, ih = 1.f, ol = -1.f, oh = 1.f;
    bool per_channel_scale = true, per_channel_range = false, integer_weights = true, relu = false;
    bool fq_weights = false;  // u8 levels -> Convert -> FakeQuantize(255 levels, output range per channel)
    bool out_fq = false;      // a FakeQuantize (scalar ranges) after the activation: fused into the int8 layer
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
    const Dims in{q.n, q.cin, q.hw, q.hw}, w{q.cout, q.cin, q.k, q.k}, out{q.n, q.cout, q.out_hw(), q.out_hw()};
    b.parameter(0, "x", "f32", in);
    const Dims range_dims = q.per_channel_range ? Dims{1, q.cin, 1, 1} : Dims{};
    const size_t range_count = count(range_dims);
    const float ranges[4] = {q.il, q.ih, q.ol, q.oh};
    for (int i = 0; i < 4; ++i) {
        std::vector<float> v(range_count, ranges[i]);
        if (q.per_channel_range) v[0] *= 0.5f;
        b.constant(1 + i, "range" + std::to_string(i), "f32", range_dims, v.data(), v.size() * sizeof(float));
    }
    b.layer(5, "fq", "FakeQuantize", "opset1", "levels=\"" + std::to_string(q.levels) + "\" auto_broadcast=\"numpy\"",
            {{0, "", in, ""}, {1, "", range_dims, ""}, {2, "", range_dims, ""}, {3, "", range_dims, ""}, {4, "", range_dims, ""}},
            {{5, "FP32", in, ""}});
    b.edge(0, 0, 5, 0);
    for (int i = 0; i < 4; ++i) b.edge(1 + i, 0, 5, 1 + i);
    // Weights: i8 -> Convert(f32) -> Multiply(scale).
    std::uniform_int_distribution<int> wi(-127, 127);
    std::vector<int8_t> wq(count(w));
    for (int8_t& v : wq) v = static_cast<int8_t>(wi(rng));
    std::vector<float> wf(count(w));
    for (size_t i = 0; i < wf.size(); ++i) wf[i] = static_cast<float>(wq[i]) + 0.25f;
    std::vector<uint8_t> levels(wq.size());  // the levels w + 127 (older POT's u8 weights)
    for (size_t i = 0; i < wq.size(); ++i) levels[i] = static_cast<uint8_t>(wq[i] + 127);
    if (q.fq_weights) b.constant(6, "w_u8", "u8", w, levels.data(), levels.size());
    else if (q.integer_weights) b.constant(6, "w_i8", "i8", w, wq.data(), wq.size());
    else b.constant(6, "w_f", "f32", w, wf.data(), wf.size() * sizeof(float));
    b.layer(7, "w_convert", "Convert", "opset1", "destination_type=\"f32\"", {{0, "", w, ""}}, {{1, "FP32", w, ""}});
    b.edge(6, 0, 7, 0);
    const Dims scale_dims = q.per_channel_scale ? Dims{q.cout, 1, 1, 1} : Dims{1};
    std::uniform_real_distribution<float> su(0.001f, 0.01f);
    std::vector<float> scale(count(scale_dims));
    for (float& s : scale) s = su(rng);
    if (q.fq_weights) {
        // Older POT: the levels (w + 127) as u8, dequantized by a FakeQuantize whose output range
        // per channel is [-127, 127] steps.
        const float in_range[2] = {0.f, 254.f};
        std::vector<float> lo(scale), hi(scale);
        for (size_t c = 0; c < scale.size(); ++c) lo[c] = -127 * scale[c], hi[c] = 127 * scale[c];
        b.constant(15, "w_il", "f32", {}, &in_range[0], sizeof(float));
        b.constant(16, "w_ih", "f32", {}, &in_range[1], sizeof(float));
        b.constant(8, "w_ol", "f32", scale_dims, lo.data(), lo.size() * sizeof(float));
        b.constant(17, "w_oh", "f32", scale_dims, hi.data(), hi.size() * sizeof(float));
        b.layer(9, "w_fq", "FakeQuantize", "opset1", "levels=\"255\"",
                {{0, "", w, ""}, {1, "", {}, ""}, {2, "", {}, ""}, {3, "", scale_dims, ""}, {4, "", scale_dims, ""}},
                {{5, "FP32", w, ""}});
        b.edge(7, 1, 9, 0).edge(15, 0, 9, 1).edge(16, 0, 9, 2).edge(8, 0, 9, 3).edge(17, 0, 9, 4);
    } else {
        b.constant(8, "w_scale", "f32", scale_dims, scale.data(), scale.size() * sizeof(float));
        b.layer(9, "w_mul", "Multiply", "opset1", "", {{0, "", w, ""}, {1, "", scale_dims, ""}}, {{2, "FP32", w, ""}});
        b.edge(7, 1, 9, 0).edge(8, 0, 9, 1);
    }
    const int w_port = q.fq_weights ? 5 : 2;
    const std::string data = "strides=\"" + join({q.stride, q.stride}) + "\" dilations=\"" + join({q.dilation, q.dilation}) +
                             "\" pads_begin=\"" + join({q.pad, q.pad}) + "\" pads_end=\"" + join({q.pad, q.pad}) +
                             "\" auto_pad=\"explicit\"";
    b.layer(10, "conv", "Convolution", "opset1", data, {{0, "", in, ""}, {1, "", w, ""}}, {{2, "FP32", out, ""}});
    b.edge(5, 5, 10, 0).edge(9, w_port, 10, 1);
    std::vector<float> bias(static_cast<size_t>(q.cout));
    for (float& v : bias) v = su(rng) * 10;
    b.constant(11, "bias", "f32", {1, q.cout, 1, 1}, bias.data(), bias.size() * sizeof(float));
    b.layer(12, "add", "Add", "opset1", "", {{0, "", out, ""}, {1, "", {1, q.cout, 1, 1}, ""}}, {{2, "FP32", out, ""}});
    b.edge(10, 2, 12, 0).edge(11, 0, 12, 1);
    int last = 12, port = 2;
    if (q.relu) {
        b.layer(13, "relu", "ReLU", "opset1", "", {{0, "", out, ""}}, {{1, "FP32", out, ""}});
        b.edge(12, 2, 13, 0);
        last = 13, port = 1;
    }
    if (q.out_fq) {
        const float ranges_out[4] = {-0.3f, 1.7f, -0.25f, 1.5f};
        for (int i = 0; i < 4; ++i)
            b.constant(20 + i, "out_range" + std::to_string(i), "f32", {}, &ranges_out[i], sizeof(float));
        b.layer(24, "out_fq", "FakeQuantize", "opset1", "levels=\"256\"",
                {{0, "", out, ""}, {1, "", {}, ""}, {2, "", {}, ""}, {3, "", {}, ""}, {4, "", {}, ""}}, {{5, "FP32", out, ""}});
        b.edge(last, port, 24, 0);
        for (int i = 0; i < 4; ++i) b.edge(20 + i, 0, 24, 1 + i);
        last = 24, port = 5;
    }
    b.result(14, "out", "f32", out);
    b.edge(last, port, 14, 0);
    return {b.xml(), b.weights(), in, out};
}

}  // namespace irlite::testing
