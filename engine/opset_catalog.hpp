// The OpenVINO op catalog: the name of every op type in every opset, opset1 .. opset16, whether
// irlite runs it or not. The graph builder uses it to tell three cases apart:
//   - a type that exists in no opset at all ("Slise"): error `unknown-op`;
//   - a real type that is not part of the layer's opset ("Slice" in opset7): error `op-not-in-opset`,
//     listing the opsets that have it;
//   - a real op that irlite cannot run yet ("Gelu" in opset7): `unsupported-op` (a warning in check
//     mode, where the layer's outputs are taken as declared and checking goes on).
//
// One row per op version and run of consecutive opsets: {"Gather", 8, 8, 16} means that Gather-8
// is the Gather of opset8 to opset16. A type can have several rows (Gather-1, Gather-7, Gather-8),
// and rarely two rows for one version (RNNCell-3 was in opset1, left opset2, came back in opset3).
// Types are matched as the OpRegistry matches them (canonical_op_type: case-insensitive, Const and
// Constant are one type), so the IR spellings ReLU/Relu, PReLU/PRelu, SoftMax/Softmax all resolve.
//
// Sources: OpenVINO's "Available Operation Sets" pages (opset1 .. opset16) and its opsetN_tbl.hpp
// lists. Where the two disagree the catalog takes the union (a too-wide catalog turns an error
// into a warning; a too-narrow one would reject a valid model).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace irlite {

struct OpsetCatalogEntry {
    const char* type;  // the IR type as OpenVINO writes it ("Const"; "Constant" matches too)
    int version;       // the op's own version: 8 for Slice-8
    int first_opset;   // first opset containing this version
    int last_opset;    // last opset containing this version (contiguous run)
};

// Every row, sorted by type (case-insensitive), then version, then first_opset.
const std::vector<OpsetCatalogEntry>& opset_catalog();

// The row for `type` in `opset`, or null when that opset has no such type.
const OpsetCatalogEntry* find_catalog_entry(std::string_view type, int opset);

// Every row of `type` (any opset), in catalog order; empty when OpenVINO has no such op type.
std::vector<const OpsetCatalogEntry*> catalog_entries(std::string_view type);

// Opsets where irlite accepts an op version although OpenVINO's opset lists do not have it there.
// Each is kept only because an existing corpus relies on it; the graph builder warns
// (`opset-not-openvino`) wherever a layer uses one, since OpenVINO rejects such a layer.
struct OpsetDeviation {
    const char* type;
    int version;
    int first_opset, last_opset;  // the opsets irlite accepts beyond the catalog's
    const char* why;
};
const std::vector<OpsetDeviation>& opset_deviations();

// The deviation that lets `type`-`version` be used in `opset`, or null.
const OpsetDeviation* find_opset_deviation(std::string_view type, int version, int opset);

// The opset OpenVINO looks a layer of `type` with version attribute `version` up in: "opsetN" is N,
// with OpenVINO's two legacy spellings. Old IR files write MVN, ROIPooling and ReorgYolo as opset1
// although they entered in opset2; IR v10 writes ExperimentalDetectron*, GRUCell, RNNCell and
// Proposal as "experimental" or "extension", which OpenVINO reads as their opset6 definitions.
// nullopt for any other version (a custom or extension opset).
std::optional<int> lookup_opset(std::string_view type, std::string_view version);

// "Gather-1 in opset1..opset6; Gather-7 in opset7; Gather-8 in opset8..opset16"; "" for no rows.
std::string describe_catalog_entries(const std::vector<const OpsetCatalogEntry*>& entries);

// The catalog's op type nearest to `type` (edit distance at most 2, ignoring case), or "".
std::string closest_op_type(std::string_view type);

// Op type names and opset versions as IR files write them.

// The canonical lower-case key for an IR type name (applies the aliases).
std::string canonical_op_type(std::string_view type);

// canonical_op_type(type) == key, without building a string (key is a canonical key).
bool op_type_is(std::string_view type, std::string_view key);

// "opset8" -> 8; nullopt for anything else ("experimental", "extension", "opsetX").
std::optional<int> parse_opset(std::string_view version);

}  // namespace irlite
