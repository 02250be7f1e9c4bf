// ReduceSum-1, ReduceMean-1, ReduceMax-1, ReduceMin-1, ReduceProd-1 (opset1+), ReduceL1-4,
// ReduceL2-4 (opset4+), ReduceLogicalAnd-1, ReduceLogicalOr-1 (opset1+, boolean data only;
// reducing nothing gives true for And, false for Or): reduce data over the given axes.
// Inputs: 0 'data', 1 'axes' (an integer scalar or 1-D tensor, values in [-rank, rank-1]; a value
// listed twice counts once; an empty list reduces nothing and the output equals data).
// Attributes: keep_dims (default false): keep reduced axes as size 1.
// Types: any floating-point or integer type (ReduceL2: floating point only); f16/bf16 computed in
// f32. Floats accumulate in double. Integer sums and products wrap; ReduceMean of integers rounds
// toward zero.
// Reducing an empty set (a reduced axis of size 0) gives Sum/L1/L2 0, Prod 1, Mean NaN (0 for
// integers), Max the lowest value (-inf), Min the highest (+inf).
#include <cmath>
#include <limits>

#include "kernels/detail/nn_common.hpp"
#include "kernels/detail/parallel.hpp"

namespace irlite {
namespace {

enum class ReduceKind { Sum, Mean, Max, Min, Prod, L1, L2, LogicalAnd, LogicalOr };

constexpr bool is_logical(ReduceKind k) { return k == ReduceKind::LogicalAnd || k == ReduceKind::LogicalOr; }

struct ReduceAttrs : OpAttrs {
    bool keep_dims = false;
};

std::unique_ptr<OpAttrs> parse(const AttrReader& r) {
    auto a = std::make_unique<ReduceAttrs>();
    a->keep_dims = r.get_bool("keep_dims", false);
    return a;
}

std::vector<int64_t> reduced_dims(const std::vector<int64_t>& dims, const std::vector<int64_t>& axes, bool keep) {
    std::vector<int64_t> out;
    size_t next = 0;
    for (size_t i = 0; i < dims.size(); ++i) {
        const bool reduced = next < axes.size() && axes[next] == static_cast<int64_t>(i);
        if (reduced) ++next;
        if (!reduced) out.push_back(dims[i]);
        else if (keep) out.push_back(1);
    }
    return out;
}

std::vector<OutputInfo> infer(const InferContext& ctx, ReduceKind kind) {
    if (kind == ReduceKind::L2) nn::require_float(ctx, 0);
    else if (is_logical(kind) && ctx.type(0) != ElementType::boolean)
        throw ctx.input_error(0, ErrorKind::Type, "element-type-unsupported",
                              str("data must be boolean, got ", to_string(ctx.type(0))));
    else if (!is_logical(kind)) nn::require_numeric(ctx, 0);
    nn::require_integer(ctx, 1);
    nn::require_rank(ctx, 1, 0, 1, "a scalar or 1-D axes");
    const bool keep = ctx.attrs<ReduceAttrs>().keep_dims;
    const PartialShape& data = ctx.shape(0);
    if (!data.rank_known()) return {{ctx.type(0), PartialShape::dynamic_rank()}};
    const int64_t rank = static_cast<int64_t>(data.rank());
    if (const Tensor* axes = ctx.value(1))
        return {{ctx.type(0), PartialShape(reduced_dims(data.dims(), nn::read_axes(ctx, 1, *axes, rank), keep))}};
    // Axes known only at run time: the rank is known when every axis is removed or kept.
    if (keep) return {{ctx.type(0), PartialShape::all_dynamic(data.rank())}};
    const PartialShape& axes_shape = ctx.shape(1);
    if (axes_shape.rank_known() && axes_shape.rank() == 0 && rank >= 1)
        return {{ctx.type(0), PartialShape::all_dynamic(data.rank() - 1)}};
    return {{ctx.type(0), PartialShape::dynamic_rank()}};
}

// ---- kernel ----------------------------------------------------------------------------------

template <class C>
using Acc = std::conditional_t<std::is_floating_point_v<C>, double, C>;

template <ReduceKind K, class A>
A identity() {
    switch (K) {
        case ReduceKind::Prod: return A(1);
        case ReduceKind::Max:
            return std::numeric_limits<A>::has_infinity ? -std::numeric_limits<A>::infinity()
                                                         : std::numeric_limits<A>::lowest();
        case ReduceKind::Min:
            return std::numeric_limits<A>::has_infinity ? std::numeric_limits<A>::infinity()
                                                         : std::numeric_limits<A>::max();
        default: return A(0);
    }
}

template <ReduceKind K, class A>
A combine(A acc, A v) {
    if constexpr (K == ReduceKind::Sum || K == ReduceKind::Mean) return nn::wrap_add(acc, v);
    if constexpr (K == ReduceKind::Prod) return nn::wrap_mul(acc, v);
    if constexpr (K == ReduceKind::Max) return v > acc ? v : acc;
    if constexpr (K == ReduceKind::Min) return v < acc ? v : acc;
    if constexpr (K == ReduceKind::L1) {
        if constexpr (std::is_unsigned_v<A>) return acc + v;
        else return nn::wrap_add(acc, v < 0 ? nn::wrap_mul(v, A(-1)) : v);
    }
    if constexpr (K == ReduceKind::L2) return acc + v * v;
    return acc;
}

template <ReduceKind K, class C>
C finish(Acc<C> acc, int64_t count) {
    using A = Acc<C>;
    if constexpr (K == ReduceKind::Mean) {
        if (count == 0) return std::is_floating_point_v<C> ? std::numeric_limits<C>::quiet_NaN() : C(0);
        return static_cast<C>(acc / static_cast<A>(count));
    }
    if constexpr (K == ReduceKind::L2) return static_cast<C>(std::sqrt(acc));
    return static_cast<C>(acc);
}

// The reduction planned once; its accumulators live in the kernel's scratch memory.
struct ReduceOpPlan : OpPlan {
    explicit ReduceOpPlan(const Shape& shape, const std::vector<int64_t>& axes) : rows(shape, axes) {}
    nn::ReducePlan rows;
    // Scratch: the accumulators, then the input and the output converted to the compute type
    // (nn::conversion_bytes: f16/bf16 as float, narrower integers as 64 bits), when they need it.
    size_t accumulator_bytes = 0, input_bytes = 0, output_bytes = 0;
};

template <ReduceKind K, class C>
void reduce(const nn::ReducePlan& plan, const C* x, C* y, void* scratch) {
    using A = Acc<C>;
    A* acc = static_cast<A*>(scratch);
    const auto groups = static_cast<size_t>(plan.group_count());
    for (size_t i = 0; i < groups; ++i) acc[i] = identity<K, A>();
    plan.for_each_run([&](int64_t in, int64_t group, int64_t len, bool reduced) {
        const C* src = x + in;
        if (reduced) {
            A a = acc[static_cast<size_t>(group)];
            for (int64_t i = 0; i < len; ++i) a = combine<K, A>(a, static_cast<A>(src[i]));
            acc[static_cast<size_t>(group)] = a;
        } else {
            A* dst = acc + group;
            for (int64_t i = 0; i < len; ++i) dst[i] = combine<K, A>(dst[i], static_cast<A>(src[i]));
        }
    });
    for (size_t i = 0; i < groups; ++i) y[i] = finish<K, C>(acc[i], plan.reduce_count());
}

// Reductions over the trailing axes (global pooling: ReduceMean over H and W), where each group is
// one contiguous run: groups are made 4 at a time, each still combined in order from its first
// element, so that the 4 dependency chains overlap (the results of reduce() above, bit for bit);
// and chunks of groups go to the threads.
template <ReduceKind K, class C>
void reduce_trailing(const nn::ReducePlan& plan, const C* x, C* y, ThreadPool* pool) {
    using A = Acc<C>;
    constexpr int kChains = 4;
    const int64_t groups = plan.group_count(), len = plan.reduce_count();
    const int64_t grain = std::max<int64_t>(kChains, 4096 / std::max<int64_t>(len, 1) / kChains * kChains);
    detail::for_chunks(pool, groups, grain, [&](int64_t begin, int64_t end) {
        int64_t g = begin;
        for (; g + kChains <= end; g += kChains) {
            const C* src = x + g * len;
            A acc[kChains];
            for (int c = 0; c < kChains; ++c) acc[c] = identity<K, A>();
            for (int64_t i = 0; i < len; ++i)
                for (int c = 0; c < kChains; ++c) acc[c] = combine<K, A>(acc[c], static_cast<A>(src[c * len + i]));
            for (int c = 0; c < kChains; ++c) y[g + c] = finish<K, C>(acc[c], len);
        }
        for (; g < end; ++g) {
            A acc = identity<K, A>();
            for (int64_t i = 0; i < len; ++i) acc = combine<K, A>(acc, static_cast<A>(x[g * len + i]));
            y[g] = finish<K, C>(acc, len);
        }
    });
}

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    const Shape shape = ctx.shape(0).to_shape();
    const std::vector<int64_t> axes = nn::read_axes(ctx, 1, *ctx.value(1), static_cast<int64_t>(shape.size()));
    auto plan = std::make_unique<ReduceOpPlan>(shape, axes);
    // Accumulators are 8 bytes (double or a 64-bit integer) or narrower.
    plan->accumulator_bytes = (static_cast<size_t>(plan->rows.group_count()) * 8 + 63) / 64 * 64;
    if (ctx.type(0) != ElementType::boolean) {
        plan->input_bytes = nn::conversion_bytes(ctx.type(0), checked_num_elements(shape));
        plan->output_bytes = nn::conversion_bytes(ctx.type(0), plan->rows.group_count());
    }
    plan->scratch_bytes = plan->accumulator_bytes + plan->input_bytes + plan->output_bytes;
    plan->method = "reduce";
    return plan;
}

// ReduceLogicalAnd / ReduceLogicalOr over booleans.
template <ReduceKind K>
void reduce_logical(const nn::ReducePlan& plan, const bool* x, bool* y, void* scratch) {
    constexpr bool kAnd = K == ReduceKind::LogicalAnd;
    auto* acc = static_cast<uint8_t*>(scratch);
    const auto groups = static_cast<size_t>(plan.group_count());
    for (size_t i = 0; i < groups; ++i) acc[i] = kAnd ? 1 : 0;
    plan.for_each_run([&](int64_t in, int64_t group, int64_t len, bool reduced) {
        const bool* src = x + in;
        if (reduced) {
            uint8_t a = acc[static_cast<size_t>(group)];
            for (int64_t i = 0; i < len; ++i) a = kAnd ? (a & src[i]) : (a | src[i]);
            acc[static_cast<size_t>(group)] = a;
        } else {
            uint8_t* dst = acc + group;
            for (int64_t i = 0; i < len; ++i) dst[i] = kAnd ? (dst[i] & src[i]) : (dst[i] | src[i]);
        }
    });
    for (size_t i = 0; i < groups; ++i) y[i] = acc[i] != 0;
}

template <ReduceKind K>
void compute(KernelContext& ctx) {
    const Tensor& data = ctx.input(0);
    const ReduceOpPlan& op = ctx.plan<ReduceOpPlan>();
    const nn::ReducePlan& plan = op.rows;
    if constexpr (is_logical(K)) {
        reduce_logical<K>(plan, data.data<bool>(), ctx.output(0).data<bool>(), ctx.scratch());
        return;
    }
    nn::dispatch_compute(data.type(), [&](auto tag) {
        using C = decltype(tag);
        auto* scratch = static_cast<std::byte*>(ctx.scratch());
        const nn::ComputeIn<C> x(data, {scratch + op.accumulator_bytes, op.input_bytes});
        nn::ComputeOut<C> y(ctx.output(0), {scratch + op.accumulator_bytes + op.input_bytes, op.output_bytes});
        if (plan.trailing()) reduce_trailing<K, C>(plan, x.data(), y.data(), ctx.pool());
        else reduce<K, C>(plan, x.data(), y.data(), ctx.scratch());
        y.commit();
    });
}

template <ReduceKind K>
OpDef make_reduce_def(const char* type, int version) {
    OpDef d;
    d.type = type;
    d.version = version;
    d.first_opset = version;
    d.input_roles = {"data", "axes"};
    d.min_inputs = 2;
    d.value_inputs = inputs(1);
    d.parse_attrs = parse;
    d.infer = [](const InferContext& ctx) { return infer(ctx, K); };
    d.prepare = prepare;
    d.compute = compute<K>;
    return d;
}

}  // namespace

OpDef make_reduce_sum_op() { return make_reduce_def<ReduceKind::Sum>("ReduceSum", 1); }
OpDef make_reduce_mean_op() { return make_reduce_def<ReduceKind::Mean>("ReduceMean", 1); }
OpDef make_reduce_max_op() { return make_reduce_def<ReduceKind::Max>("ReduceMax", 1); }
OpDef make_reduce_min_op() { return make_reduce_def<ReduceKind::Min>("ReduceMin", 1); }
OpDef make_reduce_prod_op() { return make_reduce_def<ReduceKind::Prod>("ReduceProd", 1); }
OpDef make_reduce_l1_op() { return make_reduce_def<ReduceKind::L1>("ReduceL1", 4); }
OpDef make_reduce_l2_op() { return make_reduce_def<ReduceKind::L2>("ReduceL2", 4); }
OpDef make_reduce_logical_and_op() { return make_reduce_def<ReduceKind::LogicalAnd>("ReduceLogicalAnd", 1); }
OpDef make_reduce_logical_or_op() { return make_reduce_def<ReduceKind::LogicalOr>("ReduceLogicalOr", 1); }

}  // namespace irlite
