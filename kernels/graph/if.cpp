// If-8 (opset8+): runs then_body when input 0 (boolean, [] or [1]) is true, else_body otherwise;
// only that body runs. Each body's port map feeds its Parameters from the layer's inputs
// (external_port_id = the input index) and gives every output (external_port_id = the output
// index). The two bodies must give each output one type; where their shapes differ, the output's
// shape is that of the body that ran (dims that differ are dynamic at load time). Types: all.
// With static input shapes both bodies are built and planned at prepare; each request keeps a
// runner per body (its OpState), made the first time that body runs. Outputs whose shapes the
// plan knows are written in place; others are made in the request's buffers (dynamic_output).

#include "engine/op.hpp"
#include "engine/subgraph.hpp"
#include "kernels/all_ops.hpp"

namespace irlite {
namespace {

std::unique_ptr<OpAttrs> parse(const AttrReader& r) { return parse_subgraph_attrs(r, SubgraphKind::If); }

std::vector<OutputInfo> parameters_of(const SubgraphBody& body, const std::vector<ElementType>& types,
                                      const std::vector<PartialShape>& shapes) {
    std::vector<OutputInfo> params(body.parameter_layers.size());
    for (size_t p = 0; p < params.size(); ++p) {
        const PortMapEntry& e = body.inputs[static_cast<size_t>(body.parameter_input[p])];
        params[p].type = types[static_cast<size_t>(e.external)];
        params[p].shape = shapes[static_cast<size_t>(e.external)];
    }
    return params;
}

// Per output: the body Result giving it.
int result_for(const SubgraphBody& body, size_t output) {
    for (const PortMapEntry& e : body.outputs)
        if (e.output == static_cast<int>(output)) return e.body_port;
    return -1;
}

PartialShape merge(const PartialShape& a, const PartialShape& b) {
    if (!a.rank_known() || !b.rank_known() || a.rank() != b.rank()) return PartialShape::dynamic_rank();
    PartialShape m = a;
    for (size_t i = 0; i < a.rank(); ++i)
        if (a[i] != b[i]) m[i] = kDynamic;
    return m;
}

void check_condition(const InferContext& ctx) {
    if (ctx.type(0) != ElementType::boolean)
        throw ctx.input_error(0, ErrorKind::Type, "type-invalid",
                              cat("If condition input is ", to_string(ctx.type(0)), ", it must be boolean"));
    if (!is_scalar_like(ctx.shape(0)))
        throw ctx.input_error(0, ErrorKind::ShapeRule, "shape-invalid",
                              cat("If condition has shape ", to_string(ctx.shape(0)), "; it must be [] or [1]"));
}

// Both bodies built for the inputs' types and shapes.
void build_bodies(const InferContext& ctx, std::shared_ptr<const BuiltBody> (&built)[2], std::vector<Diagnostic>* findings) {
    const auto& a = ctx.attrs<SubgraphAttrs>();
    std::vector<PartialShape> shapes;
    std::vector<ElementType> types;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
        shapes.push_back(ctx.shape(i));
        types.push_back(ctx.type(i));
    }
    for (size_t b = 0; b < 2; ++b) built[b] = a.build(b, parameters_of(a.bodies[b], types, shapes), builtin_ops(), findings);
}

// The outputs from both bodies: the taken one's shapes when the condition is known, else merged.
std::vector<OutputInfo> outputs_of(const InferContext& ctx, const std::shared_ptr<const BuiltBody> (&built)[2]) {
    const auto& a = ctx.attrs<SubgraphAttrs>();
    const Tensor* cond = ctx.value(0);
    const int taken = cond && cond->num_elements() > 0 ? (cond->value_as_int64(0) != 0 ? 0 : 1) : -1;
    std::vector<OutputInfo> outs(a.num_outputs);
    for (size_t o = 0; o < outs.size(); ++o) {
        const OutputInfo& t = built[0]->results[static_cast<size_t>(result_for(a.bodies[0], o))];
        const OutputInfo& e = built[1]->results[static_cast<size_t>(result_for(a.bodies[1], o))];
        if (t.type != e.type)
            throw Error(ErrorKind::Type, "type-mismatch",
                        cat("output ", o, " is ", to_string(t.type), " from then_body and ", to_string(e.type),
                            " from else_body; the two bodies must give one type"));
        outs[o].type = t.type;
        outs[o].shape = taken == 0 ? t.shape : taken == 1 ? e.shape : merge(t.shape, e.shape);
    }
    return outs;
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    check_condition(ctx);
    std::shared_ptr<const BuiltBody> built[2];
    build_bodies(ctx, built, ctx.findings());
    return outputs_of(ctx, built);
}

// Both bodies built and planned for the static input shapes; with both giving one shape per
// output (or the condition known), the kernel writes into outputs the executor makes.
struct IfPlan : OpPlan {
    std::shared_ptr<const BuiltBody> built[2];
};

// Per request: each body's runner, made the first time that body runs (again when the plan's body
// is another: a node prepared at run time for other input shapes).
struct IfState : OpState {
    std::unique_ptr<BodyRunner> runner[2];
};

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    auto plan = std::make_unique<IfPlan>();
    if (ctx.findings()) return plan;  // check mode: the shape rule has checked the bodies
    check_condition(ctx);
    build_bodies(ctx, plan->built, nullptr);
    bool outputs_static = plan->built[0]->plan && plan->built[1]->plan;
    for (const OutputInfo& o : outputs_of(ctx, plan->built)) outputs_static = outputs_static && o.shape.is_static();
    plan->writes_outputs = outputs_static;
    plan->method = outputs_static ? "in place" : "buffered";
    return plan;
}

BodyRunner& runner_for(KernelContext& ctx, const SubgraphAttrs& a, const IfPlan& plan, size_t b) {
    std::unique_ptr<OpState>& slot = ctx.state();
    if (!slot) slot = std::make_unique<IfState>();
    std::unique_ptr<BodyRunner>& runner = static_cast<IfState&>(*slot).runner[b];
    if (!runner || &runner->built() != plan.built[b].get())
        runner = std::make_unique<BodyRunner>(a.bodies[b], plan.built[b], ctx.pool());
    return *runner;
}

void compute(KernelContext& ctx) {
    const auto& a = ctx.attrs<SubgraphAttrs>();
    const auto& plan = ctx.plan<IfPlan>();
    const Tensor& cond = ctx.input(0);
    if (cond.num_elements() < 1) throw Error(ErrorKind::Value, "value-invalid", "If condition holds no value");
    const size_t b = cond.value_as_int64(0) != 0 ? 0 : 1;
    const SubgraphBody& body = a.bodies[b];
    BodyRunner& runner = runner_for(ctx, a, plan, b);
    for (size_t p = 0; p < body.parameter_layers.size(); ++p)
        runner.input(p) = ctx.input(static_cast<size_t>(body.inputs[static_cast<size_t>(body.parameter_input[p])].external));
    runner.run();
    const bool direct = writes_outputs_in_place(ctx, plan);
    for (size_t o = 0; o < a.num_outputs; ++o)
        write_output(ctx, o, runner.result(static_cast<size_t>(result_for(body, o))), direct);
}

}  // namespace

OpDef make_if_op() {
    OpDef d;
    d.type = "If";
    d.version = 8;
    d.first_opset = 8;
    d.input_roles = {"cond", "input"};
    d.min_inputs = 1;
    d.variadic_inputs = true;
    d.num_outputs = -1;
    d.value_inputs = inputs(0);
    d.foldable = false;
    // Outputs are written in place when the plan knows their shapes, else made (dynamic_output)
    // in buffers that grow to the larger branch's.
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
