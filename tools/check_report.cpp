#include "tools/check_report.hpp"

#include <algorithm>
#include <optional>

#include "engine/op.hpp"
#include "parser/ir_reader.hpp"
#include "tools/cli.hpp"
#include "kernels/all_ops.hpp"

namespace irlite::cli {
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

ShapeOverride parse_shape_override(const std::string& spec) {
    const size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0)
        throw UsageError("--shape '" + spec + "': expected NAME=[d0,d1,...], e.g. input=[1,3,224,224]");
    ShapeOverride o;
    o.name = spec.substr(0, eq);
    std::string dims = trim(spec.substr(eq + 1));
    if (dims.size() >= 2 && dims.front() == '[' && dims.back() == ']') dims = dims.substr(1, dims.size() - 2);
    if (trim(dims).empty()) return o;  // a scalar
    size_t start = 0;
    while (true) {
        const size_t comma = dims.find(',', start);
        const std::string field = trim(dims.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        int64_t v = 0;
        bool ok = !field.empty() && field.size() <= 18;
        if (field == "?" || field == "-1") {
            v = -1;
        } else {
            for (char c : field) ok = ok && c >= '0' && c <= '9';
            if (ok) v = std::stoll(field);
        }
        if (!ok)
            throw UsageError("--shape '" + spec + "': dim '" + field + "' is not an integer >= 0, -1 or ?");
        o.dims.push_back(v);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return o;
}

void apply_shape_overrides(IrDocument& doc, const std::vector<ShapeOverride>& overrides) {
    try {
        reshape_parameters(doc, to_partial_shapes(overrides));
    } catch (const Error& e) {
        throw UsageError("--shape: " + e.message());
    }
}

void reshape_for_cli(Model& model, const std::vector<ShapeOverride>& overrides) {
    try {
        model.reshape(to_partial_shapes(overrides));
    } catch (const Error& e) {
        if (e.kind() != ErrorKind::Input) throw;
        throw UsageError("--shape: " + e.message());
    }
}

std::vector<std::pair<std::string, PartialShape>> to_partial_shapes(const std::vector<ShapeOverride>& overrides) {
    std::vector<std::pair<std::string, PartialShape>> shapes;
    for (const ShapeOverride& o : overrides) shapes.emplace_back(o.name, PartialShape(o.dims));  // -1 = kDynamic
    return shapes;
}

namespace {

// The Const layers that need bytes from the .bin (size > 0).
size_t consts_needing_bytes(const IrDocument& doc, const IrLayer** first) {
    size_t n = 0;
    for (const IrLayer& l : doc.layers) {
        if (canonical_op_type(l.type) != "const") continue;
        for (const IrAttribute& a : l.attributes)
            if (a.name == "size" && trim(a.value) != "0" && !trim(a.value).empty()) {
                if (n++ == 0) *first = &l;
                break;
            }
    }
    return n;
}

// One finding for a missing .bin, instead of one per Const.
void report_missing_weights(const IrDocument& doc, std::vector<Diagnostic>& findings) {
    const IrLayer* first = nullptr;
    const size_t n = consts_needing_bytes(doc, &first);
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
    d.message = str(doc.weights_note, "; ", n, " Const layer", n == 1 ? " needs" : "s need",
                    " it. Everything else was checked with Const values unknown; pass the weights with -w FILE, ",
                    "or --no-weights to check without them");
    findings.push_back(std::move(d));
}

}  // namespace

CheckReport run_check(const std::string& xml_path, const std::string& bin_path,
                      const std::vector<ShapeOverride>& overrides, bool no_weights) {
    CheckReport report;
    report.file = xml_path;
    const auto add_finding = [&](Diagnostic d) {
        if (d.where.file.empty()) d.where.file = xml_path;
        report.findings.push_back(std::move(d));
    };
    std::optional<IrDocument> doc;
    try {
        doc = no_weights ? read_ir_xml_only(xml_path) : read_ir_file(xml_path, bin_path);
    } catch (const Error& e) {
        add_finding(Diagnostic::from_error(e));
    }
    if (doc) {
        apply_shape_overrides(*doc, overrides);  // a UsageError goes up: exit 2
        report.document = std::make_shared<const IrDocument>(std::move(*doc));
        BuildOptions options;
        options.keep_going = true;
        try {
            BuildResult built = build_graph(report.document, builtin_ops(), options);
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
        if (!report.document->weights && !no_weights) report_missing_weights(*report.document, report.findings);
        port_positions_to_ids(*report.document, report.findings);
    }
    std::stable_sort(report.findings.begin(), report.findings.end(),
                     [](const Diagnostic& a, const Diagnostic& b) { return a.where.line < b.where.line; });
    for (const Diagnostic& d : report.findings) (d.severity == Severity::Error ? report.errors : report.warnings)++;
    return report;
}

std::string count_text(size_t errors, size_t warnings) {
    return std::to_string(errors) + (errors == 1 ? " error, " : " errors, ") + std::to_string(warnings) +
           (warnings == 1 ? " warning" : " warnings");
}

}  // namespace irlite::cli
