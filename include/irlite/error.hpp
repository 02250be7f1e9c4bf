// irlite's one exception type, and the helpers that build its messages.
//
// Every failure a user can cause (a bad model, a bad input, a value out of range) is reported by
// throwing irlite::Error. It carries:
//   - a kind (what class of problem: parse, graph, shape, ...), for programs and tests;
//   - a stable code (e.g. "dims-mismatch"), the same one `irlite check` prints;
//   - a location: file and line in the XML, the layer (id, name, type, opset) and the port;
//   - the bare message, without location.
// what() joins them the way users see it:
//   model.xml:57: Slice layer id=42 'encoder/Slice_3' (opset8), input 3 'step': step must not be 0
#pragma once

#include <cstdint>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

#include "irlite/export.hpp"

namespace irlite {

enum class ErrorKind {
    Parse,        // the XML, the .bin or a .npy file is malformed
    Graph,        // edges, ports, cycles, duplicate ids
    Unsupported,  // an op type/opset, element type or feature irlite does not implement
    Attribute,    // a layer attribute is missing or invalid
    ShapeRule,    // a shape rule is violated, or declared dims disagree with inferred ones
    Type,         // an element type is not allowed where it is used
    Value,        // a value read at run time is invalid (index out of range, step 0, ...)
    Input,        // a user-supplied input is missing, unknown or mismatching
    Limit,        // a resource limit was hit (tensor too large, overflow)
    Io,           // a file cannot be opened, read or written
    Usage,        // an API or CLI misuse
};

IRLITE_API const char* to_string(ErrorKind kind);

// Where an error happened. Every field is optional; what() prints those that are set.
struct IRLITE_API Location {
    std::string file;
    int64_t line = 0;                  // 1-based line in `file`; 0 = unknown
    std::optional<uint64_t> layer_id;  // set when inside a layer
    std::string layer_name;
    std::string layer_type;
    std::string opset;                 // e.g. "opset8"
    int port = -1;                     // port index (input or output position); -1 = none
    bool port_is_output = false;
    std::string port_role;             // e.g. "step", "indices"
    // Inside a sub-graph body (TensorIterator, Loop, If): the path of layers and bodies that holds
    // the layer, outermost first: "layer 'ti' > body" (nested: "layer 'loop' > body > layer 'if' >
    // then_body"). Empty at the top level.
    std::string body_path;

    bool has_layer() const { return layer_id.has_value(); }
    // "Slice layer id=42 'name' (opset8), input 3 'step'" (no file/line part).
    std::string describe_layer_and_port() const;
};

class IRLITE_API Error : public std::runtime_error {
public:
    Error(ErrorKind kind, std::string code, std::string message, Location where = {});

    ErrorKind kind() const { return kind_; }
    const std::string& code() const { return code_; }
    const std::string& message() const { return message_; }
    const Location& location() const { return where_; }

    // Fill in location fields that are still unset (outer layers add context as an error
    // travels up: the kernel knows the port, the executor the layer, the reader the file).
    Error& add_context(const Location& outer);
    // Prefixes the location's body path with `outer` (an error met inside a body, travelling up
    // through the layer that holds the body): "layer 'ti' > body".
    Error& add_body_path(const std::string& outer);

private:
    void refresh();

    ErrorKind kind_;
    std::string code_;
    std::string message_;
    Location where_;
    std::string what_;
};

// str(a, b, c): streams every argument into one string. Used to build messages only on failure.
template <class... Args>
std::string str(const Args&... args) {
    std::ostringstream os;
    (os << ... << args);
    return os.str();
}

}  // namespace irlite

// IRLITE_CHECK(cond, kind, code, message parts...): throws irlite::Error when cond is false.
// The message is built only on failure.
#define IRLITE_CHECK(cond, kind, code, ...)                                          \
    do {                                                                             \
        if (!(cond)) throw ::irlite::Error((kind), (code), ::irlite::str(__VA_ARGS__)); \
    } while (0)
