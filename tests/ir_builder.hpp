// A tiny IR XML writer for tests: layers with ports and dims, edges, and a weights blob, so that
// tests state the graph they need in a few lines instead of pages of XML.
#pragma once

#include <cstring>
#include <string>
#include <vector>

namespace irlite::testing {

struct PortSpec {
    int id;
    std::string precision;  // "" = no precision attribute
    std::vector<long long> dims;
    std::string names;      // "" = no names attribute
};

class IrBuilder {
public:
    explicit IrBuilder(int version = 11) : version_(version) {}
    // A body's builder: its Consts go into the model's one .bin, `shared_weights` (the outer
    // builder's weights_for_bodies()), which must outlive it.
    explicit IrBuilder(std::vector<unsigned char>* shared_weights) : version_(11), shared_(shared_weights) {}

    // `inner` is XML placed after the ports (a sub-graph layer's port maps and bodies).
    IrBuilder& layer(int id, const std::string& name, const std::string& type, const std::string& opset,
                     const std::string& data, const std::vector<PortSpec>& inputs, const std::vector<PortSpec>& outputs,
                     const std::string& inner = "") {
        std::string s = "<layer id=\"" + std::to_string(id) + "\" name=\"" + name + "\" type=\"" + type +
                        "\" version=\"" + opset + "\">";
        if (!data.empty()) s += "<data " + data + "/>";
        if (!inputs.empty()) s += "<input>" + ports(inputs) + "</input>";
        if (!outputs.empty()) s += "<output>" + ports(outputs) + "</output>";
        layers_ += s + inner + "</layer>\n";
        return *this;
    }
    IrBuilder& parameter(int id, const std::string& name, const std::string& type, const std::vector<long long>& dims,
                         const std::string& shape_attr = "\x01") {
        std::string shape = shape_attr;
        if (shape == "\x01") {
            shape.clear();
            for (size_t i = 0; i < dims.size(); ++i) shape += (i ? "," : "") + (dims[i] < 0 ? std::string("?") : std::to_string(dims[i]));
        }
        return layer(id, name, "Parameter", "opset1", "shape=\"" + shape + "\" element_type=\"" + type + "\"", {},
                     {{0, precision(type), dims, name}});
    }
    IrBuilder& result(int id, const std::string& name, const std::string& type, const std::vector<long long>& dims) {
        return layer(id, name, "Result", "opset1", "", {{0, precision(type), dims, ""}}, {});
    }
    // A Const whose bytes are appended to the weights.
    IrBuilder& constant(int id, const std::string& name, const std::string& type, const std::vector<long long>& dims,
                        const void* bytes, size_t size) {
        std::vector<unsigned char>& weights = shared_ ? *shared_ : weights_;
        const size_t offset = weights.size();
        weights.resize(offset + size);
        if (size) std::memcpy(weights.data() + offset, bytes, size);
        std::string shape;
        for (size_t i = 0; i < dims.size(); ++i) shape += (i ? "," : "") + std::to_string(dims[i]);
        return layer(id, name, "Const", "opset1",
                     "element_type=\"" + type + "\" shape=\"" + shape + "\" offset=\"" + std::to_string(offset) +
                         "\" size=\"" + std::to_string(size) + "\"",
                     {}, {{0, precision(type), dims, name}});
    }
    IrBuilder& edge(int from, int from_port, int to, int to_port) {
        edges_ += "<edge from-layer=\"" + std::to_string(from) + "\" from-port=\"" + std::to_string(from_port) +
                  "\" to-layer=\"" + std::to_string(to) + "\" to-port=\"" + std::to_string(to_port) + "\"/>\n";
        return *this;
    }
    // The layers and edges: a net's content, or a body's.
    std::string graph_xml() const { return "<layers>\n" + layers_ + "</layers>\n<edges>\n" + edges_ + "</edges>\n"; }
    std::string xml() const {
        return "<?xml version=\"1.0\"?>\n<net name=\"test\" version=\"" + std::to_string(version_) + "\">\n" +
               graph_xml() + "</net>\n";
    }
    const std::vector<unsigned char>& weights() const { return weights_; }
    // Where this builder's Consts go: the pointer a body's builder shares.
    std::vector<unsigned char>* weights_for_bodies() { return shared_ ? shared_ : &weights_; }

    static std::string precision(const std::string& type) {
        static const char* map[][2] = {{"f16", "FP16"}, {"f32", "FP32"}, {"f64", "FP64"}, {"i8", "I8"},
                                       {"i16", "I16"},  {"i32", "I32"},  {"i64", "I64"},  {"u8", "U8"},
                                       {"u16", "U16"},  {"u32", "U32"},  {"u64", "U64"},  {"boolean", "BOOL"},
                                       {"bf16", "BF16"}};
        for (auto& m : map)
            if (type == m[0]) return m[1];
        return type;
    }

private:
    static std::string ports(const std::vector<PortSpec>& specs) {
        std::string s;
        for (const auto& p : specs) {
            s += "<port id=\"" + std::to_string(p.id) + "\"";
            if (!p.precision.empty()) s += " precision=\"" + p.precision + "\"";
            if (!p.names.empty()) s += " names=\"" + p.names + "\"";
            s += ">";
            for (long long d : p.dims) s += "<dim>" + std::to_string(d) + "</dim>";
            s += "</port>";
        }
        return s;
    }

    int version_;
    std::vector<unsigned char>* shared_ = nullptr;
    std::string layers_, edges_;
    std::vector<unsigned char> weights_;
};

}  // namespace irlite::testing
