#include "kernels/detail/eltwise.hpp"

#include "kernels/detail/index_values.hpp"

namespace irlite::detail {

std::string type_mask_text(TypeMask mask) {
    std::string s;
    for (int i = 0; i < kNumElementTypes; ++i) {
        const auto t = static_cast<ElementType>(i);
        if (mask & type_bit(t)) s += (s.empty() ? "" : ", ") + std::string(to_string(t));
    }
    return s;
}

std::unique_ptr<OpAttrs> parse_binary_attrs(const AttrReader& reader) {
    auto a = std::make_unique<BinaryAttrs>();
    a->broadcast = parse_auto_broadcast(reader);
    return a;
}

namespace {

// The output shape of a binary op, after checking its input types.
PartialShape binary_output_shape(const InferContext& ctx, TypeMask allowed) {
    const ElementType ta = ctx.type(0), tb = ctx.type(1);
    if (!(allowed & type_bit(ta)))
        throw ctx.input_error(0, ErrorKind::Type, "element-type-unsupported",
                              str(ctx.def().type, " does not support element type ", to_string(ta),
                                  " (supported: ", type_mask_text(allowed), ")"));
    if (tb != ta)
        throw ctx.input_error(1, ErrorKind::Type, "element-type-mismatch",
                              str("element type ", to_string(tb), " differs from input 0's ", to_string(ta),
                                  "; both inputs must have the same type"));
    return broadcast_shapes(ctx.shape(0), ctx.shape(1), ctx.attrs<BinaryAttrs>().broadcast);
}

}  // namespace

std::vector<OutputInfo> infer_binary(const InferContext& ctx, TypeMask allowed, BinaryOutput output) {
    std::vector<OutputInfo> out(1);
    out[0].shape = binary_output_shape(ctx, allowed);
    out[0].type = output == BinaryOutput::Boolean ? ElementType::boolean : ctx.type(0);
    return out;
}

std::unique_ptr<OpPlan> prepare_binary(const InferContext& ctx, TypeMask allowed) {
    const PartialShape out = binary_output_shape(ctx, allowed);
    const Shape& out_shape = out.dims();  // static at prepare time: dims are the shape
    auto plan = std::make_unique<BinaryPlan>();
    plan->broadcast = plan_broadcast(ctx.shape(0).dims(), ctx.shape(1).dims(), out_shape);
    plan->method = "eltwise";
    plan->in_place.reserve(2);
    for (int i = 0; i < 2; ++i)
        if (ctx.shape(static_cast<size_t>(i)).dims() == out_shape) plan->in_place.push_back({0, i});
    return plan;
}

void check_integer_divisor_not_zero(const KernelContext& ctx, const char* what) {
    const Tensor& b = ctx.input(1);
    if (!is_integral(b.type())) return;
    dispatch_type(b.type(), [&](auto tag) {
        using T = decltype(tag);
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
            const T* p = b.data<T>();
            for (int64_t i = 0; i < b.num_elements(); ++i)
                if (p[i] == 0)
                    throw ctx.input_error(1, ErrorKind::Value, "division-by-zero",
                                          str("integer ", what, " by zero: b", position_text(b.shape(), i), " = 0"));
        }
    });
}

}  // namespace irlite::detail
