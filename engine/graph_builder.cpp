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
// This file: build_graph, the reporting and steps 1-4; step 5 is graph_builder_ops.cpp, step 6
// graph_builder_shapes.cpp, the Builder class they share graph_builder_impl.hpp.
#include <algorithm>
#include <limits>
#include <unordered_set>

#include "engine/graph.hpp"
#include "engine/graph_builder_impl.hpp"

namespace irlite {
namespace graph_build {
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

}  // namespace

BuildResult Builder::run() {
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

// ---- reporting ----------------------------------------------------------------------------
void Builder::report(Diagnostic d) {
    if (d.severity == Severity::Error && !options_.keep_going) throw d.to_error();
    diagnostics_.push_back(std::move(d));
}

void Builder::report(Severity severity, ErrorKind kind, std::string code, Location where, std::string message,
                     std::string declared, std::string inferred) {
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

void Builder::report_error(const Error& e, const Location& context) {
    Error located = e;
    located.add_context(context);
    report(Diagnostic::from_error(located));
}

Location Builder::at_layer(int li, int64_t line) const { return layer_location(doc_, doc_.layers[li], line); }

Location Builder::at_port(int li, int pos, bool output) const {
    const IrLayer& l = doc_.layers[li];
    Location w = at_layer(li, output ? l.outputs[pos].line : l.inputs[pos].line);
    w.port = pos;
    w.port_is_output = output;
    const OpDef* def = defs_.empty() ? nullptr : defs_[li];
    if (!output && def) w.port_role = def->input_role(static_cast<size_t>(pos));
    return w;
}

std::string Builder::layer_ref(int li) const {
    const IrLayer& l = doc_.layers[li];
    return str("'", l.name, "' (", l.type, " id=", l.id_text, ")");
}

// ---- 1. layers ----------------------------------------------------------------------------
void Builder::index_layers() {
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

void Builder::check_ports(int li) {
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
int Builder::find_port(const std::vector<IrPort>& ports, uint64_t id) {
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

void Builder::resolve_edges() {
    prepare_edge_tables();
    for (const IrEdge& e : doc_.edges) add_edge(e);
    in_edges_.finish();
    check_input_edge_counts();
}

// The tables resolve_edges fills: the edges into each input port, and which outputs feed something.
void Builder::prepare_edge_tables() {
    in_edges_.reset(doc_.layers, doc_.edges.size());
    feeds_something_.assign(doc_.layers.size(), false);
    output_base_.assign(doc_.layers.size() + 1, 0);
    for (size_t li = 0; li < doc_.layers.size(); ++li)
        output_base_[li + 1] = output_base_[li] + doc_.layers[li].outputs.size();
    output_feeds_.assign(output_base_.back(), false);
}

// One edge: both ends must name an existing layer and port, from an output into an input.
void Builder::add_edge(const IrEdge& e) {
    if (!e.from_layer || !e.from_port || !e.to_layer || !e.to_port) {
        Location w;
        w.file = doc_.xml_path;
        w.line = e.line;
        report(Severity::Error, ErrorKind::Graph, "edge-invalid", w,
               str("edge ", edge_text(e), ": from-layer, from-port, to-layer and to-port must be unsigned integers"));
        return;
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
        return;
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
        return;
    }
    const int in_pos = find_port(to.inputs, *e.to_port);
    if (in_pos < 0) {
        const bool is_output = find_port(to.outputs, *e.to_port) >= 0;
        report(Severity::Error, ErrorKind::Graph, is_output ? "edge-into-output-port" : "edge-missing-port", where(),
               str("edge ", edge_text(e), ": layer ", layer_ref(dst),
                   is_output ? " port " : " has no input port ", *e.to_port,
                   is_output ? " is an output port, not an input" : ""));
        return;
    }
    in_edges_.add(static_cast<size_t>(dst), static_cast<size_t>(in_pos), {src, out_pos, e.line});
    feeds_something_[src] = true;
    output_feeds_[output_base_[src] + static_cast<size_t>(out_pos)] = true;
}

// Every input port of a usable layer must have exactly one edge into it.
void Builder::check_input_edge_counts() {
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
std::vector<int> Builder::topological_order() {
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

void Builder::report_cycles(const std::vector<bool>& placed) {
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

// ---- 4. liveness --------------------------------------------------------------------------
void Builder::mark_live() {
    const int n = static_cast<int>(doc_.layers.size());
    live_.assign(n, false);
    std::vector<int> stack;
    for (int li = 0; li < n; ++li) {
        if (valid_[li] && is_sink_type(doc_.layers[li])) {
            live_[li] = true;
            stack.push_back(li);
        }
        // A Parameter is the model's (or a body's) interface even when it feeds nothing: OpenVINO
        // keeps it, callers may set it, and a body's port map refers to it by position.
        if (valid_[li] && op_type_is(doc_.layers[li].type, "parameter")) live_[li] = true;
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

}  // namespace graph_build

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
    return graph_build::Builder(std::move(document), registry, options).run();
}

}  // namespace irlite
