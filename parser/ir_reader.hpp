// Reading IR XML (v10 and v11) into an IrDocument (engine/ir_document.hpp).
//
// Only document-level problems throw here (Error kind Parse/Unsupported/Io, with file and line):
// XML that is not well-formed, a root that is not <net>, an IR version other than 10 or 11, an
// unreadable file. Everything else (bad ids, bad dims, unknown types, ...) is recorded in the
// document and reported by the graph builder, so that `irlite check` can report every problem.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "engine/ir_document.hpp"

namespace irlite {

// Reads xml_path. The weights come from bin_path when given (it must exist), else from the xml
// path with its extension replaced by ".bin" when that file exists; otherwise weights stay null
// and weights_note says which file was looked for.
IrDocument read_ir_file(const std::string& xml_path, const std::string& bin_path = "");

// Reads IR text held in memory. `weights` may be null.
IrDocument read_ir_memory(std::string_view xml_text, std::shared_ptr<WeightsBlob> weights,
                          std::string display_name = "<memory>");

}  // namespace irlite
