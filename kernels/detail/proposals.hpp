// The region-proposal core shared by ExperimentalDetectronGenerateProposalsSingleImage-6 and
// GenerateProposals-9 (kernels/object_detection/), which differ only in their batch dim, im_info,
// offsets, what a too small box becomes and their outputs: the common attributes, the inputs' types
// and feature-map dims, the scratch layout, anchor decoding with clipping, the rank order of the
// proposals, the pre-NMS top-k and Detectron's greedy NMS (proposals.cpp holds what is not a template). The arithmetic follows what OpenVINO computes (its
// reference and CPU plugin), operation by operation in the compute type C (float for f16, bf16 and
// f32 inputs, double for f64), so that irlite's results match OpenVINO's bit for bit in f32:
// - decoding with `offset` (1 for pixel-inclusive boxes, 0 for normalized ones): w = x1 - x0 +
//   offset, ctr = x0 + 0.5 * w, new ctr = dx * w + ctr, new w = exp(min(d_log_w, log(1000 / 16))) *
//   w, corners new ctr -/+ 0.5 * new w (minus offset for x1, y1), each clipped to [0, image - offset]
//   (a NaN corner becomes 0);
// - the box passes min_size when min_w <= x1 - x0 + offset and min_h <= y1 - y0 + offset;
// - rank: descending score, the lower proposal index first on ties, NaN scores last;
// - NMS: boxes visited in rank order; a kept box drops every later box that touches it (x0 <= x1'
//   and y0 <= y1' both ways) with IoU > threshold, areas and intersection with `offset` added to
//   each side (intersection sides raised to 0). A dropped box stays dropped (OpenVINO's CPU plugin;
//   see the ops' headers).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <type_traits>

#include "engine/op.hpp"
#include "kernels/detail/eltwise.hpp"

namespace irlite::detail {

// The inputs of both ops, in this order.
constexpr size_t kProposalImInfo = 0, kProposalAnchors = 1, kProposalDeltas = 2, kProposalScores = 3;

// The attributes both ops have, all required: min_size and nms_threshold (finite, >= 0),
// pre_nms_count (>= 0) and post_nms_count (0 to 2^31 - 1; OpenVINO's CPU plugin holds it in an int).
struct ProposalAttrs : OpAttrs {
    double min_size = 0, nms_threshold = 0;
    int64_t pre_nms_count = 0, post_nms_count = 0;
};
void parse_proposal_attrs(const AttrReader& r, ProposalAttrs& a);

// Shape rules: merges a known dim d of port `port` into `into` (a dim several inputs must agree
// on, with the port it came from, for messages); throws when they disagree.
void merge_dim(const InferContext& ctx, size_t port, int64_t d, const char* what, int64_t& into, size_t& from);

// Shape rules: port `port` has rank `rank` when its rank is known (`layout` names its dims).
void require_rank_exactly(const InferContext& ctx, size_t port, size_t rank, const char* layout);

// The feature map's dims as scores and deltas give them (kDynamic where unknown), each with the
// port it came from.
struct FeatureMapDims {
    int64_t batch = kDynamic, anchors = kDynamic, height = kDynamic, width = kDynamic;
    size_t batch_from = kProposalImInfo, anchors_from = kProposalScores, height_from = kProposalScores,
           width_from = kProposalScores;
};

// Shape rules: merges scores [(N,) A, H, W] and deltas [(N,) A * 4, H, W] into `dims` (`batched`:
// with the leading N); `anchors_name` names A in messages. Ranks are checked before.
void merge_scores_and_deltas(const InferContext& ctx, bool batched, const char* anchors_name, FeatureMapDims& dims);

template <class C>
struct Proposal {
    C x0, y0, x1, y1, score;
};

// Decodes anchor (x0, y0, x1, y1) with deltas (dx, dy, d_log_w, d_log_h) into `out` (not its
// score). Returns whether the clipped box is at least min_w wide and min_h high.
template <class C>
bool decode_proposal(const C anchor[4], const C delta[4], C img_h, C img_w, C min_h, C min_w, C offset,
                     Proposal<C>& out) {
    const C max_log = static_cast<C>(std::log(1000.0 / 16.0));
    const C half = static_cast<C>(0.5);
    const C w = anchor[2] - anchor[0] + offset, h = anchor[3] - anchor[1] + offset;
    const C cx = anchor[0] + half * w, cy = anchor[1] + half * h;
    const C new_cx = delta[0] * w + cx, new_cy = delta[1] * h + cy;
    const C new_w = std::exp(std::min(delta[2], max_log)) * w;
    const C new_h = std::exp(std::min(delta[3], max_log)) * h;
    // min then max as std::min / std::max order their arguments: a NaN corner ends as 0.
    const auto clip = [](C v, C hi) { return std::max<C>(C(0), std::min<C>(v, hi)); };
    out.x0 = clip(new_cx - half * new_w, img_w - offset);
    out.y0 = clip(new_cy - half * new_h, img_h - offset);
    out.x1 = clip(new_cx + half * new_w - offset, img_w - offset);
    out.y1 = clip(new_cy + half * new_h - offset, img_h - offset);
    const C box_w = out.x1 - out.x0 + offset, box_h = out.y1 - out.y0 + offset;
    return min_w <= box_w && min_h <= box_h;
}

// Proposal i ranks before proposal j: higher score, then lower index; NaN scores last.
template <class C>
bool ranks_before(const Proposal<C>* p, int64_t i, int64_t j) {
    const C si = p[i].score, sj = p[j].score;
    const bool nan_i = std::isnan(si), nan_j = std::isnan(sj);
    if (nan_i != nan_j) return nan_j;
    if (!nan_i && si != sj) return si > sj;
    return i < j;
}

// Greedy NMS over the first n proposals of `order` (indices into p, in rank order). dead[k] != 0
// marks order[k] as out from the start; it is updated. Writes the kept proposal indices to kept (at
// most max_out) and returns their count.
template <class C>
int64_t greedy_nms(const Proposal<C>* p, const int64_t* order, int64_t n, uint8_t* dead, C threshold, C offset,
                   int64_t max_out, int64_t* kept) {
    int64_t count = 0;
    for (int64_t i = 0; i < n && count < max_out; ++i) {
        if (dead[i]) continue;
        kept[count++] = order[i];
        if (count == max_out) break;
        const Proposal<C>& a = p[order[i]];
        const C area_a = (a.x1 - a.x0 + offset) * (a.y1 - a.y0 + offset);
        for (int64_t j = i + 1; j < n; ++j) {
            if (dead[j]) continue;
            const Proposal<C>& b = p[order[j]];
            if (!(a.x0 <= b.x1 && a.y0 <= b.y1 && b.x0 <= a.x1 && b.y0 <= a.y1)) continue;
            const C iw = std::max<C>(C(0), std::min<C>(a.x1, b.x1) - std::max<C>(a.x0, b.x0) + offset);
            const C ih = std::max<C>(C(0), std::min<C>(a.y1, b.y1) - std::max<C>(a.y0, b.y0) + offset);
            const C inter = iw * ih;
            const C area_b = (b.x1 - b.x0 + offset) * (b.y1 - b.y0 + offset);
            const C iou = inter / (area_a + area_b - inter);  // 0 / 0 (two points) is NaN: not above
            if (threshold < iou) dead[j] = 1;
        }
    }
    return count;
}

// The compute type of storage type T: float for f16, bf16 and f32, double for f64.
template <class T>
using proposal_compute_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

// Byte offsets in the scratch of one image's work: its proposals (at 0), their rank order, the
// kept indices, a min_size flag per proposal and a dead flag per ranked proposal; `end` is its size.
struct ProposalScratch {
    size_t order_at = 0, kept_at = 0, keep_at = 0, dead_at = 0, end = 0;
};

// What both plans hold: the feature map (anchors per cell, height, width), its proposal count, how
// many go to NMS (pre) and the most NMS keeps (kept_cap), and the scratch layout.
struct ProposalsPlanBase : OpPlan {
    int64_t chans = 0, height = 0, width = 0, count = 0, pre = 0, kept_cap = 0;
    ProposalScratch layout;
};

// Fills the base plan for a feature map of chans x height x width anchors of element type `type`
// (sets scratch_bytes to the layout's size: an op with more scratch adds after it).
void plan_proposals(ProposalsPlanBase& plan, ElementType type, int64_t chans, int64_t height, int64_t width,
                    const ProposalAttrs& a);

// The scratch of one image's work, in the plan's layout.
template <class C>
struct ProposalWork {
    Proposal<C>* props;
    int64_t* order;
    int64_t* kept;
    uint8_t* keep;  // per proposal: passes min_size
    uint8_t* dead;  // per ranked proposal: out of NMS
};

template <class C>
ProposalWork<C> proposal_work(void* scratch, const ProposalScratch& layout) {
    auto* bytes = static_cast<std::byte*>(scratch);
    return {reinterpret_cast<Proposal<C>*>(bytes), reinterpret_cast<int64_t*>(bytes + layout.order_at),
            reinterpret_cast<int64_t*>(bytes + layout.kept_at), reinterpret_cast<uint8_t*>(bytes + layout.keep_at),
            reinterpret_cast<uint8_t*>(bytes + layout.dead_at)};
}

// One image's clipping bounds, min_size (scaled per axis by GenerateProposals) and coordinate offset.
template <class C>
struct ImageBounds {
    C height, width, min_h, min_w, offset;
};

// Decodes every anchor of one image into work.props (score: the input's, unchanged) and sets
// work.keep to the min_size test. anchors [H, W, A, 4], deltas [A * 4, H, W] and scores [A, H, W]
// of that image; proposal p = (h * W + w) * A + a.
template <class T, class C>
void decode_feature_map(const T* anchors, const T* deltas, const T* scores, const ProposalsPlanBase& plan,
                        const ImageBounds<C>& image, const ProposalWork<C>& work) {
    const int64_t A = plan.chans, H = plan.height, W = plan.width, area = H * W;
    for (int64_t h = 0; h < H; ++h)
        for (int64_t w = 0; w < W; ++w)
            for (int64_t k = 0; k < A; ++k) {
                const int64_t p = (h * W + w) * A + k;
                C anchor[4], delta[4];
                for (int j = 0; j < 4; ++j) {
                    anchor[j] = to_compute<C>(anchors[p * 4 + j]);
                    delta[j] = to_compute<C>(deltas[(k * 4 + j) * area + h * W + w]);
                }
                work.keep[p] = decode_proposal<C>(anchor, delta, image.height, image.width, image.min_h, image.min_w,
                                                  image.offset, work.props[p])
                                   ? 1
                                   : 0;
                work.props[p].score = to_compute<C>(scores[k * area + h * W + w]);
            }
}

// Ranks one image's decoded proposals, takes the first plan.pre of that order (`drop_small`: less
// the ones that failed min_size, still counted) through greedy NMS with `nms_offset`, and returns
// how many it kept (their indices in work.kept, at most plan.kept_cap).
template <class C>
int64_t select_proposals(const ProposalsPlanBase& plan, const ProposalWork<C>& work, bool drop_small, C threshold,
                         C nms_offset) {
    std::iota(work.order, work.order + plan.count, int64_t{0});
    std::partial_sort(work.order, work.order + plan.pre, work.order + plan.count,
                      [&](int64_t i, int64_t j) { return ranks_before(work.props, i, j); });
    for (int64_t i = 0; i < plan.pre; ++i) work.dead[i] = drop_small && !work.keep[work.order[i]] ? 1 : 0;
    return greedy_nms<C>(work.props, work.order, plan.pre, work.dead, threshold, nms_offset, plan.kept_cap, work.kept);
}

// Writes box p as a row (x0, y0, x1, y1) of rois; zeros when p is null (a padding row).
template <class T, class C>
void store_roi(const Proposal<C>* p, T* roi) {
    roi[0] = from_compute<T>(p ? p->x0 : C(0));
    roi[1] = from_compute<T>(p ? p->y0 : C(0));
    roi[2] = from_compute<T>(p ? p->x1 : C(0));
    roi[3] = from_compute<T>(p ? p->y1 : C(0));
}

}  // namespace irlite::detail
