#include "engine/level_tensors.hpp"

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

// The readers of each node's output 0, by node (a reader reading it twice appears twice), and
// whether any reader takes it on an input other than 0 or reads another output of the node.
struct Readers {
    std::vector<std::vector<int>> of;
    std::vector<bool> other_use;
};

Readers readers_of(const Graph& g) {
    Readers r;
    r.of.resize(g.nodes.size());
    r.other_use.assign(g.nodes.size(), false);
    for (size_t ni = 0; ni < g.nodes.size(); ++ni) {
        const Node& n = g.nodes[ni];
        if (!n.live) continue;
        for (size_t i = 0; i < n.inputs.size(); ++i) {
            const ValueRef& in = n.inputs[i];
            if (in.node < 0) continue;
            const auto p = static_cast<size_t>(in.node);
            r.of[p].push_back(static_cast<int>(ni));
            if (i != 0 || in.output != 0) r.other_use[p] = true;
        }
    }
    return r;
}

// A node that hands levels on unchanged (OpDef::passes_levels) and reads only its input 0.
bool passes_levels(const Node& n) {
    return n.live && n.def && n.def->passes_levels && n.shapes_static && n.inputs.size() == 1 && !n.outputs.empty() &&
           n.outputs[0].type == ElementType::f32;
}

// Where node p's output 0 ends: the int8 readers, reached directly or through nodes that pass
// levels on (`through`); false when some reader is neither, or reads another output.
bool level_readers(const Graph& g, const Readers& r, size_t p, std::vector<int>& readers, std::vector<int>& through) {
    std::vector<size_t> open{p};
    while (!open.empty()) {
        const size_t at = open.back();
        open.pop_back();
        if (r.other_use[at] || r.of[at].empty()) return false;
        for (int reader : r.of[at]) {
            const Node& n = g.nodes[static_cast<size_t>(reader)];
            if (passes_levels(n)) {
                through.push_back(reader);
                open.push_back(static_cast<size_t>(reader));
            } else {
                readers.push_back(reader);
            }
        }
    }
    return true;
}

// The readers' common quantizer when node p's output can be levels: the first reader's input.
const QuantizedInput* levels_quantizer(const Graph& g, const std::vector<int>& readers, size_t p) {
    const Node& n = g.nodes[p];
    const QuantizedInput* own = quantized_input(n);
    if (!own || own->levels_out || !n.shapes_static || n.outputs.size() != 1 || n.outputs[0].type != ElementType::f32)
        return nullptr;
    const QuantizedInput* first = nullptr;
    for (int reader : readers) {
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
    for (size_t p = 0; p < graph->nodes.size(); ++p) {
        // Decided on the graph as it came: a node's attributes change below, not its eligibility.
        if (!quantized_input(graph->nodes[p])) continue;
        std::vector<int> ends, through;
        if (!level_readers(*graph, readers, p, ends, through)) continue;
        const QuantizedInput* q = levels_quantizer(*graph, ends, p);
        if (!q) continue;
        if (!out) out = std::make_shared<Graph>(*graph);
        const QuantizedInput::LevelQuantizer levels{q->in_low, q->in_high, q->levels};
        Node& producer = out->nodes[p];
        std::shared_ptr<const OpAttrs> writes = changed(producer, [&](QuantizedInput& own) { own.levels_out = levels; });
        std::vector<std::shared_ptr<const OpAttrs>> reads;
        for (int reader : ends)
            reads.push_back(changed(out->nodes[static_cast<size_t>(reader)], [](QuantizedInput& in) { in.levels_in = true; }));
        bool all = writes != nullptr;
        for (const auto& a : reads) all = all && a != nullptr;
        if (!all) continue;
        producer.attrs = std::move(writes);
        producer.outputs[0].type = ElementType::u8;
        for (int n : through) out->nodes[static_cast<size_t>(n)].outputs[0].type = ElementType::u8;
        for (size_t i = 0; i < reads.size(); ++i) out->nodes[static_cast<size_t>(ends[i])].attrs = std::move(reads[i]);
    }
    if (!out) return graph;
    return out;
}

}  // namespace irlite
