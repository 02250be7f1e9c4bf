// If-8 (opset8+): runs then_body when input 0 (boolean, [] or [1]) is true, else_body otherwise;
// only that body runs. Each body's port map feeds its Parameters from the layer's inputs
// (external_port_id = the input index) and gives every output (external_port_id = the output
// index). The two bodies must give each output one type; where their shapes differ, the output's
// shape is that of the body that ran (dims that differ are dynamic at load time). Types: all.
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

std::vector<OutputInfo> infer(const InferContext& ctx) {
    const auto& a = ctx.attrs<SubgraphAttrs>();
    check_condition(ctx);
    std::vector<PartialShape> shapes;
    std::vector<ElementType> types;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
        shapes.push_back(ctx.shape(i));
        types.push_back(ctx.type(i));
    }
    std::shared_ptr<const BuiltBody> built[2];
    for (size_t b = 0; b < 2; ++b)
        built[b] = a.build(b, parameters_of(a.bodies[b], types, shapes), builtin_ops(), ctx.findings());
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

void compute(KernelContext& ctx) {
    const auto& a = ctx.attrs<SubgraphAttrs>();
    const Tensor& cond = ctx.input(0);
    if (cond.num_elements() < 1) throw Error(ErrorKind::Value, "value-invalid", "If condition holds no value");
    const size_t b = cond.value_as_int64(0) != 0 ? 0 : 1;
    const SubgraphBody& body = a.bodies[b];
    std::vector<PartialShape> shapes;
    std::vector<ElementType> types;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
        shapes.emplace_back(ctx.input(i).shape());
        types.push_back(ctx.input(i).type());
    }
    BodyRunner runner(body, a.build(b, parameters_of(body, types, shapes), builtin_ops(), nullptr), ctx.pool());
    for (size_t p = 0; p < body.parameter_layers.size(); ++p)
        runner.input(p) = ctx.input(static_cast<size_t>(body.inputs[static_cast<size_t>(body.parameter_input[p])].external));
    runner.run();
    for (size_t o = 0; o < a.num_outputs; ++o) ctx.output(o) = copy_tensor(runner.result(static_cast<size_t>(result_for(body, o))));
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
    d.allocates_outputs = true;
    d.parse_attrs = parse;
    d.infer = infer;
    d.compute = compute;
    return d;
}

}  // namespace irlite
