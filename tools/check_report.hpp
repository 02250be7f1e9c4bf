// What `irlite check` finds in a model, shared by check (text/JSON), info and dot (which draws the
// layers with findings in red).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/diagnostic.hpp"
#include "engine/graph.hpp"
#include "engine/ir_document.hpp"
#include "engine/irlite.hpp"

namespace irlite::cli {

// --shape NAME=[d0,d1,...]: check the model as if Parameter NAME had these dims.
struct ShapeOverride {
    std::string name;
    std::vector<int64_t> dims;  // -1 = dynamic
};

// Parses "NAME=[1,3,224,224]" (brackets optional, "[]" = scalar, "?" or -1 = dynamic); throws
// UsageError on anything else.
ShapeOverride parse_shape_override(const std::string& spec);

// Rewrites each named Parameter of `doc`: its `shape` attribute and its output port's dims. NAME is
// the Parameter's layer name or one of its output tensor names. Throws UsageError when no
// Parameter has that name (listing the Parameters).
void apply_shape_overrides(IrDocument& doc, const std::vector<ShapeOverride>& overrides);
// run and bench: Model::reshape with the --shape overrides (a no-op without any); an unknown name
// is a usage error (exit 2), as for check.
void reshape_for_cli(Model& model, const std::vector<ShapeOverride>& overrides);
// The overrides as Model::reshape takes them.
std::vector<std::pair<std::string, PartialShape>> to_partial_shapes(const std::vector<ShapeOverride>& overrides);

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
CheckReport run_check(const std::string& xml_path, const std::string& bin_path,
                      const std::vector<ShapeOverride>& overrides = {}, bool no_weights = false);

// Index in doc.layers of the layer a finding is about (its id, and where ids are duplicated the one
// whose element is on the finding's line), or -1.
int finding_layer_index(const IrDocument& doc, const Diagnostic& d);

// "3 errors, 1 warning"
std::string count_text(size_t errors, size_t warnings);

}  // namespace irlite::cli
