#include "engine/precision.hpp"

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace irlite {
namespace {

bool is_half(ElementType t) { return t == ElementType::f16 || t == ElementType::bf16; }

// Types whose every value an f16 and a bf16 hold exactly: converting one of them to a 16-bit float
// and then to f32 gives what converting it straight to f32 gives.
bool exact_in_half(ElementType t) {
    switch (t) {
        case ElementType::boolean: case ElementType::u1: case ElementType::u4: case ElementType::i4:
        case ElementType::u8: case ElementType::i8: case ElementType::f16: case ElementType::bf16:
            return true;
        default:
            return false;
    }
}

// An f16/bf16 tensor as f32 (exact).
Tensor widened(const Tensor& t) {
    Tensor out = Tensor::uninitialized(ElementType::f32, t.shape());
    const auto* in = static_cast<const uint16_t*>(t.data());
    float* o = out.data<float>();
    const int64_t n = t.num_elements();
    if (t.type() == ElementType::f16) {
        for (int64_t i = 0; i < n; ++i) o[i] = f16_to_f32(in[i]);
    } else {
        for (int64_t i = 0; i < n; ++i) o[i] = bf16_to_f32(in[i]);
    }
    return out;
}

// A layer the pass makes: a Convert named after the value it converts. The IrLayer's texts view
// `name` and string literals.
struct AddedLayer {
    std::string name;
    IrLayer layer;
};

class PrecisionPass {
public:
    PrecisionPass(const Graph& in, const OpDef& convert) : in_(in), convert_(convert) {}

    std::shared_ptr<const Graph> run() {
        out_ = std::make_shared<Graph>();
        out_->document = in_.document;
        out_->added_layers = in_.added_layers;
        out_->nodes.reserve(in_.nodes.size() + 8);
        placed_.assign(in_.nodes.size(), -1);
        forms_.assign(in_.nodes.size(), {});
        for (size_t ni = 0; ni < in_.nodes.size(); ++ni) place(static_cast<int>(ni));
        const auto remap = [this](const std::vector<int>& from, std::vector<int>& to) {
            for (int ni : from) to.push_back(placed_[static_cast<size_t>(ni)]);
        };
        remap(in_.parameters, out_->parameters);
        remap(in_.results, out_->results);
        remap(in_.sinks, out_->sinks);
        return out_;
    }

private:
    // Where an original value's two forms are in the new graph (node -1: not made yet).
    struct Forms {
        ValueRef f32{-1, 0};       // as f32 (the value itself when it is not f16/bf16)
        ValueRef declared{-1, 0};  // in the type the file gave it
    };

    const Node& original(const ValueRef& r) const { return in_.nodes[static_cast<size_t>(r.node)]; }
    ElementType original_type(const ValueRef& r) const { return original(r).outputs[static_cast<size_t>(r.output)].type; }
    ValueRef placed(const ValueRef& r) const { return {placed_[static_cast<size_t>(r.node)], r.output}; }
    const OutputInfo& placed_info(const ValueRef& r) const {
        const ValueRef p = placed(r);
        return out_->nodes[static_cast<size_t>(p.node)].outputs[static_cast<size_t>(p.output)];
    }
    Forms& forms(const ValueRef& r) { return forms_[static_cast<size_t>(r.node)][static_cast<size_t>(r.output)]; }

    // The value in f32 when it is an f16/bf16 one, as it is otherwise.
    ValueRef f32_form(const ValueRef& r) {
        if (!is_half(placed_info(r).type)) return placed(r);
        Forms& f = forms(r);
        if (f.f32.node < 0) f.f32 = add_convert(r, ElementType::f32);
        return f.f32;
    }
    // The value in the type the file gave it.
    ValueRef declared_form(const ValueRef& r) {
        const ElementType declared = original_type(r);
        if (placed_info(r).type == declared) return placed(r);
        Forms& f = forms(r);
        if (f.declared.node < 0) f.declared = add_convert(r, declared);
        return f.declared;
    }

    std::shared_ptr<const OpAttrs> convert_attrs(ElementType to) {
        std::shared_ptr<const OpAttrs>& a = convert_attrs_[static_cast<size_t>(to)];
        if (!a) {
            IrLayer l;
            l.type = "Convert";
            l.attributes = {{"destination_type", to_string(to)}};
            a = convert_.parse_attrs(AttrReader(l, nullptr));
        }
        return a;
    }

    // A Convert of original value r (as placed) to `to`, placed before the node being placed.
    ValueRef add_convert(const ValueRef& r, ElementType to) {
        const Node& src = original(r);
        const IrLayer& src_layer = *src.layer;
        auto added = std::make_shared<AddedLayer>();
        added->name = str(src_layer.name, src_layer.outputs.size() > 1 ? str(".", r.output) : std::string(), "/to_",
                          to_string(to));
        IrLayer& l = added->layer;
        l.name = added->name;
        l.type = "Convert";
        l.version = "opset1";
        l.attributes = {{"destination_type", to_string(to)}};
        l.line = l.data_line = src_layer.line;
        l.inputs.resize(1);
        l.outputs.resize(1);
        if (static_cast<size_t>(r.output) < src_layer.outputs.size())
            l.inputs[0].dims = l.outputs[0].dims = src_layer.outputs[static_cast<size_t>(r.output)].dims;
        out_->added_layers.push_back(std::shared_ptr<const IrLayer>(added, &added->layer));

        const ValueRef from = placed(r);
        const Node& from_node = out_->nodes[static_cast<size_t>(from.node)];
        Node n;
        n.layer = &added->layer;
        n.def = &convert_;
        n.attrs = convert_attrs(to);
        n.inputs = {from};
        n.outputs = {{to, placed_info(r).shape}};
        n.shapes_static = n.outputs[0].shape.is_static();
        n.live = true;
        if (from_node.is_constant()) {
            n.constants = run_node(n, {from_node.constants[static_cast<size_t>(from.output)]}, &n.outputs, nullptr,
                                   nullptr, in_.document->xml_path);
        }
        out_->nodes.push_back(std::move(n));
        return {static_cast<int>(out_->nodes.size()) - 1, 0};
    }

    // An op that turns f16 values into no float at all (Convert to an integer, a comparison, NMS's
    // indices): its result is decided by the f16 values, so it reads them as the file has them.
    bool decides_on_half(const Node& n) const {
        bool reads_half = false;
        for (size_t i = 0; i < n.inputs.size(); ++i)
            if (n.inputs[i].node >= 0 && !n.def->reads_only_shape(i) && is_half(original_type(n.inputs[i])))
                reads_half = true;
        const bool makes_float = std::any_of(n.outputs.begin(), n.outputs.end(), [](const OutputInfo& o) { return is_float(o.type); });
        return reads_half && !makes_float;
    }

    // The node's output types with its f16/bf16 inputs taken as f32; nullopt when its rule refuses
    // them.
    std::optional<std::vector<ElementType>> types_in_f32(const Node& n) const {
        std::vector<InferContext::Input> inputs;
        for (const ValueRef& r : n.inputs) {
            if (r.node < 0) return std::nullopt;
            const Node& p = out_->nodes[static_cast<size_t>(placed(r).node)];
            const OutputInfo& info = placed_info(r);
            const Tensor* value = p.is_constant() ? &p.constants[static_cast<size_t>(r.output)] : nullptr;
            inputs.push_back({is_half(info.type) ? ElementType::f32 : info.type, info.shape, value && value->valid() ? value : nullptr});
        }
        try {
            InferContext ctx(*n.def, *n.attrs, std::move(inputs), static_cast<int>(n.layer->outputs.size()));
            const std::vector<OutputInfo> infos = n.def->infer(ctx);
            if (infos.size() != n.outputs.size()) return std::nullopt;
            std::vector<ElementType> types;
            for (const OutputInfo& o : infos) types.push_back(o.type);
            return types;
        } catch (const Error&) {
            return std::nullopt;
        }
    }

    void place(int ni) {
        const Node& n = in_.nodes[static_cast<size_t>(ni)];
        Node node = n;
        forms_[static_cast<size_t>(ni)].assign(n.outputs.size(), Forms{});
        if (!n.live || !n.def) {
            for (ValueRef& r : node.inputs)
                if (r.node >= 0) r = placed(r);
        } else if (n.is_constant()) {
            // Folded: its inputs are not read again. Its f16 values become f32 once.
            for (ValueRef& r : node.inputs)
                if (r.node >= 0) r = placed(r);
            for (size_t o = 0; o < node.outputs.size(); ++o) {
                if (!is_half(node.outputs[o].type) || !node.constants[o].valid()) continue;
                node.constants[o] = widened(node.constants[o]);
                node.outputs[o].type = ElementType::f32;
            }
        } else {
            place_computing(n, node);
        }
        out_->nodes.push_back(std::move(node));
        placed_[static_cast<size_t>(ni)] = static_cast<int>(out_->nodes.size()) - 1;
    }

    void place_computing(const Node& n, Node& node) {
        const bool keeps_declared = n.def->role != OpRole::Compute || !n.def->foldable || decides_on_half(n);
        std::optional<std::vector<ElementType>> types;
        if (!keeps_declared) types = types_in_f32(n);
        if (!types) {
            // In the declared types, between conversions.
            for (size_t i = 0; i < node.inputs.size(); ++i) {
                ValueRef& r = node.inputs[i];
                if (r.node < 0) continue;
                const bool shape_only = n.def->reads_only_shape(i);
                r = !shape_only && is_half(original_type(r)) ? declared_form(r) : placed(r);
            }
            return;
        }
        for (size_t i = 0; i < node.inputs.size(); ++i) {
            ValueRef& r = node.inputs[i];
            r = n.def->reads_only_shape(i) ? placed(r) : f32_form(r);
        }
        for (size_t o = 0; o < node.outputs.size(); ++o) node.outputs[o].type = (*types)[o];
        // A Convert to f16/bf16 of a value that type holds exactly (compressed u4/i8 weights, as
        // FP16 IR decompresses them) converts straight to f32: the same values, one pass less.
        const ValueRef in = node.inputs.empty() ? ValueRef{} : node.inputs[0];
        if (n.def == &convert_ && in.node >= 0 && is_half(node.outputs[0].type) &&
            exact_in_half(out_->nodes[static_cast<size_t>(in.node)].outputs[static_cast<size_t>(in.output)].type)) {
            node.attrs = convert_attrs(ElementType::f32);
            node.outputs[0].type = ElementType::f32;
        }
    }

    const Graph& in_;
    const OpDef& convert_;
    std::shared_ptr<Graph> out_;
    std::vector<int> placed_;               // per original node: its index in out_
    std::vector<std::vector<Forms>> forms_;  // per original node, per output
    std::shared_ptr<const OpAttrs> convert_attrs_[kNumElementTypes];
};

}  // namespace

bool has_half_values(const Graph& graph) {
    for (const Node& n : graph.nodes) {
        if (!n.live) continue;
        for (const OutputInfo& o : n.outputs)
            if (is_half(o.type)) return true;
    }
    return false;
}

std::shared_ptr<const Graph> compute_in_f32(std::shared_ptr<const Graph> graph, const OpRegistry& registry) {
    const OpDef* convert = registry.find("Convert", 1);
    if (!graph || !convert || !has_half_values(*graph)) return graph;
    for (const Node& n : graph->nodes)
        if (n.live && !n.def) return graph;  // a graph that cannot run (check mode): nothing to do
    return PrecisionPass(*graph, *convert).run();
}

std::string_view node_precision(const Graph& graph, const Node& node) {
    for (const OutputInfo& o : node.outputs)
        if (is_float(o.type)) return to_string(o.type);
    for (const ValueRef& r : node.inputs) {
        if (r.node < 0) continue;
        const ElementType t = graph.nodes[static_cast<size_t>(r.node)].outputs[static_cast<size_t>(r.output)].type;
        if (is_float(t)) return to_string(t);
    }
    return "-";
}

bool layer_is_added(const Graph& graph, const IrLayer* layer) {
    const std::vector<IrLayer>& layers = graph.document->layers;
    const std::less<const IrLayer*> before;
    return !layer || before(layer, layers.data()) || !before(layer, layers.data() + layers.size());
}

bool node_is_added(const Graph& graph, const Node& node) { return layer_is_added(graph, node.layer); }

}  // namespace irlite
