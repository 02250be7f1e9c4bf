// Internal to build_graph (not installed): the Builder that turns an IR document into a Graph, and
// the tables it keeps. The phases are defined in graph_builder.cpp (run, reporting, 1-4),
// graph_builder_ops.cpp (5) and graph_builder_shapes.cpp (6); graph_builder.cpp explains them.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/graph.hpp"

namespace irlite::graph_build {

template <class Dims>  // std::vector<int64_t> or IrDims
std::string dims_text(const Dims& dims) {
    std::string s = "[";
    for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
    return s + "]";
}

struct EdgeEnd {
    int layer = -1;   // index into document.layers
    int output = -1;  // output position in that layer
    int64_t line = 0;
};

// The edges into one input port (normally exactly one).
struct EdgeSpan {
    const EdgeEnd* first = nullptr;
    const EdgeEnd* last = nullptr;
    const EdgeEnd* begin() const { return first; }
    const EdgeEnd* end() const { return last; }
    size_t size() const { return static_cast<size_t>(last - first); }
    bool empty() const { return first == last; }
    const EdgeEnd& operator[](size_t i) const { return first[i]; }
};

// The edges into every input port of every layer, in one flat array (in file order per port):
// a vector per port would cost an allocation per port, which shows on 100,000-layer models.
class InputEdges {
public:
    // A layer's ports, iterable as EdgeSpans.
    class Layer {
    public:
        Layer(const InputEdges& table, size_t layer) : t_(table), li_(layer) {}
        size_t size() const { return t_.port_base_[li_ + 1] - t_.port_base_[li_]; }
        EdgeSpan operator[](size_t pos) const { return t_.port(t_.port_base_[li_] + pos); }
        struct Iterator {
            const InputEdges* t;
            size_t port;
            EdgeSpan operator*() const { return t->port(port); }
            Iterator& operator++() {
                ++port;
                return *this;
            }
            bool operator!=(const Iterator& o) const { return port != o.port; }
        };
        Iterator begin() const { return {&t_, t_.port_base_[li_]}; }
        Iterator end() const { return {&t_, t_.port_base_[li_ + 1]}; }

    private:
        const InputEdges& t_;
        size_t li_;
    };

    void reset(const std::vector<IrLayer>& layers, size_t edge_count) {
        port_base_.assign(layers.size() + 1, 0);
        for (size_t li = 0; li < layers.size(); ++li) port_base_[li + 1] = port_base_[li] + layers[li].inputs.size();
        pending_.clear();
        pending_.reserve(edge_count);
    }
    void add(size_t layer, size_t pos, EdgeEnd end) { pending_.push_back({port_base_[layer] + pos, end}); }
    // After the last add(): sorts the edges by port, keeping file order within a port.
    void finish() {
        offset_.assign(port_base_.back() + 1, 0);
        for (const auto& [port, end] : pending_) ++offset_[port + 1];
        for (size_t p = 1; p < offset_.size(); ++p) offset_[p] += offset_[p - 1];
        ends_.resize(pending_.size());
        std::vector<size_t> next(offset_.begin(), offset_.end() - 1);
        for (const auto& [port, end] : pending_) ends_[next[port]++] = end;
        pending_.clear();
        pending_.shrink_to_fit();
    }
    Layer operator[](size_t layer) const { return Layer(*this, layer); }

private:
    EdgeSpan port(size_t p) const { return {ends_.data() + offset_[p], ends_.data() + offset_[p + 1]}; }

    std::vector<size_t> port_base_;  // per layer: index of its first input port
    std::vector<std::pair<size_t, EdgeEnd>> pending_;
    std::vector<size_t> offset_;  // per port: index of its first edge in ends_
    std::vector<EdgeEnd> ends_;
};

// Layer id -> layer index. OpenVINO's writers number layers 0, 1, 2, ..., so ids are usually
// dense: then a plain array, with no allocation per layer; sparse ids go to a hash map.
class LayerIdIndex {
public:
    explicit LayerIdIndex(const std::vector<IrLayer>& layers) {
        uint64_t max_id = 0;
        for (const IrLayer& l : layers)
            if (l.id) max_id = std::max(max_id, *l.id);
        dense_ = max_id < 4 * static_cast<uint64_t>(layers.size()) + 64;
        if (dense_) slots_.assign(static_cast<size_t>(max_id) + 1, -1);
    }
    // Records that layer `li` has `id`, unless another layer has it already: that one is returned
    // then (and nothing is recorded); -1 otherwise.
    int insert(uint64_t id, int li) {
        if (dense_) {
            int& slot = slots_[static_cast<size_t>(id)];
            if (slot >= 0) return slot;
            slot = li;
            return -1;
        }
        const auto [it, inserted] = sparse_.emplace(id, li);
        return inserted ? -1 : it->second;
    }
    // The layer with `id`, or -1.
    int find(uint64_t id) const {
        if (dense_) return id < slots_.size() ? slots_[static_cast<size_t>(id)] : -1;
        const auto it = sparse_.find(id);
        return it == sparse_.end() ? -1 : it->second;
    }

private:
    bool dense_ = false;
    std::vector<int> slots_;
    std::unordered_map<uint64_t, int> sparse_;
};

// Layer types by name, in any opset.
inline bool is_const_type(const IrLayer& l) { return op_type_is(l.type, "const"); }

inline bool is_sink_type(const IrLayer& l) { return op_type_is(l.type, "result") || op_type_is(l.type, "assign"); }

class Builder {
public:
    Builder(std::shared_ptr<const IrDocument> doc, const OpRegistry& registry, const BuildOptions& options)
        : doc_ptr_(std::move(doc)), doc_(*doc_ptr_), registry_(registry), options_(options) {}

    // Runs the phases in order and hands back the graph and everything reported.
    BuildResult run();

private:
    // ---- reporting (graph_builder.cpp) --------------------------------------------------------
    // An error throws at once unless options_.keep_going; anything else is collected.
    void report(Diagnostic d);
    void report(Severity severity, ErrorKind kind, std::string code, Location where, std::string message,
                std::string declared = {}, std::string inferred = {});
    void report_error(const Error& e, const Location& context);
    Location at_layer(int li, int64_t line = 0) const;
    Location at_port(int li, int pos, bool output) const;
    std::string layer_ref(int li) const;

    // ---- 1. layers (graph_builder.cpp): layer ids, port ids, port dims -------------------------
    void index_layers();
    void check_ports(int li);

    // ---- 2. edges (graph_builder.cpp): (layer, port) pairs, one edge per input port ------------
    int find_port(const std::vector<IrPort>& ports, uint64_t id);
    void resolve_edges();
    void prepare_edge_tables();
    void add_edge(const IrEdge& e);
    void check_input_edge_counts();

    // ---- 3. order (graph_builder.cpp): topological order, cycles --------------------------------
    std::vector<int> topological_order();
    void report_cycles(const std::vector<bool>& placed);

    // ---- 4. liveness (graph_builder.cpp): layers a Result or Assign depends on -----------------
    void mark_live();

    // ---- 5. ops (graph_builder_ops.cpp): one node per layer, its op and attributes -------------
    // What a (type, version) pair resolves to, looked up once per distinct pair: a model repeats a
    // handful of types thousands of times.
    struct TypeResolution {
        std::optional<int> opset;
        const OpDef* def = nullptr;
        bool in_openvino_opset = true;  // false: resolved through a listed deviation
    };
    void create_nodes(const std::vector<int>& order, Graph& graph);
    void report_custom_op(int li, const std::optional<int>& opset);
    void resolve_op(int li, Node& node);
    void check_const_bytes(int li);
    const TypeResolution& resolve_type(std::string_view type, std::string_view version);
    void warn_not_in_openvino_opset(int li, const OpDef& def, int opset);
    void report_unresolved_op(int li, int opset);

    // ---- 6. types and shapes (graph_builder_shapes.cpp): rules, declared-vs-inferred, folding ---
    OutputInfo declared_output(const IrPort& port) const;
    void infer_all(Graph& graph);
    void infer_node(Graph& graph, int ni);
    bool gather_inputs(Graph& graph, int ni, int li, std::vector<InferContext::Input>& inputs, bool& declared_inputs);
    bool infer_outputs(int li, Node& node, std::vector<InferContext::Input>& inputs, std::vector<OutputInfo>& inferred);
    void override_parameter_shape(int li, std::vector<OutputInfo>& inferred) const;
    void report_rule_error(int li, const Node& node, const Error& e, const std::vector<InferContext::Input>& inputs);
    bool outputs_fit(int li, const OpDef& def, const std::vector<OutputInfo>& outputs);
    void prepare_as_compile_does(int li, const Node& node, const std::vector<InferContext::Input>& inputs);
    bool check_storable(int li, const OpDef& def, const std::vector<InferContext::Input>& inputs,
                        const std::vector<OutputInfo>& outputs);
    void check_edge(int li, int pos, const Node& producer, int out_pos, const OutputInfo& out);
    void check_precision(int li, int pos, bool output, ElementType actual, const char* against, Severity severity);
    void check_declared_outputs(int li, const std::vector<OutputInfo>& inferred);
    bool fold(Graph& graph, Node& node, const std::vector<InferContext::Input>& inputs);
    void collect_boundaries(Graph& graph);

    std::shared_ptr<const IrDocument> doc_ptr_;
    const IrDocument& doc_;
    const OpRegistry& registry_;
    const BuildOptions& options_;
    std::vector<Diagnostic> diagnostics_;
    LayerIdIndex id_to_layer_{doc_.layers};
    std::vector<bool> valid_;  // per layer: usable id
    InputEdges in_edges_;  // per layer, per input position
    std::vector<bool> live_;
    std::vector<bool> feeds_something_;  // per layer: an edge leaves one of its outputs
    std::vector<size_t> output_base_;  // per layer: index of its first output port in output_feeds_
    std::vector<bool> output_feeds_;   // per output port: an edge leaves it
    std::vector<const OpDef*> defs_;  // per layer, once resolved
    std::unordered_map<std::string, TypeResolution> type_resolutions_;  // see resolve_type
    std::vector<int> node_of_layer_;
    std::vector<char> from_declaration_;  // per node (check mode): its output shapes come from declared dims
    std::unordered_map<const std::vector<IrPort>*, std::unordered_map<uint64_t, int>> port_index_;  // see find_port
};

}  // namespace irlite::graph_build
