#include "irlite/diagnostic.hpp"

namespace irlite {

const char* to_string(Severity s) { return s == Severity::Error ? "error" : "warning"; }

std::string Diagnostic::format() const {
    std::string out = where.file.empty() ? std::string("<model>") : where.file;
    if (where.line > 0) out += ":" + std::to_string(where.line);
    out += str(": ", to_string(severity), ": [", code, "] ");
    if (!where.body_path.empty()) out += where.body_path + " > ";
    if (where.layer_id) {
        out += str("layer '", where.layer_name, "' (", where.layer_type.empty() ? "?" : where.layer_type,
                   " id=", *where.layer_id, ") ");
    }
    if (where.port >= 0) {
        out += str("port ", where.port);
        if (!where.port_role.empty()) out += " '" + where.port_role + "'";
        out += " ";
    }
    if (out.back() == ' ') out.pop_back();
    return out + ": " + message;
}

Diagnostic Diagnostic::from_error(const Error& e, Severity s) {
    Diagnostic d;
    d.severity = s;
    d.kind = e.kind();
    d.code = e.code();
    d.where = e.location();
    d.message = e.message();
    return d;
}

}  // namespace irlite
