#include "engine/fusion.hpp"

#include <optional>
#include <utility>
#include <vector>

namespace irlite {
namespace {

class Fuser {
public:
    // Consumers of every node in one array (grouped by producer, counted first): one allocation
    // for the graph instead of one per node.
    explicit Fuser(const Graph& g) : g_(g), claimed_(g.nodes.size(), false) {
        first_use_.assign(g.nodes.size() + 1, 0);
        const auto for_each_use = [&g](auto&& f) {
            for (size_t ni = 0; ni < g.nodes.size(); ++ni) {
                const Node& n = g.nodes[ni];
                if (!n.live) continue;
                for (size_t i = 0; i < n.inputs.size(); ++i)
                    if (n.inputs[i].node >= 0) f(ni, i, n.inputs[i]);
            }
        };
        for_each_use([&](size_t, size_t, const ValueRef& r) { ++first_use_[static_cast<size_t>(r.node) + 1]; });
        for (size_t ni = 0; ni < g.nodes.size(); ++ni) first_use_[ni + 1] += first_use_[ni];
        uses_.resize(first_use_.back());
        std::vector<size_t> filled(first_use_.begin(), first_use_.end() - 1);
        for_each_use([&](size_t ni, size_t i, const ValueRef& r) {
            uses_[filled[static_cast<size_t>(r.node)]++] = {static_cast<int>(ni), r.output, static_cast<int>(i)};
        });
    }

    std::shared_ptr<const Graph> run(std::shared_ptr<const Graph> original) {
        std::shared_ptr<Graph> out;
        for (size_t h = 0; h < g_.nodes.size(); ++h) {
            Chain chain;
            if (claimed_[h] || !grow(static_cast<int>(h), chain)) continue;
            claimed_[h] = true;
            for (int n : chain.nodes) claimed_[static_cast<size_t>(n)] = true;
            if (!out) out = std::make_shared<Graph>(g_);
            apply(*out, static_cast<int>(h), chain);
        }
        if (!out) return original;
        return out;
    }

private:
    struct Use {
        int node, output, input;
    };
    struct Chain {
        std::vector<int> nodes;  // after the head, in order; the last one becomes the fused node
        std::shared_ptr<Epilogue> epilogue;
        ValueRef residual;
    };

    // The only consumer of output 0 of `node`, or -1.
    int single_consumer(int node) const {
        const Use* begin = uses_.data() + first_use_[static_cast<size_t>(node)];
        const Use* end = uses_.data() + first_use_[static_cast<size_t>(node) + 1];
        int found = -1;
        for (const Use* u = begin; u != end; ++u) {
            if (u->output != 0) continue;
            if (found >= 0) return -1;
            found = u->node;
        }
        if (found < 0) return -1;
        // Used twice by the same consumer (x + x): not a chain.
        int times = 0;
        for (const Use* u = begin; u != end; ++u) times += u->output == 0 && u->node == found ? 1 : 0;
        return times == 1 ? found : -1;
    }

    static bool plain_f32(const Node& n) {
        return n.def && n.live && !n.is_constant() && n.shapes_static && n.fused.empty() && n.outputs.size() == 1 &&
               n.outputs[0].type == ElementType::f32;
    }

    InferContext context_of(const Node& n, std::vector<InferContext::Input>& storage) const {
        storage.clear();
        for (const ValueRef& r : n.inputs) {
            const Node& p = g_.nodes[static_cast<size_t>(r.node)];
            const OutputInfo& o = p.outputs[static_cast<size_t>(r.output)];
            const Tensor* value = p.is_constant() ? &p.constants[static_cast<size_t>(r.output)] : nullptr;
            storage.push_back({o.type, o.shape, value});
        }
        return InferContext(*n.def, *n.attrs, storage, static_cast<int>(n.outputs.size()));
    }

    // A constant Add operand that is a bias for `out_shape`: a scalar, or varying along `axis` only.
    static std::optional<std::vector<float>> as_bias(const Tensor& c, const Shape& out_shape, int axis) {
        if (c.type() != ElementType::f32 || c.shape().size() > out_shape.size()) return std::nullopt;
        const size_t lead = out_shape.size() - c.shape().size();
        bool per_channel = false;
        for (size_t j = 0; j < c.shape().size(); ++j) {
            const int64_t d = c.shape()[j];
            if (d == 1) continue;
            if (static_cast<int>(lead + j) != axis || d != out_shape[static_cast<size_t>(axis)]) return std::nullopt;
            per_channel = true;
        }
        std::vector<float> bias;
        if (per_channel) {
            for (int64_t i = 0; i < c.num_elements(); ++i) bias.push_back(static_cast<float>(c.value_as_double(i)));
        } else {
            bias.push_back(static_cast<float>(c.value_as_double(0)));
        }
        return bias;
    }

    bool grow(int h, Chain& chain) const {
        const Node& head = g_.nodes[static_cast<size_t>(h)];
        if (!plain_f32(head) || !head.def->with_epilogue || !head.outputs[0].shape.is_static()) return false;
        const PartialShape& shape = head.outputs[0].shape;
        const Shape out_shape = shape.to_shape();
        const int rank = static_cast<int>(out_shape.size());
        int axis = head.def->epilogue_channel_axis;
        if (axis < 0) axis += rank;
        auto epi = std::make_shared<Epilogue>();
        epi->channel_axis = axis;
        enum Stage { Bias, Residual, Act, Quantize, Done } stage = Bias;
        const bool takes_fq = head.def->takes_fake_quantize && head.def->takes_fake_quantize(*head.attrs);
        int cur = h;
        std::vector<InferContext::Input> storage;
        while (stage != Done) {
            const int c = single_consumer(cur);
            // A node already in another chain stays there (two chains can meet at a residual Add).
            if (c < 0 || claimed_[static_cast<size_t>(c)]) break;
            const Node& n = g_.nodes[static_cast<size_t>(c)];
            if (!plain_f32(n) || n.outputs[0].shape != shape) break;
            if (n.def->is_add && n.inputs.size() == 2) {
                const ValueRef other = n.inputs[0].node == cur ? n.inputs[1] : n.inputs[0];
                const Node& p = g_.nodes[static_cast<size_t>(other.node)];
                const OutputInfo& po = p.outputs[static_cast<size_t>(other.output)];
                std::optional<std::vector<float>> bias;
                if (stage == Bias && p.is_constant() && axis >= 0 && axis < rank)
                    bias = as_bias(p.constants[static_cast<size_t>(other.output)], out_shape, axis);
                if (bias) {
                    epi->bias = std::move(*bias);
                    stage = Residual;
                } else if (stage <= Residual && po.type == ElementType::f32 && po.shape == shape) {
                    epi->residual = true;
                    chain.residual = other;
                    stage = Act;
                } else {
                    break;
                }
            } else if (n.def->as_activation && !n.inputs.empty() && n.inputs[0].node == cur && n.inputs[0].output == 0) {
                const std::optional<Activation> act = n.def->as_activation(context_of(n, storage));
                if (!act || act->kind == ActivationKind::None) break;
                epi->act = *act;
                stage = Quantize;
            } else if (takes_fq && n.def->as_fake_quantize && n.inputs[0].node == cur && n.inputs[0].output == 0) {
                const std::optional<EpilogueFakeQuantize> fq = n.def->as_fake_quantize(context_of(n, storage));
                if (!fq) break;
                epi->fake_quantize = *fq;
                stage = Done;
            } else {
                break;
            }
            epi->parts.emplace_back(n.layer->type);
            chain.nodes.push_back(c);
            cur = c;
        }
        if (chain.nodes.empty()) return false;
        chain.epilogue = std::move(epi);
        return true;
    }

    void apply(Graph& out, int h, const Chain& chain) const {
        const Node& head = g_.nodes[static_cast<size_t>(h)];
        Node& fused = out.nodes[static_cast<size_t>(chain.nodes.back())];
        fused.def = head.def;
        fused.attrs = std::shared_ptr<const OpAttrs>(head.def->with_epilogue(*head.attrs, chain.epilogue));
        fused.inputs = head.inputs;
        if (chain.epilogue->residual) fused.inputs.push_back(chain.residual);
        fused.constants.assign(fused.outputs.size(), Tensor());
        fused.fused.push_back(head.layer);
        for (int n : chain.nodes) fused.fused.push_back(g_.nodes[static_cast<size_t>(n)].layer);
        out.nodes[static_cast<size_t>(h)].live = false;
        for (size_t i = 0; i + 1 < chain.nodes.size(); ++i) out.nodes[static_cast<size_t>(chain.nodes[i])].live = false;
    }

    const Graph& g_;
    std::vector<size_t> first_use_;  // uses of node n: uses_[first_use_[n] .. first_use_[n + 1])
    std::vector<Use> uses_;
    std::vector<bool> claimed_;  // heads and members of the chains found so far
};

}  // namespace

std::shared_ptr<const Graph> fuse_graph(std::shared_ptr<const Graph> graph) {
    if (!graph) return graph;
    const Graph& g = *graph;
    return Fuser(g).run(std::move(graph));
}

std::string node_type_name(const Node& node) {
    if (node.fused.empty()) return node.layer ? std::string(node.layer->type) : std::string();
    std::string s;
    for (const IrLayer* l : node.fused) s.append(s.empty() ? "" : "+").append(l->type);
    return s;
}

std::string_view node_display_name(const Node& node) {
    return node.fused.empty() ? node.layer->name : node.fused.front()->name;
}

}  // namespace irlite
