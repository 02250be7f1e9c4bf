// ShapeOf-1 (opset1..opset2) and ShapeOf-3 (opset3+): the shape of a tensor as a 1-D tensor.
// Input 0 'data': any type; only its shape is read (shape_only_inputs), so ShapeOf folds at load
// time whenever the shape is static, even when the data is not known.
// Attribute (v3 only): output_type, i64 (default) or i32. v1 always outputs i64.
// Output 0: 1-D tensor of length rank(data). An i32 output rejects dims above 2^31-1.
#include <limits>

#include "engine/op.hpp"

namespace irlite {
namespace {

struct ShapeOfAttrs : OpAttrs {
    ElementType output_type = ElementType::i64;
};

std::vector<OutputInfo> infer(const InferContext& ctx) {
    const ElementType type = ctx.attrs<ShapeOfAttrs>().output_type;
    const PartialShape& in = ctx.shape(0);
    if (!in.rank_known()) return {{type, PartialShape::all_dynamic(1)}};
    return {{type, PartialShape({static_cast<int64_t>(in.rank())})}};
}

// Checks that every dim fits the output type; nothing else to plan. (A step whose shapes are not
// known at compile time prepares when it first runs: KernelContext::plan.)
std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    const PartialShape& shape = ctx.shape(0);
    if (ctx.attrs<ShapeOfAttrs>().output_type == ElementType::i32)
        for (size_t i = 0; i < shape.rank(); ++i)
            if (shape[i] > std::numeric_limits<int32_t>::max())
                throw ctx.input_error(0, ErrorKind::Value, "value-out-of-range",
                                      str("dim ", i, " = ", shape[i], " does not fit output_type i32 (max ",
                                          std::numeric_limits<int32_t>::max(), ")"));
    auto plan = std::make_unique<OpPlan>();
    plan->method = "shape";
    return plan;
}

void compute(KernelContext& ctx) {
    ctx.plan<OpPlan>();  // the dims were checked against the output type there
    const Shape& shape = ctx.input(0).shape();
    Tensor& out = ctx.output(0);
    for (size_t i = 0; i < shape.size(); ++i) {
        if (out.type() == ElementType::i64) out.data<int64_t>()[i] = shape[i];
        else out.data<int32_t>()[i] = static_cast<int32_t>(shape[i]);
    }
}

OpDef make_shape_of(int version, int first_opset, int last_opset) {
    OpDef d;
    d.type = "ShapeOf";
    d.version = version;
    d.first_opset = first_opset;
    d.last_opset = last_opset;
    d.input_roles = {"data"};
    d.min_inputs = 1;
    d.shape_only_inputs = inputs(0);
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace

OpDef make_shape_of_1_op() {
    OpDef d = make_shape_of(1, 1, 2);
    d.parse_attrs = [](const AttrReader&) -> std::unique_ptr<OpAttrs> { return std::make_unique<ShapeOfAttrs>(); };
    return d;
}

OpDef make_shape_of_3_op() {
    OpDef d = make_shape_of(3, 3, kLatestOpset);
    d.parse_attrs = [](const AttrReader& r) -> std::unique_ptr<OpAttrs> {
        auto a = std::make_unique<ShapeOfAttrs>();
        const std::string t = r.get_enum("output_type", {"i64", "i32"}, "i64");
        a->output_type = t == "i32" ? ElementType::i32 : ElementType::i64;
        return a;
    };
    return d;
}

}  // namespace irlite
