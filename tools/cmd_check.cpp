// irlite check: validate a model without running it and report every problem found.
#include <iostream>

#include "tools/check_report.hpp"
#include "tools/cli.hpp"
#include "tools/json.hpp"

namespace irlite::cli {
namespace {

const char* kCheckHelp =
    "usage: irlite check MODEL.xml [-w MODEL.bin | --no-weights] [--json] [--shape NAME=[dims]]...\n"
    "\n"
    "Validates the model without running it and reports every problem found, each located in the\n"
    "XML: one finding per line, 'file:line: severity: [code] layer 'name' (Type id=N) port P: message'\n"
    "(P is the port id in the XML), then a summary line. After an error, checking goes on with the\n"
    "dims the file declares, so one fault does not hide others.\n"
    "\n"
    "  -w, --weights FILE   the weights (.bin); default: MODEL.xml with the extension .bin\n"
    "      --no-weights     check without the weights (published IR often comes without its .bin):\n"
    "                       structure, edges, ops, attributes, precisions and shapes, with Const\n"
    "                       values unknown (dims that depend on them are taken as declared)\n"
    "      --json           print exactly one JSON document instead:\n"
    "                       {\"file\", \"ir_version\", \"valid\", \"errors\": [{\"code\", \"severity\", \"line\",\n"
    "                        \"layer_id\", \"layer_name\", \"layer_type\", \"port\", \"message\", \"declared\",\n"
    "                        \"inferred\"}], \"summary\": {\"errors\", \"warnings\"}}\n"
    "                       (warnings are in the same list, with \"severity\": \"warning\")\n"
    "      --shape NAME=[d0,d1,...]\n"
    "                       check as if Parameter NAME (layer or tensor name) had these dims;\n"
    "                       repeatable. '?' or -1 keeps a dim dynamic, [] is a scalar.\n"
    "\n"
    "Exit codes: 0 no error (warnings allowed), 1 at least one error, 2 usage error.\n"
    "The finding codes are listed in docs/check.md.\n";

void print_text(const CheckReport& report) {
    for (const Diagnostic& d : report.findings) std::cout << d.format() << "\n";
    std::cout << report.file << ": " << count_text(report.errors, report.warnings) << "\n";
}

std::string print_json(const CheckReport& report) {
    JsonWriter j;
    j.begin_object();
    j.field("file", report.file);
    j.key("ir_version");
    if (report.document) j.value(report.document->ir_version);
    else j.null();
    j.field("valid", report.valid());
    j.key("errors").begin_array();
    for (const Diagnostic& d : report.findings) {
        const Location& w = d.where;
        j.begin_object();
        j.field("code", d.code);
        j.field("severity", to_string(d.severity));
        j.key("line");
        if (w.line > 0) j.value(w.line);
        else j.null();
        j.key("layer_id");
        if (w.layer_id) j.value(*w.layer_id);
        else j.null();
        j.key("layer_name");
        if (w.has_layer()) j.value(w.layer_name);
        else j.null();
        j.key("layer_type");
        if (w.has_layer()) j.value(w.layer_type);
        else j.null();
        j.key("port");
        if (w.port >= 0) j.value(w.port);
        else j.null();
        j.field("message", d.message);
        j.key("declared");
        if (!d.declared.empty()) j.value(d.declared);
        else j.null();
        j.key("inferred");
        if (!d.inferred.empty()) j.value(d.inferred);
        else j.null();
        j.end_object();
    }
    j.end_array();
    j.key("summary").begin_object();
    j.field("errors", static_cast<uint64_t>(report.errors));
    j.field("warnings", static_cast<uint64_t>(report.warnings));
    j.end_object();
    j.end_object();
    return j.str();
}

}  // namespace

int check_command(const std::vector<std::string>& args) {
    ArgCursor cur(args);
    std::string model_path, bin_path, value;
    std::vector<ShapeOverride> overrides;
    bool json = false, no_weights = false;
    while (!cur.done()) {
        if (cur.take_flag({"-h", "--help"})) {
            std::cout << kCheckHelp;
            return kExitOk;
        }
        if (cur.take_flag({"--json"})) {
            json = true;
            continue;
        }
        if (cur.take_flag({"--no-weights"})) {
            no_weights = true;
            continue;
        }
        if (cur.take_option({"-w", "--weights"}, bin_path)) continue;
        if (cur.take_option({"--shape"}, value)) {
            overrides.push_back(parse_shape_override(value));
            continue;
        }
        if (!model_path.empty())
            throw UsageError("check: more than one model given ('" + model_path + "', '" + cur.peek() + "')");
        model_path = cur.take_positional();
    }
    if (model_path.empty()) throw UsageError("check: no model given");
    if (no_weights && !bin_path.empty()) throw UsageError("check: --no-weights and -w/--weights exclude each other");

    const CheckReport report = run_check(model_path, bin_path, overrides, no_weights);
    if (json) std::cout << print_json(report) << "\n";
    else print_text(report);
    return report.valid() ? kExitOk : kExitError;
}

}  // namespace irlite::cli
