// Model::read and Model::read_from_memory: the thin layer that joins the parser (XML and .bin)
// to the engine, with irlite's own op set. engine/ itself knows no XML and no kernels.
#include "irlite/irlite.hpp"
#include "engine/op.hpp"
#include "parser/ir_reader.hpp"
#include "parser/weights.hpp"
#include "kernels/all_ops.hpp"

namespace irlite {

Model Model::read(const std::string& xml_path, const std::string& bin_path) {
    return Model(std::make_shared<const IrDocument>(read_ir_file(xml_path, bin_path)), builtin_ops());
}

Model Model::read_from_memory(std::string_view xml, const void* weights, size_t weights_size,
                              std::shared_ptr<const void> weights_owner) {
    std::shared_ptr<WeightsBlob> blob;
    if (weights && weights_owner) {
        blob = weights_from_memory(weights, weights_size, std::move(weights_owner));  // zero-copy
    } else if (weights) {
        // Without an owner nothing guarantees the bytes outlive the model: keep a copy.
        const auto* bytes = static_cast<const std::byte*>(weights);
        blob = weights_from_memory(std::vector<std::byte>(bytes, bytes + weights_size));
    }
    return Model(std::make_shared<const IrDocument>(read_ir_memory(xml, std::move(blob))), builtin_ops());
}

}  // namespace irlite
