// Sub-graph models whose layer shapes are all static at load time, for the tests of the planned
// path (prepare, per-request state, outputs written in place): a TensorIterator slicing along an
// inner axis (its parts are copied, not viewed) and a Loop whose trip count folds to a constant.
#pragma once

#include <string>

#include "subgraph_ir.hpp"

namespace irlite::testing {

// TensorIterator 'ti': x [2,3] sliced along axis 1 into [2,1] columns, acc0 [2,1] merged with a
// back edge; the body adds acc = acc + x[:, i]. Outputs 'acc' [2,1] and 'all' [2,3] (every
// iteration's acc along axis 1).
inline std::string ti_column_sum() {
    const std::string body = accumulate_body("2,1");
    const std::string ti =
        "<layer id=\"2\" name=\"ti\" type=\"TensorIterator\" version=\"opset1\">\n"
        "<input><port id=\"0\" precision=\"FP32\">" + dims_xml("2,3") + "</port><port id=\"1\" precision=\"FP32\">" +
        dims_xml("2,1") + "</port></input>\n<output><port id=\"2\" precision=\"FP32\" names=\"acc\">" + dims_xml("2,1") +
        "</port><port id=\"3\" precision=\"FP32\" names=\"all\">" + dims_xml("2,3") + "</port></output>\n" +
        "<port_map>\n<input axis=\"1\" external_port_id=\"0\" internal_layer_id=\"1\" start=\"0\" end=\"-1\" stride=\"1\"/>\n" +
        "<input external_port_id=\"1\" internal_layer_id=\"0\"/>\n" +
        "<output external_port_id=\"2\" internal_layer_id=\"3\"/>\n" +
        "<output axis=\"1\" external_port_id=\"3\" internal_layer_id=\"3\"/>\n</port_map>\n" +
        "<back_edges>\n<edge from-layer=\"3\" from-port=\"0\" to-layer=\"0\" to-port=\"0\"/>\n</back_edges>\n" + body +
        "</layer>\n";
    return net_xml(parameter_xml(0, "x", "f32", "2,3") + parameter_xml(1, "acc0", "f32", "2,1") + ti +
                       result_xml(3, "acc/sink", "FP32", "2,1") + result_xml(4, "all/sink", "FP32", "2,3"),
                   edge_xml(0, 0, 2, 0) + edge_xml(1, 0, 2, 1) + edge_xml(2, 2, 3, 0) + edge_xml(2, 3, 4, 0));
}

// Loop 'loop': its trip count is ShapeOf(n) = [3] and its condition Convert(ShapeOf(n)) = true,
// both folded at load time, and the body has no execution condition: three iterations, known
// when the model is compiled. acc0 [1,2] merged with a back edge, x [3,2] sliced along axis 0; the
// body adds acc = acc + x[i]. Outputs 'acc' [1,2] and 'all' [3,2] (every iteration's acc).
inline std::string loop_fixed_count() {
    const std::string body = accumulate_body("1,2");
    const std::string count =
        "<layer id=\"1\" name=\"trip\" type=\"ShapeOf\" version=\"opset3\"><data output_type=\"i64\"/><input>"
        "<port id=\"0\" precision=\"FP32\">" + dims_xml("3") + "</port></input><output><port id=\"1\" precision=\"I64\">" +
        dims_xml("1") + "</port></output></layer>\n" +
        "<layer id=\"2\" name=\"go\" type=\"Convert\" version=\"opset1\"><data destination_type=\"boolean\"/><input>"
        "<port id=\"0\" precision=\"I64\">" + dims_xml("1") + "</port></input><output><port id=\"1\" precision=\"BOOL\">" +
        dims_xml("1") + "</port></output></layer>\n";
    const std::string loop =
        "<layer id=\"5\" name=\"loop\" type=\"Loop\" version=\"opset5\">\n<input><port id=\"0\" precision=\"I64\">" +
        dims_xml("1") + "</port><port id=\"1\" precision=\"BOOL\">" + dims_xml("1") + "</port><port id=\"2\" precision=\"FP32\">" +
        dims_xml("1,2") + "</port><port id=\"3\" precision=\"FP32\">" + dims_xml("3,2") + "</port></input>\n" +
        "<output><port id=\"4\" precision=\"FP32\" names=\"acc\">" + dims_xml("1,2") +
        "</port><port id=\"5\" precision=\"FP32\" names=\"all\">" + dims_xml("3,2") + "</port></output>\n" +
        "<port_map>\n<input external_port_id=\"2\" internal_layer_id=\"0\"/>\n"
        "<input axis=\"0\" external_port_id=\"3\" internal_layer_id=\"1\"/>\n"
        "<output external_port_id=\"4\" internal_layer_id=\"3\"/>\n"
        "<output axis=\"0\" external_port_id=\"5\" internal_layer_id=\"3\"/>\n</port_map>\n"
        "<back_edges>\n<edge from-layer=\"3\" from-port=\"0\" to-layer=\"0\" to-port=\"0\"/>\n</back_edges>\n" + body +
        "</layer>\n";
    return net_xml(parameter_xml(0, "n", "f32", "3") + count + parameter_xml(3, "acc0", "f32", "1,2") +
                       parameter_xml(4, "x", "f32", "3,2") + loop + result_xml(6, "acc/sink", "FP32", "1,2") +
                       result_xml(7, "all/sink", "FP32", "3,2"),
                   edge_xml(0, 0, 1, 0) + edge_xml(1, 1, 5, 0) + edge_xml(1, 1, 2, 0) + edge_xml(2, 1, 5, 1) +
                       edge_xml(3, 0, 5, 2) + edge_xml(4, 0, 5, 3) + edge_xml(5, 4, 6, 0) + edge_xml(5, 5, 7, 0));
}

}  // namespace irlite::testing
