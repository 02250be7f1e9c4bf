// TensorIterator-1 (opset1+): runs its body once per part of its sliced inputs.
// Port map inputs: with `axis`, the input is cut along it into parts of `part_size` elements
// between `start` and `end` (element indices, both included, negative from the end; defaults 0 and
// -1), handed out first to last, or last to first when `stride` < 0; the iteration count is
// (|end - start| + 1) / part_size and every sliced input must give the same one. Without `axis`
// the whole input goes to every iteration, or, when a back edge leads to the Parameter, only to
// the first one (the later ones get the back edge's Result of the iteration before).
// Port map outputs: with `axis`, every iteration's Result concatenated along it (the last
// iteration's part first when `stride` < 0); without, the last iteration's value. Outputs are
// ordered by external_port_id. Types: all.
// With static input shapes the body is built and planned at prepare, and the iterations run in
// the request's state (kernels/graph/iteration_run.cpp): no allocation after the first run.
#include <cstdlib>

#include "engine/op.hpp"
#include "engine/subgraph.hpp"
#include "kernels/all_ops.hpp"
#include "kernels/graph/body_iteration.hpp"

namespace irlite {
namespace {

std::unique_ptr<OpAttrs> parse(const AttrReader& r) { return parse_subgraph_attrs(r, SubgraphKind::TensorIterator); }

// The slicing of each sliced input and the iteration count (kDynamic when a sliced dim is unknown).
std::vector<SliceRule> slices_of(const SubgraphAttrs& attrs, const std::vector<PartialShape>& shapes, int64_t& iterations) {
    const SubgraphBody& body = attrs.bodies[0];
    std::vector<SliceRule> slices(body.inputs.size());
    iterations = kDynamic;
    bool any = false;
    for (size_t ei = 0; ei < body.inputs.size(); ++ei) {
        const PortMapEntry& e = body.inputs[ei];
        if (!e.axis) continue;
        any = true;
        const PartialShape& shape = shapes[static_cast<size_t>(e.external)];
        if (!shape.rank_known()) continue;
        const auto rank = static_cast<int64_t>(shape.rank());
        if (*e.axis < -rank || *e.axis >= rank)
            throw entry_error(e, ErrorKind::Attribute, "attribute-invalid",
                              cat("port_map input axis ", *e.axis, " is out of range for input ", e.external, " of rank ",
                                  rank, " (allowed ", -rank, " to ", rank - 1, ")"));
        SliceRule& s = slices[ei];
        s.axis = static_cast<size_t>(*e.axis < 0 ? *e.axis + rank : *e.axis);
        s.part = e.part_size;
        const int64_t dim = shape[s.axis];
        if (dim == kDynamic) continue;
        int64_t bounds[2] = {e.start, e.end};
        for (int k = 0; k < 2; ++k) {
            const int64_t v = bounds[k];
            if (v < -dim || v >= dim)
                throw entry_error(e, ErrorKind::Attribute, "attribute-invalid",
                                  cat("port_map input ", k == 0 ? "start" : "end", " = ", v, " is out of range for axis ",
                                      s.axis, " of input ", e.external, " (dim ", dim, "; allowed ", -dim, " to ", dim - 1, ")"));
            bounds[k] = v < 0 ? v + dim : v;
        }
        const int64_t span = std::llabs(bounds[1] - bounds[0]) + 1;
        if (span % e.part_size != 0)
            throw entry_error(e, ErrorKind::Attribute, "attribute-invalid",
                              cat("port_map input covers ", span, " elements of axis ", s.axis, " (start ", e.start, ", end ",
                                  e.end, "), which part_size ", e.part_size, " does not divide"));
        const int64_t n = span / e.part_size;
        if (e.stride > 0) {
            s.first = std::min(bounds[0], bounds[1]);
            s.step = e.part_size;
        } else {
            s.first = std::max(bounds[0], bounds[1]) - e.part_size + 1;
            s.step = -e.part_size;
        }
        if (iterations != kDynamic && iterations != n)
            throw entry_error(e, ErrorKind::ShapeRule, "iteration-count-mismatch",
                              cat("port_map input slices input ", e.external, " into ", n,
                                  " parts, another sliced input into ", iterations, "; every sliced input must give the same count"));
        iterations = n;
    }
    if (!any)
        throw Error(ErrorKind::Graph, "port-map-invalid",
                    "the port map slices no input (no <input> with an axis): the number of iterations is unknown");
    return slices;
}

// The layer's inputs' shapes and types as the rule or prepare sees them.
void input_shapes(const InferContext& ctx, std::vector<PartialShape>& shapes, std::vector<ElementType>& types) {
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
        shapes.push_back(ctx.shape(i));
        types.push_back(ctx.type(i));
    }
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    const auto& a = ctx.attrs<SubgraphAttrs>();
    std::vector<PartialShape> shapes;
    std::vector<ElementType> types;
    input_shapes(ctx, shapes, types);
    int64_t iterations = kDynamic;
    const std::vector<SliceRule> slices = slices_of(a, shapes, iterations);
    const auto built = a.build(0, body_parameters(a, shapes, types, slices), builtin_ops(), ctx.findings());
    return iteration_outputs(a, *built, iterations);
}

// The input shapes are static: the body is built and planned for them once, and the count known.
std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    auto plan = std::make_unique<IterationPlan>();
    if (ctx.findings()) return plan;  // check mode: the shape rule has checked the body
    const auto& a = ctx.attrs<SubgraphAttrs>();
    std::vector<PartialShape> shapes;
    std::vector<ElementType> types;
    input_shapes(ctx, shapes, types);
    plan->slices = slices_of(a, shapes, plan->iterations);
    plan->built = a.build(0, body_parameters(a, shapes, types, plan->slices), builtin_ops(), nullptr);
    finish_iteration_plan(ctx, a, *plan);
    return plan;
}

void compute(KernelContext& ctx) {
    const auto& plan = ctx.plan<IterationPlan>();
    IterationLimits limits;
    limits.max_iterations = plan.iterations;
    run_iterations(ctx, ctx.attrs<SubgraphAttrs>(), plan, limits);
}

}  // namespace

OpDef make_tensor_iterator_op() {
    OpDef d;
    d.type = "TensorIterator";
    d.version = 1;
    d.input_roles = {"input"};
    d.variadic_inputs = true;
    d.num_outputs = -1;
    d.foldable = false;
    // Outputs are written in place when the plan knows their shapes, else made (dynamic_output).
    d.allocates_outputs = true;
    d.data_dependent_outputs = true;
    d.parse_attrs = parse;
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace irlite
