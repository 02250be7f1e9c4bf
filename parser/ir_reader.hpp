// Reading IR XML (v10 and v11) into an IrDocument (engine/ir_document.hpp).
//
// Only document-level problems throw here, each with the file and line in its Location:
//   Error(kind Parse, "xml-malformed")    XML that is not well-formed (pugixml's reason, line, column)
//   Error(kind Parse, "xml-no-net")       the root element is not <net> (compared case-insensitively)
//   Error(kind Unsupported, "ir-version") version missing or not 10/11
//   Error(kind Io, "xml-unreadable")      the XML file cannot be read
//   Error(kind Io, "bin-unreadable")      the weights file cannot be mapped (parser/weights.hpp)
// Everything else is recorded in the document and reported later by the graph builder, so that
// `irlite check` can report every problem, not only the first:
//   - layer, port and edge ids are parsed strictly (digits only, no sign, no spaces, <= 2^64-1);
//     anything else gives nullopt with the text kept in id_text / IrEdge::text;
//   - <dim> is an int64 >= -1 (surrounding whitespace allowed); '?', intervals or junk give
//     dims_valid=false, a dims_error naming the first bad dim, and -1 in its place;
//   - port precision, layer type and version are kept exactly as written;
//   - `names` is split on unescaped commas, "\," is a literal comma, spaces around names and
//     empty names are dropped.
// Layers and edges keep file order. Every layer, port, edge and <data> gets its 1-based XML line.
// <rt_info>, <meta_data>, <quantization_parameters> and unknown elements are ignored; attributes
// of <layer> other than id/name/type/version go to layer_attributes.
// Only the known structure (net/layers/layer/{data,input,output}/port/dim, net/edges/edge) is
// visited, with loops, so arbitrarily deep nesting elsewhere costs no stack.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "engine/ir_document.hpp"

namespace irlite {

// Reads xml_path. The weights come from bin_path when given (it must exist: Io error otherwise),
// else from the xml path with its extension replaced by ".bin" when that file exists; otherwise
// weights stay null and weights_note says which file was looked for (fine for a model without Const).
IrDocument read_ir_file(const std::string& xml_path, const std::string& bin_path = "");

// Reads xml_path alone, leaving the weights null even when a .bin sits beside it (check
// --no-weights); weights_note says so.
IrDocument read_ir_xml_only(const std::string& xml_path);

// Reads IR text held in memory. `weights` may be null (weights_note says so then).
// `display_name` stands for the file in messages.
IrDocument read_ir_memory(std::string_view xml_text, std::shared_ptr<WeightsBlob> weights,
                          std::string display_name = "<memory>");

}  // namespace irlite
