// irlite's log: what compile decided (fusions, each node's kernel method, arena and scratch sizes,
// threads), check warnings met while compiling, and dynamic re-planning. Written through spdlog to
// stderr as "[irlite] [info] ...". Silent by default.
//
// The level of a compile is CompileOptions::log_level, or, when that is LogLevel::Default, the
// process default: set_log_level(), else the environment variable IRLITE_LOG_LEVEL (off, error,
// warning, info, debug, trace), else off. A Log is a level and nothing else: a message below it
// costs one comparison and formats nothing, and nothing logs on the infer() path.
#pragma once

#include <string>
#include <utility>

#include "irlite/irlite.hpp"

namespace irlite::detail {

// LogLevel::Default resolved to the process default.
LogLevel effective_log_level(LogLevel requested);
// Parses "off", "error", "warning"/"warn", "info", "debug", "trace" (any case); false otherwise.
bool parse_log_level(const std::string& text, LogLevel& out);

class Log {
public:
    explicit Log(LogLevel requested) : level_(effective_log_level(requested)) {}
    bool enabled(LogLevel at) const { return level_ != LogLevel::Off && at >= level_; }
    void write(LogLevel at, const std::string& message) const {
        if (enabled(at)) emit(at, message);
    }
    // Builds the message only when it will be written.
    template <class F>
    void lazy(LogLevel at, F&& make_message) const {
        if (enabled(at)) emit(at, std::forward<F>(make_message)());
    }

private:
    static void emit(LogLevel at, const std::string& message);
    LogLevel level_;
};

}  // namespace irlite::detail
