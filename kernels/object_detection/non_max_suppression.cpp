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
#include <algorithm>
#include <cmath>

#include "engine/op.hpp"
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

double iou(const Box& a, const Box& b) {
    const double area_a = (a.y2 - a.y1) * (a.x2 - a.x1), area_b = (b.y2 - b.y1) * (b.x2 - b.x1);
    if (area_a <= 0 || area_b <= 0) return 0;
    const double ih = std::min(a.y2, b.y2) - std::max(a.y1, b.y1), iw = std::min(a.x2, b.x2) - std::max(a.x1, b.x1);
    if (ih <= 0 || iw <= 0) return 0;
    const double inter = ih * iw;
    return inter / (area_a + area_b - inter);
}

struct Selected {
    int64_t batch, cls, box;
    double score;
    int64_t order;  // selection order, for stable output
};

template <class I, class S>
void write_outputs(KernelContext& ctx, const NmsAttrs& a, const std::vector<Selected>& sel, int64_t bound) {
    const auto n = static_cast<int64_t>(sel.size());
    if (!dynamic_outputs(a)) {
        Tensor& out = ctx.output(0);
        I* o = out.data<I>();
        for (int64_t r = 0; r < out.num_elements() / 3; ++r)
            for (int j = 0; j < 3; ++j) {
                const Selected* s = r < n ? &sel[static_cast<size_t>(r)] : nullptr;
                o[r * 3 + j] = static_cast<I>(!s ? -1 : j == 0 ? s->batch : j == 1 ? s->cls : s->box);
            }
        (void)bound;
        return;
    }
    Tensor indices(a.output_type, Shape{n, 3});
    Tensor scores(ctx.input(kScores).type(), Shape{n, 3});
    Tensor valid(a.output_type, Shape{1});
    I* oi = indices.data<I>();
    for (int64_t r = 0; r < n; ++r) {
        const Selected& s = sel[static_cast<size_t>(r)];
        oi[r * 3] = static_cast<I>(s.batch), oi[r * 3 + 1] = static_cast<I>(s.cls), oi[r * 3 + 2] = static_cast<I>(s.box);
        const double v[3] = {static_cast<double>(s.batch), static_cast<double>(s.cls), s.score};
        for (int j = 0; j < 3; ++j) {
            if constexpr (std::is_same_v<S, float16>) scores.data<S>()[r * 3 + j] = float16{f32_to_f16(static_cast<float>(v[j]))};
            else if constexpr (std::is_same_v<S, bfloat16>) scores.data<S>()[r * 3 + j] = bfloat16{f32_to_bf16(static_cast<float>(v[j]))};
            else scores.data<S>()[r * 3 + j] = static_cast<S>(v[j]);
        }
    }
    valid.data<I>()[0] = static_cast<I>(n);
    ctx.output(0) = std::move(indices);
    ctx.output(1) = std::move(scores);
    ctx.output(2) = std::move(valid);
}

void compute(KernelContext& ctx) {
    const auto& a = ctx.attrs<NmsAttrs>();
    const Tensor& boxes = ctx.input(kBoxes);
    const Tensor& scores = ctx.input(kScores);
    IRLITE_CHECK(boxes.rank() == 3 && scores.rank() == 3 && boxes.shape()[0] == scores.shape()[0] &&
                     boxes.shape()[1] == scores.shape()[2] && boxes.shape()[2] == 4,
                 ErrorKind::ShapeRule, "shape-mismatch", "boxes ", to_string(boxes.shape()), " and scores ",
                 to_string(scores.shape()), " disagree");
    const int64_t batches = boxes.shape()[0], num = boxes.shape()[1], classes = scores.shape()[1];
    const int64_t max_out = ctx.num_inputs() > kMaxOut ? std::max<int64_t>(ctx.input(kMaxOut).value_as_int64(0), 0) : 0;
    const double iou_threshold = scalar_input(ctx, kIou);
    const double score_threshold = scalar_input(ctx, kScoreThreshold);
    const double sigma = a.version >= 5 ? scalar_input(ctx, kSigma) : 0.0;
    std::vector<Box> box(static_cast<size_t>(num));
    std::vector<std::pair<double, int64_t>> remaining;  // (score, box index)
    std::vector<Selected> selected;
    int64_t order = 0;
    for (int64_t b = 0; b < batches; ++b) {
        for (int64_t i = 0; i < num; ++i) {
            double v[4];
            for (int j = 0; j < 4; ++j) v[j] = boxes.value_as_double((b * num + i) * 4 + j);
            if (a.center) box[static_cast<size_t>(i)] = {v[1] - v[3] / 2, v[0] - v[2] / 2, v[1] + v[3] / 2, v[0] + v[2] / 2};
            else box[static_cast<size_t>(i)] = {std::min(v[0], v[2]), std::min(v[1], v[3]), std::max(v[0], v[2]), std::max(v[1], v[3])};
        }
        for (int64_t c = 0; c < classes; ++c) {
            remaining.clear();
            for (int64_t i = 0; i < num; ++i) remaining.emplace_back(scores.value_as_double((b * classes + c) * num + i), i);
            int64_t kept = 0;
            while (kept < max_out && !remaining.empty()) {
                // The best remaining box (the lower index on ties).
                const auto best = std::min_element(remaining.begin(), remaining.end(), [](const auto& x, const auto& y) {
                    return x.first > y.first || (x.first == y.first && x.second < y.second);
                });
                const auto [score, index] = *best;
                remaining.erase(best);
                if (!(score >= score_threshold)) break;
                selected.push_back({b, c, index, score, order++});
                ++kept;
                const Box& k = box[static_cast<size_t>(index)];
                if (sigma > 0) {
                    for (auto& r : remaining) r.first *= std::exp(-0.5 * std::pow(iou(box[static_cast<size_t>(r.second)], k), 2) / sigma);
                } else {
                    remaining.erase(std::remove_if(remaining.begin(), remaining.end(),
                                                   [&](const auto& r) { return iou(box[static_cast<size_t>(r.second)], k) > iou_threshold; }),
                                    remaining.end());
                }
            }
        }
    }
    if (a.sort_descending)
        std::stable_sort(selected.begin(), selected.end(), [](const Selected& x, const Selected& y) { return x.score > y.score; });
    const int64_t bound = ctx.num_outputs() > 0 ? ctx.output(0).num_elements() / 3 : 0;
    if (!dynamic_outputs(a)) IRLITE_CHECK(static_cast<int64_t>(selected.size()) <= bound, ErrorKind::ShapeRule,
                                          "kernel-output-mismatch", "more boxes selected than the output holds");
    const bool i32 = a.output_type == ElementType::i32;
    switch (scores.type()) {
        case ElementType::f16: return i32 ? write_outputs<int32_t, float16>(ctx, a, selected, bound) : write_outputs<int64_t, float16>(ctx, a, selected, bound);
        case ElementType::bf16: return i32 ? write_outputs<int32_t, bfloat16>(ctx, a, selected, bound) : write_outputs<int64_t, bfloat16>(ctx, a, selected, bound);
        case ElementType::f64: return i32 ? write_outputs<int32_t, double>(ctx, a, selected, bound) : write_outputs<int64_t, double>(ctx, a, selected, bound);
        default: return i32 ? write_outputs<int32_t, float>(ctx, a, selected, bound) : write_outputs<int64_t, float>(ctx, a, selected, bound);
    }
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
    switch (version) {
        case 1: d.parse_attrs = [](const AttrReader& r) { return parse(r, 1); }; break;
        case 3: d.parse_attrs = [](const AttrReader& r) { return parse(r, 3); }; break;
        case 4: d.parse_attrs = [](const AttrReader& r) { return parse(r, 4); }; break;
        case 5: d.parse_attrs = [](const AttrReader& r) { return parse(r, 5); }; break;
        default: d.parse_attrs = [](const AttrReader& r) { return parse(r, 9); }; break;
    }
    d.infer = infer;
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
