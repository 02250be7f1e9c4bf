// A subcommand's command line, parsed by CLI11 (Debian's libcli11-dev): options as `-o VALUE`,
// `-oVALUE`, `--opt VALUE` or `--opt=VALUE`, repeatable options collecting one value per use, one
// positional MODEL.xml (several for check). `-h`/`--help` prints the command's own help text
// (written by hand: it documents more than the options, e.g. check's JSON schema). Every parse error is a UsageError
// (exit code 2).
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace irlite::cli {

class CommandLine {
public:
    CommandLine(std::string command, const char* help_text);

    CLI::App& app() { return app_; }
    // The positional MODEL.xml, required unless --help is given.
    void add_model(std::string& path);
    // One or more positional MODEL.xml files (check), at least one required unless --help is given.
    void add_models(std::vector<std::string>& paths);
    // An option that may be given several times, one value each time (`-i a=1.npy -i b=2.npy`).
    CLI::Option* add_repeated(const std::string& names, std::vector<std::string>& values, const std::string& what);
    // Parses `args` (the words after the command's name). False when --help was given: the help
    // text has been printed and the command should exit 0.
    bool parse(const std::vector<std::string>& args);

private:
    std::string command_;
    const char* help_text_;
    bool help_ = false;
    std::string* model_ = nullptr;
    std::vector<std::string>* models_ = nullptr;
    CLI::App app_;
};

}  // namespace irlite::cli
