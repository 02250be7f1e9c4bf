#include "engine/ir_document.hpp"

namespace irlite {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::string_view trim(std::string_view s) {
    size_t begin = 0, end = s.size();
    while (begin < end && is_space(s[begin])) ++begin;
    while (end > begin && is_space(s[end - 1])) --end;
    return s.substr(begin, end - begin);
}

}  // namespace

std::vector<std::string> split_port_names(std::string_view text) {
    std::vector<std::string> out;
    std::string current;
    const auto flush = [&] {
        const std::string_view name = trim(current);
        if (!name.empty()) out.emplace_back(name);
        current.clear();
    };
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == ',') {
            current += ',';
            ++i;
        } else if (text[i] == ',') {
            flush();
        } else {
            current += text[i];
        }
    }
    flush();
    return out;
}

std::string_view IrDocument::keep(std::string text) {
    auto owned = std::make_shared<const std::string>(std::move(text));
    const std::string_view view = *owned;
    storage.push_back(std::move(owned));
    return view;
}

IrDims IrDocument::keep(std::vector<int64_t> dims) {
    auto owned = std::make_shared<const std::vector<int64_t>>(std::move(dims));
    const IrDims view(owned->data(), owned->size());
    storage.push_back(std::move(owned));
    return view;
}

}  // namespace irlite
