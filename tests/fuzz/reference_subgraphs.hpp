// Plain reference semantics of the sub-graph ops the differential fuzzer builds (TensorIterator-1,
// Loop-5, If-8), written from ../shared/conformance/subgraphs/README.md and the README's
// "Sub-graphs" section: a loop over the iterations that calls the body, cuts sliced inputs and
// concatenates outputs itself. The body is a function over reference tensors (the fuzzer runs its
// ops with reference_ops.hpp), so nothing here shares code with irlite's engine.
#pragma once

#include <functional>
#include <vector>

#include "fuzz/reference_ops.hpp"

namespace irlite::reference {

// A body: its Parameters' values in, its Results' values out (both in the fuzzer's order).
using Body = std::function<std::vector<RefTensor>(const std::vector<RefTensor>&)>;

// How an outer input reaches a body Parameter. Sliced (TensorIterator): part i of `value` along
// `axis` (size 1), the last part first when stride < 0. Merged: `value` in the first iteration,
// then the body Result `back_edge` of the iteration before.
struct BodyInput {
    RefTensor value;
    bool sliced = false;
    size_t axis = 0;
    int stride = 1;
    int back_edge = -1;
};

// An outer output: the body Result `result` of the last iteration, or, with `concat`, that Result
// of every iteration joined along `axis` (last iteration first when stride < 0).
struct BodyOutput {
    int result = 0;
    bool concat = false;
    size_t axis = 0;
    int stride = 1;
};

// Element `i` along `axis`, the axis kept with size 1.
inline RefTensor part_of(const RefTensor& data, size_t axis, int64_t i) {
    Shape shape = data.shape;
    shape[axis] = 1;
    RefTensor part = make(data.type, shape);
    int64_t at = 0;
    for_each_index(shape, [&](const std::vector<int64_t>& idx) {
        std::vector<int64_t> src = idx;
        src[axis] = i;
        part.values[static_cast<size_t>(at++)] = data.values[static_cast<size_t>(offset_of(data.shape, src))];
    });
    return part;
}

// Every iteration's values of the body Results, in iteration order.
using Iterations = std::vector<std::vector<RefTensor>>;

// The outer outputs from the iterations. `shapes` are the body Results' types and shapes: what a
// zero-iteration Loop gives (zeros, or an empty concatenation).
inline std::vector<RefTensor> gather_outputs(const Iterations& runs, const std::vector<BodyOutput>& outputs,
                                             const std::vector<RefTensor>& shapes) {
    std::vector<RefTensor> out;
    for (const BodyOutput& o : outputs) {
        const RefTensor& like = shapes[static_cast<size_t>(o.result)];
        if (!o.concat) {
            out.push_back(runs.empty() ? make(like.type, like.shape) : runs.back()[static_cast<size_t>(o.result)]);
            continue;
        }
        std::vector<RefTensor> parts;
        for (const auto& run : runs) parts.push_back(run[static_cast<size_t>(o.result)]);
        if (o.stride < 0) std::reverse(parts.begin(), parts.end());
        if (parts.empty()) {
            Shape empty = like.shape;
            empty[o.axis] = 0;
            out.push_back(make(like.type, empty));
        } else {
            out.push_back(concat(parts, static_cast<int64_t>(o.axis)));
        }
    }
    return out;
}

// The body's inputs for iteration i (`previous`: the Results of iteration i - 1, none for i = 0).
inline std::vector<RefTensor> body_inputs(const std::vector<BodyInput>& inputs, int64_t i,
                                          const std::vector<RefTensor>* previous) {
    std::vector<RefTensor> in;
    for (const BodyInput& b : inputs) {
        if (b.sliced) {
            const int64_t n = b.value.shape[b.axis];
            in.push_back(part_of(b.value, b.axis, b.stride < 0 ? n - 1 - i : i));
        } else if (b.back_edge >= 0 && previous) {
            in.push_back((*previous)[static_cast<size_t>(b.back_edge)]);
        } else {
            in.push_back(b.value);
        }
    }
    return in;
}

// TensorIterator-1: one iteration per element of the sliced inputs' axis (they agree; stride 1 or
// -1 over the whole axis, part_size 1).
inline std::vector<RefTensor> tensor_iterator(const std::vector<BodyInput>& inputs, const Body& body,
                                              const std::vector<BodyOutput>& outputs, const std::vector<RefTensor>& shapes) {
    int64_t n = -1;
    for (const BodyInput& b : inputs)
        if (b.sliced) n = b.value.shape[b.axis];
    Iterations runs;
    for (int64_t i = 0; i < n; ++i) runs.push_back(body(body_inputs(inputs, i, runs.empty() ? nullptr : &runs.back())));
    return gather_outputs(runs, outputs, shapes);
}

// Loop-5: for (i = 0; i < trip_count && condition; ++i) condition = body(...). `iteration_input`
// is the body Parameter given i (of `iteration`'s type and shape), -1 for none; `condition_result`
// the body Result read as the next condition, -1 for none (the condition stays as it was).
struct LoopSpec {
    int64_t trip_count = 1;
    bool condition = true;
    int iteration_input = -1;
    RefTensor iteration;
    int condition_result = -1;
};

inline std::vector<RefTensor> loop(const LoopSpec& spec, std::vector<BodyInput> inputs, const Body& body,
                                   const std::vector<BodyOutput>& outputs, const std::vector<RefTensor>& shapes) {
    Iterations runs;
    bool condition = spec.condition;
    for (int64_t i = 0; i < spec.trip_count && condition; ++i) {
        if (spec.iteration_input >= 0) {
            RefTensor& it = inputs[static_cast<size_t>(spec.iteration_input)].value;
            it = spec.iteration;
            for (auto& v : it.values) v = i;
        }
        runs.push_back(body(body_inputs(inputs, i, runs.empty() ? nullptr : &runs.back())));
        if (spec.condition_result >= 0) condition = runs.back()[static_cast<size_t>(spec.condition_result)].values.at(0) != 0;
    }
    // With no iteration, a Result carried by a back edge gives its Parameter's initial value.
    std::vector<RefTensor> out = gather_outputs(runs, outputs, shapes);
    for (size_t o = 0; o < outputs.size() && runs.empty(); ++o)
        for (const BodyInput& b : inputs)
            if (!outputs[o].concat && b.back_edge == outputs[o].result) out[o] = b.value;
    return out;
}

// If-8: the condition's one element picks the body that runs.
inline std::vector<RefTensor> if_op(const RefTensor& condition, const Body& then_body, const std::vector<RefTensor>& then_in,
                                    const Body& else_body, const std::vector<RefTensor>& else_in) {
    if (condition.values.size() != 1) throw Invalid{"If condition must hold one value"};
    return condition.values[0] != 0 ? then_body(then_in) : else_body(else_in);
}

// Less-1 on one-element operands ([] or [1]; the fuzzer compares a Loop's iteration number with a
// limit): a boolean of the higher rank.
inline RefTensor less(const RefTensor& a, const RefTensor& b) {
    if (a.type != b.type) throw Invalid{"Less operand types differ"};
    if (a.values.size() != 1 || b.values.size() != 1) throw Invalid{"the reference's Less takes one element each"};
    RefTensor out = a.shape.size() >= b.shape.size() ? a : b;
    out.type = ElementType::boolean;
    for (size_t i = 0; i < out.values.size(); ++i) {
        out.values[i] = a.values[0] < b.values[0] ? 1 : 0;
    }
    return out;
}

}  // namespace irlite::reference
