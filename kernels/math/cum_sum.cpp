// CumSum-3 (opset3+): cumulative sums along an axis.
// Inputs: 0 'data' (any numeric type, rank >= 1), 1 'axis' (optional i32/i64 scalar, default 0,
// in [-r, r-1]). Attributes: exclusive (default false: element j is in sum j), reverse (default
// false: sums run from the end of the axis). Output: data's type and shape.
// Sums accumulate in order along the axis: in f32 for f16/bf16/f32 (each output rounded once), in
// f64 for f64, and in the integer type itself with wrap-around for integers.
#include <type_traits>

#include "kernels/detail/eltwise.hpp"
#include "kernels/detail/index_values.hpp"

namespace irlite {
namespace {

constexpr size_t kData = 0, kAxis = 1;

struct CumSumAttrs : OpAttrs {
    bool exclusive = false, reverse = false;
};

std::unique_ptr<OpAttrs> parse(const AttrReader& r) {
    auto a = std::make_unique<CumSumAttrs>();
    a->exclusive = r.get_bool("exclusive", false);
    a->reverse = r.get_bool("reverse", false);
    return a;
}

// The axis in [0, rank), when known.
std::optional<int64_t> known_axis(const InferContext& ctx, int64_t rank) {
    if (ctx.num_inputs() <= kAxis) return 0;
    const Tensor* v = ctx.value(kAxis);
    if (!v) return std::nullopt;
    const std::vector<int64_t> values = detail::read_index_values(*v);
    if (values.size() != 1)
        throw ctx.input_error(kAxis, ErrorKind::ShapeRule, "axis-shape",
                              str("axis must be a scalar, got shape ", to_string(v->shape())));
    return detail::normalize_axis_at(ctx, kAxis, values[0], rank);
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    const ElementType type = ctx.type(kData);
    if (type == ElementType::boolean || !is_storable(type))
        throw ctx.input_error(kData, ErrorKind::Type, "element-type-unsupported",
                              str("data must be a numeric tensor, got ", to_string(type)));
    const PartialShape& data = ctx.shape(kData);
    if (data.rank_known() && data.rank() == 0)
        throw ctx.input_error(kData, ErrorKind::ShapeRule, "rank-invalid", "data must have rank >= 1, got a scalar");
    if (ctx.num_inputs() > kAxis) {
        detail::require_index_type(ctx, kAxis, detail::IndexTypes::I32OrI64);
        const PartialShape& axis = ctx.shape(kAxis);
        if (axis.rank_known() && axis.rank() > 1)
            throw ctx.input_error(kAxis, ErrorKind::ShapeRule, "axis-shape",
                                  str("axis must be a scalar, got shape ", to_string(axis)));
        if (data.rank_known()) known_axis(ctx, static_cast<int64_t>(data.rank()));
    }
    return {{type, data}};
}

// The accumulation type: f32 (f16, bf16, f32), f64, or the unsigned integer of the same width.
template <class T, bool = std::is_integral_v<T>>
struct Accumulator {
    using type = std::conditional_t<std::is_same_v<T, double>, double, float>;
};
template <class T>
struct Accumulator<T, true> {
    using type = std::make_unsigned_t<T>;
};

struct CumSumPlan : OpPlan {
    int64_t outer = 1, length = 1, inner = 1;
};

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    infer(ctx);
    const Shape& shape = ctx.shape(kData).dims();
    const auto axis = static_cast<size_t>(*known_axis(ctx, static_cast<int64_t>(shape.size())));
    auto plan = std::make_unique<CumSumPlan>();
    for (size_t d = 0; d < axis; ++d) plan->outer *= shape[d];
    plan->length = shape[axis];
    for (size_t d = axis + 1; d < shape.size(); ++d) plan->inner *= shape[d];
    plan->scratch_bytes = static_cast<size_t>(plan->inner) * sizeof(double);  // the running sums of one slice
    plan->method = "scan";
    return plan;
}

template <class T, class C>
void scan(const CumSumPlan& plan, const CumSumAttrs& a, const T* x, T* y, C* acc) {
    const int64_t inner = plan.inner, length = plan.length;
    for (int64_t o = 0; o < plan.outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) acc[i] = C(0);
        for (int64_t step = 0; step < length; ++step) {
            const int64_t j = a.reverse ? length - 1 - step : step;
            const T* in = x + (o * length + j) * inner;
            T* out = y + (o * length + j) * inner;
            for (int64_t i = 0; i < inner; ++i) {
                const C v = detail::to_compute<C>(in[i]);
                if (a.exclusive) {
                    out[i] = detail::from_compute<T>(acc[i]);
                    acc[i] = static_cast<C>(acc[i] + v);
                } else {
                    acc[i] = static_cast<C>(acc[i] + v);
                    out[i] = detail::from_compute<T>(acc[i]);
                }
            }
        }
    }
}

void compute(KernelContext& ctx) {
    const auto& plan = ctx.plan<CumSumPlan>();
    const auto& a = ctx.attrs<CumSumAttrs>();
    const Tensor& data = ctx.input(kData);
    Tensor& out = ctx.output(0);
    if (out.num_elements() == 0) return;
    dispatch_type(data.type(), [&](auto tag) {
        using T = decltype(tag);
        if constexpr (!std::is_same_v<T, bool>) {
            // Integers wrap: sum in the unsigned type of the same width.
            using C = typename Accumulator<T>::type;
            auto* acc = static_cast<C*>(ctx.scratch());
            if constexpr (std::is_integral_v<T>) {
                const auto* x = reinterpret_cast<const C*>(data.data<T>());
                auto* y = reinterpret_cast<C*>(out.data<T>());
                scan<C, C>(plan, a, x, y, acc);
            } else {
                scan<T, C>(plan, a, data.data<T>(), out.data<T>(), acc);
            }
        }
    });
}

}  // namespace

OpDef make_cum_sum_op() {
    OpDef d;
    d.type = "CumSum";
    d.version = 3;
    d.input_roles = {"data", "axis"};
    d.min_inputs = 1;
    d.value_inputs = 1u << kAxis;
    d.parse_attrs = parse;
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace irlite
