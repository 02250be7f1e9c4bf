// Assign-6 (opset6+): stores its input into a stateful variable of the infer request; the next
// ReadValue with the same variable_id (in this run's later nodes or in the next run) sees it.
// Input 0 'value': any type. Attribute variable_id (required). A sink, kept alive although no
// Result depends on it. OpenVINO's Assign has one output, its input passed through, and its
// serializer writes that port (usually feeding nothing); IR written by hand often leaves it out.
// Both are valid: output 0, when the layer declares it, is a view of the input.
// The stored value is copied, so it never aliases a buffer the executor reuses.
#include "engine/op.hpp"

namespace irlite {
namespace {

struct AssignAttrs : OpAttrs {
    std::string variable_id;
};

}  // namespace

OpDef make_assign_op() {
    OpDef d;
    d.type = "Assign";
    d.version = 6;
    d.first_opset = 6;
    d.input_roles = {"value"};
    d.min_inputs = 1;
    d.num_outputs = -1;  // 0 or 1, as the layer declares
    d.role = OpRole::Sink;
    d.allocates_outputs = true;
    d.foldable = false;
    d.parse_attrs = [](const AttrReader& r) -> std::unique_ptr<OpAttrs> {
        auto a = std::make_unique<AssignAttrs>();
        a->variable_id = r.get_string("variable_id");
        if (a->variable_id.empty())
            throw Error(ErrorKind::Attribute, "attribute-invalid", "attribute 'variable_id' must not be empty");
        return a;
    };
    d.infer = [](const InferContext& ctx) {
        if (ctx.declared_outputs() > 1)
            throw Error(ErrorKind::Graph, "output-count",
                        str("Assign has at most one output (its input passed through); the layer declares ",
                            ctx.declared_outputs()));
        std::vector<OutputInfo> out;
        if (ctx.declared_outputs() == 1) out.push_back({ctx.type(0), ctx.shape(0)});
        return out;
    };
    d.compute = [](KernelContext& ctx) {
        const auto& a = ctx.attrs<AssignAttrs>();
        VariableStore* store = ctx.variables();
        if (!store)
            throw Error(ErrorKind::Usage, "no-variables", str("Assign '", a.variable_id, "' needs an infer request"));
        store->set(a.variable_id, ctx.input(0).clone());
        if (ctx.num_outputs() == 1) ctx.output(0) = ctx.input(0);
    };
    return d;
}

// Assign-3 (opset3..5): the same as Assign-6.
OpDef make_assign_3_op() {
    OpDef d = make_assign_op();
    d.version = 3;
    d.first_opset = 3;
    d.last_opset = 5;
    return d;
}

}  // namespace irlite
