// ExperimentalDetectronTopKROIs-6 (opset6+): the max_rois ROIs of highest probability, best first.
// Inputs (the same floating-point type T: f16, bf16, f32, f64): 0 'rois' [N, 4]; 1 'probs' [N].
// Attribute: max_rois (default 0, >= 0). Output (T): [max_rois, 4].
// Choices where the specification is silent (each written in the README too):
// - Equal probabilities keep input order (the lower index first); NaN ranks above every number,
//   as in irlite's TopK.
// - When N < max_rois the rows after the N sorted ROIs (the spec's "undefined values") are zeros.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <type_traits>

#include "engine/op.hpp"
#include "kernels/detail/eltwise.hpp"
#include "kernels/detail/float_dispatch.hpp"

namespace irlite {
namespace {

constexpr size_t kRois = 0, kProbs = 1;

struct TopKRoisAttrs : OpAttrs {
    int64_t max_rois = 0;
};

std::unique_ptr<OpAttrs> parse(const AttrReader& r) {
    auto a = std::make_unique<TopKRoisAttrs>();
    a->max_rois = r.get_i64("max_rois", 0);
    if (a->max_rois < 0 || a->max_rois > (int64_t{1} << 31) - 1)
        throw Error(ErrorKind::Attribute, "attribute-invalid",
                    str("attribute 'max_rois' = ", a->max_rois, ": it must be a non-negative integer (allowed [0, 2147483647])"));
    return a;
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    const auto& a = ctx.attrs<TopKRoisAttrs>();
    const ElementType type = ctx.type(kRois);
    if (!is_storable_float(type))
        throw ctx.input_error(kRois, ErrorKind::Type, "element-type-unsupported",
                              str("rois must be a floating-point tensor (f16, bf16, f32, f64), got ", to_string(type)));
    if (ctx.type(kProbs) != type)
        throw ctx.input_error(kProbs, ErrorKind::Type, "element-type-mismatch",
                              str("probs is ", to_string(ctx.type(kProbs)), " but rois is ", to_string(type),
                                  ": both inputs have the same type"));
    const PartialShape& rois = ctx.shape(kRois);
    const PartialShape& probs = ctx.shape(kProbs);
    if (rois.rank_known() && rois.rank() != 2)
        throw ctx.input_error(kRois, ErrorKind::ShapeRule, "rank-invalid",
                              str("rois must be 2-D [number_of_rois, 4], got ", to_string(rois)));
    if (rois.rank_known() && !dims_compatible(rois[1], 4))
        throw ctx.input_error(kRois, ErrorKind::ShapeRule, "shape-invalid",
                              str("rois must be [number_of_rois, 4], got ", to_string(rois)));
    if (probs.rank_known() && probs.rank() != 1)
        throw ctx.input_error(kProbs, ErrorKind::ShapeRule, "rank-invalid",
                              str("probs must be 1-D [number_of_rois], got ", to_string(probs)));
    if (rois.rank_known() && probs.rank_known() && !dims_compatible(rois[0], probs[0]))
        throw ctx.input_error(kProbs, ErrorKind::ShapeRule, "shape-mismatch",
                              str("probs has ", probs[0], " values but rois has ", rois[0], " rows: one probability per ROI"));
    return {{type, PartialShape({a.max_rois, 4})}};
}

struct TopKRoisPlan : OpPlan {
    int64_t rois = 0, rows = 0;
};

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    infer(ctx);
    auto plan = std::make_unique<TopKRoisPlan>();
    plan->rois = ctx.shape(kRois)[0];
    plan->rows = ctx.attrs<TopKRoisAttrs>().max_rois;
    plan->scratch_bytes = static_cast<size_t>(plan->rois) * sizeof(int64_t);  // the ROI order
    plan->method = "partial-sort";
    return plan;
}

template <class T>
void top_rois(KernelContext& ctx, const TopKRoisPlan& plan) {
    const T* probs = ctx.input(kProbs).data<T>();
    const std::byte* rois = ctx.input(kRois).bytes();
    std::byte* out = ctx.output(0).bytes();
    auto* order = static_cast<int64_t*>(ctx.scratch());
    const int64_t k = std::min(plan.rois, plan.rows);
    std::iota(order, order + plan.rois, int64_t{0});
    // a before b: the higher probability (NaN highest), then the lower index.
    std::partial_sort(order, order + k, order + plan.rois, [&](int64_t x, int64_t y) {
        const double u = detail::load_double(probs, x), v = detail::load_double(probs, y);
        const bool un = std::isnan(u), vn = std::isnan(v);
        if (un != vn) return un;
        if (!un && u != v) return u > v;
        return x < y;
    });
    const size_t row = 4 * sizeof(T);
    for (int64_t i = 0; i < k; ++i) std::memcpy(out + i * row, rois + order[i] * row, row);
    if (plan.rows > k) std::memset(out + k * row, 0, static_cast<size_t>(plan.rows - k) * row);  // +0.0 in every float type
}

void compute(KernelContext& ctx) {
    const auto& plan = ctx.plan<TopKRoisPlan>();
    IRLITE_CHECK(ctx.output(0).num_elements() == plan.rows * 4, ErrorKind::ShapeRule, "kernel-output-mismatch",
                 "output disagrees with the plan");
    detail::dispatch_storable_float(ctx.input(kRois).type(), [&](auto tag) {
        using T = decltype(tag);
        top_rois<T>(ctx, plan);
    });
}

}  // namespace

OpDef make_experimental_detectron_topk_rois_op() {
    OpDef d;
    d.type = "ExperimentalDetectronTopKROIs";
    d.version = 6;
    d.first_opset = 6;
    d.last_opset = kLatestOpset;
    d.input_roles = {"rois", "probs"};
    d.min_inputs = 2;
    d.parse_attrs = parse;
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace irlite
