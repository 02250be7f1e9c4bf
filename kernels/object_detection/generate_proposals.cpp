// GenerateProposals-9 (opset9+): region proposals for every image of a batch (Detectron2 /
// PaddlePaddle's generate_proposals): anchors moved by the predicted deltas and clipped to the image,
// the best pre_nms_count, the too small dropped, NMS, at most post_nms_count per image; the images'
// proposals concatenated.
// Inputs (every one of the same floating-point type T: f16, bf16, f32, f64): 0 'im_info' [N, 3]
// (image_height, image_width, scale) or [N, 4] (image_height, image_width, scale_height,
// scale_width); 1 'anchors' [H, W, A, 4] (x0, y0, x1, y1), shared by the images; 2 'deltas'
// [N, A * 4, H, W], channel a * 4 + k holding dx, dy, d_log_w, d_log_h of anchor a; 3 'scores'
// [N, A, H, W].
// Attributes: min_size (required, >= 0), nms_threshold (required, >= 0), pre_nms_count (required,
// >= 0), post_nms_count (required, 0 to 2^31 - 1; OpenVINO's CPU plugin holds it in an int),
// normalized (default true), nms_eta (default 1, in [0, 1]), roi_num_type (i32 or i64, default i64).
// Outputs: 0 'rois' [num_rois, 4] (T), 1 'scores' [num_rois] (T), 2 'roisnum' [N] (roi_num_type):
// num_rois is the total of roisnum, a dim made at run time (dynamic in the shape rule, as
// NonZero-3 and NonMaxSuppression-5 make theirs; OpenVINO bounds it by N * post_nms_count).
//
// What OpenVINO computes (its reference and CPU plugin agree), which irlite matches, in f32 for
// f16/bf16/f32 inputs (f64: in double; OpenVINO has no f64 kernel), for each image:
// - offset = 0 when normalized, 1 otherwise. Decoding: w = x1 - x0 + offset, ctr = x0 + 0.5 * w,
//   new ctr = dx * w + ctr, new w = exp(min(d_log_w, log(1000 / 16))) * w (Detectron's cap),
//   x0' = new ctr - 0.5 * new w, x1' = new ctr + 0.5 * new w - offset; y likewise; corners clipped
//   to [0, image_width - offset] (x) and [0, image_height - offset] (y).
// - Order: descending score; equal scores keep the lower proposal index first (the spec leaves ties
//   undefined; OpenVINO's partial sort is not stable); NaN scores last. Proposal p = (h * W + w) *
//   A + a.
// - pre_nms_count: the first min(pre_nms_count, H * W * A) of that order go on; of them, a box with
//   x1' - x0' + offset < min_size * scale_width or y1' - y0' + offset < min_size * scale_height is
//   removed (the scales from im_info: the spec does not say min_size is scaled; OpenVINO scales it).
//   Removed boxes still counted toward pre_nms_count (the spec's order: top-n, then min_size).
// - NMS: greedy in that order, areas and intersections with the same offset; a later box is
//   dropped when it touches the kept one (x0 <= x1' and y0 <= y1' both ways) and IoU >
//   nms_threshold (two zero-area boxes: 0 / 0, never above); a dropped box stays dropped; at most
//   post_nms_count kept.
// - nms_eta is read and checked but, as in OpenVINO (reference and CPU plugin), has no effect: the
//   threshold stays nms_threshold (the spec's adaptive threshold is not applied).
// - Output: each image's kept boxes in NMS order with their (unchanged) scores, image after image;
//   no padding rows. roisnum[n] is image n's count.
#include <algorithm>
#include <cstring>

#include "engine/op.hpp"
#include "kernels/detail/float_dispatch.hpp"
#include "kernels/detail/nn_common.hpp"
#include "kernels/detail/proposals.hpp"

namespace irlite {
namespace {

constexpr size_t kImInfo = detail::kProposalImInfo, kAnchors = detail::kProposalAnchors,
                 kDeltas = detail::kProposalDeltas, kScores = detail::kProposalScores;

struct GenerateProposalsAttrs : detail::ProposalAttrs {
    double nms_eta = 1;
    bool normalized = true;
    ElementType roi_num_type = ElementType::i64;
};

std::unique_ptr<OpAttrs> parse(const AttrReader& r) {
    auto a = std::make_unique<GenerateProposalsAttrs>();
    detail::parse_proposal_attrs(r, *a);
    a->normalized = r.get_bool("normalized", true);
    a->nms_eta = r.get_f64("nms_eta", 1.0);
    if (!(a->nms_eta >= 0 && a->nms_eta <= 1))
        throw Error(ErrorKind::Attribute, "attribute-invalid",
                    str("attribute 'nms_eta' = ", a->nms_eta, ": it must be a number in [0, 1] (allowed [0, 1])"));
    const std::string t = r.get_string("roi_num_type", "i64");
    if (t == "i32" || t == "I32") a->roi_num_type = ElementType::i32;
    else if (t != "i64" && t != "I64")
        throw Error(ErrorKind::Attribute, "attribute-invalid",
                    str("attribute 'roi_num_type' = ", t, ": it must be an integer type of the counts (allowed i32, i64)"));
    return a;
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    const auto& a = ctx.attrs<GenerateProposalsAttrs>();
    const ElementType type = nn::require_one_storable_float_type(ctx);
    detail::require_rank_exactly(ctx, kImInfo, 2, "[num_batches, 3 or 4]");
    detail::require_rank_exactly(ctx, kAnchors, 4, "[height, width, number_of_anchors, 4]");
    detail::require_rank_exactly(ctx, kDeltas, 4, "[num_batches, number_of_anchors * 4, height, width]");
    detail::require_rank_exactly(ctx, kScores, 4, "[num_batches, number_of_anchors, height, width]");
    const PartialShape& info = ctx.shape(kImInfo);
    if (info.rank_known() && info[1] != kDynamic && info[1] != 3 && info[1] != 4)
        throw ctx.input_error(kImInfo, ErrorKind::ShapeRule, "shape-invalid",
                              str("im_info must be [num_batches, 3] (image_height, image_width, scale) or [num_batches, 4] "
                                  "(image_height, image_width, scale_height, scale_width), got ",
                                  to_string(info)));
    const PartialShape& anchors = ctx.shape(kAnchors);
    if (anchors.rank_known() && !dims_compatible(anchors[3], 4))
        throw ctx.input_error(kAnchors, ErrorKind::ShapeRule, "shape-invalid",
                              str("anchors must be [height, width, number_of_anchors, 4], got ", to_string(anchors)));
    detail::FeatureMapDims dims;
    if (info.rank_known()) detail::merge_dim(ctx, kImInfo, info[0], "num_batches", dims.batch, dims.batch_from);
    detail::merge_scores_and_deltas(ctx, true, "number_of_anchors", dims);
    if (anchors.rank_known()) {
        detail::merge_dim(ctx, kAnchors, anchors[0], "height", dims.height, dims.height_from);
        detail::merge_dim(ctx, kAnchors, anchors[1], "width", dims.width, dims.width_from);
        detail::merge_dim(ctx, kAnchors, anchors[2], "number_of_anchors", dims.anchors, dims.anchors_from);
    }
    return {{type, PartialShape({kDynamic, 4})}, {type, PartialShape({kDynamic})}, {a.roi_num_type, PartialShape({dims.batch})}};
}

// The shared plan, and after its scratch: every image's kept proposals and counts (the outputs
// are sized once all images are done).
struct GenerateProposalsPlan : detail::ProposalsPlanBase {
    int64_t batch = 0, info_len = 3;
    size_t results_at = 0, counts_at = 0;
};

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    infer(ctx);
    auto plan = std::make_unique<GenerateProposalsPlan>();
    const PartialShape& scores = ctx.shape(kScores);
    const ElementType type = ctx.type(kImInfo);
    detail::plan_proposals(*plan, type, scores[1], scores[2], scores[3], ctx.attrs<GenerateProposalsAttrs>());
    plan->batch = scores[0];
    plan->info_len = ctx.shape(kImInfo)[1];
    const size_t box = type == ElementType::f64 ? sizeof(detail::Proposal<double>) : sizeof(detail::Proposal<float>);
    const auto round8 = [](size_t b) { return (b + 7) / 8 * 8; };
    plan->results_at = round8(plan->layout.end);
    plan->counts_at = round8(plan->results_at + static_cast<size_t>(plan->batch * plan->kept_cap) * box);
    plan->scratch_bytes = plan->counts_at + static_cast<size_t>(plan->batch) * sizeof(int64_t);
    plan->method = "generate-proposals";
    return plan;
}

// Image b's bounds: its size, min_size scaled by its scales, the offset of `normalized`.
template <class T, class C>
detail::ImageBounds<C> image_bounds(const T* im, int64_t info_len, const GenerateProposalsAttrs& a) {
    const C min_size = static_cast<C>(a.min_size);
    const C scale_h = detail::to_compute<C>(im[2]), scale_w = detail::to_compute<C>(im[info_len == 4 ? 3 : 2]);
    return {detail::to_compute<C>(im[0]), detail::to_compute<C>(im[1]), min_size * scale_h, min_size * scale_w,
            a.normalized ? C(0) : C(1)};
}

template <class T>
void propose(KernelContext& ctx, const GenerateProposalsPlan& plan) {
    using C = detail::proposal_compute_t<T>;
    using Box = detail::Proposal<C>;
    const auto& a = ctx.attrs<GenerateProposalsAttrs>();
    const T* info = ctx.input(kImInfo).data<T>();
    const T* anchors = ctx.input(kAnchors).data<T>();
    const T* deltas = ctx.input(kDeltas).data<T>();
    const T* scores = ctx.input(kScores).data<T>();
    auto* scratch = static_cast<std::byte*>(ctx.scratch());
    const detail::ProposalWork<C> work = detail::proposal_work<C>(scratch, plan.layout);
    auto* results = reinterpret_cast<Box*>(scratch + plan.results_at);
    auto* counts = reinterpret_cast<int64_t*>(scratch + plan.counts_at);

    const int64_t image_count = plan.count;  // proposals (scores) per image; deltas: 4 per proposal
    int64_t total = 0;
    for (int64_t b = 0; b < plan.batch; ++b) {
        const detail::ImageBounds<C> image = image_bounds<T, C>(info + b * plan.info_len, plan.info_len, a);
        detail::decode_feature_map<T, C>(anchors, deltas + b * 4 * image_count, scores + b * image_count, plan, image,
                                         work);
        // Boxes under min_size are removed before NMS; NMS uses the decoding's offset.
        const int64_t n = detail::select_proposals<C>(plan, work, true, static_cast<C>(a.nms_threshold), image.offset);
        for (int64_t i = 0; i < n; ++i) results[total + i] = work.props[work.kept[i]];
        counts[b] = n;
        total += n;
    }

    // The outputs' memory is the request's, reused from run to run (dynamic_output).
    const ElementType type = ctx.input(kImInfo).type();
    T* out_rois = ctx.dynamic_output(0, type, {total, 4}).data<T>();
    T* out_scores = ctx.num_outputs() > 1 ? ctx.dynamic_output(1, type, {total}).data<T>() : nullptr;
    for (int64_t i = 0; i < total; ++i) {
        detail::store_roi<T, C>(&results[i], out_rois + i * 4);
        if (out_scores) out_scores[i] = detail::from_compute<T>(results[i].score);
    }
    if (ctx.num_outputs() > 2) {
        Tensor& num = ctx.dynamic_output(2, a.roi_num_type, {plan.batch});
        for (int64_t b = 0; b < plan.batch; ++b) {
            if (a.roi_num_type == ElementType::i32) num.data<int32_t>()[b] = static_cast<int32_t>(counts[b]);
            else num.data<int64_t>()[b] = counts[b];
        }
    }
}

void compute(KernelContext& ctx) {
    const auto& plan = ctx.plan<GenerateProposalsPlan>();
    IRLITE_CHECK(ctx.input(kScores).num_elements() == plan.batch * plan.count &&
                     ctx.input(kDeltas).num_elements() == plan.batch * plan.count * 4 &&
                     ctx.input(kAnchors).num_elements() == plan.count * 4 &&
                     ctx.input(kImInfo).num_elements() == plan.batch * plan.info_len,
                 ErrorKind::ShapeRule, "kernel-input-mismatch", "the inputs disagree with the plan");
    detail::dispatch_storable_float(ctx.input(kImInfo).type(), [&](auto tag) {
        using T = decltype(tag);
        propose<T>(ctx, plan);
    });
}

}  // namespace

OpDef make_generate_proposals_op() {
    OpDef d;
    d.type = "GenerateProposals";
    d.version = 9;
    d.first_opset = 9;
    d.last_opset = kLatestOpset;
    d.input_roles = {"im_info", "anchors", "deltas", "scores"};
    d.min_inputs = 4;
    d.num_outputs = 3;
    d.allocates_outputs = true;  // num_rois depends on the values
    d.data_dependent_outputs = true;
    d.parse_attrs = parse;
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace irlite
