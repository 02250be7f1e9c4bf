// Select-1 (opset1+): out = cond ? then : else, elementwise, with broadcasting of all three.
// Inputs: 0 'cond' (boolean), 1 'then', 2 'else' (same element type, any). Attribute
// auto_broadcast: numpy (default) or none (all shapes equal). Types: every type; the copy works on
// bytes, dispatched on the element size.
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

// The walk planned once: rows of the output in which each operand advances or repeats one
// element (broadcast.hpp's plan over the three inputs).
struct SelectPlan : OpPlan {
    BroadcastRows<3> rows;
};

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    auto plan = std::make_unique<SelectPlan>();
    const Shape out = infer(ctx)[0].shape.to_shape();
    plan->rows = plan_broadcast_n<3>({&ctx.shape(0).dims(), &ctx.shape(1).dims(), &ctx.shape(2).dims()}, out);
    plan->method = "strided";
    return plan;
}

template <size_t kBytes>
void select_elements(const KernelContext& ctx, const SelectPlan& plan, Tensor& out) {
    const BroadcastRows<3>& rows = plan.rows;
    const auto* cond = ctx.input(0).data<uint8_t>();
    const std::byte* then_bytes = ctx.input(1).bytes();
    const std::byte* else_bytes = ctx.input(2).bytes();
    std::byte* dst = out.bytes();
    // Per operand, how far one step along the row moves it: 1 element or none (broadcast).
    const int64_t cond_step = rows.varies[0], then_step = rows.varies[1], else_step = rows.varies[2];
    rows.for_each_row([&](const BroadcastRows<3>::Offsets& in, int64_t first) {
        for (int64_t j = 0; j < rows.row_length; ++j) {
            const std::byte* src = cond[in[0] + j * cond_step]
                                       ? then_bytes + (in[1] + j * then_step) * static_cast<int64_t>(kBytes)
                                       : else_bytes + (in[2] + j * else_step) * static_cast<int64_t>(kBytes);
            std::memcpy(dst + (first + j) * static_cast<int64_t>(kBytes), src, kBytes);
        }
    });
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
