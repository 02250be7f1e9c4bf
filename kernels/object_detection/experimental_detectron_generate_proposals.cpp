// ExperimentalDetectronGenerateProposalsSingleImage-6 (opset6+): Detectron's (Mask R-CNN) region
// proposals of one image: anchors moved by the predicted deltas, clipped to the image, the smallest
// dropped, the best pre_nms_count through NMS, the post_nms_count best kept.
// Inputs (every one of the same floating-point type T: f16, bf16, f32, f64): 0 'im_info' [3] =
// (image_height, image_width, scale); 1 'anchors' [H * W * A, 4] rows (x0, y0, x1, y1), anchor a of
// feature-map cell (h, w) at row (h * W + w) * A + a; 2 'deltas' [A * 4, H, W], channel a * 4 + k
// holding dx, dy, d_log_w, d_log_h of anchor a; 3 'scores' [A, H, W].
// Attributes (all required): min_size (>= 0), nms_threshold (>= 0), pre_nms_count (>= 0),
// post_nms_count (0 to 2^31 - 1, the output rows; OpenVINO's CPU plugin holds it in an int).
// Outputs: 0 'rois' [post_nms_count, 4] (T), 1 'scores' [post_nms_count] (T).
//
// What OpenVINO computes (its reference and CPU plugin agree on every point but the last), which
// irlite matches, in f32 for f16/bf16/f32 inputs (f64: in double; OpenVINO has no f64 kernel):
// - Decoding with pixel-inclusive sizes (+1): w = x1 - x0 + 1, ctr = x0 + 0.5 * w, new ctr =
//   dx * w + ctr, new w = exp(min(d_log_w, log(1000 / 16))) * w (Detectron's cap; there are no
//   deltas weights), x0' = new ctr - 0.5 * new w, x1' = new ctr + 0.5 * new w - 1; y likewise. Each
//   corner is clipped to [0, image_width - 1] (x) or [0, image_height - 1] (y); im_info's scale is
//   not used.
// - min_size: a box with x1' - x0' + 1 < min_size or y1' - y0' + 1 < min_size is not removed but
//   has its score multiplied by 0 (the spec says "removes"; OpenVINO zeroes the score, so such a
//   box can still come out, with score 0, and can still suppress others in NMS).
// - Order: descending score (after that zeroing); equal scores keep the lower proposal index first
//   (the spec leaves ties undefined; OpenVINO's partial sort is not stable); NaN scores last.
// - pre_nms_count: the first min(pre_nms_count, H * W * A) proposals of that order go to NMS.
// - NMS: greedy in that order with IoU computed WITHOUT the +1 (OpenVINO calls it with offset 0):
//   areas (x1 - x0) * (y1 - y0); a later box is dropped when it touches the kept one (x0 <= x1' and
//   y0 <= y1' both ways) and IoU > nms_threshold; two zero-area boxes give 0 / 0, never above. NMS
//   stops at post_nms_count kept boxes.
// - Output: the kept boxes in NMS order with their scores; rows after them are zeros (the spec's
//   "filled with zeroes").
// - A dropped box stays dropped, as in OpenVINO's CPU plugin (what users run). OpenVINO's template
//   reference overwrites a box's "dead" flag at each later kept box, which can revive a box an
//   earlier kept box suppressed; its published test vectors do not reach that case.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <type_traits>

#include "engine/op.hpp"
#include "kernels/detail/eltwise.hpp"
#include "kernels/detail/float_dispatch.hpp"
#include "kernels/detail/proposals.hpp"

namespace irlite {
namespace {

constexpr size_t kImInfo = 0, kAnchors = 1, kDeltas = 2, kScores = 3;

struct ProposalsAttrs : OpAttrs {
    double min_size = 0, nms_threshold = 0;
    int64_t pre_nms_count = 0, post_nms_count = 0;
};

std::unique_ptr<OpAttrs> parse(const AttrReader& r) {
    auto a = std::make_unique<ProposalsAttrs>();
    a->min_size = detail::non_negative_attr(r, "min_size");
    a->nms_threshold = detail::non_negative_attr(r, "nms_threshold");
    a->pre_nms_count = r.get_i64("pre_nms_count");
    if (a->pre_nms_count < 0)
        throw Error(ErrorKind::Attribute, "attribute-invalid",
                    str("attribute 'pre_nms_count' = ", a->pre_nms_count,
                        ": it must be a non-negative integer (allowed [0, 9223372036854775807])"));
    a->post_nms_count = r.get_i64("post_nms_count");
    if (a->post_nms_count < 0 || a->post_nms_count > (int64_t{1} << 31) - 1)
        throw Error(ErrorKind::Attribute, "attribute-invalid",
                    str("attribute 'post_nms_count' = ", a->post_nms_count,
                        ": it must be a non-negative integer (allowed [0, 2147483647])"));
    return a;
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    const auto& a = ctx.attrs<ProposalsAttrs>();
    const ElementType type = ctx.type(kImInfo);
    if (!is_storable_float(type))
        throw ctx.input_error(kImInfo, ErrorKind::Type, "element-type-unsupported",
                              str("im_info must be a floating-point tensor (f16, bf16, f32, f64), got ", to_string(type)));
    for (size_t i = 1; i < ctx.num_inputs(); ++i)
        if (ctx.type(i) != type)
            throw ctx.input_error(i, ErrorKind::Type, "element-type-mismatch",
                                  str(ctx.def().input_role(i), " is ", to_string(ctx.type(i)), " but im_info is ",
                                      to_string(type), ": every input has the same type"));
    detail::require_rank_exactly(ctx, kImInfo, 1, "[3] (image_height, image_width, scale)");
    detail::require_rank_exactly(ctx, kAnchors, 2, "[height * width * number_of_channels, 4]");
    detail::require_rank_exactly(ctx, kDeltas, 3, "[number_of_channels * 4, height, width]");
    detail::require_rank_exactly(ctx, kScores, 3, "[number_of_channels, height, width]");
    const PartialShape& info = ctx.shape(kImInfo);
    if (info.rank_known() && !dims_compatible(info[0], 3))
        throw ctx.input_error(kImInfo, ErrorKind::ShapeRule, "shape-invalid",
                              str("im_info must be [3] (image_height, image_width, scale), got ", to_string(info)));
    const PartialShape& anchors = ctx.shape(kAnchors);
    if (anchors.rank_known() && !dims_compatible(anchors[1], 4))
        throw ctx.input_error(kAnchors, ErrorKind::ShapeRule, "shape-invalid",
                              str("anchors must be [height * width * number_of_channels, 4], got ", to_string(anchors)));
    const PartialShape& deltas = ctx.shape(kDeltas);
    const PartialShape& scores = ctx.shape(kScores);
    int64_t h = kDynamic, w = kDynamic, chans = kDynamic;
    size_t h_from = kScores, w_from = kScores, chans_from = kScores;
    if (scores.rank_known()) {
        detail::merge_dim(ctx, kScores, scores[0], "number_of_channels", chans, chans_from);
        detail::merge_dim(ctx, kScores, scores[1], "height", h, h_from);
        detail::merge_dim(ctx, kScores, scores[2], "width", w, w_from);
    }
    if (deltas.rank_known()) {
        if (deltas[0] != kDynamic && deltas[0] % 4 != 0)
            throw ctx.input_error(kDeltas, ErrorKind::ShapeRule, "shape-invalid",
                                  str("deltas must be [number_of_channels * 4, height, width]: its first dim ", deltas[0],
                                      " is not a multiple of 4"));
        detail::merge_dim(ctx, kDeltas, deltas[0] == kDynamic ? kDynamic : deltas[0] / 4, "number_of_channels", chans, chans_from);
        detail::merge_dim(ctx, kDeltas, deltas[1], "height", h, h_from);
        detail::merge_dim(ctx, kDeltas, deltas[2], "width", w, w_from);
    }
    if (anchors.rank_known() && anchors[0] != kDynamic && h != kDynamic && w != kDynamic && chans != kDynamic &&
        anchors[0] != h * w * chans)
        throw ctx.input_error(kAnchors, ErrorKind::ShapeRule, "shape-mismatch",
                              str("anchors has ", anchors[0], " rows but the feature map has height * width * channels = ",
                                  h, " * ", w, " * ", chans, " = ", h * w * chans, " anchors"));
    const int64_t rows = a.post_nms_count;
    return {{type, PartialShape({rows, 4})}, {type, PartialShape({rows})}};
}

struct ProposalsPlan : OpPlan {
    int64_t chans = 0, height = 0, width = 0, count = 0, pre = 0, post = 0, kept_cap = 0;
    size_t order_at = 0, kept_at = 0, dead_at = 0;  // scratch layout (bytes): proposals, order, kept, dead
};

template <class C>
size_t proposal_bytes(int64_t n) {
    return static_cast<size_t>(n) * sizeof(detail::Proposal<C>);
}

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    infer(ctx);
    const auto& a = ctx.attrs<ProposalsAttrs>();
    auto plan = std::make_unique<ProposalsPlan>();
    const PartialShape& scores = ctx.shape(kScores);
    plan->chans = scores[0];
    plan->height = scores[1];
    plan->width = scores[2];
    plan->count = plan->chans * plan->height * plan->width;
    plan->pre = std::min(plan->count, a.pre_nms_count);
    plan->post = a.post_nms_count;
    plan->kept_cap = std::min(plan->pre, plan->post);
    const size_t box = ctx.type(kImInfo) == ElementType::f64 ? proposal_bytes<double>(plan->count) : proposal_bytes<float>(plan->count);
    plan->order_at = (box + 7) / 8 * 8;
    plan->kept_at = plan->order_at + static_cast<size_t>(plan->count) * sizeof(int64_t);
    plan->dead_at = plan->kept_at + static_cast<size_t>(plan->kept_cap) * sizeof(int64_t);
    plan->scratch_bytes = plan->dead_at + static_cast<size_t>(plan->pre);
    plan->method = "detectron-proposals";
    return plan;
}

template <class T>
void propose(KernelContext& ctx, const ProposalsPlan& plan) {
    using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
    const auto& a = ctx.attrs<ProposalsAttrs>();
    const T* info = ctx.input(kImInfo).data<T>();
    const T* anchors = ctx.input(kAnchors).data<T>();
    const T* deltas = ctx.input(kDeltas).data<T>();
    const T* scores = ctx.input(kScores).data<T>();
    auto* scratch = static_cast<std::byte*>(ctx.scratch());
    auto* props = reinterpret_cast<detail::Proposal<C>*>(scratch);
    auto* order = reinterpret_cast<int64_t*>(scratch + plan.order_at);
    auto* kept = reinterpret_cast<int64_t*>(scratch + plan.kept_at);
    auto* dead = reinterpret_cast<uint8_t*>(scratch + plan.dead_at);

    const C img_h = detail::to_compute<C>(info[0]), img_w = detail::to_compute<C>(info[1]);
    const C min_size = static_cast<C>(a.min_size);
    const int64_t A = plan.chans, H = plan.height, W = plan.width, area = H * W;
    for (int64_t h = 0; h < H; ++h)
        for (int64_t w = 0; w < W; ++w)
            for (int64_t k = 0; k < A; ++k) {
                const int64_t p = (h * W + w) * A + k;
                C anchor[4], delta[4];
                for (int j = 0; j < 4; ++j) {
                    anchor[j] = detail::to_compute<C>(anchors[p * 4 + j]);
                    delta[j] = detail::to_compute<C>(deltas[(k * 4 + j) * area + h * W + w]);
                }
                const bool big_enough =
                    detail::decode_proposal<C>(anchor, delta, img_h, img_w, min_size, min_size, C(1), props[p]);
                // OpenVINO multiplies the score by the min_size test (0 or 1): -0 or NaN stay so.
                props[p].score = (big_enough ? C(1) : C(0)) * detail::to_compute<C>(scores[k * area + h * W + w]);
            }
    std::iota(order, order + plan.count, int64_t{0});
    std::partial_sort(order, order + plan.pre, order + plan.count,
                      [&](int64_t i, int64_t j) { return detail::ranks_before(props, i, j); });
    std::fill(dead, dead + plan.pre, uint8_t{0});
    const int64_t n = detail::greedy_nms<C>(props, order, plan.pre, dead, static_cast<C>(a.nms_threshold), C(0),
                                            plan.kept_cap, kept);

    const bool want_rois = ctx.output_needed(0), want_scores = ctx.num_outputs() > 1 && ctx.output_needed(1);
    T* out_rois = want_rois ? ctx.output(0).data<T>() : nullptr;
    T* out_scores = want_scores ? ctx.output(1).data<T>() : nullptr;
    for (int64_t i = 0; i < plan.post; ++i) {
        const detail::Proposal<C>* p = i < n ? &props[kept[i]] : nullptr;
        if (out_rois) {
            out_rois[i * 4] = detail::from_compute<T>(p ? p->x0 : C(0));
            out_rois[i * 4 + 1] = detail::from_compute<T>(p ? p->y0 : C(0));
            out_rois[i * 4 + 2] = detail::from_compute<T>(p ? p->x1 : C(0));
            out_rois[i * 4 + 3] = detail::from_compute<T>(p ? p->y1 : C(0));
        }
        if (out_scores) out_scores[i] = detail::from_compute<T>(p ? p->score : C(0));
    }
}

void compute(KernelContext& ctx) {
    const auto& plan = ctx.plan<ProposalsPlan>();
    IRLITE_CHECK(ctx.output(0).num_elements() == plan.post * 4 &&
                     ctx.input(kScores).num_elements() == plan.count &&
                     ctx.input(kDeltas).num_elements() == plan.count * 4 &&
                     ctx.input(kAnchors).num_elements() == plan.count * 4 && ctx.input(kImInfo).num_elements() == 3,
                 ErrorKind::ShapeRule, "kernel-output-mismatch", "the inputs or outputs disagree with the plan");
    detail::dispatch_storable_float(ctx.input(kImInfo).type(), [&](auto tag) {
        using T = decltype(tag);
        propose<T>(ctx, plan);
    });
}

}  // namespace

OpDef make_experimental_detectron_generate_proposals_op() {
    OpDef d;
    d.type = "ExperimentalDetectronGenerateProposalsSingleImage";
    d.version = 6;
    d.first_opset = 6;
    d.last_opset = kLatestOpset;
    d.input_roles = {"im_info", "anchors", "deltas", "scores"};
    d.min_inputs = 4;
    d.num_outputs = 2;
    d.parse_attrs = parse;
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace irlite
