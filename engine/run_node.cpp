// run_node: one node's kernel call, shared by constant folding (load time) and the executor.
#include <new>

#include "engine/graph.hpp"

namespace irlite {
namespace {

std::vector<OutputInfo> infer_at_run_time(const Node& node, const std::vector<Tensor>& inputs) {
    std::vector<InferContext::Input> in;
    in.reserve(inputs.size());
    for (const Tensor& t : inputs) in.push_back({t.type(), PartialShape(t.shape()), &t});
    InferContext ctx(*node.def, *node.attrs, std::move(in), static_cast<int>(node.layer->outputs.size()));
    std::vector<OutputInfo> infos = node.def->infer(ctx);
    // Ops that make their own outputs (Parameter: the bound tensor) may leave dims open here;
    // their outputs are checked against these shapes afterwards.
    if (!node.def->allocates_outputs)
        for (const OutputInfo& info : infos)
            IRLITE_CHECK(info.shape.is_static(), ErrorKind::ShapeRule, "shape-unresolved",
                         "output shape ", to_string(info.shape), " is still not static with every input known");
    return infos;
}

}  // namespace

std::vector<Tensor> run_node(const Node& node, const std::vector<Tensor>& inputs,
                             const std::vector<OutputInfo>* infos, VariableStore* variables,
                             const Tensor* bound_input, const std::string& file,
                             std::unique_ptr<OpState>* state) {
    try {
        std::vector<OutputInfo> local;
        if (!infos) {
            local = infer_at_run_time(node, inputs);
            infos = &local;
        }
        std::vector<Tensor> outputs(infos->size());
        if (!node.def->allocates_outputs)
            for (size_t i = 0; i < infos->size(); ++i) outputs[i] = Tensor::uninitialized((*infos)[i].type, (*infos)[i].shape.to_shape());
        KernelContext ctx(*node.def, *node.attrs, inputs, outputs, variables, bound_input);
        if (state) ctx.set_state(state);
        node.def->compute(ctx);
        if (node.def->allocates_outputs) {
            for (size_t i = 0; i < outputs.size(); ++i) {
                const OutputInfo& want = (*infos)[i];
                const bool ok = outputs[i].valid() && outputs[i].type() == want.type &&
                                shapes_compatible(want.shape, PartialShape(outputs[i].shape()));
                IRLITE_CHECK(ok, ErrorKind::ShapeRule, "kernel-output-mismatch", "output ", i, " is ",
                             to_string(outputs[i].type()), " ", to_string(outputs[i].shape()), ", expected ",
                             to_string(want.type), " ", to_string(want.shape));
            }
        }
        return outputs;
    } catch (Error& e) {
        e.add_context(node.location(file));
        throw;
    } catch (const std::bad_alloc&) {
        throw Error(ErrorKind::Limit, "out-of-memory", "out of memory", node.location(file));
    } catch (const std::exception& e) {
        throw Error(ErrorKind::Value, "internal-error", str("internal error: ", e.what()), node.location(file));
    }
}

}  // namespace irlite
