// TensorIterator and Loop iterations (kernels/graph/body_iteration.hpp).
#include "kernels/graph/body_iteration.hpp"

#include <algorithm>
#include <cstring>

#include "engine/tensor_size.hpp"
#include "irlite/tensor.hpp"

namespace irlite {

Error entry_error(const PortMapEntry& e, ErrorKind kind, std::string code, std::string message) {
    return port_map_error(kind, std::move(code), e.line, std::move(message));
}

std::vector<OutputInfo> body_parameters(const SubgraphAttrs& attrs, const std::vector<PartialShape>& shapes,
                                        const std::vector<ElementType>& types, const std::vector<SliceRule>& slices) {
    const SubgraphBody& body = attrs.bodies[0];
    std::vector<OutputInfo> params(body.parameter_layers.size());
    for (size_t p = 0; p < params.size(); ++p) {
        if (static_cast<int>(p) == body.current_iteration) {
            params[p] = declared_parameter(body, p);
            continue;
        }
        const size_t ei = static_cast<size_t>(body.parameter_input[p]);
        const PortMapEntry& e = body.inputs[ei];
        const auto x = static_cast<size_t>(e.external);
        params[p].type = types[x];
        params[p].shape = shapes[x];
        if (e.axis && params[p].shape.rank_known()) params[p].shape[slices[ei].axis] = slices[ei].part;
    }
    return params;
}

std::vector<OutputInfo> iteration_outputs(const SubgraphAttrs& attrs, const BuiltBody& built, int64_t iterations) {
    std::vector<OutputInfo> outs(attrs.num_outputs);
    for (const PortMapEntry& e : attrs.bodies[0].outputs) {
        if (e.output < 0) continue;
        OutputInfo info = built.results[static_cast<size_t>(e.body_port)];
        if (e.axis && info.shape.rank_known()) {
            const int64_t rank = static_cast<int64_t>(info.shape.rank());
            if (*e.axis < -rank || *e.axis >= rank)
                throw entry_error(e, ErrorKind::Attribute, "attribute-invalid",
                                  cat("port_map output axis ", *e.axis, " is out of range for the body Result's rank ", rank,
                                      " (allowed ", -rank, " to ", rank - 1, ")"));
            const auto axis = static_cast<size_t>(*e.axis < 0 ? *e.axis + rank : *e.axis);
            const int64_t part = info.shape[axis];
            info.shape[axis] = iterations == kDynamic || part == kDynamic ? kDynamic : iterations * part;
        } else if (e.axis && !info.shape.rank_known()) {
            info.shape = PartialShape::dynamic_rank();
        }
        outs[static_cast<size_t>(e.output)] = info;
    }
    return outs;
}

namespace {

// Every iteration's value of one concatenated output, appended as it comes.
struct Collected {
    const PortMapEntry* entry = nullptr;
    size_t axis = 0;
    bool reverse = false;
    ElementType type = ElementType::f32;
    Shape part;
    size_t part_bytes = 0;
    std::vector<std::byte> bytes;
    int64_t count = 0;
};

bool read_condition(const Tensor& t) {
    return t.num_elements() > 0 && t.value_as_int64(0) != 0;
}

// Binds the body Parameters fed from the layer's inputs: invariant inputs once (no copy), merged
// ones as a copy of the input (their back edges overwrite it). Sliced inputs are set per
// iteration; returns how many iterations keep every slice inside its input (-1: none is sliced).
int64_t bind_body_inputs(KernelContext& ctx, const SubgraphBody& body, const std::vector<SliceRule>& slices,
                         BodyRunner& runner) {
    int64_t slice_limit = -1;
    for (size_t ei = 0; ei < body.inputs.size(); ++ei) {
        const PortMapEntry& e = body.inputs[ei];
        if (e.purpose == "current_iteration") continue;
        const Tensor& in = ctx.input(static_cast<size_t>(e.external));
        const auto p = static_cast<size_t>(e.body_port);
        if (e.axis) {
            const SliceRule& s = slices[ei];
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

// An empty Collected for each output concatenated over the iterations.
std::vector<Collected> start_collecting(const SubgraphAttrs& attrs, const BuiltBody& built) {
    std::vector<Collected> collected;
    for (const PortMapEntry& e : attrs.bodies[0].outputs) {
        if (e.output < 0 || !e.axis) continue;
        Collected c;
        c.entry = &e;
        const OutputInfo& r = built.results[static_cast<size_t>(e.body_port)];
        c.type = r.type;
        // Dims known only at run time are taken from the first iteration (0 when none runs).
        c.part = r.shape.rank_known() ? r.shape.dims() : Shape{};
        for (int64_t& d : c.part) d = std::max<int64_t>(d, 0);
        const auto rank = static_cast<int64_t>(c.part.size());
        c.axis = static_cast<size_t>(*e.axis < 0 ? *e.axis + rank : *e.axis);
        c.reverse = attrs.kind == SubgraphKind::TensorIterator && e.stride < 0;
        collected.push_back(std::move(c));
    }
    return collected;
}

// Iteration i's own inputs: the iteration number and each sliced input's part.
void set_iteration_inputs(KernelContext& ctx, const SubgraphBody& body, const std::vector<SliceRule>& slices,
                          BodyRunner& runner, int64_t i) {
    if (body.current_iteration >= 0) {
        Tensor& it = runner.input(static_cast<size_t>(body.current_iteration));
        if (it.type() == ElementType::i32) *it.data<int32_t>() = static_cast<int32_t>(i);
        else *it.data<int64_t>() = i;
    }
    for (size_t ei = 0; ei < body.inputs.size(); ++ei) {
        const PortMapEntry& e = body.inputs[ei];
        if (!e.axis || e.purpose == "current_iteration") continue;
        const SliceRule& s = slices[ei];
        copy_from_axis(ctx.input(static_cast<size_t>(e.external)), runner.input(static_cast<size_t>(e.body_port)), s.axis,
                       s.first + i * s.step);
    }
}

// Appends iteration i's part r to c; every part must have the first one's shape.
void collect_part(Collected& c, const Tensor& r, int64_t i) {
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
    Shape whole = c.part;
    whole[c.axis] *= c.count + 1;
    check_tensor_fits(c.type, whole, c.entry->output);
    c.bytes.insert(c.bytes.end(), r.bytes(), r.bytes() + c.part_bytes);
    ++c.count;
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

// The concatenated output of entry e from its collected parts (reversed for a negative stride).
Tensor concatenate_parts(const PortMapEntry& e, const Collected& c) {
    Shape shape = c.part;
    if (c.axis >= shape.size())
        throw entry_error(e, ErrorKind::ShapeRule, "shape-unresolved",
                          "the body Result's rank is unknown and no iteration ran: the concatenated output has no shape");
    const int64_t part_dim = shape[c.axis];
    shape[c.axis] = part_dim * c.count;
    Tensor out = Tensor::uninitialized(c.type, shape);
    for (int64_t k = 0; k < c.count; ++k) {
        const int64_t from = c.reverse ? c.count - 1 - k : k;
        const Tensor part = Tensor::wrap(c.type, c.part, const_cast<std::byte*>(c.bytes.data()) + from * static_cast<int64_t>(c.part_bytes));
        copy_into_axis(part, out, c.axis, k * part_dim);
    }
    return out;
}

// The back edge whose Result is body Result `result`, or -1.
int back_edge_of(const SubgraphBody& body, int result) {
    int edge = -1;
    for (size_t k = 0; k < body.back_edges.size(); ++k)
        if (body.back_edges[k].result == result) edge = static_cast<int>(k);
    return edge;
}

// The value of a not concatenated output after `iterations` iterations.
Tensor last_value(const PortMapEntry& e, const SubgraphBody& body, const BuiltBody& built, BodyRunner& runner,
                  int64_t iterations) {
    const int edge = back_edge_of(body, e.body_port);
    // After the swaps of carry_back_edges, a back edge's Result is its Parameter's input; when no
    // iteration ran, that is the edge's initial value.
    if (edge >= 0) return copy_tensor(runner.input(static_cast<size_t>(body.back_edges[static_cast<size_t>(edge)].parameter)));
    if (iterations > 0) return copy_tensor(runner.result(static_cast<size_t>(e.body_port)));
    // No iteration ran and no back edge carries it: zeros.
    const OutputInfo& r = built.results[static_cast<size_t>(e.body_port)];
    Shape shape = r.shape.rank_known() ? r.shape.dims() : Shape{};
    for (int64_t& d : shape) d = std::max<int64_t>(d, 0);
    return Tensor(r.type, shape);
}

}  // namespace

void run_iterations(KernelContext& ctx, const SubgraphAttrs& attrs, const std::vector<SliceRule>& slices,
                    const IterationLimits& limits, const OpRegistry& registry) {
    const SubgraphBody& body = attrs.bodies[0];
    std::vector<PartialShape> shapes;
    std::vector<ElementType> types;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
        shapes.emplace_back(ctx.input(i).shape());
        types.push_back(ctx.input(i).type());
    }
    const std::vector<OutputInfo> params = body_parameters(attrs, shapes, types, slices);
    const std::shared_ptr<const BuiltBody> built = attrs.build(0, params, registry, nullptr);
    BodyRunner runner(body, built, ctx.pool());

    const int64_t slice_limit = bind_body_inputs(ctx, body, slices, runner);
    std::vector<Tensor> staging;
    for (const BackEdge& b : body.back_edges) {
        const Tensor& like = runner.input(static_cast<size_t>(b.parameter));
        staging.push_back(Tensor::uninitialized(like.type(), like.shape()));
    }
    std::vector<Collected> collected = start_collecting(attrs, *built);

    int64_t limit = limits.max_iterations;
    if (slice_limit >= 0) limit = limit < 0 ? slice_limit : std::min(limit, slice_limit);
    bool condition = limits.initial_condition;
    int64_t i = 0;
    for (; condition && (limit < 0 || i < limit); ++i) {
        if (i >= kMaxIterations)
            throw Error(ErrorKind::Limit, "loop-too-long",
                        cat("the loop has run ", kMaxIterations, " iterations and its condition still holds; irlite stops ",
                            "loops at ", kMaxIterations, " iterations (trip count -1 and an execution condition that never turns false?)"));
        set_iteration_inputs(ctx, body, slices, runner, i);
        runner.run();
        if (limits.use_condition && body.condition >= 0) condition = read_condition(runner.result(static_cast<size_t>(body.condition)));
        for (Collected& c : collected) collect_part(c, runner.result(static_cast<size_t>(c.entry->body_port)), i);
        carry_back_edges(body, runner, staging, i);
    }

    for (const PortMapEntry& e : body.outputs) {
        if (e.output < 0) continue;
        Tensor& out = ctx.output(static_cast<size_t>(e.output));
        if (e.axis) {
            const Collected& c = *std::find_if(collected.begin(), collected.end(), [&](const Collected& x) { return x.entry == &e; });
            out = concatenate_parts(e, c);
        } else {
            out = last_value(e, body, *built, runner, i);
        }
    }
}

}  // namespace irlite
