#include "engine/weight_compression.hpp"

#include <cmath>
#include <optional>
#include <utility>
#include <vector>

namespace irlite {
namespace {

const Node& node_of(const Graph& g, const ValueRef& r) { return g.nodes[static_cast<size_t>(r.node)]; }
const OutputInfo& info_of(const Graph& g, const ValueRef& r) {
    return node_of(g, r).outputs[static_cast<size_t>(r.output)];
}

// A value known at compile time, or a Convert of one (a packed zero point is unpacked at run time).
const Tensor* known_value(const Graph& g, ValueRef r) {
    const Node& n = node_of(g, r);
    if (n.is_constant()) return &n.constants[static_cast<size_t>(r.output)];
    if (n.def && n.def->is_convert && n.inputs.size() == 1 && node_of(g, n.inputs[0]).is_constant())
        return &node_of(g, n.inputs[0]).constants[static_cast<size_t>(n.inputs[0].output)];
    return nullptr;
}

// For a tensor of shape `t` broadcast (numpy) onto the weights' shape `w`: the elements per block
// over which it is constant (the trailing axes where it has extent 1), or 0 when it does not
// broadcast that way.
int64_t block_of(const Shape& t, const Shape& w) {
    if (t.size() > w.size()) return 0;
    const size_t lead = w.size() - t.size();
    int64_t block = 1;
    bool trailing = true;
    for (size_t i = w.size(); i-- > 0;) {
        const int64_t d = i >= lead ? t[i - lead] : 1;
        if (d != 1 && d != w[i]) return 0;
        if (d == 1 && trailing) {
            block *= w[i];
        } else {
            trailing = false;
        }
    }
    return block;
}

// values[j] = t's value for block j of `group` elements of the weights (shape w, row-major).
std::vector<float> per_block(const Tensor& t, const Shape& w, int64_t group, int64_t blocks) {
    const Shape& ts = t.shape();
    const size_t lead = w.size() - ts.size();
    std::vector<float> out(static_cast<size_t>(blocks));
    for (int64_t j = 0; j < blocks; ++j) {
        int64_t e = j * group, offset = 0, stride = 1;
        for (size_t i = w.size(); i-- > 0;) {
            const int64_t idx = e % w[i];
            e /= w[i];
            if (i >= lead) {
                const int64_t d = ts[i - lead];
                if (d != 1) offset += idx * stride;
                stride *= d;
            }
        }
        out[static_cast<size_t>(j)] = static_cast<float>(t.value_as_double(offset));
    }
    return out;
}

struct Match {
    CompressedWeights weights;
    ValueRef ints;  // the integer Const's output
};

std::optional<Match> match(const Graph& g, const Node& mm) {
    // Up from B through float conversions and reshapes.
    ValueRef r = mm.inputs[1];
    for (;;) {
        const Node& n = node_of(g, r);
        if (!n.def || n.inputs.empty()) return std::nullopt;
        const bool float_convert = n.def->is_convert && is_float(info_of(g, n.inputs[0]).type);
        if (!float_convert && !n.def->keeps_element_order) break;
        r = n.inputs[0];
    }
    const Node& mul = node_of(g, r);
    if (!mul.def || !mul.def->is_multiply || mul.inputs.size() != 2) return std::nullopt;
    const Shape w = info_of(g, r).shape.is_static() ? info_of(g, r).shape.to_shape() : Shape{};
    const OutputInfo& b = info_of(g, mm.inputs[1]);
    if (w.size() < 2 || !b.shape.is_static() || b.shape.rank() != 2) return std::nullopt;
    const int64_t rows = b.shape.to_shape()[0], depth = b.shape.to_shape()[1];
    if (w[0] != rows || rows <= 0 || depth <= 0) return std::nullopt;
    for (int side = 0; side < 2; ++side) {
        const Tensor* scale = known_value(g, mul.inputs[static_cast<size_t>(1 - side)]);
        if (!scale || !is_float(scale->type())) continue;
        ValueRef a = mul.inputs[static_cast<size_t>(side)];
        const Tensor* zero = nullptr;
        const Node& sub = node_of(g, a);
        if (sub.def && sub.def->is_subtract && sub.inputs.size() == 2) {
            zero = known_value(g, sub.inputs[1]);
            if (!zero) continue;
            a = sub.inputs[0];
        }
        const Node& convert = node_of(g, a);
        if (!convert.def || !convert.def->is_convert || convert.inputs.size() != 1) continue;
        const Node& ints = node_of(g, convert.inputs[0]);
        if (!ints.is_constant()) continue;
        const Tensor& q = ints.constants[static_cast<size_t>(convert.inputs[0].output)];
        CompressedWeights c;
        switch (q.type()) {
            case ElementType::u4: c.format = CompressedWeights::Format::U4; break;
            case ElementType::i4: c.format = CompressedWeights::Format::I4; break;
            case ElementType::u8: c.format = CompressedWeights::Format::U8; break;
            case ElementType::i8: c.format = CompressedWeights::Format::I8; break;
            default: continue;
        }
        if (q.num_elements() != rows * depth || (c.four_bit() && depth % 2 != 0)) continue;
        // The group: the finest block of the scale's and the zero point's, within one row.
        int64_t group = block_of(scale->shape(), w);
        if (zero) {
            const int64_t zb = block_of(zero->shape(), w);
            if (zb == 0) continue;
            group = std::min(group, zb);
        }
        if (group <= 0) continue;
        if (group > depth) {
            if (group % depth != 0) continue;
            group = depth;
        }
        if (depth % group != 0 || (c.four_bit() && group % 2 != 0)) continue;
        c.rows = rows, c.depth = depth, c.group = group;
        const int64_t blocks = rows * (depth / group);
        c.scale = per_block(*scale, w, group, blocks);
        if (zero) c.zero = per_block(*zero, w, group, blocks);
        bool finite = true;
        for (float s : c.scale) finite = finite && std::isfinite(s);
        for (float z : c.zero) finite = finite && std::isfinite(z);
        if (!finite) continue;
        const auto* bytes = static_cast<const uint8_t*>(q.data());
        c.data.assign(bytes, bytes + q.byte_size());
        return Match{std::move(c), convert.inputs[0]};
    }
    return std::nullopt;
}

}  // namespace

std::shared_ptr<const Graph> compress_weights(std::shared_ptr<const Graph> graph) {
    if (!graph) return graph;
    const Graph& g = *graph;
    std::shared_ptr<Graph> out;
    std::vector<int> readers = live_readers(g);
    for (size_t ni = 0; ni < g.nodes.size(); ++ni) {
        const Node& n = g.nodes[ni];
        if (!n.live || !n.def || !n.def->with_compressed_weights || !n.shapes_static || n.inputs.size() < 2 ||
            n.outputs.empty() || n.outputs[0].type != ElementType::f32)
            continue;
        std::optional<Match> m = match(g, n);
        if (!m) continue;
        const ValueRef ints = m->ints;
        std::unique_ptr<OpAttrs> attrs = n.def->with_compressed_weights(*n.attrs, std::make_shared<CompressedWeights>(std::move(m->weights)));
        if (!attrs) continue;
        if (!out) out = std::make_shared<Graph>(g);
        out->nodes[ni].attrs = std::shared_ptr<const OpAttrs>(std::move(attrs));
        rewire_input(*out, readers, ni, 1, ints);
    }
    if (!out) return graph;
    return out;
}

}  // namespace irlite
