// The IR reader (parser/ir_reader.hpp) and the weights blob (parser/weights.hpp): what lands in the
// IrDocument, which problems are recorded for the graph builder and which throw, line numbers,
// and how the .bin is found.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "irlite/error.hpp"
#include "parser/ir_reader.hpp"
#include "temp_dir.hpp"
#include "parser/weights.hpp"

namespace irlite {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

IrDocument parse(const std::string& xml) { return read_ir_memory(xml, nullptr, "test.xml"); }

Error parse_error(const std::string& xml) {
    try {
        parse(xml);
    } catch (const Error& e) {
        return e;
    }
    ADD_FAILURE() << "no error for:\n" << xml;
    return Error(ErrorKind::Usage, "none", "none");
}

// A <net> with the given layers and edges (plain text, so each test shows the XML it means).
std::string net(const std::string& layers, const std::string& edges = "", const std::string& version = "11") {
    return "<?xml version=\"1.0\"?>\n<net name=\"m\" version=\"" + version + "\">\n<layers>\n" + layers +
           "</layers>\n<edges>\n" + edges + "</edges>\n</net>\n";
}

// One layer with one output port whose attribute text and <dim> children are given.
std::string layer_with_port(const std::string& port_attributes, const std::string& dims = "") {
    return "<layer id=\"0\" name=\"p\" type=\"Parameter\" version=\"opset1\"><output><port " + port_attributes + ">" +
           dims + "</port></output></layer>\n";
}


// ---- structure ---------------------------------------------------------------------------

TEST(IrReader, LayersAndEdgesKeepFileOrderWithIdsOutOfOrder) {
    const IrDocument doc = parse(net(
        "<layer id=\"7\" name=\"out\" type=\"Result\" version=\"opset1\"><input><port id=\"0\"/></input></layer>\n"
        "<layer id=\"3\" name=\"x\" type=\"Parameter\" version=\"opset1\"><output><port id=\"1\"/></output></layer>\n",
        "<edge from-layer=\"3\" from-port=\"1\" to-layer=\"7\" to-port=\"0\"/>\n"
        "<edge from-layer=\"12\" from-port=\"4\" to-layer=\"9\" to-port=\"2\"/>\n"));
    EXPECT_EQ(doc.xml_path, "test.xml");
    EXPECT_EQ(doc.name, "m");
    EXPECT_EQ(doc.ir_version, 11);
    ASSERT_EQ(doc.layers.size(), 2u);
    EXPECT_EQ(doc.layers[0].id, 7u);
    EXPECT_EQ(doc.layers[0].name, "out");
    EXPECT_EQ(doc.layers[0].type, "Result");
    EXPECT_EQ(doc.layers[0].version, "opset1");
    EXPECT_EQ(doc.layers[1].id, 3u);
    ASSERT_EQ(doc.edges.size(), 2u);
    EXPECT_EQ(doc.edges[0].from_layer, 3u);
    EXPECT_EQ(doc.edges[0].from_port, 1u);
    EXPECT_EQ(doc.edges[0].to_layer, 7u);
    EXPECT_EQ(doc.edges[0].to_port, 0u);
    EXPECT_EQ(doc.edges[1].from_layer, 12u);
    EXPECT_EQ(doc.edges[1].to_port, 2u);
}

TEST(IrReader, PortIdsAreNotPositions) {
    const IrDocument doc = parse(net(
        "<layer id=\"1\" name=\"sum\" type=\"Add\" version=\"opset1\">"
        "<input><port id=\"5\"><dim>2</dim></port><port id=\"3\"><dim>2</dim></port></input>"
        "<output><port id=\"9\" precision=\"FP32\"><dim>2</dim></port></output></layer>\n"));
    const IrLayer& l = doc.layers.at(0);
    ASSERT_EQ(l.inputs.size(), 2u);
    EXPECT_EQ(l.inputs[0].id, 5u);
    EXPECT_EQ(l.inputs[0].id_text, "5");
    EXPECT_EQ(l.inputs[1].id, 3u);
    ASSERT_EQ(l.outputs.size(), 1u);
    EXPECT_EQ(l.outputs[0].id, 9u);
    EXPECT_EQ(l.outputs[0].dims, (std::vector<int64_t>{2}));
}

TEST(IrReader, ScalarPortHasNoDims) {
    const IrDocument doc = parse(net(layer_with_port("id=\"0\" precision=\"FP32\"")));
    const IrPort& p = doc.layers.at(0).outputs.at(0);
    EXPECT_TRUE(p.dims.empty());
    EXPECT_TRUE(p.dims_valid);
}

TEST(IrReader, DataAttributesInFileOrderAndExtraLayerAttributes) {
    const IrDocument doc = parse(net(
        "<layer id=\"2\" name=\"c\" type=\"Const\" version=\"opset1\" output_names=\"a,b\" extra=\"1\">\n"
        "<rt_info><attribute name=\"fused_names\" version=\"0\" value=\"c\"/></rt_info>\n"
        "<data size=\"12\" element_type=\"f32\" offset=\"0\" shape=\"1, 3\"/>\n"
        "<output><port id=\"0\" precision=\"FP32\"><dim>1</dim><dim>3</dim>"
        "<rt_info><attribute name=\"layout\" version=\"0\" layout=\"[N,C]\"/></rt_info></port></output></layer>\n"
        "<layer id=\"3\" name=\"r\" type=\"Result\" version=\"opset1\"/>\n"));
    const IrLayer& c = doc.layers.at(0);
    ASSERT_EQ(c.attributes.size(), 4u);
    const std::vector<std::pair<std::string, std::string>> expected = {
        {"size", "12"}, {"element_type", "f32"}, {"offset", "0"}, {"shape", "1, 3"}};
    for (size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ(c.attributes[i].name, expected[i].first);
        EXPECT_EQ(c.attributes[i].value, expected[i].second);
    }
    ASSERT_EQ(c.layer_attributes.size(), 2u);
    EXPECT_EQ(c.layer_attributes[0].name, "output_names");
    EXPECT_EQ(c.layer_attributes[0].value, "a,b");
    EXPECT_EQ(c.layer_attributes[1].name, "extra");
    EXPECT_EQ(c.outputs.at(0).dims, (std::vector<int64_t>{1, 3}));
    // No <data>: no attributes, and data_line falls back to the layer's line.
    const IrLayer& r = doc.layers.at(1);
    EXPECT_TRUE(r.attributes.empty());
    EXPECT_EQ(r.data_line, r.line);
}

TEST(IrReader, IgnoresRtInfoMetaDataAndQuantizationParameters) {
    const IrDocument doc = parse(
        "<net name=\"n\" version=\"10\"><layers><layer id=\"0\" name=\"a\" type=\"Parameter\" version=\"opset1\"/>"
        "</layers><edges/><meta_data><MO_version value=\"x\"/><cli_parameters><x value=\"1\"/></cli_parameters>"
        "</meta_data><quantization_parameters><config>{}</config></quantization_parameters>"
        "<rt_info><layer id=\"9\"/></rt_info></net>");
    EXPECT_EQ(doc.ir_version, 10);
    ASSERT_EQ(doc.layers.size(), 1u);
    EXPECT_TRUE(doc.edges.empty());
}

// ---- names and precision --------------------------------------------------------------------

struct NamesRow {
    const char* label;
    const char* attribute;  // the XML attribute text (XML-escaped where needed)
    std::vector<std::string> expected;
};

TEST(IrReader, NamesSplitOnUnescapedCommas) {
    const std::vector<NamesRow> rows = {
        {"single", "x", {"x"}},
        {"two", "const,const:0", {"const", "const:0"}},
        {"escaped_comma", "a\\,b", {"a,b"}},
        {"escaped_then_plain", "x\\,y,z", {"x,y", "z"}},
        {"spaces_trimmed", " a , b ", {"a", "b"}},
        {"empty_pieces_dropped", "a,,b,", {"a", "b"}},
        {"backslash_not_before_comma_kept", "a\\b", {"a\\b"}},
        {"trailing_backslash_kept", "a\\", {"a\\"}},
        {"empty", "", {}},
    };
    for (const NamesRow& row : rows) {
        const IrDocument doc = parse(net(layer_with_port(std::string("id=\"0\" names=\"") + row.attribute + "\"")));
        EXPECT_EQ(doc.layers.at(0).outputs.at(0).names(), row.expected) << row.label;
    }
}

TEST(IrReader, PrecisionKeptAsWritten) {
    for (const std::string precision : {"FP32", "f32", "I64", "boolean", "BOOL", "fp16", " FP32", "nonsense", ""}) {
        const IrDocument doc = parse(net(layer_with_port("id=\"0\" precision=\"" + precision + "\"")));
        EXPECT_EQ(doc.layers.at(0).outputs.at(0).precision, precision);
    }
    const IrDocument none = parse(net(layer_with_port("id=\"0\"")));
    EXPECT_EQ(none.layers.at(0).outputs.at(0).precision, "");
}

// ---- strict ids (recorded, reported later) ----------------------------------------------------

struct IdRow {
    const char* label;
    const char* text;
    IrId expected;  // nullopt: rejected
};

// OpenVINO reads ids as unsigned 64-bit integers: the whole u64 range is valid.
const std::vector<IdRow> kIdRows = {
    {"zero", "0", 0},
    {"plain", "42", 42},
    {"leading_zeros", "007", 7},
    {"int64_max", "9223372036854775807", 9223372036854775807ULL},
    {"above_int64_max", "9223372036854775808", 9223372036854775808ULL},
    {"uint64_max", "18446744073709551615", 18446744073709551615ULL},
    {"overflow", "18446744073709551616", std::nullopt},
    {"huge", "99999999999999999999999", std::nullopt},
    {"suffix", "1x", std::nullopt},
    {"negative", "-3", std::nullopt},
    {"plus_sign", "+1", std::nullopt},
    {"empty", "", std::nullopt},
    {"leading_space", " 1", std::nullopt},
    {"trailing_space", "1 ", std::nullopt},
    {"hex", "0x10", std::nullopt},
    {"float", "1.0", std::nullopt},
};

TEST(IrReader, LayerAndPortIdsParseStrictly) {
    for (const IdRow& row : kIdRows) {
        const std::string xml = net(std::string("<layer id=\"") + row.text +
                                    "\" name=\"p\" type=\"Parameter\" version=\"opset1\"><output><port id=\"" +
                                    row.text + "\"/></output></layer>\n");
        const IrDocument doc = parse(xml);
        const IrLayer& l = doc.layers.at(0);
        EXPECT_EQ(l.id, row.expected) << row.label;
        EXPECT_EQ(l.id_text, row.text) << row.label;
        EXPECT_EQ(l.outputs.at(0).id, row.expected) << row.label;
        EXPECT_EQ(l.outputs.at(0).id_text, row.text) << row.label;
    }
}

TEST(IrReader, EdgeFieldsParseStrictly) {
    for (const IdRow& row : kIdRows) {
        const std::string edge = std::string("<edge from-layer=\"") + row.text + "\" from-port=\"1\" to-layer=\"2\" to-port=\"" +
                                 row.text + "\"/>\n";
        const IrDocument doc = parse(net("", edge));
        const IrEdge& e = doc.edges.at(0);
        EXPECT_EQ(e.from_layer, row.expected) << row.label;
        EXPECT_EQ(e.from_port, 1u) << row.label;
        EXPECT_EQ(e.to_layer, 2u) << row.label;
        EXPECT_EQ(e.to_port, row.expected) << row.label;
        // What was written comes back for messages, whether kept (junk, leading zeros) or rebuilt.
        EXPECT_NE(edge_text(e).find(std::string("from-layer=\"") + row.text + "\""), std::string::npos) << edge_text(e);
        EXPECT_NE(edge_text(e).find(std::string("to-port=\"") + row.text + "\""), std::string::npos) << edge_text(e);
    }
    // A missing attribute is unparsable too.
    const IrDocument doc = parse(net("", "<edge from-layer=\"1\" to-layer=\"2\" to-port=\"0\"/>\n"));
    EXPECT_EQ(doc.edges.at(0).from_port, std::nullopt);
    EXPECT_EQ(doc.edges.at(0).from_layer, 1u);
}

// ---- dims ----------------------------------------------------------------------------------

struct DimsRow {
    const char* label;
    std::string dims_xml;
    bool valid;
    std::vector<int64_t> expected;  // -1 stands in for an invalid dim
};

TEST(IrReader, DimsAreInt64AtLeastMinusOne) {
    const std::vector<DimsRow> rows = {
        {"static", "<dim>1</dim><dim>3</dim>", true, {1, 3}},
        {"dynamic", "<dim>-1</dim><dim>10</dim>", true, {-1, 10}},
        {"zero", "<dim>0</dim>", true, {0}},
        {"whitespace_around", "<dim> 4\n</dim>", true, {4}},
        {"int64_max", "<dim>9223372036854775807</dim>", true, {9223372036854775807LL}},
        {"question_mark", "<dim>?</dim>", false, {-1}},
        {"interval", "<dim>1..5</dim>", false, {-1}},
        {"below_minus_one", "<dim>2</dim><dim>-2</dim>", false, {2, -1}},
        {"empty", "<dim></dim>", false, {-1}},
        {"junk", "<dim>3x</dim>", false, {-1}},
        {"float", "<dim>3.0</dim>", false, {-1}},
        {"plus_sign", "<dim>+3</dim>", false, {-1}},
        {"overflow", "<dim>9223372036854775808</dim>", false, {-1}},
    };
    for (const DimsRow& row : rows) {
        const IrDocument doc = parse(net(layer_with_port("id=\"0\"", row.dims_xml)));
        const IrPort& p = doc.layers.at(0).outputs.at(0);
        EXPECT_EQ(p.dims_valid, row.valid) << row.label;
        EXPECT_EQ(p.dims, row.expected) << row.label;
        if (!row.valid) {
            EXPECT_NE(p.dims_error.find("integer >= -1"), std::string::npos) << row.label << ": " << p.dims_error;
            EXPECT_NE(p.dims_error.find("<dim>"), std::string::npos) << row.label << ": " << p.dims_error;
        } else {
            EXPECT_TRUE(p.dims_error.empty()) << row.label;
        }
    }
}

TEST(IrReader, DimsErrorNamesTheFirstBadDim) {
    const IrDocument doc = parse(net(layer_with_port("id=\"0\"", "<dim>?</dim><dim>1..2</dim>")));
    const IrPort& p = doc.layers.at(0).outputs.at(0);
    EXPECT_FALSE(p.dims_valid);
    EXPECT_NE(p.dims_error.find("<dim>?</dim>"), std::string::npos) << p.dims_error;
    EXPECT_EQ(p.dims.size(), 2u);
}

// ---- line numbers ---------------------------------------------------------------------------

const char* const kLinesXml =
    "<?xml version=\"1.0\"?>\n"                                                        // 1
    "<net name=\"lines\" version=\"11\">\n"                                              // 2
    "\t<layers>\n"                                                                     // 3
    "\t\t<layer id=\"0\" name=\"x\" type=\"Parameter\" version=\"opset1\">\n"          // 4
    "\t\t\t<data shape=\"2\" element_type=\"f32\"/>\n"                                 // 5
    "\t\t\t<output>\n"                                                                 // 6
    "\t\t\t\t<port id=\"0\" precision=\"FP32\">\n"                                     // 7
    "\t\t\t\t\t<dim>2</dim>\n"                                                         // 8
    "\t\t\t\t</port>\n"                                                                // 9
    "\t\t\t</output>\n"                                                                // 10
    "\t\t</layer>\n"                                                                   // 11
    "\t\t<layer\n"                                                                     // 12
    "\t\t  id=\"1\" name=\"out\" type=\"Result\" version=\"opset1\">\n"                // 13
    "\t\t\t<input>\n"                                                                  // 14
    "\t\t\t\t<port id=\"0\"/>\n"                                                       // 15
    "\t\t\t</input>\n"                                                                 // 16
    "\t\t</layer>\n"                                                                   // 17
    "\t</layers>\n"                                                                    // 18
    "\t<edges>\n"                                                                      // 19
    "\t\t<edge from-layer=\"0\" from-port=\"0\" to-layer=\"1\" to-port=\"0\"/>\n"      // 20
    "\t</edges>\n"                                                                     // 21
    "</net>\n";                                                                        // 22

void expect_lines(const IrDocument& doc, const std::string& label) {
    ASSERT_EQ(doc.layers.size(), 2u) << label;
    EXPECT_EQ(doc.layers[0].line, 4) << label;
    EXPECT_EQ(doc.layers[0].data_line, 5) << label;
    EXPECT_EQ(doc.layers[0].outputs.at(0).line, 7) << label;
    EXPECT_EQ(doc.layers[1].line, 12) << label;  // where the tag opens
    EXPECT_EQ(doc.layers[1].data_line, 12) << label;
    EXPECT_EQ(doc.layers[1].inputs.at(0).line, 15) << label;
    EXPECT_EQ(doc.edges.at(0).line, 20) << label;
}

std::string with_crlf(const std::string& text) {
    std::string out;
    for (const char c : text) out += c == '\n' ? std::string("\r\n") : std::string(1, c);
    return out;
}

TEST(IrReader, LinesAreRight) {
    expect_lines(parse(kLinesXml), "lf");
    expect_lines(parse(with_crlf(kLinesXml)), "crlf");
    expect_lines(parse(std::string("\xEF\xBB\xBF") + kLinesXml), "utf8_bom");
}

TEST(IrReader, LineOnTheFirstLine) {
    const IrDocument doc = parse("<net version=\"11\"><layers><layer id=\"0\"/></layers></net>");
    EXPECT_EQ(doc.layers.at(0).line, 1);
}

// A model large enough to be read by two threads: every layer, port, dim, name and edge must land
// in its own slot with its own line, whichever thread read it.
TEST(IrReader, LargeDocumentsReadByTwoThreadsKeepEveryDetail) {
    constexpr int kLayers = 3000;
    std::string layers, edges;
    // Each layer takes 8 lines, from line 4 on (the header, <net> and <layers> come first).
    for (int i = 0; i < kLayers; ++i) {
        layers += "<layer id=\"" + std::to_string(i) + "\" name=\"l" + std::to_string(i) +
                  "\" type=\"Relu\" version=\"opset1\">\n<input>\n<port id=\"0\" precision=\"FP32\"><dim>" +
                  std::to_string(i) + "</dim><dim>2</dim></port>\n</input>\n<output>\n<port id=\"1\" names=\"t" +
                  std::to_string(i) + ",u\\,v\"><dim>" + std::to_string(i) + "</dim><dim>2</dim></port>\n</output>\n</layer>\n";
        if (i > 0)
            edges += "<edge from-layer=\"" + std::to_string(i - 1) + "\" from-port=\"1\" to-layer=\"" + std::to_string(i) +
                     "\" to-port=\"0\"/>\n";
    }
    const IrDocument doc = parse(net(layers, edges));
    ASSERT_EQ(doc.layers.size(), static_cast<size_t>(kLayers));
    ASSERT_EQ(doc.edges.size(), static_cast<size_t>(kLayers - 1));
    for (int i = 0; i < kLayers; ++i) {
        const IrLayer& l = doc.layers[static_cast<size_t>(i)];
        ASSERT_EQ(l.id, static_cast<uint64_t>(i));
        ASSERT_EQ(l.name, "l" + std::to_string(i));
        ASSERT_EQ(l.line, 4 + 8 * i) << l.name;
        ASSERT_EQ(l.inputs.at(0).line, 6 + 8 * i) << l.name;
        ASSERT_EQ(l.inputs.at(0).dims, (std::vector<int64_t>{i, 2})) << l.name;
        ASSERT_EQ(l.outputs.at(0).dims, (std::vector<int64_t>{i, 2})) << l.name;
        ASSERT_EQ(l.outputs.at(0).names(), (std::vector<std::string>{"t" + std::to_string(i), "u,v"})) << l.name;
    }
    const int first_edge_line = 4 + 8 * kLayers + 2;
    for (int i = 1; i < kLayers; ++i) {
        const IrEdge& e = doc.edges[static_cast<size_t>(i - 1)];
        ASSERT_EQ(e.from_layer, static_cast<uint64_t>(i - 1));
        ASSERT_EQ(e.to_layer, static_cast<uint64_t>(i));
        ASSERT_EQ(e.line, first_edge_line + i - 1);
    }
}

// The document's strings and dims are views of memory it keeps: they outlive the text it was read
// from, and copies of the document (Model::reshape edits one) keep them after the original is gone.
TEST(IrReader, DocumentViewsOutliveTheTextAndTheOriginal) {
    auto text = std::make_unique<std::string>(net(
        "<layer id=\"0\" name=\"x &amp; y\" type=\"Parameter\" version=\"opset1\"><data shape=\"2\" element_type=\"f32\"/>"
        "<output><port id=\"0\" precision=\"FP32\" names=\"in\"><dim>2</dim></port></output></layer>\n"));
    auto original = std::make_unique<IrDocument>(parse(*text));
    text.reset();  // overwrite nothing: ASan reports any view into the freed text
    IrDocument copy = *original;
    original.reset();
    const IrLayer& l = copy.layers.at(0);
    EXPECT_EQ(l.name, "x & y");
    EXPECT_EQ(l.type, "Parameter");
    EXPECT_EQ(l.version, "opset1");
    EXPECT_EQ(l.outputs.at(0).precision, "FP32");
    EXPECT_EQ(l.outputs.at(0).dims, (std::vector<int64_t>{2}));
    EXPECT_EQ(l.outputs.at(0).names(), (std::vector<std::string>{"in"}));
    const IrDims kept = copy.keep(std::vector<int64_t>{5, 6});
    const std::string_view word = copy.keep(std::string("kept"));
    const IrDocument second = copy;
    copy = IrDocument();
    EXPECT_EQ(kept, (std::vector<int64_t>{5, 6}));
    EXPECT_EQ(word, "kept");
    EXPECT_EQ(second.layers.at(0).name, "x & y");
}

// ---- document-level errors --------------------------------------------------------------------

struct DocumentErrorRow {
    const char* label;
    std::string xml;
    ErrorKind kind;
    const char* code;
    int64_t line;
    const char* message_part;
};

TEST(IrReader, DocumentLevelProblemsThrowWithFileAndLine) {
    const std::vector<DocumentErrorRow> rows = {
        {"unclosed_tag", "<net version=\"11\">\n<layers>\n<layer id=\"0\">\n</layers>\n</net>\n", ErrorKind::Parse,
         "xml-malformed", 4, "XML is not well-formed"},
        {"bad_attribute", "<net version=\"11\">\n\n<layers oops>\n</layers></net>", ErrorKind::Parse, "xml-malformed", 3,
         "line 3, column"},
        {"empty_document", "", ErrorKind::Parse, "xml-malformed", 1, "No document element"},
        {"text_only", "hello", ErrorKind::Parse, "xml-malformed", 1, "not well-formed"},
        {"two_roots", "<net version=\"11\"/>\n<net version=\"11\"/>", ErrorKind::Parse, "xml-malformed", 2,
         "a second root element <net>"},
        {"text_after_root", "<net version=\"11\"/>\n\njunk", ErrorKind::Parse, "xml-malformed", 3,
         "text outside the root element"},
        {"root_not_net", "<?xml version=\"1.0\"?>\n<model version=\"11\"/>", ErrorKind::Parse, "xml-no-net", 2,
         "expected <net>"},
        {"version_12", "<net version=\"12\"/>", ErrorKind::Unsupported, "ir-version", 1,
         "supported IR versions are 10 and 11"},
        {"version_7", "\n<net version=\"7\"/>", ErrorKind::Unsupported, "ir-version", 2, "\"7\""},
        {"version_missing", "<net name=\"x\"/>", ErrorKind::Unsupported, "ir-version", 1, "no version attribute"},
        {"version_not_integer", "<net version=\"11.0\"/>", ErrorKind::Unsupported, "ir-version", 1,
         "supported IR versions are 10 and 11"},
        {"version_empty", "<net version=\"\"/>", ErrorKind::Unsupported, "ir-version", 1, "supported IR versions"},
    };
    for (const DocumentErrorRow& row : rows) {
        const Error e = parse_error(row.xml);
        EXPECT_EQ(e.kind(), row.kind) << row.label << ": " << e.what();
        EXPECT_EQ(e.code(), row.code) << row.label << ": " << e.what();
        EXPECT_EQ(e.location().file, "test.xml") << row.label;
        EXPECT_EQ(e.location().line, row.line) << row.label << ": " << e.what();
        const std::string what = e.what();
        EXPECT_EQ(what.rfind("test.xml:" + std::to_string(row.line) + ": ", 0), 0u) << row.label << ": " << what;
        EXPECT_NE(what.find(row.message_part), std::string::npos) << row.label << ": " << what;
    }
}

TEST(IrReader, RootNameIsCaseInsensitiveLikeOpenVino) {
    EXPECT_EQ(parse("<NET version=\"10\"/>").ir_version, 10);
}

TEST(IrReader, DeepNestingOutsideTheKnownStructureCostsNoStack) {
    // 200k nested elements inside <rt_info>: parsed, skipped, and destroyed without recursion.
    constexpr int kDepth = 200000;
    std::string xml = net("<layer id=\"0\" name=\"a\" type=\"Parameter\" version=\"opset1\"/>\n");
    std::string nest;
    nest.reserve(kDepth * 7 + 20);
    nest += "<rt_info>";
    for (int i = 0; i < kDepth; ++i) nest += "<a>";
    for (int i = 0; i < kDepth; ++i) nest += "</a>";
    nest += "</rt_info>";
    xml.insert(xml.rfind("</net>"), nest);
    const IrDocument doc = parse(xml);
    EXPECT_EQ(doc.layers.size(), 1u);
}

// ---- files and weights ----------------------------------------------------------------------

const std::string kTinyNet = "<net name=\"t\" version=\"11\"><layers/><edges/></net>\n";

TEST(IrReaderFiles, DefaultBinIsMappedWhenPresent) {
    TempDir dir;
    const std::string xml = dir.write("model.xml", kTinyNet);
    dir.write("model.bin", std::string("\x01\x02\x03\x04\x05", 5));
    const IrDocument doc = read_ir_file(xml);
    EXPECT_EQ(doc.xml_path, xml);
    ASSERT_TRUE(doc.weights);
    EXPECT_EQ(doc.weights->size, 5u);
    EXPECT_EQ(doc.weights->path, dir.file("model.bin"));
    EXPECT_EQ(static_cast<int>(doc.weights->data[4]), 5);
    EXPECT_TRUE(doc.weights_note.empty());
}

TEST(IrReaderFiles, MissingDefaultBinGivesNullWeightsAndANote) {
    TempDir dir;
    const std::string xml = dir.write("net.v2.xml", kTinyNet);
    const IrDocument doc = read_ir_file(xml);
    EXPECT_FALSE(doc.weights);
    EXPECT_NE(doc.weights_note.find(dir.file("net.v2.bin")), std::string::npos) << doc.weights_note;
}

TEST(IrReaderFiles, ExplicitBinIsUsedAndMustExist) {
    TempDir dir;
    const std::string xml = dir.write("model.xml", kTinyNet);
    dir.write("model.bin", "default");
    const std::string other = dir.write("other.weights", "explicit!");
    const IrDocument doc = read_ir_file(xml, other);
    ASSERT_TRUE(doc.weights);
    EXPECT_EQ(doc.weights->size, 9u);
    try {
        read_ir_file(xml, dir.file("absent.bin"));
        FAIL() << "no error for a missing explicit .bin";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Io);
        EXPECT_EQ(e.code(), "bin-unreadable");
        EXPECT_NE(e.message().find(dir.file("absent.bin")), std::string::npos) << e.what();
        EXPECT_NE(e.message().find("No such file"), std::string::npos) << e.what();
    }
}

TEST(IrReaderFiles, ZeroByteBinIsLegal) {
    TempDir dir;
    const std::string xml = dir.write("model.xml", kTinyNet);
    dir.write("model.bin", "");
    const IrDocument doc = read_ir_file(xml);
    ASSERT_TRUE(doc.weights);
    EXPECT_EQ(doc.weights->size, 0u);
}

TEST(IrReaderFiles, UnreadableInputsAreIoErrors) {
    TempDir dir;
    struct Row {
        const char* label;
        std::string xml;
        std::string bin;
        const char* code;
    };
    fs::create_directory(dir.file("adir"));
    const std::string good_xml = dir.write("good.xml", kTinyNet);
    const std::vector<Row> rows = {
        {"missing_xml", dir.file("nope.xml"), "", "xml-unreadable"},
        {"xml_is_a_directory", dir.file("adir"), "", "xml-unreadable"},
        {"bin_is_a_directory", good_xml, dir.file("adir"), "bin-unreadable"},
    };
    for (const Row& row : rows) {
        try {
            read_ir_file(row.xml, row.bin);
            ADD_FAILURE() << row.label << ": no error";
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::Io) << row.label;
            EXPECT_EQ(e.code(), row.code) << row.label << ": " << e.what();
        }
    }
}

TEST(IrReaderFiles, ParseErrorsNameThePath) {
    TempDir dir;
    const std::string xml = dir.write("bad.xml", "<net version=\"11\">\n<layers>\n");
    try {
        read_ir_file(xml);
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), "xml-malformed");
        EXPECT_EQ(std::string(e.what()).rfind(xml + ":", 0), 0u) << e.what();
    }
}

TEST(Weights, MemoryBlobsKeepTheirOwnerAlive) {
    auto owner = std::make_shared<std::vector<std::byte>>(16, std::byte{7});
    std::weak_ptr<std::vector<std::byte>> watch = owner;
    auto blob = weights_from_memory(owner->data(), owner->size(), owner);
    owner.reset();
    EXPECT_FALSE(watch.expired());
    EXPECT_EQ(blob->size, 16u);
    EXPECT_EQ(blob->data[15], std::byte{7});
    blob.reset();
    EXPECT_TRUE(watch.expired());

    auto owned = weights_from_memory(std::vector<std::byte>{std::byte{1}, std::byte{2}});
    EXPECT_EQ(owned->size, 2u);
    EXPECT_EQ(owned->data[1], std::byte{2});
    EXPECT_TRUE(owned->path.empty());
}

TEST(Weights, MappedFileOutlivesTheFile) {
    TempDir dir;
    const std::string path = dir.write("w.bin", "weights");
    auto blob = map_weights_file(path);
    fs::remove(path);  // the mapping stays valid
    ASSERT_EQ(blob->size, 7u);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(blob->data), blob->size), "weights");
}

// ---- real files (optional) ----------------------------------------------------------------

TEST(IrReaderRealModels, OpenVinoWrittenFilesParse) {
    const fs::path root = fs::path(IRLITE_SOURCE_DIR) / ".." / "shared" / "models-real";
    if (!fs::is_directory(root)) GTEST_SKIP() << "no " << root << " (the shared models are not available)";
    int seen = 0;
    for (const auto& entry : fs::directory_iterator(root)) {
        const std::string name = entry.path().filename().string();
        const fs::path xml = entry.path() / "model.xml";
        if (name.rfind("ms_", 0) != 0 || !fs::exists(xml)) continue;
        const IrDocument doc = read_ir_file(xml.string());
        EXPECT_TRUE(doc.ir_version == 10 || doc.ir_version == 11) << name;
        EXPECT_FALSE(doc.layers.empty()) << name;
        for (const IrLayer& l : doc.layers) {
            EXPECT_TRUE(l.id.has_value()) << name << " layer " << l.id_text;
            EXPECT_GT(l.line, 1) << name;
            for (const IrPort& p : l.outputs) EXPECT_TRUE(p.dims_valid) << name << ": " << p.dims_error;
        }
        for (const IrEdge& e : doc.edges) EXPECT_TRUE(e.to_port.has_value()) << name << ": " << edge_text(e);
        ++seen;
    }
    if (seen == 0) GTEST_SKIP() << "no ms_* models in " << root;
}

TEST(IrReaderRealModels, ScalarModelDetails) {
    const fs::path xml = fs::path(IRLITE_SOURCE_DIR) / ".." / "shared" / "models-real" / "ms_scalar" / "model.xml";
    if (!fs::exists(xml)) GTEST_SKIP() << "no " << xml;
    const IrDocument doc = read_ir_file(xml.string());
    ASSERT_TRUE(doc.weights);
    const IrLayer& constant = doc.layers.at(1);
    EXPECT_EQ(constant.type, "Const");
    EXPECT_EQ(constant.line, 10);
    EXPECT_EQ(constant.data_line, 11);
    EXPECT_EQ(constant.outputs.at(0).names(), (std::vector<std::string>{"const", "const:0"}));
    EXPECT_TRUE(constant.outputs.at(0).dims.empty());
}

}  // namespace
}  // namespace irlite
