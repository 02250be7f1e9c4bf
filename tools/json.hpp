// The CLI's --json documents, built with nlohmann::json (Debian's nlohmann-json3-dev). Keys keep
// the order they are written in (ordered_json), so each command's output reads in the order the
// README's schema lists. Strings from a damaged file that are not valid UTF-8 come out with U+FFFD
// in place of the bad bytes; NaN and infinities come out as null.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace irlite::cli {

using Json = nlohmann::ordered_json;

// `value` when `present`, else null.
template <class T>
Json value_or_null(bool present, const T& value) {
    return present ? Json(value) : Json(nullptr);
}
template <class T>
Json value_or_null(const std::optional<T>& value) {
    return value ? Json(*value) : Json(nullptr);
}

// The document as printed: two-space indentation, invalid UTF-8 replaced.
inline std::string dump_json(const Json& document) {
    return document.dump(2, ' ', false, Json::error_handler_t::replace);
}

}  // namespace irlite::cli
