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
#include "engine/op.hpp"
#include "kernels/detail/float_dispatch.hpp"
#include "kernels/detail/nn_common.hpp"
#include "kernels/detail/proposals.hpp"

namespace irlite {
namespace {

constexpr size_t kImInfo = detail::kProposalImInfo, kAnchors = detail::kProposalAnchors,
                 kDeltas = detail::kProposalDeltas, kScores = detail::kProposalScores;

using ProposalsAttrs = detail::ProposalAttrs;

std::unique_ptr<OpAttrs> parse(const AttrReader& r) {
    auto a = std::make_unique<ProposalsAttrs>();
    detail::parse_proposal_attrs(r, *a);
    return a;
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    const auto& a = ctx.attrs<ProposalsAttrs>();
    const ElementType type = nn::require_one_storable_float_type(ctx);
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
    detail::FeatureMapDims dims;
    detail::merge_scores_and_deltas(ctx, false, "number_of_channels", dims);
    const int64_t h = dims.height, w = dims.width, chans = dims.anchors;
    if (anchors.rank_known() && anchors[0] != kDynamic && h != kDynamic && w != kDynamic && chans != kDynamic &&
        anchors[0] != h * w * chans)
        throw ctx.input_error(kAnchors, ErrorKind::ShapeRule, "shape-mismatch",
                              str("anchors has ", anchors[0], " rows but the feature map has height * width * channels = ",
                                  h, " * ", w, " * ", chans, " = ", h * w * chans, " anchors"));
    const int64_t rows = a.post_nms_count;
    return {{type, PartialShape({rows, 4})}, {type, PartialShape({rows})}};
}

// The shared plan and the output rows (post_nms_count, kept proposals then zeros).
struct ProposalsPlan : detail::ProposalsPlanBase {
    int64_t post = 0;
};

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    infer(ctx);
    const auto& a = ctx.attrs<ProposalsAttrs>();
    auto plan = std::make_unique<ProposalsPlan>();
    const PartialShape& scores = ctx.shape(kScores);
    detail::plan_proposals(*plan, ctx.type(kImInfo), scores[0], scores[1], scores[2], a);
    plan->post = a.post_nms_count;
    plan->method = "detectron-proposals";
    return plan;
}

// OpenVINO multiplies the score by the min_size test (0 or 1) instead of removing the box: -0 or
// NaN stay so, and such a box still ranks and suppresses in NMS.
template <class C>
void zero_small_box_scores(const detail::ProposalWork<C>& work, int64_t count) {
    for (int64_t p = 0; p < count; ++p) work.props[p].score = (work.keep[p] ? C(1) : C(0)) * work.props[p].score;
}

template <class T>
void propose(KernelContext& ctx, const ProposalsPlan& plan) {
    using C = detail::proposal_compute_t<T>;
    const auto& a = ctx.attrs<ProposalsAttrs>();
    const T* info = ctx.input(kImInfo).data<T>();
    const detail::ProposalWork<C> work = detail::proposal_work<C>(ctx.scratch(), plan.layout);
    const C min_size = static_cast<C>(a.min_size);
    // Pixel-inclusive decoding (+1); im_info's scale is not used.
    const detail::ImageBounds<C> image{detail::to_compute<C>(info[0]), detail::to_compute<C>(info[1]), min_size,
                                       min_size, C(1)};
    detail::decode_feature_map<T, C>(ctx.input(kAnchors).data<T>(), ctx.input(kDeltas).data<T>(),
                                     ctx.input(kScores).data<T>(), plan, image, work);
    zero_small_box_scores(work, plan.count);
    // Nothing is removed before NMS, whose IoU is without the +1 (OpenVINO calls it with offset 0).
    const int64_t n = detail::select_proposals<C>(plan, work, false, static_cast<C>(a.nms_threshold), C(0));

    const bool want_rois = ctx.output_needed(0), want_scores = ctx.num_outputs() > 1 && ctx.output_needed(1);
    T* out_rois = want_rois ? ctx.output(0).data<T>() : nullptr;
    T* out_scores = want_scores ? ctx.output(1).data<T>() : nullptr;
    for (int64_t i = 0; i < plan.post; ++i) {
        const detail::Proposal<C>* p = i < n ? &work.props[work.kept[i]] : nullptr;
        if (out_rois) detail::store_roi<T, C>(p, out_rois + i * 4);
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
