// irlite bench: time inferences of one model (load, compile, first run, steady state), with an
// optional per-layer profile.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <map>
#include <numeric>
#include <optional>
#include <sstream>

#include "irlite/irlite.hpp"
#include "parser/npy.hpp"
#include "tools/shape_overrides.hpp"
#include "tools/cli.hpp"
#include "tools/command_line.hpp"
#include "tools/json.hpp"
#include "tools/model_inputs.hpp"

namespace irlite::cli {
namespace {

const char* kBenchHelp =
    "usage: irlite bench MODEL.xml [-w MODEL.bin] [-i NAME=FILE.npy]... [--fill MODE [--seed N]]\n"
    "                    [-n RUNS] [--warmup N]\n"
    "                    [--shape NAME=[dims]]... [--time SECONDS] [-t THREADS] [--profile]\n"
    "                    [--load-runs N] [--no-fusion] [--no-int8] [--precision f32|f16]\n"
    "                    [--json]\n"
    "\n"
    "Times reading + compiling the model, then RUNS inferences (default 20) after N warm-up runs\n"
    "(default 2), and prints min / median / mean milliseconds per inference, the throughput and the\n"
    "peak resident memory. Inputs not given with -i are filled (random by default, seed 0; their\n"
    "shapes must then be static), and the report says so.\n"
    "\n"
    "  --fill MODE       random (default: floats in [0,1), integers in [0,10)), zeros or ones\n"
    "  --seed N          the random fill's seed (default 0)\n"
    "  --shape NAME=[d0,d1,...]\n"
    "                    fixes a Parameter's dims before compiling (a dynamic batch, say)\n"
    "  -t, --threads N   intra-op threads (default: IRLITE_NUM_THREADS, else every core available)\n"
    "  --time SECONDS    run for at least this long (and at least RUNS inferences)\n"
    "  --profile         per-layer table (name, type, method, precision it computes in, ms,\n"
    "                    share of the total), slowest\n"
    "                    first, and the same per op type; medians over the timed runs. A fused\n"
    "                    node shows its ops joined by '+' (Convolution+Add+ReLU). The layers of\n"
    "                    a TensorIterator/Loop/If body follow it, indented, with their runs\n"
    "  --load-runs N     read and compile the model N times (default 1) and report the medians:\n"
    "                    the steady cost without the first run's page faults, as pugixml_parse\n"
    "                    measures its own parse\n"
    "  --no-fusion       run every op as its own node (graph fusion off)\n"
    "  --no-int8         run every FakeQuantize in float (the int8 layers off: README, INT8)\n"
    "  --precision P     what an f16/bf16 model computes in: f32 (default; weights converted once,\n"
    "                    inputs and outputs at the boundary) or f16 (the declared types)\n"
    "  --json            one JSON document on stdout instead of the text report\n";

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

double peak_rss_mb() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux reports KiB
}

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

struct LayerTime {
    std::string name, body, type, method, precision, isa;
    double ms = 0;
    int runs = 0;
};

// Medians per layer over the timed runs: the model's layers slowest first, each followed by the
// layers of its bodies in their order (ProfileEntry). Runs whose entries differ from the first
// run's (an If that took the other branch) are left out of the medians.
std::vector<LayerTime> layer_medians(const std::vector<std::vector<ProfileEntry>>& runs) {
    std::vector<std::vector<LayerTime>> groups;  // a layer of the model, then its bodies' layers
    if (runs.empty()) return {};
    for (size_t i = 0; i < runs[0].size(); ++i) {
        std::vector<double> times;
        const ProfileEntry& e = runs[0][i];
        for (const auto& r : runs)
            if (r.size() == runs[0].size() && r[i].name == e.name && r[i].body == e.body) times.push_back(r[i].ms);
        if (e.body.empty() || groups.empty()) groups.emplace_back();
        groups.back().push_back({e.name, e.body, e.type, e.method, e.precision, e.isa, median(times), e.runs});
    }
    std::stable_sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) { return a[0].ms > b[0].ms; });
    std::vector<LayerTime> out;
    for (auto& g : groups) out.insert(out.end(), g.begin(), g.end());
    return out;
}

// A body layer's name for the text table: indented by its depth, after its body's name
// ("ti > body" and "add": "  body: add").
std::string indented_name(const LayerTime& l) {
    if (l.body.empty()) return l.name;
    size_t depth = 1;
    for (size_t at = l.body.find(" > "); at != std::string::npos; at = l.body.find(" > ", at + 3)) ++depth;
    const size_t last = l.body.rfind(" > ");
    return std::string(depth, ' ') + l.body.substr(last == std::string::npos ? 0 : last + 3) + ": " + l.name;
}

std::string fixed(double v, int digits) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(digits) << v;
    return s.str();
}

// The bench command line, parsed and checked.
struct BenchOptions {
    std::string model_path, bin_path;
    std::vector<std::string> specs;  // -i NAME=FILE.npy
    long runs = 20, warmup = 2, load_runs = 1;
    FillMode fill = FillMode::Random;
    uint64_t seed = 0;
    CompileOptions compile;
    double min_seconds = 0;
    std::vector<ShapeOverride> shapes;
    bool profile = false, json = false;
};

// Parses args into o; false when there is nothing to run (--help was printed).
bool parse_bench_options(const std::vector<std::string>& args, BenchOptions& o) {
    std::string runs_text, fill_text, seed_text, load_runs_text, warmup_text, threads_text, time_text, precision_text;
    std::vector<std::string> shape_specs;
    bool no_fusion = false, no_int8 = false;
    CommandLine line("bench", kBenchHelp);
    line.add_model(o.model_path);
    line.app().add_option("-w,--weights", o.bin_path);
    line.add_repeated("-i,--input", o.specs, "NAME=FILE.npy");
    line.app().add_option("-n,--runs", runs_text);
    line.app().add_option("--fill", fill_text);
    line.app().add_option("--seed", seed_text);
    line.app().add_option("--load-runs", load_runs_text);
    line.app().add_option("--warmup", warmup_text);
    line.app().add_option("-t,--threads", threads_text);
    line.app().add_option("--time", time_text);
    line.add_repeated("--shape", shape_specs, "NAME=[dims]");
    line.app().add_flag("--profile", o.profile);
    line.app().add_flag("--no-fusion", no_fusion);
    line.app().add_flag("--no-int8", no_int8);
    line.app().add_option("--precision", precision_text);
    line.app().add_flag("--json", o.json);
    if (!line.parse(args)) return false;
    if (!runs_text.empty()) o.runs = parse_count(runs_text, "-n", 1, 1000000);
    if (!warmup_text.empty()) o.warmup = parse_count(warmup_text, "--warmup", 0, 1000);
    if (!load_runs_text.empty()) o.load_runs = parse_count(load_runs_text, "--load-runs", 1, 1000);
    if (!fill_text.empty()) o.fill = parse_fill_mode(fill_text);
    if (!seed_text.empty()) o.seed = parse_seed(seed_text);
    o.compile.fusion = !no_fusion;
    o.compile.int8 = !no_int8;
    if (!precision_text.empty()) o.compile.precision = parse_precision(precision_text);
    if (!threads_text.empty()) o.compile.threads = static_cast<int>(parse_count(threads_text, "-t", 1, 1024));
    if (!time_text.empty()) o.min_seconds = parse_number(time_text, "--time", 0, 86400);
    for (const std::string& spec : shape_specs) o.shapes.push_back(parse_shape_override(spec));
    return true;
}

// Reads and compiles the model load_runs times into model and compiled (the last ones are kept
// to be run); the medians of the read and compile times.
struct LoadTimes {
    double read_ms = 0, compile_ms = 0;
};
LoadTimes load_timed(const BenchOptions& o, std::optional<Model>& model, std::optional<CompiledModel>& compiled) {
    std::vector<double> read_times, compile_times;
    for (long r = 0; r < o.load_runs; ++r) {
        compiled.reset();
        model.reset();
        auto t0 = Clock::now();
        model.emplace(Model::read(o.model_path, o.bin_path));
        reshape_for_cli(*model, o.shapes);
        read_times.push_back(ms_since(t0));
        t0 = Clock::now();
        compiled.emplace(*model, o.compile);
        compile_times.push_back(ms_since(t0));
    }
    return {median(read_times), median(compile_times)};
}

// Sets the inputs given from files and fills the others; says which were filled and how
// ("random fill (seed 0) for 'x', 'y'"), empty when none.
std::string bind_bench_inputs(const BenchOptions& o, const CompiledModel& compiled, InferRequest& request) {
    const std::vector<BoundInput> bound = load_inputs(compiled, o.specs, o.fill, o.seed);
    std::string filled;  // "'x', 'y'"
    for (const BoundInput& b : bound) {
        request.set_input(b.index, b.tensor);
        if (b.path.empty()) filled += str(filled.empty() ? "" : ", ", "'", compiled.inputs()[b.index].name, "'");
    }
    return filled.empty() ? std::string()
                          : str(fill_mode_name(o.fill), " fill",
                                o.fill == FillMode::Random ? str(" (seed ", o.seed, ")") : "", " for ", filled);
}

// The inferences' times: the first run, then the timed runs after the warm-up (with their
// profiles when asked).
struct RunTimes {
    double first_ms = 0, total_ms = 0;
    std::vector<double> times;
    std::vector<std::vector<ProfileEntry>> profiles;
};
RunTimes time_inferences(const BenchOptions& o, InferRequest& request) {
    RunTimes r;
    auto t0 = Clock::now();
    request.infer();
    r.first_ms = ms_since(t0);
    for (long i = 0; i < o.warmup; ++i) request.infer();
    request.set_profiling(o.profile);
    const auto bench_start = Clock::now();
    while (static_cast<long>(r.times.size()) < o.runs || ms_since(bench_start) < o.min_seconds * 1000.0) {
        t0 = Clock::now();
        request.infer();
        r.times.push_back(ms_since(t0));
        if (o.profile) r.profiles.push_back(request.profiling());
    }
    r.total_ms = ms_since(bench_start);
    return r;
}

// What the report shows: the timed runs' statistics and the profile per layer and per op type.
struct BenchSummary {
    double min = 0, median = 0, mean = 0, throughput = 0;
    std::vector<LayerTime> layers;                      // slowest first
    std::vector<std::pair<std::string, double>> types;  // ms per op type, slowest first
    std::map<std::string, int> type_count;
    double layers_total = 0;
    double share(double ms) const { return layers_total > 0 ? 100.0 * ms / layers_total : 0.0; }
};
BenchSummary summarize(const RunTimes& r) {
    BenchSummary s;
    s.mean = std::accumulate(r.times.begin(), r.times.end(), 0.0) / static_cast<double>(r.times.size());
    s.median = median(r.times);
    s.min = *std::min_element(r.times.begin(), r.times.end());
    s.throughput = static_cast<double>(r.times.size()) / (r.total_ms / 1000.0);
    s.layers = layer_medians(r.profiles);
    std::map<std::string, double> by_type;
    for (const LayerTime& l : s.layers) {
        if (!l.body.empty()) continue;  // counted in its sub-graph layer's time
        s.layers_total += l.ms;
        by_type[l.type] += l.ms;
        ++s.type_count[l.type];
    }
    s.types.assign(by_type.begin(), by_type.end());
    std::stable_sort(s.types.begin(), s.types.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    return s;
}

// The report as one JSON document.
void print_bench_json(const BenchOptions& o, const std::string& fill_note, const LoadTimes& load, const RunTimes& r,
                      const BenchSummary& s) {
    Json document = {{"model", o.model_path}};
    if (!fill_note.empty()) document["inputs_filled"] = fill_note;
    document["threads"] = o.compile.threads;
    const CpuInfo cpu = cpu_info();
    Json families = Json::object();
    for (const auto& [family, level] : cpu.families) families[family] = level;
    document["cpu"] = {{"model", cpu.model}, {"features", cpu.features}, {"isa", cpu.active_isa},
                       {"detected_isa", cpu.detected_isa}, {"families", std::move(families)}};
    document["read_ms"] = load.read_ms;
    document["compile_ms"] = load.compile_ms;
    document["load_runs"] = o.load_runs;
    document["first_ms"] = r.first_ms;
    document["infer_ms"] = {{"min", s.min}, {"median", s.median}, {"mean", s.mean}, {"runs", r.times.size()}};
    document["throughput_per_s"] = s.throughput;
    document["peak_rss_mb"] = peak_rss_mb();
    if (o.profile) {
        Json rows = Json::array(), type_rows = Json::array();
        for (const LayerTime& l : s.layers)
            rows.push_back({{"name", l.name}, {"body", l.body}, {"type", l.type}, {"method", l.method}, {"precision", l.precision},
                            {"isa", l.isa}, {"ms", l.ms}, {"runs", l.runs}, {"share", s.share(l.ms) / 100.0}});
        for (const auto& [type, ms] : s.types)
            type_rows.push_back({{"type", type}, {"count", s.type_count.at(type)}, {"ms", ms}, {"share", s.share(ms) / 100.0}});
        document["layers"] = std::move(rows);
        document["types"] = std::move(type_rows);
    }
    std::cout << dump_json(document) << "\n";
}

// The text report's profile: per layer, then per op type.
void print_profile_tables(size_t runs, const BenchSummary& s) {
    std::cout << "\nper layer (median ms of " << runs << " runs, slowest first; a sub-graph's body layers after it,\n"
              << "indented, with their body's name, ms over their runs, included in the sub-graph's)\n";
    std::cout << std::left << std::setw(40) << "name" << std::setw(36) << "type" << std::setw(16) << "method"
              << std::setw(6) << "prec" << std::setw(20) << "isa" << std::right << std::setw(10) << "ms" << std::setw(8) << "%"
              << std::setw(8) << "runs" << "\n";
    for (const LayerTime& l : s.layers)
        std::cout << std::left << std::setw(40) << indented_name(l).substr(0, 39) << std::setw(36) << l.type.substr(0, 35)
                  << std::setw(16) << l.method.substr(0, 15) << std::setw(6) << l.precision.substr(0, 5) << std::setw(20) << l.isa.substr(0, 19) << std::right << std::setw(10) << fixed(l.ms, 4)
                  << std::setw(8) << fixed(s.share(l.ms), 1) << std::setw(8) << l.runs << "\n";
    std::cout << "\nper op type\n";
    std::cout << std::left << std::setw(36) << "type" << std::right << std::setw(8) << "count" << std::setw(10)
              << "ms" << std::setw(8) << "%" << "\n";
    for (const auto& [type, ms] : s.types)
        std::cout << std::left << std::setw(36) << type.substr(0, 35) << std::right << std::setw(8)
                  << s.type_count.at(type) << std::setw(10) << fixed(ms, 4) << std::setw(8) << fixed(s.share(ms), 1) << "\n";
}

// The text report.
void print_bench_text(const BenchOptions& o, const std::string& fill_note, const LoadTimes& load, const RunTimes& r,
                      const BenchSummary& s) {
    const std::string load_note = o.load_runs > 1 ? str(" (median of ", o.load_runs, ")") : std::string();
    std::cout << "model    " << o.model_path << "\n";
    if (!fill_note.empty()) std::cout << "inputs   " << fill_note << "\n";
    const CpuInfo cpu = cpu_info();
    std::cout << "cpu      " << (cpu.model.empty() ? "unknown" : cpu.model) << ", kernels " << cpu.active_isa;
    for (const auto& [family, level] : cpu.families)
        if (level != cpu.active_isa) std::cout << " (" << family.substr(0, family.find(':')) << " partly " << level << ")";
    std::cout << "\n";
    std::cout << "read     " << load.read_ms << " ms" << load_note << "\n"
              << "compile  " << load.compile_ms << " ms" << load_note << "\n"
              << "first    " << r.first_ms << " ms\n"
              << "infer    min " << s.min << " ms, median " << s.median << " ms, mean " << s.mean << " ms over "
              << r.times.size() << " runs\n"
              << "speed    " << fixed(s.throughput, 1) << " inferences/s\n"
              << "memory   peak RSS " << fixed(peak_rss_mb(), 1) << " MB\n";
    if (o.profile) print_profile_tables(r.times.size(), s);
}

}  // namespace

int bench_command(const std::vector<std::string>& args) {
    BenchOptions o;
    if (!parse_bench_options(args, o)) return kExitOk;
    std::optional<Model> model;
    std::optional<CompiledModel> compiled_model;
    const LoadTimes load = load_timed(o, model, compiled_model);
    const CompiledModel& compiled = *compiled_model;
    InferRequest request = compiled.create_infer_request();
    const std::string fill_note = bind_bench_inputs(o, compiled, request);
    const RunTimes r = time_inferences(o, request);
    const BenchSummary s = summarize(r);
    if (o.json) print_bench_json(o, fill_note, load, r, s);
    else print_bench_text(o, fill_note, load, r, s);
    return kExitOk;
}

}  // namespace irlite::cli
