// A tiny JSON writer for the CLI's --json outputs: string escaping and a streaming object/array
// builder. Strings are emitted as valid UTF-8 (invalid bytes from a damaged file become U+FFFD).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace irlite::cli {

// `text` as a quoted JSON string.
std::string json_string(std::string_view text);

// Builds one JSON document. Keys and values are appended in order; the writer inserts the commas.
//   JsonWriter j; j.begin_object(); j.key("a"); j.value(1); j.end_object(); j.str() == "{\"a\": 1}"
class JsonWriter {
public:
    JsonWriter& begin_object();
    JsonWriter& end_object();
    JsonWriter& begin_array();
    JsonWriter& end_array();
    JsonWriter& key(std::string_view k);
    JsonWriter& value(std::string_view s);
    JsonWriter& value(const char* s) { return value(std::string_view(s)); }
    JsonWriter& value(const std::string& s) { return value(std::string_view(s)); }
    JsonWriter& value(int64_t v);
    JsonWriter& value(uint64_t v);
    JsonWriter& value(int v) { return value(static_cast<int64_t>(v)); }
    JsonWriter& value(bool v);
    JsonWriter& value(double v);  // shortest round-trip form; NaN and infinities become null
    JsonWriter& null();
    // Shorthands: key + value; a null when the optional is empty.
    template <class T>
    JsonWriter& field(std::string_view k, const T& v) {
        key(k);
        return value(v);
    }
    template <class T>
    JsonWriter& field(std::string_view k, const std::optional<T>& v) {
        key(k);
        return v ? value(*v) : null();
    }
    JsonWriter& field_int_list(std::string_view k, const std::vector<int64_t>& v);
    JsonWriter& field_string_list(std::string_view k, const std::vector<std::string>& v);

    const std::string& str() const { return out_; }

private:
    void before_value();
    void newline();
    JsonWriter& end_container(char close);

    std::string out_;
    std::vector<bool> first_;  // per open container: nothing written in it yet
    bool after_key_ = false;
};

}  // namespace irlite::cli
