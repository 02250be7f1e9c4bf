// ScaledDotProductAttention-13 (opset13+): softmax(Q K^T * scale + bias) V, the transformer
// attention block (torch.nn.functional.scaled_dot_product_attention without dropout).
// Inputs: 0 'query' [N, ..., L, E], 1 'key' [N, ..., S, E], 2 'value' [N, ..., S, Ev] (one float
// type, rank >= 3), 3 'attention_mask' (optional: boolean, or the query's type; broadcast to
// [N, ..., L, S]; a scalar 0 means no mask), 4 'scale' (optional scalar; default 1 / sqrt(E)).
// Attribute causal (required): key j is masked for query i when j > i (top-left aligned), and the
// mask input is ignored. A boolean mask masks its false entries (-inf); a float mask is added.
// The batch dims N, ... of query, key, value and mask broadcast with numpy's rule (equal or 1).
// Output [N, ..., L, Ev]. Computed in f32 (f64 for f64) with a numerically stable softmax; a row
// whose every key is masked gives NaN, as the pseudo-code does.
#include <cmath>
#include <limits>
#include <type_traits>

#include "engine/op.hpp"
#include "kernels/detail/float_value.hpp"
#include "kernels/detail/parallel.hpp"
#include "kernels/detail/small_buffer.hpp"

namespace irlite {
namespace {

using detail::load_as;
using detail::store_at;

constexpr size_t kQ = 0, kK = 1, kV = 2, kMask = 3, kScale = 4;

struct SdpaAttrs : OpAttrs {
    bool causal = false;
};

std::unique_ptr<OpAttrs> parse(const AttrReader& r) {
    auto a = std::make_unique<SdpaAttrs>();
    r.get_string("causal");  // required
    a->causal = r.get_bool("causal", false);
    return a;
}

// Numpy broadcast of the batch dims (all but the last two) of several shapes.
std::vector<int64_t> broadcast_batch(const InferContext& ctx, const std::vector<size_t>& ports) {
    size_t rank = 0;
    for (size_t p : ports) rank = std::max(rank, ctx.shape(p).rank() >= 2 ? ctx.shape(p).rank() - 2 : 0);
    std::vector<int64_t> out(rank, 1);
    for (size_t p : ports) {
        const auto& dims = ctx.shape(p).dims();
        const size_t r = dims.size() >= 2 ? dims.size() - 2 : 0;
        for (size_t i = 0; i < r; ++i) {
            const int64_t d = dims[i];
            int64_t& o = out[rank - r + i];
            if (d == 1) continue;
            if (o == 1 || o == kDynamic) o = d == kDynamic && o != kDynamic ? kDynamic : d;
            else if (d != kDynamic && d != o)
                throw ctx.input_error(p, ErrorKind::ShapeRule, "broadcast-incompatible",
                                      str(ctx.def().input_role(p), "'s batch dims ", to_string(ctx.shape(p)),
                                          " do not broadcast with the other inputs' (dim ", d, " against ", o, ")"));
        }
    }
    return out;
}

bool mask_used(const InferContext& ctx) { return ctx.num_inputs() > kMask && !ctx.attrs<SdpaAttrs>().causal; }

std::vector<OutputInfo> infer(const InferContext& ctx) {
    const ElementType type = ctx.type(kQ);
    if (!is_storable_float(type))
        throw ctx.input_error(kQ, ErrorKind::Type, "element-type-unsupported",
                              str("query must be a floating-point tensor, got ", to_string(type)));
    for (size_t p : {kK, kV})
        if (ctx.type(p) != type)
            throw ctx.input_error(p, ErrorKind::Type, "element-type-mismatch",
                                  str(ctx.def().input_role(p), " is ", to_string(ctx.type(p)), ", query is ", to_string(type)));
    if (ctx.num_inputs() > kMask && ctx.type(kMask) != type && ctx.type(kMask) != ElementType::boolean)
        throw ctx.input_error(kMask, ErrorKind::Type, "element-type-mismatch",
                              str("attention_mask must be boolean or ", to_string(type), ", got ", to_string(ctx.type(kMask))));
    if (ctx.num_inputs() > kScale && ctx.type(kScale) != type)
        throw ctx.input_error(kScale, ErrorKind::Type, "element-type-mismatch",
                              str("scale is ", to_string(ctx.type(kScale)), ", query is ", to_string(type)));
    for (size_t p : {kQ, kK, kV})
        if (!ctx.shape(p).rank_known()) return {{type, PartialShape::dynamic_rank()}};
    for (size_t p : {kQ, kK, kV})
        if (ctx.shape(p).rank() < 3)
            throw ctx.input_error(p, ErrorKind::ShapeRule, "rank-invalid",
                                  str(ctx.def().input_role(p), " must have rank >= 3, got ", to_string(ctx.shape(p))));
    const auto& q = ctx.shape(kQ).dims();
    const auto& k = ctx.shape(kK).dims();
    const auto& v = ctx.shape(kV).dims();
    if (!dims_compatible(q.back(), k.back()))
        throw ctx.input_error(kK, ErrorKind::ShapeRule, "dims-mismatch",
                              str("key's embedding dim ", k.back(), " differs from query's ", q.back()));
    if (!dims_compatible(k[k.size() - 2], v[v.size() - 2]))
        throw ctx.input_error(kV, ErrorKind::ShapeRule, "dims-mismatch",
                              str("value has ", v[v.size() - 2], " keys, key has ", k[k.size() - 2]));
    if (mask_used(ctx) && ctx.shape(kMask).rank_known() && ctx.shape(kMask).rank() >= 1) {
        const auto& m = ctx.shape(kMask).dims();
        const int64_t ms = m.back(), ml = m.size() >= 2 ? m[m.size() - 2] : 1;
        if (!dims_compatible(ms, k[k.size() - 2]) && ms != 1)
            throw ctx.input_error(kMask, ErrorKind::ShapeRule, "dims-mismatch",
                                  str("attention_mask's last dim ", ms, " must be S = ", k[k.size() - 2], " (or 1)"));
        if (!dims_compatible(ml, q[q.size() - 2]) && ml != 1)
            throw ctx.input_error(kMask, ErrorKind::ShapeRule, "dims-mismatch",
                                  str("attention_mask's dim -2 is ", ml, "; it must be L = ", q[q.size() - 2], " or 1"));
    }
    std::vector<size_t> ports = {kQ, kK, kV};
    if (mask_used(ctx) && ctx.shape(kMask).rank_known() && ctx.shape(kMask).rank() >= 2) ports.push_back(kMask);
    std::vector<int64_t> dims = broadcast_batch(ctx, ports);
    dims.push_back(q[q.size() - 2]);
    dims.push_back(v.back());
    return {{type, PartialShape(dims)}};
}

// The element offset of a tensor's [batch..., 0, 0] for an output batch index, with numpy
// broadcasting (a dim of 1, or a missing leading dim, does not advance).
int64_t batch_offset(const Shape& shape, const Shape& out_batch, int64_t flat) {
    const size_t rank = shape.size(), batch_rank = rank >= 2 ? rank - 2 : 0;
    int64_t offset = 0, stride = rank >= 2 ? shape[rank - 1] * shape[rank - 2] : (rank == 1 ? shape[0] : 1);
    for (size_t i = out_batch.size(); i-- > 0;) {
        const int64_t coord = flat % out_batch[i];
        flat /= out_batch[i];
        const size_t back = out_batch.size() - 1 - i;
        if (back >= batch_rank) continue;
        const int64_t d = shape[batch_rank - 1 - back];
        if (d != 1) offset += coord * stride;
        stride *= d;
    }
    return offset;
}

// The sizes, and per output batch index each operand's [batch..., 0, 0] offset (numpy broadcast):
// worked out once, so that a run only computes.
struct SdpaPlan : OpPlan {
    int64_t L = 0, S = 0, E = 0, Ev = 0, batches = 1;
    int64_t mask_l = 1, mask_s = 1;  // the mask's last two dims (1 for a missing one)
    std::vector<int64_t> q_at, k_at, v_at, mask_at;
};

template <class T>
void attention(const KernelContext& ctx, const SdpaPlan& p, Tensor& out) {
    using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
    const auto& a = ctx.attrs<SdpaAttrs>();
    const int64_t L = p.L, Ev = p.Ev, E = p.E, S = p.S;
    C scale = static_cast<C>(1.0 / std::sqrt(static_cast<double>(E)));
    if (ctx.num_inputs() > kScale) scale = static_cast<C>(ctx.input(kScale).value_as_double(0));
    const Tensor* mask = ctx.num_inputs() > kMask && !a.causal ? &ctx.input(kMask) : nullptr;
    const bool mask_bool = mask && mask->type() == ElementType::boolean;
    const C neg_inf = -std::numeric_limits<C>::infinity();
    const T* qd = ctx.input(kQ).data<T>();
    const T* kd = ctx.input(kK).data<T>();
    const T* vd = ctx.input(kV).data<T>();
    T* od = out.data<T>();
    // One task per query row; each thread scores into its own scratch.
    const int64_t grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(1, S * (E + Ev)));
    detail::for_chunks(ctx.pool(), p.batches * L, grain, [&](int64_t r0, int64_t r1) {
        auto* scores = static_cast<C*>(ctx.scratch());  // S values of one query row
        for (int64_t r = r0; r < r1; ++r) {
            const auto b = static_cast<size_t>(r / L);
            const int64_t i = r % L;
            const T* qb = qd + p.q_at[b];
            const T* kb = kd + p.k_at[b];
            const T* vb = vd + p.v_at[b];
            const int64_t mb = mask ? p.mask_at[b] : 0;
            T* ob = od + static_cast<int64_t>(b) * L * Ev;
            C max = neg_inf;
            for (int64_t j = 0; j < S; ++j) {
                C s = 0;
                for (int64_t e = 0; e < E; ++e) s += load_as<C>(qb, i * E + e) * load_as<C>(kb, j * E + e);
                s *= scale;
                if (a.causal && j > i) s = neg_inf;
                if (mask) {
                    const int64_t at = mb + (p.mask_l == 1 ? 0 : i) * p.mask_s + (p.mask_s == 1 ? 0 : j);
                    if (mask_bool) {
                        if (!mask->data<bool>()[at]) s = neg_inf;
                    } else {
                        s += static_cast<C>(mask->value_as_double(at));
                    }
                }
                scores[j] = s;
                if (s > max) max = s;
            }
            C sum = 0;
            for (int64_t j = 0; j < S; ++j) {
                scores[j] = max == neg_inf ? std::numeric_limits<C>::quiet_NaN() : std::exp(scores[j] - max);
                sum += scores[j];
            }
            for (int64_t c = 0; c < Ev; ++c) {
                C acc = 0;
                for (int64_t j = 0; j < S; ++j) acc += scores[j] * load_as<C>(vb, j * Ev + c);
                store_at(ob, i * Ev + c, acc / sum);
            }
        }
    });
}

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    const std::vector<OutputInfo> out = infer(ctx);
    auto plan = std::make_unique<SdpaPlan>();
    const Shape os = out[0].shape.to_shape(), q = ctx.shape(kQ).to_shape(), k = ctx.shape(kK).to_shape();
    plan->L = os[os.size() - 2], plan->Ev = os.back(), plan->E = q.back(), plan->S = k[k.size() - 2];
    const Shape out_batch(os.begin(), os.end() - 2);
    for (int64_t d : out_batch) plan->batches *= d;
    const auto offsets = [&](size_t port) {
        const Shape shape = ctx.shape(port).to_shape();
        std::vector<int64_t> at(static_cast<size_t>(plan->batches));
        for (int64_t b = 0; b < plan->batches; ++b) at[static_cast<size_t>(b)] = batch_offset(shape, out_batch, b);
        return at;
    };
    plan->q_at = offsets(kQ), plan->k_at = offsets(kK), plan->v_at = offsets(kV);
    if (ctx.num_inputs() > kMask && !ctx.attrs<SdpaAttrs>().causal) {
        const Shape m = ctx.shape(kMask).to_shape();
        plan->mask_l = m.size() >= 2 ? m[m.size() - 2] : 1;
        plan->mask_s = m.size() >= 1 ? m.back() : 1;
        plan->mask_at = offsets(kMask);
    }
    plan->scratch_bytes = static_cast<size_t>(plan->S) * sizeof(double);
    plan->method = "attention";
    return plan;
}

void compute(KernelContext& ctx) {
    const auto& plan = ctx.plan<SdpaPlan>();
    Tensor& out = ctx.output(0);
    if (out.num_elements() == 0) return;
    switch (out.type()) {
        case ElementType::f16: return attention<float16>(ctx, plan, out);
        case ElementType::bf16: return attention<bfloat16>(ctx, plan, out);
        case ElementType::f64: return attention<double>(ctx, plan, out);
        default: return attention<float>(ctx, plan, out);
    }
}

}  // namespace

OpDef make_scaled_dot_product_attention_op() {
    OpDef d;
    d.type = "ScaledDotProductAttention";
    d.version = 13;
    d.input_roles = {"query", "key", "value", "attention_mask", "scale"};
    d.min_inputs = 3;
    d.parse_attrs = parse;
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace irlite
