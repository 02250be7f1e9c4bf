// NonMaxSuppression-1 (opset1..2), -3 (opset3), -4 (opset4), -5 (opset5..8), -9 (opset9+).
// Inputs: 0 'boxes' [B, N, 4] (float), 1 'scores' [B, C, N] (boxes' type), then optional scalars
// (or one-element 1-D): 2 'max_output_boxes_per_class' (integer, default 0), 3 'iou_threshold',
// 4 'score_threshold' (float, default 0), and for -5/-9 5 'soft_nms_sigma' (float, default 0).
// Attributes: box_encoding = corner ([y1, x1, y2, x2], any two opposite corners; default) |
// center ([xc, yc, w, h]); sort_result_descending (default true); output_type = i64 (default) |
// i32 (-3 and later).
// Per batch and class (the spec's algorithm): repeatedly take the remaining box with the highest
// score (the lower box index on ties); keep it if its score is >= score_threshold (else stop); then
// every remaining box is dropped when its IoU with the kept one exceeds iou_threshold (hard NMS,
// soft_nms_sigma = 0) or has its score multiplied by exp(-0.5 * iou^2 / sigma) (soft NMS); at most
// max_output_boxes_per_class boxes per class.
// Output order: with sort_result_descending, every selected box by descending score (ties: batch,
// class, then selection order); otherwise by batch, class, selection order.
// -5/-9: selected_indices [n, 3] (batch, class, box) and selected_scores [n, 3] (batch, class,
// score; scores' type) with exactly n = valid_outputs rows (a dynamic dim made at run time, also
// where an older IR declares the upper bound), and valid_outputs [1].
// -1/-3/-4: selected_indices of the static upper bound [B * C * min(N, max_out), 3], rows after the
// selected ones filled with -1.
// Prepare validates the inputs and sizes scratch for every work list (the batch's decoded boxes,
// a class's candidates, and the kept boxes: at most batches x classes x min(boxes,
// max_output_boxes_per_class)); compute allocates nothing: -5/-9 make their outputs with
// KernelContext::dynamic_output (data_dependent_outputs), in buffers an infer request reuses.
#include <algorithm>
#include <cmath>

#include "engine/op.hpp"
#include "kernels/detail/float_value.hpp"
#include "kernels/detail/index_values.hpp"

namespace irlite {
namespace {

constexpr size_t kBoxes = 0, kScores = 1, kMaxOut = 2, kIou = 3, kScoreThreshold = 4, kSigma = 5;

struct NmsAttrs : OpAttrs {
    int version = 5;
    bool center = false, sort_descending = true;
    ElementType output_type = ElementType::i64;
};

std::unique_ptr<OpAttrs> parse(const AttrReader& r, int version) {
    auto a = std::make_unique<NmsAttrs>();
    a->version = version;
    a->center = r.get_enum("box_encoding", {"corner", "center"}, "corner") == "center";
    a->sort_descending = r.get_bool("sort_result_descending", true);
    if (version >= 3) {
        const std::string t = r.get_string("output_type", "i64");
        if (t == "i32" || t == "I32") a->output_type = ElementType::i32;
        else if (t != "i64" && t != "I64")
            throw Error(ErrorKind::Attribute, "attribute-invalid", str("attribute 'output_type' = ", t, ": expected i64 or i32"));
    }
    return a;
}

bool dynamic_outputs(const NmsAttrs& a) { return a.version >= 5; }

// max_output_boxes_per_class, when known (0 when the input is absent).
std::optional<int64_t> known_max_out(const InferContext& ctx) {
    if (ctx.num_inputs() <= kMaxOut) return 0;
    const Tensor* v = ctx.value(kMaxOut);
    if (!v) return std::nullopt;
    const std::vector<int64_t> m = detail::read_index_values(*v);
    if (m.size() != 1)
        throw ctx.input_error(kMaxOut, ErrorKind::ShapeRule, "scalar-expected",
                              str("max_output_boxes_per_class must be a scalar, got shape ", to_string(v->shape())));
    return std::max<int64_t>(m[0], 0);
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    const auto& a = ctx.attrs<NmsAttrs>();
    if (!is_storable_float(ctx.type(kBoxes)))
        throw ctx.input_error(kBoxes, ErrorKind::Type, "element-type-unsupported",
                              str("boxes must be a floating-point tensor, got ", to_string(ctx.type(kBoxes))));
    if (!is_storable_float(ctx.type(kScores)))
        throw ctx.input_error(kScores, ErrorKind::Type, "element-type-unsupported",
                              str("scores must be a floating-point tensor, got ", to_string(ctx.type(kScores))));
    if (ctx.num_inputs() > kMaxOut) detail::require_index_type(ctx, kMaxOut, detail::IndexTypes::AnyInteger);
    for (size_t port = kIou; port < ctx.num_inputs(); ++port)
        if (!is_storable_float(ctx.type(port)))
            throw ctx.input_error(port, ErrorKind::Type, "element-type-unsupported",
                                  str(ctx.def().input_role(port), " must be a floating-point scalar, got ", to_string(ctx.type(port))));
    for (size_t port = kMaxOut; port < ctx.num_inputs(); ++port) {
        const PartialShape& s = ctx.shape(port);
        if (s.rank_known() && (s.rank() > 1 || (s.rank() == 1 && !dims_compatible(s[0], 1))))
            throw ctx.input_error(port, ErrorKind::ShapeRule, "scalar-expected",
                                  str(ctx.def().input_role(port), " must be a scalar, got shape ", to_string(s)));
    }
    const PartialShape& boxes = ctx.shape(kBoxes);
    const PartialShape& scores = ctx.shape(kScores);
    if (boxes.rank_known() && (boxes.rank() != 3 || !dims_compatible(boxes[2], 4)))
        throw ctx.input_error(kBoxes, ErrorKind::ShapeRule, "shape-invalid",
                              str("boxes must be [num_batches, num_boxes, 4], got ", to_string(boxes)));
    if (scores.rank_known() && scores.rank() != 3)
        throw ctx.input_error(kScores, ErrorKind::ShapeRule, "shape-invalid",
                              str("scores must be [num_batches, num_classes, num_boxes], got ", to_string(scores)));
    if (boxes.rank_known() && scores.rank_known()) {
        if (!dims_compatible(boxes[0], scores[0]))
            throw ctx.input_error(kScores, ErrorKind::ShapeRule, "shape-mismatch",
                                  str("boxes has ", boxes[0], " batches but scores has ", scores[0]));
        if (!dims_compatible(boxes[1], scores[2]))
            throw ctx.input_error(kScores, ErrorKind::ShapeRule, "shape-mismatch",
                                  str("boxes has ", boxes[1], " boxes but scores has ", scores[2]));
    }
    const std::optional<int64_t> max_out = known_max_out(ctx);
    int64_t bound = kDynamic;
    if (boxes.rank_known() && scores.rank_known() && max_out && boxes[0] != kDynamic && scores[1] != kDynamic) {
        const int64_t n = boxes[1] != kDynamic ? boxes[1] : scores[2];
        if (n != kDynamic) bound = boxes[0] * scores[1] * std::min(n, *max_out);
    }
    const ElementType idx = a.output_type;
    if (!dynamic_outputs(a)) return {{idx, PartialShape({bound, 3})}};
    const ElementType score_type = ctx.type(kScores);
    return {{idx, PartialShape({kDynamic, 3})}, {score_type, PartialShape({kDynamic, 3})}, {idx, PartialShape({1})}};
}

double scalar_input(const KernelContext& ctx, size_t port) {
    if (ctx.num_inputs() <= port) return 0.0;
    const Tensor& t = ctx.input(port);
    return t.num_elements() > 0 ? t.value_as_double(0) : 0.0;
}

struct Box {
    double y1, x1, y2, x2;
};

// A box still in the running for its class: its (possibly decayed) score and its index.
struct Candidate {
    double score;
    int64_t index;
};

// A kept box: (batch * classes + class) * boxes + box, its score, and its place in the order of
// selection (batch, class, then the order the class kept its boxes in).
struct Selected {
    int64_t flat;
    double score;
    int64_t order;
};

// What prepare fixes from the static input shapes (and max_output_boxes_per_class, a value input
// known whenever the node is planned): the sizes, and the scratch that holds every work list, so
// that compute allocates nothing. Scratch: the batch's boxes decoded ([boxes] Box), the class's
// candidates ([boxes] Candidate), then every kept box ([selected_capacity] Selected).
struct NmsPlan : OpPlan {
    int64_t batches = 0, boxes = 0, classes = 0;
    // The most boxes a class can keep: min(boxes, max_output_boxes_per_class), or boxes when that
    // value is not known here.
    int64_t max_per_class = 0;
    int64_t selected_capacity = 0;  // batches * classes * max_per_class
    size_t candidates_offset = 0, selected_offset = 0;
};

size_t aligned64(size_t bytes) { return (bytes + 63) / 64 * 64; }

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    infer(ctx);  // types and shapes, with the rule's errors
    auto plan = std::make_unique<NmsPlan>();
    const Shape boxes = ctx.shape(kBoxes).to_shape(), scores = ctx.shape(kScores).to_shape();
    plan->batches = boxes[0];
    plan->boxes = boxes[1];
    plan->classes = scores[1];
    const std::optional<int64_t> max_out = known_max_out(ctx);
    plan->max_per_class = max_out ? std::min(plan->boxes, *max_out) : plan->boxes;
    // At most one kept box per score: the product is bounded by the scores' element count.
    plan->selected_capacity = plan->batches * plan->classes * plan->max_per_class;
    const auto n = static_cast<size_t>(plan->boxes);
    plan->candidates_offset = aligned64(n * sizeof(Box));
    plan->selected_offset = plan->candidates_offset + aligned64(n * sizeof(Candidate));
    plan->scratch_bytes = plan->selected_offset + static_cast<size_t>(plan->selected_capacity) * sizeof(Selected);
    return plan;
}

double iou(const Box& a, const Box& b) {
    const double area_a = (a.y2 - a.y1) * (a.x2 - a.x1), area_b = (b.y2 - b.y1) * (b.x2 - b.x1);
    if (area_a <= 0 || area_b <= 0) return 0;
    const double ih = std::min(a.y2, b.y2) - std::max(a.y1, b.y1), iw = std::min(a.x2, b.x2) - std::max(a.x1, b.x1);
    if (ih <= 0 || iw <= 0) return 0;
    const double inter = ih * iw;
    return inter / (area_a + area_b - inter);
}

// Batch b's boxes as corners (y1 <= y2, x1 <= x2).
void decode_boxes(const Tensor& boxes, bool center, int64_t b, int64_t num, Box* box) {
    for (int64_t i = 0; i < num; ++i) {
        double v[4];
        for (int j = 0; j < 4; ++j) v[j] = boxes.value_as_double((b * num + i) * 4 + j);
        if (center) box[i] = {v[1] - v[3] / 2, v[0] - v[2] / 2, v[1] + v[3] / 2, v[0] + v[2] / 2};
        else box[i] = {std::min(v[0], v[2]), std::min(v[1], v[3]), std::max(v[0], v[2]), std::max(v[1], v[3])};
    }
}

// The remaining candidate with the highest score (the lower box index on ties): the first one no
// other beats, scanning in list order (as std::min_element does, whatever NaN scores do).
size_t best_candidate(const Candidate* c, size_t count) {
    size_t best = 0;
    for (size_t i = 1; i < count; ++i)
        if (c[i].score > c[best].score || (c[i].score == c[best].score && c[i].index < c[best].index)) best = i;
    return best;
}

struct Thresholds {
    int64_t max_out;  // max_output_boxes_per_class, >= 0
    double iou, score, sigma;
};

// One class of one batch: keeps boxes into sel (from sel[count] on) and returns the new count.
// The candidates stay in box order as boxes leave the list, so that every pick is the same as the
// spec's algorithm on a list.
int64_t select_class(const Box* box, const Tensor& scores, int64_t first_score, int64_t num, int64_t flat_base,
                     const Thresholds& t, Candidate* cand, Selected* sel, int64_t count) {
    size_t remaining = 0;
    for (int64_t i = 0; i < num; ++i) cand[remaining++] = {scores.value_as_double(first_score + i), i};
    int64_t kept = 0;
    while (kept < t.max_out && remaining > 0) {
        const size_t best = best_candidate(cand, remaining);
        const Candidate pick = cand[best];
        std::copy(cand + best + 1, cand + remaining, cand + best);
        --remaining;
        if (!(pick.score >= t.score)) break;
        sel[count] = {flat_base + pick.index, pick.score, count};
        ++count;
        ++kept;
        const Box& k = box[pick.index];
        if (t.sigma > 0) {
            for (size_t r = 0; r < remaining; ++r)
                cand[r].score *= std::exp(-0.5 * std::pow(iou(box[cand[r].index], k), 2) / t.sigma);
        } else {
            remaining = static_cast<size_t>(
                std::remove_if(cand, cand + remaining, [&](const Candidate& c) { return iou(box[c.index], k) > t.iou; }) - cand);
        }
    }
    return count;
}

// -1/-3/-4: the selected rows, then rows of -1 up to the static bound.
template <class I>
void write_padded(Tensor& out, const NmsPlan& plan, const Selected* sel, int64_t n) {
    I* o = out.data<I>();
    const int64_t rows = out.num_elements() / 3;
    for (int64_t r = 0; r < rows; ++r) {
        if (r >= n) {
            o[r * 3] = o[r * 3 + 1] = o[r * 3 + 2] = static_cast<I>(-1);
            continue;
        }
        const int64_t flat = sel[r].flat;
        o[r * 3] = static_cast<I>(flat / plan.boxes / plan.classes);
        o[r * 3 + 1] = static_cast<I>(flat / plan.boxes % plan.classes);
        o[r * 3 + 2] = static_cast<I>(flat % plan.boxes);
    }
}

// -5/-9: exactly n rows of (batch, class, box) and of (batch, class, score), and n.
template <class I, class S>
void write_exact(KernelContext& ctx, const NmsAttrs& a, const NmsPlan& plan, const Selected* sel, int64_t n) {
    I* oi = ctx.dynamic_output(0, a.output_type, {n, 3}).data<I>();
    S* os = ctx.dynamic_output(1, ctx.input(kScores).type(), {n, 3}).data<S>();
    I* ov = ctx.dynamic_output(2, a.output_type, {1}).data<I>();
    for (int64_t r = 0; r < n; ++r) {
        const Selected& s = sel[r];
        const int64_t batch = s.flat / plan.boxes / plan.classes, cls = s.flat / plan.boxes % plan.classes;
        oi[r * 3] = static_cast<I>(batch), oi[r * 3 + 1] = static_cast<I>(cls), oi[r * 3 + 2] = static_cast<I>(s.flat % plan.boxes);
        os[r * 3] = detail::store_as<S>(static_cast<double>(batch));
        os[r * 3 + 1] = detail::store_as<S>(static_cast<double>(cls));
        os[r * 3 + 2] = detail::store_as<S>(s.score);
    }
    ov[0] = static_cast<I>(n);
}

template <class I>
void write_outputs(KernelContext& ctx, const NmsAttrs& a, const NmsPlan& plan, const Selected* sel, int64_t n) {
    if (!dynamic_outputs(a)) {
        IRLITE_CHECK(n <= ctx.output(0).num_elements() / 3, ErrorKind::ShapeRule, "kernel-output-mismatch",
                     "more boxes selected than the output holds");
        return write_padded<I>(ctx.output(0), plan, sel, n);
    }
    switch (ctx.input(kScores).type()) {
        case ElementType::f16: return write_exact<I, float16>(ctx, a, plan, sel, n);
        case ElementType::bf16: return write_exact<I, bfloat16>(ctx, a, plan, sel, n);
        case ElementType::f64: return write_exact<I, double>(ctx, a, plan, sel, n);
        default: return write_exact<I, float>(ctx, a, plan, sel, n);
    }
}

void compute(KernelContext& ctx) {
    const auto& a = ctx.attrs<NmsAttrs>();
    const auto& plan = ctx.plan<NmsPlan>();
    Thresholds t;
    t.max_out = ctx.num_inputs() > kMaxOut ? std::max<int64_t>(ctx.input(kMaxOut).value_as_int64(0), 0) : 0;
    t.iou = scalar_input(ctx, kIou);
    t.score = scalar_input(ctx, kScoreThreshold);
    t.sigma = a.version >= 5 ? scalar_input(ctx, kSigma) : 0.0;
    // The planned lists hold min(boxes, max_output_boxes_per_class) per class; the value is a
    // constant wherever the node was planned, so a larger one here is a planning bug.
    IRLITE_CHECK(std::min(t.max_out, plan.boxes) <= plan.max_per_class, ErrorKind::Value, "internal-error",
                 "max_output_boxes_per_class ", t.max_out, " exceeds the planned ", plan.max_per_class);
    auto* scratch = static_cast<std::byte*>(ctx.scratch());
    auto* box = reinterpret_cast<Box*>(scratch);
    auto* cand = reinterpret_cast<Candidate*>(scratch + plan.candidates_offset);
    auto* sel = reinterpret_cast<Selected*>(scratch + plan.selected_offset);
    const Tensor& scores = ctx.input(kScores);
    int64_t n = 0;
    for (int64_t b = 0; b < plan.batches; ++b) {
        decode_boxes(ctx.input(kBoxes), a.center, b, plan.boxes, box);
        for (int64_t c = 0; c < plan.classes; ++c) {
            const int64_t bc = b * plan.classes + c;
            n = select_class(box, scores, bc * plan.boxes, plan.boxes, bc * plan.boxes, t, cand, sel, n);
        }
    }
    // By descending score, ties in selection order: what a stable sort by score gives, from
    // std::sort (which allocates nothing) on a total order. Kept scores are never NaN.
    if (a.sort_descending)
        std::sort(sel, sel + n, [](const Selected& x, const Selected& y) {
            return x.score > y.score || (x.score == y.score && x.order < y.order);
        });
    if (a.output_type == ElementType::i32) write_outputs<int32_t>(ctx, a, plan, sel, n);
    else write_outputs<int64_t>(ctx, a, plan, sel, n);
}

OpDef make_def(int version, int first, int last) {
    OpDef d;
    d.type = "NonMaxSuppression";
    d.version = version;
    d.first_opset = first;
    d.last_opset = last;
    d.input_roles = {"boxes", "scores", "max_output_boxes_per_class", "iou_threshold", "score_threshold"};
    if (version >= 5) d.input_roles.push_back("soft_nms_sigma");
    d.min_inputs = 2;
    d.num_outputs = version >= 5 ? 3 : 1;
    d.value_inputs = 1u << kMaxOut;
    d.allocates_outputs = version >= 5;  // the row count depends on the values
    d.data_dependent_outputs = version >= 5;
    switch (version) {
        case 1: d.parse_attrs = [](const AttrReader& r) { return parse(r, 1); }; break;
        case 3: d.parse_attrs = [](const AttrReader& r) { return parse(r, 3); }; break;
        case 4: d.parse_attrs = [](const AttrReader& r) { return parse(r, 4); }; break;
        case 5: d.parse_attrs = [](const AttrReader& r) { return parse(r, 5); }; break;
        default: d.parse_attrs = [](const AttrReader& r) { return parse(r, 9); }; break;
    }
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace

OpDef make_non_max_suppression_1_op() { return make_def(1, 1, 2); }
OpDef make_non_max_suppression_3_op() { return make_def(3, 3, 3); }
OpDef make_non_max_suppression_4_op() { return make_def(4, 4, 4); }
OpDef make_non_max_suppression_5_op() { return make_def(5, 5, 8); }
OpDef make_non_max_suppression_9_op() { return make_def(9, 9, kLatestOpset); }

}  // namespace irlite
