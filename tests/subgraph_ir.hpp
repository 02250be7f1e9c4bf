// Small IR files with sub-graphs for the tests of TensorIterator, Loop and If (written out as XML
// text: the port maps and bodies are what these tests are about). No Consts: every value the body
// needs comes in through a Parameter, so the models need no weights.
#pragma once

#include <string>

namespace irlite::testing {

// "<dim>a</dim><dim>b</dim>" for "a,b".
inline std::string dims_xml(const std::string& dims) {
    std::string out, d;
    for (size_t i = 0; i <= dims.size(); ++i) {
        if (i == dims.size() || dims[i] == ',') {
            if (!d.empty()) out += "<dim>" + d + "</dim>";
            d.clear();
        } else {
            d += dims[i];
        }
    }
    return out;
}

inline std::string parameter_xml(int id, const std::string& name, const std::string& type, const std::string& dims) {
    const std::string precision = type == "f32" ? "FP32" : type == "f16" ? "FP16" : type == "i64" ? "I64" : "BOOL";
    return "<layer id=\"" + std::to_string(id) + "\" name=\"" + name + "\" type=\"Parameter\" version=\"opset1\">" +
           "<data shape=\"" + dims + "\" element_type=\"" + type + "\"/><output><port id=\"0\" precision=\"" + precision +
           "\" names=\"" + name + "\">" + dims_xml(dims) + "</port></output></layer>\n";
}

inline std::string result_xml(int id, const std::string& name, const std::string& precision, const std::string& dims) {
    return "<layer id=\"" + std::to_string(id) + "\" name=\"" + name + "\" type=\"Result\" version=\"opset1\">" +
           "<input><port id=\"0\" precision=\"" + precision + "\">" + dims_xml(dims) + "</port></input></layer>\n";
}

// An Add (or, with op "MatMul", a MatMul: the tests' way to put a shape error in a body).
inline std::string add_xml(int id, const std::string& name, const std::string& a, const std::string& b,
                           const std::string& out, const std::string& op = "Add") {
    const std::string data = op == "Add" ? "<data auto_broadcast=\"numpy\"/>" : "<data transpose_a=\"false\" transpose_b=\"false\"/>";
    return "<layer id=\"" + std::to_string(id) + "\" name=\"" + name + "\" type=\"" + op + "\" version=\"opset1\">" +
           data + "<input><port id=\"0\" precision=\"FP32\">" + dims_xml(a) +
           "</port><port id=\"1\" precision=\"FP32\">" + dims_xml(b) + "</port></input><output><port id=\"2\" precision=\"FP32\">" +
           dims_xml(out) + "</port></output></layer>\n";
}

inline std::string edge_xml(int from, int from_port, int to, int to_port) {
    return "<edge from-layer=\"" + std::to_string(from) + "\" from-port=\"" + std::to_string(from_port) + "\" to-layer=\"" +
           std::to_string(to) + "\" to-port=\"" + std::to_string(to_port) + "\"/>\n";
}

inline std::string net_xml(const std::string& layers, const std::string& edges) {
    return "<?xml version=\"1.0\"?>\n<net name=\"subgraph\" version=\"11\">\n<layers>\n" + layers + "</layers>\n<edges>\n" +
           edges + "</edges>\n</net>\n";
}

// A body of Parameters b_acc (0) and b_x (1), both f32 `dims`, and Result b_out (3) = b_acc op b_x:
// the step of a running sum (op Add) carried by a back edge from 3 to 0.
inline std::string accumulate_body(const std::string& dims, const std::string& op = "Add") {
    return "<body><layers>\n" + parameter_xml(0, "b_acc", "f32", dims) + parameter_xml(1, "b_x", "f32", dims) +
           add_xml(2, "add", dims, dims, dims, op) + result_xml(3, "b_out", "FP32", dims) + "</layers><edges>\n" +
           edge_xml(0, 0, 2, 0) + edge_xml(1, 0, 2, 1) + edge_xml(2, 2, 3, 0) + "</edges></body>\n";
}

// TensorIterator 'ti': x [3,2] sliced along axis 0 (start, end, stride as given), acc0 [1,2]
// merged with a back edge; the body adds: acc = acc + x[i]. Outputs: 'acc' (the last value) and
// 'all' (every iteration's acc concatenated along axis 0, ordered by `out_stride`).
// `body_op` "MatMul" makes the body's 'add' a MatMul of [1,2] by [1,2]: a shape error inside the body.
inline std::string ti_running_sum(const std::string& slicing = "start=\"0\" end=\"-1\" stride=\"1\"",
                                  const std::string& out_stride = "1", const std::string& body_op = "Add") {
    const std::string body = accumulate_body("1,2", body_op);
    const std::string ti =
        "<layer id=\"2\" name=\"ti\" type=\"TensorIterator\" version=\"opset1\">\n"
        "<input><port id=\"0\" precision=\"FP32\">" + dims_xml("3,2") + "</port><port id=\"1\" precision=\"FP32\">" +
        dims_xml("1,2") + "</port></input>\n<output><port id=\"2\" precision=\"FP32\" names=\"acc\">" + dims_xml("1,2") +
        "</port><port id=\"3\" precision=\"FP32\" names=\"all\">" + dims_xml("3,2") + "</port></output>\n" +
        "<port_map>\n<input axis=\"0\" external_port_id=\"0\" internal_layer_id=\"1\" " + slicing + "/>\n" +
        "<input external_port_id=\"1\" internal_layer_id=\"0\"/>\n" +
        "<output external_port_id=\"2\" internal_layer_id=\"3\"/>\n" +
        "<output axis=\"0\" external_port_id=\"3\" internal_layer_id=\"3\" stride=\"" + out_stride + "\"/>\n</port_map>\n" +
        "<back_edges>\n<edge from-layer=\"3\" from-port=\"0\" to-layer=\"0\" to-port=\"0\"/>\n</back_edges>\n" + body +
        "</layer>\n";
    return net_xml(parameter_xml(0, "x", "f32", "3,2") + parameter_xml(1, "acc0", "f32", "1,2") + ti +
                       result_xml(3, "acc/sink", "FP32", "1,2") + result_xml(4, "all/sink", "FP32", "3,2"),
                   edge_xml(0, 0, 2, 0) + edge_xml(1, 0, 2, 1) + edge_xml(2, 2, 3, 0) + edge_xml(2, 3, 4, 0));
}

// TensorIterator 'outer' (x [n,3,2] sliced along axis 0: n iterations, acc0 [1,2]) whose body
// squeezes its part to [3,2] ('sq') and runs ti_running_sum's TensorIterator 'ti' on it (3
// iterations of 'add'); output: the last iteration's acc.
inline std::string nested_ti(const std::string& inner_body_op = "Add", int outer_iterations = 1) {
    const std::string outer_dims = std::to_string(outer_iterations) + ",3,2";
    std::string inner = ti_running_sum("start=\"0\" end=\"-1\" stride=\"1\"", "1", inner_body_op);
    const size_t from = inner.find("<layers>") + 8, to = inner.rfind("</layers>");
    const std::string inner_layers = inner.substr(from, to - from);
    const size_t edges_at = inner.rfind("<edges>"), edges_end = inner.rfind("</edges>");
    const std::string inner_edges = inner.substr(edges_at + 7, edges_end - edges_at - 7);
    const std::string outer_ti =
        "<layer id=\"2\" name=\"outer\" type=\"TensorIterator\" version=\"opset1\">\n"
        "<input><port id=\"0\" precision=\"FP32\">" + dims_xml(outer_dims) + "</port><port id=\"1\" precision=\"FP32\">" +
        dims_xml("1,2") + "</port></input>\n<output><port id=\"2\" precision=\"FP32\">" + dims_xml("1,2") +
        "</port></output>\n<port_map>\n<input axis=\"0\" external_port_id=\"0\" internal_layer_id=\"100\"/>\n"
        "<input external_port_id=\"1\" internal_layer_id=\"1\"/>\n<output external_port_id=\"2\" internal_layer_id=\"3\"/>\n"
        "</port_map>\n<body><layers>\n" +
        parameter_xml(100, "xo", "f32", "1,3,2") +
        "<layer id=\"101\" name=\"sq\" type=\"Squeeze\" version=\"opset1\"><input><port id=\"0\" precision=\"FP32\">" +
        dims_xml("1,3,2") + "</port></input><output><port id=\"1\" precision=\"FP32\">" + dims_xml("3,2") +
        "</port></output></layer>\n" + inner_layers + "</layers><edges>\n" + edge_xml(100, 0, 101, 0) +
        edge_xml(101, 1, 2, 0) + inner_edges.substr(inner_edges.find(edge_xml(1, 0, 2, 1))) + "</edges></body>\n</layer>\n";
    // The inner model's Parameter x (layer 0) is replaced by the Squeeze (101).
    std::string layers = outer_ti;
    const size_t x_at = layers.find("<layer id=\"0\" name=\"x\"");
    layers.erase(x_at, layers.find("</layer>\n", x_at) + 9 - x_at);
    return net_xml(parameter_xml(0, "x", "f32", outer_dims) + parameter_xml(1, "acc0", "f32", "1,2") + layers +
                       result_xml(3, "out", "FP32", "1,2"),
                   edge_xml(0, 0, 2, 0) + edge_xml(1, 0, 2, 1) + edge_xml(2, 2, 3, 0));
}

// Loop 'loop' (inputs: trip i64 [], cond boolean [], acc0 [1,2], x [1,2], limit i64 []): the body
// adds acc = acc + x, and its execution condition is current_iteration < limit. Outputs: 'acc'
// (the last value) and 'all' (every iteration's acc along axis 0, its length known at run time).
inline std::string loop_accumulate() {
    const std::string body =
        "<body><layers>\n" + parameter_xml(0, "b_acc", "f32", "1,2") + parameter_xml(1, "b_x", "f32", "1,2") +
        parameter_xml(2, "b_iter", "i64", "") + parameter_xml(3, "b_limit", "i64", "") + add_xml(4, "add", "1,2", "1,2", "1,2") +
        "<layer id=\"5\" name=\"less\" type=\"Less\" version=\"opset1\"><input><port id=\"0\" precision=\"I64\"/>"
        "<port id=\"1\" precision=\"I64\"/></input><output><port id=\"2\" precision=\"BOOL\"/></output></layer>\n" +
        result_xml(6, "b_out", "FP32", "1,2") + result_xml(7, "b_cond", "BOOL", "") + "</layers><edges>\n" +
        edge_xml(0, 0, 4, 0) + edge_xml(1, 0, 4, 1) + edge_xml(2, 0, 5, 0) + edge_xml(3, 0, 5, 1) + edge_xml(4, 2, 6, 0) +
        edge_xml(5, 2, 7, 0) + "</edges></body>\n";
    const std::string loop =
        "<layer id=\"5\" name=\"loop\" type=\"Loop\" version=\"opset5\">\n<input><port id=\"0\" precision=\"I64\"/>"
        "<port id=\"1\" precision=\"BOOL\"/><port id=\"2\" precision=\"FP32\">" + dims_xml("1,2") +
        "</port><port id=\"3\" precision=\"FP32\">" + dims_xml("1,2") + "</port><port id=\"4\" precision=\"I64\"/></input>\n" +
        "<output><port id=\"5\" precision=\"FP32\" names=\"acc\">" + dims_xml("1,2") +
        "</port><port id=\"6\" precision=\"FP32\" names=\"all\">" + dims_xml("-1,2") + "</port></output>\n" +
        "<port_map>\n<input external_port_id=\"2\" internal_layer_id=\"0\"/>\n"
        "<input external_port_id=\"3\" internal_layer_id=\"1\"/>\n"
        "<input external_port_id=\"-1\" internal_layer_id=\"2\" purpose=\"current_iteration\"/>\n"
        "<input external_port_id=\"4\" internal_layer_id=\"3\"/>\n"
        "<output external_port_id=\"5\" internal_layer_id=\"6\"/>\n"
        "<output axis=\"0\" external_port_id=\"6\" internal_layer_id=\"6\"/>\n"
        "<output external_port_id=\"-1\" internal_layer_id=\"7\" purpose=\"execution_condition\"/>\n</port_map>\n"
        "<back_edges>\n<edge from-layer=\"6\" from-port=\"0\" to-layer=\"0\" to-port=\"0\"/>\n</back_edges>\n" + body +
        "</layer>\n";
    return net_xml(parameter_xml(0, "trip", "i64", "") + parameter_xml(1, "cond", "boolean", "") +
                       parameter_xml(2, "acc0", "f32", "1,2") + parameter_xml(3, "x", "f32", "1,2") +
                       parameter_xml(4, "limit", "i64", "") + loop + result_xml(6, "acc/sink", "FP32", "1,2") +
                       result_xml(7, "all/sink", "FP32", "-1,2"),
                   edge_xml(0, 0, 5, 0) + edge_xml(1, 0, 5, 1) + edge_xml(2, 0, 5, 2) + edge_xml(3, 0, 5, 3) +
                       edge_xml(4, 0, 5, 4) + edge_xml(5, 5, 6, 0) + edge_xml(5, 6, 7, 0));
}

// If 'if' (inputs: cond boolean [], a f32 [2], b f32 [3]): then_body gives a + a ([2]), else_body
// gives b ([3]); output 'out' is declared [-1].
inline std::string if_two_shapes() {
    const std::string then_body = "<then_body><layers>\n" + parameter_xml(0, "t_a", "f32", "2") +
                                  add_xml(1, "t_add", "2", "2", "2") + result_xml(2, "t_out", "FP32", "2") +
                                  "</layers><edges>\n" + edge_xml(0, 0, 1, 0) + edge_xml(0, 0, 1, 1) + edge_xml(1, 2, 2, 0) +
                                  "</edges></then_body>\n";
    const std::string else_body = "<else_body><layers>\n" + parameter_xml(0, "e_b", "f32", "3") +
                                  result_xml(1, "e_out", "FP32", "3") + "</layers><edges>\n" + edge_xml(0, 0, 1, 0) +
                                  "</edges></else_body>\n";
    const std::string layer =
        "<layer id=\"3\" name=\"if\" type=\"If\" version=\"opset8\">\n<input><port id=\"0\" precision=\"BOOL\"/>"
        "<port id=\"1\" precision=\"FP32\">" + dims_xml("2") + "</port><port id=\"2\" precision=\"FP32\">" + dims_xml("3") +
        "</port></input>\n<output><port id=\"3\" precision=\"FP32\" names=\"out\">" + dims_xml("-1") + "</port></output>\n" +
        "<then_port_map>\n<input external_port_id=\"1\" internal_layer_id=\"0\"/>\n"
        "<output external_port_id=\"0\" internal_layer_id=\"2\"/>\n</then_port_map>\n"
        "<else_port_map>\n<input external_port_id=\"2\" internal_layer_id=\"0\"/>\n"
        "<output external_port_id=\"0\" internal_layer_id=\"1\"/>\n</else_port_map>\n" + then_body + else_body + "</layer>\n";
    return net_xml(parameter_xml(0, "cond", "boolean", "") + parameter_xml(1, "a", "f32", "2") +
                       parameter_xml(2, "b", "f32", "3") + layer + result_xml(4, "out/sink", "FP32", "-1"),
                   edge_xml(0, 0, 3, 0) + edge_xml(1, 0, 3, 1) + edge_xml(2, 0, 3, 2) + edge_xml(3, 3, 4, 0));
}

// if_two_shapes's output (its length known only at run time) summed by a TensorIterator 'ti' over
// axis 0 (acc0 f32 [1] carried by a back edge): the TensorIterator's input shape is a run-time
// one, so it is prepared and run when the request runs, not when the model is compiled. Output
// 'sum' [1]: acc0 plus every element of 'out'.
inline std::string ti_after_if() {
    std::string net = if_two_shapes();
    const std::string ti =
        parameter_xml(5, "acc0", "f32", "1") +
        "<layer id=\"6\" name=\"ti\" type=\"TensorIterator\" version=\"opset1\">\n<input><port id=\"0\" precision=\"FP32\">" +
        dims_xml("-1") + "</port><port id=\"1\" precision=\"FP32\">" + dims_xml("1") +
        "</port></input>\n<output><port id=\"2\" precision=\"FP32\" names=\"sum\">" + dims_xml("1") + "</port></output>\n" +
        "<port_map>\n<input axis=\"0\" external_port_id=\"0\" internal_layer_id=\"1\"/>\n"
        "<input external_port_id=\"1\" internal_layer_id=\"0\"/>\n"
        "<output external_port_id=\"2\" internal_layer_id=\"3\"/>\n</port_map>\n"
        "<back_edges>\n<edge from-layer=\"3\" from-port=\"0\" to-layer=\"0\" to-port=\"0\"/>\n</back_edges>\n" +
        accumulate_body("1") + "</layer>\n" + result_xml(7, "sum/sink", "FP32", "1");
    net.insert(net.rfind("</layers>"), ti);
    net.insert(net.rfind("</edges>"), edge_xml(3, 3, 6, 0) + edge_xml(5, 0, 6, 1) + edge_xml(6, 2, 7, 0));
    return net;
}

}  // namespace irlite::testing
