// irlite info: what a model takes and gives, what it is made of, and what irlite cannot run yet.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <set>

#include "engine/fusion.hpp"
#include "engine/level_tensors.hpp"
#include "engine/low_precision.hpp"
#include "engine/op.hpp"
#include "engine/precision.hpp"
#include "engine/subgraph.hpp"
#include "engine/opset_catalog.hpp"
#include "engine/weight_compression.hpp"
#include "tools/shape_overrides.hpp"
#include "tools/cli.hpp"
#include "tools/command_line.hpp"
#include "tools/json.hpp"
#include "kernels/all_ops.hpp"

namespace irlite::cli {
namespace {

const char* kInfoHelp =
    "usage: irlite info MODEL.xml [-w MODEL.bin] [--no-fusion] [--no-int8] [--precision f32|f16] [--json]\n"
    "\n"
    "Summarises the model: inputs and outputs (names, element types, shapes), op types with their\n"
    "counts and opsets, the number of layers and edges, the bytes of Const data, and the ops irlite\n"
    "cannot run yet. Shapes are the ones inferred by 'irlite check' (declared ones where inference\n"
    "is impossible); '?' is a dim known only at run time. 'fused' lists the nodes graph fusion makes\n"
    "(an op with the bias, residual Add and activation after it, e.g. Convolution+Add+ReLU) and how\n"
    "many of each; a model with dynamic shapes is fused when it runs, for its input shapes.\n"
    "'precision' (f16/bf16 models) says what the layers compute in: f32 by default, with\n"
    "conversions at the boundary, except the layers listed as kept in f16. 'int8' (INT8 models)\n"
    "counts the layers that run in int8 (README: INT8), 'u8' the tensors between them held as u8\n"
    "levels instead of floats, 'compressed' the layers that read compressed weights (README:\n"
    "Compressed weights).\n"
    "\n"
    "  -w, --weights FILE   the weights (.bin); default: MODEL.xml with the extension .bin\n"
    "      --no-fusion      do not show what graph fusion makes of the model\n"
    "      --no-int8        as 'run --no-int8' compiles the model: no int8 layers\n"
    "      --precision P    f32 (default) or f16: as 'run --precision' compiles the model\n"
    "      --json           print one JSON document:\n"
    "                       {\"file\", \"name\", \"ir_version\", \"layers\", \"edges\", \"const_bytes\",\n"
    "                        \"inputs\": [{\"name\", \"names\", \"element_type\", \"shape\"}], \"outputs\": [...],\n"
    "                        \"ops\": [{\"type\", \"count\", \"opsets\", \"runs\"}], \"cannot_run\": [{\"type\", \"opset\"}],\n"
    "                        \"fused\": [{\"type\", \"count\"}], \"bodies\": [{\"path\", \"layers\", \"edges\"}],\n"
    "                        \"precision\": null | {\"inference\", \"layers\": {TYPE: count},\n"
    "                                      \"conversions\", \"kept_declared\"},\n"
    "                        \"int8\": [{\"type\", \"count\"}], \"u8_tensors\",\n"
    "                        \"compressed\": [{\"type\", \"count\"}],\n"
    "                        \"check\": {\"errors\", \"warnings\"}}  (a shape is a list, -1 = dynamic;\n"
    "                        null for an unknown rank)\n";

struct BoundaryInfo {
    std::string name;
    std::vector<std::string> names;
    ElementType type = ElementType::f32;
    PartialShape shape;
};

struct OpUse {
    std::string type;  // as first spelt in the file
    int count = 0;
    std::set<int> opsets;           // parsed opset numbers
    std::set<std::string> other_versions;  // version strings that are not opsetN
    std::set<int> cannot_run;       // opsets in which irlite has no definition
};

// What the layers compute in (engine/precision.hpp), for a model with f16/bf16 values.
struct PrecisionInfo {
    bool has_half = false;                // the file has f16 or bf16 values
    InferencePrecision inference = InferencePrecision::F32;
    std::map<std::string, int> layers;    // executed layers by the type they compute in
    int conversions = 0;                  // Converts the precision pass adds at the boundary
    std::vector<std::string> kept;        // layers that keep computing in f16/bf16
    // Sub-graph layers (TensorIterator, Loop, If) with f16/bf16 ports: their bodies compute in f32
    // between conversions at the body's Parameters and Results.
    std::vector<std::string> half_ports;
};

struct ModelInfo {
    std::vector<BoundaryInfo> inputs, outputs;
    PrecisionInfo precision;
    std::vector<std::pair<std::string, int>> fused;  // fused node type, count (graph fusion)
    int nodes_before = 0, nodes_after = 0;           // executed nodes without / with fusion
    bool int8 = true;                                // the low-precision pass ran
    std::vector<std::pair<std::string, int>> int8_layers;  // op type, count of layers run in int8
    std::vector<std::pair<std::string, int>> compressed_layers;  // op type, count reading compressed weights
    int u8_tensors = 0;  // tensors between int8 layers held as u8 levels (engine/level_tensors.hpp)
    std::vector<OpUse> ops;  // by type name, body layers included
    uint64_t const_bytes = 0;
    struct Body {
        std::string path;  // "layer 'ti' > body"
        size_t layers = 0, edges = 0;
    };
    std::vector<Body> bodies;  // sub-graphs (TensorIterator, Loop, If), outermost first
};

// What compiling makes of the graph (nothing when it has errors): the inference precision pass,
// then graph fusion.
void collect_compiled(const CheckReport& report, ModelInfo& info, bool fusion, InferencePrecision precision) {
    if (!report.graph || report.errors > 0) return;
    auto executed = [](const Graph& g) {
        int n = 0;
        for (const Node& node : g.nodes)
            if (node.live && !node.is_constant() && node.def && node.def->role == OpRole::Compute) ++n;
        return n;
    };
    std::shared_ptr<const Graph> graph = report.graph;
    PrecisionInfo& p = info.precision;
    p.has_half = has_half_values(*graph);
    if (precision == InferencePrecision::F32) graph = compute_in_f32(graph, builtin_ops());
    for (const Node& node : graph->nodes) {
        if (!node.live || node.is_constant() || !node.def || node.def->role != OpRole::Compute) continue;
        const std::string computes_in(node_precision(*graph, node));
        if (node_is_added(*graph, node)) {
            ++p.conversions;
            continue;
        }
        ++p.layers[computes_in];
        if (precision != InferencePrecision::F32 || (computes_in != "f16" && computes_in != "bf16")) continue;
        const std::string name = str("'", node.layer->name, "' (", node.layer->type, ")");
        if (dynamic_cast<const SubgraphAttrs*>(node.attrs.get())) p.half_ports.push_back(name);
        else p.kept.push_back(name);
    }
    if (info.int8) {
        // The layers of the low-precision and weight-compression passes: those whose attributes
        // each replaced, by op type.
        const auto changed = [](const Graph& before, const Graph& after) {
            std::map<std::string, int> counts;
            for (size_t i = 0; i < after.nodes.size(); ++i)
                if (after.nodes[i].live && after.nodes[i].attrs != before.nodes[i].attrs)
                    ++counts[std::string(after.nodes[i].layer->type)];
            return std::vector<std::pair<std::string, int>>(counts.begin(), counts.end());
        };
        const std::shared_ptr<const Graph> quantized = quantize_graph(graph);
        const std::shared_ptr<const Graph> compressed = compress_weights(quantized);
        info.int8_layers = changed(*graph, *quantized);
        info.compressed_layers = changed(*quantized, *compressed);
        graph = compressed;
    }
    if (!fusion) return;
    const std::shared_ptr<const Graph> fused = fuse_graph(graph);
    info.nodes_before = executed(*graph);
    info.nodes_after = executed(*fused);
    std::map<std::string, int> counts;
    for (const Node& node : fused->nodes)
        if (node.live && !node.fused.empty()) ++counts[node_type_name(node)];
    for (const auto& [type, count] : counts) info.fused.emplace_back(type, count);
    if (info.int8) {
        const std::shared_ptr<const Graph> levels = use_level_tensors(fused);
        for (size_t i = 0; i < levels->nodes.size(); ++i)
            if (levels->nodes[i].live && !levels->nodes[i].outputs.empty() &&
                levels->nodes[i].outputs[0].type != fused->nodes[i].outputs[0].type)
                ++info.u8_tensors;
    }
    std::sort(info.fused.begin(), info.fused.end(), [](const auto& a, const auto& b) { return a.second > b.second || (a.second == b.second && a.first < b.first); });
}

ModelInfo collect(const CheckReport& report) {
    ModelInfo info;
    const IrDocument& doc = *report.document;
    const Graph* g = report.graph.get();
    if (g) {
        for (int ni : g->parameters) {
            const Node& n = g->nodes[static_cast<size_t>(ni)];
            if (n.outputs.empty()) continue;
            info.inputs.push_back({std::string(n.layer->name), n.layer->outputs.empty() ? std::vector<std::string>{} : n.layer->outputs[0].names(),
                                   n.outputs[0].type, n.outputs[0].shape});
        }
        for (int ni : g->results) {
            const Node& n = g->nodes[static_cast<size_t>(ni)];
            BoundaryInfo b;
            b.name = output_name(*g, n);
            b.shape = PartialShape::dynamic_rank();
            if (!n.inputs.empty() && n.inputs[0].node >= 0) {
                const Node& p = g->nodes[static_cast<size_t>(n.inputs[0].node)];
                const size_t out = static_cast<size_t>(n.inputs[0].output);
                b.names = p.layer->outputs[out].names();
                b.type = p.outputs[out].type;
                b.shape = p.outputs[out].shape;
            }
            info.outputs.push_back(std::move(b));
        }
    }
    std::map<std::string, OpUse> ops;
    // The file's layers and those of every body, nested ones included (a work list, no recursion).
    std::vector<std::pair<const IrDocument*, std::string>> parts = {{&doc, ""}};
    for (size_t i = 0; i < parts.size(); ++i)
        for (const IrLayer& l : parts[i].first->layers)
            for (const IrBody& body : l.bodies) {
                const std::string path = str(parts[i].second, parts[i].second.empty() ? "" : " > ", "layer '", l.name, "' > ", body.name);
                parts.emplace_back(body.document.get(), path);
                info.bodies.push_back({path, body.document->layers.size(), body.document->edges.size()});
            }
    for (const auto& part : parts)
    for (const IrLayer& l : part.first->layers) {
        OpUse& use = ops[canonical_op_type(l.type)];
        if (use.type.empty()) use.type = l.type;
        ++use.count;
        const std::optional<int> opset = parse_opset(l.version);
        if (opset) use.opsets.insert(*opset);
        else use.other_versions.insert(std::string(l.version));
        // Looked up as the graph builder does (MVN written as opset1 runs as MVN-1 of opset2).
        const std::optional<int> lookup = lookup_opset(l.type, l.version);
        if (!lookup || !builtin_ops().find(l.type, *lookup)) use.cannot_run.insert(opset ? *opset : 0);
        if (canonical_op_type(l.type) == "const")
            for (const IrAttribute& a : l.attributes)
                if (a.name == "size" && !a.value.empty() && a.value.size() <= 19 &&
                    std::all_of(a.value.begin(), a.value.end(), [](char c) { return c >= '0' && c <= '9'; }))
                    info.const_bytes += std::stoull(a.value);
    }
    for (auto& [key, use] : ops) info.ops.push_back(std::move(use));
    std::sort(info.ops.begin(), info.ops.end(), [](const OpUse& a, const OpUse& b) { return a.type < b.type; });
    return info;
}

std::string opsets_text(const OpUse& use) {
    std::string s;
    for (int o : use.opsets) s += (s.empty() ? "" : ",") + str("opset", o);
    for (const std::string& v : use.other_versions) s += (s.empty() ? "" : ",") + (v.empty() ? "(no version)" : v);
    return s;
}

std::string cannot_run_text(const OpUse& use) {
    std::string s;
    for (int o : use.cannot_run) s += (s.empty() ? "" : ", ") + (o > 0 ? str("opset", o) : std::string("its version"));
    return s;
}

std::string bytes_text(uint64_t bytes) {
    if (bytes < 1024) return str(bytes, " B");
    const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
    double v = static_cast<double>(bytes);
    int u = -1;
    while (v >= 1024 && u < 3) v /= 1024, ++u;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
    return str(bytes, " B (", buf, ")");
}

std::string pad(const std::string& s, size_t width) { return s.size() >= width ? s + " " : s + std::string(width - s.size(), ' '); }

void print_boundaries(const char* title, const std::vector<BoundaryInfo>& list) {
    std::cout << title << " (" << list.size() << "):\n";
    for (const BoundaryInfo& b : list) {
        std::string names;
        for (const std::string& n : b.names)
            if (n != b.name) names += (names.empty() ? "" : ", ") + n;
        std::cout << "  " << pad(b.name, 24) << pad(to_string(b.type), 8) << to_string(b.shape)
                  << (names.empty() ? "" : "  (also: " + names + ")") << "\n";
    }
}

void print_text(const CheckReport& report, const ModelInfo& info) {
    const IrDocument& doc = *report.document;
    std::cout << "model:   " << report.file << " (net '" << doc.name << "', IR v" << doc.ir_version << ")\n";
    std::cout << "layers:  " << doc.layers.size() << ", edges: " << doc.edges.size() << "\n";
    std::cout << "weights: " << bytes_text(info.const_bytes) << " of Const data\n";
    print_boundaries("inputs", info.inputs);
    print_boundaries("outputs", info.outputs);
    std::cout << "ops (" << info.ops.size() << " types):\n";
    std::string cannot;
    for (const OpUse& use : info.ops) {
        std::cout << "  " << pad(use.type, 28) << pad(std::to_string(use.count), 6) << opsets_text(use)
                  << (use.cannot_run.empty() ? "" : "  (irlite cannot run it)") << "\n";
        if (!use.cannot_run.empty()) cannot += (cannot.empty() ? "" : ", ") + use.type + " (" + cannot_run_text(use) + ")";
    }
    if (!info.bodies.empty()) {
        std::cout << "bodies (" << info.bodies.size() << "; their layers are counted in the ops above):\n";
        for (const ModelInfo::Body& b : info.bodies)
            std::cout << "  " << pad(b.path, 40) << b.layers << " layers, " << b.edges << " edges\n";
    }
    std::cout << "irlite cannot run: " << (cannot.empty() ? "nothing, every op is supported" : cannot) << "\n";
    const PrecisionInfo& p = info.precision;
    if (p.has_half) {
        std::string layers;
        for (const auto& [type, count] : p.layers) layers += str(layers.empty() ? "" : ", ", count, " in ", type);
        std::cout << "precision: " << (p.inference == InferencePrecision::F32 ? "f16/bf16 computed in f32" : "as declared")
                  << " (" << layers << (p.conversions ? str(", ", p.conversions, " conversions at the boundary") : "")
                  << ")\n";
        if (!p.kept.empty()) {
            std::string kept;
            for (const std::string& k : p.kept) kept += (kept.empty() ? "" : ", ") + k;
            std::cout << "  kept in f16 (their f16 result is part of their meaning): " << kept << "\n";
        }
        if (!p.half_ports.empty()) {
            std::string layers_with_bodies;
            for (const std::string& k : p.half_ports) layers_with_bodies += (layers_with_bodies.empty() ? "" : ", ") + k;
            std::cout << "  f16 at their ports, f32 inside their bodies: " << layers_with_bodies << "\n";
        }
    }
    if (!info.int8_layers.empty()) {
        std::string layers;
        for (const auto& [type, count] : info.int8_layers) layers += str(layers.empty() ? "" : ", ", count, " ", type);
        std::cout << "int8:    " << layers << " (their FakeQuantize absorbed; --no-int8 runs them in float)\n";
        if (info.u8_tensors > 0)
            std::cout << "u8:      " << info.u8_tensors << " tensors between int8 layers held as levels, not floats\n";
    }
    if (!info.compressed_layers.empty()) {
        std::string layers;
        for (const auto& [type, count] : info.compressed_layers) layers += str(layers.empty() ? "" : ", ", count, " ", type);
        std::cout << "compressed: " << layers << " (weights read compressed; --no-int8 decompresses them in float)\n";
    }
    if (!info.fused.empty()) {
        std::cout << "fused (" << info.nodes_before << " nodes run as " << info.nodes_after << "):\n";
        for (const auto& [type, count] : info.fused) std::cout << "  " << pad(type, 40) << count << "\n";
    }
    std::cout << "check:   " << count_text(report.errors, report.warnings)
              << (report.findings.empty() ? "" : " (see 'irlite check')") << "\n";
}

Json boundaries(const std::vector<BoundaryInfo>& list) {
    Json out = Json::array();
    for (const BoundaryInfo& b : list)
        out.push_back({{"name", b.name},
                       {"names", b.names},
                       {"element_type", to_string(b.type)},
                       {"shape", value_or_null(b.shape.rank_known(), b.shape.dims())}});
    return out;
}

Json precision_json(const PrecisionInfo& p) {
    if (!p.has_half) return nullptr;
    Json layers = Json::object();
    for (const auto& [type, count] : p.layers) layers[type] = count;
    return {{"inference", p.inference == InferencePrecision::F32 ? "f32" : "declared"},
            {"layers", std::move(layers)},
            {"conversions", p.conversions},
            {"kept_declared", p.kept},
            {"f16_ports_f32_bodies", p.half_ports}};
}

std::string to_json(const CheckReport& report, const ModelInfo& info) {
    const IrDocument& doc = *report.document;
    Json ops = Json::array(), cannot_run = Json::array(), fused = Json::array();
    for (const OpUse& use : info.ops) {
        std::vector<std::string> opsets;
        for (int o : use.opsets) opsets.push_back(str("opset", o));
        for (const std::string& v : use.other_versions) opsets.push_back(v);
        ops.push_back({{"type", use.type}, {"count", use.count}, {"opsets", opsets}, {"runs", use.cannot_run.empty()}});
        for (int o : use.cannot_run)
            cannot_run.push_back({{"type", use.type}, {"opset", value_or_null(o > 0, str("opset", o))}});
    }
    for (const auto& [type, count] : info.fused) fused.push_back({{"type", type}, {"count", count}});
    Json int8 = Json::array();
    for (const auto& [type, count] : info.int8_layers) int8.push_back({{"type", type}, {"count", count}});
    Json compressed = Json::array();
    for (const auto& [type, count] : info.compressed_layers) compressed.push_back({{"type", type}, {"count", count}});
    Json bodies = Json::array();
    for (const ModelInfo::Body& b : info.bodies) bodies.push_back({{"path", b.path}, {"layers", b.layers}, {"edges", b.edges}});
    Json document = {{"file", report.file},
                     {"name", doc.name},
                     {"ir_version", doc.ir_version},
                     {"layers", doc.layers.size()},
                     {"edges", doc.edges.size()},
                     {"const_bytes", info.const_bytes},
                     {"inputs", boundaries(info.inputs)},
                     {"outputs", boundaries(info.outputs)},
                     {"ops", std::move(ops)},
                     {"cannot_run", std::move(cannot_run)},
                     {"fused", std::move(fused)},
                     {"bodies", std::move(bodies)},
                     {"precision", precision_json(info.precision)},
                     {"int8", std::move(int8)},
                     {"u8_tensors", info.u8_tensors},
                     {"compressed", std::move(compressed)},
                     {"check", {{"errors", report.errors}, {"warnings", report.warnings}}}};
    return dump_json(document);
}

}  // namespace

int info_command(const std::vector<std::string>& args) {
    std::string model_path, bin_path;
    bool json = false, no_fusion = false, no_int8 = false;
    std::string precision_text;
    CommandLine line("info", kInfoHelp);
    line.add_model(model_path);
    line.app().add_option("-w,--weights", bin_path);
    line.app().add_flag("--json", json);
    line.app().add_flag("--no-fusion", no_fusion);
    line.app().add_flag("--no-int8", no_int8);
    line.app().add_option("--precision", precision_text);
    if (!line.parse(args)) return kExitOk;
    const bool fusion = !no_fusion;
    const InferencePrecision precision = precision_text.empty() ? InferencePrecision::F32 : parse_precision(precision_text);

    const CheckReport report = run_check(model_path, bin_path);
    if (!report.document) {
        // Not even readable: say why, as check would.
        for (const Diagnostic& d : report.findings) std::cerr << "irlite: " << d.format() << "\n";
        return kExitError;
    }
    ModelInfo info = collect(report);
    info.precision.inference = precision;
    info.int8 = !no_int8;
    collect_compiled(report, info, fusion, precision);
    if (json) std::cout << to_json(report, info) << "\n";
    else print_text(report, info);
    return kExitOk;
}

}  // namespace irlite::cli
