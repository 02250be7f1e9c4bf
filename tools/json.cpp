#include "tools/json.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <cstdio>

namespace irlite::cli {
namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 when the bytes there are not one.
size_t utf8_sequence_length(std::string_view s, size_t i) {
    const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = byte(i);
    size_t n = 0;
    uint32_t cp = 0;
    if (c < 0x80) return 1;
    if ((c & 0xE0) == 0xC0) n = 2, cp = c & 0x1Fu;
    else if ((c & 0xF0) == 0xE0) n = 3, cp = c & 0x0Fu;
    else if ((c & 0xF8) == 0xF0) n = 4, cp = c & 0x07u;
    else return 0;
    if (i + n > s.size()) return 0;
    for (size_t k = 1; k < n; ++k) {
        if ((byte(i + k) & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (byte(i + k) & 0x3Fu);
    }
    // Reject overlong forms, surrogates and code points past U+10FFFF.
    static const uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return 0;
    return n;
}

}  // namespace

std::string json_string(std::string_view text) {
    std::string out = "\"";
    for (size_t i = 0; i < text.size();) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        if (c >= 0x80) {
            const size_t n = utf8_sequence_length(text, i);
            if (n == 0) {
                out += "\xEF\xBF\xBD";  // U+FFFD
                ++i;
            } else {
                out.append(text.substr(i, n));
                i += n;
            }
            continue;
        }
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (c < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    out += buf;
                } else {
                    out += static_cast<char>(c);
                }
        }
        ++i;
    }
    return out + "\"";
}

void JsonWriter::newline() {
    out_ += '\n';
    out_.append(2 * first_.size(), ' ');
}

void JsonWriter::before_value() {
    if (after_key_) {
        after_key_ = false;
        return;
    }
    if (first_.empty()) return;
    if (!first_.back()) out_ += ',';
    first_.back() = false;
    newline();
}

JsonWriter& JsonWriter::begin_object() {
    before_value();
    out_ += '{';
    first_.push_back(true);
    return *this;
}

JsonWriter& JsonWriter::end_container(char close) {
    const bool empty = first_.back();
    first_.pop_back();
    if (!empty) newline();
    out_ += close;
    return *this;
}

JsonWriter& JsonWriter::end_object() { return end_container('}'); }

JsonWriter& JsonWriter::begin_array() {
    before_value();
    out_ += '[';
    first_.push_back(true);
    return *this;
}

JsonWriter& JsonWriter::end_array() { return end_container(']'); }

JsonWriter& JsonWriter::key(std::string_view k) {
    before_value();
    out_ += json_string(k) + ": ";
    after_key_ = true;
    return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) {
    before_value();
    out_ += json_string(s);
    return *this;
}

JsonWriter& JsonWriter::value(int64_t v) {
    before_value();
    out_ += std::to_string(v);
    return *this;
}

JsonWriter& JsonWriter::value(double v) {
    if (!std::isfinite(v)) return null();
    before_value();
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    // The shortest of %.6g .. %.17g that reads back exactly.
    for (int precision = 6; precision < 17; ++precision) {
        char shorter[32];
        std::snprintf(shorter, sizeof shorter, "%.*g", precision, v);
        if (std::strtod(shorter, nullptr) == v) {
            std::snprintf(buf, sizeof buf, "%s", shorter);
            break;
        }
    }
    out_ += buf;
    return *this;
}

JsonWriter& JsonWriter::value(uint64_t v) {
    before_value();
    out_ += std::to_string(v);
    return *this;
}

JsonWriter& JsonWriter::value(bool v) {
    before_value();
    out_ += v ? "true" : "false";
    return *this;
}

JsonWriter& JsonWriter::null() {
    before_value();
    out_ += "null";
    return *this;
}

JsonWriter& JsonWriter::field_int_list(std::string_view k, const std::vector<int64_t>& v) {
    key(k);
    before_value();
    out_ += '[';
    for (size_t i = 0; i < v.size(); ++i) out_ += (i ? ", " : "") + std::to_string(v[i]);
    out_ += ']';
    return *this;
}

JsonWriter& JsonWriter::field_string_list(std::string_view k, const std::vector<std::string>& v) {
    key(k);
    before_value();
    out_ += '[';
    for (size_t i = 0; i < v.size(); ++i) out_ += (i ? ", " : "") + json_string(v[i]);
    out_ += ']';
    return *this;
}

}  // namespace irlite::cli
