// The IR document: what the parser reads from model.xml (and model.bin), before any checking
// beyond well-formedness. Plain data: layers, ports, dims, attributes and edges, each with the XML
// line it came from, so that every later error can point into the file.
//
// Compact, because a large model's document is built on every load: names, types and other texts
// are views of the XML text as pugixml left it (parsed in place, escapes resolved), and dims are
// views of arrays the document keeps; IrDocument::storage owns all of them and is shared by copies
// of the document. Code that builds a document by hand keeps its strings alive itself or stores
// them with IrDocument::keep.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace irlite {

// The model's weights: the bytes of model.bin, memory-mapped or held in memory. Const tensors are
// views into it and keep it alive through `owner`.
struct WeightsBlob {
    const std::byte* data = nullptr;
    size_t size = 0;
    std::shared_ptr<const void> owner;  // keeps the mapping / buffer alive
    std::string path;                   // for messages; empty when read from memory
};

// A layer, port or edge id. OpenVINO reads ids as unsigned 64-bit integers, so every value from 0
// to 2^64-1 is valid; nullopt when the text is not one (sign, spaces, junk, overflow).
using IrId = std::optional<uint64_t>;

struct IrAttribute {
    std::string name;
    std::string value;
};

// A port's dims: a view of an array the document keeps (or, in code that builds ports by hand, of
// any array that outlives the port).
class IrDims {
public:
    IrDims() = default;
    IrDims(const int64_t* data, size_t size) : data_(data), size_(size) {}
    const int64_t* begin() const { return data_; }
    const int64_t* end() const { return data_ + size_; }
    const int64_t* data() const { return data_; }
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    int64_t operator[](size_t i) const { return data_[i]; }
    std::vector<int64_t> to_vector() const { return std::vector<int64_t>(begin(), end()); }
    bool operator==(const std::vector<int64_t>& o) const {
        if (o.size() != size_) return false;
        for (size_t i = 0; i < size_; ++i)
            if (data_[i] != o[i]) return false;
        return true;
    }

private:
    const int64_t* data_ = nullptr;
    size_t size_ = 0;
};

// XML whitespace, and a text without it at either end.
inline bool is_xml_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
inline std::string_view trim_xml_space(std::string_view s) {
    size_t begin = 0, end = s.size();
    while (begin < end && is_xml_space(s[begin])) ++begin;
    while (end > begin && is_xml_space(s[end - 1])) --end;
    return s.substr(begin, end - begin);
}

// Tensor names as written in a port's `names` attribute: split on unescaped commas ("\," is a
// literal comma), spaces around each name and empty names dropped.
std::vector<std::string> split_port_names(std::string_view names);

struct IrPort {
    std::string_view id_text;    // the `id` attribute as written (validated by the graph builder)
    IrId id;                     // parsed id; nullopt when id_text is not a valid unsigned integer
    std::string_view precision;  // as written; may be empty (input ports often have none)
    IrDims dims;                 // the <dim> children, -1 = dynamic
    bool dims_valid = true;      // false when a <dim> was not an integer >= -1
    std::string dims_error;      // why, when !dims_valid
    std::string_view names_text;  // the `names` attribute as written (escapes resolved)
    int64_t line = 0;

    // The tensor names (output ports), split_port_names(names_text).
    std::vector<std::string> names() const { return split_port_names(names_text); }
};

struct IrDocument;

// A <port_map> entry (<input .../>, <output .../>) or a <back_edges> <edge .../> of a layer with a
// body: its attributes as written (the engine parses and checks them) and its line.
struct IrMapEntry {
    std::string_view element;  // "input", "output" or "edge"
    std::vector<IrAttribute> attributes;
    int64_t line = 0;

    // The attribute's value, or null when absent.
    const std::string* find(std::string_view name) const {
        for (const IrAttribute& a : attributes)
            if (a.name == name) return &a.value;
        return nullptr;
    }
};

// A layer's sub-graph (TensorIterator-1 and Loop-5: <body>; If-8: <then_body> and <else_body>):
// a document of its own (layer ids from 0, the file's .bin, the same XML storage), with the port
// map and back edges written beside it.
struct IrBody {
    std::string_view name;                  // "body", "then_body", "else_body"
    int64_t line = 0;                       // of the body element
    std::shared_ptr<IrDocument> document;   // its layers and edges
    std::vector<IrMapEntry> port_map;       // <port_map> / <then_port_map> / <else_port_map> entries
    int64_t port_map_line = 0;              // 0: no port map was written
    std::vector<IrMapEntry> back_edges;     // <back_edges> (the <body>'s only)
};

struct IrLayer {
    std::string_view id_text;
    IrId id;  // nullopt when id_text is not a valid unsigned integer
    std::string_view name;
    std::string_view type;
    std::string_view version;  // opset name as written, e.g. "opset8"
    std::vector<IrAttribute> attributes;  // the <data> element's attributes, in file order
    int64_t data_line = 0;                // line of <data>, or of the layer when absent
    std::vector<IrPort> inputs;
    std::vector<IrPort> outputs;
    std::vector<IrAttribute> layer_attributes;  // extra attributes on <layer> (e.g. output_names)
    std::vector<IrBody> bodies;  // sub-graphs, in file order (empty for ordinary layers)
    int64_t line = 0;

    // The body named `name` ("body", "then_body", ...), or null.
    const IrBody* body(std::string_view body_name) const {
        for (const IrBody& b : bodies)
            if (b.name == body_name) return &b;
        return nullptr;
    }
};

struct IrEdge {
    IrId from_layer, from_port, to_layer, to_port;  // nullopt = unparsable or missing
    std::string text;  // the edge as written when the ids do not give it back; see edge_text()
    int64_t line = 0;
};

// The edge as written, for messages: from-layer="1" from-port="0" to-layer="2" to-port="0".
inline std::string edge_text(const IrEdge& e) {
    if (!e.text.empty()) return e.text;
    const auto id = [](const IrId& v) { return v ? std::to_string(*v) : std::string(); };
    return "from-layer=\"" + id(e.from_layer) + "\" from-port=\"" + id(e.from_port) + "\" to-layer=\"" +
           id(e.to_layer) + "\" to-port=\"" + id(e.to_port) + "\"";
}

struct IrDocument {
    // What the views in layers and ports point into (the parsed XML text, dims arrays, kept
    // strings). Shared with copies of the document, so their views stay valid.
    std::vector<std::shared_ptr<const void>> storage;

    // Stores `text` with the document; the view stays valid as long as the document or a copy.
    std::string_view keep(std::string text);
    // The same for dims.
    IrDims keep(std::vector<int64_t> dims);

    std::string xml_path;  // for messages; "<memory>" when read from memory
    std::string name;      // <net name>
    int64_t ir_version = 0;
    std::vector<IrLayer> layers;  // in file order
    std::vector<IrEdge> edges;    // in file order
    std::shared_ptr<WeightsBlob> weights;  // null when no .bin was found or given
    std::string weights_note;              // why weights are null (missing file, ...), for messages
};

}  // namespace irlite
