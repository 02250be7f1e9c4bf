// Bodies in the parser and in check: <body>/<then_body>/<else_body> with their port maps and back
// edges (line numbers), nested bodies, and findings inside a body reported with its path.
#include <gtest/gtest.h>

#include <string>

#include "cli_runner.hpp"
#include "irlite/irlite.hpp"
#include "parser/ir_reader.hpp"
#include "subgraph_ir.hpp"
#include "temp_dir.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

int line_of(const std::string& text, const std::string& needle) {
    const size_t at = text.find(needle);
    if (at == std::string::npos) return -1;
    int line = 1;
    for (size_t i = 0; i < at; ++i) line += text[i] == '\n';
    return line;
}

TEST(SubgraphParse, BodyPortMapAndBackEdgesWithLines) {
    const std::string xml = ti_running_sum();
    const IrDocument doc = read_ir_memory(xml, nullptr, "ti.xml");
    const IrLayer& ti = doc.layers[2];
    ASSERT_EQ(ti.type, "TensorIterator");
    ASSERT_EQ(ti.bodies.size(), 1u);
    const IrBody& body = ti.bodies[0];
    EXPECT_EQ(body.name, "body");
    EXPECT_EQ(body.line, line_of(xml, "<body>"));
    EXPECT_EQ(body.port_map_line, line_of(xml, "<port_map>"));
    ASSERT_EQ(body.port_map.size(), 4u);
    EXPECT_EQ(body.port_map[0].element, "input");
    EXPECT_EQ(*body.port_map[0].find("axis"), "0");
    EXPECT_EQ(*body.port_map[0].find("internal_layer_id"), "1");
    EXPECT_EQ(body.port_map[0].line, line_of(xml, "<input axis=\"0\""));
    EXPECT_EQ(body.port_map[3].element, "output");
    EXPECT_EQ(*body.port_map[3].find("stride"), "1");
    ASSERT_EQ(body.back_edges.size(), 1u);
    EXPECT_EQ(*body.back_edges[0].find("to-layer"), "0");
    EXPECT_EQ(body.back_edges[0].line, line_of(xml, "<back_edges>") + 1);
    // The body is a document of its own: ids from 0, its own edges, lines in the same file.
    const IrDocument& part = *body.document;
    ASSERT_EQ(part.layers.size(), 4u);
    EXPECT_EQ(part.layers[2].name, "add");
    EXPECT_EQ(part.layers[2].line, line_of(xml, "name=\"add\""));
    EXPECT_EQ(part.edges.size(), 3u);
    EXPECT_EQ(part.xml_path, "ti.xml");
    // The top level's own layers and edges are not mixed with the body's.
    EXPECT_EQ(doc.layers.size(), 5u);
    EXPECT_EQ(doc.edges.size(), 4u);
}

TEST(SubgraphParse, IfBodiesPairWithTheirPortMaps) {
    const IrDocument doc = read_ir_memory(if_two_shapes(), nullptr, "if.xml");
    const IrLayer& layer = doc.layers[3];
    ASSERT_EQ(layer.bodies.size(), 2u);
    ASSERT_NE(layer.body("then_body"), nullptr);
    ASSERT_NE(layer.body("else_body"), nullptr);
    EXPECT_EQ(*layer.body("then_body")->port_map[0].find("external_port_id"), "1");
    EXPECT_EQ(*layer.body("else_body")->port_map[0].find("external_port_id"), "2");
    EXPECT_TRUE(layer.body("else_body")->back_edges.empty());
}

TEST(SubgraphParse, NestedBodies) {
    const IrDocument doc = read_ir_memory(nested_ti("Add"), nullptr, "nested.xml");
    const IrLayer& outer = doc.layers[2];
    ASSERT_EQ(outer.bodies.size(), 1u);
    const IrDocument& body = *outer.bodies[0].document;
    const IrLayer* inner = nullptr;
    for (const IrLayer& l : body.layers)
        if (l.name == "ti") inner = &l;
    ASSERT_NE(inner, nullptr);
    ASSERT_EQ(inner->bodies.size(), 1u);
    EXPECT_EQ(inner->bodies[0].document->layers.size(), 4u);
    EXPECT_EQ(inner->bodies[0].document->xml_path, "nested.xml");
}

TEST(SubgraphCheck, CleanModelsHaveNoFindings) {
    TempDir dir;
    for (const std::string& xml : {ti_running_sum(), loop_accumulate(), if_two_shapes(), nested_ti("Add")}) {
        const CheckResult r = check(dir.write("m.xml", xml));
        for (const Diagnostic& d : r.findings) ADD_FAILURE() << d.format();
    }
}

TEST(SubgraphCheck, FindingInsideABodyCarriesItsPath) {
    TempDir dir;
    // The body's 'add' is a MatMul of [1,2] by [1,2].
    const std::string xml = ti_running_sum("start=\"0\" end=\"-1\" stride=\"1\"", "1", "MatMul");
    const std::string path = dir.write("m.xml", xml);
    const CheckResult r = check(path);
    EXPECT_FALSE(r.valid());
    bool found = false;
    for (const Diagnostic& d : r.findings) {
        if (d.where.body_path != "layer 'ti' > body") continue;
        if (d.where.layer_name != "add") continue;
        found = true;
        EXPECT_EQ(d.where.line, line_of(xml, "name=\"add\""));
        EXPECT_NE(d.format().find("layer 'ti' > body > layer 'add'"), std::string::npos) << d.format();
    }
    EXPECT_TRUE(found);
    // run refuses it with the same path.
    try {
        CompiledModel m(Model::read(path));
        FAIL() << "compiled";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("layer 'ti' > body > MatMul layer id=2 'add'"), std::string::npos) << e.what();
    }
}

TEST(SubgraphCheck, NestedBodyFindingHasTheWholePath) {
    TempDir dir;
    const CheckResult r = check(dir.write("m.xml", nested_ti("MatMul")));
    bool found = false;
    for (const Diagnostic& d : r.findings)
        found = found || (d.where.body_path == "layer 'outer' > body > layer 'ti' > body" && d.where.layer_name == "add");
    EXPECT_TRUE(found);
}

TEST(SubgraphCheck, PortMapErrorsPointAtTheEntry) {
    TempDir dir;
    std::string xml = ti_running_sum();
    const std::string entry = "<input external_port_id=\"1\" internal_layer_id=\"0\"/>";
    xml.replace(xml.find(entry), entry.size(), "<input external_port_id=\"1\" internal_layer_id=\"9\"/>");
    const CheckResult r = check(dir.write("m.xml", xml));
    ASSERT_EQ(r.errors, 1u);
    EXPECT_EQ(r.findings[0].code, "port-map-invalid");
    EXPECT_EQ(r.findings[0].where.line, line_of(xml, "internal_layer_id=\"9\""));
    EXPECT_EQ(r.findings[0].where.layer_name, "ti");
    EXPECT_NE(r.findings[0].message.find("internal_layer_id 9, which is no layer of the body"), std::string::npos);

    // A start outside the axis.
    xml = ti_running_sum("start=\"5\" end=\"-1\" stride=\"1\"");
    const CheckResult s = check(dir.write("m.xml", xml));
    ASSERT_EQ(s.errors, 1u);
    EXPECT_NE(s.findings[0].message.find("start = 5 is out of range"), std::string::npos) << s.findings[0].message;
}

TEST(SubgraphCheck, BackEdgeToAMissingLayer) {
    TempDir dir;
    std::string xml = ti_running_sum();
    // The back edge leads to a layer the body does not have.
    const std::string edge = "<edge from-layer=\"3\" from-port=\"0\" to-layer=\"0\" to-port=\"0\"/>";
    xml.replace(xml.find(edge), edge.size(), "<edge from-layer=\"3\" from-port=\"0\" to-layer=\"7\" to-port=\"0\"/>");
    const CheckResult r = check(dir.write("m.xml", xml));
    ASSERT_EQ(r.errors, 1u);
    EXPECT_EQ(r.findings[0].code, "back-edge-invalid");
    EXPECT_NE(r.findings[0].message.find("leads to body layer 7, which does not exist"), std::string::npos);
}

TEST(SubgraphCli, InfoListsBodiesAndDotDrawsClusters) {
    TempDir dir;
    const std::string path = dir.write("m.xml", nested_ti("Add"));
    const CliResult info = testing::irlite({"info", path});
    ASSERT_EQ(info.exit_code, 0) << info.err;
    EXPECT_NE(info.out.find("bodies (2;"), std::string::npos) << info.out;
    EXPECT_NE(info.out.find("layer 'outer' > body > layer 'ti' > body"), std::string::npos) << info.out;
    // The op counts include the body layers: Add only occurs in the inner body.
    EXPECT_NE(info.out.find("Add "), std::string::npos) << info.out;
    const CliResult json = testing::irlite({"info", "--json", path});
    EXPECT_NE(json.out.find("\"bodies\""), std::string::npos) << json.out;
    const CliResult dot = testing::irlite({"dot", path});
    ASSERT_EQ(dot.exit_code, 0) << dot.err;
    EXPECT_NE(dot.out.find("subgraph cluster_2_0 {"), std::string::npos) << dot.out;
    EXPECT_NE(dot.out.find("label=\"layer 'outer' > body > layer 'ti' > body\""), std::string::npos) << dot.out;
    // check --json names the body path of a finding inside a body.
    const CliResult check = testing::irlite({"check", "--json", dir.write("bad.xml", nested_ti("MatMul"))});
    EXPECT_EQ(check.exit_code, 1);
    EXPECT_NE(check.out.find("\"body_path\": \"layer 'outer' > body > layer 'ti' > body\""), std::string::npos) << check.out;
}

}  // namespace
}  // namespace irlite
