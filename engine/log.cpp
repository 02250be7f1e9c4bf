#include "engine/log.hpp"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <memory>

namespace irlite {
namespace {

// -1: not set by set_log_level (the environment decides).
std::atomic<int> g_process_level{-1};

LogLevel environment_level() {
    static const LogLevel level = [] {
        const char* env = std::getenv("IRLITE_LOG_LEVEL");
        LogLevel parsed = LogLevel::Off;
        if (env && *env && !detail::parse_log_level(env, parsed)) {
            std::fprintf(stderr, "irlite: ignoring IRLITE_LOG_LEVEL='%s' (expected off, error, warning, info, debug or trace)\n",
                         env);
            parsed = LogLevel::Off;
        }
        return parsed;
    }();
    return level;
}

spdlog::logger& logger() {
    // Its own logger (not spdlog's default one, which the application may own), to stderr, passing
    // everything: the Log in front of it decides.
    static const std::shared_ptr<spdlog::logger> log = [] {
        auto l = std::make_shared<spdlog::logger>("irlite", std::make_shared<spdlog::sinks::stderr_sink_mt>());
        l->set_pattern("[irlite] [%l] %v");
        l->set_level(spdlog::level::trace);
        return l;
    }();
    return *log;
}

spdlog::level::level_enum to_spdlog(LogLevel l) {
    switch (l) {
        case LogLevel::Trace: return spdlog::level::trace;
        case LogLevel::Debug: return spdlog::level::debug;
        case LogLevel::Info: return spdlog::level::info;
        case LogLevel::Warning: return spdlog::level::warn;
        case LogLevel::Error: return spdlog::level::err;
        case LogLevel::Default:
        case LogLevel::Off: break;
    }
    return spdlog::level::off;
}

}  // namespace

void set_log_level(LogLevel level) {
    g_process_level.store(level == LogLevel::Default ? -1 : static_cast<int>(level), std::memory_order_relaxed);
}

namespace detail {

LogLevel effective_log_level(LogLevel requested) {
    if (requested != LogLevel::Default) return requested;
    const int set = g_process_level.load(std::memory_order_relaxed);
    return set >= 0 ? static_cast<LogLevel>(set) : environment_level();
}

bool parse_log_level(const std::string& text, LogLevel& out) {
    std::string t;
    for (char c : text) t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    static const std::pair<const char*, LogLevel> kNames[] = {
        {"off", LogLevel::Off},     {"error", LogLevel::Error}, {"warning", LogLevel::Warning},
        {"warn", LogLevel::Warning}, {"info", LogLevel::Info},  {"debug", LogLevel::Debug},
        {"trace", LogLevel::Trace}};
    for (const auto& [name, level] : kNames)
        if (t == name) {
            out = level;
            return true;
        }
    return false;
}

void Log::emit(LogLevel at, const std::string& message) { logger().log(to_spdlog(at), "{}", message); }

}  // namespace detail
}  // namespace irlite
