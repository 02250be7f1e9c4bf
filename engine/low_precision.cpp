#include "engine/low_precision.hpp"

#include <cmath>
#include <optional>
#include <utility>
#include <vector>

namespace irlite {
namespace {

constexpr double kHalfRounding = 1.0 / 1024;  // f16 keeps 11 significant bits: relative 2^-11 per rounding

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

// The activation quantizer of `fq` (a FakeQuantize), when the int8 kernels can apply it.
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
    const double level = std::nearbyint(zero);
    if (level < 0 || level > steps || std::abs(zero - level) > 1e-3) return std::nullopt;
    QuantizedInput q;
    q.in_low = *il;
    q.in_high = *ih;
    q.out_step = static_cast<float>(step);
    q.levels = static_cast<int>(levels);
    q.zero_index = static_cast<int>(level);
    return q;
}

// The weights as integers times a per-output-channel scale, read off the Multiply that made them.
bool integer_weights(const Graph& g, const ValueRef& w_ref, QuantizedInput& q) {
    const Tensor* w = constant_f32(g, w_ref);
    const Node& mul = g.nodes[static_cast<size_t>(w_ref.node)];
    if (!w || w->shape().size() < 2 || !mul.def || !mul.def->is_multiply || mul.inputs.size() != 2) return false;
    const int64_t channels = w->shape()[0], n = w->num_elements();
    if (channels <= 0 || n <= 0) return false;
    for (int side = 0; side < 2; ++side) {
        const Tensor* ints = constant_f32(g, mul.inputs[static_cast<size_t>(side)]);
        const Tensor* scale = constant_f32(g, mul.inputs[static_cast<size_t>(1 - side)]);
        if (!ints || !scale || ints->num_elements() != n) continue;
        // The scale: one value, or one per channel along axis 0 ([C, 1, 1, 1] for [C, ...] weights).
        const int64_t s = scale->num_elements();
        if (s != 1 && !(s == channels && scale->shape().size() == w->shape().size() && scale->shape()[0] == channels))
            continue;
        const float* iv = ints->data<float>();
        const float* sv = scale->data<float>();
        const float* wv = w->data<float>();
        const int64_t per_channel = n / channels;
        std::vector<int8_t> weights(static_cast<size_t>(n));
        bool ok = true;
        for (int64_t i = 0; i < n && ok; ++i) {
            const float v = iv[i];
            const float sc = sv[s == 1 ? 0 : i / per_channel];
            ok = v >= -128 && v <= 127 && v == std::nearbyint(v) && std::isfinite(sc);
            const double product = static_cast<double>(v) * sc;
            ok = ok && std::abs(product - wv[i]) <= kHalfRounding * std::abs(product);
            weights[static_cast<size_t>(i)] = static_cast<int8_t>(v);
        }
        if (!ok) continue;
        q.weights = std::move(weights);
        q.weights_shape = w->shape();
        q.weight_scale.assign(sv, sv + s);
        return true;
    }
    return false;
}

}  // namespace

std::shared_ptr<const Graph> quantize_graph(std::shared_ptr<const Graph> graph) {
    if (!graph) return graph;
    const Graph& g = *graph;
    std::shared_ptr<Graph> out;
    // Consumers of each FakeQuantize's output that still read it.
    std::vector<int> readers(g.nodes.size(), 0);
    for (const Node& n : g.nodes)
        if (n.live)
            for (const ValueRef& r : n.inputs) ++readers[static_cast<size_t>(r.node)];
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
        Node& changed = out->nodes[ni];
        changed.attrs = std::shared_ptr<const OpAttrs>(std::move(attrs));
        changed.inputs[0] = x;
        ++readers[static_cast<size_t>(x.node)];
        if (--readers[static_cast<size_t>(data.node)] == 0) out->nodes[static_cast<size_t>(data.node)].live = false;
    }
    if (!out) return graph;
    return out;
}

}  // namespace irlite
