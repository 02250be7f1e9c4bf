// The graph fuzzer's comparison: a written graph (graph_writer.hpp) is loaded and run through the
// public API, and compared with what the reference computed while the graph was written
// (reference_ops.hpp; sub-graph layers: reference_subgraphs.hpp, running the body's reference ops
// in plain loops over the iterations):
//   - the reference rejects some op's inputs  -> irlite must throw irlite::Error (load or run);
//   - otherwise                               -> irlite must not throw, and every output must
//     have the reference's type, shape and values (two inferences on the same request).
// Anything but irlite::Error escapes.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "irlite/irlite.hpp"
#include "fuzz/graph_writer.hpp"

namespace irlite::fuzz {

// A reference tensor as an irlite input.
inline irlite::Tensor to_tensor(const RefTensor& t) {
    irlite::Tensor out(t.type, t.shape);
    const std::vector<unsigned char> bytes = to_bytes(t);
    if (!bytes.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
    return out;
}

// Element i of an irlite output equals the reference value (floats by value: -0 == 0).
inline bool element_matches(const irlite::Tensor& out, int64_t i, int64_t expected) {
    if (irlite::is_float(out.type())) return out.value_as_double(i) == static_cast<double>(expected);
    unsigned char want[8] = {};
    store(out.type(), expected, want);
    return std::memcmp(out.bytes() + static_cast<size_t>(i) * irlite::element_size(out.type()), want,
                       irlite::element_size(out.type())) == 0;
}


// "" when output `o` has the reference's type, shape and values, else what differs.
inline std::string compare_output(const irlite::Tensor& out, size_t o, const RefTensor& want) {
    if (!out.valid()) return "output " + std::to_string(o) + " is not set";
    if (out.type() != want.type || out.shape() != want.shape)
        return "output " + std::to_string(o) + " is " + irlite::to_string(out.type()) + " " +
               irlite::to_string(out.shape()) + ", expected " + irlite::to_string(want.type) + " " +
               irlite::to_string(want.shape);
    for (int64_t i = 0; i < out.num_elements(); ++i)
        if (!element_matches(out, i, want.values[static_cast<size_t>(i)]))
            return "output " + std::to_string(o) + " element " + std::to_string(i) + " is " +
                   std::to_string(out.value_as_double(i)) + ", expected " +
                   std::to_string(want.values[static_cast<size_t>(i)]) + "; expected " + describe(want);
    return {};
}

// A mismatch report: what differs (`failure`), the model, its inputs and constants.
inline std::string mismatch_report(const WrittenGraph& graph, const std::string& failure) {
    std::string report = "fuzz_graph mismatch: " + failure + "\n--- model.xml ---\n" + graph.ir.xml() + "\n";
    for (size_t i = 0; i < graph.params.size(); ++i)
        report += "input " + std::to_string(i) + ": " + describe(graph.params[i]) + "\n";
    for (const std::string& c : graph.constants) report += c + "\n";
    return report;
}

// "" when irlite agrees with the reference on `graph`, else a mismatch report.
inline std::string compare_with_reference(const WrittenGraph& graph) {
    const std::string xml = graph.ir.xml();
    const auto& weights = graph.ir.weights();
    std::string failure;
    bool threw = false;
    std::string error_text;
    try {
        // Always a weights buffer, even an empty one: a model of 0-byte Consts still has a .bin.
        static const unsigned char no_bytes = 0;
        const irlite::Model model =
            irlite::Model::read_from_memory(xml, weights.empty() ? &no_bytes : weights.data(), weights.size());
        const irlite::CompiledModel compiled(model);
        irlite::InferRequest request = compiled.create_infer_request();
        if (compiled.inputs().size() != graph.params.size())
            failure = "the compiled model has " + std::to_string(compiled.inputs().size()) + " inputs, expected " +
                      std::to_string(graph.params.size());
        if (!graph.expect_error && compiled.outputs().size() != graph.expected.size())
            failure = "the compiled model has " + std::to_string(compiled.outputs().size()) + " outputs, expected " +
                      std::to_string(graph.expected.size());
        for (size_t i = 0; i < graph.params.size() && failure.empty(); ++i)
            request.set_input(i, to_tensor(graph.params[i]));
        for (int round = 0; round < 2 && failure.empty(); ++round) {
            request.infer();
            if (graph.expect_error) break;
            for (size_t o = 0; o < graph.expected.size() && failure.empty(); ++o)
                failure = compare_output(request.output(o), o, graph.expected[o]);
        }
    } catch (const irlite::Error& e) {
        threw = true;
        error_text = e.what();
    }
    if (threw && !graph.expect_error) failure = "irlite threw, the reference accepts the graph: " + error_text;
    if (!threw && graph.expect_error && failure.empty())
        failure = "irlite accepted the graph, the reference rejects it: " + graph.reason;
    return failure.empty() ? "" : mismatch_report(graph, failure);
}
}  // namespace irlite::fuzz
