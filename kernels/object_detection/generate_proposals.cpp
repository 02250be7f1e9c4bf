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
#include <cmath>
#include <cstring>
#include <numeric>
#include <type_traits>

#include "engine/op.hpp"
#include "kernels/detail/eltwise.hpp"
#include "kernels/detail/float_dispatch.hpp"
#include "kernels/detail/proposals.hpp"

namespace irlite {
namespace {

constexpr size_t kImInfo = 0, kAnchors = 1, kDeltas = 2, kScores = 3;

struct GenerateProposalsAttrs : OpAttrs {
    double min_size = 0, nms_threshold = 0, nms_eta = 1;
    int64_t pre_nms_count = 0, post_nms_count = 0;
    bool normalized = true;
    ElementType roi_num_type = ElementType::i64;
};

std::unique_ptr<OpAttrs> parse(const AttrReader& r) {
    auto a = std::make_unique<GenerateProposalsAttrs>();
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
    const ElementType type = ctx.type(kImInfo);
    if (!is_storable_float(type))
        throw ctx.input_error(kImInfo, ErrorKind::Type, "element-type-unsupported",
                              str("im_info must be a floating-point tensor (f16, bf16, f32, f64), got ", to_string(type)));
    for (size_t i = 1; i < ctx.num_inputs(); ++i)
        if (ctx.type(i) != type)
            throw ctx.input_error(i, ErrorKind::Type, "element-type-mismatch",
                                  str(ctx.def().input_role(i), " is ", to_string(ctx.type(i)), " but im_info is ",
                                      to_string(type), ": every input has the same type"));
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
    const PartialShape& deltas = ctx.shape(kDeltas);
    const PartialShape& scores = ctx.shape(kScores);
    int64_t n = kDynamic, anchors_per_cell = kDynamic, h = kDynamic, w = kDynamic;
    size_t n_from = kImInfo, a_from = kScores, h_from = kScores, w_from = kScores;
    if (info.rank_known()) detail::merge_dim(ctx, kImInfo, info[0], "num_batches", n, n_from);
    if (scores.rank_known()) {
        detail::merge_dim(ctx, kScores, scores[0], "num_batches", n, n_from);
        detail::merge_dim(ctx, kScores, scores[1], "number_of_anchors", anchors_per_cell, a_from);
        detail::merge_dim(ctx, kScores, scores[2], "height", h, h_from);
        detail::merge_dim(ctx, kScores, scores[3], "width", w, w_from);
    }
    if (deltas.rank_known()) {
        if (deltas[1] != kDynamic && deltas[1] % 4 != 0)
            throw ctx.input_error(kDeltas, ErrorKind::ShapeRule, "shape-invalid",
                                  str("deltas must be [num_batches, number_of_anchors * 4, height, width]: its second dim ",
                                      deltas[1], " is not a multiple of 4"));
        detail::merge_dim(ctx, kDeltas, deltas[0], "num_batches", n, n_from);
        detail::merge_dim(ctx, kDeltas, deltas[1] == kDynamic ? kDynamic : deltas[1] / 4, "number_of_anchors", anchors_per_cell, a_from);
        detail::merge_dim(ctx, kDeltas, deltas[2], "height", h, h_from);
        detail::merge_dim(ctx, kDeltas, deltas[3], "width", w, w_from);
    }
    if (anchors.rank_known()) {
        detail::merge_dim(ctx, kAnchors, anchors[0], "height", h, h_from);
        detail::merge_dim(ctx, kAnchors, anchors[1], "width", w, w_from);
        detail::merge_dim(ctx, kAnchors, anchors[2], "number_of_anchors", anchors_per_cell, a_from);
    }
    return {{type, PartialShape({kDynamic, 4})}, {type, PartialShape({kDynamic})}, {a.roi_num_type, PartialShape({n})}};
}

struct GenerateProposalsPlan : OpPlan {
    int64_t batch = 0, chans = 0, height = 0, width = 0, count = 0, pre = 0, kept_cap = 0, info_len = 3;
    // Scratch layout (bytes): proposals of one image, their order, kept indices, keep flags (per
    // proposal), dead flags (per ranked proposal), then every image's kept proposals and counts.
    size_t order_at = 0, kept_at = 0, results_at = 0, counts_at = 0, keep_at = 0, dead_at = 0;
};

template <class C>
void lay_out(GenerateProposalsPlan& plan) {
    const auto round8 = [](size_t b) { return (b + 7) / 8 * 8; };
    const auto count = static_cast<size_t>(plan.count);
    const size_t box = sizeof(detail::Proposal<C>);
    plan.order_at = round8(count * box);
    plan.kept_at = plan.order_at + count * sizeof(int64_t);
    plan.results_at = round8(plan.kept_at + static_cast<size_t>(plan.kept_cap) * sizeof(int64_t));
    plan.counts_at = round8(plan.results_at + static_cast<size_t>(plan.batch * plan.kept_cap) * box);
    plan.keep_at = plan.counts_at + static_cast<size_t>(plan.batch) * sizeof(int64_t);
    plan.dead_at = plan.keep_at + count;
    plan.scratch_bytes = plan.dead_at + static_cast<size_t>(plan.pre);
}

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    infer(ctx);
    const auto& a = ctx.attrs<GenerateProposalsAttrs>();
    auto plan = std::make_unique<GenerateProposalsPlan>();
    const PartialShape& scores = ctx.shape(kScores);
    plan->batch = scores[0];
    plan->chans = scores[1];
    plan->height = scores[2];
    plan->width = scores[3];
    plan->info_len = ctx.shape(kImInfo)[1];
    plan->count = plan->chans * plan->height * plan->width;
    plan->pre = std::min(plan->count, a.pre_nms_count);
    plan->kept_cap = std::min(plan->pre, a.post_nms_count);
    if (ctx.type(kImInfo) == ElementType::f64) lay_out<double>(*plan);
    else lay_out<float>(*plan);
    plan->method = "generate-proposals";
    return plan;
}

template <class T>
void propose(KernelContext& ctx, const GenerateProposalsPlan& plan) {
    using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
    using Box = detail::Proposal<C>;
    const auto& a = ctx.attrs<GenerateProposalsAttrs>();
    const T* info = ctx.input(kImInfo).data<T>();
    const T* anchors = ctx.input(kAnchors).data<T>();
    const T* deltas = ctx.input(kDeltas).data<T>();
    const T* scores = ctx.input(kScores).data<T>();
    auto* scratch = static_cast<std::byte*>(ctx.scratch());
    auto* props = reinterpret_cast<Box*>(scratch);
    auto* order = reinterpret_cast<int64_t*>(scratch + plan.order_at);
    auto* kept = reinterpret_cast<int64_t*>(scratch + plan.kept_at);
    auto* results = reinterpret_cast<Box*>(scratch + plan.results_at);
    auto* counts = reinterpret_cast<int64_t*>(scratch + plan.counts_at);
    auto* keep = reinterpret_cast<uint8_t*>(scratch + plan.keep_at);
    auto* dead = reinterpret_cast<uint8_t*>(scratch + plan.dead_at);

    const C offset = a.normalized ? C(0) : C(1);
    const C min_size = static_cast<C>(a.min_size), threshold = static_cast<C>(a.nms_threshold);
    const int64_t A = plan.chans, H = plan.height, W = plan.width, area = H * W;
    int64_t total = 0;
    for (int64_t b = 0; b < plan.batch; ++b) {
        const T* im = info + b * plan.info_len;
        const C img_h = detail::to_compute<C>(im[0]), img_w = detail::to_compute<C>(im[1]);
        const C scale_h = detail::to_compute<C>(im[2]), scale_w = detail::to_compute<C>(im[plan.info_len == 4 ? 3 : 2]);
        const C min_h = min_size * scale_h, min_w = min_size * scale_w;
        const T* d = deltas + b * A * 4 * area;
        const T* s = scores + b * A * area;
        for (int64_t h = 0; h < H; ++h)
            for (int64_t w = 0; w < W; ++w)
                for (int64_t k = 0; k < A; ++k) {
                    const int64_t p = (h * W + w) * A + k;
                    C anchor[4], delta[4];
                    for (int j = 0; j < 4; ++j) {
                        anchor[j] = detail::to_compute<C>(anchors[p * 4 + j]);
                        delta[j] = detail::to_compute<C>(d[(k * 4 + j) * area + h * W + w]);
                    }
                    keep[p] = detail::decode_proposal<C>(anchor, delta, img_h, img_w, min_h, min_w, offset, props[p]) ? 1 : 0;
                    props[p].score = detail::to_compute<C>(s[k * area + h * W + w]);
                }
        std::iota(order, order + plan.count, int64_t{0});
        std::partial_sort(order, order + plan.pre, order + plan.count,
                          [&](int64_t i, int64_t j) { return detail::ranks_before(props, i, j); });
        for (int64_t i = 0; i < plan.pre; ++i) dead[i] = keep[order[i]] ? 0 : 1;
        const int64_t n = detail::greedy_nms<C>(props, order, plan.pre, dead, threshold, offset, plan.kept_cap, kept);
        for (int64_t i = 0; i < n; ++i) results[total + i] = props[kept[i]];
        counts[b] = n;
        total += n;
    }

    Tensor rois(ctx.input(kImInfo).type(), Shape{total, 4});
    Tensor roi_scores(ctx.input(kImInfo).type(), Shape{total});
    Tensor num(a.roi_num_type, Shape{plan.batch});
    T* out_rois = rois.data<T>();
    T* out_scores = roi_scores.data<T>();
    for (int64_t i = 0; i < total; ++i) {
        out_rois[i * 4] = detail::from_compute<T>(results[i].x0);
        out_rois[i * 4 + 1] = detail::from_compute<T>(results[i].y0);
        out_rois[i * 4 + 2] = detail::from_compute<T>(results[i].x1);
        out_rois[i * 4 + 3] = detail::from_compute<T>(results[i].y1);
        out_scores[i] = detail::from_compute<T>(results[i].score);
    }
    for (int64_t b = 0; b < plan.batch; ++b) {
        if (a.roi_num_type == ElementType::i32) num.data<int32_t>()[b] = static_cast<int32_t>(counts[b]);
        else num.data<int64_t>()[b] = counts[b];
    }
    ctx.output(0) = std::move(rois);
    if (ctx.num_outputs() > 1) ctx.output(1) = std::move(roi_scores);
    if (ctx.num_outputs() > 2) ctx.output(2) = std::move(num);
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
    d.parse_attrs = parse;
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace irlite
