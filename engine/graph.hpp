// The built graph: the IR document resolved into nodes in topological order, each with its op
// definition, parsed attributes, input edges and inferred output types/shapes (and values, for
// outputs known at load time). Immutable once built; shared by every infer request.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "irlite/diagnostic.hpp"
#include "engine/ir_document.hpp"
#include "engine/op.hpp"

namespace irlite {

struct ValueRef {
    int node = -1;  // index into Graph::nodes
    int output = 0;  // output position of that node
    bool operator==(const ValueRef& o) const { return node == o.node && output == o.output; }
};

struct Node {
    const IrLayer* layer = nullptr;  // points into Graph::document
    const OpDef* def = nullptr;      // null when the op could not be resolved (check mode only)
    std::shared_ptr<const OpAttrs> attrs;
    std::vector<ValueRef> inputs;       // by input position
    std::vector<OutputInfo> outputs;    // inferred at load time (dims may be kDynamic)
    std::vector<Tensor> constants;      // per output: valid() when known at load time
    bool shapes_static = false;         // every output's shape is static at load time
    bool live = false;                  // contributes to a Result or a sink (Assign)
    // Graph fusion (engine/fusion.hpp): the layers merged into this node, the one whose op runs
    // first; empty for an ordinary node. `layer` stays the last one (it names the output).
    std::vector<const IrLayer*> fused;

    bool is_constant() const { return !constants.empty() && constants[0].valid(); }
    // The layer's location (file, line, id, name, type, opset), for errors.
    Location location(const std::string& file) const;
};

struct Graph {
    std::shared_ptr<const IrDocument> document;
    std::vector<Node> nodes;     // topological order
    std::vector<int> parameters;  // node indices, in XML order (the model's input order)
    std::vector<int> results;     // node indices, in XML order
    std::vector<int> sinks;       // Assign and other sinks
    // Layers that compile passes made (the precision pass's conversions, engine/precision.hpp):
    // their nodes point at them as other nodes point into the document; kept alive here.
    std::vector<std::shared_ptr<const IrLayer>> added_layers;
};

// Per node: how many inputs of live nodes read one of its outputs (the compile passes drop a node
// when its count falls to 0: rewire_input).
inline std::vector<int> live_readers(const Graph& g) {
    std::vector<int> readers(g.nodes.size(), 0);
    for (const Node& n : g.nodes)
        if (n.live)
            for (const ValueRef& r : n.inputs) ++readers[static_cast<size_t>(r.node)];
    return readers;
}

// Input `port` of node `node` reads `to` instead; the value it read loses a reader, and a producer
// left without one (an op, not a Parameter) is no longer live, its own inputs losing a reader in
// turn. `readers` is live_readers' count, kept up to date.
inline void rewire_input(Graph& g, std::vector<int>& readers, size_t node, size_t port, ValueRef to) {
    std::vector<int> released{g.nodes[node].inputs[port].node};
    g.nodes[node].inputs[port] = to;
    ++readers[static_cast<size_t>(to.node)];
    while (!released.empty()) {
        const auto i = static_cast<size_t>(released.back());
        released.pop_back();
        Node& n = g.nodes[i];
        if (--readers[i] > 0 || !n.live || !n.def || n.def->role != OpRole::Compute) continue;
        n.live = false;
        for (const ValueRef& in : n.inputs) released.push_back(in.node);
    }
}

struct BuildOptions {
    // Check mode: collect every finding and go on (after an error, inference continues with the
    // declared dims); otherwise the first error is thrown.
    bool keep_going = false;
    // Fold ops whose inputs are all known at load time (needed for shape subgraphs).
    bool fold_constants = true;
    // Parameters given static shapes in place of their declared (dynamic) ones, by layer index in
    // the document: the executor specialises a dynamic model for the shapes of its inputs.
    std::vector<std::pair<int, Shape>> parameter_shapes;
    // Compare the inferred dims and types with those the file declares (off when specialising a
    // model whose declared dims were checked when it was compiled).
    bool compare_declared = true;
};

struct BuildResult {
    std::shared_ptr<const Graph> graph;  // null when the graph could not be built at all
    std::vector<Diagnostic> diagnostics;
    bool has_errors() const;
};

// Resolves edges, orders nodes, propagates types and shapes with each op's rule and compares them
// with the declared port dims and precisions. Throws the first error unless options.keep_going.
BuildResult build_graph(std::shared_ptr<const IrDocument> document, const OpRegistry& registry,
                        const BuildOptions& options = {});

// A model output's name as users see it (README: input and output names): the first tensor name
// of the port that feeds the Result; in IR v10, which has none, the producing layer's name (with
// ".<port>" when it has several outputs); else the Result's own name.
std::string output_name(const Graph& graph, const Node& result);

// Runs one node's kernel on the given inputs (used by constant folding and the executor): infers
// output shapes when `infos` is null, allocates outputs unless the op does that itself, runs the
// kernel, and checks what it produced. Errors come back located at the node. `state`: the node's
// OpState slot in the runner (an infer request, a body runner) that keeps it between runs; null:
// the kernel's state lives for this call only.
std::vector<Tensor> run_node(const Node& node, const std::vector<Tensor>& inputs,
                             const std::vector<OutputInfo>* infos, VariableStore* variables,
                             const Tensor* bound_input, const std::string& file,
                             std::unique_ptr<OpState>* state = nullptr);

}  // namespace irlite
