// Region-proposal steps shared by ExperimentalDetectronGenerateProposalsSingleImage-6 and
// GenerateProposals-9 (kernels/object_detection/): anchor decoding with clipping, the rank order of
// the proposals, and Detectron's greedy NMS. The arithmetic follows what OpenVINO computes (its
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
#include <cstdint>

#include "engine/op.hpp"

namespace irlite::detail {

// Attributes: a finite number >= 0 (min_size, nms_threshold).
inline double non_negative_attr(const AttrReader& r, const char* name) {
    const double v = r.get_f64(name);
    if (!(v >= 0) || std::isinf(v))
        throw Error(ErrorKind::Attribute, "attribute-invalid",
                    str("attribute '", name, "' = ", v, ": it must be a non-negative number (allowed [0, inf))"));
    return v;
}

// Shape rules: merges a known dim d of port `port` into `into` (a dim several inputs must agree
// on, with the port it came from, for messages); throws when they disagree.
inline void merge_dim(const InferContext& ctx, size_t port, int64_t d, const char* what, int64_t& into, size_t& from) {
    if (d == kDynamic) return;
    if (into != kDynamic && into != d)
        throw ctx.input_error(port, ErrorKind::ShapeRule, "shape-mismatch",
                              str(ctx.def().input_role(port), " gives ", what, " = ", d, " but ",
                                  ctx.def().input_role(from), " gives ", into, ": ", to_string(ctx.shape(port)), " vs ",
                                  to_string(ctx.shape(from))));
    if (into == kDynamic) from = port;  // the first port that gave it
    into = d;
}

// Shape rules: port `port` has rank `rank` when its rank is known (`layout` names its dims).
inline void require_rank_exactly(const InferContext& ctx, size_t port, size_t rank, const char* layout) {
    const PartialShape& s = ctx.shape(port);
    if (s.rank_known() && s.rank() != rank)
        throw ctx.input_error(port, ErrorKind::ShapeRule, "rank-invalid",
                              str(ctx.def().input_role(port), " must be ", rank, "-D ", layout, ", got ", to_string(s)));
}

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

}  // namespace irlite::detail
