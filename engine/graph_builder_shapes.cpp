// Step 6 of build_graph (see graph_builder.cpp): each node's types and shapes from its op's rule,
// checked against the dims and precisions the file declares; nodes whose inputs are all known
// folded; the model's parameters, results and sinks collected.
#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/graph.hpp"
#include "engine/graph_builder_impl.hpp"
#include "engine/tensor_size.hpp"

namespace irlite::graph_build {
namespace {

// shapes_compatible for the dims a port declares.
bool declared_compatible(const IrDims& declared, const PartialShape& inferred) {
    if (!inferred.rank_known()) return true;
    if (declared.size() != inferred.rank()) return false;
    for (size_t i = 0; i < declared.size(); ++i)
        if (!dims_compatible(declared[i], inferred[i])) return false;
    return true;
}

bool any_not_storable(const std::vector<InferContext::Input>& inputs) {
    return std::any_of(inputs.begin(), inputs.end(), [](const auto& in) { return !is_storable(in.type); });
}

// The stored types that may stand in for t, of its kind and no input's type (so that they stay
// distinct from the inputs): the same signedness first.
std::vector<ElementType> stand_ins(ElementType t, const std::vector<InferContext::Input>& inputs) {
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

// Whether the rule, which rejected `inputs`, accepts them once every type irlite does not store
// is replaced by a stored type of its kind (an integer for u1 .. u6 and i4, a float for nf4 and
// the f8 types) that no input has, distinct types by distinct stand-ins, their values unknown.
// Then only the types themselves were rejected (Add on u1: Add on u8 is fine; Gather with u4
// indices: i32 indices are). MatMul of f32 and u4 stays rejected whatever stands in for u4: its
// inputs must have one type. A type with no stand-in (string, dynamic) cannot be validated at
// all: the rejection counts as the type's. A few stand-ins are tried, the likeliest first.
bool rejects_only_storage(const Node& node, std::vector<InferContext::Input> inputs) {
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

// Whether the op can hold a value of type t: a stored type, or a packed one where it accepts packed data.
bool holdable(const OpDef& def, ElementType t) { return is_storable(t) || (def.accepts_packed && is_packed(t)); }

// A packed output only comes from packed data (a Const, a view of one): irlite unpacks the packed types
// but does not pack into them.
bool output_holdable(const OpDef& def, ElementType t, const std::vector<InferContext::Input>& inputs) {
    if (is_storable(t)) return true;
    return holdable(def, t) && (inputs.empty() || std::any_of(inputs.begin(), inputs.end(), [t](const auto& in) { return in.type == t; }));
}

// Check mode: where the rule left a dim unknown (a Const value that was not loaded, an input
// whose producer could not be validated), the dim the file declares is taken, so that the
// layers downstream are still checked against it. Run mode never does this: it trusts only
// what it infers. True when a dim was taken from the declaration.
bool refine_with_declared(const IrLayer& l, std::vector<OutputInfo>& inferred) {
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

}  // namespace

// What a layer's output port declares, used where inference is impossible (check mode).
OutputInfo Builder::declared_output(const IrPort& port) const {
    OutputInfo info;
    try {
        if (!port.precision.empty()) info.type = parse_element_type(port.precision);
    } catch (const Error&) {
    }
    info.shape = PartialShape(port.dims.to_vector());
    return info;
}

void Builder::infer_all(Graph& graph) {
    from_declaration_.assign(graph.nodes.size(), 0);
    for (size_t ni = 0; ni < graph.nodes.size(); ++ni) infer_node(graph, static_cast<int>(ni));
}

void Builder::infer_node(Graph& graph, int ni) {
    Node& node = graph.nodes[ni];
    const IrLayer& l = *node.layer;
    const int li = static_cast<int>(&l - doc_.layers.data());

    // Inputs, and the edge checks (declared input dims and precision vs the producer's output).
    std::vector<InferContext::Input> inputs;
    // Check mode: an input whose shape came from what the file declares, not from inference.
    bool declared_inputs = false;
    const bool inputs_known = gather_inputs(graph, ni, li, inputs, declared_inputs);

    std::vector<OutputInfo> inferred;
    bool ok = node.def && inputs_known && infer_outputs(li, node, inputs, inferred);
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

// Node ni's inputs from its producers' outputs (types, shapes, values known at load time), its
// node.inputs set, and each edge checked when compare_declared. False when an input has no
// producer before the node (unconnected, or a producer that was not built). `declared_inputs` is
// set when a producer's output shapes come from declared dims.
bool Builder::gather_inputs(Graph& graph, int ni, int li, std::vector<InferContext::Input>& inputs,
                            bool& declared_inputs) {
    Node& node = graph.nodes[ni];
    const IrLayer& l = *node.layer;
    inputs.reserve(l.inputs.size());
    bool inputs_known = true;
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
    return inputs_known;
}

// Runs the op's shape rule on the inputs (a Parameter's shape overridden as the options say);
// false, with the error reported, when the rule rejects them or the output count differs from
// the layer's.
bool Builder::infer_outputs(int li, Node& node, std::vector<InferContext::Input>& inputs,
                            std::vector<OutputInfo>& inferred) {
    const IrLayer& l = *node.layer;
    bool ok = true;
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
    return ok;
}

void Builder::override_parameter_shape(int li, std::vector<OutputInfo>& inferred) const {
    for (const auto& [layer, shape] : options_.parameter_shapes)
        if (layer == li && !inferred.empty()) inferred[0].shape = PartialShape(shape);
}

// A rule that rejects a node with inputs of a type irlite does not store (u1, u4, string, ...)
// may be rejecting nothing but that type, which OpenVINO defines the op on: a limit of irlite,
// not a fault of the file. Check then warns and goes on with the declared outputs; run refuses
// the model with the same code (unsupported-element-type). Any other rejection, such as
// MatMul's inputs of two types (f32 and u4), is the rule's error, in check as in run.
void Builder::report_rule_error(int li, const Node& node, const Error& e,
                                const std::vector<InferContext::Input>& inputs) {
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

// Every output the rule inferred with a static shape must be a tensor that can exist: its
// bytes fit in 64 bits and within max_tensor_bytes() (OneHot with depth 2^40, DetectionOutput
// with keep_top_k 2^40). The same check as the execution plan's and Tensor's, here so that
// check reports it and compile refuses it before anything is folded or planned. Parameters
// (the caller's memory) and Results (their producer's output) are not sized here.
bool Builder::outputs_fit(int li, const OpDef& def, const std::vector<OutputInfo>& outputs) {
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
void Builder::prepare_as_compile_does(int li, const Node& node, const std::vector<InferContext::Input>& inputs) {
    const OpDef& def = *node.def;
    // A data-dependent op (NonZero) prepares with its output dims still unknown, as in the plan.
    if (!def.prepare || def.role != OpRole::Compute || (!node.shapes_static && !def.data_dependent_outputs)) return;
    for (size_t i = 0; i < inputs.size(); ++i) {
        if (!inputs[i].shape.is_static() || (def.needs_value_to_prepare(i) && !inputs[i].value)) return;
    }
    try {
        InferContext ctx(def, *node.attrs, inputs, static_cast<int>(node.outputs.size()));
        // A prepare that builds sub-graphs (TensorIterator) sees check mode here: the shape rule
        // has checked them already, finding by finding, so it need not report them again.
        std::vector<Diagnostic> checked_by_the_rule;
        ctx.set_findings(&checked_by_the_rule);
        def.prepare(ctx);
    } catch (const Error& e) {
        report_error(e, at_layer(li));  // as the plan reports it, packed inputs or not
    }
}

// irlite stores f16 .. boolean only. A node whose inputs or outputs have another type (valid
// IR: u1, u4, string, ...) cannot run: run refuses it when the model is compiled, not in the
// middle of a run, and check warns (unsupported-element-type) and goes on, as for an op irlite
// cannot run.
bool Builder::check_storable(int li, const OpDef& def, const std::vector<InferContext::Input>& inputs,
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
void Builder::check_edge(int li, int pos, const Node& producer, int out_pos, const OutputInfo& out) {
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
void Builder::check_precision(int li, int pos, bool output, ElementType actual, const char* against, Severity severity) {
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

void Builder::check_declared_outputs(int li, const std::vector<OutputInfo>& inferred) {
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
bool Builder::fold(Graph& graph, Node& node, const std::vector<InferContext::Input>& inputs) {
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

void Builder::collect_boundaries(Graph& graph) {
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

}  // namespace irlite::graph_build
