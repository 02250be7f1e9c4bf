#include <cmath>
#include <cstring>
#include <sstream>

#include "tools/cli.hpp"

#include <cstdlib>

#include "irlite/error.hpp"

namespace irlite::cli {

long parse_count(const std::string& value, const char* option, long lo, long hi) {
    char* end = nullptr;
    const long v = std::strtol(value.c_str(), &end, 10);
    if (value.empty() || *end || v < lo || v > hi)
        throw UsageError(str(option, " expects a whole number from ", lo, " to ", hi, ", got '", value, "'"));
    return v;
}

double parse_number(const std::string& value, const char* option, double lo, double hi) {
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    if (value.empty() || *end || !std::isfinite(v) || !(v >= lo && v <= hi))
        throw UsageError(std::isinf(hi) ? str(option, " expects a number >= ", lo, ", got '", value, "'")
                                        : str(option, " expects a number from ", lo, " to ", hi, ", got '", value, "'"));
    return v;
}

InferencePrecision parse_precision(const std::string& value) {
    if (value == "f32") return InferencePrecision::F32;
    if (value == "f16" || value == "declared") return InferencePrecision::Declared;
    throw UsageError(str("--precision expects f32 or f16, got '", value, "'"));
}

std::string safe_file_name(const std::string& name) {
    std::string out = name;
    for (char& c : out) {
        const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
                        c == '_' || c == '-';
        if (!ok) c = '_';
    }
    if (out.empty() || out == "." || out == "..") out = "_" + out;
    return out;
}

namespace {

std::string format_value(const Tensor& t, int64_t i) {
    std::ostringstream os;
    if (t.type() == ElementType::boolean) {
        os << (t.data<uint8_t>()[i] ? "True" : "False");
    } else if (is_float(t.type())) {
        const double v = t.value_as_double(i);
        if (std::isnan(v)) os << "nan";
        else if (std::isinf(v)) os << (v > 0 ? "inf" : "-inf");
        else os << v;
    } else if (t.type() == ElementType::u64) {
        os << t.data<uint64_t>()[i];
    } else {
        os << t.value_as_int64(i);
    }
    return os.str();
}

// Nested brackets, numpy style; along each dim only the first and last `edge` items when the
// tensor is large.
void format_nested(const Tensor& t, size_t dim, int64_t offset, const std::vector<int64_t>& strides, bool summarise,
                   int indent, std::string& out) {
    constexpr int64_t edge = 3;
    if (dim == t.rank()) {
        out += format_value(t, offset);
        return;
    }
    const int64_t n = t.shape()[dim];
    out += "[";
    for (int64_t i = 0; i < n; ++i) {
        if (summarise && n > 2 * edge && i == edge) {
            out += dim + 1 == t.rank() ? "..., " : "...,\n" + std::string(indent + 1, ' ');
            i = n - edge - 1;
            continue;
        }
        format_nested(t, dim + 1, offset + i * strides[dim], strides, summarise, indent + 1, out);
        if (i + 1 < n) out += dim + 1 == t.rank() ? ", " : ",\n" + std::string(indent + 1, ' ');
    }
    out += "]";
}

}  // namespace

std::string format_tensor(const Tensor& t, size_t max_items) {
    std::string out;
    const bool summarise = static_cast<size_t>(t.num_elements()) > max_items;
    format_nested(t, 0, 0, row_major_strides(t.shape()), summarise, 2, out);
    return "  " + out;
}

}  // namespace irlite::cli
