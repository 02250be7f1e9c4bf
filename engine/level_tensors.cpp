#include "engine/level_tensors.hpp"

#include <algorithm>
#include <utility>
#include <vector>

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

bool member(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// Tensors that become levels together: those of the int8 layers writing them (producers), of the
// nodes handing them on (through: MaxPool, Concat, whose every input must be in the region too),
// and the int8 layers reading them at the end (ends).
struct LevelRegion {
    std::vector<int> producers, through, ends;
};

// The region grown from producer p; false when something reads another output, an end reads it
// as other than its data, or
// some input of a node handing levels on is neither a producer nor already in the region.
bool level_region(const Graph& g, const Readers& r, int p, LevelRegion& region) {
    region.producers = {p};
    std::vector<int> open{p};
    while (!open.empty()) {
        const auto at = static_cast<size_t>(open.back());
        open.pop_back();
        if (r.other_output[at] || r.of[at].empty()) return false;
        for (const Readers::Read& read : r.of[at]) {
            const int reader = read.node;
            const Node& n = g.nodes[static_cast<size_t>(reader)];
            if (!passes_levels(n)) {
                if (read.input != 0) return false;  // an int8 layer's data is its input 0
                region.ends.push_back(reader);
                continue;
            }
            if (member(region.through, reader)) continue;
            region.through.push_back(reader);
            open.push_back(reader);
            for (const ValueRef& in : n.inputs) {
                if (in.node < 0 || in.output != 0) return false;
                if (member(region.producers, in.node) || member(region.through, in.node)) continue;
                if (!quantized_input(g.nodes[static_cast<size_t>(in.node)])) return false;
                region.producers.push_back(in.node);
                open.push_back(in.node);
            }
        }
    }
    return true;
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

}  // namespace

std::shared_ptr<const Graph> use_level_tensors(std::shared_ptr<const Graph> graph) {
    if (!graph) return graph;
    // Most graphs have no int8 layer: no reader lists (one per node) to build for them at compile.
    bool any = false;
    for (const Node& n : graph->nodes) any = any || quantized_input(n) != nullptr;
    if (!any) return graph;
    const Readers readers = readers_of(*graph);
    std::shared_ptr<Graph> out;
    std::vector<bool> done(graph->nodes.size(), false);  // producers of a region already made levels
    for (size_t p = 0; p < graph->nodes.size(); ++p) {
        // Decided on the graph as it came: a node's attributes change below, not its eligibility.
        if (done[p] || !quantized_input(graph->nodes[p])) continue;
        LevelRegion region;
        if (!level_region(*graph, readers, static_cast<int>(p), region)) continue;
        const QuantizedInput* q = levels_quantizer(*graph, region);
        if (!q) continue;
        if (!out) out = std::make_shared<Graph>(*graph);
        const QuantizedInput::LevelQuantizer levels{q->in_low, q->in_high, q->levels};
        std::vector<std::shared_ptr<const OpAttrs>> writes, reads;
        bool all = true;
        for (int n : region.producers) {
            writes.push_back(changed(out->nodes[static_cast<size_t>(n)], [&](QuantizedInput& own) { own.levels_out = levels; }));
            all = all && writes.back() != nullptr;
        }
        for (int n : region.ends) {
            reads.push_back(changed(out->nodes[static_cast<size_t>(n)], [](QuantizedInput& in) { in.levels_in = true; }));
            all = all && reads.back() != nullptr;
        }
        if (!all) continue;
        for (size_t i = 0; i < writes.size(); ++i) {
            Node& producer = out->nodes[static_cast<size_t>(region.producers[i])];
            producer.attrs = std::move(writes[i]);
            producer.outputs[0].type = ElementType::u8;
            done[static_cast<size_t>(region.producers[i])] = true;
        }
        for (int n : region.through) out->nodes[static_cast<size_t>(n)].outputs[0].type = ElementType::u8;
        for (size_t i = 0; i < reads.size(); ++i) out->nodes[static_cast<size_t>(region.ends[i])].attrs = std::move(reads[i]);
    }
    if (!out) return graph;
    return out;
}

}  // namespace irlite
