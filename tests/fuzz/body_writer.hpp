// A sub-graph body for the graph fuzzer, written twice as it is built: as IR (layers and edges with
// body-local ids, Consts in the model's one .bin) and as a reference function that runs the same
// nodes with reference_ops.hpp, node by node in creation order.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "ir_builder.hpp"
#include "fuzz/reference_subgraphs.hpp"

namespace irlite::fuzz {

class BodyWriter {
public:
    // A body value: the layer and port that make it, its slot in the reference's node list, and
    // its type and (static) shape.
    struct Node {
        int layer = -1;
        int port = 0;
        size_t slot = 0;
        ElementType type = ElementType::f32;
        Shape shape;
    };
    // What an op computes from its inputs' values.
    using Compute = std::function<reference::RefTensor(const std::vector<reference::RefTensor>&)>;

    // `prefix` makes the body's layer and tensor names unique in the model.
    BodyWriter(std::vector<unsigned char>* weights, std::string prefix) : ir_(weights), prefix_(std::move(prefix)) {}

    // The next body Parameter (the reference's input `parameters()` - 1); `dynamic` declares `?`
    // dims (the port map hands it the real shape).
    Node parameter(ElementType type, const Shape& shape, bool dynamic) {
        std::vector<long long> dims(shape.begin(), shape.end());
        if (dynamic)
            for (auto& d : dims) d = -1;
        const Node n = add_node(type, shape, 0);
        ir_.parameter(n.layer, name(n.layer), to_string(type), dims);
        steps_.push_back({static_cast<int>(parameters_++), nullptr, {}});
        return n;
    }

    Node constant(const reference::RefTensor& t, const std::vector<unsigned char>& bytes) {
        const Node n = add_node(t.type, t.shape, 0);
        ir_.constant(n.layer, name(n.layer), to_string(t.type), dims(t.shape), bytes.data(), bytes.size());
        steps_.push_back({-1, [t](const std::vector<reference::RefTensor>&) { return t; }, {}});
        return n;
    }

    // One op with one output (port inputs.size()); `inner` is a nested sub-graph layer's port
    // maps and bodies.
    Node op(const std::string& type, const std::string& opset, const std::string& data, const std::vector<Node>& inputs,
            ElementType out_type, const Shape& out_shape, Compute compute, const std::string& inner = "") {
        std::vector<testing::PortSpec> in_ports;
        std::vector<size_t> slots;
        for (size_t i = 0; i < inputs.size(); ++i) {
            in_ports.push_back({static_cast<int>(i), "", dims(inputs[i].shape), ""});
            slots.push_back(inputs[i].slot);
            consumed_[inputs[i].slot] = true;
        }
        const Node n = add_node(out_type, out_shape, static_cast<int>(inputs.size()));
        ir_.layer(n.layer, name(n.layer), type, opset, data, in_ports,
                  {{n.port, testing::IrBuilder::precision(to_string(out_type)), dims(out_shape), ""}}, inner);
        for (size_t i = 0; i < inputs.size(); ++i) ir_.edge(inputs[i].layer, inputs[i].port, n.layer, static_cast<int>(i));
        steps_.push_back({-1, std::move(compute), std::move(slots)});
        return n;
    }

    // A body Result of `v`; returns its layer id (the port map's internal_layer_id). Results are
    // the reference's outputs in this order.
    int result(const Node& v) {
        const int id = next_id_++;
        ir_.result(id, name(id), to_string(v.type), dims(v.shape));
        ir_.edge(v.layer, v.port, id, 0);
        results_.push_back(v.slot);
        consumed_[v.slot] = true;
        result_shapes_.push_back(reference::make(v.type, v.shape));
        return id;
    }

    std::string xml(const std::string& tag) const { return "<" + tag + ">" + ir_.graph_xml() + "</" + tag + ">\n"; }
    size_t parameters() const { return parameters_; }
    // `n` feeds an op or a Result.
    bool consumed(const Node& n) const { return consumed_[n.slot]; }
    // Zero tensors of the Results' types and shapes.
    const std::vector<reference::RefTensor>& result_shapes() const { return result_shapes_; }

    // The reference body: every node in creation order, then the Results' values.
    reference::Body function() const {
        return [steps = steps_, results = results_](const std::vector<reference::RefTensor>& in) {
            std::vector<reference::RefTensor> values;
            for (const Step& s : steps) {
                if (s.parameter >= 0) {
                    values.push_back(in.at(static_cast<size_t>(s.parameter)));
                    continue;
                }
                std::vector<reference::RefTensor> args;
                for (size_t slot : s.inputs) args.push_back(values[slot]);
                values.push_back(s.compute(args));
            }
            std::vector<reference::RefTensor> out;
            for (size_t slot : results) out.push_back(values[slot]);
            return out;
        };
    }

private:
    struct Step {
        int parameter;  // >= 0: the body's input of that index
        Compute compute;
        std::vector<size_t> inputs;  // slots
    };

    static std::vector<long long> dims(const Shape& s) { return std::vector<long long>(s.begin(), s.end()); }
    std::string name(int id) const { return prefix_ + "_" + std::to_string(id); }

    Node add_node(ElementType type, const Shape& shape, int port) {
        Node n;
        n.layer = next_id_++;
        n.port = port;
        n.slot = steps_.size();
        consumed_.push_back(false);
        n.type = type;
        n.shape = shape;
        return n;
    }

    testing::IrBuilder ir_;
    std::string prefix_;
    int next_id_ = 0;
    size_t parameters_ = 0;
    std::vector<Step> steps_;
    std::vector<size_t> results_;
    std::vector<bool> consumed_;  // per slot
    std::vector<reference::RefTensor> result_shapes_;
};

}  // namespace irlite::fuzz
