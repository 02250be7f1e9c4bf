// ExperimentalDetectronDetectionOutput-6 (opset6+): Detectron's (Mask R-CNN) last detection step:
// class-wise box refinement, clipping, score threshold and NMS, then the best detections of the
// image.
// Inputs (every one of the same floating-point type T: f16, bf16, f32, f64): 0 'rois' [R, 4] rows
// (x0, y0, x1, y1); 1 'deltas' [R, num_classes * 4] (dx, dy, d_log_w, d_log_h) per class;
// 2 'scores' [R, num_classes]; 3 'im_info' [1, 3] = (image_height, image_width, scale).
// Attributes (all required but class_agnostic_box_regression, default false): score_threshold
// (>= 0), nms_threshold (>= 0), max_delta_log_wh (a number, not NaN), num_classes (>= 0),
// post_nms_count (>= 0), max_detections_per_image (>= 0), deltas_weights (4 numbers >= 0).
// Outputs: 0 'boxes' [M, 4] (T), 1 'classes' [M] (i32), 2 'scores' [M] (T), M =
// max_detections_per_image. A layer may declare fewer outputs (the first 1 or 2): only those are
// made.
//
// For every ROI and class c: box_w = x1 - x0 + 1, box_h = y1 - y0 + 1, ctr = (x0, y0) + 0.5 *
// (box_w, box_h); dx = deltas[r, 4c] / deltas_weights[0], dy, d_log_w, d_log_h likewise; the
// refined box is x0' = ctr_x + (dx - 0.5 * exp(min(d_log_w, max_delta_log_wh))) * box_w,
// y0' likewise with dy, d_log_h, box_h; x1' = ctr_x + (dx + 0.5 * exp(...)) * box_w - 1, y1'
// likewise (the spec's formulas), each raised to 0 where negative (see below). Per class (the
// background class 0 excepted), the boxes whose score is > score_threshold go, best first,
// through greedy NMS: a box is dropped when its IoU with a kept one is > nms_threshold, and at most
// post_nms_count are kept. Of every class's kept boxes, the max_detections_per_image best are
// written.
// Choices where the specification is silent or loose (each written in the README too):
// - The background class (class 0) never gives a detection, whatever class_agnostic_box_regression
//   says: that is what OpenVINO's CPU plugin and reference do (the attribute is read and ignored),
//   and real Mask R-CNN IR writes it false. The spec's wording would keep class 0 when false.
// - IoU uses the same "+1" pixel convention as the box sizes: area = (x1 - x0 + 1) * (y1 - y0 + 1),
//   intersection likewise; 0 when they do not overlap or the union is not positive.
// - Order: detections by descending score; ties by the lower class, then the lower ROI index
//   (within a class NMS visits boxes in that order too). The output is always in this order.
// - Rows after the last detection (the spec's "undefined values") are zeros: box (0, 0, 0, 0),
//   class 0, score 0.
// - An ROI with x1 <= x0 or y1 <= y0 (or a NaN coordinate) gives no detection in any class, as
//   OpenVINO's reference does.
// - Clipping: a coordinate is raised to 0 where negative and left alone above, as OpenVINO's
//   reference does and as its published test vectors expect (a box larger than the 1 x 1 image of
//   its reference case keeps its size); the spec's "clips boxes to the image" says no more.
// - num_classes, post_nms_count and max_detections_per_image are at most 2^31 - 1 (the classes
//   output is i32).
// - im_info is not used (OpenVINO's reference reads it only to clip, which it does at 0 alone);
//   the boxes stay in input coordinates.
// - Deltas weights of 0 are allowed (the spec's range): the division follows IEEE rules, and a
//   NaN coordinate is clipped to 0. NaN scores are never above the threshold.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "engine/op.hpp"
#include "kernels/detail/eltwise.hpp"
#include "kernels/detail/float_dispatch.hpp"
#include "kernels/detail/nn_common.hpp"

namespace irlite {
namespace {

constexpr size_t kRois = 0, kDeltas = 1, kScores = 2, kImInfo = 3;
constexpr int kOutputs = 3;  // boxes, classes, scores

struct DetectronOutputAttrs : OpAttrs {
    double score_threshold = 0, nms_threshold = 0, max_delta_log_wh = 0;
    int64_t num_classes = 0, post_nms_count = 0, max_detections = 0;
    bool class_agnostic = false;
    double weights[4] = {1, 1, 1, 1};
};

void require_non_negative(const char* name, double v) {
    if (!(v >= 0))
        throw Error(ErrorKind::Attribute, "attribute-invalid",
                    str("attribute '", name, "' = ", v, ": it must be a non-negative number (allowed [0, inf))"));
}

int64_t count_attr(const AttrReader& r, const char* name) {
    const int64_t v = r.get_i64(name);
    if (v < 0 || v > (int64_t{1} << 31) - 1)
        throw Error(ErrorKind::Attribute, "attribute-invalid",
                    str("attribute '", name, "' = ", v, ": it must be a non-negative integer (allowed [0, 2147483647])"));
    return v;
}

std::unique_ptr<OpAttrs> parse(const AttrReader& r) {
    auto a = std::make_unique<DetectronOutputAttrs>();
    a->score_threshold = r.get_f64("score_threshold");
    require_non_negative("score_threshold", a->score_threshold);
    a->nms_threshold = r.get_f64("nms_threshold");
    require_non_negative("nms_threshold", a->nms_threshold);
    a->max_delta_log_wh = r.get_f64("max_delta_log_wh");
    if (std::isnan(a->max_delta_log_wh))
        throw Error(ErrorKind::Attribute, "attribute-invalid",
                    "attribute 'max_delta_log_wh' = nan: it must be a number (allowed any, not NaN)");
    a->num_classes = count_attr(r, "num_classes");
    a->post_nms_count = count_attr(r, "post_nms_count");
    a->max_detections = count_attr(r, "max_detections_per_image");
    a->class_agnostic = r.get_bool("class_agnostic_box_regression", false);
    const std::vector<double> w = r.get_f64_list("deltas_weights");
    if (w.size() != 4)
        throw Error(ErrorKind::Attribute, "attribute-invalid",
                    str("attribute 'deltas_weights' has ", w.size(), " value(s): it takes exactly 4 (x, y, log w, log h)"));
    for (size_t i = 0; i < 4; ++i) {
        if (!(w[i] >= 0))
            throw Error(ErrorKind::Attribute, "attribute-invalid",
                        str("attribute 'deltas_weights' value ", i, " = ", w[i],
                            ": weights must be non-negative numbers (allowed [0, inf))"));
        a->weights[i] = w[i];
    }
    return a;
}

// The output count: what the layer declares (1 to 3); 3 when it declares none (unit tests).
size_t output_count(const InferContext& ctx) {
    const int declared = ctx.declared_outputs();
    if (declared > kOutputs)
        throw Error(ErrorKind::Graph, "output-count",
                    str("ExperimentalDetectronDetectionOutput has 3 outputs (boxes, classes, scores); the layer declares ",
                        declared));
    return static_cast<size_t>(declared <= 0 ? kOutputs : declared);
}

// Checks a 2-D input [rows, cols]; merges its rows into `rois` (the ROI count so far, with the
// port it came from).
void check_2d(const InferContext& ctx, size_t port, int64_t cols, const char* what, int64_t& rois, size_t& rois_from) {
    const PartialShape& s = ctx.shape(port);
    if (!s.rank_known()) return;
    const std::string role = ctx.def().input_role(port);
    if (s.rank() != 2)
        throw ctx.input_error(port, ErrorKind::ShapeRule, "rank-invalid", str(role, " must be 2-D ", what, ", got ", to_string(s)));
    if (!dims_compatible(s[1], cols))
        throw ctx.input_error(port, ErrorKind::ShapeRule, "shape-invalid",
                              str(role, " must be ", what, port == kRois ? "" : str(" = [number_of_rois, ", cols, "]"),
                                  ", got ", to_string(s)));
    if (port == kImInfo) return;
    if (s[0] == kDynamic) return;
    if (rois != kDynamic && s[0] != rois)
        throw ctx.input_error(port, ErrorKind::ShapeRule, "shape-mismatch",
                              str(role, " has ", s[0], " rows but ", ctx.def().input_role(rois_from), " has ", rois,
                                  ": rois, deltas and scores have one row per ROI"));
    rois = s[0];
    rois_from = port;
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    const auto& a = ctx.attrs<DetectronOutputAttrs>();
    const ElementType type = nn::require_one_storable_float_type(ctx);  // rois' type, which all share
    const size_t outputs = output_count(ctx);
    int64_t rois = kDynamic;
    size_t rois_from = kRois;
    check_2d(ctx, kRois, 4, "[number_of_rois, 4]", rois, rois_from);
    check_2d(ctx, kDeltas, a.num_classes * 4, "[number_of_rois, num_classes * 4]", rois, rois_from);
    check_2d(ctx, kScores, a.num_classes, "[number_of_rois, num_classes]", rois, rois_from);
    const PartialShape& info = ctx.shape(kImInfo);
    if (info.rank_known() && (info.rank() != 2 || !dims_compatible(info[0], 1) || !dims_compatible(info[1], 3)))
        throw ctx.input_error(kImInfo, ErrorKind::ShapeRule, info.rank() != 2 ? "rank-invalid" : "shape-invalid",
                              str("im_info must be [1, 3] (image_height, image_width, scale), got ", to_string(info)));
    const int64_t m = a.max_detections;
    std::vector<OutputInfo> out = {{type, PartialShape({m, 4})}, {ElementType::i32, PartialShape({m})}, {type, PartialShape({m})}};
    out.resize(outputs);
    return out;
}

// One kept detection: its score, class and ROI.
struct Detection {
    double score;
    int64_t cls, roi;
};

// Ranks a before b: higher score, then lower class, then lower ROI index.
bool ranks_before(const Detection& a, const Detection& b) {
    if (a.score != b.score) return a.score > b.score;
    if (a.cls != b.cls) return a.cls < b.cls;
    return a.roi < b.roi;
}

struct DetectronOutputPlan : OpPlan {
    int64_t rois = 0, classes = 0, per_class = 0, rows = 0;
    // Scratch layout (bytes): candidate ROIs, kept ROIs, refined boxes of one class, detections.
    size_t kept_at = 0, boxes_at = 0, dets_at = 0;
};

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    infer(ctx);
    const auto& a = ctx.attrs<DetectronOutputAttrs>();
    auto plan = std::make_unique<DetectronOutputPlan>();
    plan->rois = ctx.shape(kRois)[0];
    plan->classes = a.num_classes;
    plan->per_class = std::min(plan->rois, a.post_nms_count);
    plan->rows = a.max_detections;
    const auto r = static_cast<size_t>(plan->rois);
    plan->kept_at = r * sizeof(int64_t);
    plan->boxes_at = plan->kept_at + r * sizeof(int64_t);
    plan->dets_at = plan->boxes_at + r * 4 * sizeof(double);
    plan->scratch_bytes = plan->dets_at + static_cast<size_t>(plan->classes * plan->per_class) * sizeof(Detection);
    plan->method = "detectron-nms";
    return plan;
}

template <class T>
T from_double(double v) {
    if constexpr (std::is_same_v<T, float16>) return float16{f32_to_f16(static_cast<float>(v))};
    else if constexpr (std::is_same_v<T, bfloat16>) return bfloat16{f32_to_bf16(static_cast<float>(v))};
    else return static_cast<T>(v);
}

// v raised to 0 where negative (NaN becomes 0).
double clip_at_zero(double v) { return v > 0 ? v : 0.0; }

// IoU of two boxes (x0, y0, x1, y1), pixel-inclusive sizes.
double iou(const double* a, const double* b) {
    const double iw = std::min(a[2], b[2]) - std::max(a[0], b[0]) + 1.0;
    const double ih = std::min(a[3], b[3]) - std::max(a[1], b[1]) + 1.0;
    if (!(iw > 0) || !(ih > 0)) return 0.0;
    const auto area = [](const double* x) {
        return std::max(x[2] - x[0] + 1.0, 0.0) * std::max(x[3] - x[1] + 1.0, 0.0);
    };
    const double inter = iw * ih, uni = area(a) + area(b) - inter;
    return uni > 0 ? inter / uni : 0.0;
}

template <class T>
void detect(KernelContext& ctx, const DetectronOutputPlan& plan) {
    const auto& a = ctx.attrs<DetectronOutputAttrs>();
    const T* rois = ctx.input(kRois).data<T>();
    const T* deltas = ctx.input(kDeltas).data<T>();
    const T* scores = ctx.input(kScores).data<T>();
    const int64_t classes = plan.classes;
    auto* scratch = static_cast<std::byte*>(ctx.scratch());
    auto* order = reinterpret_cast<int64_t*>(scratch);
    auto* kept = reinterpret_cast<int64_t*>(scratch + plan.kept_at);
    auto* boxes = reinterpret_cast<double*>(scratch + plan.boxes_at);
    auto* dets = reinterpret_cast<Detection*>(scratch + plan.dets_at);

    // The refined box of ROI r for class c.
    const auto refine = [&](int64_t r, int64_t c, double* box) {
        const double x0 = detail::load_double(rois, r * 4), y0 = detail::load_double(rois, r * 4 + 1), x1 = detail::load_double(rois, r * 4 + 2),
                     y1 = detail::load_double(rois, r * 4 + 3);
        const double bw = x1 - x0 + 1.0, bh = y1 - y0 + 1.0;
        const double cx = x0 + 0.5 * bw, cy = y0 + 0.5 * bh;
        const T* d = deltas + (r * classes + c) * 4;
        const double dx = detail::load_double(d, 0) / a.weights[0], dy = detail::load_double(d, 1) / a.weights[1];
        const double dw = detail::load_double(d, 2) / a.weights[2], dh = detail::load_double(d, 3) / a.weights[3];
        const double ew = std::exp(std::min(dw, a.max_delta_log_wh)), eh = std::exp(std::min(dh, a.max_delta_log_wh));
        box[0] = clip_at_zero(cx + (dx - 0.5 * ew) * bw);
        box[1] = clip_at_zero(cy + (dy - 0.5 * eh) * bh);
        box[2] = clip_at_zero(cx + (dx + 0.5 * ew) * bw - 1.0);
        box[3] = clip_at_zero(cy + (dy + 0.5 * eh) * bh - 1.0);
    };
    const auto score = [&](int64_t r, int64_t c) { return detail::load_double(scores, r * classes + c); };
    const auto valid_roi = [&](int64_t r) {
        return detail::load_double(rois, r * 4 + 2) - detail::load_double(rois, r * 4) > 0 && detail::load_double(rois, r * 4 + 3) - detail::load_double(rois, r * 4 + 1) > 0;
    };

    int64_t total = 0;
    for (int64_t c = 1; c < classes; ++c) {  // class 0 is the background
        int64_t n = 0;
        for (int64_t r = 0; r < plan.rois; ++r)
            if (valid_roi(r) && score(r, c) > a.score_threshold) {
                order[n++] = r;
                refine(r, c, boxes + r * 4);
            }
        std::sort(order, order + n, [&](int64_t x, int64_t y) {
            const double sx = score(x, c), sy = score(y, c);
            return sx != sy ? sx > sy : x < y;
        });
        int64_t k = 0;
        for (int64_t i = 0; i < n && k < plan.per_class; ++i) {
            const int64_t r = order[i];
            bool keep = true;
            for (int64_t j = 0; j < k && keep; ++j) keep = !(iou(boxes + r * 4, boxes + kept[j] * 4) > a.nms_threshold);
            if (keep) kept[k++] = r;
        }
        for (int64_t j = 0; j < k; ++j) dets[total++] = {score(kept[j], c), c, kept[j]};
    }
    const int64_t written = std::min(total, plan.rows);
    std::partial_sort(dets, dets + written, dets + total, ranks_before);

    const bool want_boxes = ctx.output_needed(0), want_classes = ctx.num_outputs() > 1 && ctx.output_needed(1),
               want_scores = ctx.num_outputs() > 2 && ctx.output_needed(2);
    T* out_boxes = ctx.output(0).data<T>();
    int32_t* out_classes = want_classes ? ctx.output(1).data<int32_t>() : nullptr;
    T* out_scores = want_scores ? ctx.output(2).data<T>() : nullptr;
    for (int64_t i = 0; i < plan.rows; ++i) {
        double box[4] = {0, 0, 0, 0};
        const bool real = i < written;
        if (real && want_boxes) refine(dets[i].roi, dets[i].cls, box);
        if (want_boxes)
            for (int k = 0; k < 4; ++k) out_boxes[i * 4 + k] = from_double<T>(box[k]);
        if (out_classes) out_classes[i] = real ? static_cast<int32_t>(dets[i].cls) : 0;
        if (out_scores) out_scores[i] = from_double<T>(real ? dets[i].score : 0.0);
    }
}

void compute(KernelContext& ctx) {
    const auto& plan = ctx.plan<DetectronOutputPlan>();
    IRLITE_CHECK(ctx.output(0).num_elements() == plan.rows * 4, ErrorKind::ShapeRule, "kernel-output-mismatch",
                 "output 0 disagrees with the plan");
    detail::dispatch_storable_float(ctx.input(kRois).type(), [&](auto tag) {
        using T = decltype(tag);
        detect<T>(ctx, plan);
    });
}

}  // namespace

OpDef make_experimental_detectron_detection_output_op() {
    OpDef d;
    d.type = "ExperimentalDetectronDetectionOutput";
    d.version = 6;
    d.first_opset = 6;
    d.last_opset = kLatestOpset;
    d.input_roles = {"rois", "deltas", "scores", "im_info"};
    d.min_inputs = 4;
    d.num_outputs = -1;  // 3, or the first 1 or 2 when the layer declares only those
    d.parse_attrs = parse;
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace irlite
