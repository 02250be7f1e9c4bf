// Findings about a model: what the graph builder reports. In run mode the first error is thrown as
// an irlite::Error; in check mode every finding is collected and building goes on.
#pragma once

#include <string>
#include <vector>

#include "irlite/error.hpp"

#include "irlite/export.hpp"

namespace irlite {

enum class Severity { Error, Warning };
IRLITE_API const char* to_string(Severity s);

struct IRLITE_API Diagnostic {
    Severity severity = Severity::Error;
    ErrorKind kind = ErrorKind::Graph;
    std::string code;  // stable, e.g. "dims-mismatch"
    Location where;
    std::string message;
    std::string declared;  // dims/precision as declared in the file, when relevant
    std::string inferred;  // dims/precision as inferred, when relevant

    // "model.xml:12: error: [dims-mismatch] layer 'name' (Slice id=5) port 5: message"
    std::string format() const;
    Error to_error() const { return Error(kind, code, message, where); }
    static Diagnostic from_error(const Error& e, Severity s = Severity::Error);
};

}  // namespace irlite
