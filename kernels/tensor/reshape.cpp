// Reshape-1 (opset1+): the same elements seen with a new shape (zero-copy: the output is a view of
// the input's buffer).
// Inputs: 0 'data' (any type), 1 'shape' (1-D or scalar, any integer type; a value input).
// Attribute special_zero (required): when true, a 0 in 'shape' copies the input dim at the same
// index; otherwise 0 is a real (empty) dim. One -1 at most: the dim that keeps the element count.
// Errors: more than one -1, values below -1, a special zero past the input rank, an element count
// that differs from the input's, or a -1 that cannot be resolved (the other dims multiply to 0).
// When 'shape' is not known at load time, the output has len(shape) unknown dims.
#include "engine/op.hpp"
#include "kernels/detail/index_values.hpp"
#include "kernels/detail/rule_context.hpp"
#include "kernels/detail/view_plan.hpp"

namespace irlite {
namespace {

struct ReshapeAttrs : OpAttrs {
    bool special_zero = false;
};

// The output shape for a known pattern; dims may stay kDynamic when the data shape is partial.
PartialShape output_shape(const InferContext& ctx, const std::vector<int64_t>& pattern) {
    const bool special_zero = ctx.attrs<ReshapeAttrs>().special_zero;
    const PartialShape& in = ctx.shape(0);
    const auto error = [&](const std::string& code, const std::string& msg) {
        return ctx.input_error(1, ErrorKind::Value, code, msg);
    };
    std::vector<int64_t> dims(pattern.size());
    int minus_one_at = -1;
    for (size_t i = 0; i < pattern.size(); ++i) {
        const int64_t v = pattern[i];
        if (v < -1) throw error("value-out-of-range", str("shape[", i, "] = ", v, " is invalid: dims must be >= -1"));
        if (v == -1) {
            if (minus_one_at >= 0)
                throw error("multiple-minus-one", str("shape has more than one -1 (at ", minus_one_at, " and ", i, ")"));
            minus_one_at = static_cast<int>(i);
            dims[i] = kDynamic;
        } else if (v == 0 && special_zero) {
            if (!in.rank_known()) {
                dims[i] = kDynamic;
            } else if (i >= in.rank()) {
                throw error("value-out-of-range", str("shape[", i, "] = 0 copies input dim ", i, ", but the input ",
                                                      to_string(in), " has rank ", in.rank(), " (special_zero=true)"));
            } else {
                dims[i] = in[i];
            }
        } else {
            dims[i] = v;
        }
    }
    // Element counts: the input's, and the product of the output dims known so far.
    const bool in_known = in.is_static();
    const int64_t in_count = in_known ? checked_num_elements(in.to_shape()) : 0;
    bool out_known = true;
    Shape known;
    for (size_t i = 0; i < dims.size(); ++i) {
        if (static_cast<int>(i) == minus_one_at) continue;
        if (dims[i] == kDynamic) out_known = false;
        else known.push_back(dims[i]);
    }
    if (!in_known || !out_known) return PartialShape(dims);
    const int64_t known_count = checked_num_elements(known);
    if (minus_one_at >= 0) {
        if (known_count == 0) {
            if (in_count != 0)
                throw error("shape-incompatible", str("cannot reshape ", to_string(in), " (", in_count,
                                                      " elements) to ", to_string(Shape(pattern)),
                                                      ": the dims other than -1 multiply to 0"));
            dims[static_cast<size_t>(minus_one_at)] = 0;
        } else {
            if (in_count % known_count != 0)
                throw error("shape-incompatible",
                            str("cannot reshape ", to_string(in), " (", in_count, " elements) to ",
                                to_string(Shape(pattern)), ": ", in_count, " is not a multiple of ", known_count));
            dims[static_cast<size_t>(minus_one_at)] = in_count / known_count;
        }
    } else if (known_count != in_count) {
        throw error("shape-incompatible", str("cannot reshape ", to_string(in), " (", in_count, " elements) to ",
                                              to_string(Shape(dims)), " (", known_count, " elements)"));
    }
    return PartialShape(dims);
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    detail::require_index_type(ctx, 1, detail::IndexTypes::AnyInteger);
    const PartialShape& pattern_shape = ctx.shape(1);
    if (pattern_shape.rank_known() && pattern_shape.rank() > 1)
        throw ctx.input_error(1, ErrorKind::ShapeRule, "rank-invalid",
                              str("shape must be 1-D, got shape ", to_string(pattern_shape)));
    if (!ctx.value(1)) {
        if (!pattern_shape.rank_known() || (pattern_shape.rank() == 1 && pattern_shape[0] == kDynamic))
            return {{ctx.type(0), PartialShape::dynamic_rank()}};
        const size_t n = pattern_shape.rank() == 0 ? 1 : static_cast<size_t>(pattern_shape[0]);
        return {{ctx.type(0), PartialShape::all_dynamic(n)}};
    }
    return {{ctx.type(0), output_shape(ctx, detail::read_index_values(ctx, 1))}};
}

void compute(KernelContext& ctx) {
    const std::vector<OutputInfo> out = infer(detail::rule_context(ctx));
    ctx.output(0) = ctx.input(0).reshaped(out[0].shape.to_shape());
}

}  // namespace

OpDef make_reshape_op() {
    OpDef d;
    d.type = "Reshape";
    d.keeps_element_order = true;
    d.version = 1;
    d.input_roles = {"data", "shape"};
    d.min_inputs = 2;
    d.value_inputs = inputs(1);
    d.allocates_outputs = true;
    d.accepts_packed = true;  // a view: packed weight types (u4, nf4, f8, ...) too
    d.parse_attrs = [](const AttrReader& r) -> std::unique_ptr<OpAttrs> {
        auto a = std::make_unique<ReshapeAttrs>();
        a->special_zero = r.get_bool("special_zero", false);
        return a;
    };
    d.infer = infer;
    d.prepare = detail::prepare_as_view;
    d.compute = compute;
    return d;
}

}  // namespace irlite
