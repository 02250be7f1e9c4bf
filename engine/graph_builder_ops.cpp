// Step 5 of build_graph (see graph_builder.cpp): a node per layer, in order, with its op resolved
// from (type, opset) and its attributes parsed; custom, unknown and not-yet-supported ops reported.
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "engine/graph.hpp"
#include "engine/graph_builder_impl.hpp"
#include "engine/opset_catalog.hpp"

namespace irlite::graph_build {

void Builder::create_nodes(const std::vector<int>& order, Graph& graph) {
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
void Builder::report_custom_op(int li, const std::optional<int>& opset) {
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

void Builder::resolve_op(int li, Node& node) {
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
void Builder::check_const_bytes(int li) {
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

// Looked up once per (type, version) pair (see TypeResolution).
const Builder::TypeResolution& Builder::resolve_type(std::string_view type, std::string_view version) {
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
void Builder::warn_not_in_openvino_opset(int li, const OpDef& def, int opset) {
    report(Severity::Warning, ErrorKind::Unsupported, "opset-not-openvino", at_layer(li),
           str("OpenVINO's opset", opset, " has no ", def.type, "-", def.version, " (OpenVINO has ",
               describe_catalog_entries(catalog_entries(def.type)), "); OpenVINO rejects this layer, ",
               "irlite accepts it as ", def.type, "-", def.version));
}

// No definition for (type, opset) in the registry: the catalog of OpenVINO's opsets tells a
// misspelt type from a type in the wrong opset and from a real op irlite cannot run yet. The
// last is only a warning in check mode: the layer keeps its declared outputs (node.def stays
// null) and checking goes on downstream.
void Builder::report_unresolved_op(int li, int opset) {
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

}  // namespace irlite::graph_build
