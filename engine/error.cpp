#include "irlite/error.hpp"

namespace irlite {

const char* to_string(ErrorKind kind) {
    switch (kind) {
        case ErrorKind::Parse: return "parse";
        case ErrorKind::Graph: return "graph";
        case ErrorKind::Unsupported: return "unsupported";
        case ErrorKind::Attribute: return "attribute";
        case ErrorKind::ShapeRule: return "shape";
        case ErrorKind::Type: return "type";
        case ErrorKind::Value: return "value";
        case ErrorKind::Input: return "input";
        case ErrorKind::Limit: return "limit";
        case ErrorKind::Io: return "io";
        case ErrorKind::Usage: return "usage";
    }
    return "unknown";
}

std::string Location::describe_layer_and_port() const {
    std::ostringstream os;
    if (!body_path.empty()) os << body_path << " > ";
    if (layer_id) {
        os << (layer_type.empty() ? "layer" : layer_type + " layer") << " id=" << *layer_id;
        if (!layer_name.empty()) os << " '" << layer_name << "'";
        if (!opset.empty()) os << " (" << opset << ")";
    }
    if (port >= 0) {
        if (layer_id) os << ", ";
        os << (port_is_output ? "output " : "input ") << port;
        if (!port_role.empty()) os << " '" << port_role << "'";
    }
    return os.str();
}

Error::Error(ErrorKind kind, std::string code, std::string message, Location where)
    : std::runtime_error(message), kind_(kind), code_(std::move(code)),
      message_(std::move(message)), where_(std::move(where)) {
    refresh();
}

Error& Error::add_context(const Location& outer) {
    if (where_.file.empty()) where_.file = outer.file;
    if (where_.line == 0) where_.line = outer.line;
    if (!where_.layer_id && outer.layer_id) {
        where_.layer_id = outer.layer_id;
        where_.layer_name = outer.layer_name;
        where_.layer_type = outer.layer_type;
        where_.opset = outer.opset;
    }
    if (where_.port < 0 && outer.port >= 0) {
        where_.port = outer.port;
        where_.port_is_output = outer.port_is_output;
        where_.port_role = outer.port_role;
    }
    refresh();
    return *this;
}

Error& Error::add_body_path(const std::string& outer) {
    where_.body_path = where_.body_path.empty() ? outer : outer + " > " + where_.body_path;
    refresh();
    return *this;
}

void Error::refresh() {
    std::string prefix;
    if (!where_.file.empty()) {
        prefix = where_.file;
        if (where_.line > 0) prefix += ":" + std::to_string(where_.line);
        prefix += ": ";
    }
    std::string layer = where_.describe_layer_and_port();
    if (!layer.empty()) prefix += layer + ": ";
    what_ = prefix + message_;
    static_cast<std::runtime_error&>(*this) = std::runtime_error(what_);
}

}  // namespace irlite
