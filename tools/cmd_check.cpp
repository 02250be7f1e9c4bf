// irlite check: validate a model without running it and report every problem found.
#include <iostream>

#include "tools/shape_overrides.hpp"
#include "tools/cli.hpp"
#include "tools/command_line.hpp"
#include "tools/json.hpp"

namespace irlite::cli {
namespace {

const char* kCheckHelp =
    "usage: irlite check MODEL.xml... [-w MODEL.bin | --no-weights] [--json] [--shape NAME=[dims]]...\n"
    "\n"
    "Validates each model without running it and reports every problem found, each located in the\n"
    "XML: one finding per line, 'file:line: severity: [code] layer 'name' (Type id=N) port P: message'\n"
    "(P is the port id in the XML), then a summary line. After an error, checking goes on with the\n"
    "dims the file declares, so one fault does not hide others.\n"
    "\n"
    "  -w, --weights FILE   the weights (.bin) of the one model given; default: MODEL.xml with the\n"
    "                       extension .bin\n"
    "      --no-weights     check without the weights (published IR often comes without its .bin):\n"
    "                       structure, edges, ops, attributes, precisions and shapes, with Const\n"
    "                       values unknown (dims that depend on them are taken as declared)\n"
    "      --json           print exactly one JSON document instead (for several models, an array\n"
    "                       of these documents, in the order given):\n"
    "                       {\"file\", \"ir_version\", \"valid\", \"errors\": [{\"code\", \"severity\", \"line\",\n"
    "                        \"layer_id\", \"layer_name\", \"layer_type\", \"port\", \"body_path\", \"message\",\n"
    "                        \"declared\", \"inferred\"}], \"summary\": {\"errors\", \"warnings\"}}\n"
    "                       (warnings are in the same list, with \"severity\": \"warning\")\n"
    "      --shape NAME=[d0,d1,...]\n"
    "                       check as if Parameter NAME (layer or tensor name) had these dims;\n"
    "                       repeatable. '?' or -1 keeps a dim dynamic, [] is a scalar.\n"
    "\n"
    "Exit codes: 0 no error in any model (warnings allowed), 1 at least one error, 2 usage error.\n"
    "The finding codes are listed in docs/check.md.\n";

void print_text(const CheckReport& report) {
    for (const Diagnostic& d : report.findings) std::cout << d.format() << "\n";
    std::cout << report.file << ": " << count_text(report.errors, report.warnings) << "\n";
}

Json report_json(const CheckReport& report) {
    Json errors = Json::array();
    for (const Diagnostic& d : report.findings) {
        const Location& w = d.where;
        errors.push_back({{"code", d.code},
                          {"severity", to_string(d.severity)},
                          {"line", value_or_null(w.line > 0, w.line)},
                          {"layer_id", value_or_null(w.layer_id)},
                          {"layer_name", value_or_null(w.has_layer(), w.layer_name)},
                          {"layer_type", value_or_null(w.has_layer(), w.layer_type)},
                          {"port", value_or_null(w.port >= 0, w.port)},
                          {"body_path", value_or_null(!w.body_path.empty(), w.body_path)},
                          {"message", d.message},
                          {"declared", value_or_null(!d.declared.empty(), d.declared)},
                          {"inferred", value_or_null(!d.inferred.empty(), d.inferred)}});
    }
    Json document = {{"file", report.file},
                     {"ir_version", report.document ? Json(report.document->ir_version) : Json(nullptr)},
                     {"valid", report.valid()},
                     {"errors", std::move(errors)},
                     {"summary", {{"errors", report.errors}, {"warnings", report.warnings}}}};
    return document;
}

}  // namespace

int check_command(const std::vector<std::string>& args) {
    std::vector<std::string> model_paths;
    std::string bin_path;
    std::vector<std::string> shape_specs;
    bool json = false, no_weights = false;
    CommandLine line("check", kCheckHelp);
    line.add_models(model_paths);
    line.app().add_option("-w,--weights", bin_path);
    line.app().add_flag("--json", json);
    line.app().add_flag("--no-weights", no_weights);
    line.add_repeated("--shape", shape_specs, "NAME=[dims]");
    if (!line.parse(args)) return kExitOk;
    std::vector<ShapeOverride> overrides;
    for (const std::string& spec : shape_specs) overrides.push_back(parse_shape_override(spec));
    if (no_weights && !bin_path.empty()) throw UsageError("check: --no-weights and -w/--weights exclude each other");
    if (model_paths.size() > 1 && !bin_path.empty())
        throw UsageError("check: -w/--weights names the weights of one model; " + std::to_string(model_paths.size()) +
                         " models were given (each then reads its own MODEL.bin)");

    bool all_valid = true;
    Json documents = Json::array();
    for (const std::string& model_path : model_paths) {
        const CheckReport report = run_check(model_path, bin_path, overrides, no_weights);
        all_valid = all_valid && report.valid();
        if (json) documents.push_back(report_json(report));
        else print_text(report);
    }
    if (json) std::cout << dump_json(model_paths.size() == 1 ? documents[0] : documents) << "\n";
    return all_valid ? kExitOk : kExitError;
}

}  // namespace irlite::cli
