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

#include "engine/irlite.hpp"
#include "parser/npy.hpp"
#include "tools/check_report.hpp"
#include "tools/cli.hpp"
#include "tools/json.hpp"
#include "tools/model_inputs.hpp"

namespace irlite::cli {
namespace {

const char* kBenchHelp =
    "usage: irlite bench MODEL.xml [-w MODEL.bin] [-i NAME=FILE.npy]... [--fill MODE [--seed N]]\n"
    "                    [-n RUNS] [--warmup N]\n"
    "                    [--shape NAME=[dims]]... [--time SECONDS] [-t THREADS] [--profile]\n"
    "                    [--load-runs N] [--no-fusion]\n"
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
    "  --profile         per-layer table (name, type, method, ms, share of the total), slowest\n"
    "                    first, and the same per op type; medians over the timed runs. A fused\n"
    "                    node shows its ops joined by '+' (Convolution+Add+ReLU)\n"
    "  --load-runs N     read and compile the model N times (default 1) and report the medians:\n"
    "                    the steady cost without the first run's page faults, as pugixml_parse\n"
    "                    measures its own parse\n"
    "  --no-fusion       run every op as its own node (graph fusion off)\n"
    "  --json            one JSON document on stdout instead of the text report\n";

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

long parse_count(const std::string& value, const char* option, long lo, long hi) {
    char* end = nullptr;
    const long v = std::strtol(value.c_str(), &end, 10);
    if (value.empty() || *end || v < lo || v > hi)
        throw UsageError(str(option, " expects a whole number from ", lo, " to ", hi, ", got '", value, "'"));
    return v;
}

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
    std::string name, type, method;
    double ms = 0;
};

// Medians per layer over the timed runs, slowest first.
std::vector<LayerTime> layer_medians(const std::vector<std::vector<ProfileEntry>>& runs) {
    std::vector<LayerTime> out;
    if (runs.empty()) return out;
    for (size_t i = 0; i < runs[0].size(); ++i) {
        std::vector<double> times;
        for (const auto& r : runs) times.push_back(r[i].ms);
        out.push_back({runs[0][i].name, runs[0][i].type, runs[0][i].method, median(times)});
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
    ArgCursor cur(args);
    std::string model_path, bin_path, value;
    std::vector<std::string> specs;
    std::vector<ShapeOverride> shapes;
    long runs = 20, warmup = 2, load_runs = 1;
    FillMode fill = FillMode::Random;
    uint64_t seed = 0;
    double min_seconds = 0;
    bool profile = false, json = false;
    CompileOptions options;
    while (!cur.done()) {
        if (cur.take_flag({"-h", "--help"})) {
            std::cout << kBenchHelp;
            return kExitOk;
        }
        if (cur.take_option({"-w", "--weights"}, bin_path)) continue;
        if (cur.take_option({"-i", "--input"}, value)) {
            specs.push_back(value);
            continue;
        }
        if (cur.take_option({"-n", "--runs"}, value)) {
            runs = parse_count(value, "-n", 1, 1000000);
            continue;
        }
        if (cur.take_option({"--fill"}, value)) {
            fill = parse_fill_mode(value);
            continue;
        }
        if (cur.take_option({"--seed"}, value)) {
            seed = parse_seed(value);
            continue;
        }
        if (cur.take_option({"--load-runs"}, value)) {
            load_runs = parse_count(value, "--load-runs", 1, 1000);
            continue;
        }
        if (cur.take_option({"--warmup"}, value)) {
            warmup = parse_count(value, "--warmup", 0, 1000);
            continue;
        }
        if (cur.take_option({"-t", "--threads"}, value)) {
            options.threads = static_cast<int>(parse_count(value, "-t", 1, 1024));
            continue;
        }
        if (cur.take_option({"--time"}, value)) {
            char* end = nullptr;
            min_seconds = std::strtod(value.c_str(), &end);
            if (value.empty() || *end || !(min_seconds >= 0 && min_seconds <= 86400))
                throw UsageError("--time expects a number of seconds from 0 to 86400, got '" + value + "'");
            continue;
        }
        if (cur.take_option({"--shape"}, value)) {
            shapes.push_back(parse_shape_override(value));
            continue;
        }
        if (cur.take_flag({"--profile"})) {
            profile = true;
            continue;
        }
        if (cur.take_flag({"--no-fusion"})) {
            options.fusion = false;
            continue;
        }
        if (cur.take_flag({"--json"})) {
            json = true;
            continue;
        }
        if (!model_path.empty()) throw UsageError("more than one model given");
        model_path = cur.take_positional();
    }
    if (model_path.empty()) throw UsageError("bench: no model given");
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
        JsonWriter j;
        j.begin_object();
        j.field("model", model_path);
        if (!fill_note.empty()) j.field("inputs_filled", fill_note);
        j.field("threads", static_cast<int64_t>(options.threads));
        j.field("read_ms", read_ms).field("compile_ms", compile_ms).field("load_runs", static_cast<int64_t>(load_runs));
        j.field("first_ms", first_ms);
        j.key("infer_ms").begin_object();
        j.field("min", min).field("median", med).field("mean", mean).field("runs", static_cast<int64_t>(times.size()));
        j.end_object();
        j.field("throughput_per_s", throughput);
        j.field("peak_rss_mb", peak_rss_mb());
        if (profile) {
            j.key("layers").begin_array();
            for (const LayerTime& l : layers) {
                j.begin_object();
                j.field("name", l.name).field("type", l.type).field("method", l.method).field("ms", l.ms);
                j.field("share", share(l.ms) / 100.0);
                j.end_object();
            }
            j.end_array();
            j.key("types").begin_array();
            for (const auto& [type, ms] : types) {
                j.begin_object();
                j.field("type", type).field("count", static_cast<int64_t>(type_count[type])).field("ms", ms);
                j.field("share", share(ms) / 100.0);
                j.end_object();
            }
            j.end_array();
        }
        j.end_object();
        std::cout << j.str() << "\n";
        return kExitOk;
    }
    std::cout << "model    " << model_path << "\n";
    if (!fill_note.empty()) std::cout << "inputs   " << fill_note << "\n";
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
                  << std::right << std::setw(10) << "ms" << std::setw(8) << "%" << "\n";
        for (const LayerTime& l : layers)
            std::cout << std::left << std::setw(40) << l.name.substr(0, 39) << std::setw(36) << l.type.substr(0, 35)
                      << std::setw(16) << l.method.substr(0, 15) << std::right << std::setw(10) << fixed(l.ms, 4)
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
