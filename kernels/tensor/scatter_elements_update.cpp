// ScatterElementsUpdate-3 (opset3..11) and ScatterElementsUpdate-12 (opset12+): a copy of data in
// which each element of `updates` goes to the position given by its own coordinates, with the
// coordinate along `axis` replaced by the matching element of `indices`.
// Inputs: 0 'data' (any type, rank r >= 1), 1 'indices' (any integer type, rank r, each dim <= the
// data's except along axis), 2 'updates' (data's type, indices' shape), 3 'axis' (integer scalar or
// one-element, in [-r, r-1]). An index must be in [-d, d-1] for d = data.shape[axis]; negatives
// count from the end.
// Attributes (v12 only): reduction = none (default) | sum | prod | min | max | mean, use_init_val
// (default true: the data's element is the first operand; false: only the updates count).
// Updates apply in row-major order of indices, so with `none` the last one wins. Integers wrap;
// an integer mean rounds down (towards negative infinity); on boolean data sum and max are OR,
// prod and min are AND, and mean is rejected when the model is loaded.
#include <cmath>
#include <cstring>
#include <type_traits>

#include "kernels/detail/eltwise.hpp"
#include "kernels/detail/index_values.hpp"
#include "kernels/detail/parallel.hpp"
#include "kernels/detail/small_buffer.hpp"

namespace irlite {
namespace {

constexpr size_t kData = 0, kIndices = 1, kUpdates = 2, kAxis = 3;

enum class Reduction { None, Sum, Prod, Min, Max, Mean };

struct SeuAttrs : OpAttrs {
    Reduction reduction = Reduction::None;
    bool use_init_val = true;
};

std::unique_ptr<OpAttrs> parse_v3(const AttrReader&) { return std::make_unique<SeuAttrs>(); }

std::unique_ptr<OpAttrs> parse_v12(const AttrReader& r) {
    auto a = std::make_unique<SeuAttrs>();
    const std::string v = r.get_enum("reduction", {"none", "sum", "prod", "min", "max", "mean"}, "none");
    const std::pair<const char*, Reduction> table[] = {{"none", Reduction::None}, {"sum", Reduction::Sum},
                                                       {"prod", Reduction::Prod}, {"min", Reduction::Min},
                                                       {"max", Reduction::Max},   {"mean", Reduction::Mean}};
    for (const auto& [name, value] : table)
        if (v == name) a->reduction = value;
    a->use_init_val = r.get_bool("use_init_val", true);
    return a;
}

std::optional<int64_t> known_axis(const InferContext& ctx, int64_t rank) {
    const Tensor* v = ctx.value(kAxis);
    if (!v) return std::nullopt;
    const std::vector<int64_t> a = detail::read_index_values(*v);
    if (a.size() != 1)
        throw ctx.input_error(kAxis, ErrorKind::ShapeRule, "axis-shape",
                              str("axis must hold exactly one value, got ", a.size()));
    return detail::normalize_axis_at(ctx, kAxis, a[0], rank);
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    detail::require_index_type(ctx, kIndices, detail::IndexTypes::AnyInteger);
    detail::require_index_type(ctx, kAxis, detail::IndexTypes::AnyInteger);
    const ElementType type = ctx.type(kData);
    if (ctx.type(kUpdates) != type)
        throw ctx.input_error(kUpdates, ErrorKind::Type, "element-type-mismatch",
                              str("updates has element type ", to_string(ctx.type(kUpdates)), ", data has ", to_string(type),
                                  "; they must be the same"));
    if (type == ElementType::boolean && ctx.attrs<SeuAttrs>().reduction == Reduction::Mean)
        throw ctx.input_error(kData, ErrorKind::Type, "element-type-unsupported",
                              "reduction 'mean' is not defined on boolean data");
    const PartialShape& data = ctx.shape(kData);
    const PartialShape& indices = ctx.shape(kIndices);
    const PartialShape& updates = ctx.shape(kUpdates);
    if (data.rank_known() && data.rank() == 0)
        throw ctx.input_error(kData, ErrorKind::ShapeRule, "rank-invalid", "data must have rank >= 1, got a scalar");
    if (data.rank_known() && indices.rank_known() && indices.rank() != data.rank())
        throw ctx.input_error(kIndices, ErrorKind::ShapeRule, "rank-mismatch",
                              str("indices rank ", indices.rank(), " differs from data rank ", data.rank()));
    if (indices.rank_known() && updates.rank_known() && !shapes_compatible(indices, updates))
        throw ctx.input_error(kUpdates, ErrorKind::ShapeRule, "updates-shape",
                              str("updates shape ", to_string(updates), " must equal indices shape ", to_string(indices)));
    if (!data.rank_known()) return {{type, data}};
    const std::optional<int64_t> axis = known_axis(ctx, static_cast<int64_t>(data.rank()));
    if (axis && indices.rank_known())
        for (size_t d = 0; d < data.rank(); ++d)
            if (static_cast<int64_t>(d) != *axis && data[d] != kDynamic && indices[d] != kDynamic && indices[d] > data[d])
                throw ctx.input_error(kIndices, ErrorKind::ShapeRule, "indices-shape",
                                      str("indices dim ", d, " is ", indices[d], ", larger than data's ", data[d],
                                          " (only the axis dim may be larger)"));
    if (axis) detail::check_known_indices(ctx, kIndices, data, [&](int64_t) { return *axis; });
    return {{type, data}};
}

struct SeuPlan : OpPlan {
    int64_t axis = 0;
    std::vector<int64_t> index_shape;  // indices' (= updates') dims
    std::vector<size_t> data_strides;  // elements
    int64_t updates = 0, elements = 0;
};

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    infer(ctx);
    const Shape& data = ctx.shape(kData).dims();
    auto plan = std::make_unique<SeuPlan>();
    plan->axis = *known_axis(ctx, static_cast<int64_t>(data.size()));
    plan->index_shape = ctx.shape(kIndices).dims();
    plan->updates = checked_num_elements(plan->index_shape);
    plan->elements = checked_num_elements(data);
    plan->data_strides.resize(data.size());
    size_t stride = 1;
    for (size_t d = data.size(); d-- > 0;) {
        plan->data_strides[d] = stride;
        stride *= static_cast<size_t>(data[d]);
    }
    const auto& a = ctx.attrs<SeuAttrs>();
    // Scratch: each update's target offset, resolved once from the indices (so that the reductions
    // are instantiated per data type only, not per data type x index type), then, when counting,
    // per data element the number of updates it received.
    plan->scratch_bytes = static_cast<size_t>(plan->updates) * sizeof(int64_t);
    if (a.reduction == Reduction::Mean || (a.reduction != Reduction::None && !a.use_init_val))
        plan->scratch_bytes += static_cast<size_t>(plan->elements) * sizeof(int64_t);
    plan->in_place.push_back({0, static_cast<int>(kData)});
    plan->method = "scatter";
    return plan;
}

template <Reduction R, class C>
C combine(C a, C b) {
    if constexpr (std::is_same_v<C, bool>) {
        if constexpr (R == Reduction::Sum || R == Reduction::Max) return a || b;
        else return a && b;
    } else if constexpr (R == Reduction::Min) {
        return b < a ? b : a;
    } else if constexpr (R == Reduction::Max) {
        return a < b ? b : a;
    } else if constexpr (R == Reduction::Prod) {
        if constexpr (std::is_integral_v<C>) return detail::wrapping_mul(a, b);
        else return a * b;
    } else {  // Sum, Mean (sums first)
        if constexpr (std::is_integral_v<C>) return detail::wrapping_add(a, b);
        else return a + b;
    }
}

// The data offset (in elements) each update targets, in row-major order of the updates; throws
// for an index outside [-size, size) along the axis.
template <class I>
void resolve_targets(const KernelContext& ctx, const SeuPlan& plan, const Tensor& indices, const Shape& data_shape,
                     int64_t* targets) {
    const I* idx = indices.data<I>();
    const size_t rank = plan.index_shape.size();
    detail::SmallBuffer<int64_t> at(rank);
    const auto axis = static_cast<size_t>(plan.axis);
    const int64_t size = data_shape[axis];
    for (int64_t u = 0; u < plan.updates; ++u) {
        // u64 values above INT64_MAX saturate (out of range), never wrap to a negative index.
        int64_t c = std::is_unsigned_v<I> && static_cast<uint64_t>(idx[u]) > static_cast<uint64_t>(INT64_MAX)
                        ? INT64_MAX
                        : static_cast<int64_t>(idx[u]);
        if (c < -size || c >= size)
            throw ctx.input_error(kIndices, ErrorKind::Value, "index-out-of-range",
                                  detail::index_out_of_range_message("indices", indices.shape(), u, c, plan.axis, size));
        if (c < 0) c += size;
        size_t offset = 0;
        for (size_t d = 0; d < rank; ++d) offset += static_cast<size_t>(d == axis ? c : at[d]) * plan.data_strides[d];
        targets[u] = static_cast<int64_t>(offset);
        for (size_t d = rank; d-- > 0;) {
            if (++at[d] < plan.index_shape[d]) break;
            at[d] = 0;
        }
    }
}

// Reduction "none": later updates overwrite earlier ones; a copy of element-sized words.
template <class W>
void scatter_words(const SeuPlan& plan, const int64_t* targets, const Tensor& updates, Tensor& out) {
    const W* src = static_cast<const W*>(updates.data());
    W* dst = static_cast<W*>(out.data());
    for (int64_t u = 0; u < plan.updates; ++u) dst[targets[u]] = src[u];
}

// Reductions. Per data element a count of the updates it received lives in scratch when needed:
// without use_init_val a target's first update replaces the data's value (count 0 -> first), and
// mean divides by the count (plus one for the initial value).
template <class T, Reduction R>
void scatter_reduce(const KernelContext& ctx, const SeuPlan& plan, const int64_t* targets, int64_t* count,
                    const Tensor& updates, Tensor& out) {
    using C = std::conditional_t<std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>, float, T>;
    const bool init = ctx.attrs<SeuAttrs>().use_init_val;
    T* dst = out.data<T>();
    const T* src = updates.data<T>();
    const bool counting = R == Reduction::Mean || !init;
    if (counting) std::fill(count, count + plan.elements, int64_t{0});
    for (int64_t u = 0; u < plan.updates; ++u) {
        const int64_t offset = targets[u];
        const C v = detail::to_compute<C>(src[u]);
        const bool first = !init && count[offset] == 0;
        dst[offset] = detail::from_compute<T>(first ? v : combine<R, C>(detail::to_compute<C>(dst[offset]), v));
        if (counting) ++count[offset];
    }
    if constexpr (R == Reduction::Mean && !std::is_same_v<C, bool>) {
        for (int64_t e = 0; e < plan.elements; ++e) {
            if (count[e] == 0) continue;
            const int64_t n = count[e] + (init ? 1 : 0);
            const C sum = detail::to_compute<C>(dst[e]);
            if constexpr (std::is_integral_v<C>) {
                // Rounded down (towards negative infinity), on the wrapped sum.
                if constexpr (std::is_signed_v<C>) {
                    C q = static_cast<C>(sum / static_cast<C>(n));
                    if (sum % static_cast<C>(n) != 0 && sum < 0) --q;
                    dst[e] = static_cast<T>(q);
                } else {
                    dst[e] = static_cast<T>(sum / static_cast<C>(n));
                }
            } else {
                dst[e] = detail::from_compute<T>(static_cast<C>(sum / static_cast<C>(n)));
            }
        }
    }
}

void compute(KernelContext& ctx) {
    const auto& plan = ctx.plan<SeuPlan>();
    const Tensor& data = ctx.input(kData);
    const Tensor& indices = ctx.input(kIndices);
    const Tensor& updates = ctx.input(kUpdates);
    Tensor& out = ctx.output(0);
    IRLITE_CHECK(out.byte_size() == data.byte_size() && updates.num_elements() == plan.updates &&
                     indices.num_elements() == plan.updates,
                 ErrorKind::ShapeRule, "kernel-output-mismatch", "inputs and output disagree with the shape rule");
    detail::parallel_memcpy(ctx.pool(), out.data(), data.data(), data.byte_size());
    if (plan.updates == 0) return;
    auto* targets = static_cast<int64_t*>(ctx.scratch());
    switch (indices.type()) {
        case ElementType::i8: resolve_targets<int8_t>(ctx, plan, indices, out.shape(), targets); break;
        case ElementType::i16: resolve_targets<int16_t>(ctx, plan, indices, out.shape(), targets); break;
        case ElementType::i32: resolve_targets<int32_t>(ctx, plan, indices, out.shape(), targets); break;
        case ElementType::u8: resolve_targets<uint8_t>(ctx, plan, indices, out.shape(), targets); break;
        case ElementType::u16: resolve_targets<uint16_t>(ctx, plan, indices, out.shape(), targets); break;
        case ElementType::u32: resolve_targets<uint32_t>(ctx, plan, indices, out.shape(), targets); break;
        case ElementType::u64: resolve_targets<uint64_t>(ctx, plan, indices, out.shape(), targets); break;
        default: resolve_targets<int64_t>(ctx, plan, indices, out.shape(), targets); break;
    }
    const Reduction reduction = ctx.attrs<SeuAttrs>().reduction;
    if (reduction == Reduction::None) {
        switch (element_size(data.type())) {
            case 1: return scatter_words<uint8_t>(plan, targets, updates, out);
            case 2: return scatter_words<uint16_t>(plan, targets, updates, out);
            case 4: return scatter_words<uint32_t>(plan, targets, updates, out);
            default: return scatter_words<uint64_t>(plan, targets, updates, out);
        }
    }
    int64_t* count = targets + plan.updates;
    dispatch_type(data.type(), [&](auto tag) {
        using T = decltype(tag);
        switch (reduction) {
            case Reduction::Sum: return scatter_reduce<T, Reduction::Sum>(ctx, plan, targets, count, updates, out);
            case Reduction::Prod: return scatter_reduce<T, Reduction::Prod>(ctx, plan, targets, count, updates, out);
            case Reduction::Min: return scatter_reduce<T, Reduction::Min>(ctx, plan, targets, count, updates, out);
            case Reduction::Max: return scatter_reduce<T, Reduction::Max>(ctx, plan, targets, count, updates, out);
            case Reduction::Mean:
                if constexpr (!std::is_same_v<T, bool>) scatter_reduce<T, Reduction::Mean>(ctx, plan, targets, count, updates, out);
                return;
            case Reduction::None: return;
        }
    });
}

OpDef make_def(int version, int first, int last) {
    OpDef d;
    d.type = "ScatterElementsUpdate";
    d.version = version;
    d.first_opset = first;
    d.last_opset = last;
    d.input_roles = {"data", "indices", "updates", "axis"};
    d.min_inputs = 4;
    d.value_inputs = 1u << kAxis;
    d.parse_attrs = version == 12 ? parse_v12 : parse_v3;
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace

OpDef make_scatter_elements_update_3_op() { return make_def(3, 3, 11); }
OpDef make_scatter_elements_update_12_op() { return make_def(12, 12, kLatestOpset); }

}  // namespace irlite
