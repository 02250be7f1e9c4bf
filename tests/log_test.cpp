// The log (engine/log.hpp): silent by default; at Info one line per compile with what it decided,
// at Debug one line per step; the process default (set_log_level, the CLI's -v) applies where
// CompileOptions leaves it; levels parse from IRLITE_LOG_LEVEL's words.
#include <gtest/gtest.h>

#include <string>

#include "irlite/irlite.hpp"
#include "engine/log.hpp"
#include "ir_builder.hpp"

namespace irlite {
namespace {

Model relu_model() {
    testing::IrBuilder b;
    b.parameter(0, "x", "f32", {2, 3});
    b.layer(1, "act", "ReLU", "opset1", "", {{0, "FP32", {2, 3}, ""}}, {{1, "FP32", {2, 3}, "y"}});
    b.result(2, "y/sink_port_0", "f32", {2, 3});
    b.edge(0, 0, 1, 0).edge(1, 1, 2, 0);
    return Model::read_from_memory(b.xml(), nullptr, 0);
}

std::string compile_and_capture(const Model& model, LogLevel level) {
    CompileOptions options;
    options.log_level = level;
    ::testing::internal::CaptureStderr();
    const CompiledModel compiled(model, options);
    return ::testing::internal::GetCapturedStderr();
}

struct ProcessLevelReset {
    ~ProcessLevelReset() { set_log_level(LogLevel::Default); }
};

TEST(Log, SilentUnlessAsked) {
    const Model model = relu_model();
    EXPECT_EQ(compile_and_capture(model, LogLevel::Off), "");
    EXPECT_EQ(compile_and_capture(model, LogLevel::Warning), "");
    const std::string info = compile_and_capture(model, LogLevel::Info);
    EXPECT_NE(info.find("[irlite] [info] compiled"), std::string::npos) << info;
    EXPECT_NE(info.find("arena"), std::string::npos) << info;
    EXPECT_EQ(info.find("[debug]"), std::string::npos) << info;
    const std::string debug = compile_and_capture(model, LogLevel::Debug);
    EXPECT_NE(debug.find("[irlite] [debug]   'act' ReLU:"), std::string::npos) << debug;
}

TEST(Log, ProcessDefaultAppliesWhereOptionsLeaveIt) {
    const ProcessLevelReset reset;
    const Model model = relu_model();
    set_log_level(LogLevel::Info);
    EXPECT_NE(compile_and_capture(model, LogLevel::Default).find("compiled"), std::string::npos);
    EXPECT_EQ(compile_and_capture(model, LogLevel::Off), "");  // the options win
    set_log_level(LogLevel::Off);
    EXPECT_EQ(compile_and_capture(model, LogLevel::Default), "");
}

TEST(Log, LevelNames) {
    LogLevel l = LogLevel::Default;
    EXPECT_TRUE(detail::parse_log_level("DEBUG", l));
    EXPECT_EQ(l, LogLevel::Debug);
    EXPECT_TRUE(detail::parse_log_level("warn", l));
    EXPECT_EQ(l, LogLevel::Warning);
    EXPECT_TRUE(detail::parse_log_level("off", l));
    EXPECT_EQ(l, LogLevel::Off);
    EXPECT_FALSE(detail::parse_log_level("loud", l));
    EXPECT_FALSE(detail::parse_log_level("", l));
}

}  // namespace
}  // namespace irlite
