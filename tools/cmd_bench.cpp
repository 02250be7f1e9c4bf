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
    "                    node shows its ops joined by '+' (Convolution+Add+ReLU)\n"
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
    std::string name, type, method, precision;
    double ms = 0;
};

// Medians per layer over the timed runs, slowest first.
std::vector<LayerTime> layer_medians(const std::vector<std::vector<ProfileEntry>>& runs) {
    std::vector<LayerTime> out;
    if (runs.empty()) return out;
    for (size_t i = 0; i < runs[0].size(); ++i) {
        std::vector<double> times;
        for (const auto& r : runs) times.push_back(r[i].ms);
        out.push_back({runs[0][i].name, runs[0][i].type, runs[0][i].method, runs[0][i].precision, median(times)});
    }
    std::stable_sort(out.begin(), out.end(), [](const LayerTime& a, const LayerTime& b) { return a.ms > b.ms; });
    return out;
}

std::string fixed(double v, int digits) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(digits) << v;
    return s.str();
}

}  // namespace

int bench_command(const std::vector<std::string>& args) {
    std::string model_path, bin_path, runs_text, fill_text, seed_text, load_runs_text, warmup_text, threads_text,
        time_text;
    std::vector<std::string> specs, shape_specs;
    bool profile = false, json = false, no_fusion = false, no_int8 = false;
    std::string precision_text;
    CommandLine line("bench", kBenchHelp);
    line.add_model(model_path);
    line.app().add_option("-w,--weights", bin_path);
    line.add_repeated("-i,--input", specs, "NAME=FILE.npy");
    line.app().add_option("-n,--runs", runs_text);
    line.app().add_option("--fill", fill_text);
    line.app().add_option("--seed", seed_text);
    line.app().add_option("--load-runs", load_runs_text);
    line.app().add_option("--warmup", warmup_text);
    line.app().add_option("-t,--threads", threads_text);
    line.app().add_option("--time", time_text);
    line.add_repeated("--shape", shape_specs, "NAME=[dims]");
    line.app().add_flag("--profile", profile);
    line.app().add_flag("--no-fusion", no_fusion);
    line.app().add_flag("--no-int8", no_int8);
    line.app().add_option("--precision", precision_text);
    line.app().add_flag("--json", json);
    if (!line.parse(args)) return kExitOk;
    const long runs = runs_text.empty() ? 20 : parse_count(runs_text, "-n", 1, 1000000);
    const long warmup = warmup_text.empty() ? 2 : parse_count(warmup_text, "--warmup", 0, 1000);
    const long load_runs = load_runs_text.empty() ? 1 : parse_count(load_runs_text, "--load-runs", 1, 1000);
    const FillMode fill = fill_text.empty() ? FillMode::Random : parse_fill_mode(fill_text);
    const uint64_t seed = seed_text.empty() ? 0 : parse_seed(seed_text);
    CompileOptions options;
    options.fusion = !no_fusion;
    options.int8 = !no_int8;
    if (!precision_text.empty()) options.precision = parse_precision(precision_text);
    if (!threads_text.empty()) options.threads = static_cast<int>(parse_count(threads_text, "-t", 1, 1024));
    const double min_seconds = time_text.empty() ? 0 : parse_number(time_text, "--time", 0, 86400);
    std::vector<ShapeOverride> shapes;
    for (const std::string& spec : shape_specs) shapes.push_back(parse_shape_override(spec));
    // Read and compile load_runs times; the last model and compiled model are the ones run.
    std::vector<double> read_times, compile_times;
    std::optional<Model> model;
    std::optional<CompiledModel> compiled_model;
    for (long r = 0; r < load_runs; ++r) {
        compiled_model.reset();
        model.reset();
        auto t0 = Clock::now();
        model.emplace(Model::read(model_path, bin_path));
        reshape_for_cli(*model, shapes);
        read_times.push_back(ms_since(t0));
        t0 = Clock::now();
        compiled_model.emplace(*model, options);
        compile_times.push_back(ms_since(t0));
    }
    const double read_ms = median(read_times);
    const double compile_ms = median(compile_times);
    const std::string load_note = load_runs > 1 ? str(" (median of ", load_runs, ")") : std::string();
    const CompiledModel& compiled = *compiled_model;
    InferRequest request = compiled.create_infer_request();
    // Given inputs from files; the others filled.
    const std::vector<BoundInput> bound = load_inputs(compiled, specs, fill, seed);
    std::string filled;  // "'x', 'y'"
    for (const BoundInput& b : bound) {
        request.set_input(b.index, b.tensor);
        if (b.path.empty()) filled += str(filled.empty() ? "" : ", ", "'", compiled.inputs()[b.index].name, "'");
    }
    const std::string fill_note =
        filled.empty() ? std::string()
                       : str(fill_mode_name(fill), " fill", fill == FillMode::Random ? str(" (seed ", seed, ")") : "", " for ", filled);
    auto t0 = Clock::now();
    request.infer();
    const double first_ms = ms_since(t0);
    for (long i = 0; i < warmup; ++i) request.infer();
    request.set_profiling(profile);
    std::vector<double> times;
    std::vector<std::vector<ProfileEntry>> profiles;
    const auto bench_start = Clock::now();
    while (static_cast<long>(times.size()) < runs || ms_since(bench_start) < min_seconds * 1000.0) {
        t0 = Clock::now();
        request.infer();
        times.push_back(ms_since(t0));
        if (profile) profiles.push_back(request.profiling());
    }
    const double total_ms = ms_since(bench_start);
    const double mean = std::accumulate(times.begin(), times.end(), 0.0) / static_cast<double>(times.size());
    const double med = median(times);
    const double min = *std::min_element(times.begin(), times.end());
    const double throughput = static_cast<double>(times.size()) / (total_ms / 1000.0);
    const std::vector<LayerTime> layers = layer_medians(profiles);
    double layers_total = 0;
    std::map<std::string, double> by_type;
    std::map<std::string, int> type_count;
    for (const LayerTime& l : layers) {
        layers_total += l.ms;
        by_type[l.type] += l.ms;
        ++type_count[l.type];
    }
    std::vector<std::pair<std::string, double>> types(by_type.begin(), by_type.end());
    std::stable_sort(types.begin(), types.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    const auto share = [&](double ms) { return layers_total > 0 ? 100.0 * ms / layers_total : 0.0; };

    if (json) {
        Json document = {{"model", model_path}};
        if (!fill_note.empty()) document["inputs_filled"] = fill_note;
        document["threads"] = options.threads;
        const CpuInfo cpu = cpu_info();
        Json families = Json::object();
        for (const auto& [family, level] : cpu.families) families[family] = level;
        document["cpu"] = {{"model", cpu.model}, {"features", cpu.features}, {"isa", cpu.active_isa},
                           {"detected_isa", cpu.detected_isa}, {"families", std::move(families)}};
        document["read_ms"] = read_ms;
        document["compile_ms"] = compile_ms;
        document["load_runs"] = load_runs;
        document["first_ms"] = first_ms;
        document["infer_ms"] = {{"min", min}, {"median", med}, {"mean", mean}, {"runs", times.size()}};
        document["throughput_per_s"] = throughput;
        document["peak_rss_mb"] = peak_rss_mb();
        if (profile) {
            Json rows = Json::array(), type_rows = Json::array();
            for (const LayerTime& l : layers)
                rows.push_back({{"name", l.name}, {"type", l.type}, {"method", l.method}, {"precision", l.precision}, {"ms", l.ms},
                                {"share", share(l.ms) / 100.0}});
            for (const auto& [type, ms] : types)
                type_rows.push_back({{"type", type}, {"count", type_count[type]}, {"ms", ms}, {"share", share(ms) / 100.0}});
            document["layers"] = std::move(rows);
            document["types"] = std::move(type_rows);
        }
        std::cout << dump_json(document) << "\n";
        return kExitOk;
    }
    std::cout << "model    " << model_path << "\n";
    if (!fill_note.empty()) std::cout << "inputs   " << fill_note << "\n";
    const CpuInfo cpu = cpu_info();
    std::cout << "cpu      " << (cpu.model.empty() ? "unknown" : cpu.model) << ", kernels " << cpu.active_isa;
    for (const auto& [family, level] : cpu.families)
        if (level != cpu.active_isa) std::cout << " (" << family.substr(0, family.find(':')) << " partly " << level << ")";
    std::cout << "\n";
    std::cout << "read     " << read_ms << " ms" << load_note << "\n"
              << "compile  " << compile_ms << " ms" << load_note << "\n"
              << "first    " << first_ms << " ms\n"
              << "infer    min " << min << " ms, median " << med << " ms, mean " << mean << " ms over "
              << times.size() << " runs\n"
              << "speed    " << fixed(throughput, 1) << " inferences/s\n"
              << "memory   peak RSS " << fixed(peak_rss_mb(), 1) << " MB\n";
    if (profile) {
        std::cout << "\nper layer (median ms of " << times.size() << " runs, slowest first)\n";
        std::cout << std::left << std::setw(40) << "name" << std::setw(36) << "type" << std::setw(16) << "method"
                  << std::setw(6) << "prec" << std::right << std::setw(10) << "ms" << std::setw(8) << "%" << "\n";
        for (const LayerTime& l : layers)
            std::cout << std::left << std::setw(40) << l.name.substr(0, 39) << std::setw(36) << l.type.substr(0, 35)
                      << std::setw(16) << l.method.substr(0, 15) << std::setw(6) << l.precision.substr(0, 5) << std::right << std::setw(10) << fixed(l.ms, 4)
                      << std::setw(8) << fixed(share(l.ms), 1) << "\n";
        std::cout << "\nper op type\n";
        std::cout << std::left << std::setw(36) << "type" << std::right << std::setw(8) << "count" << std::setw(10)
                  << "ms" << std::setw(8) << "%" << "\n";
        for (const auto& [type, ms] : types)
            std::cout << std::left << std::setw(36) << type.substr(0, 35) << std::right << std::setw(8)
                      << type_count[type] << std::setw(10) << fixed(ms, 4) << std::setw(8) << fixed(share(ms), 1) << "\n";
    }
    return kExitOk;
}

}  // namespace irlite::cli
