// pugixml -> IrDocument. Traverses only the known structure (net/layers/layer/..., net/edges/edge)
// with sibling loops, never recursively, so deeply nested or huge documents cost no stack.
#include "parser/ir_reader.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <exception>
#include <limits>
#include <thread>
#include <vector>
#include <pugixml.hpp>

#include "irlite/error.hpp"
#include "parser/weights.hpp"

namespace irlite {
namespace {

// Byte offset -> 1-based line and column. The reader asks in document order, so lines are counted
// forward from the previous answer: one pass over the text in all, and no table of every newline
// (a binary search per node over hundreds of thousands of lines showed in the load time of large
// models). An offset before the previous one (only on error paths) counts from the start.
class LineIndex {
public:
    LineIndex(const char* text, size_t size) : text_(text), size_(size) {}
    // 0 when the offset is unknown (pugixml returns -1 then).
    int64_t line_of(ptrdiff_t offset) const {
        if (offset < 0) return 0;
        const size_t at = std::min(static_cast<size_t>(offset), size_);
        if (at < last_offset_) {
            last_offset_ = 0;
            last_line_ = 1;
        }
        last_line_ += static_cast<int64_t>(std::count(text_ + last_offset_, text_ + at, '\n'));
        last_offset_ = at;
        return last_line_;
    }
    int64_t column_of(ptrdiff_t offset) const {
        if (offset < 0) return 0;
        const size_t at = std::min(static_cast<size_t>(offset), size_);
        size_t line_start = at;
        while (line_start > 0 && text_[line_start - 1] != '\n') --line_start;
        return static_cast<int64_t>(at - line_start) + 1;
    }

private:
    const char* text_;
    size_t size_;
    mutable size_t last_offset_ = 0;
    mutable int64_t last_line_ = 1;
};

Location file_and_line(const std::string& file, int64_t line) {
    Location where;
    where.file = file;
    where.line = line;
    return where;
}

// Strict whole-string unsigned parse: digits only (no sign, no spaces, no suffix), at most
// 2^64-1 (OpenVINO reads ids as unsigned 64-bit). nullopt otherwise.
IrId parse_id(std::string_view text) {
    if (text.empty()) return std::nullopt;
    uint64_t value = 0;
    for (const char c : text) {
        if (c < '0' || c > '9') return std::nullopt;
        const auto digit = static_cast<uint64_t>(c - '0');
        if (value > (std::numeric_limits<uint64_t>::max() - digit) / 10) return std::nullopt;
        value = value * 10 + digit;
    }
    return value;
}

// The same for values that must fit int64 (dims, the IR version); -1 otherwise.
int64_t parse_unsigned(std::string_view text) {
    const IrId v = parse_id(text);
    if (!v || *v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return -1;
    return static_cast<int64_t>(*v);
}

// A <dim>: an int64 >= -1, optionally surrounded by XML whitespace (pretty-printed files).
bool parse_dim(std::string_view text, int64_t& out) {
    text = trim_xml_space(text);
    if (text == "-1") {
        out = -1;
        return true;
    }
    out = parse_unsigned(text);
    return out >= 0;
}


bool equals_ignoring_case(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

// How many children a node has, whatever their names: an upper bound to reserve with, that
// costs no string comparison.
size_t count_children(const pugi::xml_node& parent) {
    size_t n = 0;
    for (pugi::xml_node c = parent.first_child(); c; c = c.next_sibling()) ++n;
    return n;
}

// Reads layers, ports and edges out of the parsed tree. Large documents are read by two threads,
// each with its own ElementReader: line numbers are counted forward from the last one asked.
class ElementReader {
public:
    ElementReader(std::string_view text, const std::string& file) : lines_(text.data(), text.size()), file_(file) {}

    // The arrays the ports' dims point into, for the document to keep.
    std::vector<std::shared_ptr<const void>> take_dims_storage() { return std::move(dims_blocks_); }

    void read_layer(const pugi::xml_node& node, IrLayer& layer) {
        layer.line = line(node);
        for (const pugi::xml_attribute a : node.attributes()) {
            const std::string_view name = a.name();
            if (name == "id") layer.id_text = a.value();
            else if (name == "name") layer.name = a.value();
            else if (name == "type") layer.type = a.value();
            else if (name == "version") layer.version = a.value();
            else layer.layer_attributes.push_back({a.name(), a.value()});
        }
        layer.id = parse_id(layer.id_text);
        // One pass over the children for the first <data>, <input> and <output>.
        pugi::xml_node data, inputs, outputs;
        bool has_body = false;
        for (pugi::xml_node c = node.first_child(); c; c = c.next_sibling()) {
            const std::string_view name = c.name();
            if (name == "data" && !data) data = c;
            else if (name == "input" && !inputs) inputs = c;
            else if (name == "output" && !outputs) outputs = c;
            else if (name == "body" || name == "then_body" || name == "else_body") has_body = true;
        }
        layer.data_line = data ? line(data) : layer.line;
        size_t n_attributes = 0;
        for (pugi::xml_attribute a = data.first_attribute(); a; a = a.next_attribute()) ++n_attributes;
        layer.attributes.reserve(n_attributes);
        for (const pugi::xml_attribute a : data.attributes()) layer.attributes.push_back({a.name(), a.value()});
        layer.inputs.reserve(count_children(inputs));
        layer.outputs.reserve(count_children(outputs));
        for (pugi::xml_node port = inputs.child("port"); port; port = port.next_sibling("port"))
            read_port(port, layer.inputs.emplace_back());
        for (pugi::xml_node port = outputs.child("port"); port; port = port.next_sibling("port"))
            read_port(port, layer.outputs.emplace_back());
        if (has_body) read_bodies(node, layer);
    }

    // A layer's sub-graphs (TensorIterator, Loop, If): <body> with <port_map> and <back_edges>,
    // <then_body> with <then_port_map>, <else_body> with <else_port_map>, in any order. A body is
    // read like the file's own <layers> and <edges>, into a document of its own; bodies nest, up
    // to kMaxBodyDepth deep (the reader recurses once per level).
    void read_bodies(const pugi::xml_node& node, IrLayer& layer) {
        static constexpr const char* kBodies[][2] = {
            {"body", "port_map"}, {"then_body", "then_port_map"}, {"else_body", "else_port_map"}};
        for (pugi::xml_node c = node.first_child(); c; c = c.next_sibling()) {
            const std::string_view name = c.name();
            for (const auto& kind : kBodies) {
                if (name != kind[0]) continue;
                if (depth_ >= kMaxBodyDepth)
                    throw Error(ErrorKind::Limit, "body-too-deep",
                                str("<", name, "> of layer '", layer.name, "' is nested ", depth_ + 1,
                                    " bodies deep; at most ", kMaxBodyDepth, " are allowed"),
                                file_and_line(file_, line(c)));
                IrBody& body = layer.bodies.emplace_back();
                body.name = kind[0];
                body.line = line(c);
                body.document = std::make_shared<IrDocument>();
                ++depth_;
                for (pugi::xml_node l = c.child("layers").child("layer"); l; l = l.next_sibling("layer"))
                    read_layer(l, body.document->layers.emplace_back());
                for (pugi::xml_node e = c.child("edges").child("edge"); e; e = e.next_sibling("edge"))
                    read_edge(e, body.document->edges.emplace_back());
                --depth_;
                if (const pugi::xml_node map = node.child(kind[1])) {
                    body.port_map_line = line(map);
                    for (pugi::xml_node e = map.first_child(); e; e = e.next_sibling())
                        if (e.type() == pugi::node_element) read_map_entry(e, body.port_map.emplace_back());
                }
                if (body.name == "body")
                    for (pugi::xml_node e = node.child("back_edges").child("edge"); e; e = e.next_sibling("edge"))
                        read_map_entry(e, body.back_edges.emplace_back());
            }
        }
    }

    void read_map_entry(const pugi::xml_node& node, IrMapEntry& entry) {
        entry.element = node.name();
        entry.line = line(node);
        for (const pugi::xml_attribute a : node.attributes()) entry.attributes.push_back({a.name(), a.value()});
    }

    void read_port(const pugi::xml_node& node, IrPort& port) {
        port.line = line(node);
        // One pass over the attributes (the first of each name counts, as with node.attribute()).
        bool seen_id = false, seen_precision = false, seen_names = false;
        for (const pugi::xml_attribute a : node.attributes()) {
            const std::string_view name = a.name();
            if (name == "id" && !seen_id) {
                port.id_text = a.value();
                seen_id = true;
            } else if (name == "precision" && !seen_precision) {
                port.precision = a.value();
                seen_precision = true;
            } else if (name == "names" && !seen_names) {
                port.names_text = a.value();
                seen_names = true;
            }
        }
        port.id = parse_id(port.id_text);
        int64_t* dims = allocate_dims(count_children(node));
        size_t rank = 0;
        for (pugi::xml_node dim = node.child("dim"); dim; dim = dim.next_sibling("dim")) {
            int64_t value = -1;
            if (!parse_dim(dim.child_value(), value)) {
                if (port.dims_valid)
                    port.dims_error = str("<dim>", dim.child_value(), "</dim> (line ", line(dim),
                                          ") is not a valid dimension: expected an integer >= -1 (-1 = dynamic; ",
                                          "'?' and intervals are not allowed in port dims)");
                port.dims_valid = false;
            }
            dims[rank++] = value;
        }
        port.dims = IrDims(dims, rank);
    }

    void read_edge(const pugi::xml_node& node, IrEdge& edge) {
        edge.line = line(node);
        // One pass over the attributes; the first of each name counts, "" when absent.
        const char* from_layer = nullptr;
        const char* from_port = nullptr;
        const char* to_layer = nullptr;
        const char* to_port = nullptr;
        for (const pugi::xml_attribute a : node.attributes()) {
            const std::string_view name = a.name();
            const char** slot = name == "from-layer" ? &from_layer
                                : name == "from-port" ? &from_port
                                : name == "to-layer"  ? &to_layer
                                : name == "to-port"   ? &to_port
                                                      : nullptr;
            if (slot && !*slot) *slot = a.value();
        }
        for (const char** v : {&from_layer, &from_port, &to_layer, &to_port})
            if (!*v) *v = "";
        edge.from_layer = parse_id(from_layer);
        edge.from_port = parse_id(from_port);
        edge.to_layer = parse_id(to_layer);
        edge.to_port = parse_id(to_port);
        // The text as written is kept only when the ids do not give it back (junk, leading zeros):
        // a string per edge shows in the load time of large models. edge_text() rebuilds the rest.
        const auto canonical = [](const char* v, const IrId& id) { return id && (v[0] != '0' || v[1] == '\0'); };
        if (!canonical(from_layer, edge.from_layer) || !canonical(from_port, edge.from_port) ||
            !canonical(to_layer, edge.to_layer) || !canonical(to_port, edge.to_port)) {
            edge.text.append("from-layer=\"").append(from_layer).append("\" from-port=\"").append(from_port);
            edge.text.append("\" to-layer=\"").append(to_layer).append("\" to-port=\"").append(to_port).append("\"");
        }
    }

private:
    int64_t line(const pugi::xml_node& node) { return lines_.line_of(node.offset_debug()); }

    // Room for n dims, in blocks shared by many ports (one allocation per few thousand dims).
    int64_t* allocate_dims(size_t n) {
        constexpr size_t kBlock = 4096;
        if (n > kBlock) {
            auto own = std::make_shared<std::vector<int64_t>>(n);
            dims_blocks_.push_back(own);
            return own->data();
        }
        if (!block_ || block_used_ + n > kBlock) {
            block_ = std::make_shared<std::vector<int64_t>>(kBlock);
            dims_blocks_.push_back(block_);
            block_used_ = 0;
        }
        int64_t* at = block_->data() + block_used_;
        block_used_ += n;
        return at;
    }

    static constexpr int kMaxBodyDepth = 16;

    LineIndex lines_;
    const std::string& file_;
    int depth_ = 0;  // bodies being read around the current element
    std::vector<std::shared_ptr<const void>> dims_blocks_;
    std::shared_ptr<std::vector<int64_t>> block_;
    size_t block_used_ = 0;
};

class Reader {
public:
    // `text` is the document as written (lines are counted in it); `scratch`, a private copy of it
    // of the same size that pugixml parses in place (it writes terminators and resolved escapes
    // into it). The document's strings are views of `scratch`: the caller keeps it in the
    // document's storage.
    Reader(std::string_view text, std::string file, char* scratch)
        : text_(text), scratch_(scratch), lines_(text.data(), text.size()), file_(std::move(file)) {}

    IrDocument read() const {
        pugi::xml_document xml;
        // parse_embed_pcdata keeps a <dim>'s text in the element itself instead of a child node:
        // a smaller tree to build, walk and free (a large IR has several dims per port).
        const unsigned options = pugi::parse_default | pugi::parse_fragment | pugi::parse_embed_pcdata;
        const pugi::xml_parse_result parsed = xml.load_buffer_inplace(scratch_, text_.size(), options, pugi::encoding_utf8);
        if (!parsed) {
            const int64_t line = lines_.line_of(parsed.offset);
            throw Error(ErrorKind::Parse, "xml-malformed",
                        str("XML is not well-formed: ", parsed.description(), " (line ", line, ", column ",
                            lines_.column_of(parsed.offset), ")"),
                        file_and_line(file_, line));
        }
        check_single_root(xml);
        const pugi::xml_node net = xml.document_element();
        // OpenVINO checks the root tag case-insensitively.
        if (!equals_ignoring_case(net.name(), "net"))
            throw Error(ErrorKind::Parse, "xml-no-net",
                        str("the root element is <", net.name(), ">, expected <net> (not an OpenVINO IR file?)"),
                        at(net));
        IrDocument doc;
        doc.xml_path = file_;
        doc.name = net.attribute("name").value();
        doc.ir_version = read_version(net);
        const pugi::xml_node layers = net.child("layers");
        const pugi::xml_node edges = net.child("edges");
        read_elements(layers, edges, doc);
        return doc;
    }

private:
    int64_t line(const pugi::xml_node& node) const { return lines_.line_of(node.offset_debug()); }

    // Every <layer> and <edge>, in file order. Each element is read on its own (into its slot of
    // the document), so a large document is split between two threads: on a model of thousands of
    // layers the walk over the tree and the document's allocations are most of the load time.
    void read_elements(const pugi::xml_node& layers, const pugi::xml_node& edges, IrDocument& doc) const {
        std::vector<pugi::xml_node> layer_nodes, edge_nodes;
        layer_nodes.reserve(count_children(layers));
        edge_nodes.reserve(count_children(edges));
        for (pugi::xml_node layer = layers.child("layer"); layer; layer = layer.next_sibling("layer"))
            layer_nodes.push_back(layer);
        for (pugi::xml_node edge = edges.child("edge"); edge; edge = edge.next_sibling("edge"))
            edge_nodes.push_back(edge);
        const size_t n_layers = layer_nodes.size(), n_edges = edge_nodes.size();
        doc.layers.resize(n_layers);
        doc.edges.resize(n_edges);
        const auto read_part = [&](size_t layers_begin, size_t layers_end, size_t edges_begin, size_t edges_end,
                                   std::vector<std::shared_ptr<const void>>& storage) {
            ElementReader reader(text_, file_);
            for (size_t i = layers_begin; i < layers_end; ++i) reader.read_layer(layer_nodes[i], doc.layers[i]);
            for (size_t i = edges_begin; i < edges_end; ++i) reader.read_edge(edge_nodes[i], doc.edges[i]);
            storage = reader.take_dims_storage();
        };
        std::vector<std::shared_ptr<const void>> first_storage, second_storage;
        // A thread costs tens of microseconds: worth it only for large documents.
        constexpr size_t kParallelFrom = 1024;
        if (n_layers + n_edges < kParallelFrom || std::thread::hardware_concurrency() < 2) {
            read_part(0, n_layers, 0, n_edges, first_storage);
        } else {
            std::exception_ptr failed;  // bad_alloc and the like, rethrown here
            std::thread second([&] {
                try {
                    read_part(n_layers / 2, n_layers, n_edges / 2, n_edges, second_storage);
                } catch (...) {
                    failed = std::current_exception();
                }
            });
            try {
                read_part(0, n_layers / 2, 0, n_edges / 2, first_storage);
            } catch (...) {
                second.join();
                throw;
            }
            second.join();
            if (failed) std::rethrow_exception(failed);
        }
        for (auto* part : {&first_storage, &second_storage})
            doc.storage.insert(doc.storage.end(), part->begin(), part->end());
    }

    Location at(const pugi::xml_node& node) const { return file_and_line(file_, line(node)); }

    // Parsed as a fragment so that pugixml keeps top-level text (it would drop it silently); then
    // the document must have exactly one root element and no text beside it.
    void check_single_root(const pugi::xml_document& xml) const {
        bool seen_root = false;
        for (const pugi::xml_node node : xml.children()) {
            const pugi::xml_node_type type = node.type();
            if (type == pugi::node_pcdata || type == pugi::node_cdata || (type == pugi::node_element && seen_root)) {
                // Text nodes start at the whitespace before the text; point at the text itself.
                size_t offset = static_cast<size_t>(std::max<ptrdiff_t>(node.offset_debug(), 0));
                while (offset < text_.size() && is_xml_space(text_[offset])) ++offset;
                const auto at_offset = static_cast<ptrdiff_t>(offset);
                const int64_t line_no = lines_.line_of(at_offset);
                throw Error(ErrorKind::Parse, "xml-malformed",
                            str("XML is not well-formed: ",
                                type == pugi::node_element ? "a second root element <" + std::string(node.name()) + ">"
                                                           : std::string("text outside the root element"),
                                " (line ", line_no, ", column ", lines_.column_of(at_offset), ")"),
                            file_and_line(file_, line_no));
            }
            seen_root = seen_root || type == pugi::node_element;
        }
        if (!seen_root) {
            const int64_t end_line = lines_.line_of(static_cast<ptrdiff_t>(text_.size()));
            throw Error(ErrorKind::Parse, "xml-malformed", "XML is not well-formed: No document element found",
                        file_and_line(file_, end_line));
        }
    }

    int64_t read_version(const pugi::xml_node& net) const {
        const pugi::xml_attribute version = net.attribute("version");
        const int64_t value = version ? parse_unsigned(version.value()) : -1;
        if (value == 10 || value == 11) return value;
        throw Error(ErrorKind::Unsupported, "ir-version",
                    version ? str("IR version \"", version.value(), "\" is not supported; supported IR versions are 10 and 11")
                            : std::string("<net> has no version attribute; supported IR versions are 10 and 11"),
                    at(net));
    }

    std::string_view text_;
    char* scratch_;
    LineIndex lines_;
    std::string file_;
};

[[noreturn]] void xml_unreadable(const std::string& path, const char* what, int err) {
    throw Error(ErrorKind::Io, "xml-unreadable", str("cannot ", what, " '", path, "': ", std::strerror(err)));
}

// A whole regular file, memory-mapped read-only: pugixml copies what it parses anyway, so a
// private read buffer would only add page faults (a large IR is tens of megabytes).
class MappedText {
public:
    // writable: a private copy-on-write mapping whose pages are all copied up front (MAP_POPULATE),
    // for pugixml to parse in place: one system call instead of a page fault per page written.
    explicit MappedText(const std::string& path, bool writable = false) {
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) xml_unreadable(path, "open", errno);
        struct stat st {};
        if (::fstat(fd, &st) != 0) {
            const int err = errno;
            ::close(fd);
            xml_unreadable(path, "stat", err);
        }
        if (!S_ISREG(st.st_mode)) {
            ::close(fd);
            throw Error(ErrorKind::Io, "xml-unreadable", str("cannot read '", path, "': not a regular file"));
        }
        size_ = static_cast<size_t>(st.st_size);
        if (size_ > 0) {
            void* addr = writable ? ::mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_POPULATE, fd, 0)
                                  : ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
            if (addr == MAP_FAILED) {
                const int err = errno;
                ::close(fd);
                xml_unreadable(path, "map", err);
            }
            data_ = static_cast<char*>(addr);
        }
        ::close(fd);
    }
    ~MappedText() {
        if (data_) ::munmap(data_, size_);
    }
    MappedText(const MappedText&) = delete;
    MappedText& operator=(const MappedText&) = delete;
    std::string_view text() const { return data_ ? std::string_view(data_, size_) : std::string_view("", 0); }
    char* writable_data() const { return data_; }  // only for a writable mapping

private:
    char* data_ = nullptr;
    size_t size_ = 0;
};

bool file_exists(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0;
}

std::string default_bin_path(const std::string& xml_path) {
    const size_t slash = xml_path.find_last_of('/');
    const size_t dot = xml_path.find_last_of('.');
    const bool has_extension = dot != std::string::npos && (slash == std::string::npos || dot > slash + 1);
    return (has_extension ? xml_path.substr(0, dot) : xml_path) + ".bin";
}

// Bodies (IrBody::document) view the same XML text and dims arrays as the file's document and
// use its weights: each gets a share of the storage once the whole file is read.
void share_with_bodies(IrDocument& doc) {
    for (IrLayer& layer : doc.layers)
        for (IrBody& body : layer.bodies) {
            IrDocument& part = *body.document;
            part.storage = doc.storage;
            part.xml_path = doc.xml_path;
            part.name = doc.name;
            part.ir_version = doc.ir_version;
            part.weights = doc.weights;
            part.weights_note = doc.weights_note;
            share_with_bodies(part);
        }
}

}  // namespace

namespace {

// Reads `text` through a private copy pugixml parses in place, which the document keeps.
IrDocument read_text(std::string_view text, std::string display_name) {
    auto copy = std::make_shared<std::string>(text);
    IrDocument doc = Reader(text, std::move(display_name), copy->data()).read();
    doc.storage.push_back(std::move(copy));
    return doc;
}

// The file mapped twice: as written, to count lines in, and as a private copy pugixml parses in
// place (saving it a copy of the whole text), which the document keeps.
IrDocument read_xml(const std::string& xml_path) {
    const MappedText file(xml_path);
    auto scratch = std::make_shared<const MappedText>(xml_path, /*writable=*/true);
    if (scratch->text().size() != file.text().size() || file.text().empty())  // changed between the opens; or empty
        return read_text(file.text(), xml_path);
    IrDocument doc = Reader(file.text(), xml_path, scratch->writable_data()).read();
    doc.storage.push_back(std::move(scratch));
    return doc;
}

}  // namespace

IrDocument read_ir_memory(std::string_view xml_text, std::shared_ptr<WeightsBlob> weights, std::string display_name) {
    IrDocument doc = read_text(xml_text, std::move(display_name));
    doc.weights = std::move(weights);
    if (!doc.weights) doc.weights_note = "no weights were given";
    share_with_bodies(doc);
    return doc;
}

IrDocument read_ir_xml_only(const std::string& xml_path) {
    IrDocument doc = read_xml(xml_path);
    doc.weights_note = "weights not read (--no-weights)";
    share_with_bodies(doc);
    return doc;
}

IrDocument read_ir_file(const std::string& xml_path, const std::string& bin_path) {
    IrDocument doc = read_xml(xml_path);
    if (!bin_path.empty()) {
        doc.weights = map_weights_file(bin_path);
    } else {
        const std::string guess = default_bin_path(xml_path);
        // A path that exists but cannot be mapped (a directory, no permission) is an error, not "absent".
        if (file_exists(guess)) doc.weights = map_weights_file(guess);
        else doc.weights_note = str("the weights file '", guess, "' does not exist");
    }
    share_with_bodies(doc);
    return doc;
}

}  // namespace irlite
