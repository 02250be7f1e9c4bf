// Squeeze-1 (opset1..14) and Squeeze-15 (opset15+): removes dims of size 1 (zero-copy: the output
// is a view of the input).
// Inputs: 0 'data' (any type), 1 'axes' (optional; scalar or 1-D, any integer type; a value input).
// Without axes every dim equal to 1 is removed. With axes (each in [-r, r-1]; repeats allowed), the
// listed dims are removed when they are 1; a listed dim that is not 1 is kept, as the current spec
// says (OpenVINO before 2024.3 raised an error). At load time a listed dim that is unknown counts as
// 1; without axes, an unknown dim makes the output rank unknown.
// Squeeze-15 adds the attribute allow_axis_skip (default false): when true, a listed dim that is
// unknown may turn out not to be 1 and be kept, so the output rank is unknown until it is known.
// Once shapes are known both versions compute the same thing.
#include <algorithm>

#include "engine/op.hpp"
#include "kernels/detail/index_values.hpp"
#include "kernels/detail/rule_context.hpp"
#include "kernels/detail/view_plan.hpp"

namespace irlite {
namespace {

struct SqueezeAttrs : OpAttrs {
    bool allow_axis_skip = false;  // Squeeze-15 only
};

std::vector<OutputInfo> infer(const InferContext& ctx) {
    const ElementType type = ctx.type(0);
    const PartialShape& in = ctx.shape(0);
    const bool has_axes = ctx.num_inputs() > 1;
    if (has_axes) {
        detail::require_index_type(ctx, 1, detail::IndexTypes::AnyInteger);
        const PartialShape& axes_shape = ctx.shape(1);
        if (axes_shape.rank_known() && axes_shape.rank() > 1)
            throw ctx.input_error(1, ErrorKind::ShapeRule, "rank-invalid",
                                  str("axes must be a scalar or 1-D, got shape ", to_string(axes_shape)));
    }
    if (!in.rank_known()) return {{type, PartialShape::dynamic_rank()}};
    const int64_t rank = static_cast<int64_t>(in.rank());
    std::vector<bool> remove(in.rank(), false);
    if (!has_axes) {
        for (size_t i = 0; i < in.rank(); ++i) {
            if (in[i] == kDynamic) return {{type, PartialShape::dynamic_rank()}};
            remove[i] = in[i] == 1;
        }
    } else if (!ctx.value(1)) {
        // Which dims go depends on the values; only an upper bound of the rank is known.
        return {{type, PartialShape::dynamic_rank()}};
    } else {
        for (int64_t axis : detail::read_index_values(ctx, 1)) {
            const size_t a = static_cast<size_t>(detail::normalize_axis_at(ctx, 1, axis, rank));
            if (in[a] == kDynamic && ctx.attrs<SqueezeAttrs>().allow_axis_skip)
                return {{type, PartialShape::dynamic_rank()}};
            remove[a] = in[a] == 1 || in[a] == kDynamic;
        }
    }
    std::vector<int64_t> dims;
    for (size_t i = 0; i < in.rank(); ++i)
        if (!remove[i]) dims.push_back(in[i]);
    return {{type, PartialShape(dims)}};
}

void compute(KernelContext& ctx) {
    const std::vector<OutputInfo> out = infer(detail::rule_context(ctx));
    ctx.output(0) = ctx.input(0).reshaped(out[0].shape.to_shape());
}

OpDef make_squeeze_def(int version) {
    OpDef d;
    d.type = "Squeeze";
    d.keeps_element_order = true;
    d.version = version;
    d.input_roles = {"data", "axes"};
    d.min_inputs = 1;
    d.value_inputs = inputs(1);
    d.allocates_outputs = true;
    d.accepts_packed = true;  // a view: packed weight types (u4, nf4, f8, ...) too
    d.parse_attrs = [version](const AttrReader& r) -> std::unique_ptr<OpAttrs> {
        auto a = std::make_unique<SqueezeAttrs>();
        if (version >= 15) a->allow_axis_skip = r.get_bool("allow_axis_skip", false);
        return a;
    };
    d.infer = infer;
    d.prepare = detail::prepare_as_view;
    d.compute = compute;
    return d;
}

}  // namespace

OpDef make_squeeze_op() { return make_squeeze_def(1); }
OpDef make_squeeze_15_op() { return make_squeeze_def(15); }

}  // namespace irlite
