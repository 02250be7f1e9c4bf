// The --shape overrides of check, run and bench, and check as the command line runs it with them
// (the findings, the document and the graph: check prints them, info and dot draw from them).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "irlite/diagnostic.hpp"
#include "engine/graph.hpp"
#include "engine/ir_document.hpp"
#include "api/check_report.hpp"
#include "irlite/irlite.hpp"

namespace irlite::cli {

// --shape NAME=[d0,d1,...]: check the model as if Parameter NAME had these dims.
struct ShapeOverride {
    std::string name;
    std::vector<int64_t> dims;  // -1 = dynamic
};

// Parses "NAME=[1,3,224,224]" (brackets optional, "[]" = scalar, "?" or -1 = dynamic); throws
// UsageError on anything else.
ShapeOverride parse_shape_override(const std::string& spec);

// run and bench: Model::reshape with the --shape overrides (a no-op without any); an unknown name
// is a usage error (exit 2), as for check.
void reshape_for_cli(Model& model, const std::vector<ShapeOverride>& overrides);
// The overrides as Model::reshape takes them.
std::vector<std::pair<std::string, PartialShape>> to_partial_shapes(const std::vector<ShapeOverride>& overrides);

// irlite::check with what the command line draws from (the document and the graph): see
// api/check_report.hpp.
using detail::CheckReport;
using detail::finding_layer_index;

// irlite::check for the command line; an unknown --shape name is a usage error (exit 2).
CheckReport run_check(const std::string& xml_path, const std::string& bin_path,
                      const std::vector<ShapeOverride>& overrides = {}, bool no_weights = false);

// "3 errors, 1 warning"
std::string count_text(size_t errors, size_t warnings);

}  // namespace irlite::cli
