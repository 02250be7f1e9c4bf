// OneHot-1 (opset1+): indices expanded into one-hot vectors along a new axis.
// Inputs: 0 'indices' (i32 or i64, any shape), 1 'depth' (integer scalar or one-element, >= 0),
// 2 'on_value', 3 'off_value' (scalars of the output type T, any type). Attribute axis (required,
// in [-(r+1), r] for indices of rank r; -1 appends the new axis).
// Output: indices' shape with `depth` inserted at axis; element = on_value where the index equals
// the position along the new axis, else off_value. An index outside [0, depth-1] (negative ones
// included) gives a vector of off_value (OneHot-1 has no negative-index mode).
#include <cstring>

#include "engine/op.hpp"
#include "kernels/detail/index_values.hpp"

namespace irlite {
namespace {

constexpr size_t kIndices = 0, kDepth = 1, kOn = 2, kOff = 3;

struct OneHotAttrs : OpAttrs {
    int64_t axis = -1;
};

std::unique_ptr<OpAttrs> parse(const AttrReader& r) {
    auto a = std::make_unique<OneHotAttrs>();
    a->axis = r.get_i64("axis");
    return a;
}

std::optional<int64_t> known_depth(const InferContext& ctx) {
    const Tensor* v = ctx.value(kDepth);
    if (!v) return std::nullopt;
    const std::vector<int64_t> d = detail::read_index_values(*v);
    if (d.size() != 1)
        throw ctx.input_error(kDepth, ErrorKind::ShapeRule, "depth-shape",
                              str("depth must be a scalar, got shape ", to_string(v->shape())));
    if (d[0] < 0) throw ctx.input_error(kDepth, ErrorKind::Value, "depth-invalid", str("depth must be non-negative, got ", d[0]));
    return d[0];
}

size_t output_axis(const InferContext& ctx, int64_t rank) {
    const int64_t axis = ctx.attrs<OneHotAttrs>().axis;
    if (axis < -(rank + 1) || axis > rank)
        throw ctx.input_error(kIndices, ErrorKind::Attribute, "axis-out-of-range",
                              str("attribute 'axis' = ", axis, " out of range [", -(rank + 1), ", ", rank,
                                  "] for indices of rank ", rank));
    return static_cast<size_t>(axis < 0 ? axis + rank + 1 : axis);
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    detail::require_index_type(ctx, kIndices, detail::IndexTypes::I32OrI64);
    detail::require_index_type(ctx, kDepth, detail::IndexTypes::AnyInteger);
    if (ctx.type(kOn) != ctx.type(kOff))
        throw ctx.input_error(kOff, ErrorKind::Type, "element-type-mismatch",
                              str("off_value is ", to_string(ctx.type(kOff)), ", on_value is ", to_string(ctx.type(kOn)),
                                  "; they must be the same"));
    for (size_t port : {kDepth, kOn, kOff}) {
        const PartialShape& s = ctx.shape(port);
        if (s.rank_known())
            for (int64_t d : s.dims())
                if (!dims_compatible(d, 1))
                    throw ctx.input_error(port, ErrorKind::ShapeRule, "scalar-expected",
                                          str(ctx.def().input_role(port), " must be a scalar, got shape ", to_string(s)));
    }
    const PartialShape& indices = ctx.shape(kIndices);
    const std::optional<int64_t> depth = known_depth(ctx);
    if (!indices.rank_known()) return {{ctx.type(kOn), PartialShape::dynamic_rank()}};
    std::vector<int64_t> dims = indices.dims();
    const size_t axis = output_axis(ctx, static_cast<int64_t>(dims.size()));
    dims.insert(dims.begin() + static_cast<std::ptrdiff_t>(axis), depth ? *depth : kDynamic);
    return {{ctx.type(kOn), PartialShape(dims)}};
}

struct OneHotPlan : OpPlan {
    int64_t outer = 1, depth = 0, inner = 1;  // output = [outer, depth, inner]; indices = [outer, inner]
};

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    const std::vector<OutputInfo> out = infer(ctx);
    const Shape& indices = ctx.shape(kIndices).dims();
    const size_t axis = output_axis(ctx, static_cast<int64_t>(indices.size()));
    auto plan = std::make_unique<OneHotPlan>();
    for (size_t d = 0; d < axis; ++d) plan->outer *= indices[d];
    for (size_t d = axis; d < indices.size(); ++d) plan->inner *= indices[d];
    plan->depth = out[0].shape[axis];
    plan->method = "one-hot";
    return plan;
}

template <class I>
void fill(const OneHotPlan& plan, const I* idx, std::byte* out, const std::byte* on, const std::byte* off, size_t elem) {
    for (int64_t o = 0; o < plan.outer; ++o)
        for (int64_t c = 0; c < plan.depth; ++c)
            for (int64_t i = 0; i < plan.inner; ++i) {
                const auto index = static_cast<int64_t>(idx[o * plan.inner + i]);
                std::byte* dst = out + static_cast<size_t>((o * plan.depth + c) * plan.inner + i) * elem;
                std::memcpy(dst, index == c ? on : off, elem);
            }
}

void compute(KernelContext& ctx) {
    const auto& plan = ctx.plan<OneHotPlan>();
    const Tensor& indices = ctx.input(kIndices);
    Tensor& out = ctx.output(0);
    IRLITE_CHECK(out.num_elements() == plan.outer * plan.depth * plan.inner, ErrorKind::ShapeRule,
                 "kernel-output-mismatch", "output disagrees with the plan");
    const size_t elem = element_size(out.type());
    const std::byte* on = ctx.input(kOn).bytes();
    const std::byte* off = ctx.input(kOff).bytes();
    if (indices.type() == ElementType::i32) fill(plan, indices.data<int32_t>(), out.bytes(), on, off, elem);
    else fill(plan, indices.data<int64_t>(), out.bytes(), on, off, elem);
}

}  // namespace

OpDef make_one_hot_op() {
    OpDef d;
    d.type = "OneHot";
    d.version = 1;
    d.input_roles = {"indices", "depth", "on_value", "off_value"};
    d.min_inputs = 4;
    d.value_inputs = 1u << kDepth;
    d.parse_attrs = parse;
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace irlite
