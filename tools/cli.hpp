// Shared pieces of the irlite command-line tool.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "engine/tensor.hpp"

namespace irlite::cli {

// Exit codes: 0 success, 1 a model/input/runtime error, 2 usage.
inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;
inline constexpr int kExitUsage = 2;

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

// Option parsing helper: `--opt VALUE`, `--opt=VALUE` or `-o VALUE`.
class ArgCursor {
public:
    explicit ArgCursor(const std::vector<std::string>& args) : args_(args) {}
    bool done() const { return i_ >= args_.size(); }
    const std::string& peek() const { return args_[i_]; }
    // True when the current word is one of the given option names (or "--name=..."); consumes it.
    bool take_flag(std::initializer_list<const char*> names);
    bool take_option(std::initializer_list<const char*> names, std::string& value);
    std::string take_positional();

private:
    const std::vector<std::string>& args_;
    size_t i_ = 0;
};

// Renders a tensor for people: dtype, shape and values (numpy-like, summarised when large).
std::string format_tensor(const Tensor& t, size_t max_items = 200);

// Replaces every character outside [A-Za-z0-9._-] by '_' ("output:0" -> "output_0").
std::string safe_file_name(const std::string& name);

}  // namespace irlite::cli
