// Sub-graph bodies: port maps, building, running (engine/subgraph.hpp).
#include "engine/subgraph.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>

#include "engine/profile.hpp"
#include "engine/tensor_size.hpp"

namespace irlite {
namespace {

bool parse_int(const std::string& text, int64_t& out) {
    const std::string_view t = trim_xml_space(text);
    if (t.empty()) return false;
    size_t i = 0;
    bool negative = false;
    if (t[0] == '-' || t[0] == '+') {
        negative = t[0] == '-';
        i = 1;
    }
    if (i == t.size()) return false;
    uint64_t v = 0;
    for (; i < t.size(); ++i) {
        if (t[i] < '0' || t[i] > '9') return false;
        const auto digit = static_cast<uint64_t>(t[i] - '0');
        if (v > (uint64_t{1} << 63) / 10) return false;
        v = v * 10 + digit;
        if (v > (uint64_t{1} << 63)) return false;
    }
    if (!negative && v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return false;
    out = negative ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
    return true;
}

// An integer attribute of a port map entry or back edge; `fallback` when absent.
int64_t entry_int(const IrMapEntry& e, const char* name, std::optional<int64_t> fallback, const std::string& where) {
    const std::string* v = e.find(name);
    if (!v) {
        if (fallback) return *fallback;
        throw port_map_error(ErrorKind::Attribute, "attribute-missing", e.line,
                             cat(where, " <", e.element, "> has no '", name, "' attribute"));
    }
    int64_t out = 0;
    if (!parse_int(*v, out))
        throw port_map_error(ErrorKind::Attribute, "attribute-invalid", e.line,
                             cat(where, " <", e.element, "> attribute '", name, "' = \"", *v, "\" is not an integer"));
    return out;
}

// Position of the body layer with id `id` among `positions` (document layer indices), or -1.
int position_of(const IrDocument& doc, const std::vector<int>& positions, uint64_t id) {
    for (size_t i = 0; i < positions.size(); ++i)
        if (doc.layers[static_cast<size_t>(positions[i])].id == id) return static_cast<int>(i);
    return -1;
}

bool body_has_layer(const IrDocument& doc, uint64_t id) {
    return std::any_of(doc.layers.begin(), doc.layers.end(), [&](const IrLayer& l) { return l.id == id; });
}

std::string layer_type_of(const IrDocument& doc, uint64_t id) {
    for (const IrLayer& l : doc.layers)
        if (l.id == id) return std::string(l.type);
    return "";
}

const char* map_name(const std::string& body) {
    return body == "then_body" ? "then_port_map" : body == "else_body" ? "else_port_map" : "port_map";
}

// A port map entry's attributes, checked alone (TensorIterator's slicing) and located in the body:
// body_port is the index of the Parameter (an input entry) or Result (an output entry) it names.
PortMapEntry read_entry(const IrMapEntry& e, const SubgraphBody& b, const std::string& map, SubgraphKind kind) {
    const bool input = e.element == "input";
    if (!input && e.element != "output")
        throw port_map_error(ErrorKind::Graph, "port-map-invalid", e.line,
                             cat("<", map, "> holds <", e.element, ">; only <input> and <output> entries are allowed"));
    PortMapEntry p;
    p.line = e.line;
    p.external = entry_int(e, "external_port_id", std::nullopt, map);
    const int64_t internal = entry_int(e, "internal_layer_id", std::nullopt, map);
    if (internal < 0)
        throw port_map_error(ErrorKind::Graph, "port-map-invalid", e.line,
                             cat(map, " ", e.element, " internal_layer_id ", internal, " is negative"));
    p.internal = static_cast<uint64_t>(internal);
    if (e.find("axis")) p.axis = entry_int(e, "axis", std::nullopt, map);
    p.start = entry_int(e, "start", 0, map);
    p.end = entry_int(e, "end", -1, map);
    p.stride = entry_int(e, "stride", 1, map);
    p.part_size = entry_int(e, "part_size", 1, map);
    if (const std::string* purpose = e.find("purpose")) p.purpose = *purpose;
    if (kind == SubgraphKind::TensorIterator && p.axis) {
        if (p.stride == 0)
            throw port_map_error(ErrorKind::Attribute, "attribute-invalid", e.line,
                                 cat(map, " ", e.element, " stride is 0; it must be a non-zero integer"));
        if (p.part_size < 1)
            throw port_map_error(ErrorKind::Attribute, "attribute-invalid", e.line,
                                 cat(map, " ", e.element, " part_size = ", p.part_size, "; it must be >= 1"));
    }
    const IrDocument& doc = *b.document;
    const std::vector<int>& targets = input ? b.parameter_layers : b.result_layers;
    p.body_port = position_of(doc, targets, p.internal);
    if (p.body_port < 0) {
        const std::string type = layer_type_of(doc, p.internal);
        throw port_map_error(ErrorKind::Graph, "port-map-invalid", e.line,
                             type.empty() ? cat(map, " ", e.element, " names internal_layer_id ", p.internal,
                                                ", which is no layer of the body")
                                          : cat(map, " ", e.element, " names internal_layer_id ", p.internal,
                                                ", a ", type, " layer; it must name a body ",
                                                input ? "Parameter" : "Result"));
    }
    return p;
}

// Adds an input entry to b: it feeds one body Parameter from one of the layer's n_in inputs, or
// (a Loop's current_iteration) gives it the iteration number.
void add_input_entry(SubgraphBody& b, PortMapEntry p, const std::string& map, SubgraphKind kind, int64_t n_in) {
    const bool iteration = kind == SubgraphKind::Loop && p.purpose == "current_iteration";
    if (!iteration && (p.external < 0 || p.external >= n_in))
        throw port_map_error(ErrorKind::Graph, "port-map-invalid", p.line,
                             cat(map, " input external_port_id ", p.external, " is out of range: the layer has ",
                                 n_in, " inputs (0 to ", n_in - 1, ")"));
    if (!p.purpose.empty() && !iteration)
        throw port_map_error(ErrorKind::Attribute, "attribute-invalid", p.line,
                             cat(map, " input purpose \"", p.purpose, "\" is not allowed here",
                                 kind == SubgraphKind::Loop ? " (Loop inputs: current_iteration)" : ""));
    int& fed = b.parameter_input[static_cast<size_t>(p.body_port)];
    if (fed >= 0 || (iteration && b.current_iteration >= 0))
        throw port_map_error(ErrorKind::Graph, "port-map-invalid", p.line,
                             cat(map, " maps body Parameter ", p.internal, " twice"));
    if (iteration) b.current_iteration = p.body_port;
    else fed = static_cast<int>(b.inputs.size());
    b.inputs.push_back(std::move(p));
}

// Adds an output entry to b: a layer output, or (a Loop's execution_condition) the Result that
// decides whether the next iteration runs, or both.
void add_output_entry(SubgraphBody& b, PortMapEntry p, const std::string& map, SubgraphKind kind) {
    const bool condition = kind == SubgraphKind::Loop && p.purpose == "execution_condition";
    if (!p.purpose.empty() && !condition)
        throw port_map_error(ErrorKind::Attribute, "attribute-invalid", p.line,
                             cat(map, " output purpose \"", p.purpose, "\" is not allowed here",
                                 kind == SubgraphKind::Loop ? " (Loop outputs: execution_condition)" : ""));
    if (condition) {
        if (b.condition >= 0 && b.condition != p.body_port)
            throw port_map_error(ErrorKind::Graph, "port-map-invalid", p.line,
                                 cat(map, " names two execution_condition Results"));
        b.condition = p.body_port;
        b.condition_line = p.line;
    }
    if (p.external >= 0 || !condition) b.outputs.push_back(std::move(p));
}

// Adds a back edge to b: from a body Result to a body Parameter, at most one per Parameter.
void add_back_edge(SubgraphBody& b, const IrMapEntry& e) {
    const IrDocument& doc = *b.document;
    const int64_t from = entry_int(e, "from-layer", std::nullopt, "back_edges");
    const int64_t to = entry_int(e, "to-layer", std::nullopt, "back_edges");
    BackEdge edge;
    edge.line = e.line;
    for (const auto& [id, is_from] : {std::pair<int64_t, bool>{from, true}, {to, false}}) {
        const std::vector<int>& targets = is_from ? b.result_layers : b.parameter_layers;
        const int pos = id < 0 ? -1 : position_of(doc, targets, static_cast<uint64_t>(id));
        if (pos < 0) {
            const bool exists = id >= 0 && body_has_layer(doc, static_cast<uint64_t>(id));
            throw port_map_error(ErrorKind::Graph, "back-edge-invalid", e.line,
                                 exists ? cat("back edge ", is_from ? "comes from" : "leads to", " body layer ", id,
                                              ", a ", layer_type_of(doc, static_cast<uint64_t>(id)),
                                              " layer; it must ", is_from ? "come from a body Result" : "lead to a body Parameter")
                                        : cat("back edge ", is_from ? "comes from" : "leads to", " body layer ", id,
                                              ", which does not exist"));
        }
        (is_from ? edge.result : edge.parameter) = pos;
    }
    int& fed = b.parameter_back_edge[static_cast<size_t>(edge.parameter)];
    if (fed >= 0)
        throw port_map_error(ErrorKind::Graph, "back-edge-invalid", e.line,
                             cat("two back edges lead to body Parameter ", to));
    fed = static_cast<int>(b.back_edges.size());
    b.back_edges.push_back(edge);
}

SubgraphBody read_body(const IrLayer& layer, const IrBody& ir, SubgraphKind kind) {
    SubgraphBody b;
    b.name = std::string(ir.name);
    b.path = cat("layer '", layer.name, "' > ", b.name);
    b.line = ir.line;
    b.document = ir.document;
    const IrDocument& doc = *ir.document;
    for (size_t i = 0; i < doc.layers.size(); ++i) {
        if (op_type_is(doc.layers[i].type, "parameter")) b.parameter_layers.push_back(static_cast<int>(i));
        if (op_type_is(doc.layers[i].type, "result")) b.result_layers.push_back(static_cast<int>(i));
    }
    b.parameter_input.assign(b.parameter_layers.size(), -1);
    b.parameter_back_edge.assign(b.parameter_layers.size(), -1);
    const std::string map = map_name(b.name);
    const int64_t n_in = static_cast<int64_t>(layer.inputs.size());
    for (const IrMapEntry& e : ir.port_map) {
        PortMapEntry p = read_entry(e, b, map, kind);
        if (e.element == "input") add_input_entry(b, std::move(p), map, kind, n_in);
        else add_output_entry(b, std::move(p), map, kind);
    }
    for (const IrMapEntry& e : ir.back_edges) add_back_edge(b, e);
    // Every Parameter has a first value: from an input entry, or the iteration number.
    for (size_t p = 0; p < b.parameter_layers.size(); ++p) {
        if (b.parameter_input[p] >= 0 || static_cast<int>(p) == b.current_iteration) continue;
        const IrLayer& l = doc.layers[static_cast<size_t>(b.parameter_layers[p])];
        throw port_map_error(ErrorKind::Graph, "port-map-invalid", ir.port_map_line > 0 ? ir.port_map_line : ir.line,
                             cat("body Parameter '", l.name, "' (id ", l.id_text, ") is fed by no ", map, " input",
                                 b.parameter_back_edge[p] >= 0 ? " (a back edge gives it only the later iterations' values)" : ""));
    }
    return b;
}

// The layer's output positions: output entries ordered by external_port_id (OpenVINO's rule; the
// ids are the output port ids for TensorIterator and Loop, the output indices for If).
void number_outputs(std::vector<SubgraphBody>& bodies, size_t num_outputs, const std::string& layer_name) {
    std::vector<int64_t> ids;
    for (const SubgraphBody& b : bodies)
        for (const PortMapEntry& e : b.outputs)
            if (e.external >= 0) ids.push_back(e.external);
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    for (SubgraphBody& b : bodies) {
        std::vector<char> seen(ids.size(), 0);
        for (PortMapEntry& e : b.outputs) {
            if (e.external < 0) continue;
            e.output = static_cast<int>(std::lower_bound(ids.begin(), ids.end(), e.external) - ids.begin());
            if (seen[static_cast<size_t>(e.output)]++)
                throw port_map_error(ErrorKind::Graph, "port-map-invalid", e.line,
                                     cat(map_name(b.name), " maps output external_port_id ", e.external, " twice"));
        }
        if (bodies.size() > 1 && std::count(seen.begin(), seen.end(), 1) != static_cast<long>(ids.size()))
            throw port_map_error(ErrorKind::Graph, "port-map-invalid", b.line,
                                 cat(b.name, " of layer '", layer_name, "' gives ",
                                     std::count(seen.begin(), seen.end(), 1), " of the ", ids.size(),
                                     " outputs; each body must give every output"));
    }
    if (ids.size() != num_outputs)
        throw port_map_error(ErrorKind::Graph, "port-map-invalid", bodies.empty() ? 0 : bodies[0].line,
                             cat("the port map gives ", ids.size(), " distinct outputs, the layer declares ", num_outputs));
}

}  // namespace

bool is_scalar_like(const PartialShape& s) {
    return s.rank_known() && (s.rank() == 0 || (s.rank() == 1 && (s[0] == 1 || s[0] == kDynamic)));
}

namespace subgraph_text {
void append(std::string& s, std::string_view v) { s.append(v); }
void append(std::string& s, ElementType t) { s.append(to_string(t)); }
void append(std::string& s, const PartialShape& shape) { s.append(to_string(shape)); }
void append_int(std::string& s, int64_t v) { s.append(std::to_string(v)); }
void append_uint(std::string& s, uint64_t v) { s.append(std::to_string(v)); }
}  // namespace subgraph_text

Error port_map_error(ErrorKind kind, std::string code, int64_t line, std::string message) {
    Location where;
    where.line = line;
    return Error(kind, std::move(code), std::move(message), where);
}

std::unique_ptr<OpAttrs> parse_subgraph_attrs(const AttrReader& reader, SubgraphKind kind) {
    const IrLayer& layer = reader.layer();
    auto a = std::make_unique<SubgraphAttrs>();
    a->kind = kind;
    a->layer_name = std::string(layer.name);
    a->num_inputs = layer.inputs.size();
    a->num_outputs = layer.outputs.size();
    for (const IrPort& port : layer.outputs) {
        OutputInfo info;
        try {
            if (!port.precision.empty()) info.type = parse_element_type(port.precision);
        } catch (const Error&) {
        }
        info.shape = PartialShape(port.dims.to_vector());
        a->declared_outputs.push_back(std::move(info));
    }
    const std::vector<const char*> names =
        kind == SubgraphKind::If ? std::vector<const char*>{"then_body", "else_body"} : std::vector<const char*>{"body"};
    for (const char* name : names) {
        const IrBody* body = layer.body(name);
        if (!body)
            throw Error(ErrorKind::Graph, "body-missing", cat("the layer has no <", name, ">"));
        a->bodies.push_back(read_body(layer, *body, kind));
    }
    for (const IrBody& body : layer.bodies)
        if (std::find(names.begin(), names.end(), body.name) == names.end())
            throw port_map_error(ErrorKind::Graph, "body-invalid", body.line,
                                 cat("<", body.name, "> is not a body of this op"));
    number_outputs(a->bodies, a->num_outputs, a->layer_name);
    return a;
}

OutputInfo declared_parameter(const SubgraphBody& body, size_t p) {
    const IrLayer& l = body.document->layers[static_cast<size_t>(body.parameter_layers[p])];
    OutputInfo info;
    for (const IrAttribute& attr : l.attributes)
        if (attr.name == "element_type") {
            try {
                info.type = parse_element_type(attr.value);
            } catch (const Error&) {
            }
        }
    if (!l.outputs.empty()) {
        info.shape = PartialShape(l.outputs[0].dims.to_vector());
        if (!l.outputs[0].precision.empty()) {
            try {
                info.type = parse_element_type(l.outputs[0].precision);
            } catch (const Error&) {
            }
        }
    }
    return info;
}

namespace {

// What a built body depends on: the body and its Parameters' types and shapes (the cache's key).
std::vector<int64_t> build_key(size_t index, const std::vector<OutputInfo>& parameters) {
    std::vector<int64_t> key = {static_cast<int64_t>(index)};
    for (const OutputInfo& p : parameters) {
        key.push_back(static_cast<int64_t>(p.type));
        key.push_back(p.shape.rank_known() ? static_cast<int64_t>(p.shape.rank()) : -1);
        key.insert(key.end(), p.shape.dims().begin(), p.shape.dims().end());
    }
    return key;
}

// Checks each value given to a body Parameter against what the Parameter declares, and records
// the static shapes the body is built with.
void match_parameters(const SubgraphBody& body, const std::vector<OutputInfo>& parameters, BuildOptions& options) {
    for (size_t p = 0; p < parameters.size() && p < body.parameter_layers.size(); ++p) {
        const OutputInfo declared = declared_parameter(body, p);
        const IrLayer& l = body.document->layers[static_cast<size_t>(body.parameter_layers[p])];
        const int64_t line = body.parameter_input[p] >= 0 ? body.inputs[static_cast<size_t>(body.parameter_input[p])].line : l.line;
        if (declared.type != parameters[p].type)
            throw port_map_error(ErrorKind::Type, "port-map-type", line,
                                 cat("body Parameter '", l.name, "' is ", to_string(declared.type), ", the value it gets is ",
                                     to_string(parameters[p].type)));
        if (!shapes_compatible(declared.shape, parameters[p].shape))
            throw port_map_error(ErrorKind::ShapeRule, "port-map-shape", line,
                                 cat("body Parameter '", l.name, "' declares ", to_string(declared.shape),
                                     ", the value it gets is ", to_string(parameters[p].shape)));
        if (parameters[p].shape.is_static())
            options.parameter_shapes.emplace_back(body.parameter_layers[p], parameters[p].shape.to_shape());
    }
}

// The body's findings as check reports them: located in the body, and a body's declared dims
// only a warning.
void add_body_findings(const SubgraphBody& body, std::vector<Diagnostic> diagnostics, std::vector<Diagnostic>& findings) {
    for (Diagnostic& d : diagnostics) {
        if (d.code == "dims-mismatch" && d.severity == Severity::Error && !d.declared.empty()) {
            d.severity = Severity::Warning;
            d.message += " (a body's declared dims are not used: OpenVINO infers them again)";
        }
        d.where.body_path = d.where.body_path.empty() ? body.path : body.path + " > " + d.where.body_path;
        findings.push_back(std::move(d));
    }
}

// The built graph's Results: each one's type and shape, and its value when it is a constant.
void read_results(const SubgraphBody& body, BuiltBody& built) {
    const Graph& g = *built.graph;
    if (g.parameters.size() != body.parameter_layers.size() || g.results.size() != body.result_layers.size())
        throw Error(ErrorKind::Graph, "body-invalid",
                    cat("the ", body.name, " has ", body.parameter_layers.size(), " Parameters and ", body.result_layers.size(),
                        " Results, of which ", g.parameters.size(), " and ", g.results.size(), " could be built"));
    for (int r : g.results) {
        const Node& n = g.nodes[static_cast<size_t>(r)];
        OutputInfo info;
        Tensor value;
        if (!n.inputs.empty() && n.inputs[0].node >= 0) {
            const Node& producer = g.nodes[static_cast<size_t>(n.inputs[0].node)];
            info = producer.outputs[static_cast<size_t>(n.inputs[0].output)];
            if (producer.is_constant()) value = producer.constants[static_cast<size_t>(n.inputs[0].output)];
        }
        built.results.push_back(info);
        built.result_values.push_back(value);
    }
}

// Back edges carry a Result into a Parameter: one type and shape (the iterations share a plan).
// A mismatch throws, or with `findings` is added to them.
void check_back_edges(const SubgraphBody& body, const std::vector<OutputInfo>& parameters, const BuiltBody& built,
                      std::vector<Diagnostic>* findings) {
    for (const BackEdge& e : body.back_edges) {
        const OutputInfo& from = built.results[static_cast<size_t>(e.result)];
        const OutputInfo& to = parameters[static_cast<size_t>(e.parameter)];
        const IrLayer& r = body.document->layers[static_cast<size_t>(body.result_layers[static_cast<size_t>(e.result)])];
        const IrLayer& p = body.document->layers[static_cast<size_t>(body.parameter_layers[static_cast<size_t>(e.parameter)])];
        if (from.type != to.type || !shapes_compatible(from.shape, to.shape) ||
            (from.shape.is_static() && to.shape.is_static() && from.shape != to.shape)) {
            Error err = port_map_error(ErrorKind::ShapeRule, "back-edge-shape", e.line,
                                       cat("back edge from body Result '", r.name, "' (", to_string(from.type), " ",
                                           to_string(from.shape), ") to body Parameter '", p.name, "' (", to_string(to.type),
                                           " ", to_string(to.shape), "): the two must have one type and shape"));
            if (!findings) throw err;
            findings->push_back(Diagnostic::from_error(err));
        }
    }
}

}  // namespace

std::shared_ptr<const BuiltBody> SubgraphAttrs::build(size_t index, const std::vector<OutputInfo>& parameters,
                                                      const OpRegistry& registry,
                                                      std::vector<Diagnostic>* findings) const {
    const SubgraphBody& body = bodies[index];
    std::vector<int64_t> key = build_key(index, parameters);
    const bool all_static =
        std::all_of(parameters.begin(), parameters.end(), [](const OutputInfo& p) { return p.shape.is_static(); });
    if (!findings) {
        std::lock_guard<std::mutex> lock(cache_.mutex);
        for (const auto& entry : cache_.entries)
            if (entry.first == key) return entry.second;
    }
    BuildOptions options;
    options.keep_going = findings != nullptr;
    // A body's port dims only witness what the writer thought: OpenVINO re-infers them, and Model
    // Optimizer (2021) wrote the concatenated, outer dims on the body ports of a sliced output
    // (OpenVINO's own loop_2d_add.xml). Check reports a contradiction as a warning; run ignores it.
    options.compare_declared = findings != nullptr;
    match_parameters(body, parameters, options);
    BuildResult result;
    try {
        result = build_graph(body.document, registry, options);
    } catch (Error& e) {
        e.add_body_path(body.path);
        throw;
    }
    if (findings) add_body_findings(body, result.diagnostics, *findings);
    auto built = std::make_shared<BuiltBody>();
    built->graph = result.graph;
    if (!built->graph) throw Error(ErrorKind::Graph, "body-invalid", cat("the ", body.name, " cannot be built"));
    read_results(body, *built);
    check_back_edges(body, parameters, *built, findings);
    if (!findings && all_static) {
        try {
            std::shared_ptr<const Graph> compiled = run_compile_passes(with_body_passes(built->graph, passes), passes, registry);
            built->plan = make_execution_plan(std::move(compiled), body.document->xml_path, 1);
        } catch (Error& e) {
            e.add_body_path(body.path);
            throw;
        }
    }
    if (!findings) {
        std::lock_guard<std::mutex> lock(cache_.mutex);
        constexpr size_t kMaxBuilt = 16;  // a model fed ever new shapes keeps a bounded number
        if (cache_.entries.size() >= kMaxBuilt) cache_.entries.clear();
        cache_.entries.emplace_back(std::move(key), built);
    }
    return built;
}

std::shared_ptr<const SubgraphAttrs> SubgraphAttrs::with_passes(const CompilePasses& other) const {
    auto copy = std::make_shared<SubgraphAttrs>(*this);
    copy->passes = other;
    return copy;
}

std::shared_ptr<const Graph> with_body_passes(std::shared_ptr<const Graph> graph, const CompilePasses& passes) {
    std::shared_ptr<Graph> out;
    for (size_t i = 0; i < graph->nodes.size(); ++i) {
        const auto* attrs = dynamic_cast<const SubgraphAttrs*>(graph->nodes[i].attrs.get());
        if (!attrs || attrs->passes == passes) continue;
        if (!out) out = std::make_shared<Graph>(*graph);
        out->nodes[i].attrs = attrs->with_passes(passes);
    }
    return out ? out : graph;
}

// ---- BodyRunner ---------------------------------------------------------------------------------

struct BodyRunner::State {
    const ExecutionPlan* plan = nullptr;
    std::vector<Tensor> bound;   // per body Parameter
    std::vector<Tensor> values;  // per value of the plan
    std::vector<std::vector<const Tensor*>> step_inputs;
    std::vector<Tensor> dynamic_inputs;
    std::vector<DynamicOutputBuffer> dynamic_buffers;  // DataDependent steps' outputs, kept between iterations
    std::vector<std::unique_ptr<OpState>> op_states;  // per step: its kernel's state (a nested body's runner)
    void* arena = nullptr;
    void* scratch = nullptr;
    size_t scratch_stride = 0;
    ThreadPool* pool = nullptr;
    // Profiling (engine/profile.hpp): the row of step 0, registered under BodyProfile epoch.
    uint64_t profile_epoch = 0;
    int first_row = 0;

    ~State() {
        std::free(arena);
        std::free(scratch);
    }
    static void* allocate(size_t n) {
        if (n == 0) return nullptr;
        void* p = std::aligned_alloc(64, (n + 63) / 64 * 64);
        if (!p) throw std::bad_alloc();
        return p;
    }
    const Tensor* value_ptr(int v) const { return value_tensor(*plan, bound, values, v); }
    void run_step(size_t i);
    void run_profiled(BodyProfile& profile, const std::string& body, size_t& i);
};

// Runs step i (not a Skip).
void BodyRunner::State::run_step(size_t i) {
    const ExecutionPlan& ep = *plan;
    const ExecStep& step = ep.steps[i];
    const std::vector<const Tensor*>& ins = step_inputs[i];
    if (step.mode == ExecStep::Mode::Kernel || step.mode == ExecStep::Mode::DataDependent) {
        run_planned_step(ep, i, ins, StepMemory{values, scratch, scratch_stride, nullptr, op_states, dynamic_buffers});
        return;
    }
    const Node& node = ep.graph->nodes[static_cast<size_t>(step.node)];
    dynamic_inputs.clear();
    for (const Tensor* t : ins) dynamic_inputs.push_back(*t);
    std::vector<Tensor> made = run_node(node, dynamic_inputs, nullptr, nullptr, nullptr, ep.file, &op_states[i]);
    for (size_t o = 0; o < made.size(); ++o) {
        if (o < node.outputs.size() && !shapes_compatible(node.outputs[o].shape, PartialShape(made[o].shape())))
            throw Error(ErrorKind::ShapeRule, "shape-changed",
                        cat("output ", o, " has shape ", to_string(made[o].shape()), " at run time, but ",
                            to_string(node.outputs[o].shape), " was inferred at load time"));
        values[static_cast<size_t>(step.first_output) + o] = std::move(made[o]);
    }
}

// Runs the steps from i on, each timed into its row of `profile`; i: the step running.
void BodyRunner::State::run_profiled(BodyProfile& profile, const std::string& body, size_t& i) {
    if (profile_epoch != profile.epoch()) {
        first_row = profile.rows_of(*plan, body);
        profile_epoch = profile.epoch();
    }
    struct Leave {  // the body's key goes also when a step throws
        BodyProfile& p;
        ~Leave() { p.leave_body(); }
    };
    profile.enter_body(body);
    const Leave leave{profile};
    for (; i < plan->steps.size(); ++i) {
        profile.enter_body_step(i);
        const int row = first_row + static_cast<int>(i);
        if (plan->steps[i].mode == ExecStep::Mode::Skip) {
            profile.count_view(row);
            continue;
        }
        const BodyStepTimer timer(profile, row);
        run_step(i);
    }
}

BodyRunner::BodyRunner(const SubgraphBody& body, std::shared_ptr<const BuiltBody> built, ThreadPool* pool)
    : body_(body), built_(std::move(built)), state_(std::make_unique<State>()) {
    State& s = *state_;
    if (!built_->plan) throw Error(ErrorKind::ShapeRule, "shape-unresolved", cat("the ", body.name, " has no static shapes"));
    s.plan = built_->plan.get();
    s.pool = pool;
    const ExecutionPlan& ep = *s.plan;
    const Graph& g = *ep.graph;
    s.arena = State::allocate(ep.arena_bytes);
    s.scratch_stride = (ep.scratch_bytes + 63) / 64 * 64;
    s.scratch = State::allocate(s.scratch_stride);  // bodies run on one thread
    s.bound.resize(g.parameters.size());
    for (size_t p = 0; p < g.parameters.size(); ++p) {
        const ValueSlot& slot = ep.values[static_cast<size_t>(ep.input_values[p])];
        s.bound[p] = Tensor::uninitialized(slot.type, slot.shape);
    }
    bind_values(ep, static_cast<std::byte*>(s.arena), s.bound, s.values);
    s.step_inputs = step_input_tensors(ep, s.bound, s.values);
    s.dynamic_buffers.resize(static_cast<size_t>(ep.dynamic_buffers));
    s.op_states.resize(ep.steps.size());
}

BodyRunner::~BodyRunner() = default;

Tensor& BodyRunner::input(size_t p) { return state_->bound[p]; }

void BodyRunner::run() {
    State& s = *state_;
    const ExecutionPlan& ep = *s.plan;
    const Graph& g = *ep.graph;
    for (int v : ep.input_views) {
        const ValueSlot& slot = ep.values[static_cast<size_t>(v)];
        s.values[static_cast<size_t>(v)].view_into(*s.value_ptr(slot.base), slot.byte_offset);
    }
    size_t i = 0;
    try {
        if (BodyProfile* profile = t_body_profile) {  // profiling: one thread-local load when not
            s.run_profiled(*profile, body_.name, i);
        } else {
            for (; i < ep.steps.size(); ++i)
                if (ep.steps[i].mode != ExecStep::Mode::Skip) s.run_step(i);
        }
    } catch (Error& e) {
        if (i < ep.steps.size()) e.add_context(g.nodes[static_cast<size_t>(ep.steps[i].node)].location(ep.file));
        e.add_body_path(body_.path);
        throw;
    } catch (const std::bad_alloc&) {
        Error e(ErrorKind::Limit, "out-of-memory", "out of memory",
                g.nodes[static_cast<size_t>(ep.steps[std::min(i, ep.steps.size() - 1)].node)].location(ep.file));
        e.add_body_path(body_.path);
        throw e;
    }
}

const Tensor& BodyRunner::result(size_t r) const {
    return *state_->value_ptr(state_->plan->output_values[r]);
}

void copy_into_axis(const Tensor& src, Tensor& dst, size_t axis, int64_t offset) {
    copy_into_axis(src.bytes(), src.shape()[axis], dst, axis, offset);
}

void copy_into_axis(const std::byte* src, int64_t part, Tensor& dst, size_t axis, int64_t offset) {
    const Shape& d = dst.shape();
    int64_t outer = 1, inner = static_cast<int64_t>(element_size(dst.type()));
    for (size_t i = 0; i < axis; ++i) outer *= d[i];
    for (size_t i = axis + 1; i < d.size(); ++i) inner *= d[i];
    const int64_t whole = d[axis];
    const auto row = static_cast<size_t>(part * inner);
    for (int64_t o = 0; o < outer; ++o)
        if (row) std::memcpy(dst.bytes() + (o * whole + offset) * inner, src + o * part * inner, row);
}

void write_output(KernelContext& ctx, size_t o, const Tensor& value, bool in_place) {
    Tensor& out = in_place ? ctx.output(o) : ctx.dynamic_output(o, value.type(), value.shape());
    if (out.type() != value.type() || out.shape() != value.shape())
        throw Error(ErrorKind::ShapeRule, "kernel-output-mismatch",
                    cat("output ", o, " is ", to_string(value.type()), " ", to_string(value.shape()), ", planned as ",
                        to_string(out.type()), " ", to_string(out.shape())));
    if (value.byte_size()) std::memcpy(out.data(), value.data(), value.byte_size());
}

void copy_from_axis(const Tensor& src, Tensor& dst, size_t axis, int64_t offset) {
    const Shape& s = src.shape();
    int64_t outer = 1, inner = static_cast<int64_t>(element_size(src.type()));
    for (size_t i = 0; i < axis; ++i) outer *= s[i];
    for (size_t i = axis + 1; i < s.size(); ++i) inner *= s[i];
    const int64_t part = dst.shape()[axis], whole = s[axis];
    const auto row = static_cast<size_t>(part * inner);
    for (int64_t o = 0; o < outer; ++o)
        if (row) std::memcpy(dst.bytes() + o * part * inner, src.bytes() + (o * whole + offset) * inner, row);
}

Tensor copy_tensor(const Tensor& src) {
    Tensor out = Tensor::uninitialized(src.type(), src.shape());
    if (src.byte_size()) std::memcpy(out.data(), src.data(), src.byte_size());
    return out;
}

}  // namespace irlite
