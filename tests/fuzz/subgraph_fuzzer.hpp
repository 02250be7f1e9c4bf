// The graph fuzzer's sub-graph layers: TensorIterator, Loop and If, whose bodies are 1..3 steps
// of Add, Multiply, Roll and CumSum (body_writer.hpp), computed by reference_subgraphs.hpp's
// loops; now and then an If nested in a TensorIterator or Loop body. graph_fuzzer.hpp picks them
// among its ops; they write into the same graph (graph_writer.hpp) and draw from the same choices.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "fuzz/body_writer.hpp"
#include "fuzz/graph_writer.hpp"
#include "fuzz/reference_subgraphs.hpp"

namespace irlite::fuzz {

// Writes TensorIterator, Loop and If layers into the graph of a GraphWriter (the chain's value in,
// one of the layer's outputs out), drawing from the writer's choices.
class SubgraphFuzzer {
public:
    explicit SubgraphFuzzer(GraphWriter& writer) : writer_(writer), fdp_(writer.choices()) {}

    // Sub-graph layers the graph holds (counted as they are written; the test of fixed seeds
    // checks that each kind is generated and compared).
    struct BodyCounts {
        int tensor_iterator = 0;
        int loop = 0;
        int if_ = 0;
        int nested_if = 0;  // an If inside a TensorIterator or Loop body
    };
    const BodyCounts& bodies() const { return bodies_; }

    // TensorIterator: `data` sliced along an axis of 1..6 elements (stride 1 or -1), an invariant
    // input, and a state merged through a back edge.
    Value tensor_iterator(const Value& data) {
        const Shape& shape = data.ref.shape;
        std::vector<size_t> axes;
        for (size_t i = 0; i < shape.size(); ++i)
            if (shape[i] >= 1 && shape[i] <= 6) axes.push_back(i);
        if (axes.empty() || !fits_a_body(data.ref)) return data;
        const ElementType type = data.ref.type;
        const size_t axis = axes[fdp_.ConsumeIntegralInRange<size_t>(0, axes.size() - 1)];
        const int stride = fdp_.ConsumeBool() ? 1 : -1;
        Shape part = shape;
        part[axis] = 1;
        const Value invariant = writer_.aux(writer_.random_values(type, broadcastable_to(part), 8));
        const Value initial = writer_.aux(writer_.random_values(type, part, 8));
        BodyWriter b = new_body();
        const bool dynamic = writer_.one_in(4);
        const Node px = b.parameter(type, part, dynamic), pc = b.parameter(type, invariant.ref.shape, dynamic);
        const Node ps = b.parameter(type, part, dynamic);
        const auto [last, other] = body_chain(b, ps, {px, pc}, nullptr);
        const Node state = maybe_nested_if(b, use_some(b, last, {px, pc}), nullptr);
        const std::vector<int> results{b.result(state), b.result(other)};
        std::string map = "<port_map>\n" + map_entry("input", 0, px.layer, slicing(axis, stride)) +
                          map_entry("input", 1, pc.layer) + map_entry("input", 2, ps.layer);
        const std::vector<ref::BodyOutput> outputs = body_outputs(b, results, 3, true, map);
        const std::string inner = map + "</port_map>\n" + back_edge(results[0], ps.layer) + b.xml("body");
        const std::vector<ref::BodyInput> inputs{{data.ref, true, axis, stride, -1}, {invariant.ref, false, 0, 1, -1},
                                                 {initial.ref, false, 0, 1, 0}};
        const auto outs =
            writer_.reference([&] { return ref::tensor_iterator(inputs, b.function(), outputs, b.result_shapes()); });
        ++bodies_.tensor_iterator;
        return keep_one(writer_.emit("TensorIterator", "opset1", "", {&data, &invariant, &initial}, outs,
                                     outputs.size(), shape.size(), inner));
    }

    // Loop: a Const trip count (0..4; now and then a Parameter) and initial condition (now and then
    // false), `data` as the state merged through a back edge, an invariant input, mostly a
    // current_iteration Parameter (Roll's shift in the body), and sometimes an execution condition
    // computed from it.
    Value loop(const Value& data) {
        if (!fits_a_body(data.ref)) return data;
        const ElementType type = data.ref.type;
        ref::LoopSpec spec;
        spec.trip_count = writer_.one_in(10) ? 0 : fdp_.ConsumeIntegralInRange<int64_t>(1, 4);
        spec.condition = !writer_.one_in(10);
        const RefTensor t_trip = one_element(fdp_.ConsumeBool() ? ElementType::i64 : ElementType::i32, spec.trip_count);
        const bool trip_as_parameter = writer_.one_in(6);
        const Value trip = writer_.source(t_trip, trip_as_parameter);
        const RefTensor t_condition = one_element(ElementType::boolean, spec.condition ? 1 : 0);
        const bool condition_as_parameter = writer_.one_in(6);
        const Value condition = writer_.source(t_condition, condition_as_parameter);
        const Value invariant = writer_.aux(writer_.random_values(type, broadcastable_to(data.ref.shape), 8));
        BodyWriter b = new_body();
        const bool dynamic = writer_.one_in(4);
        const Node ps = b.parameter(type, data.ref.shape, dynamic), pc = b.parameter(type, invariant.ref.shape, dynamic);
        std::string map = "<port_map>\n" + map_entry("input", 2, ps.layer) + map_entry("input", 3, pc.layer);
        Node pi;
        bool with_condition = false;
        if (!writer_.one_in(4)) {
            with_condition = fdp_.ConsumeBool();
            spec.iteration_input = 2;
            spec.iteration = one_element(fdp_.ConsumeBool() ? ElementType::i64 : ElementType::i32, 0);
            pi = b.parameter(spec.iteration.type, spec.iteration.shape, false);
            map += map_entry("input", -1, pi.layer, " purpose=\"current_iteration\"");
        }
        const Node* iteration = spec.iteration_input >= 0 ? &pi : nullptr;
        const auto [last, other] = body_chain(b, ps, {pc}, iteration);
        Node state = maybe_nested_if(b, use_some(b, last, {pc}), iteration);
        // current_iteration must feed something too: a Roll of the state, or the condition.
        if (iteration && !with_condition && !b.consumed(pi)) {
            if (state.shape.empty()) with_condition = true;
            else state = body_roll(b, state, iteration, true);
        }
        const std::vector<int> results{b.result(state), b.result(other)};
        const std::vector<ref::BodyOutput> outputs = body_outputs(b, results, 4, false, map);
        if (with_condition) {
            spec.condition_result = 2;
            map += map_entry("output", -1, b.result(below_limit(b, pi)), " purpose=\"execution_condition\"");
        }
        const std::string inner = map + "</port_map>\n" + back_edge(results[0], ps.layer) + b.xml("body");
        std::vector<ref::BodyInput> inputs{{data.ref, false, 0, 1, 0}, {invariant.ref, false, 0, 1, -1}};
        if (iteration) inputs.push_back({spec.iteration, false, 0, 1, -1});
        const auto outs =
            writer_.reference([&] { return ref::loop(spec, inputs, b.function(), outputs, b.result_shapes()); });
        ++bodies_.loop;
        return keep_one(writer_.emit("Loop", "opset5", "", {&trip, &condition, &data, &invariant}, outs, outputs.size(),
                                     data.ref.shape.size(), inner));
    }

    // If: a boolean condition (a Const, or a Parameter so the branch is picked at run time), `data`
    // for the then branch and another value (often of another shape) for the else branch, each
    // with its own chain; 1 or 2 outputs.
    Value if_op(const Value& data) {
        if (!fits_a_body(data.ref)) return data;
        const RefTensor t_condition = one_element(ElementType::boolean, fdp_.ConsumeBool() ? 1 : 0);
        const Value condition = writer_.source(t_condition, fdp_.ConsumeBool());
        const Shape other_shape = fdp_.ConsumeBool() ? data.ref.shape : writer_.random_shape(0, 3);
        const Value other = writer_.aux(writer_.random_values(data.ref.type, other_shape, 8));
        const bool two = fdp_.ConsumeBool();
        BodyWriter then_body = new_body(), else_body = new_body();
        const std::string then_map = if_branch(then_body, data, 1, two, "then");
        const std::string else_map = if_branch(else_body, other, 2, two, "else");
        const std::string inner = then_map + else_map + then_body.xml("then_body") + else_body.xml("else_body");
        const auto outs = writer_.reference([&] {
            return ref::if_op(t_condition, then_body.function(), {data.ref}, else_body.function(), {other.ref});
        });
        ++bodies_.if_;
        return keep_one(writer_.emit("If", "opset8", "", {&condition, &data, &other}, outs, two ? 2 : 1,
                                     data.ref.shape.size(), inner));
    }

private:
    // Every body value keeps the shape and type of the value the body starts from, so a back edge
    // always fits.
    using Node = BodyWriter::Node;

    // A shape numpy-broadcasts into `s`: a suffix of its dims, each kept or 1.
    Shape broadcastable_to(const Shape& s) {
        Shape o;
        const size_t keep = fdp_.ConsumeIntegralInRange<size_t>(0, s.size());
        for (size_t i = s.size() - keep; i < s.size(); ++i) o.push_back(writer_.one_in(3) ? 1 : s[i]);
        return o;
    }

    // Bodies take data that is not boolean (no arithmetic) and small enough for a few iterations.
    static bool fits_a_body(const RefTensor& t) { return t.type != ElementType::boolean && t.values.size() <= 512; }

    Node body_const(BodyWriter& b, const RefTensor& t) {
        const Node n = b.constant(t, to_bytes(t));
        writer_.note_constant("body const " + std::to_string(n.layer), t);
        return n;
    }

    // v + w or v * w, w one of `operands` (each broadcasts into v's shape) or a new Const. Floats
    // multiply only by a Const in [-1, 1]: a product carried through iterations must stay an
    // integer the reference's int64 holds exactly (integers wrap alike on both sides).
    Node body_binary(BodyWriter& b, const Node& v, const std::vector<Node>& operands, bool multiply) {
        const bool small_factor = multiply && is_float(v.type);
        Node w;
        if (!operands.empty() && !small_factor && fdp_.ConsumeBool())
            w = operands[fdp_.ConsumeIntegralInRange<size_t>(0, operands.size() - 1)];
        else
            w = body_const(b, writer_.random_values(v.type, broadcastable_to(v.shape),
                                                    small_factor ? 1 : multiply ? 3 : 8));
        const bool swap = fdp_.ConsumeBool();
        const std::vector<Node> in = swap ? std::vector<Node>{w, v} : std::vector<Node>{v, w};
        return b.op(multiply ? "Multiply" : "Add", "opset1", "", in, v.type, v.shape, [multiply](const std::vector<RefTensor>& a) {
            return multiply ? ref::multiply(a[0], a[1]) : ref::add(a[0], a[1]);
        });
    }

    // Roll along one axis, by a Const or by the Loop's iteration number (always, with `by_iteration`).
    Node body_roll(BodyWriter& b, const Node& v, const Node* iteration, bool by_iteration = false) {
        const int64_t rank = static_cast<int64_t>(v.shape.size());
        const Node axes = body_const(b, index_tensor(ElementType::i64, {1}, {fdp_.ConsumeIntegralInRange<int64_t>(-rank, rank - 1)}));
        Node shift;
        if (iteration && (by_iteration || fdp_.ConsumeBool())) {
            shift = *iteration;
        } else {
            const ElementType type = fdp_.ConsumeBool() ? ElementType::i64 : ElementType::i32;
            const int64_t by = fdp_.ConsumeIntegralInRange<int64_t>(-3, 3);
            shift = body_const(b, index_tensor(type, {}, {by}));
        }
        return b.op("Roll", "opset7", "", {v, shift, axes}, v.type, v.shape,
                    [](const std::vector<RefTensor>& a) { return ref::roll(a[0], a[1], a[2]); });
    }

    // CumSum along one axis, on integers only: a float sum would round at each step in irlite and
    // once in the reference, and repeated sums over iterations outgrow what int64 holds exactly.
    Node body_cum_sum(BodyWriter& b, const Node& v) {
        const int64_t rank = static_cast<int64_t>(v.shape.size());
        const RefTensor t_axis = index_tensor(ElementType::i64, {}, {fdp_.ConsumeIntegralInRange<int64_t>(-rank, rank - 1)});
        const bool exclusive = fdp_.ConsumeBool(), reverse = fdp_.ConsumeBool();
        const std::string attrs = std::string("exclusive=\"") + (exclusive ? "true" : "false") + "\" reverse=\"" +
                                  (reverse ? "true" : "false") + "\"";
        return b.op("CumSum", "opset3", attrs, {v, body_const(b, t_axis)}, v.type, v.shape,
                    [t_axis, exclusive, reverse](const std::vector<RefTensor>& a) {
                        return ref::cum_sum(a[0], t_axis, exclusive, reverse);
                    });
    }

    Node body_step(BodyWriter& b, const Node& v, const std::vector<Node>& operands, const Node* iteration) {
        const int kind = fdp_.ConsumeIntegralInRange(0, 3);
        if (kind == 2 && !v.shape.empty()) return body_roll(b, v, iteration);
        if (kind == 3 && !v.shape.empty() && !is_float(v.type)) return body_cum_sum(b, v);
        return body_binary(b, v, operands, kind == 1);
    }

    // Adds to `v` some of the `parameters` that feed nothing yet, and leaves the others unused: a
    // body need not use every Parameter (irlite once dropped such a Parameter and could not build
    // the body: tests/data/fuzz/fuzz_graph_models/unused_body_parameter.xml).
    Node use_some(BodyWriter& b, Node v, const std::vector<Node>& parameters) {
        for (const Node& p : parameters)
            if (!b.consumed(p) && fdp_.ConsumeBool())
                v = b.op("Add", "opset1", "", {v, p}, v.type, v.shape,
                         [](const std::vector<RefTensor>& a) { return ref::add(a[0], a[1]); });
        return v;
    }

    // 1..3 steps from `start`: the last value, and one value on the way (`start` included) for
    // another output. `start` is often a Parameter a back edge feeds, whose Result must give the
    // value the last iteration started from (irlite once gave the next one:
    // tests/data/fuzz/fuzz_graph_models/back_edged_parameter_result.xml).
    std::pair<Node, Node> body_chain(BodyWriter& b, const Node& start, const std::vector<Node>& operands,
                                     const Node* iteration) {
        std::vector<Node> made{start};
        for (int i = fdp_.ConsumeIntegralInRange(1, 3); i > 0; --i) made.push_back(body_step(b, made.back(), operands, iteration));
        return {made.back(), made[fdp_.ConsumeIntegralInRange<size_t>(0, made.size() - 1)]};
    }

    BodyWriter new_body() { return BodyWriter(writer_.weights_for_bodies(), "b" + std::to_string(bodies_made_++)); }

    static std::string map_entry(const char* kind, int external, int internal, const std::string& extra = "") {
        return std::string("<") + kind + " external_port_id=\"" + std::to_string(external) + "\" internal_layer_id=\"" +
               std::to_string(internal) + "\"" + extra + "/>\n";
    }
    // A port map entry's slicing attributes: the whole axis, forwards or backwards.
    static std::string slicing(size_t axis, int stride) {
        return " axis=\"" + std::to_string(axis) + "\" start=\"" + (stride > 0 ? "0" : "-1") + "\" end=\"" +
               (stride > 0 ? "-1" : "0") + "\" stride=\"" + std::to_string(stride) + "\"";
    }
    static std::string back_edge(int result, int parameter) {
        return "<back_edges>\n<edge from-layer=\"" + std::to_string(result) + "\" from-port=\"0\" to-layer=\"" +
               std::to_string(parameter) + "\" to-port=\"0\"/>\n</back_edges>\n";
    }

    // The layer's outputs: one continues the chain, the others go to Results.
    Value keep_one(const std::vector<Value>& outs) {
        const size_t keep = fdp_.ConsumeIntegralInRange<size_t>(0, outs.size() - 1);
        for (size_t i = 0; i < outs.size(); ++i)
            if (i != keep) writer_.result(outs[i]);
        return outs[keep];
    }

    // Outputs of a TensorIterator or Loop: the last state (result 0), and result 1 (another body
    // value) concatenated along an axis of its rank (when it has one) and sometimes its last value.
    // Entries go to `map`, ids from `first_port`.
    std::vector<ref::BodyOutput> body_outputs(const BodyWriter& b, const std::vector<int>& results, int first_port,
                                              bool with_stride, std::string& map) {
        std::vector<ref::BodyOutput> outs{{0, false, 0, 1}};
        const size_t rank = b.result_shapes()[1].shape.size();
        if (rank > 0) {
            // A Loop concatenates in iteration order (its entries have no stride).
            const int stride = with_stride && fdp_.ConsumeBool() ? -1 : 1;
            outs.push_back({1, true, fdp_.ConsumeIntegralInRange<size_t>(0, rank - 1), stride});
        }
        if (rank == 0 || fdp_.ConsumeBool()) outs.push_back({1, false, 0, 1});
        for (size_t i = 0; i < outs.size(); ++i) {
            const ref::BodyOutput& o = outs[i];
            std::string extra;
            if (o.concat) extra = with_stride ? slicing(o.axis, o.stride) : " axis=\"" + std::to_string(o.axis) + "\"";
            map += map_entry("output", first_port + static_cast<int>(i), results[static_cast<size_t>(o.result)], extra);
        }
        return outs;
    }

    // A one-element tensor of `type`, shape [] or [1].
    RefTensor one_element(ElementType type, int64_t v) { return index_tensor(type, fdp_.ConsumeBool() ? Shape{} : Shape{1}, {v}); }

    // current_iteration < a Const limit: the Loop body's execution condition, or a nested If's.
    Node below_limit(BodyWriter& b, const Node& iteration) {
        const RefTensor limit = index_tensor(iteration.type, {}, {fdp_.ConsumeIntegralInRange<int64_t>(-1, 4)});
        return b.op("Less", "opset1", "", {iteration, body_const(b, limit)}, ElementType::boolean, iteration.shape,
                    [](const std::vector<RefTensor>& a) { return ref::less(a[0], a[1]); });
    }

    // One branch of a nested If: a chain from its Parameter (If input 1, `v`) to its Result.
    std::string nested_branch(BodyWriter& nb, const Node& v, const std::string& tag) {
        const Node p = nb.parameter(v.type, v.shape, writer_.one_in(4));
        const Node last = body_chain(nb, p, {}, nullptr).first;
        return "<" + tag + "_port_map>\n" + map_entry("input", 1, p.layer) + map_entry("output", 0, nb.result(last)) + "</" +
               tag + "_port_map>\n";
    }

    // Now and then an If on `v` inside a TensorIterator or Loop body (a body within a body),
    // its condition current_iteration < k in a Loop that has one, a body Const otherwise. Both
    // branches keep v's shape, so the state's back edge still fits.
    Node maybe_nested_if(BodyWriter& b, const Node& v, const Node* iteration) {
        if (!writer_.one_in(3)) return v;
        const Node condition = iteration ? below_limit(b, *iteration)
                                         : body_const(b, one_element(ElementType::boolean, fdp_.ConsumeBool() ? 1 : 0));
        BodyWriter then_body = new_body(), else_body = new_body();
        // One statement each: the bodies' XML is complete only after their branches are written.
        const std::string then_map = nested_branch(then_body, v, "then");
        const std::string else_map = nested_branch(else_body, v, "else");
        const std::string inner = then_map + else_map + then_body.xml("then_body") + else_body.xml("else_body");
        ++bodies_.nested_if;
        return b.op("If", "opset8", "", {condition, v}, v.type, v.shape,
                    [then_fn = then_body.function(), else_fn = else_body.function()](const std::vector<RefTensor>& a) {
                        return ref::if_op(a[0], then_fn, {a[1]}, else_fn, {a[1]}).at(0);
                    },
                    inner);
    }

    // One branch of an If: a chain from the Parameter fed by outer input `port` (`value`); its
    // Results give output 0 and, with `two`, output 1.
    std::string if_branch(BodyWriter& b, const Value& value, int port, bool two, const char* tag) {
        const Node p = b.parameter(value.ref.type, value.ref.shape, writer_.one_in(4));
        const auto [last, other] = body_chain(b, p, {}, nullptr);
        std::string map = "<" + std::string(tag) + "_port_map>\n" + map_entry("input", port, p.layer) +
                          map_entry("output", 0, b.result(last));
        if (two) map += map_entry("output", 1, b.result(other));
        return map + "</" + tag + "_port_map>\n";
    }

    GraphWriter& writer_;
    Choices& fdp_;  // writer_'s choices, under the name the generators use
    BodyCounts bodies_;
    int bodies_made_ = 0;
};
}  // namespace irlite::fuzz
