// Shared pieces of the irlite command-line tool.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "irlite/irlite.hpp"
#include "irlite/tensor.hpp"

namespace irlite::cli {

// Exit codes: 0 success, 1 a model/input/runtime error, 2 usage.
inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitDiverged = 3;  // compare: a layer diverges

// A command-line mistake; main() prints it with a hint to --help and exits 2.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Subcommands. Each takes the arguments after its name.
int run_command(const std::vector<std::string>& args);
int check_command(const std::vector<std::string>& args);
int info_command(const std::vector<std::string>& args);
int dot_command(const std::vector<std::string>& args);
int bench_command(const std::vector<std::string>& args);
int ops_command(const std::vector<std::string>& args);
int compare_command(const std::vector<std::string>& args);

// The whole number `value` given to `option`, checked to lie in [lo, hi] (UsageError otherwise).
long parse_count(const std::string& value, const char* option, long lo, long hi);

// The number `value` given to `option`, finite and in [lo, hi] (hi may be infinity: no upper
// bound); UsageError otherwise.
double parse_number(const std::string& value, const char* option, double lo, double hi);

// --precision: "f32" (f16/bf16 values computed in f32, the default) or "f16" (every op computes in
// the types the file declares: bit-level f16 arithmetic); UsageError otherwise.
InferencePrecision parse_precision(const std::string& value);

// Renders a tensor for people: dtype, shape and values (numpy-like, summarised when large).
std::string format_tensor(const Tensor& t, size_t max_items = 200);

// Replaces every character outside [A-Za-z0-9._-] by '_' ("output:0" -> "output_0").
std::string safe_file_name(const std::string& name);

}  // namespace irlite::cli
