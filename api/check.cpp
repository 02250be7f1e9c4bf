// irlite::check: every problem of a model file, with file, line, layer and port, without running
// it. The command line's `check`, `info` and `dot` print what this finds.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <optional>

#include "api/check_report.hpp"
#include "api/model_reshape.hpp"
#include "engine/op.hpp"
#include "kernels/all_ops.hpp"
#include "parser/ir_reader.hpp"

namespace irlite {
namespace detail {
namespace {

std::string trim(const std::string& s) {
    const size_t b = s.find_first_not_of(" \t");
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

// Diagnostics carry port positions; users read port ids in the XML.
void port_positions_to_ids(const IrDocument& doc, std::vector<Diagnostic>& findings) {
    for (Diagnostic& d : findings) {
        if (!d.where.layer_id || d.where.port < 0) continue;
        const int li = finding_layer_index(doc, d);
        if (li < 0) continue;
        const IrLayer* l = &doc.layers[static_cast<size_t>(li)];
        const std::vector<IrPort>& ports = d.where.port_is_output ? l->outputs : l->inputs;
        const size_t pos = static_cast<size_t>(d.where.port);
        if (pos < ports.size() && ports[pos].id && *ports[pos].id <= INT32_MAX)
            d.where.port = static_cast<int>(*ports[pos].id);
    }
}

// The Const layers that need bytes from the .bin (size > 0), those of sub-graph bodies included;
// `first` and `first_path` (its body path, "" at the top level) name the first one.
size_t consts_needing_bytes(const IrDocument& doc, const IrLayer** first, std::string* first_path) {
    size_t n = 0;
    std::vector<std::pair<const IrDocument*, std::string>> parts = {{&doc, ""}};
    for (size_t i = 0; i < parts.size(); ++i) {
        for (const IrLayer& l : parts[i].first->layers) {
            for (const IrBody& body : l.bodies)
                parts.emplace_back(body.document.get(), str(parts[i].second, parts[i].second.empty() ? "" : " > ", "layer '",
                                                             l.name, "' > ", body.name));
            if (canonical_op_type(l.type) != "const") continue;
            for (const IrAttribute& a : l.attributes)
                if (a.name == "size" && trim(a.value) != "0" && !trim(a.value).empty()) {
                    if (n++ == 0) {
                        *first = &l;
                        *first_path = parts[i].second;
                    }
                    break;
                }
        }
    }
    return n;
}

// One finding for a missing .bin, instead of one per Const.
void report_missing_weights(const IrDocument& doc, std::vector<Diagnostic>& findings) {
    const IrLayer* first = nullptr;
    std::string first_path;
    const size_t n = consts_needing_bytes(doc, &first, &first_path);
    if (n == 0) return;
    Diagnostic d;
    d.severity = Severity::Error;
    d.kind = ErrorKind::Io;
    d.code = "bin-missing";
    d.where.file = doc.xml_path;
    d.where.line = first->line;  // at the first Const that needs it
    d.where.layer_id = first->id;
    d.where.layer_name = first->name;
    d.where.layer_type = first->type;
    d.where.opset = first->version;
    d.where.body_path = first_path;
    d.message = str(doc.weights_note, "; ", n, " Const layer", n == 1 ? " needs" : "s need",
                    " it. Everything else was checked with Const values unknown; pass the weights with -w FILE, ",
                    "or --no-weights to check without them");
    findings.push_back(std::move(d));
}

}  // namespace

int finding_layer_index(const IrDocument& doc, const Diagnostic& d) {
    if (!d.where.layer_id) return -1;
    int first = -1;
    for (size_t li = 0; li < doc.layers.size(); ++li) {
        const IrLayer& l = doc.layers[li];
        if (l.id != d.where.layer_id) continue;
        if (first < 0) first = static_cast<int>(li);
        bool on_line = l.line == d.where.line || l.data_line == d.where.line;
        for (const auto* ports : {&l.inputs, &l.outputs})
            for (const IrPort& p : *ports) on_line = on_line || p.line == d.where.line;
        if (on_line) return static_cast<int>(li);
    }
    return first;
}

CheckReport check_report(const std::string& xml_path, const CheckOptions& options) {
    CheckReport report;
    report.file = xml_path;
    const auto add_finding = [&](Diagnostic d) {
        if (d.where.file.empty()) d.where.file = xml_path;
        report.findings.push_back(std::move(d));
    };
    std::optional<IrDocument> doc;
    try {
        doc = options.no_weights ? read_ir_xml_only(xml_path) : read_ir_file(xml_path, options.weights);
    } catch (const Error& e) {
        add_finding(Diagnostic::from_error(e));
    }
    if (doc) {
        reshape_parameters(*doc, options.shapes);  // an unknown name goes up
        report.document = std::make_shared<const IrDocument>(std::move(*doc));
        BuildOptions build;
        build.keep_going = true;
        try {
            BuildResult built = build_graph(report.document, builtin_ops(), build);
            report.graph = std::move(built.graph);
            report.findings = std::move(built.diagnostics);
        } catch (const Error& e) {
            // keep_going collects findings; anything thrown anyway is one more finding, not a crash.
            add_finding(Diagnostic::from_error(e));
        } catch (const std::exception& e) {
            Diagnostic d;
            d.code = "internal-error";
            d.message = str("checking stopped: ", e.what());
            add_finding(std::move(d));
        }
        if (!report.document->weights && !options.no_weights) report_missing_weights(*report.document, report.findings);
        port_positions_to_ids(*report.document, report.findings);
    }
    std::stable_sort(report.findings.begin(), report.findings.end(),
                     [](const Diagnostic& a, const Diagnostic& b) { return a.where.line < b.where.line; });
    for (const Diagnostic& d : report.findings) (d.severity == Severity::Error ? report.errors : report.warnings)++;
    return report;
}

}  // namespace detail

CheckResult check(const std::string& xml_path, const CheckOptions& options) {
    detail::CheckReport report = detail::check_report(xml_path, options);
    CheckResult result;
    result.findings = std::move(report.findings);
    result.errors = report.errors;
    result.warnings = report.warnings;
    return result;
}

}  // namespace irlite
