// irlite::check as the command line uses it: the findings plus the document and the graph they
// were found in (`irlite info` and `dot` draw from them). Internal: the public API is
// irlite::check (include/irlite/irlite.hpp).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "irlite/diagnostic.hpp"
#include "engine/graph.hpp"
#include "engine/ir_document.hpp"
#include "irlite/irlite.hpp"

namespace irlite::detail {

struct CheckReport {
    std::string file;
    std::shared_ptr<const IrDocument> document;  // null when the file could not be read at all
    std::shared_ptr<const Graph> graph;          // null when the graph could not be built
    // Every finding, sorted by XML line (stable). `where.port` holds the port's XML id (what a
    // user searches for in the file), not its position.
    std::vector<Diagnostic> findings;
    size_t errors = 0, warnings = 0;

    bool valid() const { return errors == 0; }
};

// Reads the model and builds its graph in check mode (every finding collected). Problems with the
// file itself (not well-formed, no <net>, unsupported IR version, unreadable) are findings too.
// Without weights (no_weights, or no .bin found) Const values are unknown: everything that does not
// need them is still checked, and dims that depend on them are taken as declared. A .bin that is
// simply absent (and no_weights not given) is one `bin-missing` error, suggesting --no-weights.
// An unknown name in options.shapes throws Error(Input, "reshape-unknown-input").
CheckReport check_report(const std::string& xml_path, const CheckOptions& options);

// Index in doc.layers of the layer a finding is about (its id, and where ids are duplicated the one
// whose element is on the finding's line), or -1.
int finding_layer_index(const IrDocument& doc, const Diagnostic& d);

}  // namespace irlite::detail
