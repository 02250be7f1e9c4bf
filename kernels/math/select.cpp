// Select-1 (opset1+): out = cond ? then : else, elementwise, with broadcasting of all three.
// Inputs: 0 'cond' (boolean), 1 'then', 2 'else' (same element type, any). Attribute
// auto_broadcast: numpy (default) or none (all shapes equal). Types: every type; the copy works on
// bytes, dispatched on the element size.
#include <algorithm>
#include <cstring>

#include "kernels/detail/broadcast.hpp"

namespace irlite {
namespace {

using namespace detail;

struct SelectAttrs : OpAttrs {
    AutoBroadcast broadcast = AutoBroadcast::Numpy;
};

std::vector<OutputInfo> infer(const InferContext& ctx) {
    if (ctx.type(0) != ElementType::boolean)
        throw ctx.input_error(0, ErrorKind::Type, "element-type-unsupported",
                              str("cond must be boolean, got ", to_string(ctx.type(0))));
    if (ctx.type(1) != ctx.type(2))
        throw ctx.input_error(2, ErrorKind::Type, "element-type-mismatch",
                              str("then and else must have the same element type, got ", to_string(ctx.type(1)),
                                  " and ", to_string(ctx.type(2))));
    const AutoBroadcast mode = ctx.attrs<SelectAttrs>().broadcast;
    const PartialShape shape = broadcast_shapes(broadcast_shapes(ctx.shape(0), ctx.shape(1), mode), ctx.shape(2), mode);
    return {{ctx.type(1), shape}};
}

// Element strides of `in` seen with the output's rank and shape (0 along broadcast dims).
std::vector<int64_t> broadcast_strides(const Shape& in, const Shape& out) {
    std::vector<int64_t> strides(out.size(), 0);
    int64_t stride = 1;
    for (size_t i = 0; i < in.size(); ++i) {
        const size_t in_dim = in.size() - 1 - i, out_dim = out.size() - 1 - i;
        strides[out_dim] = in[in_dim] == 1 ? 0 : stride;
        stride *= in[in_dim];
    }
    return strides;
}

// The walk planned once: each operand's element strides along the output's dims (0 where it is
// broadcast); the odometer's index lives in scratch.
struct SelectPlan : OpPlan {
    Shape shape;
    std::vector<int64_t> sc, st, se;
};

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    auto plan = std::make_unique<SelectPlan>();
    plan->shape = infer(ctx)[0].shape.to_shape();
    plan->sc = broadcast_strides(ctx.shape(0).to_shape(), plan->shape);
    plan->st = broadcast_strides(ctx.shape(1).to_shape(), plan->shape);
    plan->se = broadcast_strides(ctx.shape(2).to_shape(), plan->shape);
    plan->scratch_bytes = plan->shape.size() * sizeof(int64_t);
    plan->method = "strided";
    return plan;
}

template <size_t kBytes>
void select_elements(const KernelContext& ctx, const SelectPlan& plan, Tensor& out) {
    const Shape& shape = plan.shape;
    const std::vector<int64_t>& sc = plan.sc;
    const std::vector<int64_t>& st = plan.st;
    const std::vector<int64_t>& se = plan.se;
    const auto* cond = ctx.input(0).data<uint8_t>();
    const std::byte* then_bytes = ctx.input(1).bytes();
    const std::byte* else_bytes = ctx.input(2).bytes();
    std::byte* dst = out.bytes();
    auto* index = static_cast<int64_t*>(ctx.scratch());
    std::fill(index, index + shape.size(), int64_t{0});
    int64_t oc = 0, ot = 0, oe = 0;
    for (int64_t n = 0; n < out.num_elements(); ++n) {
        const std::byte* src = cond[oc] ? then_bytes + ot * kBytes : else_bytes + oe * kBytes;
        std::memcpy(dst + n * static_cast<int64_t>(kBytes), src, kBytes);
        for (size_t d = shape.size(); d-- > 0;) {
            oc += sc[d], ot += st[d], oe += se[d];
            if (++index[d] < shape[d]) break;
            oc -= sc[d] * shape[d], ot -= st[d] * shape[d], oe -= se[d] * shape[d];
            index[d] = 0;
        }
    }
}

void compute(KernelContext& ctx) {
    Tensor& out = ctx.output(0);
    if (out.num_elements() == 0) return;
    const SelectPlan& plan = ctx.plan<SelectPlan>();
    switch (element_size(out.type())) {
        case 1: return select_elements<1>(ctx, plan, out);
        case 2: return select_elements<2>(ctx, plan, out);
        case 4: return select_elements<4>(ctx, plan, out);
        default: return select_elements<8>(ctx, plan, out);
    }
}

}  // namespace

OpDef make_select_op() {
    OpDef d;
    d.type = "Select";
    d.version = 1;
    d.input_roles = {"cond", "then", "else"};
    d.min_inputs = 3;
    d.parse_attrs = [](const AttrReader& r) -> std::unique_ptr<OpAttrs> {
        auto a = std::make_unique<SelectAttrs>();
        a->broadcast = parse_auto_broadcast(r);
        return a;
    };
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace irlite
