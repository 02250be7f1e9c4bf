// Model::reshape: new dims for Parameters before the model is compiled (OpenVINO's
// Model::reshape), for a dynamic batch or spatial size, or a different fixed one. It rewrites the
// Parameter layers of a copy of the IR document (their `shape` attribute and output port dims), so
// that the graph builder infers every layer downstream from the new dims.
#include <algorithm>

#include "api/model_reshape.hpp"
#include "irlite/irlite.hpp"
#include "engine/op.hpp"

namespace irlite {
namespace {

bool is_parameter(const IrLayer& l) { return canonical_op_type(l.type) == "parameter"; }

// The `shape` attribute as OpenVINO writes it: "1,3,?,?".
std::string shape_attribute(const std::vector<int64_t>& dims) {
    std::string s;
    for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + (dims[i] < 0 ? std::string("?") : std::to_string(dims[i]));
    return s;
}

IrLayer& find_parameter(IrDocument& doc, const std::string& name) {
    for (IrLayer& l : doc.layers) {
        if (!is_parameter(l)) continue;
        if (l.name == name) return l;
        if (!l.outputs.empty()) {
            const std::vector<std::string> names = l.outputs[0].names();
            if (std::count(names.begin(), names.end(), name)) return l;
        }
    }
    std::string params;
    for (const IrLayer& l : doc.layers)
        if (is_parameter(l)) params += str(params.empty() ? "'" : ", '", l.name, "'");
    std::string other;
    for (const IrLayer& l : doc.layers)
        if (l.name == name) other = str(" ('", name, "' is a ", l.type, " layer)");
    throw Error(ErrorKind::Input, "reshape-unknown-input",
                "the model has no Parameter named '" + name + "'" + other + "; its Parameters are " +
                    (params.empty() ? std::string("none") : params));
}

}  // namespace

void reshape_parameters(IrDocument& doc, const std::vector<std::pair<std::string, PartialShape>>& shapes) {
    for (const auto& [name, shape] : shapes) {
        if (!shape.rank_known())
            throw Error(ErrorKind::Input, "reshape-rank-unknown",
                        "a new shape for '" + name + "' must have a known rank (dims may be dynamic)");
        IrLayer& target = find_parameter(doc, name);
        std::vector<int64_t> dims(shape.rank());
        for (size_t i = 0; i < dims.size(); ++i) dims[i] = shape[i] == kDynamic ? -1 : shape[i];
        bool has_shape = false;
        for (IrAttribute& a : target.attributes)
            if (a.name == "shape") a.value = shape_attribute(dims), has_shape = true;
        if (!has_shape) target.attributes.push_back({"shape", shape_attribute(dims)});
        if (!target.outputs.empty()) {
            target.outputs[0].dims = doc.keep(dims);
            target.outputs[0].dims_valid = true;
            target.outputs[0].dims_error.clear();
        }
    }
}

void Model::reshape(const std::vector<std::pair<std::string, PartialShape>>& shapes) {
    if (shapes.empty()) return;
    auto copy = std::make_shared<IrDocument>(*document_);  // models already compiled keep theirs
    reshape_parameters(*copy, shapes);
    // The dims the file declares on the other layers' ports describe the old input shapes: as
    // OpenVINO's reshape does, every shape is now inferred from the Parameters. A declared dim of
    // -1 matches anything, so the graph builder no longer holds the layers to the old ones.
    // The dims are views of arrays the original document shares: they point to one array of -1s.
    size_t max_rank = 0;
    for (const IrLayer& l : copy->layers)
        for (const auto* ports : {&l.inputs, &l.outputs})
            for (const IrPort& p : *ports) max_rank = std::max(max_rank, p.dims.size());
    const IrDims unknown = copy->keep(std::vector<int64_t>(max_rank, -1));
    for (IrLayer& l : copy->layers) {
        if (is_parameter(l)) continue;
        for (auto* ports : {&l.inputs, &l.outputs})
            for (IrPort& p : *ports)
                if (p.dims_valid) p.dims = IrDims(unknown.data(), p.dims.size());
    }
    document_ = std::move(copy);
}

}  // namespace irlite
