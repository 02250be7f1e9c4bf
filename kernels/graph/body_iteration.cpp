// TensorIterator and Loop: the body's Parameters and the layer's outputs from the input shapes,
// and the plan (kernels/graph/body_iteration.hpp). The iterations themselves: iteration_run.cpp.
#include "kernels/graph/body_iteration.hpp"

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

void finish_iteration_plan(const InferContext& ctx, const SubgraphAttrs& attrs, IterationPlan& plan) {
    const SubgraphBody& body = attrs.bodies[0];
    plan.slice_views.assign(body.inputs.size(), false);
    for (size_t ei = 0; ei < body.inputs.size(); ++ei) {
        const PortMapEntry& e = body.inputs[ei];
        if (!e.axis || e.purpose == "current_iteration") continue;
        // With only 1s before the axis each part is one run of bytes: the body reads it in place.
        const PartialShape& shape = ctx.shape(static_cast<size_t>(e.external));
        bool contiguous = shape.rank_known();
        for (size_t d = 0; contiguous && d < plan.slices[ei].axis; ++d) contiguous = shape[d] == 1;
        plan.slice_views[ei] = contiguous;
    }
    bool outputs_static = plan.built->plan != nullptr;
    for (const OutputInfo& o : iteration_outputs(attrs, *plan.built, plan.iterations))
        outputs_static = outputs_static && o.shape.is_static();
    plan.writes_outputs = outputs_static;
    plan.method = outputs_static ? "in place" : "buffered";
}

}  // namespace irlite
