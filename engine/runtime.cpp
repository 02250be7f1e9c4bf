// Model, CompiledModel and InferRequest: the public API over the graph builder and the executor.
//
// Execution: nodes run in topological order. Constants (and everything folded at load time) live
// in the graph and are shared by every request; every other value is released as soon as its last
// consumer has run, so peak memory follows the live set, not the whole graph.
#include <algorithm>
#include <unordered_map>

#include "engine/graph.hpp"
#include "engine/irlite.hpp"
#include "parser/ir_reader.hpp"
#include "parser/weights.hpp"

namespace irlite {

// ---- Model -----------------------------------------------------------------------------------

Model Model::read(const std::string& xml_path, const std::string& bin_path) {
    return Model(std::make_shared<const IrDocument>(read_ir_file(xml_path, bin_path)));
}

Model Model::read_from_memory(std::string_view xml, const void* weights, size_t weights_size,
                              std::shared_ptr<const void> weights_owner) {
    std::shared_ptr<WeightsBlob> blob;
    if (weights && weights_owner) {
        blob = weights_from_memory(weights, weights_size, std::move(weights_owner));  // zero-copy
    } else if (weights) {
        // Without an owner nothing guarantees the bytes outlive the model: keep a copy.
        const auto* bytes = static_cast<const std::byte*>(weights);
        blob = weights_from_memory(std::vector<std::byte>(bytes, bytes + weights_size));
    }
    return Model(std::make_shared<const IrDocument>(read_ir_memory(xml, std::move(blob))));
}

// ---- CompiledModel ---------------------------------------------------------------------------

struct CompiledModel::Impl {
    std::shared_ptr<const Graph> graph;
    std::vector<PortInfo> inputs, outputs;
    std::vector<int> steps;                                   // node indices to run, in order
    std::vector<std::vector<ValueRef>> release_after;        // per step
    // Per step: run the shape rule again at run time. Output shapes that were static at load time
    // can be reused only when every input shape was static then too; a static output computed from
    // a dynamic input ([0] + [?] -> [0]) must be checked again against the real input.
    std::vector<bool> infer_at_run_time;
    std::unordered_map<int, size_t> parameter_slot;           // node index -> input position
    std::unordered_map<int, size_t> result_slot;              // node index -> output position
    std::string file;

    int find_input(const std::string& name) const {
        for (size_t i = 0; i < inputs.size(); ++i) {
            if (inputs[i].name == name) return static_cast<int>(i);
            for (const auto& n : inputs[i].names)
                if (n == name) return static_cast<int>(i);
        }
        return -1;
    }
    std::string describe_inputs() const {
        std::string s;
        for (const auto& p : inputs)
            s += str(s.empty() ? "" : ", ", "'", p.name, "' ", to_string(p.type), " ", to_string(p.shape));
        return s.empty() ? "none" : s;
    }
};

namespace {

std::string output_name(const Graph& g, const Node& result) {
    const ValueRef src = result.inputs.empty() ? ValueRef{} : result.inputs[0];
    if (src.node < 0) return result.layer->name;
    const IrLayer& producer = *g.nodes[src.node].layer;
    const IrPort& port = producer.outputs[src.output];
    if (!port.names.empty()) return port.names.front();
    // IR v10 has no tensor names: OpenVINO names the output after the producing layer, with
    // ".<port>" when that layer has several outputs.
    if (g.document->ir_version == 10)
        return producer.outputs.size() > 1 ? str(producer.name, ".", src.output) : producer.name;
    return result.layer->name;
}

void plan(CompiledModel::Impl& impl) {
    const Graph& g = *impl.graph;
    for (size_t ni = 0; ni < g.nodes.size(); ++ni) {
        const Node& n = g.nodes[ni];
        if (n.live && !n.is_constant()) impl.steps.push_back(static_cast<int>(ni));
    }
    // Last step that reads each non-constant value.
    std::unordered_map<uint64_t, size_t> last_use;
    // node and output are ints: 32 bits each, so that no output count can make two keys collide.
    auto key = [](ValueRef v) { return (static_cast<uint64_t>(v.node) << 32) | static_cast<uint32_t>(v.output); };
    for (size_t s = 0; s < impl.steps.size(); ++s)
        for (const ValueRef& v : g.nodes[impl.steps[s]].inputs)
            if (!g.nodes[v.node].is_constant()) last_use[key(v)] = s;
    impl.infer_at_run_time.resize(impl.steps.size());
    for (size_t s = 0; s < impl.steps.size(); ++s) {
        const Node& n = g.nodes[impl.steps[s]];
        bool inputs_static = true;
        for (const ValueRef& v : n.inputs) inputs_static = inputs_static && g.nodes[v.node].outputs[v.output].shape.is_static();
        impl.infer_at_run_time[s] = !n.shapes_static || !inputs_static;
    }
    impl.release_after.resize(impl.steps.size());
    // Outputs nobody reads (a VariadicSplit part no one uses) go right after they are made.
    for (size_t s = 0; s < impl.steps.size(); ++s)
        for (size_t o = 0; o < g.nodes[impl.steps[s]].outputs.size(); ++o) {
            const ValueRef v{impl.steps[s], static_cast<int>(o)};
            if (!last_use.count(key(v))) impl.release_after[s].push_back(v);
        }
    for (size_t s = 0; s < impl.steps.size(); ++s)
        for (const ValueRef& v : g.nodes[impl.steps[s]].inputs)
            if (!g.nodes[v.node].is_constant() && last_use[key(v)] == s) {
                auto& list = impl.release_after[s];
                if (std::find(list.begin(), list.end(), v) == list.end()) list.push_back(v);
            }
}

// Consumers whose shapes were settled at load time rely on their inputs having those shapes: a
// run-time shape that contradicts a load-time one is an error, never a surprise for a kernel.
void check_against_load_time(const Node& node, const std::vector<Tensor>& values, const std::string& file) {
    for (size_t o = 0; o < values.size() && o < node.outputs.size(); ++o) {
        if (!values[o].valid() || shapes_compatible(node.outputs[o].shape, PartialShape(values[o].shape()))) continue;
        Location where = node.location(file);
        where.port = static_cast<int>(o);
        where.port_is_output = true;
        throw Error(ErrorKind::ShapeRule, "shape-changed",
                    str("output ", o, " has shape ", to_string(values[o].shape()), " at run time, but ",
                        to_string(node.outputs[o].shape), " was inferred at load time"),
                    where);
    }
}

}  // namespace

CompiledModel::CompiledModel(const Model& model) {
    auto impl = std::make_shared<Impl>();
    impl->file = model.document().xml_path;
    impl->graph = build_graph(model.document_ptr(), OpRegistry::builtin()).graph;
    const Graph& g = *impl->graph;
    for (int ni : g.parameters) {
        const Node& n = g.nodes[ni];
        PortInfo p;
        p.name = n.layer->name;
        if (!n.layer->outputs.empty()) p.names = n.layer->outputs[0].names;
        p.type = n.outputs[0].type;
        p.shape = n.outputs[0].shape;
        impl->parameter_slot[ni] = impl->inputs.size();
        impl->inputs.push_back(std::move(p));
    }
    for (int ni : g.results) {
        const Node& n = g.nodes[ni];
        PortInfo p;
        p.name = output_name(g, n);
        const ValueRef src = n.inputs[0];
        const Node& producer = g.nodes[src.node];
        p.names = producer.layer->outputs[src.output].names;
        p.type = producer.outputs[src.output].type;
        p.shape = producer.outputs[src.output].shape;
        impl->result_slot[ni] = impl->outputs.size();
        impl->outputs.push_back(std::move(p));
    }
    plan(*impl);
    impl_ = std::move(impl);
}

const std::vector<PortInfo>& CompiledModel::inputs() const { return impl_->inputs; }
const std::vector<PortInfo>& CompiledModel::outputs() const { return impl_->outputs; }
InferRequest CompiledModel::create_infer_request() const { return InferRequest(impl_); }

// ---- InferRequest ----------------------------------------------------------------------------

struct InferRequest::State {
    std::vector<Tensor> bound;    // per model input
    std::vector<Tensor> results;  // per model output
    std::vector<std::vector<Tensor>> values;  // per node, per output
    VariableStore variables;
};

InferRequest::InferRequest(std::shared_ptr<const CompiledModel::Impl> model)
    : model_(std::move(model)), state_(std::make_shared<State>()) {
    state_->bound.resize(model_->inputs.size());
    state_->results.resize(model_->outputs.size());
    const Graph& g = *model_->graph;
    state_->values.resize(g.nodes.size());
    for (size_t ni = 0; ni < g.nodes.size(); ++ni)
        if (g.nodes[ni].is_constant()) state_->values[ni] = g.nodes[ni].constants;
}

void InferRequest::set_input(const std::string& name, const Tensor& tensor) {
    const int i = model_->find_input(name);
    if (i < 0)
        throw Error(ErrorKind::Input, "input-unknown",
                    str("the model has no input named '", name, "'; its inputs are ", model_->describe_inputs()));
    state_->bound[static_cast<size_t>(i)] = tensor;
}

void InferRequest::set_input(size_t index, const Tensor& tensor) {
    if (index >= state_->bound.size())
        throw Error(ErrorKind::Input, "input-unknown",
                    str("input index ", index, " is out of range: the model has ", state_->bound.size(), " inputs"));
    state_->bound[index] = tensor;
}

void InferRequest::infer() {
    const CompiledModel::Impl& m = *model_;
    const Graph& g = *m.graph;
    State& s = *state_;
    for (size_t i = 0; i < s.bound.size(); ++i)
        if (!s.bound[i].valid())
            throw Error(ErrorKind::Input, "input-missing",
                        str("input '", m.inputs[i].name, "' is not set; the model expects ", m.describe_inputs()));
    std::vector<Tensor> inputs;
    for (size_t step = 0; step < m.steps.size(); ++step) {
        const int ni = m.steps[step];
        const Node& node = g.nodes[ni];
        inputs.clear();
        for (const ValueRef& v : node.inputs) inputs.push_back(s.values[v.node][v.output]);
        const Tensor* bound = nullptr;
        if (node.def->role == OpRole::Parameter) bound = &s.bound[m.parameter_slot.at(ni)];
        s.values[ni] = run_node(node, inputs, m.infer_at_run_time[step] ? nullptr : &node.outputs, &s.variables, bound, m.file);
        if (m.infer_at_run_time[step]) check_against_load_time(node, s.values[ni], m.file);
        if (node.def->role == OpRole::Result) s.results[m.result_slot.at(ni)] = inputs[0];
        for (const ValueRef& v : m.release_after[step]) s.values[v.node][v.output] = Tensor();
    }
}

const Tensor& InferRequest::output(size_t index) const {
    if (index >= state_->results.size())
        throw Error(ErrorKind::Usage, "output-unknown",
                    str("output index ", index, " is out of range: the model has ", state_->results.size(), " outputs"));
    return state_->results[index];
}

const Tensor& InferRequest::output(const std::string& name) const {
    const auto& outs = model_->outputs;
    for (size_t i = 0; i < outs.size(); ++i) {
        if (outs[i].name == name) return state_->results[i];
        for (const auto& n : outs[i].names)
            if (n == name) return state_->results[i];
    }
    std::string list;
    for (const auto& o : outs) list += (list.empty() ? "'" : ", '") + o.name + "'";
    throw Error(ErrorKind::Usage, "output-unknown", str("the model has no output named '", name, "'; its outputs are ", list));
}

size_t InferRequest::num_outputs() const { return state_->results.size(); }

void InferRequest::reset_state() { state_->variables.reset(); }

}  // namespace irlite
