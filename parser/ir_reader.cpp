// pugixml -> IrDocument. Traverses only the known structure (net/layers/layer/..., net/edges/edge),
// iteratively, so deeply nested or huge documents cost no stack.
#include "parser/ir_reader.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <pugixml.hpp>

#include "engine/error.hpp"
#include "parser/weights.hpp"

namespace irlite {
namespace {

// Byte offset -> 1-based line, by binary search over newline offsets.
class LineIndex {
public:
    LineIndex(const char* text, size_t size) {
        for (size_t i = 0; i < size; ++i)
            if (text[i] == '\n') newlines_.push_back(i);
    }
    int64_t line_of(ptrdiff_t offset) const {
        if (offset < 0) return 0;
        return static_cast<int64_t>(std::lower_bound(newlines_.begin(), newlines_.end(), static_cast<size_t>(offset)) -
                                    newlines_.begin()) + 1;
    }
    int64_t column_of(ptrdiff_t offset) const {
        const int64_t line = line_of(offset);
        const size_t start = line <= 1 ? 0 : newlines_[static_cast<size_t>(line - 2)] + 1;
        return static_cast<int64_t>(offset) - static_cast<int64_t>(start) + 1;
    }

private:
    std::vector<size_t> newlines_;
};

std::string trim(std::string_view s) {
    size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
    return std::string(s.substr(b, e - b));
}

// Strict whole-string unsigned parse (no sign, no junk, no overflow past int64).
int64_t parse_unsigned(std::string_view text) {
    const std::string t = trim(text);
    if (t.empty() || t.size() > 18) return -1;
    for (char c : t)
        if (c < '0' || c > '9') return -1;
    return std::stoll(t);
}

// Splits `names` on unescaped commas; "\," is a literal comma.
std::vector<std::string> split_names(std::string_view text) {
    std::vector<std::string> out;
    std::string cur;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == ',') {
            cur += ',';
            ++i;
        } else if (text[i] == ',') {
            out.push_back(trim(cur));
            cur.clear();
        } else {
            cur += text[i];
        }
    }
    out.push_back(trim(cur));
    out.erase(std::remove(out.begin(), out.end(), std::string()), out.end());
    return out;
}

class Reader {
public:
    Reader(const char* text, size_t size, std::string file) : text_(text), size_(size), lines_(text, size), file_(std::move(file)) {}

    IrDocument read() {
        pugi::xml_document xml;
        const pugi::xml_parse_result ok = xml.load_buffer(text_, size_, pugi::parse_default, pugi::encoding_utf8);
        if (!ok) {
            Location where{file_, lines_.line_of(ok.offset)};
            throw Error(ErrorKind::Parse, "xml-malformed",
                        str("XML is not well-formed: ", ok.description(), " (line ", lines_.line_of(ok.offset),
                            ", column ", lines_.column_of(ok.offset), ")"),
                        where);
        }
        const pugi::xml_node net = xml.document_element();
        std::string root = net.name();
        std::transform(root.begin(), root.end(), root.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        if (root != "net")
            throw Error(ErrorKind::Parse, "xml-no-net",
                        str("the root element is <", net.name(), ">, expected <net> (not an OpenVINO IR file?)"),
                        at(net));
        IrDocument doc;
        doc.xml_path = file_;
        doc.name = net.attribute("name").value();
        const pugi::xml_attribute version = net.attribute("version");
        doc.ir_version = version ? parse_unsigned(version.value()) : -1;
        if (doc.ir_version != 10 && doc.ir_version != 11)
            throw Error(ErrorKind::Unsupported, "ir-version",
                        version ? str("IR version \"", version.value(), "\" is not supported; supported IR versions are 10 and 11")
                                : std::string("<net> has no version attribute; supported IR versions are 10 and 11"),
                        at(net));
        for (pugi::xml_node l = net.child("layers").child("layer"); l; l = l.next_sibling("layer"))
            doc.layers.push_back(read_layer(l));
        for (pugi::xml_node e = net.child("edges").child("edge"); e; e = e.next_sibling("edge"))
            doc.edges.push_back(read_edge(e));
        return doc;
    }

private:
    int64_t line(const pugi::xml_node& n) const { return lines_.line_of(n.offset_debug()); }
    Location at(const pugi::xml_node& n) const { return Location{file_, line(n)}; }

    IrLayer read_layer(const pugi::xml_node& node) const {
        IrLayer l;
        l.line = line(node);
        for (const pugi::xml_attribute a : node.attributes()) {
            const std::string name = a.name();
            if (name == "id") l.id_text = a.value();
            else if (name == "name") l.name = a.value();
            else if (name == "type") l.type = a.value();
            else if (name == "version") l.version = a.value();
            else l.layer_attributes.push_back({name, a.value()});
        }
        l.id = parse_unsigned(l.id_text);
        const pugi::xml_node data = node.child("data");
        l.data_line = data ? line(data) : l.line;
        for (const pugi::xml_attribute a : data.attributes()) l.attributes.push_back({a.name(), a.value()});
        for (pugi::xml_node p = node.child("input").child("port"); p; p = p.next_sibling("port"))
            l.inputs.push_back(read_port(p));
        for (pugi::xml_node p = node.child("output").child("port"); p; p = p.next_sibling("port"))
            l.outputs.push_back(read_port(p));
        return l;
    }

    IrPort read_port(const pugi::xml_node& node) const {
        IrPort p;
        p.line = line(node);
        p.id_text = node.attribute("id").value();
        p.id = parse_unsigned(p.id_text);
        p.precision = trim(node.attribute("precision").value());
        if (const pugi::xml_attribute names = node.attribute("names")) p.names = split_names(names.value());
        for (pugi::xml_node d = node.child("dim"); d; d = d.next_sibling("dim")) {
            const std::string text = trim(d.child_value());
            char* end = nullptr;
            errno = 0;
            const long long v = std::strtoll(text.c_str(), &end, 10);
            if (text.empty() || errno == ERANGE || end != text.c_str() + text.size() || v < -1) {
                if (p.dims_valid)
                    p.dims_error = str("<dim>", text, "</dim> is not a valid dimension (an integer >= -1; ",
                                       "'?' and intervals are not allowed in port dims)");
                p.dims_valid = false;
                p.dims.push_back(-1);
                continue;
            }
            p.dims.push_back(v);
        }
        return p;
    }

    IrEdge read_edge(const pugi::xml_node& node) const {
        IrEdge e;
        e.line = line(node);
        e.from_layer = parse_unsigned(node.attribute("from-layer").value());
        e.from_port = parse_unsigned(node.attribute("from-port").value());
        e.to_layer = parse_unsigned(node.attribute("to-layer").value());
        e.to_port = parse_unsigned(node.attribute("to-port").value());
        e.text = str("from-layer=", node.attribute("from-layer").value(), " from-port=", node.attribute("from-port").value(),
                     " to-layer=", node.attribute("to-layer").value(), " to-port=", node.attribute("to-port").value());
        return e;
    }

    const char* text_;
    size_t size_;
    LineIndex lines_;
    std::string file_;
};

std::string read_whole_file(const std::string& path) {
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) throw Error(ErrorKind::Io, "xml-unreadable", str("cannot open '", path, "': ", std::strerror(errno)));
    std::string data;
    char buf[1 << 16];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) data.append(buf, n);
    const bool failed = std::ferror(f);
    std::fclose(f);
    if (failed) throw Error(ErrorKind::Io, "xml-unreadable", str("cannot read '", path, "'"));
    return data;
}

bool is_regular_file(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string default_bin_path(const std::string& xml_path) {
    const size_t slash = xml_path.find_last_of('/');
    const size_t dot = xml_path.find_last_of('.');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return xml_path + ".bin";
    return xml_path.substr(0, dot) + ".bin";
}

}  // namespace

IrDocument read_ir_memory(std::string_view xml_text, std::shared_ptr<WeightsBlob> weights, std::string display_name) {
    IrDocument doc = Reader(xml_text.data(), xml_text.size(), std::move(display_name)).read();
    doc.weights = std::move(weights);
    if (!doc.weights) doc.weights_note = "no weights were given";
    return doc;
}

IrDocument read_ir_file(const std::string& xml_path, const std::string& bin_path) {
    const std::string text = read_whole_file(xml_path);
    IrDocument doc = Reader(text.data(), text.size(), xml_path).read();
    if (!bin_path.empty()) {
        doc.weights = map_weights_file(bin_path);
    } else {
        const std::string guess = default_bin_path(xml_path);
        if (is_regular_file(guess)) doc.weights = map_weights_file(guess);
        else doc.weights_note = str("no weights file: '", guess, "' does not exist");
    }
    return doc;
}

}  // namespace irlite
