// DetectionOutput-1 (opset1..7) and DetectionOutput-8 (opset8+): SSD's last stage, Caffe
// semantics. Inputs: 0 'box_logits' [N, P * L * 4] (L = 1 with share_location, else the class
// count), 1 'class_preds' [N, P * C], 2 'proposals' [1 or N, 1 or 2, P * S] (S = 4 when normalized,
// 5 otherwise: a leading index per prior; row 1 holds 4 variances per prior unless
// variance_encoded_in_target). Float types, not necessarily the same: Model Optimizer writes f16
// logits with f32 priors and declares the output f32, so the output has the widest input type.
// Attributes: num_classes (DetectionOutput-1; v8 computes C = class_preds.shape[1] / P),
// background_label_id (0), top_k (-1), variance_encoded_in_target (false), keep_top_k (required),
// code_type (caffe.PriorBoxParameter.CORNER | CENTER_SIZE), share_location (true), nms_threshold
// (required), confidence_threshold (0), clip_after_nms, clip_before_nms (false), normalized
// (false: priors divided by input_width / input_height), decrease_label_id (false),
// objectness_score (0).
// Per image: boxes decoded from the priors (CORNER: prior + variance * logit per coordinate;
// CENTER_SIZE: center and log-size offsets); per class but the background: the scores above
// confidence_threshold, best first (ties: the lower prior first), at most top_k of them, greedy
// NMS dropping a box whose IoU with a kept one exceeds nms_threshold; then, over all classes, the
// keep_top_k best. Output [1, 1, R, 7] rows [image, label, score, xmin, ymin, xmax, ymax], per
// image by ascending label and each label by descending score; after the last detection one row
// with image -1, then zeros. R = N * keep_top_k[0] when that is > 0, else N * top_k * C when
// top_k > 0, else N * C * P.
// Not run (a clear error when the model is compiled): the 5-input form (aux predictions) and
// decrease_label_id = true (MXNet), whose semantics OpenVINO's specification leaves open.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <type_traits>

#include "engine/op.hpp"
#include "kernels/detail/float_value.hpp"
#include "kernels/detail/nn_common.hpp"

namespace irlite {
namespace {

constexpr size_t kLoc = 0, kConf = 1, kPriors = 2;

struct DetectionAttrs : OpAttrs {
    int64_t num_classes = -1;  // v1 only
    int64_t background = 0, top_k = -1, keep_top_k = -1;
    bool variance_encoded = false, center_size = false, share_location = true, clip_after = false,
         clip_before = false, normalized = false, decrease_label_id = false;
    double nms_threshold = 0, confidence_threshold = 0, objectness_score = 0;
    int64_t input_height = 1, input_width = 1;
};

std::unique_ptr<OpAttrs> parse(const AttrReader& r, bool v1) {
    auto a = std::make_unique<DetectionAttrs>();
    if (v1) a->num_classes = r.get_i64("num_classes");
    a->background = r.get_i64("background_label_id", 0);
    a->top_k = r.get_i64("top_k", -1);
    a->variance_encoded = r.get_bool("variance_encoded_in_target", false);
    const std::vector<int64_t> keep = r.get_i64_list("keep_top_k");
    if (keep.empty()) throw Error(ErrorKind::Attribute, "attribute-invalid", "attribute 'keep_top_k' is empty");
    a->keep_top_k = keep[0];
    const std::string code = r.get_string("code_type", "caffe.PriorBoxParameter.CORNER");
    if (code == "caffe.PriorBoxParameter.CENTER_SIZE") a->center_size = true;
    else if (code != "caffe.PriorBoxParameter.CORNER")
        throw Error(ErrorKind::Attribute, "attribute-invalid",
                    str("attribute 'code_type' = \"", code, "\": expected caffe.PriorBoxParameter.CORNER or CENTER_SIZE"));
    a->share_location = r.get_bool("share_location", true);
    a->nms_threshold = r.get_f64("nms_threshold");
    a->confidence_threshold = r.get_f64("confidence_threshold", 0.0);
    a->clip_after = r.get_bool("clip_after_nms", false);
    a->clip_before = r.get_bool("clip_before_nms", false);
    a->decrease_label_id = r.get_bool("decrease_label_id", false);
    a->normalized = r.get_bool("normalized", false);
    a->input_height = r.get_i64("input_height", 1);
    a->input_width = r.get_i64("input_width", 1);
    a->objectness_score = r.get_f64("objectness_score", 0.0);
    if (a->decrease_label_id)
        throw Error(ErrorKind::Unsupported, "attribute-unsupported",
                    "decrease_label_id = true (MXNet-style NMS) is not supported by irlite yet");
    if (!a->normalized && (a->input_height <= 0 || a->input_width <= 0))
        throw Error(ErrorKind::Attribute, "attribute-invalid", "input_height and input_width must be positive");
    return a;
}

// a * b, or Error(Limit, "size-overflow") naming `what` when it does not fit in 64 bits: the
// attributes are the file's (keep_top_k, top_k and num_classes of 2^40 and more).
int64_t product(int64_t a, int64_t b, const char* what) {
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r))
        throw Error(ErrorKind::Limit, "size-overflow", str(what, " = ", a, " x ", b, " does not fit in 64 bits"));
    return r;
}

// The sizes every rule and kernel needs, from static input shapes.
struct Geometry {
    int64_t batch = 0, priors = 0, classes = 0, loc_classes = 1, prior_size = 4, prior_batches = 1, rows = 0;
};

Geometry geometry(const InferContext& ctx, const Shape& loc, const Shape& conf, const Shape& proposals) {
    const auto& a = ctx.attrs<DetectionAttrs>();
    Geometry g;
    g.batch = loc[0];
    g.prior_size = a.normalized ? 4 : 5;
    if (proposals[2] % g.prior_size != 0)
        throw ctx.input_error(kPriors, ErrorKind::ShapeRule, "shape-mismatch",
                              str("proposals' last dim ", proposals[2], " is not a multiple of the prior size ", g.prior_size));
    g.priors = proposals[2] / g.prior_size;
    g.prior_batches = proposals[0];
    if (g.prior_batches != 1 && g.prior_batches != g.batch)
        throw ctx.input_error(kPriors, ErrorKind::ShapeRule, "shape-mismatch",
                              str("proposals' batch ", g.prior_batches, " must be 1 or N = ", g.batch));
    if (proposals[1] != (a.variance_encoded ? 1 : 2) && !(a.variance_encoded && proposals[1] == 2))
        throw ctx.input_error(kPriors, ErrorKind::ShapeRule, "shape-mismatch",
                              str("proposals' second dim is ", proposals[1], "; it must be 2 (boxes and variances) unless ",
                                  "variance_encoded_in_target"));
    if (a.num_classes >= 0) {
        g.classes = a.num_classes;
    } else {
        if (g.priors == 0 || conf[1] % g.priors != 0)
            throw ctx.input_error(kConf, ErrorKind::ShapeRule, "shape-mismatch",
                                  str("class_preds' dim ", conf[1], " is not a multiple of the ", g.priors, " priors"));
        g.classes = conf[1] / g.priors;
    }
    g.loc_classes = a.share_location ? 1 : g.classes;
    if (conf[0] != g.batch || conf[1] != product(g.priors, g.classes, "priors x classes"))
        throw ctx.input_error(kConf, ErrorKind::ShapeRule, "shape-mismatch",
                              str("class_preds ", to_string(conf), " must be [N, priors * classes] = [", g.batch, ", ",
                                  g.priors * g.classes, "]"));
    if (loc[1] != product(product(g.priors, g.loc_classes, "priors x classes"), 4, "box_logits' size")) {
        const int64_t described = g.loc_classes > 0 ? loc[1] / (g.loc_classes * 4) : 0;
        throw ctx.input_error(kLoc, ErrorKind::ShapeRule, "shape-mismatch",
                              str("box_logits describe ", described, " priors but proposals hold ", g.priors,
                                  " (box_logits ", to_string(loc), ", proposals ", to_string(proposals), ")"));
    }
    if (a.keep_top_k > 0) g.rows = product(g.batch, a.keep_top_k, "rows");
    else if (a.top_k > 0) g.rows = product(product(g.batch, a.top_k, "rows"), g.classes, "rows");
    else g.rows = product(product(g.batch, g.classes, "rows"), g.priors, "rows");
    return g;
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    const ElementType type = ctx.type(kLoc);
    if (!is_storable_float(type))
        throw ctx.input_error(kLoc, ErrorKind::Type, "element-type-unsupported",
                              str("box_logits must be a floating-point tensor, got ", to_string(type)));
    for (size_t i = 1; i < ctx.num_inputs(); ++i)
        if (!is_storable_float(ctx.type(i)))
            throw ctx.input_error(i, ErrorKind::Type, "element-type-unsupported",
                                  str(ctx.def().input_role(i), " must be a floating-point tensor, got ", to_string(ctx.type(i))));
    if (ctx.num_inputs() > 3)
        throw ctx.input_error(3, ErrorKind::Unsupported, "inputs-unsupported",
                              "the 5-input form (auxiliary class and box predictions) is not supported by irlite yet");
    const PartialShape& loc = ctx.shape(kLoc);
    const PartialShape& conf = ctx.shape(kConf);
    const PartialShape& proposals = ctx.shape(kPriors);
    if (loc.rank_known() && loc.rank() != 2)
        throw ctx.input_error(kLoc, ErrorKind::ShapeRule, "rank-invalid", str("box_logits must be 2-D, got ", to_string(loc)));
    if (conf.rank_known() && conf.rank() != 2)
        throw ctx.input_error(kConf, ErrorKind::ShapeRule, "rank-invalid", str("class_preds must be 2-D, got ", to_string(conf)));
    if (proposals.rank_known() && proposals.rank() != 3)
        throw ctx.input_error(kPriors, ErrorKind::ShapeRule, "rank-invalid",
                              str("proposals must be 3-D, got ", to_string(proposals)));
    ElementType out = type;  // the widest: f64 > f32 > f16/bf16
    const auto rank = [](ElementType t) { return t == ElementType::f64 ? 3 : t == ElementType::f32 ? 2 : 1; };
    for (size_t i = 1; i < ctx.num_inputs(); ++i)
        if (rank(ctx.type(i)) > rank(out)) out = ctx.type(i);
    if (!loc.is_static() || !conf.is_static() || !proposals.is_static())
        return {{out, PartialShape({1, 1, kDynamic, 7})}};
    const Geometry g = geometry(ctx, loc.dims(), conf.dims(), proposals.dims());
    return {{out, PartialShape({1, 1, g.rows, 7})}};
}

struct Box {
    double xmin = 0, ymin = 0, xmax = 0, ymax = 0;
};

// A box kept by a class's NMS: its score, label, prior, and its position among the image's kept
// boxes (which the sorts below use to break ties, as a stable sort would).
struct Kept {
    double score;
    int64_t label, prior, at;
};

// Scratch, per image: every decoded box, one class's candidate priors, and the kept boxes of every
// class (at most min(top_k, priors) per class). Sizes follow the inputs' shapes, so the
// worst case is bounded by (and of the order of) the class scores' size.
struct DetectionPlan : OpPlan {
    Geometry g;
    size_t boxes_at = 0, order_at = 0, kept_at = 0;
};

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    infer(ctx);
    const auto& a = ctx.attrs<DetectionAttrs>();
    auto plan = std::make_unique<DetectionPlan>();
    const Geometry& g = plan->g = geometry(ctx, ctx.shape(kLoc).dims(), ctx.shape(kConf).dims(), ctx.shape(kPriors).dims());
    const int64_t per_class = a.top_k > -1 ? std::min(a.top_k, g.priors) : g.priors;
    plan->order_at = nn::round64(static_cast<size_t>(g.priors * g.loc_classes) * sizeof(Box));
    plan->kept_at = plan->order_at + nn::round64(static_cast<size_t>(g.priors) * sizeof(int64_t));
    plan->scratch_bytes = plan->kept_at + static_cast<size_t>(g.classes * per_class) * sizeof(Kept);
    plan->method = "ssd-nms";
    return plan;
}

double iou(const Box& a, const Box& b) {
    const double ix = std::min(a.xmax, b.xmax) - std::max(a.xmin, b.xmin);
    const double iy = std::min(a.ymax, b.ymax) - std::max(a.ymin, b.ymin);
    if (a.xmax < a.xmin || a.ymax < a.ymin || b.xmax < b.xmin || b.ymax < b.ymin || ix <= 0 || iy <= 0) return 0;
    const double inter = ix * iy;
    const double area_a = (a.xmax - a.xmin) * (a.ymax - a.ymin), area_b = (b.xmax - b.xmin) * (b.ymax - b.ymin);
    return inter / (area_a + area_b - inter);
}

Box clipped(Box b) {
    const auto c = [](double v) { return std::min(std::max(v, 0.0), 1.0); };
    return {c(b.xmin), c(b.ymin), c(b.xmax), c(b.ymax)};
}

// Element i of a float tensor of any float type, as a double.
struct FloatView {
    const void* data;
    ElementType type;
    double operator()(int64_t i) const {
        switch (type) {
            case ElementType::f16: return f16_to_f32(static_cast<const float16*>(data)[i].bits);
            case ElementType::bf16: return bf16_to_f32(static_cast<const bfloat16*>(data)[i].bits);
            case ElementType::f64: return static_cast<const double*>(data)[i];
            default: return static_cast<const float*>(data)[i];
        }
    }
    FloatView at(int64_t offset) const {
        return {static_cast<const std::byte*>(data) + offset * static_cast<int64_t>(element_size(type)), type};
    }
};
FloatView view(const Tensor& t) { return {t.data(), t.type()}; }

// Image n's boxes, decoded from its priors (pr, with their variances at var) and the location
// offsets, at boxes[p * loc_classes + c].
void decode_boxes(const DetectionAttrs& a, const Geometry& g, const FloatView& loc, const FloatView& pr,
                  const FloatView& var, int64_t n, Box* boxes) {
    const int64_t offset = a.normalized ? 0 : 1;
    for (int64_t p = 0; p < g.priors; ++p) {
        Box prior{pr(p * g.prior_size + offset), pr(p * g.prior_size + offset + 1), pr(p * g.prior_size + offset + 2),
                  pr(p * g.prior_size + offset + 3)};
        if (!a.normalized) {
            prior.xmin /= static_cast<double>(a.input_width), prior.xmax /= static_cast<double>(a.input_width);
            prior.ymin /= static_cast<double>(a.input_height), prior.ymax /= static_cast<double>(a.input_height);
        }
        double v[4] = {1, 1, 1, 1};
        if (!a.variance_encoded)
            for (int j = 0; j < 4; ++j) v[j] = var(p * 4 + j);
        for (int64_t c = 0; c < g.loc_classes; ++c) {
            const FloatView l = loc.at(((n * g.priors + p) * g.loc_classes + c) * 4);
            const double l0 = l(0), l1 = l(1), l2 = l(2), l3 = l(3);
            Box b;
            if (!a.center_size) {
                b = {prior.xmin + v[0] * l0, prior.ymin + v[1] * l1, prior.xmax + v[2] * l2, prior.ymax + v[3] * l3};
            } else {
                const double pw = prior.xmax - prior.xmin, ph = prior.ymax - prior.ymin;
                const double pcx = (prior.xmin + prior.xmax) / 2, pcy = (prior.ymin + prior.ymax) / 2;
                const double cx = v[0] * l0 * pw + pcx, cy = v[1] * l1 * ph + pcy;
                const double w = std::exp(v[2] * l2) * pw, h = std::exp(v[3] * l3) * ph;
                b = {cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2};
            }
            boxes[p * g.loc_classes + c] = a.clip_before ? clipped(b) : b;
        }
    }
}

// Per class of image n, in label order: candidates, top_k, NMS. Writes the kept boxes to `kept`
// (each class's a segment after the previous class's; `order` is scratch for one class's
// candidates) and returns their count.
int64_t nms_per_class(const DetectionAttrs& a, const Geometry& g, const FloatView& conf, int64_t n, const Box* boxes,
                      int64_t* order, Kept* kept) {
    int64_t total = 0;
    for (int64_t c = 0; c < g.classes; ++c) {
        if (c == a.background) continue;
        const auto score = [&](int64_t p) { return conf((n * g.priors + p) * g.classes + c); };
        int64_t count = 0;
        for (int64_t p = 0; p < g.priors; ++p)
            if (score(p) > a.confidence_threshold) order[count++] = p;
        // Best first; equal scores keep prior order (the candidates were made in that order).
        std::sort(order, order + count, [&](int64_t x, int64_t y) {
            const double sx = score(x), sy = score(y);
            return sx > sy || (sx == sy && x < y);
        });
        if (a.top_k > -1 && count > a.top_k) count = a.top_k;
        const int64_t lc = a.share_location ? 0 : c;
        const int64_t first = total;
        for (int64_t i = 0; i < count; ++i) {
            const int64_t p = order[i];
            const Box& b = boxes[p * g.loc_classes + lc];
            bool ok = true;
            for (int64_t k = first; k < total; ++k)
                if (iou(b, boxes[kept[k].prior * g.loc_classes + lc]) > a.nms_threshold) {
                    ok = false;
                    break;
                }
            if (ok) kept[total] = {score(p), c, p, total}, ++total;
        }
    }
    return total;
}

// keep_top_k over all classes: the best, then back in label order (best first within a label),
// ties in the order they were kept. Returns how many are left.
int64_t keep_top_k(const DetectionAttrs& a, Kept* kept, int64_t total) {
    if (a.keep_top_k <= -1 || total <= a.keep_top_k) return total;
    std::sort(kept, kept + total, [](const Kept& x, const Kept& y) {
        return x.score > y.score || (x.score == y.score && x.at < y.at);
    });
    total = a.keep_top_k;
    std::sort(kept, kept + total, [](const Kept& x, const Kept& y) {
        if (x.label != y.label) return x.label < y.label;
        return x.score > y.score || (x.score == y.score && x.at < y.at);
    });
    return total;
}

template <class T>
void detect(const KernelContext& ctx, const DetectionPlan& plan, Tensor& out) {
    const auto& a = ctx.attrs<DetectionAttrs>();
    const Geometry& g = plan.g;
    const FloatView loc = view(ctx.input(kLoc));
    const FloatView conf = view(ctx.input(kConf));
    const FloatView priors = view(ctx.input(kPriors));
    T* o = out.data<T>();
    const int64_t proposal_rows = ctx.input(kPriors).shape()[1];
    const int64_t prior_batch_elems = proposal_rows * g.priors * g.prior_size;
    auto* scratch = static_cast<std::byte*>(ctx.scratch());
    Box* boxes = reinterpret_cast<Box*>(scratch);
    auto* order = reinterpret_cast<int64_t*>(scratch + plan.order_at);
    Kept* kept = reinterpret_cast<Kept*>(scratch + plan.kept_at);
    int64_t row = 0;
    const auto emit = [&](int64_t n, int64_t label, double score, const Box& b0) {
        if (row >= g.rows) return;
        const Box b = a.clip_after ? clipped(b0) : b0;
        const double v[7] = {static_cast<double>(n), static_cast<double>(label), score, b.xmin, b.ymin, b.xmax, b.ymax};
        for (int j = 0; j < 7; ++j) o[row * 7 + j] = detail::store_as<T>(v[j]);
        ++row;
    };
    for (int64_t n = 0; n < g.batch; ++n) {
        const FloatView pr = priors.at((g.prior_batches == 1 ? 0 : n) * prior_batch_elems);
        decode_boxes(a, g, loc, pr, pr.at(g.priors * g.prior_size), n, boxes);
        const int64_t total = keep_top_k(a, kept, nms_per_class(a, g, conf, n, boxes, order, kept));
        for (int64_t k = 0; k < total; ++k) {
            const int64_t lc = a.share_location ? 0 : kept[k].label;
            emit(n, kept[k].label, kept[k].score, boxes[kept[k].prior * g.loc_classes + lc]);
        }
    }
    // The end marker, then zeros.
    for (int64_t r = row; r < g.rows; ++r)
        for (int j = 0; j < 7; ++j) o[r * 7 + j] = detail::store_as<T>(r == row && j == 0 ? -1.0 : 0.0);
}

void compute(KernelContext& ctx) {
    const auto& plan = ctx.plan<DetectionPlan>();
    Tensor& out = ctx.output(0);
    IRLITE_CHECK(out.num_elements() == plan.g.rows * 7, ErrorKind::ShapeRule, "kernel-output-mismatch",
                 "output disagrees with the plan");
    switch (out.type()) {
        case ElementType::f16: return detect<float16>(ctx, plan, out);
        case ElementType::bf16: return detect<bfloat16>(ctx, plan, out);
        case ElementType::f64: return detect<double>(ctx, plan, out);
        default: return detect<float>(ctx, plan, out);
    }
}

OpDef make_def(int version, int first, int last) {
    OpDef d;
    d.type = "DetectionOutput";
    d.version = version;
    d.first_opset = first;
    d.last_opset = last;
    d.input_roles = {"box_logits", "class_preds", "proposals", "aux_class_preds", "aux_box_preds"};
    d.min_inputs = 3;
    if (version == 1) d.parse_attrs = [](const AttrReader& r) { return parse(r, true); };
    else d.parse_attrs = [](const AttrReader& r) { return parse(r, false); };
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace

OpDef make_detection_output_1_op() { return make_def(1, 1, 7); }
OpDef make_detection_output_8_op() { return make_def(8, 8, kLatestOpset); }

}  // namespace irlite
