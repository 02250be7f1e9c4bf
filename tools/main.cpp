// irlite: run, check, summarise and draw OpenVINO IR models.
#include <cstdio>
#include <cstring>
#include <iostream>

#include "irlite/error.hpp"
#include "irlite/irlite.hpp"
#include "tools/cli.hpp"

namespace {

const char* kUsage =
    "irlite - a small engine for OpenVINO IR (model.xml + model.bin)\n"
    "\n"
    "usage: irlite <command> [options]\n"
    "\n"
    "commands:\n"
    "  run    MODEL.xml [-w MODEL.bin] [-i NAME=FILE.npy]... [-o OUTDIR]\n"
    "         run the model on .npy inputs; write each output as OUTDIR/<name>.npy, or print them\n"
    "  check  MODEL.xml [-w MODEL.bin | --no-weights] [--json] [--shape NAME=[dims]]...\n"
    "         validate the model without running it and report every problem found\n"
    "  info   MODEL.xml [-w MODEL.bin] [--json]\n"
    "         summarise inputs, outputs and ops\n"
    "  dot    MODEL.xml [-w MODEL.bin] [-o FILE.dot]\n"
    "         draw the graph as Graphviz DOT\n"
    "  bench  MODEL.xml [-w MODEL.bin] [-i NAME=FILE.npy]... [-n RUNS] [-t N] [--profile] [--json]\n"
    "         time inferences\n"
    "  compare A.xml B.xml | A.xml --vs no-fusion|no-int8|threads=N|isa=NAME [-i NAME=FILE.npy]... [--json]\n"
    "         run both on the same inputs and name the first layer whose output diverges\n"
    "  ops    [--markdown]\n"
    "         list the ops irlite runs, with their opsets\n"
    "\n"
    "options of every command:\n"
    "  -v, -vv  log what compiling decided to stderr (-v: fusions, memory, threads, warnings;\n"
    "           -vv: also each node's kernel method). IRLITE_LOG_LEVEL=off|error|warning|info|\n"
    "           debug|trace does the same for any program using irlite.\n"
    "\n"
    "'irlite <command> --help' describes a command. Exit codes: 0 success, 1 error in the model,\n"
    "an input or at run time (message on stderr), 2 usage error; compare: 3 a layer diverges.\n";

}  // namespace

int main(int argc, char** argv) {
    using namespace irlite::cli;
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) {
        std::cerr << kUsage;
        return kExitUsage;
    }
    // -v / -vv anywhere: the log level of every model this command compiles.
    for (auto it = args.begin(); it != args.end();) {
        if (*it == "-v" || *it == "--verbose" || *it == "-vv") {
            irlite::set_log_level(*it == "-vv" ? irlite::LogLevel::Debug : irlite::LogLevel::Info);
            it = args.erase(it);
        } else {
            ++it;
        }
    }
    if (args.empty()) {
        std::cerr << kUsage;
        return kExitUsage;
    }
    const std::string command = args.front();
    args.erase(args.begin());
    try {
        if (command == "-h" || command == "--help" || command == "help") {
            std::cout << kUsage;
            return kExitOk;
        }
        if (command == "--version") {
            std::cout << "irlite " << irlite::version() << "\n";
            const irlite::CpuInfo cpu = irlite::cpu_info();
            std::string features;
            for (const std::string& f : cpu.features) features += (features.empty() ? "" : " ") + f;
            std::cout << "cpu      " << (cpu.model.empty() ? "unknown" : cpu.model) << " (" << features << ")\n"
                      << "kernels  " << cpu.active_isa << " (the CPU's best: " << cpu.detected_isa
                      << "; IRLITE_ISA=sse|avx2|avx512 caps it)\n";
            for (const auto& [family, level] : cpu.families) std::cout << "  " << family << ": " << level << "\n";
            return kExitOk;
        }
        if (command == "run") return run_command(args);
        if (command == "check") return check_command(args);
        if (command == "info") return info_command(args);
        if (command == "dot") return dot_command(args);
        if (command == "bench") return bench_command(args);
        if (command == "ops") return ops_command(args);
        if (command == "compare") return compare_command(args);
        throw UsageError("unknown command '" + command + "'");
    } catch (const UsageError& e) {
        std::cerr << "irlite: " << e.what() << "\n(see 'irlite --help')\n";
        return kExitUsage;
    } catch (const irlite::Error& e) {
        std::cerr << "irlite: error: " << e.what() << "\n";
        return kExitError;
    } catch (const std::exception& e) {
        std::cerr << "irlite: error: " << e.what() << "\n";
        return kExitError;
    }
}
