// TensorIterator and Loop at run time (kernels/graph/body_iteration.hpp): the iterations on one
// body runner, kept with its buffers in the node's OpState so that a request's later runs
// allocate nothing. Sliced inputs are views where the parts are contiguous, else copied into the
// body's own Parameter buffers; back edges swap buffers the state owns; concatenated outputs are
// written part by part into the layer's outputs when the plan knows the count (writes_outputs),
// else gathered in buffers that keep their capacity and copied once the count is known.
#include <algorithm>
#include <cstring>

#include "engine/tensor_size.hpp"
#include "irlite/tensor.hpp"
#include "kernels/graph/body_iteration.hpp"

namespace irlite {
namespace {

// One concatenated output: where each iteration's part goes.
struct Collected {
    const PortMapEntry* entry = nullptr;
    size_t axis = 0;
    bool reverse = false;
    ElementType type = ElementType::f32;
    Shape first_part;  // the part's shape as the built body gives it (unknown dims 0)
    Shape part;        // this run's (from its first iteration)
    Shape whole;       // the output's, when it is made at the end
    size_t part_bytes = 0;
    int64_t count = 0;
    Tensor* direct = nullptr;     // the layer's output, written in place; else `bytes` gathers
    std::vector<std::byte> bytes;  // keeps its capacity from run to run
};

// The node's state in one request: made on the first run with a built body, reused while the
// plan's body is that one (a node prepared at run time gets a new plan each run, and the body the
// cache keeps for its input shapes).
struct IterationState : OpState {
    std::unique_ptr<BodyRunner> runner;
    std::vector<Tensor> staging;  // per back edge: the Parameter's next value
    std::vector<Collected> collected;
};

IterationState& state_for(KernelContext& ctx, const SubgraphAttrs& attrs, const IterationPlan& plan) {
    std::unique_ptr<OpState>& slot = ctx.state();
    if (slot && &static_cast<IterationState&>(*slot).runner->built() == plan.built.get())
        return static_cast<IterationState&>(*slot);
    auto st = std::make_unique<IterationState>();
    const SubgraphBody& body = attrs.bodies[0];
    st->runner = std::make_unique<BodyRunner>(body, plan.built, ctx.pool());
    for (const BackEdge& b : body.back_edges) {
        const Tensor& like = st->runner->input(static_cast<size_t>(b.parameter));
        st->staging.push_back(Tensor::uninitialized(like.type(), like.shape()));
    }
    for (const PortMapEntry& e : body.outputs) {
        if (e.output < 0 || !e.axis) continue;
        Collected c;
        c.entry = &e;
        const OutputInfo& r = plan.built->results[static_cast<size_t>(e.body_port)];
        c.type = r.type;
        c.first_part = r.shape.rank_known() ? r.shape.dims() : Shape{};
        for (int64_t& d : c.first_part) d = std::max<int64_t>(d, 0);
        const auto rank = static_cast<int64_t>(c.first_part.size());
        c.axis = static_cast<size_t>(*e.axis < 0 ? *e.axis + rank : *e.axis);
        c.reverse = attrs.kind == SubgraphKind::TensorIterator && e.stride < 0;
        c.part = c.whole = c.first_part;
        st->collected.push_back(std::move(c));
    }
    slot = std::move(st);
    return static_cast<IterationState&>(*slot);
}

bool read_condition(const Tensor& t) {
    return t.num_elements() > 0 && t.value_as_int64(0) != 0;
}

// Binds the body Parameters fed from the layer's inputs: invariant inputs once (no copy), merged
// ones as a copy of the input (their back edges overwrite it). Sliced inputs are set per
// iteration; returns how many iterations keep every slice inside its input (-1: none is sliced).
int64_t bind_body_inputs(KernelContext& ctx, const SubgraphBody& body, const IterationPlan& plan, BodyRunner& runner) {
    int64_t slice_limit = -1;
    for (size_t ei = 0; ei < body.inputs.size(); ++ei) {
        const PortMapEntry& e = body.inputs[ei];
        if (e.purpose == "current_iteration") continue;
        const Tensor& in = ctx.input(static_cast<size_t>(e.external));
        const auto p = static_cast<size_t>(e.body_port);
        if (e.axis) {
            const SliceRule& s = plan.slices[ei];
            const int64_t whole = in.shape()[s.axis];
            // Iterations that keep every part inside the axis.
            const int64_t fit = s.step > 0 ? (whole - s.first - s.part) / s.step + 1
                                           : s.step < 0 ? s.first / -s.step + 1 : kMaxIterations;
            const int64_t n = s.first < 0 || s.first + s.part > whole ? 0 : fit;
            slice_limit = slice_limit < 0 ? n : std::min(slice_limit, n);
        } else if (body.parameter_back_edge[p] >= 0) {
            Tensor& dst = runner.input(p);
            if (in.byte_size()) std::memcpy(dst.data(), in.data(), in.byte_size());
        } else {
            runner.input(p) = in;
        }
    }
    return slice_limit;
}

// Iteration i's own inputs: the iteration number and each sliced input's part (a view of the
// input where the plan found the parts contiguous, else a copy into the Parameter's buffer).
void set_iteration_inputs(KernelContext& ctx, const SubgraphBody& body, const IterationPlan& plan, BodyRunner& runner,
                          int64_t i) {
    if (body.current_iteration >= 0) {
        Tensor& it = runner.input(static_cast<size_t>(body.current_iteration));
        if (it.type() == ElementType::i32) *it.data<int32_t>() = static_cast<int32_t>(i);
        else *it.data<int64_t>() = i;
    }
    for (size_t ei = 0; ei < body.inputs.size(); ++ei) {
        const PortMapEntry& e = body.inputs[ei];
        if (!e.axis || e.purpose == "current_iteration") continue;
        const SliceRule& s = plan.slices[ei];
        const Tensor& in = ctx.input(static_cast<size_t>(e.external));
        Tensor& param = runner.input(static_cast<size_t>(e.body_port));
        if (!plan.slice_views[ei]) {
            copy_from_axis(in, param, s.axis, s.first + i * s.step);
            continue;
        }
        size_t inner = element_size(in.type());
        for (size_t d = s.axis + 1; d < in.shape().size(); ++d) inner *= static_cast<size_t>(in.shape()[d]);
        param.view_into(in, static_cast<size_t>(s.first + i * s.step) * inner);
    }
}

// Puts iteration i's part r of c in place; every part must have the first one's shape.
void collect_part(Collected& c, const Tensor& r, int64_t i, int64_t planned) {
    if (c.count == 0) {
        c.part = r.shape();
        if (c.axis >= c.part.size())
            throw entry_error(*c.entry, ErrorKind::ShapeRule, "shape-invalid",
                              cat("port_map output axis ", *c.entry->axis, " is out of range for the body Result's shape ",
                                  to_string(r.shape())));
        c.part_bytes = tensor_storage_bytes(c.type, c.part);
    } else if (r.shape() != c.part) {
        throw entry_error(*c.entry, ErrorKind::ShapeRule, "shape-changed",
                          cat("the body Result concatenated by this output is ", to_string(r.shape()), " in iteration ", i,
                              " and ", to_string(c.part), " before; every iteration's part must have one shape"));
    }
    ++c.count;
    if (c.direct) {
        // The output holds the planned count of parts; the loop runs exactly that many.
        if (i >= planned)
            throw Error(ErrorKind::Value, "internal-error", cat("iteration ", i, " past the ", planned, " planned"));
        const int64_t at = c.reverse ? planned - 1 - i : i;
        copy_into_axis(r, *c.direct, c.axis, at * c.part[c.axis]);
        return;
    }
    if (c.part_bytes && static_cast<uint64_t>(c.count) > max_tensor_bytes() / c.part_bytes) {
        Shape whole = c.part;
        whole[c.axis] *= c.count;
        check_tensor_fits(c.type, whole, c.entry->output);
    }
    c.bytes.insert(c.bytes.end(), r.bytes(), r.bytes() + c.part_bytes);
}

// After iteration i: each back edge's Result becomes its Parameter's next input (every Result is
// copied into `staging` before any Parameter is replaced, so no edge reads an already replaced one).
void carry_back_edges(const SubgraphBody& body, BodyRunner& runner, std::vector<Tensor>& staging, int64_t i) {
    for (size_t k = 0; k < body.back_edges.size(); ++k) {
        const Tensor& r = runner.result(static_cast<size_t>(body.back_edges[k].result));
        if (r.type() != staging[k].type() || r.shape() != staging[k].shape())
            throw port_map_error(ErrorKind::ShapeRule, "back-edge-shape", body.back_edges[k].line,
                                 cat("the back edge carries ", to_string(r.type()), " ", to_string(r.shape()), " in iteration ", i,
                                     " into a body Parameter of ", to_string(staging[k].type()), " ",
                                     to_string(staging[k].shape()), "; the two must have one type and shape"));
        if (r.byte_size()) std::memcpy(staging[k].data(), r.data(), r.byte_size());
    }
    for (size_t k = 0; k < body.back_edges.size(); ++k)
        std::swap(runner.input(static_cast<size_t>(body.back_edges[k].parameter)), staging[k]);
}

// A gathered output: made (dynamic_output) once the count is known, its parts copied in (the
// last one first for a negative stride).
void concatenate_parts(KernelContext& ctx, Collected& c) {
    if (c.axis >= c.part.size())
        throw entry_error(*c.entry, ErrorKind::ShapeRule, "shape-unresolved",
                          "the body Result's rank is unknown and no iteration ran: the concatenated output has no shape");
    const int64_t part_dim = c.part[c.axis];
    c.whole = c.part;
    c.whole[c.axis] = part_dim * c.count;
    Tensor& out = ctx.dynamic_output(static_cast<size_t>(c.entry->output), c.type, c.whole);
    for (int64_t k = 0; k < c.count; ++k) {
        const int64_t from = c.reverse ? c.count - 1 - k : k;
        copy_into_axis(c.bytes.data() + from * static_cast<int64_t>(c.part_bytes), part_dim, out, c.axis, k * part_dim);
    }
}

// The back edge whose Result is body Result `result`, or -1.
int back_edge_of(const SubgraphBody& body, int result) {
    int edge = -1;
    for (size_t k = 0; k < body.back_edges.size(); ++k)
        if (body.back_edges[k].result == result) edge = static_cast<int>(k);
    return edge;
}

// Body Result r's value in the last iteration, read after carry_back_edges. A Result fed directly
// by a Parameter that a back edge feeds is that Parameter's input itself, which the carry has
// replaced by the next iteration's: the value the last iteration saw is now in `staging`.
const Tensor& last_result(const SubgraphBody& body, BodyRunner& runner, const std::vector<Tensor>& staging, int r) {
    const Tensor& value = runner.result(static_cast<size_t>(r));
    for (size_t k = 0; k < body.back_edges.size(); ++k)
        if (&value == &runner.input(static_cast<size_t>(body.back_edges[k].parameter))) return staging[k];
    return value;
}

// Writes (or makes) a not concatenated output after `iterations` iterations.
void write_last_value(KernelContext& ctx, const PortMapEntry& e, const SubgraphBody& body, const BuiltBody& built,
                      BodyRunner& runner, const std::vector<Tensor>& staging, int64_t iterations, bool direct) {
    const auto o = static_cast<size_t>(e.output);
    const int edge = back_edge_of(body, e.body_port);
    // After the swaps of carry_back_edges, a back edge's Result is its Parameter's input; when no
    // iteration ran, that is the edge's initial value.
    const Tensor* src = edge >= 0 ? &runner.input(static_cast<size_t>(body.back_edges[static_cast<size_t>(edge)].parameter))
                        : iterations > 0 ? &last_result(body, runner, staging, e.body_port)
                                         : nullptr;
    if (!src) {
        // No iteration ran and no back edge carries it: zeros.
        const OutputInfo& r = built.results[static_cast<size_t>(e.body_port)];
        Shape shape = r.shape.rank_known() ? r.shape.dims() : Shape{};
        for (int64_t& d : shape) d = std::max<int64_t>(d, 0);
        Tensor& out = direct ? ctx.output(o) : ctx.dynamic_output(o, r.type, shape);
        if (out.byte_size()) std::memset(out.data(), 0, out.byte_size());
        return;
    }
    write_output(ctx, o, *src, direct);
}

}  // namespace

void run_iterations(KernelContext& ctx, const SubgraphAttrs& attrs, const IterationPlan& plan,
                    const IterationLimits& limits) {
    const SubgraphBody& body = attrs.bodies[0];
    IterationState& st = state_for(ctx, attrs, plan);
    BodyRunner& runner = *st.runner;
    const bool direct = writes_outputs_in_place(ctx, plan);
    for (Collected& c : st.collected) {
        c.count = 0;
        c.part = c.first_part;
        c.bytes.clear();
        c.direct = direct ? &ctx.output(static_cast<size_t>(c.entry->output)) : nullptr;
    }
    const int64_t slice_limit = bind_body_inputs(ctx, body, plan, runner);
    int64_t limit = limits.max_iterations;
    if (slice_limit >= 0) limit = limit < 0 ? slice_limit : std::min(limit, slice_limit);
    bool condition = limits.initial_condition;
    int64_t i = 0;
    for (; condition && (limit < 0 || i < limit); ++i) {
        if (i >= kMaxIterations)
            throw Error(ErrorKind::Limit, "loop-too-long",
                        cat("the loop has run ", kMaxIterations, " iterations and its condition still holds; irlite stops ",
                            "loops at ", kMaxIterations, " iterations (trip count -1 and an execution condition that never turns false?)"));
        set_iteration_inputs(ctx, body, plan, runner, i);
        runner.run();
        if (limits.use_condition && body.condition >= 0) condition = read_condition(runner.result(static_cast<size_t>(body.condition)));
        for (Collected& c : st.collected) collect_part(c, runner.result(static_cast<size_t>(c.entry->body_port)), i, plan.iterations);
        carry_back_edges(body, runner, st.staging, i);
    }
    if (direct && !st.collected.empty() && i != plan.iterations)
        throw Error(ErrorKind::Value, "internal-error", cat("the loop ran ", i, " iterations, ", plan.iterations, " planned"));
    for (Collected& c : st.collected)
        if (!direct) concatenate_parts(ctx, c);
    for (const PortMapEntry& e : body.outputs)
        if (e.output >= 0 && !e.axis) write_last_value(ctx, e, body, *plan.built, runner, st.staging, i, direct);
}

}  // namespace irlite
