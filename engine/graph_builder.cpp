// build_graph: IR document -> Graph. The steps, each reporting every problem it finds:
//   1. index layers by id (invalid/duplicate layer ids, invalid/duplicate port ids, bad dims);
//   2. resolve edges to (layer, port position) pairs; check every input port has exactly one edge;
//   3. order layers topologically (Kahn's algorithm, iterative: deep chains cannot overflow the
//      stack); report cycles as the chain of layers;
//   4. mark live layers (those a Result or Assign depends on); run mode builds only those, as
//      OpenVINO drops the rest;
//   5. resolve each layer's op (type + opset) and parse its attributes;
//   6. propagate types and shapes in order, compare them with declared dims and precisions, and fold
//      nodes whose inputs are all known.
// Check mode (keep_going) and run mode share every rule: what compiling the model refuses before
// any input is bound, check reports with the same code, as an error, or as a warning where the
// refusal is a limit of irlite (an op or element type it cannot run) rather than a fault of the
// file. Check also runs the prepare step compile would run (prepare_as_compile_does).
#include <algorithm>
#include <functional>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "engine/graph.hpp"
#include "engine/opset_catalog.hpp"
#include "engine/tensor_size.hpp"

namespace irlite {
namespace {

Location layer_location(const IrDocument& doc, const IrLayer& layer, int64_t line = 0) {
    Location where;
    where.file = doc.xml_path;
    where.line = line > 0 ? line : layer.line;
    where.layer_id = layer.id;
    where.layer_name = layer.name;
    where.layer_type = layer.type;
    where.opset = layer.version;
    return where;
}

template <class Dims>  // std::vector<int64_t> or IrDims
std::string dims_text(const Dims& dims) {
    std::string s = "[";
    for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
    return s + "]";
}

// True when the known dims multiply to more than INT64_MAX elements (an empty dim makes the tensor
// empty whatever the others are; dynamic dims are left out).
bool element_count_overflows(const IrDims& dims) {
    if (std::find(dims.begin(), dims.end(), 0) != dims.end()) return false;
    int64_t count = 1;
    for (const int64_t d : dims) {
        if (d <= 0) continue;
        if (count > std::numeric_limits<int64_t>::max() / d) return true;
        count *= d;
    }
    return false;
}

// shapes_compatible for the dims a port declares.
bool declared_compatible(const IrDims& declared, const PartialShape& inferred) {
    if (!inferred.rank_known()) return true;
    if (declared.size() != inferred.rank()) return false;
    for (size_t i = 0; i < declared.size(); ++i)
        if (!dims_compatible(declared[i], inferred[i])) return false;
    return true;
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

class Builder {
public:
    Builder(std::shared_ptr<const IrDocument> doc, const OpRegistry& registry, const BuildOptions& options)
        : doc_ptr_(std::move(doc)), doc_(*doc_ptr_), registry_(registry), options_(options) {}

    BuildResult run() {
        index_layers();
        resolve_edges();
        const std::vector<int> order = topological_order();
        mark_live();
        auto graph = std::make_shared<Graph>();
        graph->document = doc_ptr_;
        create_nodes(order, *graph);
        infer_all(*graph);
        collect_boundaries(*graph);
        BuildResult result;
        result.graph = std::move(graph);
        result.diagnostics = std::move(diagnostics_);
        return result;
    }

private:
    // ---- reporting ----------------------------------------------------------------------------
    void report(Diagnostic d) {
        if (d.severity == Severity::Error && !options_.keep_going) throw d.to_error();
        diagnostics_.push_back(std::move(d));
    }
    void report(Severity severity, ErrorKind kind, std::string code, Location where, std::string message,
                std::string declared = {}, std::string inferred = {}) {
        Diagnostic d;
        d.severity = severity;
        d.kind = kind;
        d.code = std::move(code);
        d.where = std::move(where);
        d.message = std::move(message);
        d.declared = std::move(declared);
        d.inferred = std::move(inferred);
        report(std::move(d));
    }
    void report_error(const Error& e, const Location& context) {
        Error located = e;
        located.add_context(context);
        report(Diagnostic::from_error(located));
    }
    Location at_layer(int li, int64_t line = 0) const { return layer_location(doc_, doc_.layers[li], line); }
    Location at_port(int li, int pos, bool output) const {
        const IrLayer& l = doc_.layers[li];
        Location w = at_layer(li, output ? l.outputs[pos].line : l.inputs[pos].line);
        w.port = pos;
        w.port_is_output = output;
        const OpDef* def = defs_.empty() ? nullptr : defs_[li];
        if (!output && def) w.port_role = def->input_role(static_cast<size_t>(pos));
        return w;
    }
    std::string layer_ref(int li) const {
        const IrLayer& l = doc_.layers[li];
        return str("'", l.name, "' (", l.type, " id=", l.id_text, ")");
    }

    // ---- 1. layers ----------------------------------------------------------------------------
    void index_layers() {
        const int n = static_cast<int>(doc_.layers.size());
        valid_.assign(n, false);
        for (int li = 0; li < n; ++li) {
            const IrLayer& l = doc_.layers[li];
            if (!l.id) {
                report(Severity::Error, ErrorKind::Graph, "layer-id-invalid", at_layer(li),
                       str("layer id \"", l.id_text, "\" is not an unsigned integer"));
                continue;
            }
            const int owner = id_to_layer_.insert(*l.id, li);
            if (owner >= 0) {
                report(Severity::Error, ErrorKind::Graph, "duplicate-layer-id", at_layer(li),
                       str("layer id ", *l.id, " is already used by layer '", doc_.layers[owner].name,
                           "' at line ", doc_.layers[owner].line));
                continue;
            }
            valid_[li] = true;
            check_ports(li);
        }
    }

    void check_ports(int li) {
        const IrLayer& l = doc_.layers[li];
        // Port ids seen so far: a linear scan for the usual handful, a hash set beyond.
        constexpr size_t kLinear = 16;
        const bool many = l.inputs.size() + l.outputs.size() > kLinear;
        std::unordered_set<uint64_t> seen;
        const auto first_use = [&](uint64_t id, int pos, bool output) {
            if (many) return seen.insert(id).second;
            const auto same = [&](const IrPort& q) { return q.id == id; };
            if (output) return std::none_of(l.inputs.begin(), l.inputs.end(), same) &&
                               std::none_of(l.outputs.begin(), l.outputs.begin() + pos, same);
            return std::none_of(l.inputs.begin(), l.inputs.begin() + pos, same);
        };
        auto check = [&](const IrPort& p, int pos, bool output) {
            // The location (several strings) is built only when there is something to report.
            if (!p.id) {
                report(Severity::Error, ErrorKind::Graph, "port-id-invalid", at_port(li, pos, output),
                       str("port id \"", p.id_text, "\" is not an unsigned integer"));
            } else if (!first_use(*p.id, pos, output)) {
                report(Severity::Error, ErrorKind::Graph, "duplicate-port-id", at_port(li, pos, output),
                       str("port id ", *p.id, " is used twice in this layer"));
            }
            if (!p.dims_valid)
                report(Severity::Error, ErrorKind::Parse, "dims-invalid", at_port(li, pos, output), p.dims_error);
            else if (element_count_overflows(p.dims))
                report(Severity::Error, ErrorKind::Limit, "dims-overflow", at_port(li, pos, output),
                       str("dims ", dims_text(p.dims), " hold more than 2^63-1 elements: no tensor can have them"));
        };
        for (size_t i = 0; i < l.inputs.size(); ++i) check(l.inputs[i], static_cast<int>(i), false);
        for (size_t i = 0; i < l.outputs.size(); ++i) check(l.outputs[i], static_cast<int>(i), true);
    }

    // ---- 2. edges -----------------------------------------------------------------------------
    // Port id -> position (the first port with that id). A linear scan for the usual handful of
    // ports; a hash map, built on first use, for layers with many: a Concat of 100,000 inputs
    // would otherwise make edge resolution quadratic.
    int find_port(const std::vector<IrPort>& ports, uint64_t id) {
        constexpr size_t kLinear = 16;
        if (ports.size() <= kLinear) {
            for (size_t i = 0; i < ports.size(); ++i)
                if (ports[i].id == id) return static_cast<int>(i);
            return -1;
        }
        auto& index = port_index_[&ports];
        if (index.empty())
            for (size_t i = 0; i < ports.size(); ++i)
                if (ports[i].id) index.emplace(*ports[i].id, static_cast<int>(i));
        const auto it = index.find(id);
        return it == index.end() ? -1 : it->second;
    }

    void resolve_edges() {
        in_edges_.reset(doc_.layers, doc_.edges.size());
        feeds_something_.assign(doc_.layers.size(), false);
        output_base_.assign(doc_.layers.size() + 1, 0);
        for (size_t li = 0; li < doc_.layers.size(); ++li)
            output_base_[li + 1] = output_base_[li] + doc_.layers[li].outputs.size();
        output_feeds_.assign(output_base_.back(), false);
        for (const IrEdge& e : doc_.edges) {
            if (!e.from_layer || !e.from_port || !e.to_layer || !e.to_port) {
                Location w;
                w.file = doc_.xml_path;
                w.line = e.line;
                report(Severity::Error, ErrorKind::Graph, "edge-invalid", w,
                       str("edge ", edge_text(e), ": from-layer, from-port, to-layer and to-port must be unsigned integers"));
                continue;
            }
            const int src = id_to_layer_.find(*e.from_layer);
            const int dst = id_to_layer_.find(*e.to_layer);
            // Built only when there is something to report: a Location holds several strings.
            const auto where = [&] {
                if (dst >= 0) return at_layer(dst, e.line);
                Location w;
                w.file = doc_.xml_path;
                w.line = e.line;
                return w;
            };
            if (src < 0 || dst < 0) {
                report(Severity::Error, ErrorKind::Graph, "edge-missing-layer", where(),
                       str("edge ", edge_text(e), ": no layer with id ", src < 0 ? *e.from_layer : *e.to_layer));
                continue;
            }
            const IrLayer& from = doc_.layers[src];
            const IrLayer& to = doc_.layers[dst];
            const int out_pos = find_port(from.outputs, *e.from_port);
            if (out_pos < 0) {
                const bool is_input = find_port(from.inputs, *e.from_port) >= 0;
                report(Severity::Error, ErrorKind::Graph, is_input ? "edge-from-input-port" : "edge-missing-port", where(),
                       str("edge ", edge_text(e), ": layer ", layer_ref(src),
                           is_input ? " port " : " has no output port ", *e.from_port,
                           is_input ? " is an input port, not an output" : ""));
                continue;
            }
            const int in_pos = find_port(to.inputs, *e.to_port);
            if (in_pos < 0) {
                const bool is_output = find_port(to.outputs, *e.to_port) >= 0;
                report(Severity::Error, ErrorKind::Graph, is_output ? "edge-into-output-port" : "edge-missing-port", where(),
                       str("edge ", edge_text(e), ": layer ", layer_ref(dst),
                           is_output ? " port " : " has no input port ", *e.to_port,
                           is_output ? " is an output port, not an input" : ""));
                continue;
            }
            in_edges_.add(static_cast<size_t>(dst), static_cast<size_t>(in_pos), {src, out_pos, e.line});
            feeds_something_[src] = true;
            output_feeds_[output_base_[src] + static_cast<size_t>(out_pos)] = true;
        }
        in_edges_.finish();
        for (size_t li = 0; li < doc_.layers.size(); ++li) {
            if (!valid_[li]) continue;
            for (size_t pos = 0; pos < in_edges_[li].size(); ++pos) {
                const EdgeSpan ends = in_edges_[li][pos];
                if (ends.size() == 1) continue;
                Location w = at_port(static_cast<int>(li), static_cast<int>(pos), false);
                if (ends.empty()) {
                    report(Severity::Error, ErrorKind::Graph, "input-unconnected", w,
                           str("input port ", doc_.layers[li].inputs[pos].id_text, " has no incoming edge"));
                } else {
                    std::string from;
                    for (const auto& end : ends) from += (from.empty() ? "" : ", ") + layer_ref(end.layer);
                    report(Severity::Error, ErrorKind::Graph, "input-multiple-edges", w,
                           str("input port ", doc_.layers[li].inputs[pos].id_text, " has ", ends.size(),
                               " incoming edges (from ", from, ")"));
                }
            }
        }
    }

    // ---- 3. order -----------------------------------------------------------------------------
    // Kahn's algorithm, first in first out. The queue is the order itself: layers are appended as
    // they become ready and taken in the same order. Producer and consumer lists are flat arrays
    // (no allocation per layer).
    std::vector<int> topological_order() {
        const int n = static_cast<int>(doc_.layers.size());
        std::vector<int> pending(n, 0);
        std::vector<size_t> first_producer(n + 1, 0);
        std::vector<int> producers;  // of layer li: producers[first_producer[li] .. first_producer[li + 1]), each once
        producers.reserve(doc_.edges.size());
        for (int li = 0; li < n; ++li) {
            const size_t begin = producers.size();
            if (valid_[li]) {
                for (const auto& ends : in_edges_[li])
                    for (const auto& end : ends) producers.push_back(end.layer);
                std::sort(producers.begin() + static_cast<ptrdiff_t>(begin), producers.end());
                producers.erase(std::unique(producers.begin() + static_cast<ptrdiff_t>(begin), producers.end()),
                                producers.end());
                pending[li] = static_cast<int>(producers.size() - begin);
            }
            first_producer[li + 1] = producers.size();
        }
        std::vector<size_t> first_consumer(n + 1, 0);
        for (const int p : producers) ++first_consumer[p + 1];
        for (int li = 0; li < n; ++li) first_consumer[li + 1] += first_consumer[li];
        std::vector<int> consumers(producers.size());  // of layer p, in layer order
        std::vector<size_t> next(first_consumer.begin(), first_consumer.end() - 1);
        for (int li = 0; li < n; ++li)
            for (size_t k = first_producer[li]; k < first_producer[li + 1]; ++k) consumers[next[producers[k]]++] = li;
        std::vector<int> order;
        order.reserve(n);
        for (int li = 0; li < n; ++li)
            if (valid_[li] && pending[li] == 0) order.push_back(li);
        std::vector<bool> placed(n, false);
        for (size_t taken = 0; taken < order.size(); ++taken) {
            const int li = order[taken];
            placed[li] = true;
            for (size_t k = first_consumer[li]; k < first_consumer[li + 1]; ++k)
                if (--pending[consumers[k]] == 0) order.push_back(consumers[k]);
        }
        report_cycles(placed);
        return order;
    }

    void report_cycles(const std::vector<bool>& placed) {
        // Every unplaced layer has an unplaced producer; walking producers from any of them must
        // come back to a layer already on the walk: that loop is a cycle.
        const int n = static_cast<int>(doc_.layers.size());
        std::vector<int> walked(n, -1);  // walk number that visited the layer
        for (int start = 0; start < n; ++start) {
            if (!valid_[start] || placed[start] || walked[start] >= 0) continue;
            std::vector<int> path;
            int li = start;
            while (walked[li] < 0) {
                walked[li] = start;
                path.push_back(li);
                int next = -1;
                for (const auto& ends : in_edges_[li])
                    for (const auto& end : ends)
                        if (next < 0 && !placed[end.layer] && valid_[end.layer]) next = end.layer;
                if (next < 0) break;  // cannot happen; be safe
                li = next;
            }
            if (walked[li] != start) continue;  // reached a cycle reported by an earlier walk
            const auto cycle_begin = std::find(path.begin(), path.end(), li);
            std::string chain;
            for (auto it = cycle_begin; it != path.end(); ++it)
                chain += str(doc_.layers[*it].name, " (id ", doc_.layers[*it].id_text, ") <- ");
            chain += str(doc_.layers[li].name, " (id ", doc_.layers[li].id_text, ")");
            report(Severity::Error, ErrorKind::Graph, "cycle", at_layer(li), "the graph has a cycle: " + chain);
        }
    }

    static bool is_const_type(const IrLayer& l) { return op_type_is(l.type, "const"); }

    static bool is_sink_type(const IrLayer& l) { return op_type_is(l.type, "result") || op_type_is(l.type, "assign"); }

    // ---- 4. liveness --------------------------------------------------------------------------
    void mark_live() {
        const int n = static_cast<int>(doc_.layers.size());
        live_.assign(n, false);
        std::vector<int> stack;
        for (int li = 0; li < n; ++li) {
            if (valid_[li] && is_sink_type(doc_.layers[li])) {
                live_[li] = true;
                stack.push_back(li);
            }
        }
        while (!stack.empty()) {
            const int li = stack.back();
            stack.pop_back();
            for (const auto& ends : in_edges_[li])
                for (const auto& end : ends)
                    if (!live_[end.layer]) {
                        live_[end.layer] = true;
                        stack.push_back(end.layer);
                    }
        }
    }

    // ---- 5. ops -------------------------------------------------------------------------------
    void create_nodes(const std::vector<int>& order, Graph& graph) {
        defs_.assign(doc_.layers.size(), nullptr);
        node_of_layer_.assign(doc_.layers.size(), -1);
        for (int li : order) {
            if (!live_[li] && !options_.keep_going) continue;
            if (!live_[li])
                report(Severity::Warning, ErrorKind::Graph, "dead-layer", at_layer(li),
                       "layer feeds no Result or Assign; OpenVINO drops it");
            // Where a dead chain ends. A multi-output op with one output used is fine: its other
            // outputs (TopK's indices, a VariadicSplit part) are often left unused on purpose.
            if (!feeds_something_[li] && !doc_.layers[li].outputs.empty() && !is_sink_type(doc_.layers[li]))
                report(Severity::Warning, ErrorKind::Graph, "output-unused", at_port(li, 0, true),
                       doc_.layers[li].outputs.size() == 1 ? "the layer's output feeds nothing"
                                                           : "none of the layer's outputs feeds anything");
            Node node;
            node.layer = &doc_.layers[li];
            node.live = live_[li];
            resolve_op(li, node);
            node_of_layer_[li] = static_cast<int>(graph.nodes.size());
            graph.nodes.push_back(std::move(node));
        }
    }

    // A layer whose version names no standard opset (a custom or extension op: "extension",
    // "custom_opset", openvino_tokenizers' ops) or an opset newer than irlite knows. OpenVINO reads
    // it with the extension that defines it, so it is no fault of the file: check warns that the op
    // cannot be validated and goes on with its declared outputs; run cannot run it.
    void report_custom_op(int li, const std::optional<int>& opset) {
        const IrLayer& l = doc_.layers[li];
        const std::string why =
            opset ? str("opset", *opset, " is newer than the latest opset irlite knows (opset", kLatestOpset, ")")
                  : str("version \"", l.version, "\" is not a standard opset (opset1 .. opset", kLatestOpset,
                        "): a custom or extension op");
        if (options_.keep_going)
            report(Severity::Warning, ErrorKind::Unsupported, "unsupported-op", at_layer(li),
                   str(why, "; irlite can neither validate nor run it; its output dims are taken as declared"));
        else
            report(Severity::Error, ErrorKind::Unsupported, "unsupported-op", at_layer(li),
                   str(why, "; irlite cannot run it"));
    }

    void resolve_op(int li, Node& node) {
        const IrLayer& l = doc_.layers[li];
        if (l.version.empty()) {
            report(Severity::Error, ErrorKind::Unsupported, "unknown-opset", at_layer(li),
                   str("the layer has no version attribute (expected opset1 .. opset", kLatestOpset, ")"));
            return;
        }
        const TypeResolution& resolved = resolve_type(l.type, l.version);
        const std::optional<int> opset = resolved.opset;
        if (!opset || *opset > kLatestOpset) {
            report_custom_op(li, opset);
            return;
        }
        const OpDef* def = resolved.def;
        if (!def) {
            report_unresolved_op(li, *opset);
            return;
        }
        if (!resolved.in_openvino_opset) warn_not_in_openvino_opset(li, *def, *opset);
        defs_[li] = def;
        const int n_in = static_cast<int>(l.inputs.size());
        if (n_in < def->min_inputs || n_in > def->max_inputs()) {
            report(Severity::Error, ErrorKind::Graph, "input-count", at_layer(li),
                   str(def->type, "-", def->version, " takes ",
                       def->variadic_inputs ? str("at least ", def->min_inputs)
                       : def->min_inputs == def->max_inputs() ? str(def->min_inputs)
                                                                : str(def->min_inputs, " to ", def->max_inputs()),
                       " inputs, the layer has ", n_in));
            return;
        }
        if (def->num_outputs >= 0 && static_cast<int>(l.outputs.size()) != def->num_outputs) {
            report(Severity::Error, ErrorKind::Graph, "output-count", at_layer(li),
                   str(def->type, "-", def->version, " has ", def->num_outputs, " output(s), the layer declares ",
                       l.outputs.size()));
            return;
        }
        try {
            if (def->parse_attrs) node.attrs = def->parse_attrs(AttrReader(l, doc_.weights.get()));
            else node.attrs = std::make_shared<NoAttrs>();
        } catch (const Error& e) {
            report_error(e, at_layer(li, l.data_line));
            return;
        }
        node.def = def;
        if (is_const_type(l)) check_const_bytes(li);
    }

    // A Const's bytes. Without weights, run cannot go on (check reports the missing .bin once, in
    // api/check.cpp, and checks the rest with Const values unknown). A size larger than
    // element_type x shape needs: OpenVINO reads only what it needs and runs the file, and so does
    // irlite, check and run alike, with a warning (run logs it). An empty Const is exempt:
    // OpenVINO itself writes it with size="1". A size too small is the Const's own parse error.
    void check_const_bytes(int li) {
        const IrLayer& l = doc_.layers[li];
        int64_t size = 0, needed = -1;
        try {
            const AttrReader r(l, doc_.weights.get());
            size = r.get_i64("size");
            const ElementType type = r.get_element_type("element_type");
            int64_t count = 1;
            for (const int64_t d : r.get_i64_list("shape")) {
                if (d < 0 || (d > 0 && count > std::numeric_limits<int64_t>::max() / d)) return;  // reported by parse
                count *= d;
            }
            needed = packed_byte_size(type, count);
        } catch (const Error&) {
            return;  // the Const's own parse has reported it
        }
        if (!doc_.weights && size > 0 && !options_.keep_going) {
            report(Severity::Error, ErrorKind::Io, "bin-missing", at_layer(li, l.data_line),
                   str("this Const needs the weights file (.bin), but none was loaded (", doc_.weights_note, ")"));
            return;
        }
        if (needed > 0 && size > needed)
            report(Severity::Warning, ErrorKind::Attribute, "const-size-larger", at_layer(li, l.data_line),
                   str("size = ", size, " bytes, but element_type x shape needs ", needed,
                       "; OpenVINO reads the first ", needed, " and ignores the rest, as irlite does"));
    }

    // What a (type, version) pair resolves to, looked up once per distinct pair: a model repeats a
    // handful of types thousands of times.
    struct TypeResolution {
        std::optional<int> opset;
        const OpDef* def = nullptr;
        bool in_openvino_opset = true;  // false: resolved through a listed deviation
    };
    const TypeResolution& resolve_type(std::string_view type, std::string_view version) {
        std::string key;
        key.reserve(type.size() + 1 + version.size());
        key.append(type).append(1, '\n').append(version);
        auto [it, inserted] = type_resolutions_.try_emplace(std::move(key));
        TypeResolution& r = it->second;
        if (!inserted) return r;
        r.opset = lookup_opset(type, version);
        if (r.opset && *r.opset <= kLatestOpset) r.def = registry_.find(type, *r.opset);
        if (r.def) {
            const OpsetCatalogEntry* entry = find_catalog_entry(r.def->type, *r.opset);
            r.in_openvino_opset = entry && entry->version == r.def->version;
        }
        return r;
    }

    // The registry resolved the layer through one of the catalog's listed deviations
    // (opset_deviations()): irlite runs it, OpenVINO would reject it.
    void warn_not_in_openvino_opset(int li, const OpDef& def, int opset) {
        report(Severity::Warning, ErrorKind::Unsupported, "opset-not-openvino", at_layer(li),
               str("OpenVINO's opset", opset, " has no ", def.type, "-", def.version, " (OpenVINO has ",
                   describe_catalog_entries(catalog_entries(def.type)), "); OpenVINO rejects this layer, ",
                   "irlite accepts it as ", def.type, "-", def.version));
    }

    // No definition for (type, opset) in the registry: the catalog of OpenVINO's opsets tells a
    // misspelt type from a type in the wrong opset and from a real op irlite cannot run yet. The
    // last is only a warning in check mode: the layer keeps its declared outputs (node.def stays
    // null) and checking goes on downstream.
    void report_unresolved_op(int li, int opset) {
        const IrLayer& l = doc_.layers[li];
        const auto runs = registry_.find_all(l.type);
        std::string irlite_has;
        for (const OpDef* d : runs)
            irlite_has += str(irlite_has.empty() ? "" : ", ", d->type, "-", d->version, " in ", d->opset_range());
        if (const OpsetCatalogEntry* entry = find_catalog_entry(l.type, opset)) {
            const std::string op = str(entry->type, "-", entry->version, " (", l.version, ")");
            const std::string others = irlite_has.empty() ? "" : str(" (it runs ", irlite_has, ")");
            if (options_.keep_going)
                report(Severity::Warning, ErrorKind::Unsupported, "unsupported-op", at_layer(li),
                       str("irlite cannot run ", op, " yet", others, "; its output dims are taken as declared"));
            else
                report(Severity::Error, ErrorKind::Unsupported, "unsupported-op", at_layer(li),
                       str("irlite cannot run ", op, " yet", others));
            return;
        }
        const auto entries = catalog_entries(l.type);
        if (!entries.empty() || !runs.empty()) {
            const std::string where = entries.empty() ? str("irlite has ", irlite_has)
                                                      : str("OpenVINO has ", describe_catalog_entries(entries));
            report(Severity::Error, ErrorKind::Unsupported, "op-not-in-opset", at_layer(li),
                   str("op type '", l.type, "' is not in ", l.version, "; ", where));
            return;
        }
        const std::string hint = closest_op_type(l.type);
        report(Severity::Error, ErrorKind::Unsupported, "unknown-op", at_layer(li),
               str("'", l.type, "' is not an OpenVINO op type (no opset from opset1 to opset", kLatestOpset,
                   " has it)", hint.empty() ? "" : str("; did you mean '", hint, "'?")));
    }

    // ---- 6. types and shapes ------------------------------------------------------------------
    // What a layer's output port declares, used where inference is impossible (check mode).
    OutputInfo declared_output(const IrPort& port) const {
        OutputInfo info;
        try {
            if (!port.precision.empty()) info.type = parse_element_type(port.precision);
        } catch (const Error&) {
        }
        info.shape = PartialShape(port.dims.to_vector());
        return info;
    }

    void infer_all(Graph& graph) {
        from_declaration_.assign(graph.nodes.size(), 0);
        for (size_t ni = 0; ni < graph.nodes.size(); ++ni) infer_node(graph, static_cast<int>(ni));
    }

    void infer_node(Graph& graph, int ni) {
        Node& node = graph.nodes[ni];
        const IrLayer& l = *node.layer;
        const int li = static_cast<int>(&l - doc_.layers.data());

        // Inputs, and the edge checks (declared input dims and precision vs the producer's output).
        std::vector<InferContext::Input> inputs;
        inputs.reserve(l.inputs.size());
        bool inputs_known = true;
        // Check mode: an input whose shape came from what the file declares, not from inference.
        bool declared_inputs = false;
        node.inputs.assign(l.inputs.size(), ValueRef{});
        for (size_t pos = 0; pos < l.inputs.size(); ++pos) {
            const EdgeSpan ends = in_edges_[li][pos];
            const int producer = ends.empty() ? -1 : node_of_layer_[ends[0].layer];
            if (producer < 0 || producer >= ni) {
                inputs_known = false;
                continue;
            }
            node.inputs[pos] = {producer, ends[0].output};
            declared_inputs = declared_inputs || from_declaration_[static_cast<size_t>(producer)];
            const Node& p = graph.nodes[producer];
            const OutputInfo& out = p.outputs[ends[0].output];
            const Tensor* value = p.constants.empty() ? nullptr : &p.constants[ends[0].output];
            if (value && !value->valid()) value = nullptr;
            inputs.push_back({out.type, out.shape, value});
            if (options_.compare_declared) check_edge(li, static_cast<int>(pos), p, ends[0].output, out);
        }

        std::vector<OutputInfo> inferred;
        bool ok = node.def && inputs_known;
        if (ok) {
            // The inputs move into the context and back out: no copy of their shapes per node.
            InferContext ctx(*node.def, *node.attrs, std::move(inputs), static_cast<int>(l.outputs.size()));
            if (options_.keep_going) ctx.set_findings(&diagnostics_);
            try {
                inferred = node.def->infer(ctx);
                if (node.def->role == OpRole::Parameter) override_parameter_shape(li, inferred);
                if (inferred.size() != l.outputs.size() && node.def->role != OpRole::Result) {
                    report(Severity::Error, ErrorKind::Graph, "output-count", at_layer(li),
                           str("the op produces ", inferred.size(), " output(s), the layer declares ", l.outputs.size()));
                    ok = false;
                }
            } catch (const Error& e) {
                report_rule_error(li, node, e, ctx.inputs());
                ok = false;
            }
            inputs = std::move(ctx).take_inputs();
        }
        // Shapes made from declared dims only witness what the file says: no tensor is sized from
        // them (run would infer those dims or leave them to run time).
        if (ok && !declared_inputs) ok = outputs_fit(li, *node.def, inferred);
        const bool storable = ok && check_storable(li, *node.def, inputs, inferred);
        if (ok && !options_.keep_going) ok = storable;
        if (!ok) {
            // Go on with what the file declares, so that faults downstream are still found.
            inferred.clear();
            for (const IrPort& port : l.outputs) inferred.push_back(declared_output(port));
            node.def = nullptr;
            from_declaration_[static_cast<size_t>(ni)] = 1;
        } else if (options_.compare_declared) {
            check_declared_outputs(li, inferred);
        }
        node.outputs = std::move(inferred);
        node.shapes_static = std::all_of(node.outputs.begin(), node.outputs.end(),
                                         [](const OutputInfo& o) { return o.shape.is_static(); });
        const bool ran = ok && storable && fold(graph, node, inputs);
        if (ok && storable && !ran && options_.keep_going && !declared_inputs) prepare_as_compile_does(li, node, inputs);
        if (ok && options_.keep_going && !node.shapes_static && refine_with_declared(l, node.outputs))
            from_declaration_[static_cast<size_t>(ni)] = 1;
    }

    void override_parameter_shape(int li, std::vector<OutputInfo>& inferred) const {
        for (const auto& [layer, shape] : options_.parameter_shapes)
            if (layer == li && !inferred.empty()) inferred[0].shape = PartialShape(shape);
    }

    static bool any_not_storable(const std::vector<InferContext::Input>& inputs) {
        return std::any_of(inputs.begin(), inputs.end(), [](const auto& in) { return !is_storable(in.type); });
    }

    // A rule that rejects a node with inputs of a type irlite does not store (u1, u4, string, ...)
    // may be rejecting nothing but that type, which OpenVINO defines the op on: a limit of irlite,
    // not a fault of the file. Check then warns and goes on with the declared outputs; run refuses
    // the model with the same code (unsupported-element-type). Any other rejection, such as
    // MatMul's inputs of two types (f32 and u4), is the rule's error, in check as in run.
    void report_rule_error(int li, const Node& node, const Error& e, const std::vector<InferContext::Input>& inputs) {
        if (!any_not_storable(inputs) || !rejects_only_storage(node, inputs)) {
            report_error(e, at_layer(li));
            return;
        }
        std::string types;
        for (const auto& in : inputs)
            if (!is_storable(in.type) && types.find(to_string(in.type)) == std::string::npos)
                types += str(types.empty() ? "" : ", ", to_string(in.type));
        if (options_.keep_going)
            report(Severity::Warning, ErrorKind::Unsupported, "unsupported-element-type", at_layer(li),
                   str("irlite cannot validate this op on element type ", types, " (", e.message(),
                       "); its output dims are taken as declared"));
        else
            report(Severity::Error, ErrorKind::Unsupported, "unsupported-element-type", at_layer(li),
                   str("irlite cannot run ", node.def->type, "-", node.def->version, " on element type ", types, " (",
                       e.message(), ")"));
    }

    // Whether the rule, which rejected `inputs`, accepts them once every type irlite does not store
    // is replaced by a stored type of its kind (an integer for u1 .. u6 and i4, a float for nf4 and
    // the f8 types) that no input has, distinct types by distinct stand-ins, their values unknown.
    // Then only the types themselves were rejected (Add on u1: Add on u8 is fine; Gather with u4
    // indices: i32 indices are). MatMul of f32 and u4 stays rejected whatever stands in for u4: its
    // inputs must have one type. A type with no stand-in (string, dynamic) cannot be validated at
    // all: the rejection counts as the type's. A few stand-ins are tried, the likeliest first.
    static bool rejects_only_storage(const Node& node, std::vector<InferContext::Input> inputs) {
        std::vector<ElementType> types;  // the distinct types to stand in for
        for (const auto& in : inputs)
            if (!is_storable(in.type) && std::find(types.begin(), types.end(), in.type) == types.end()) types.push_back(in.type);
        std::vector<std::vector<ElementType>> candidates;
        for (const ElementType t : types) {
            candidates.push_back(stand_ins(t, inputs));
            if (candidates.back().empty()) return true;
        }
        std::vector<ElementType> chosen;
        int attempts = 16;  // the error path of one node: bounded, whatever the node
        const auto accepts = [&]() {
            std::vector<InferContext::Input> trial = inputs;
            for (auto& in : trial) {
                const auto it = std::find(types.begin(), types.end(), in.type);
                if (it == types.end()) continue;
                in.type = chosen[static_cast<size_t>(it - types.begin())];
                in.value = nullptr;  // packed bytes are not values of the stand-in
            }
            try {
                const InferContext ctx(*node.def, *node.attrs, std::move(trial), static_cast<int>(node.layer->outputs.size()));
                node.def->infer(ctx);
                return true;
            } catch (const Error&) {
                return false;
            }
        };
        // Depth-first over the assignments of distinct stand-ins, until one is accepted.
        const std::function<bool(size_t)> search = [&](size_t k) {
            if (k == types.size()) return attempts-- > 0 && accepts();
            for (const ElementType c : candidates[k]) {
                if (attempts <= 0) return false;
                if (std::find(chosen.begin(), chosen.end(), c) != chosen.end()) continue;
                chosen.push_back(c);
                if (search(k + 1)) return true;
                chosen.pop_back();
            }
            return false;
        };
        return search(0);
    }

    // The stored types that may stand in for t, of its kind and no input's type (so that they stay
    // distinct from the inputs): the same signedness first.
    static std::vector<ElementType> stand_ins(ElementType t, const std::vector<InferContext::Input>& inputs) {
        using E = ElementType;
        static const std::vector<E> kFloats = {E::f16, E::bf16, E::f32, E::f64};
        static const std::vector<E> kUnsignedFirst = {E::u8, E::u16, E::u32, E::u64, E::i8, E::i16, E::i32, E::i64};
        static const std::vector<E> kSignedFirst = {E::i8, E::i16, E::i32, E::i64, E::u8, E::u16, E::u32, E::u64};
        const std::vector<E>* kinds = is_float(t)      ? &kFloats
                                      : !is_integral(t) ? nullptr
                                      : traits(t).is_signed ? &kSignedFirst
                                                            : &kUnsignedFirst;
        std::vector<E> out;
        if (!kinds) return out;
        for (const E c : *kinds)
            if (std::none_of(inputs.begin(), inputs.end(), [&](const auto& in) { return in.type == c; })) out.push_back(c);
        return out;
    }

    // Every output the rule inferred with a static shape must be a tensor that can exist: its
    // bytes fit in 64 bits and within max_tensor_bytes() (OneHot with depth 2^40, DetectionOutput
    // with keep_top_k 2^40). The same check as the execution plan's and Tensor's, here so that
    // check reports it and compile refuses it before anything is folded or planned. Parameters
    // (the caller's memory) and Results (their producer's output) are not sized here.
    bool outputs_fit(int li, const OpDef& def, const std::vector<OutputInfo>& outputs) {
        if (def.role == OpRole::Parameter || def.role == OpRole::Result) return true;
        const size_t declared = doc_.layers[li].outputs.size();
        for (size_t pos = 0; pos < outputs.size(); ++pos) {
            if (!outputs[pos].shape.is_static()) continue;
            try {
                // Static: the dims are the shape. The error's location names the output port.
                check_tensor_fits(outputs[pos].type, outputs[pos].shape.dims());
            } catch (const Error& e) {
                report_error(e, pos < declared ? at_port(li, static_cast<int>(pos), true) : at_layer(li));
                return false;
            }
        }
        return true;
    }

    // Check mode: compiling runs each op's prepare step (execution_plan.cpp) on every node whose
    // input shapes are static and whose value inputs are known at load time, and refuses the model
    // when one throws. Check runs the same step on the same nodes (the plan is not kept), so that
    // it reports what compiling refuses, with the same code. Run mode leaves it to the plan.
    void prepare_as_compile_does(int li, const Node& node, const std::vector<InferContext::Input>& inputs) {
        const OpDef& def = *node.def;
        if (!def.prepare || def.role != OpRole::Compute || !node.shapes_static) return;
        for (size_t i = 0; i < inputs.size(); ++i) {
            if (!inputs[i].shape.is_static() || (def.needs_value(i) && !inputs[i].value)) return;
        }
        try {
            const InferContext ctx(def, *node.attrs, inputs, static_cast<int>(node.outputs.size()));
            def.prepare(ctx);
        } catch (const Error& e) {
            report_error(e, at_layer(li));  // as the plan reports it, packed inputs or not
        }
    }

    // irlite stores f16 .. boolean only. A node whose inputs or outputs have another type (valid
    // IR: u1, u4, string, ...) cannot run: run refuses it when the model is compiled, not in the
    // middle of a run, and check warns (unsupported-element-type) and goes on, as for an op irlite
    // cannot run.
    static bool holdable(const OpDef& def, ElementType t) { return is_storable(t) || (def.accepts_packed && is_packed(t)); }
    // A packed output only comes from packed data (a Const, a view of one): irlite unpacks the packed types
    // but does not pack into them.
    static bool output_holdable(const OpDef& def, ElementType t, const std::vector<InferContext::Input>& inputs) {
        if (is_storable(t)) return true;
        return holdable(def, t) && (inputs.empty() || std::any_of(inputs.begin(), inputs.end(), [t](const auto& in) { return in.type == t; }));
    }

    bool check_storable(int li, const OpDef& def, const std::vector<InferContext::Input>& inputs,
                        const std::vector<OutputInfo>& outputs) {
        std::optional<ElementType> bad;
        for (const auto& in : inputs)
            if (!holdable(def, in.type)) bad = in.type;
        for (const auto& out : outputs)
            if (!bad && !output_holdable(def, out.type, inputs)) bad = out.type;
        if (!bad) return true;
        report(options_.keep_going ? Severity::Warning : Severity::Error, ErrorKind::Unsupported,
               "unsupported-element-type", at_layer(li),
               str("irlite cannot run ", def.type, "-", def.version, " on element type ", to_string(*bad),
                   " (irlite stores f16, bf16, f32, f64, i8 .. i64, u8 .. u64 and boolean)"));
        return false;
    }

    // Check mode: where the rule left a dim unknown (a Const value that was not loaded, an input
    // whose producer could not be validated), the dim the file declares is taken, so that the
    // layers downstream are still checked against it. Run mode never does this: it trusts only
    // what it infers. True when a dim was taken from the declaration.
    static bool refine_with_declared(const IrLayer& l, std::vector<OutputInfo>& inferred) {
        bool refined = false;
        for (size_t pos = 0; pos < l.outputs.size() && pos < inferred.size(); ++pos) {
            const IrPort& port = l.outputs[pos];
            PartialShape& shape = inferred[pos].shape;
            if (!port.dims_valid || shape.is_static()) continue;
            if (!shape.rank_known()) {
                shape = PartialShape(port.dims.to_vector());
                refined = true;
                continue;
            }
            if (shape.rank() != port.dims.size()) continue;  // reported as dims-mismatch
            std::vector<int64_t> dims(shape.rank());
            for (size_t i = 0; i < dims.size(); ++i) dims[i] = shape[i] == kDynamic ? port.dims[i] : shape[i];
            shape = PartialShape(dims);
            refined = true;
        }
        return refined;
    }

    // Declared input dims against the producer's output. OpenVINO never reads them (it re-infers),
    // so they only witness what the writer thought. Against an output irlite inferred, a
    // contradiction is an error: the consumer's declaration is wrong. Against an output that is
    // itself only declared (an op irlite cannot validate), the two ends are two declarations and
    // irlite cannot tell which is wrong: a warning.
    //
    // A Result is the exception: it computes nothing, its output is its input as it is, and its
    // declared dims only record what the writer expected the model's output to be (exporters
    // write upper bounds there for outputs sized at run time, and OpenVINO's own serialization
    // fixture ovtest_nms5_dynamism declares [10,3] on NonMaxSuppression-5's [1] valid_outputs).
    // A contradiction there is a warning: the output is what the producer makes.
    void check_edge(int li, int pos, const Node& producer, int out_pos, const OutputInfo& out) {
        const IrPort& port = doc_.layers[li].inputs[pos];
        if (port.dims_valid && !declared_compatible(port.dims, out.shape)) {
            const bool inferred = producer.def != nullptr;
            const bool into_result = canonical_op_type(doc_.layers[li].type) == "result";
            const char* note = !inferred     ? "; irlite cannot validate that layer, OpenVINO re-infers both"
                               : into_result ? "; a Result's output is what its producer makes (OpenVINO ignores these dims)"
                                             : "";
            report(inferred && !into_result ? Severity::Error : Severity::Warning, ErrorKind::ShapeRule, "dims-mismatch",
                   at_port(li, pos, false),
                   str("input port dims ", dims_text(port.dims), " differ from the producer's ",
                       inferred ? "output " : "declared output ", to_string(out.shape), " (layer '",
                       producer.layer->name, "' output ", out_pos, ")", note),
                   dims_text(port.dims), to_string(out.shape));
        }
        // OpenVINO takes an edge's type from its producer and ignores the consumer's precision.
        check_precision(li, pos, false, out.type, "the producer's output", Severity::Warning);
    }

    // The port's declared precision against the type irlite has for it.
    void check_precision(int li, int pos, bool output, ElementType actual, const char* against, Severity severity) {
        const IrLayer& l = doc_.layers[li];
        const IrPort& port = output ? l.outputs[pos] : l.inputs[pos];
        if (port.precision.empty()) return;
        const auto where = [&] { return at_port(li, pos, output); };
        try {
            const ElementType declared = parse_element_type(port.precision);
            // `dynamic` stands for any type.
            if (declared != actual && declared != ElementType::dynamic && actual != ElementType::dynamic)
                report(severity, ErrorKind::Type, "precision-mismatch", where(),
                       str("precision ", port.precision, " differs from ", against, " type ", to_string(actual),
                           severity == Severity::Warning ? " (OpenVINO ignores it and uses the producer's)" : ""),
                       std::string(port.precision), to_string(actual));
        } catch (const Error& e) {
            report(Severity::Error, e.kind(), "precision-invalid", where(),
                   str("precision \"", port.precision, "\": ", e.message()));
        }
    }

    void check_declared_outputs(int li, const std::vector<OutputInfo>& inferred) {
        const IrLayer& l = doc_.layers[li];
        for (size_t pos = 0; pos < l.outputs.size() && pos < inferred.size(); ++pos) {
            const IrPort& port = l.outputs[pos];
            if (port.dims_valid && !declared_compatible(port.dims, inferred[pos].shape)) {
                report(Severity::Error, ErrorKind::ShapeRule, "dims-mismatch", at_port(li, static_cast<int>(pos), true),
                       str("declared dims ", dims_text(port.dims), " differ from the inferred ",
                           to_string(inferred[pos].shape)),
                       dims_text(port.dims), to_string(inferred[pos].shape));
            }
            // OpenVINO ignores the precision of an output that feeds nothing (POT writes FP32 on
            // MaxPool-8's unused i64 indices): so does irlite.
            if (output_feeds_[output_base_[li] + pos])
                check_precision(li, static_cast<int>(pos), true, inferred[pos].type, "the inferred", Severity::Error);
        }
    }

    // Runs the node's kernel at load time when its inputs are all known; true when it did (whether
    // it succeeded or reported the error it met).
    bool fold(Graph& graph, Node& node, const std::vector<InferContext::Input>& inputs) {
        if (!options_.fold_constants || !node.def->foldable) return false;
        // Values irlite cannot hold, and Consts whose bytes were not loaded, stay unknown.
        for (const auto& in : inputs)
            if (!holdable(*node.def, in.type)) return false;
        for (const OutputInfo& o : node.outputs)
            if (!output_holdable(*node.def, o.type, inputs)) return false;
        // Compressed weights stay compressed: a node that unpacks a packed input (u4 Const ->
        // Convert) runs at inference time, into the request's arena, rather than leaving a full
        // f32 copy of the weights in the model for its lifetime.
        const bool unpacks = std::any_of(inputs.begin(), inputs.end(), [](const auto& in) { return is_packed(in.type); }) &&
                             std::none_of(node.outputs.begin(), node.outputs.end(), [](const OutputInfo& o) { return is_packed(o.type); });
        if (unpacks) return false;
        if (!doc_.weights && node.def->role == OpRole::Compute && inputs.empty() && is_const_type(*node.layer)) return false;
        std::vector<Tensor> values;
        for (size_t i = 0; i < inputs.size(); ++i) {
            if (inputs[i].value) {
                values.push_back(*inputs[i].value);
            } else if (node.def->reads_only_shape(i) && inputs[i].shape.is_static()) {
                values.push_back(Tensor::wrap(inputs[i].type, inputs[i].shape.to_shape(), nullptr));
            } else {
                return false;
            }
        }
        try {
            node.constants = run_node(node, values, node.shapes_static ? &node.outputs : nullptr, nullptr, nullptr,
                                      doc_.xml_path);
            for (size_t i = 0; i < node.outputs.size(); ++i)
                node.outputs[i].shape = PartialShape(node.constants[i].shape());
            node.shapes_static = true;
        } catch (const Error& e) {
            report(Diagnostic::from_error(e));
            node.constants.clear();
        }
        (void)graph;
        return true;
    }

    void collect_boundaries(Graph& graph) {
        // Model inputs and outputs keep XML order (OpenVINO's rule), not topological order.
        std::vector<int> by_file(graph.nodes.size());
        for (size_t i = 0; i < by_file.size(); ++i) by_file[i] = static_cast<int>(i);
        std::sort(by_file.begin(), by_file.end(),
                  [&](int a, int b) { return graph.nodes[a].layer < graph.nodes[b].layer; });
        for (int ni : by_file) {
            const Node& node = graph.nodes[ni];
            const OpRole role = node.def ? node.def->role : OpRole::Compute;
            if (role == OpRole::Parameter || (!node.def && op_type_is(node.layer->type, "parameter")))
                graph.parameters.push_back(ni);
            if (role == OpRole::Result || (!node.def && op_type_is(node.layer->type, "result"))) graph.results.push_back(ni);
            if (role == OpRole::Sink) graph.sinks.push_back(ni);
        }
    }

    std::shared_ptr<const IrDocument> doc_ptr_;
    const IrDocument& doc_;
    const OpRegistry& registry_;
    const BuildOptions& options_;
    std::vector<Diagnostic> diagnostics_;
    LayerIdIndex id_to_layer_{doc_.layers};
    std::vector<bool> valid_;                          // per layer: usable id
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

}  // namespace

bool BuildResult::has_errors() const {
    return std::any_of(diagnostics.begin(), diagnostics.end(),
                       [](const Diagnostic& d) { return d.severity == Severity::Error; });
}

Location Node::location(const std::string& file) const {
    Location where;
    where.file = file;
    where.line = layer->line;
    where.layer_id = layer->id;
    where.layer_name = layer->name;
    where.layer_type = layer->type;
    where.opset = layer->version;
    return where;
}

BuildResult build_graph(std::shared_ptr<const IrDocument> document, const OpRegistry& registry,
                        const BuildOptions& options) {
    return Builder(std::move(document), registry, options).run();
}

}  // namespace irlite
