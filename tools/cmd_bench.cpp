// irlite bench: time inferences of one model (load, compile, first run, steady state).
#include <algorithm>
#include <chrono>
#include <iostream>
#include <numeric>

#include "engine/irlite.hpp"
#include "parser/npy.hpp"
#include "tools/cli.hpp"
#include "tools/model_inputs.hpp"

namespace irlite::cli {
namespace {

const char* kBenchHelp =
    "usage: irlite bench MODEL.xml [-w MODEL.bin] [-i NAME=FILE.npy]... [-n RUNS] [--warmup N]\n"
    "\n"
    "Times reading + compiling the model, then RUNS inferences (default 20) after N warm-up runs\n"
    "(default 2), and prints min / median / mean milliseconds per inference. Inputs not given with\n"
    "-i are filled with zeros (their shapes must then be static).\n";

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

}  // namespace

int bench_command(const std::vector<std::string>& args) {
    ArgCursor cur(args);
    std::string model_path, bin_path, value;
    std::vector<std::string> specs;
    long runs = 20, warmup = 2;
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
            runs = std::strtol(value.c_str(), nullptr, 10);
            if (runs < 1 || runs > 1000000) throw UsageError("-n expects a number of runs from 1 to 1000000");
            continue;
        }
        if (cur.take_option({"--warmup"}, value)) {
            warmup = std::strtol(value.c_str(), nullptr, 10);
            if (warmup < 0 || warmup > 1000) throw UsageError("--warmup expects 0 to 1000");
            continue;
        }
        if (!model_path.empty()) throw UsageError("more than one model given");
        model_path = cur.take_positional();
    }
    if (model_path.empty()) throw UsageError("bench: no model given");

    auto t0 = Clock::now();
    const Model model = Model::read(model_path, bin_path);
    const double read_ms = ms_since(t0);
    t0 = Clock::now();
    const CompiledModel compiled(model);
    const double compile_ms = ms_since(t0);
    InferRequest request = compiled.create_infer_request();

    // Given inputs from files; the others zero-filled.
    std::vector<bool> given(compiled.inputs().size(), false);
    std::vector<BoundInput> bound;
    if (!specs.empty()) bound = load_inputs(compiled, specs);
    for (const BoundInput& b : bound) {
        request.set_input(b.index, b.tensor);
        given[b.index] = true;
    }
    for (size_t i = 0; i < given.size(); ++i) {
        if (given[i]) continue;
        const PortInfo& p = compiled.inputs()[i];
        if (!p.shape.is_static())
            throw Error(ErrorKind::Input, "input-missing",
                        str("input '", p.name, "' has a dynamic shape ", to_string(p.shape), "; give it with -i"));
        request.set_input(i, Tensor(p.type, p.shape.to_shape()));
    }
    t0 = Clock::now();
    request.infer();
    const double first_ms = ms_since(t0);
    for (long i = 0; i < warmup; ++i) request.infer();
    std::vector<double> times;
    for (long i = 0; i < runs; ++i) {
        t0 = Clock::now();
        request.infer();
        times.push_back(ms_since(t0));
    }
    std::sort(times.begin(), times.end());
    const double mean = std::accumulate(times.begin(), times.end(), 0.0) / static_cast<double>(times.size());
    std::cout << "model    " << model_path << "\n"
              << "read     " << read_ms << " ms\n"
              << "compile  " << compile_ms << " ms\n"
              << "first    " << first_ms << " ms\n"
              << "infer    min " << times.front() << " ms, median " << times[times.size() / 2] << " ms, mean " << mean
              << " ms over " << runs << " runs\n";
    return kExitOk;
}

}  // namespace irlite::cli
