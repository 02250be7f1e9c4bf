#include "tools/shape_overrides.hpp"

#include "tools/cli.hpp"

namespace irlite::cli {
namespace {

std::string trim(const std::string& s) {
    const size_t b = s.find_first_not_of(" \t");
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

}  // namespace

ShapeOverride parse_shape_override(const std::string& spec) {
    const size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0)
        throw UsageError("--shape '" + spec + "': expected NAME=[d0,d1,...], e.g. input=[1,3,224,224]");
    ShapeOverride o;
    o.name = spec.substr(0, eq);
    std::string dims = trim(spec.substr(eq + 1));
    if (dims.size() >= 2 && dims.front() == '[' && dims.back() == ']') dims = dims.substr(1, dims.size() - 2);
    if (trim(dims).empty()) return o;  // a scalar
    size_t start = 0;
    while (true) {
        const size_t comma = dims.find(',', start);
        const std::string field = trim(dims.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        int64_t v = 0;
        bool ok = !field.empty() && field.size() <= 18;
        if (field == "?" || field == "-1") {
            v = -1;
        } else {
            for (char c : field) ok = ok && c >= '0' && c <= '9';
            if (ok) v = std::stoll(field);
        }
        if (!ok)
            throw UsageError("--shape '" + spec + "': dim '" + field + "' is not an integer >= 0, -1 or ?");
        o.dims.push_back(v);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return o;
}

void reshape_for_cli(Model& model, const std::vector<ShapeOverride>& overrides) {
    try {
        model.reshape(to_partial_shapes(overrides));
    } catch (const Error& e) {
        if (e.kind() != ErrorKind::Input) throw;
        throw UsageError("--shape: " + e.message());
    }
}

std::vector<std::pair<std::string, PartialShape>> to_partial_shapes(const std::vector<ShapeOverride>& overrides) {
    std::vector<std::pair<std::string, PartialShape>> shapes;
    for (const ShapeOverride& o : overrides) shapes.emplace_back(o.name, PartialShape(o.dims));  // -1 = kDynamic
    return shapes;
}

CheckReport run_check(const std::string& xml_path, const std::string& bin_path,
                      const std::vector<ShapeOverride>& overrides, bool no_weights) {
    CheckOptions options;
    options.weights = bin_path;
    options.no_weights = no_weights;
    options.shapes = to_partial_shapes(overrides);
    try {
        return detail::check_report(xml_path, options);
    } catch (const Error& e) {
        if (e.kind() != ErrorKind::Input) throw;
        throw UsageError("--shape: " + e.message());
    }
}

std::string count_text(size_t errors, size_t warnings) {
    return std::to_string(errors) + (errors == 1 ? " error, " : " errors, ") + std::to_string(warnings) +
           (warnings == 1 ? " warning" : " warnings");
}

}  // namespace irlite::cli
