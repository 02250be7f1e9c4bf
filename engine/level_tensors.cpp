#include "engine/level_tensors.hpp"

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "engine/low_precision.hpp"
#include "engine/quantized_input.hpp"

namespace irlite {
namespace {

const QuantizedInput* quantized_input(const Node& n) {
    if (!n.live || !n.def || !n.def->quantized_input_of || !n.def->with_quantized_input || !n.attrs) return nullptr;
    return n.def->quantized_input_of(*n.attrs);
}

bool same_quantizer(const QuantizedInput& a, const QuantizedInput& b) {
    return a.in_low == b.in_low && a.in_high == b.in_high && a.levels == b.levels;
}

// The readers of each node's output 0 (a reader reading it twice appears twice) with the input
// they read it on, and whether anything reads another output of the node.
struct Readers {
    struct Read {
        int node, input;
    };
    std::vector<std::vector<Read>> of;
    std::vector<bool> other_output;
};

Readers readers_of(const Graph& g) {
    Readers r;
    r.of.resize(g.nodes.size());
    r.other_output.assign(g.nodes.size(), false);
    for (size_t ni = 0; ni < g.nodes.size(); ++ni) {
        const Node& n = g.nodes[ni];
        if (!n.live) continue;
        for (size_t i = 0; i < n.inputs.size(); ++i) {
            const ValueRef& in = n.inputs[i];
            if (in.node < 0) continue;
            const auto p = static_cast<size_t>(in.node);
            if (in.output != 0) r.other_output[p] = true;
            else r.of[p].push_back({static_cast<int>(ni), static_cast<int>(i)});
        }
    }
    return r;
}

// A node that hands levels on unchanged (OpDef::passes_levels).
bool passes_levels(const Node& n) {
    return n.live && n.def && n.def->passes_levels && n.shapes_static && !n.inputs.empty() && !n.outputs.empty() &&
           n.outputs[0].type == ElementType::f32;
}

// Tensors that become levels together: those of the int8 layers writing them (producers), of the
// nodes handing them on (through: MaxPool, Concat), and the int8 layers reading them at the end
// (ends). A region is closed: every reader of a producer's or a through node's output, and every
// input of a through node, is in it, so it is the same whichever producer it is grown from.
struct LevelRegion {
    std::vector<int> producers, through, ends;
};

// The region of producer p, grown over readers and through nodes' inputs; false when something
// reads another output, an end reads it as other than its data, or a through node's input is
// neither an int8 layer nor a through node. `stamp` (one per node) marks the region's producers and
// through nodes with p, so that each node is taken once: a region that fails is still grown whole,
// or each of its other producers would grow it again.
bool level_region(const Graph& g, const Readers& r, int p, std::vector<int>& stamp, LevelRegion& region) {
    std::vector<int> open;
    const auto take = [&](int n, std::vector<int>& list) {
        stamp[static_cast<size_t>(n)] = p;
        list.push_back(n);
        open.push_back(n);
    };
    take(p, region.producers);
    bool ok = true;
    while (!open.empty()) {
        const auto at = static_cast<size_t>(open.back());
        open.pop_back();
        const Node& node = g.nodes[at];
        if (passes_levels(node)) {
            for (const ValueRef& in : node.inputs) {
                if (in.node < 0 || in.output != 0) {
                    ok = false;
                    continue;
                }
                if (stamp[static_cast<size_t>(in.node)] == p) continue;
                const Node& source = g.nodes[static_cast<size_t>(in.node)];
                if (quantized_input(source)) take(in.node, region.producers);
                else if (passes_levels(source)) take(in.node, region.through);
                else ok = false;
            }
        }
        if (r.other_output[at] || r.of[at].empty()) ok = false;
        for (const Readers::Read& read : r.of[at]) {
            const Node& n = g.nodes[static_cast<size_t>(read.node)];
            if (!passes_levels(n)) {
                if (read.input != 0) ok = false;  // an int8 layer's data is its input 0
                region.ends.push_back(read.node);
            } else if (stamp[static_cast<size_t>(read.node)] != p) {
                take(read.node, region.through);
            }
        }
    }
    return ok;
}

// The ends' common quantizer when every producer can write levels: the first end's input.
const QuantizedInput* levels_quantizer(const Graph& g, const LevelRegion& region) {
    for (int p : region.producers) {
        const Node& n = g.nodes[static_cast<size_t>(p)];
        const QuantizedInput* own = quantized_input(n);
        if (!own || own->levels_out || !n.shapes_static || n.outputs.size() != 1 || n.outputs[0].type != ElementType::f32)
            return nullptr;
    }
    const QuantizedInput* first = nullptr;
    for (int reader : region.ends) {
        const QuantizedInput* q = quantized_input(g.nodes[static_cast<size_t>(reader)]);
        if (!q || q->levels_in || (first && !same_quantizer(*first, *q))) return nullptr;
        if (!first) first = q;
    }
    return first;
}

// Node n's attributes with its QuantizedInput changed by `change`; null when the op refuses them.
template <class Change>
std::shared_ptr<const OpAttrs> changed(const Node& n, Change&& change) {
    auto q = std::make_shared<QuantizedInput>(*n.def->quantized_input_of(*n.attrs));
    change(*q);
    return std::shared_ptr<const OpAttrs>(n.def->with_quantized_input(*n.attrs, std::move(q)));
}

// The graph with every FakeQuantize that has a quantizer (activation_quantizer) given it as its
// own (OpDef::with_quantized_input, neither reading nor writing levels: the op as before), so that
// regions can grow through it; `given` lists them. The same graph when there is none.
std::shared_ptr<const Graph> with_own_quantizers(const std::shared_ptr<const Graph>& graph, std::vector<int>& given) {
    std::shared_ptr<Graph> out;
    for (size_t i = 0; i < graph->nodes.size(); ++i) {
        const Node& n = graph->nodes[i];
        if (!n.live || !n.def || !n.def->quantization_levels || !n.def->with_quantized_input || !n.attrs ||
            !n.shapes_static || (n.def->quantized_input_of && n.def->quantized_input_of(*n.attrs)))
            continue;
        std::optional<QuantizedInput> q = activation_quantizer(*graph, n);
        if (!q) continue;
        std::unique_ptr<OpAttrs> attrs = n.def->with_quantized_input(*n.attrs, std::make_shared<QuantizedInput>(std::move(*q)));
        if (!attrs) continue;
        if (!out) out = std::make_shared<Graph>(*graph);
        out->nodes[i].attrs = std::shared_ptr<const OpAttrs>(std::move(attrs));
        given.push_back(static_cast<int>(i));
    }
    if (!out) return graph;
    return out;
}

// Regions grown from each int8 layer of `graph` made levels; null when none is.
std::shared_ptr<Graph> make_regions(const std::shared_ptr<const Graph>& graph) {
    // Most graphs have no int8 layer: no reader lists (one per node) to build for them at compile.
    bool any = false;
    for (const Node& n : graph->nodes) any = any || quantized_input(n) != nullptr;
    if (!any) return nullptr;
    const Readers readers = readers_of(*graph);
    std::shared_ptr<Graph> out;
    std::vector<int> stamp(graph->nodes.size(), -1);  // the region a node was taken in (its first producer)
    for (size_t p = 0; p < graph->nodes.size(); ++p) {
        // Decided on the graph as it came: a node's attributes change below, not its eligibility.
        // Each node is in one region at most, taken once: linear in the graph.
        if (stamp[p] >= 0 || !quantized_input(graph->nodes[p])) continue;
        LevelRegion region;
        if (!level_region(*graph, readers, static_cast<int>(p), stamp, region)) continue;
        const QuantizedInput* q = levels_quantizer(*graph, region);
        if (!q) continue;
        if (!out) out = std::make_shared<Graph>(*graph);
        const QuantizedInput::LevelQuantizer levels{q->in_low, q->in_high, q->levels};
        // One change per node: a producer writes levels, an end reads them, a node can be both
        // (it reads the region through a MaxPool and writes into a Concat of it).
        std::vector<int> ends = region.ends, nodes = region.producers;
        std::sort(ends.begin(), ends.end());
        for (int n : ends)
            if (stamp[static_cast<size_t>(n)] != static_cast<int>(p)) nodes.push_back(n);
        std::vector<std::shared_ptr<const OpAttrs>> changes;
        bool all = true;
        for (int n : nodes) {
            const bool writes = stamp[static_cast<size_t>(n)] == static_cast<int>(p);
            const bool reads = std::binary_search(ends.begin(), ends.end(), n);
            changes.push_back(changed(out->nodes[static_cast<size_t>(n)], [&](QuantizedInput& own) {
                if (writes) own.levels_out = levels;
                if (reads) own.levels_in = true;
            }));
            all = all && changes.back() != nullptr;
        }
        if (!all) continue;
        for (size_t i = 0; i < nodes.size(); ++i) {
            Node& node = out->nodes[static_cast<size_t>(nodes[i])];
            node.attrs = std::move(changes[i]);
            if (stamp[static_cast<size_t>(nodes[i])] == static_cast<int>(p)) node.outputs[0].type = ElementType::u8;
        }
        for (int n : region.through) out->nodes[static_cast<size_t>(n)].outputs[0].type = ElementType::u8;
    }
    return out;
}

}  // namespace

std::shared_ptr<const Graph> use_level_tensors(std::shared_ptr<const Graph> graph) {
    if (!graph) return graph;
    // FakeQuantize nodes between int8 layers take part with their own quantizer; those that end
    // in no region get their attributes back.
    std::vector<int> given;
    const std::shared_ptr<const Graph> base = with_own_quantizers(graph, given);
    std::shared_ptr<Graph> out = make_regions(base);
    if (!out) return graph;
    for (int i : given) {
        Node& n = out->nodes[static_cast<size_t>(i)];
        const QuantizedInput* q = n.def->quantized_input_of(*n.attrs);
        if (!q->levels_in && !q->levels_out) n.attrs = graph->nodes[static_cast<size_t>(i)].attrs;
    }
    return out;
}

}  // namespace irlite
