// Running the irlite CLI from a test (cli_test.cpp, cli_dump_test.cpp, cli_compare_test.cpp): exit code,
// stdout and stderr, and small file helpers.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "irlite/tensor.hpp"
#include "parser/npy.hpp"
#include "temp_dir.hpp"

namespace irlite::testing {

namespace fs = std::filesystem;

struct CliResult {
    int exit_code = -1;
    std::string out, err;
};

inline std::string slurp(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

// Runs `argv` (argv[0] found on PATH unless it has a '/') with stdout and stderr captured; the exit
// code is 128 + the signal when one killed it.
inline CliResult run_program(const std::vector<std::string>& argv) {
    TempDir dir;
    const std::string out_path = dir.file("out"), err_path = dir.file("err");
    const pid_t pid = ::fork();
    if (pid == 0) {
        if (!std::freopen(out_path.c_str(), "w", stdout) || !std::freopen(err_path.c_str(), "w", stderr)) _exit(126);
        std::vector<char*> c_args;
        for (const std::string& a : argv) c_args.push_back(const_cast<char*>(a.c_str()));
        c_args.push_back(nullptr);
        ::execvp(c_args[0], c_args.data());
        _exit(127);
    }
    CliResult r;
    int status = 0;
    if (pid < 0 || ::waitpid(pid, &status, 0) != pid) return r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = slurp(out_path);
    r.err = slurp(err_path);
    return r;
}

// Runs the irlite CLI with `args`, stdout and stderr captured.
inline CliResult irlite(const std::vector<std::string>& args) {
    std::vector<std::string> argv{IRLITE_CLI_PATH};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_program(argv);
}

inline std::vector<std::string> list_dir(const std::string& path) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(path)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

inline std::string input_file(const TempDir& dir) {
    Tensor x(ElementType::f32, {2, 8});
    for (int i = 0; i < 16; ++i) x.data<float>()[i] = static_cast<float>(i % 5) - 2.0f;
    write_npy(dir.file("x.npy"), x);
    return dir.file("x.npy");
}

}  // namespace irlite::testing
