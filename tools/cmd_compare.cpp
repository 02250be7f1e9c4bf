// irlite compare: run two models (or one model two ways) on the same inputs and find the first
// layer whose output diverges (api/compare.hpp does the running, matching and measuring).
#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>

#include "api/compare.hpp"
#include "irlite/irlite.hpp"
#include "tools/cli.hpp"
#include "tools/command_line.hpp"
#include "tools/json.hpp"
#include "tools/model_inputs.hpp"

namespace irlite::cli {
namespace {

const char* kCompareHelp =
    "usage: irlite compare A.xml B.xml [-i NAME=FILE.npy]... [--fill MODE] [--seed N]\n"
    "                      [--threshold C] [--atol A] [--fused] [-t THREADS] [--json]\n"
    "       irlite compare A.xml --vs no-fusion|no-int8|threads=N|isa=NAME [options as above]\n"
    "\n"
    "Runs A and B on the same inputs, keeping every layer's output, matches the outputs of A's\n"
    "layers with B's (by tensor name, then by layer name and port) and reports, in A's\n"
    "topological order, for each matched tensor: the cosine similarity, the largest absolute\n"
    "difference, that relative to the largest |A|, and whether NaN/Inf elements differ. The first\n"
    "divergent layer is the first whose cosine is below the threshold or whose NaN/Inf differ.\n"
    "Layers of either side without a match are listed. Consts are skipped.\n"
    "\n"
    "  -i, --input NAME=FILE.npy\n"
    "                       binds an input of A (as for run); B's inputs are bound by name and\n"
    "                       converted where only the element type differs (an FP16 model takes\n"
    "                       the FP32 inputs rounded)\n"
    "  --fill MODE          fill the inputs not given: random (default), zeros or ones\n"
    "  --seed N             the random fill's seed (default 0)\n"
    "  --threshold C        the cosine below which a layer diverges (default 0.999)\n"
    "  --atol A             ... unless its largest absolute difference is at most A (default 0):\n"
    "                       a tensor that is only rounding noise has a low cosine however small\n"
    "                       its difference\n"
    "  --fused              run both models fused (default: unfused, so that every layer's own\n"
    "                       output exists); a fused node is named by its layers joined with '+'\n"
    "  --vs WHAT            compare A with itself run another way: no-fusion (A fused, B not),\n"
    "                       no-int8 (B runs every FakeQuantize in float: the int8 layers off),\n"
    "                       threads=N (B on N threads) or isa=sse|avx2|avx512 (B's kernels capped\n"
    "                       at that instruction set); both run fused unless WHAT is no-fusion\n"
    "  -t, --threads N      intra-op threads of each run (default 1)\n"
    "  --json               one JSON document on stdout instead of the text report:\n"
    "                       {\"a\", \"b\", \"vs\", \"inputs\", \"threshold\", \"atol\", \"tensors\": [{\"name\",\n"
    "                       \"layer_a\", \"layer_b\", \"port\", \"cosine\", \"max_abs\", \"max_rel\",\n"
    "                       \"nonfinite_differs\"}], \"first_divergent\": {...} | null,\n"
    "                       \"unmatched_a\", \"unmatched_b\"}\n"
    "\n"
    "Exit codes: 0 no layer diverges, 3 one does, 1 an error, 2 a usage error.\n";

std::string number(double v, const char* format) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

Json tensor_json(const MatchedTensor& t) {
    const TensorDifference& d = t.difference;
    return Json{{"name", t.name},
                {"layer_a", t.layer_a},
                {"layer_b", t.layer_b},
                {"port", t.port},
                {"cosine", value_or_null(std::isfinite(d.cosine), d.cosine)},
                {"max_abs", value_or_null(std::isfinite(d.max_abs), d.max_abs)},
                {"max_rel", value_or_null(std::isfinite(d.max_rel), d.max_rel)},
                {"nonfinite_differs", d.nonfinite_differs}};
}

std::string pad(const std::string& s, size_t width) { return s.size() >= width ? s : s + std::string(width - s.size(), ' '); }

// "diverges at ..." or "no divergence ...": the report's last line.
std::string verdict(const Comparison& c) {
    if (c.first_divergent >= 0) {
        const MatchedTensor& t = c.tensors[static_cast<size_t>(c.first_divergent)];
        const std::string why = t.difference.nonfinite_differs && t.difference.cosine >= c.threshold
                                    ? "NaN/Inf elements differ"
                                    : str("cosine ", number(t.difference.cosine, "%.6f"), " < ", c.threshold,
                                          t.difference.nonfinite_differs ? ", NaN/Inf elements differ" : "");
        return str("first divergent layer: '", t.layer_a, "' (", t.type_a, ", tensor '", t.name, "'): ", why);
    }
    double lowest = 1;
    for (const MatchedTensor& t : c.tensors) lowest = std::min(lowest, t.difference.cosine);
    return str("no divergence: ", c.tensors.size(), " tensors matched, every cosine >= ", c.threshold,
               c.atol > 0 ? str(" or max_abs <= ", c.atol) : "", " (lowest ", number(lowest, "%.6f"), ")");
}

void print_list(const char* what, const std::vector<std::string>& names) {
    if (names.empty()) return;
    constexpr size_t kShown = 8;  // --json lists them all
    std::cout << what << " (" << names.size() << "): ";
    for (size_t i = 0; i < names.size() && i < kShown; ++i) std::cout << (i ? ", " : "") << names[i];
    if (names.size() > kShown) std::cout << ", ... " << names.size() - kShown << " more (--json lists them all)";
    std::cout << "\n";
}

void print_text(const std::string& a, const std::string& b, const std::vector<NamedInput>& inputs, const Comparison& c) {
    std::cout << "A: " << a << "\nB: " << b << "\n";
    for (const NamedInput& in : inputs)
        std::cout << "input " << in.names.front() << ": " << to_string(in.tensor.type()) << " "
                  << to_string(in.tensor.shape()) << " (" << in.source << ")\n";
    size_t wn = 6, wl = 9;
    for (const MatchedTensor& t : c.tensors) {
        wn = std::max(wn, std::min<size_t>(t.name.size(), 48));
        wl = std::max(wl, std::min<size_t>(t.layer_a.size(), 48));
    }
    std::cout << "\n   #  " << pad("tensor", wn) << "  " << pad("layer (A)", wl) << "  " << pad("cosine", 9) << "  "
              << pad("max_abs", 9) << "  " << pad("max_rel", 9) << "  nan/inf\n";
    for (size_t i = 0; i < c.tensors.size(); ++i) {
        const MatchedTensor& t = c.tensors[i];
        const TensorDifference& d = t.difference;
        char index[24];
        std::snprintf(index, sizeof index, "%4zu", i + 1);
        std::string row = str(static_cast<int>(i) == c.first_divergent ? ">" : t.diverges ? "!" : " ", index, "  ",
                              pad(t.name, wn), "  ", pad(t.layer_a == t.name ? "" : t.layer_a, wl), "  ",
                              pad(number(d.cosine, "%.6f"), 9), "  ", pad(number(d.max_abs, "%.3g"), 9), "  ",
                              pad(number(d.max_rel, "%.3g"), 9), "  ", d.nonfinite_differs ? "differ" : "");
        row.erase(row.find_last_not_of(' ') + 1);
        std::cout << row << "\n";
    }
    std::cout << "\n";
    print_list("unmatched in A", c.unmatched_a);
    print_list("unmatched in B", c.unmatched_b);
    std::cout << verdict(c) << "\n";
}

// The compare command line, parsed and checked.
struct CompareOptions {
    std::string a_path, b_path, vs;
    std::vector<std::string> input_specs;
    FillMode fill = FillMode::Random;
    uint64_t seed = 0;
    double threshold = 0.999, atol = 0;
    CompileOptions compile;
    bool json = false, fused = false;
};

// Parses args into o; false when there is nothing to run (--help was printed).
bool parse_compare_options(const std::vector<std::string>& args, CompareOptions& o) {
    std::string fill_text, seed_text, threshold_text, atol_text, threads_text;
    CommandLine line("compare", kCompareHelp);
    line.add_model(o.a_path);
    line.app().add_option("model_b", o.b_path, "B.xml");
    line.add_repeated("-i,--input", o.input_specs, "NAME=FILE.npy");
    line.app().add_option("--fill", fill_text);
    line.app().add_option("--seed", seed_text);
    line.app().add_option("--threshold", threshold_text);
    line.app().add_option("--atol", atol_text);
    line.app().add_option("-t,--threads", threads_text);
    line.app().add_option("--vs", o.vs);
    line.app().add_flag("--fused", o.fused);
    line.app().add_flag("--json", o.json);
    if (!line.parse(args)) return false;
    if (o.b_path.empty() == o.vs.empty())
        throw UsageError(o.vs.empty() ? "compare: give a second model B.xml, or --vs WHAT"
                                      : "compare: give either a second model or --vs, not both");
    if (!fill_text.empty()) o.fill = parse_fill_mode(fill_text);
    if (!seed_text.empty()) o.seed = parse_seed(seed_text);
    if (!threshold_text.empty()) o.threshold = parse_number(threshold_text, "--threshold", -1, 1);
    if (!atol_text.empty()) o.atol = parse_number(atol_text, "--atol", 0, HUGE_VAL);
    o.compile.threads = threads_text.empty() ? 1 : static_cast<int>(parse_count(threads_text, "-t", 1, 1024));
    return true;
}

// Side B: the second model (read into b_model), or A run the way --vs says.
CompareSide second_side(const CompareOptions& o, const CompareSide& a, std::optional<Model>& b_model) {
    if (o.vs.empty()) {
        b_model = Model::read(o.b_path);
        CompareSide b = a;
        b.model = &*b_model;
        return b;
    }
    try {
        return side_run_another_way(a, o.vs);
    } catch (const Error& e) {
        throw UsageError("compare: " + e.message());
    }
}

// The inputs of a compiled side, from -i files or filled, named by all of their names.
std::vector<NamedInput> named_inputs(const CompareOptions& o, const CompiledModel& compiled) {
    std::vector<NamedInput> inputs;
    for (BoundInput& bound : load_inputs(compiled, o.input_specs, o.fill, o.seed)) {
        const PortInfo& port = compiled.inputs()[bound.index];
        NamedInput in;
        in.names.push_back(port.name);
        in.names.insert(in.names.end(), port.names.begin(), port.names.end());
        in.tensor = std::move(bound.tensor);
        in.source = bound.path.empty() ? str(fill_mode_name(o.fill), " fill, seed ", o.seed) : bound.path;
        inputs.push_back(std::move(in));
    }
    return inputs;
}

// The report as one JSON document (the help's --json lists its fields).
void print_json(const CompareOptions& o, const std::vector<NamedInput>& inputs, const Comparison& c) {
    Json in_json = Json::array();
    for (const NamedInput& in : inputs)
        in_json.push_back({{"name", in.names.front()}, {"source", in.source},
                           {"element_type", to_string(in.tensor.type())}, {"shape", in.tensor.shape()}});
    Json tensors = Json::array();
    for (const MatchedTensor& t : c.tensors) tensors.push_back(tensor_json(t));
    Json first = nullptr;
    if (c.first_divergent >= 0) {
        first = tensor_json(c.tensors[static_cast<size_t>(c.first_divergent)]);
        first["index"] = c.first_divergent;
    }
    const Json doc{{"a", o.a_path},
                   {"b", o.vs.empty() ? o.b_path : o.a_path},
                   {"vs", value_or_null(!o.vs.empty(), o.vs)},
                   {"inputs", std::move(in_json)},
                   {"threshold", o.threshold},
                   {"atol", o.atol},
                   {"tensors", std::move(tensors)},
                   {"first_divergent", std::move(first)},
                   {"unmatched_a", c.unmatched_a},
                   {"unmatched_b", c.unmatched_b}};
    std::cout << dump_json(doc) << "\n";
}

}  // namespace

int compare_command(const std::vector<std::string>& args) {
    CompareOptions o;
    if (!parse_compare_options(args, o)) return kExitOk;
    const Model a_model = Model::read(o.a_path);
    CompareSide a;
    a.model = &a_model;
    a.options = o.compile;
    a.options.fusion = o.fused || !o.vs.empty();
    std::optional<Model> b_model;
    const CompareSide b = second_side(o, a, b_model);
    const auto make_inputs = [&](const CompiledModel& compiled) { return named_inputs(o, compiled); };
    std::vector<NamedInput> inputs;
    const Comparison c = compare_models(a, b, make_inputs, o.threshold, &inputs, o.atol);
    if (o.json) print_json(o, inputs, c);
    else print_text(o.a_path, o.vs.empty() ? o.b_path : str(o.a_path, " (", o.vs, ")"), inputs, c);
    return c.first_divergent >= 0 ? kExitDiverged : kExitOk;
}

}  // namespace irlite::cli
