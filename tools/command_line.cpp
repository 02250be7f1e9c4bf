#include "tools/command_line.hpp"

#include <algorithm>
#include <iostream>

#include "tools/cli.hpp"

namespace irlite::cli {

CommandLine::CommandLine(std::string command, const char* help_text)
    : command_(std::move(command)), help_text_(help_text), app_("irlite " + command_) {
    app_.set_help_flag();  // ours: the hand-written text
    app_.add_flag("-h,--help", help_);
    app_.allow_extras(true);  // reported by parse(), in irlite's words
}

void CommandLine::add_model(std::string& path) {
    model_ = &path;
    app_.add_option("model", path, "MODEL.xml");
}

void CommandLine::add_models(std::vector<std::string>& paths) {
    models_ = &paths;
    app_.add_option("models", paths, "MODEL.xml...");
}

CLI::Option* CommandLine::add_repeated(const std::string& names, std::vector<std::string>& values,
                                       const std::string& what) {
    return app_.add_option(names, values, what)->allow_extra_args(false)->take_all();
}

bool CommandLine::parse(const std::vector<std::string>& args) {
    std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
    try {
        app_.parse(reversed);
    } catch (const CLI::ParseError& e) {
        if (help_) {
            std::cout << help_text_;
            return false;
        }
        throw UsageError(command_ + ": " + e.what());
    }
    if (help_) {
        std::cout << help_text_;
        return false;
    }
    for (const std::string& extra : app_.remaining()) {
        if (extra.size() > 1 && extra[0] == '-') throw UsageError(command_ + ": unknown option '" + extra + "'");
        if (model_) throw UsageError(command_ + ": more than one model given ('" + *model_ + "', '" + extra + "')");
        throw UsageError(command_ + ": unexpected argument '" + extra + "'");
    }
    if ((model_ && model_->empty()) || (models_ && models_->empty())) throw UsageError(command_ + ": no model given");
    return true;
}

}  // namespace irlite::cli
