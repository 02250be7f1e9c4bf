#include "engine/low_precision.hpp"

#include <cmath>
#include <optional>
#include <utility>
#include <vector>

namespace irlite {
namespace {

const Tensor* constant_f32(const Graph& g, const ValueRef& r) {
    const Node& n = g.nodes[static_cast<size_t>(r.node)];
    if (!n.is_constant()) return nullptr;
    const Tensor& t = n.constants[static_cast<size_t>(r.output)];
    return t.type() == ElementType::f32 ? &t : nullptr;
}

std::optional<float> scalar(const Graph& g, const ValueRef& r) {
    const Tensor* t = constant_f32(g, r);
    if (!t || t->num_elements() != 1) return std::nullopt;
    return t->data<float>()[0];
}

}  // namespace

std::optional<QuantizedInput> activation_quantizer(const Graph& g, const Node& fq) {
    if (!fq.live || fq.inputs.size() != 5 || fq.outputs.size() != 1 || fq.outputs[0].type != ElementType::f32) return std::nullopt;
    const int64_t levels = fq.def->quantization_levels(*fq.attrs);
    if (levels < 2 || levels > 256) return std::nullopt;
    const auto il = scalar(g, fq.inputs[1]), ih = scalar(g, fq.inputs[2]);
    const auto ol = scalar(g, fq.inputs[3]), oh = scalar(g, fq.inputs[4]);
    if (!il || !ih || !ol || !oh || !(*il < *ih) || !(*ol < *oh)) return std::nullopt;
    if (!std::isfinite(*ih - *il) || !std::isfinite(*oh - *ol)) return std::nullopt;
    const double steps = static_cast<double>(levels - 1);
    const double step = (static_cast<double>(*oh) - *ol) / steps;
    const double zero = -static_cast<double>(*ol) / step;
    if (!(zero >= 0 && zero <= steps)) return std::nullopt;  // 0 outside the output range
    const double level = std::nearbyint(zero);
    QuantizedInput q;
    q.in_low = *il;
    q.in_high = *ih;
    q.out_low = *ol;
    q.out_high = *oh;
    q.out_step = static_cast<float>(step);
    q.levels = static_cast<int>(levels);
    q.zero_index = static_cast<int>(level);
    // Below a thousandth of a step the offset is the float rounding of an exact level's range.
    q.zero_offset = std::abs(zero - level) > 1e-3 ? zero - level : 0.0;
    return q;
}

namespace {

// A per-channel scale along axis 0 of [C, ...] weights: one value, or C laid out as [C, 1, ...].
bool is_channel_scale(const Tensor& scale, const Shape& weights) {
    const int64_t s = scale.num_elements();
    return s == 1 || (s == weights[0] && scale.shape().size() == weights.size() && scale.shape()[0] == weights[0]);
}

// w (the folded weights) as integers in [-128, 127] times `scale` (per channel along axis 0, or one
// value): each within a tenth of its channel's step of the integer times the step, which holds for
// weights computed as integer x scale in f32 (exact to rounding) or in f16 (dequantized by an FP16
// model: within 2^-11 of 127 steps).
bool as_integers(const Tensor& w, const std::vector<float>& scale, QuantizedInput& q) {
    const int64_t channels = w.shape()[0], n = w.num_elements(), per_channel = n / channels;
    const float* wv = w.data<float>();
    std::vector<int8_t> weights(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
        const double sc = scale[scale.size() == 1 ? 0 : static_cast<size_t>(i / per_channel)];
        if (!(sc > 0) || !std::isfinite(sc)) return false;
        const double v = std::nearbyint(wv[i] / sc);
        if (!(v >= -128 && v <= 127) || std::abs(v * sc - wv[i]) > 0.1 * sc) return false;
        weights[static_cast<size_t>(i)] = static_cast<int8_t>(v);
    }
    q.weights = std::move(weights);
    q.weights_shape = w.shape();
    q.weight_scale = scale;
    return true;
}

// The weights as integers times a per-output-channel scale, read off what made them (folded at
// load time): a Multiply of an integer tensor by the scale (NNCF's and POT's i8 Const -> Convert
// [-> Subtract] -> Multiply), or a FakeQuantize of integer levels whose output range per channel
// sets the step (older POT's u8 Const -> Convert -> FakeQuantize(levels 255, ranges per channel)).
bool integer_weights(const Graph& g, const ValueRef& w_ref, QuantizedInput& q, int reshapes = 0) {
    const Tensor* w = constant_f32(g, w_ref);
    const Node& maker = g.nodes[static_cast<size_t>(w_ref.node)];
    if (!w || w->shape().size() < 2 || !maker.def || w->shape()[0] <= 0 || w->num_elements() <= 0) return false;
    if (maker.def->keeps_element_order && !maker.inputs.empty() && maker.inputs[0].node >= 0) {
        // A Reshape of the weights (a grouped convolution's [C, 1, kh, kw] -> [C, 1, 1, kh, kw]):
        // the integers and scales of what it reshapes, the same elements in the same order and
        // the same channels along axis 0.
        const Tensor* before = constant_f32(g, maker.inputs[0]);
        if (reshapes >= 4 || !before || before->shape().size() < 2 || before->shape()[0] != w->shape()[0] ||
            !integer_weights(g, maker.inputs[0], q, reshapes + 1))
            return false;
        q.weights_shape = w->shape();
        return true;
    }
    if (maker.def->is_multiply && maker.inputs.size() == 2) {
        for (int side = 0; side < 2; ++side) {
            const Tensor* ints = constant_f32(g, maker.inputs[static_cast<size_t>(side)]);
            const Tensor* scale = constant_f32(g, maker.inputs[static_cast<size_t>(1 - side)]);
            if (!ints || !scale || ints->num_elements() != w->num_elements() || !is_channel_scale(*scale, w->shape()))
                continue;
            const float* iv = ints->data<float>();
            bool integral = true;
            for (int64_t i = 0; i < ints->num_elements() && integral; ++i) integral = iv[i] == std::nearbyint(iv[i]);
            if (integral && as_integers(*w, std::vector<float>(scale->data<float>(), scale->data<float>() + scale->num_elements()), q))
                return true;
        }
        return false;
    }
    if (maker.def->quantization_levels && maker.inputs.size() == 5) {
        const int64_t levels = maker.def->quantization_levels(*maker.attrs);
        const Tensor* ol = constant_f32(g, maker.inputs[3]);
        const Tensor* oh = constant_f32(g, maker.inputs[4]);
        if (levels < 2 || levels > 256 || !ol || !oh || ol->num_elements() != oh->num_elements() ||
            !is_channel_scale(*ol, w->shape()) || !is_channel_scale(*oh, w->shape()))
            return false;
        std::vector<float> step(static_cast<size_t>(ol->num_elements()));
        for (size_t c = 0; c < step.size(); ++c) {
            const float lo = ol->data<float>()[c], hi = oh->data<float>()[c];
            step[c] = (hi - lo) / static_cast<float>(levels - 1);
            // The level for 0 must be a level, or the integers would be offset.
            const double zero = -static_cast<double>(lo) / step[c];
            if (!(step[c] > 0) || std::abs(zero - std::nearbyint(zero)) > 1e-3) return false;
        }
        return as_integers(*w, step, q);
    }
    return false;
}

}  // namespace

std::shared_ptr<const Graph> quantize_graph(std::shared_ptr<const Graph> graph) {
    if (!graph) return graph;
    const Graph& g = *graph;
    std::shared_ptr<Graph> out;
    // Consumers of each FakeQuantize's output that still read it.
    std::vector<int> readers = live_readers(g);
    for (size_t ni = 0; ni < g.nodes.size(); ++ni) {
        const Node& n = g.nodes[ni];
        if (!n.live || !n.def || !n.def->with_quantized_input || !n.shapes_static || n.inputs.size() < 2 ||
            n.outputs.empty() || n.outputs[0].type != ElementType::f32)
            continue;
        const ValueRef data = n.inputs[0];
        const Node& fq = g.nodes[static_cast<size_t>(data.node)];
        if (!fq.def || !fq.def->quantization_levels || data.output != 0) continue;
        std::optional<QuantizedInput> q = activation_quantizer(g, fq);
        if (!q || !integer_weights(g, n.inputs[1], *q)) continue;
        const ValueRef x = fq.inputs[0];
        const Node& xp = g.nodes[static_cast<size_t>(x.node)];
        if (xp.outputs[static_cast<size_t>(x.output)].type != ElementType::f32) continue;
        std::unique_ptr<OpAttrs> attrs = n.def->with_quantized_input(*n.attrs, std::make_shared<QuantizedInput>(std::move(*q)));
        if (!attrs) continue;
        if (!out) out = std::make_shared<Graph>(g);
        out->nodes[ni].attrs = std::shared_ptr<const OpAttrs>(std::move(attrs));
        rewire_input(*out, readers, ni, 0, x);
    }
    if (!out) return graph;
    return out;
}

}  // namespace irlite
