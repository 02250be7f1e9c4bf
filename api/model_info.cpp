// What a model and irlite are, before anything is compiled: the Parameters and Results as the file
// declares them, the ops a model uses, the ops irlite runs, and irlite's version.
#include <algorithm>

#include "irlite/irlite.hpp"
#include "engine/op.hpp"
#include "kernels/all_ops.hpp"

#ifndef IRLITE_VERSION
#define IRLITE_VERSION "0.0.0"
#endif

namespace irlite {
namespace {

std::string attribute(const IrLayer& l, const char* name) {
    for (const IrAttribute& a : l.attributes)
        if (a.name == name) return a.value;
    return {};
}

PortInfoDeclared declared_port(const IrLayer& l, const IrPort* port) {
    PortInfoDeclared p;
    p.name = l.name;
    p.element_type = attribute(l, "element_type");
    if (port) {
        p.names = port->names();
        if (p.element_type.empty()) p.element_type = port->precision;
        if (port->dims_valid) p.shape = PartialShape(port->dims.to_vector());
    }
    return p;
}

}  // namespace

const char* version() { return IRLITE_VERSION; }

std::vector<SupportedOp> supported_ops() {
    std::vector<SupportedOp> ops;
    for (const OpDef& d : builtin_ops().all()) ops.push_back({d.type, d.version, d.first_opset, d.last_opset});
    std::sort(ops.begin(), ops.end(), [](const SupportedOp& a, const SupportedOp& b) {
        return a.type != b.type ? a.type < b.type : a.version < b.version;
    });
    return ops;
}

std::vector<PortInfoDeclared> Model::inputs() const {
    std::vector<PortInfoDeclared> ports;
    for (const IrLayer& l : document_->layers)
        if (canonical_op_type(l.type) == "parameter")
            ports.push_back(declared_port(l, l.outputs.empty() ? nullptr : &l.outputs[0]));
    return ports;
}

std::vector<PortInfoDeclared> Model::outputs() const {
    std::vector<PortInfoDeclared> ports;
    for (const IrLayer& l : document_->layers) {
        if (canonical_op_type(l.type) != "result") continue;
        PortInfoDeclared p = declared_port(l, l.inputs.empty() ? nullptr : &l.inputs[0]);
        // The tensor names live on the producer's output port, as compile names outputs.
        for (const IrEdge& e : document_->edges) {
            if (!e.to_layer || e.to_layer != l.id || !e.from_layer) continue;
            for (const IrLayer& producer : document_->layers) {
                if (producer.id != e.from_layer) continue;
                for (const IrPort& out : producer.outputs) {
                    if (!e.from_port || out.id != e.from_port) continue;
                    std::vector<std::string> names = out.names();
                    if (names.empty()) continue;
                    p.names = std::move(names);
                    p.name = p.names.front();
                    if (p.element_type.empty()) p.element_type = out.precision;
                }
            }
        }
        ports.push_back(std::move(p));
    }
    return ports;
}

std::vector<std::string> Model::ops() const {
    std::vector<std::string> ops;
    for (const IrLayer& l : document_->layers) {
        std::string v(l.version);
        if (v.rfind("opset", 0) == 0) v = v.substr(5);
        const std::string op = std::string(l.type) + "-" + v;
        if (std::find(ops.begin(), ops.end(), op) == ops.end()) ops.push_back(op);
    }
    return ops;
}

}  // namespace irlite
