#include "kernels/detail/proposals.hpp"

#include <string>

namespace irlite::detail {

namespace {

// Attributes: a finite number >= 0 (min_size, nms_threshold).
double non_negative_attr(const AttrReader& r, const char* name) {
    const double v = r.get_f64(name);
    if (!(v >= 0) || std::isinf(v))
        throw Error(ErrorKind::Attribute, "attribute-invalid",
                    str("attribute '", name, "' = ", v, ": it must be a non-negative number (allowed [0, inf))"));
    return v;
}

size_t round_up8(size_t bytes) { return (bytes + 7) / 8 * 8; }

}  // namespace

void parse_proposal_attrs(const AttrReader& r, ProposalAttrs& a) {
    a.min_size = non_negative_attr(r, "min_size");
    a.nms_threshold = non_negative_attr(r, "nms_threshold");
    a.pre_nms_count = r.get_i64("pre_nms_count");
    if (a.pre_nms_count < 0)
        throw Error(ErrorKind::Attribute, "attribute-invalid",
                    str("attribute 'pre_nms_count' = ", a.pre_nms_count,
                        ": it must be a non-negative integer (allowed [0, 9223372036854775807])"));
    a.post_nms_count = r.get_i64("post_nms_count");
    if (a.post_nms_count < 0 || a.post_nms_count > (int64_t{1} << 31) - 1)
        throw Error(ErrorKind::Attribute, "attribute-invalid",
                    str("attribute 'post_nms_count' = ", a.post_nms_count,
                        ": it must be a non-negative integer (allowed [0, 2147483647])"));
}

void merge_dim(const InferContext& ctx, size_t port, int64_t d, const char* what, int64_t& into, size_t& from) {
    if (d == kDynamic) return;
    if (into != kDynamic && into != d)
        throw ctx.input_error(port, ErrorKind::ShapeRule, "shape-mismatch",
                              str(ctx.def().input_role(port), " gives ", what, " = ", d, " but ",
                                  ctx.def().input_role(from), " gives ", into, ": ", to_string(ctx.shape(port)), " vs ",
                                  to_string(ctx.shape(from))));
    if (into == kDynamic) from = port;  // the first port that gave it
    into = d;
}

void require_rank_exactly(const InferContext& ctx, size_t port, size_t rank, const char* layout) {
    const PartialShape& s = ctx.shape(port);
    if (s.rank_known() && s.rank() != rank)
        throw ctx.input_error(port, ErrorKind::ShapeRule, "rank-invalid",
                              str(ctx.def().input_role(port), " must be ", rank, "-D ", layout, ", got ", to_string(s)));
}

void merge_scores_and_deltas(const InferContext& ctx, bool batched, const char* anchors_name, FeatureMapDims& dims) {
    const size_t lead = batched ? 1 : 0;  // the index of A (scores) or A * 4 (deltas)
    const PartialShape& scores = ctx.shape(kProposalScores);
    const PartialShape& deltas = ctx.shape(kProposalDeltas);
    if (scores.rank_known()) {
        if (batched) merge_dim(ctx, kProposalScores, scores[0], "num_batches", dims.batch, dims.batch_from);
        merge_dim(ctx, kProposalScores, scores[lead], anchors_name, dims.anchors, dims.anchors_from);
        merge_dim(ctx, kProposalScores, scores[lead + 1], "height", dims.height, dims.height_from);
        merge_dim(ctx, kProposalScores, scores[lead + 2], "width", dims.width, dims.width_from);
    }
    if (deltas.rank_known()) {
        const int64_t four_a = deltas[lead];
        if (four_a != kDynamic && four_a % 4 != 0)
            throw ctx.input_error(kProposalDeltas, ErrorKind::ShapeRule, "shape-invalid",
                                  str("deltas must be [", batched ? "num_batches, " : "", anchors_name,
                                      " * 4, height, width]: its ", batched ? "second" : "first", " dim ", four_a,
                                      " is not a multiple of 4"));
        if (batched) merge_dim(ctx, kProposalDeltas, deltas[0], "num_batches", dims.batch, dims.batch_from);
        merge_dim(ctx, kProposalDeltas, four_a == kDynamic ? kDynamic : four_a / 4, anchors_name, dims.anchors,
                  dims.anchors_from);
        merge_dim(ctx, kProposalDeltas, deltas[lead + 1], "height", dims.height, dims.height_from);
        merge_dim(ctx, kProposalDeltas, deltas[lead + 2], "width", dims.width, dims.width_from);
    }
}

void plan_proposals(ProposalsPlanBase& plan, ElementType type, int64_t chans, int64_t height, int64_t width,
                    const ProposalAttrs& a) {
    plan.chans = chans;
    plan.height = height;
    plan.width = width;
    plan.count = chans * height * width;
    plan.pre = std::min(plan.count, a.pre_nms_count);
    plan.kept_cap = std::min(plan.pre, a.post_nms_count);
    const size_t box = type == ElementType::f64 ? sizeof(Proposal<double>) : sizeof(Proposal<float>);
    const auto count = static_cast<size_t>(plan.count);
    ProposalScratch& l = plan.layout;
    l.order_at = round_up8(count * box);
    l.kept_at = l.order_at + count * sizeof(int64_t);
    l.keep_at = l.kept_at + static_cast<size_t>(plan.kept_cap) * sizeof(int64_t);
    l.dead_at = l.keep_at + count;
    l.end = l.dead_at + static_cast<size_t>(plan.pre);
    plan.scratch_bytes = l.end;
}

}  // namespace irlite::detail
