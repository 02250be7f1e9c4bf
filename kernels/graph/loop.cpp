// Loop-5 (opset5+): runs its body while the iteration count is below the trip count and the
// execution condition holds: for (i = 0; i < trip_count && condition; ++i) condition = body(...).
// Input 0: trip count (i32/i64, [] or [1]; negative: no limit). Input 1: the initial execution
// condition (boolean, [] or [1]). Further inputs feed body Parameters by the port map; an entry
// with `axis` gives iteration i the element i along it (the loop also stops after the last
// element of a sliced input). A body Parameter with purpose="current_iteration" gets i (0 first);
// the body Result with purpose="execution_condition" (boolean, [] or [1]) is read after each
// iteration: false ends the loop after that iteration, which still counts. Back edges, outputs
// (last value or concatenation along `axis`, in iteration order) as for TensorIterator. With
// zero iterations (trip count 0, or an initial condition false) an output carried by a back edge
// is its initial value, any other last-value output zeros, and a concatenation is empty (the
// specification allows it; OpenVINO's reference refuses it). A loop that would run more than
// kMaxIterations (2^20) iterations stops with an error. Types: all.
#include <algorithm>

#include "engine/op.hpp"
#include "engine/subgraph.hpp"
#include "kernels/all_ops.hpp"
#include "kernels/graph/body_iteration.hpp"

namespace irlite {
namespace {

std::unique_ptr<OpAttrs> parse(const AttrReader& r) { return parse_subgraph_attrs(r, SubgraphKind::Loop); }

std::vector<SliceRule> slices_of(const SubgraphAttrs& attrs, const std::vector<PartialShape>& shapes) {
    const SubgraphBody& body = attrs.bodies[0];
    std::vector<SliceRule> slices(body.inputs.size());
    for (size_t ei = 0; ei < body.inputs.size(); ++ei) {
        const PortMapEntry& e = body.inputs[ei];
        if (!e.axis || e.purpose == "current_iteration") continue;
        const PartialShape& shape = shapes[static_cast<size_t>(e.external)];
        if (!shape.rank_known()) continue;
        const auto rank = static_cast<int64_t>(shape.rank());
        if (*e.axis < -rank || *e.axis >= rank)
            throw entry_error(e, ErrorKind::Attribute, "attribute-invalid",
                              cat("port_map input axis ", *e.axis, " is out of range for input ", e.external, " of rank ",
                                  rank, " (allowed ", -rank, " to ", rank - 1, ")"));
        slices[ei].axis = static_cast<size_t>(*e.axis < 0 ? *e.axis + rank : *e.axis);
    }
    return slices;
}

void check_special_inputs(const InferContext& ctx) {
    if (ctx.type(0) != ElementType::i64 && ctx.type(0) != ElementType::i32)
        throw ctx.input_error(0, ErrorKind::Type, "type-invalid",
                              cat("Loop trip count is ", to_string(ctx.type(0)), ", it must be i64 or i32"));
    if (ctx.type(1) != ElementType::boolean)
        throw ctx.input_error(1, ErrorKind::Type, "type-invalid",
                              cat("Loop execution condition is ", to_string(ctx.type(1)), ", it must be boolean"));
    for (size_t i = 0; i < 2; ++i)
        if (!is_scalar_like(ctx.shape(i)))
            throw ctx.input_error(i, ErrorKind::ShapeRule, "shape-invalid",
                                  cat("Loop ", i == 0 ? "trip count" : "execution condition", " has shape ",
                                      to_string(ctx.shape(i)), "; it must be [] or [1]"));
}

void check_body(const SubgraphAttrs& a, const BuiltBody& built) {
    const SubgraphBody& body = a.bodies[0];
    if (body.condition >= 0) {
        const OutputInfo& c = built.results[static_cast<size_t>(body.condition)];
        if (c.type != ElementType::boolean)
            throw port_map_error(ErrorKind::Type, "type-invalid", body.condition_line,
                                 cat("Loop body condition output (purpose=\"execution_condition\") is ", to_string(c.type),
                                     ", it must be boolean"));
        if (!is_scalar_like(c.shape))
            throw port_map_error(ErrorKind::ShapeRule, "shape-invalid", body.condition_line,
                                 cat("Loop body condition output (purpose=\"execution_condition\") has shape ",
                                     to_string(c.shape), "; it must be [] or [1]"));
    }
    if (body.current_iteration >= 0) {
        const OutputInfo it = declared_parameter(body, static_cast<size_t>(body.current_iteration));
        if ((it.type != ElementType::i64 && it.type != ElementType::i32) || !is_scalar_like(it.shape))
            throw port_map_error(ErrorKind::Type, "type-invalid", body.line,
                                 cat("Loop body current_iteration Parameter is ", to_string(it.type), " ", to_string(it.shape),
                                     "; it must be i64 or i32, [] or [1]"));
    }
}

// The load-time rule and the kernel (a trip count known only at run time) say it alike.
constexpr const char* kEndlessLoop =
    "Loop trip count is -1 (no limit) and the execution condition is always true: the loop never ends";

// The iteration count, when the values known now settle it (kDynamic otherwise).
int64_t settled_iterations(const InferContext& ctx, const SubgraphAttrs& a, const BuiltBody& built,
                           const std::vector<PartialShape>& shapes, const std::vector<SliceRule>& slices) {
    const SubgraphBody& body = a.bodies[0];
    const Tensor* trip = ctx.value(0);
    const Tensor* first = ctx.value(1);
    const Tensor* body_condition =
        body.condition >= 0 && built.result_values[static_cast<size_t>(body.condition)].valid()
            ? &built.result_values[static_cast<size_t>(body.condition)]
            : nullptr;
    int64_t sliced = -1;  // the shortest sliced axis, when known
    bool sliced_unknown = false;
    for (size_t ei = 0; ei < body.inputs.size(); ++ei) {
        const PortMapEntry& e = body.inputs[ei];
        if (!e.axis || e.purpose == "current_iteration") continue;
        const PartialShape& s = shapes[static_cast<size_t>(e.external)];
        const int64_t dim = s.rank_known() ? s[slices[ei].axis] : kDynamic;
        if (dim == kDynamic) sliced_unknown = true;
        else sliced = sliced < 0 ? dim : std::min(sliced, dim);
    }
    if (first && first->num_elements() > 0 && first->value_as_int64(0) == 0) return 0;
    if (!first || !trip || trip->num_elements() < 1 || sliced_unknown) return kDynamic;
    int64_t n = trip->value_as_int64(0);
    if (n < 0) n = -1;
    if (body_condition && body_condition->num_elements() > 0 && body_condition->value_as_int64(0) == 0)
        n = n < 0 ? 1 : std::min<int64_t>(n, 1);
    else if (body.condition >= 0 && !body_condition)
        n = -2;  // decided at run time
    if (n >= -1 && sliced >= 0) n = n < 0 ? sliced : std::min(n, sliced);
    if (n == -1)
        throw ctx.input_error(0, ErrorKind::Value, "loop-endless", kEndlessLoop);
    return n >= 0 ? n : kDynamic;
}

// What the rule and prepare share: the body built for the inputs' shapes, checked, and the count.
std::shared_ptr<const BuiltBody> analyse(const InferContext& ctx, std::vector<SliceRule>& slices, int64_t& iterations,
                                         std::vector<Diagnostic>* findings) {
    const auto& a = ctx.attrs<SubgraphAttrs>();
    check_special_inputs(ctx);
    std::vector<PartialShape> shapes;
    std::vector<ElementType> types;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
        shapes.push_back(ctx.shape(i));
        types.push_back(ctx.type(i));
    }
    slices = slices_of(a, shapes);
    auto built = a.build(0, body_parameters(a, shapes, types, slices), builtin_ops(), findings);
    check_body(a, *built);
    iterations = settled_iterations(ctx, a, *built, shapes, slices);
    return built;
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    std::vector<SliceRule> slices;
    int64_t iterations = kDynamic;
    const auto built = analyse(ctx, slices, iterations, ctx.findings());
    return iteration_outputs(ctx.attrs<SubgraphAttrs>(), *built, iterations);
}

// The input shapes are static: the body is built and planned for them once. The trip count and
// conditions are read at every run; when constants settle the count, the outputs are static and
// the concatenations are written in place.
std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    auto plan = std::make_unique<IterationPlan>();
    if (ctx.findings()) return plan;  // check mode: the shape rule has checked the body
    plan->built = analyse(ctx, plan->slices, plan->iterations, nullptr);
    finish_iteration_plan(ctx, ctx.attrs<SubgraphAttrs>(), *plan);
    return plan;
}

// A trip count of -1 known only now, no execution condition that can end the loop and no sliced
// input to bound it: the error the shape rule gives when it knows the trip count at load time.
void check_not_endless(const KernelContext& ctx, const SubgraphAttrs& a, const BuiltBody& built) {
    const SubgraphBody& body = a.bodies[0];
    for (const PortMapEntry& e : body.inputs)
        if (e.axis && e.purpose != "current_iteration") return;
    if (body.condition >= 0) {
        const Tensor& c = built.result_values[static_cast<size_t>(body.condition)];
        if (!c.valid() || (c.num_elements() > 0 && c.value_as_int64(0) == 0)) return;
    }
    throw ctx.input_error(0, ErrorKind::Value, "loop-endless", kEndlessLoop);
}

void compute(KernelContext& ctx) {
    const auto& a = ctx.attrs<SubgraphAttrs>();
    const auto& plan = ctx.plan<IterationPlan>();
    IterationLimits limits;
    const Tensor& trip = ctx.input(0);
    const Tensor& first = ctx.input(1);
    if (trip.num_elements() < 1 || first.num_elements() < 1)
        throw Error(ErrorKind::Value, "value-invalid", "Loop trip count and execution condition must hold one value each");
    limits.max_iterations = std::max<int64_t>(trip.value_as_int64(0), -1);
    limits.initial_condition = first.value_as_int64(0) != 0;
    limits.use_condition = true;
    if (limits.max_iterations < 0 && limits.initial_condition) check_not_endless(ctx, a, *plan.built);
    run_iterations(ctx, a, plan, limits);
}

}  // namespace

OpDef make_loop_op() {
    OpDef d;
    d.type = "Loop";
    d.version = 5;
    d.first_opset = 5;
    d.input_roles = {"trip_count", "execution_condition", "input"};
    d.min_inputs = 2;
    d.variadic_inputs = true;
    d.num_outputs = -1;
    d.value_inputs = inputs(0, 1);
    d.foldable = false;
    // Outputs are written in place when the plan knows their shapes, else made (dynamic_output)
    // in buffers that grow to the longest run.
    d.allocates_outputs = true;
    d.data_dependent_outputs = true;
    d.prepares_without_values = true;
    d.parse_attrs = parse;
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace irlite
