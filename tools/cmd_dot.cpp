// irlite dot: the model as a Graphviz DOT graph. A node per layer (name, Type-opsetN), edges
// labelled with element type and dims, Const nodes small, layers with findings from `irlite check`
// drawn red with the findings as tooltip; sub-graph bodies as (nested) clusters.
#include <fstream>
#include <iostream>
#include <map>
#include <unordered_map>

#include "engine/op.hpp"
#include "tools/shape_overrides.hpp"
#include "tools/cli.hpp"
#include "tools/command_line.hpp"

namespace irlite::cli {
namespace {

const char* kDotHelp =
    "usage: irlite dot MODEL.xml [-w MODEL.bin] [-o FILE.dot]\n"
    "\n"
    "Writes the model as a Graphviz DOT graph (to FILE.dot, or to standard output): one node per\n"
    "layer labelled with its name and Type-opsetN, edges labelled with the element type and dims\n"
    "flowing along them (inferred, or declared where inference is impossible), Const layers small.\n"
    "Layers (and edges) with findings from 'irlite check' are red; hover them to read the findings.\n"
    "The bodies of TensorIterator, Loop and If are drawn as clusters beside their layer.\n"
    "Render with e.g. 'dot -Tsvg model.dot -o model.svg'.\n"
    "\n"
    "  -w, --weights FILE   the weights (.bin); default: MODEL.xml with the extension .bin\n"
    "  -o, --output FILE    where to write the graph\n";

// A DOT double-quoted string: quotes and backslashes escaped, line breaks as DOT's \n.
std::string dot_quoted(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\', out += c;
        else if (c == '\n') out += "\\n";
        else if (c == '\r') continue;
        else out += c;
    }
    return out + "\"";
}

// A port as the file declares it (where no inferred type and shape exist), in the spelling of the
// inferred ones: "f32 [4,?]", not "FP32 [4,-1]".
std::string port_label(std::string_view precision, const IrDims& dims) {
    std::string s = precision.empty() ? std::string("?") : std::string(precision);
    try {
        if (!precision.empty()) s = to_string(parse_element_type(precision));
    } catch (const Error&) {
        // an unparsable precision is shown as written (check reports it)
    }
    s += " [";
    for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + (dims[i] < 0 ? std::string("?") : std::to_string(dims[i]));
    return s + "]";
}

int find_port(const std::vector<IrPort>& ports, const IrId& id) {
    for (size_t i = 0; i < ports.size(); ++i)
        if (id && ports[i].id == id) return static_cast<int>(i);
    return -1;
}

// A body (TensorIterator, Loop, If) as a cluster: its layers and edges with their declared ports,
// layers with findings (matched by body path and layer id) red, nested bodies as nested clusters,
// and a dotted line from the layer that owns it. `id` names its DOT nodes (B<id>_<layer index>).
void draw_body(const IrBody& body, const std::string& id, const std::string& path, const std::string& owner,
               const CheckReport& report, std::string& out) {
    const IrDocument& doc = *body.document;
    out += "  subgraph cluster_" + id + " {\n    label=" + dot_quoted(path) +
           ";\n    style=\"dashed,rounded\";\n    color=\"#888888\";\n    fontsize=9;\n";
    std::unordered_map<uint64_t, size_t> layer_of_id;
    for (size_t i = 0; i < doc.layers.size(); ++i) {
        const IrLayer& l = doc.layers[i];
        if (l.id) layer_of_id.emplace(*l.id, i);
        std::string findings;
        for (const Diagnostic& d : report.findings)
            if (d.where.body_path == path && d.where.layer_id && d.where.layer_id == l.id)
                findings += str(findings.empty() ? "" : "\n", to_string(d.severity), " [", d.code, "]: ", d.message);
        const std::string type = canonical_op_type(l.type);
        std::string attrs = "label=" + dot_quoted(str(l.name, "\n", l.type, "-", l.version.empty() ? std::string_view("?") : l.version));
        if (type == "const") attrs += ", fontsize=7, height=0.2, width=0.3, fillcolor=\"#eeeeee\"";
        else if (type == "parameter") attrs += ", shape=invhouse, style=filled, fillcolor=\"#dbeafe\"";
        else if (type == "result") attrs += ", shape=house, style=filled, fillcolor=\"#dcfce7\"";
        attrs += findings.empty() ? ", tooltip=" + dot_quoted(str(l.type, " id=", l.id_text, " (line ", l.line, ")"))
                                  : ", color=red, fontcolor=red, penwidth=2, tooltip=" + dot_quoted(findings);
        out += "    B" + id + "_" + std::to_string(i) + " [" + attrs + "];\n";
    }
    for (const IrEdge& e : doc.edges) {
        if (!e.from_layer || !e.to_layer) continue;
        const auto src = layer_of_id.find(*e.from_layer), dst = layer_of_id.find(*e.to_layer);
        if (src == layer_of_id.end() || dst == layer_of_id.end()) continue;
        const IrLayer& from = doc.layers[src->second];
        const int pos = find_port(from.outputs, e.from_port);
        const std::string label = pos < 0 ? "?" : port_label(from.outputs[static_cast<size_t>(pos)].precision,
                                                             from.outputs[static_cast<size_t>(pos)].dims);
        out += "    B" + id + "_" + std::to_string(src->second) + " -> B" + id + "_" + std::to_string(dst->second) +
               " [label=" + dot_quoted(label) + "];\n";
    }
    for (size_t i = 0; i < doc.layers.size(); ++i)
        for (size_t b = 0; b < doc.layers[i].bodies.size(); ++b) {
            const IrBody& inner = doc.layers[i].bodies[b];
            draw_body(inner, id + "_" + std::to_string(i) + "_" + std::to_string(b),
                      str(path, " > layer '", doc.layers[i].name, "' > ", inner.name), "B" + id + "_" + std::to_string(i),
                      report, out);
        }
    out += "  }\n";
    if (!doc.layers.empty())
        out += "  " + owner + " -> B" + id + "_0 [style=dotted, arrowhead=none, lhead=cluster_" + id + "];\n";
}

std::string to_dot(const CheckReport& report) {
    const IrDocument& doc = *report.document;
    // Findings per layer, and per (layer, input port id) for the edge that enters that port.
    std::map<int, std::string> layer_findings;
    std::map<std::pair<int, int>, std::string> port_findings;
    for (const Diagnostic& d : report.findings) {
        const int li = finding_layer_index(doc, d);
        if (li < 0) continue;
        const std::string line = str(to_string(d.severity), " [", d.code, "]",
                                     d.where.port >= 0 ? str(" port ", d.where.port) : "", ": ", d.message);
        std::string& text = layer_findings[li];
        text += (text.empty() ? "" : "\n") + line;
        if (d.where.port >= 0 && !d.where.port_is_output) {
            std::string& p = port_findings[{li, d.where.port}];
            p += (p.empty() ? "" : "\n") + line;
        }
    }
    // Inferred outputs, where the graph has a node for the layer.
    std::unordered_map<const IrLayer*, const Node*> node_of;
    if (report.graph)
        for (const Node& n : report.graph->nodes) node_of[n.layer] = &n;
    std::unordered_map<uint64_t, int> layer_of_id;  // the first layer with each id, as edges resolve
    for (size_t li = 0; li < doc.layers.size(); ++li)
        if (doc.layers[li].id) layer_of_id.emplace(*doc.layers[li].id, static_cast<int>(li));

    std::string out = "digraph " + dot_quoted(doc.name.empty() ? std::string("model") : doc.name) + " {\n";
    out += "  graph [rankdir=TB, compound=true, fontname=\"Helvetica\", tooltip=" + dot_quoted(report.file) + "];\n";
    out += "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#ffffff\", fontname=\"Helvetica\", fontsize=10];\n";
    out += "  edge [fontname=\"Helvetica\", fontsize=8, color=\"#555555\"];\n";
    for (size_t i = 0; i < doc.layers.size(); ++i) {
        const IrLayer& l = doc.layers[i];
        const std::string type = canonical_op_type(l.type);
        std::string attrs = "label=" + dot_quoted(str(l.name, "\n", l.type, "-", l.version.empty() ? std::string_view("?") : l.version));
        if (type == "const") {
            attrs += ", fontsize=7, height=0.2, width=0.3, margin=\"0.04,0.02\", fillcolor=\"#eeeeee\"";
        } else if (type == "parameter") {
            attrs += ", shape=invhouse, style=filled, fillcolor=\"#dbeafe\"";
        } else if (type == "result") {
            attrs += ", shape=house, style=filled, fillcolor=\"#dcfce7\"";
        }
        const auto f = layer_findings.find(static_cast<int>(i));
        if (f != layer_findings.end()) {
            attrs += ", color=red, fontcolor=red, penwidth=2, tooltip=" + dot_quoted(f->second);
        } else {
            attrs += ", tooltip=" + dot_quoted(str(l.type, " id=", l.id_text, " (line ", l.line, ")"));
        }
        out += "  L" + std::to_string(i) + " [" + attrs + "];\n";
    }
    for (const IrEdge& e : doc.edges) {
        if (!e.from_layer || !e.to_layer || !e.to_port) continue;  // a finding of its own
        const auto src = layer_of_id.find(*e.from_layer), dst = layer_of_id.find(*e.to_layer);
        if (src == layer_of_id.end() || dst == layer_of_id.end()) continue;  // a finding of its own
        const IrLayer& from = doc.layers[static_cast<size_t>(src->second)];
        const int out_pos = find_port(from.outputs, e.from_port);
        std::string label = "?";
        if (out_pos >= 0) {
            const auto n = node_of.find(&from);
            if (n != node_of.end() && static_cast<size_t>(out_pos) < n->second->outputs.size()) {
                const OutputInfo& o = n->second->outputs[static_cast<size_t>(out_pos)];
                label = str(to_string(o.type), " ", to_string(o.shape));
            } else {
                label = port_label(from.outputs[static_cast<size_t>(out_pos)].precision,
                                   from.outputs[static_cast<size_t>(out_pos)].dims);
            }
        }
        std::string attrs = "label=" + dot_quoted(label);
        const auto pf = port_findings.find({dst->second, static_cast<int>(*e.to_port)});
        if (pf != port_findings.end()) attrs += ", color=red, fontcolor=red, penwidth=2, tooltip=" + dot_quoted(pf->second);
        out += "  L" + std::to_string(src->second) + " -> L" + std::to_string(dst->second) + " [" + attrs + "];\n";
    }
    for (size_t i = 0; i < doc.layers.size(); ++i)
        for (size_t b = 0; b < doc.layers[i].bodies.size(); ++b) {
            const IrBody& body = doc.layers[i].bodies[b];
            draw_body(body, std::to_string(i) + "_" + std::to_string(b), str("layer '", doc.layers[i].name, "' > ", body.name),
                      "L" + std::to_string(i), report, out);
        }
    return out + "}\n";
}

}  // namespace

int dot_command(const std::vector<std::string>& args) {
    std::string model_path, bin_path, out_path;
    CommandLine line("dot", kDotHelp);
    line.add_model(model_path);
    line.app().add_option("-w,--weights", bin_path);
    line.app().add_option("-o,--output", out_path);
    if (!line.parse(args)) return kExitOk;

    const CheckReport report = run_check(model_path, bin_path);
    if (!report.document) {
        for (const Diagnostic& d : report.findings) std::cerr << "irlite: " << d.format() << "\n";
        return kExitError;
    }
    const std::string dot = to_dot(report);
    if (out_path.empty()) {
        std::cout << dot;
        return kExitOk;
    }
    std::ofstream f(out_path, std::ios::binary);
    f << dot;
    f.close();
    if (!f) throw Error(ErrorKind::Io, "output-write", str("cannot write '", out_path, "'"));
    return kExitOk;
}

}  // namespace irlite::cli
