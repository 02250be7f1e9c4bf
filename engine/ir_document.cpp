#include "engine/ir_document.hpp"

namespace irlite {

std::vector<std::string> split_port_names(std::string_view text) {
    std::vector<std::string> out;
    std::string current;
    const auto flush = [&] {
        const std::string_view name = trim_xml_space(current);
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
