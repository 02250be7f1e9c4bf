// Proposal-1 (opset1..3) and Proposal-4 (opset4+): the region proposals of Faster R-CNN's RPN.
// Inputs (each a floating-point type: f16, bf16, f32, f64; they may differ, as OpenVINO allows):
// 0 'class_probs' [N, 2K, H, W] (channels 0..K-1 background, K..2K-1 foreground scores),
// 1 'bbox_deltas' [N, 4K, H, W] (dx, dy, d_log_w, d_log_h per anchor), 2 'image_shape' [3] =
// (height, width, scale) or [4] = (height, width, scale_height, scale_width). K = |ratio| * |scale|.
// Attributes: base_size, pre_nms_topn, post_nms_topn, nms_thresh, feat_stride, min_size, ratio,
// scale (all required); clip_before_nms (true), clip_after_nms (false), normalize (false),
// box_size_scale (1), box_coordinate_scale (1), framework ("" = Caffe, or "tensorflow").
// Outputs (the type of class_probs): 0 'boxes' [N * post_nms_topn, 5] rows (batch index, x0, y0,
// x1, y1), image n in rows n * post_nms_topn on; Proposal-4 also 1 'probs' [N * post_nms_topn],
// the score of each row (a Proposal-4 layer may declare output 0 only).
//
// What it computes, as OpenVINO's reference and CPU plugin do (every step in f32, whatever the
// element type, as the CPU plugin computes; values converted to the output type at the end):
// - Anchors, one per (ratio r, scale s), anchor index k = r * |scale| + s. Offset o = 1 (Caffe) or
//   0 (tensorflow). Caffe: w_r = round(sqrt(base_size^2 / r)), h_r = round(w_r * r) (half away
//   from zero); tensorflow: the same without rounding. Half sizes (w_r * s - o) / 2, (h_r * s - o)
//   / 2 around the center (base_size - o) / 2; tensorflow also shifts every anchor by
//   -base_size / 2.
// - For each image, position (h, w) and anchor k (proposal index (h * W + w) * K + k): the anchor
//   moved to (x, y) = (w, h) * feat_stride (tensorflow: (h, w) * feat_stride: its x runs along H,
//   and the image "width" it is clipped to is image_shape[0], its "height" image_shape[1]).
//   tensorflow first clips the anchor to [0, width] x [0, height]. Box size ww = x1 - x0 + o,
//   center x0 + ww / 2; dx = delta / box_coordinate_scale, d_log_w = delta / box_size_scale; the
//   new center dx * ww + ctr, the new size exp(d_log_w) * ww, corners center -/+ size / 2. With
//   clip_before_nms, corners are clipped to [0, width - o] x [0, height - o]. The score is the
//   foreground score, times 0 when the box (x1 - x0 + o) is narrower than min_size * scale_width
//   or lower than min_size * scale_height (a box that small keeps its place with score 0: it is
//   not removed).
// - The first min(pre_nms_topn, K * H * W) proposals by descending score (std::partial_sort with
//   "score greater", the call OpenVINO makes: ties come out in the order that algorithm leaves
//   them, identical with the same C++ library), then greedy NMS in that order: a proposal is
//   dropped when the IoU (sizes + o) with a kept one is > nms_thresh; at most post_nms_topn kept.
// - Rows: with clip_after_nms each coordinate clipped to [0, width] / [0, height]; with normalize
//   divided by width / height. After the last kept row, when fewer than post_nms_topn were kept,
//   the rest of the image's rows are 0 with -1 in the first element of the first of them (the
//   terminator); probs of those rows are 0.
// Choices where the specification is silent or OpenVINO's implementations disagree (each also in
// the README):
// - A 4-element image_shape's scale_width is image_shape[3] (the spec, and the CPU plugin).
//   OpenVINO's reference kernel tests the rank instead of the length and always uses
//   image_shape[2]; its test vectors have scale_height = scale_width, so both agree on them.
// - image_shape must be 1-D ([3] or [4]) as OpenVINO's shape inference requires: [1, 3] and
//   [1, 4] are refused, as OpenVINO refuses them.
// - At run time image height and width must be positive normal numbers and the scales finite and
//   >= 0 (the CPU plugin's checks); anything else is an error.
// - class_probs must have 2K channels and bbox_deltas 4K with K = |ratio| * |scale|, and both the
//   same N, H, W: OpenVINO checks only bbox_deltas = 2 x class_probs channels and the batch, and
//   its kernels read outside the inputs otherwise.
// - Attribute ranges: base_size, pre_nms_topn, post_nms_topn (<= 2^31 - 1) and feat_stride >= 1;
//   min_size >= 0 and nms_thresh >= 0 (0 is harmless: no size filter / suppress any overlap);
//   ratio and scale non-empty lists of positive finite numbers; box scales positive finite;
//   framework exactly "" or "tensorflow" (the CPU plugin refuses any other value).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "engine/op.hpp"
#include "kernels/detail/float_value.hpp"

namespace irlite {
namespace {

using detail::load_as;
using detail::store_as;

constexpr size_t kProbs = 0, kDeltas = 1, kImage = 2;

struct ProposalAttrs : OpAttrs {
    int64_t base_size = 0, pre_nms_topn = 0, post_nms_topn = 0, feat_stride = 0, min_size = 0;
    float nms_thresh = 0, box_size_scale = 1, box_coordinate_scale = 1;
    std::vector<float> ratio, scale;
    bool clip_before_nms = true, clip_after_nms = false, normalize = false, tensorflow = false;
    bool v4 = false;
};

[[noreturn]] void invalid(const std::string& message) {
    throw Error(ErrorKind::Attribute, "attribute-invalid", message);
}

int64_t int_attr(const AttrReader& r, const char* name, int64_t lo, int64_t hi) {
    const int64_t v = r.get_i64(name);
    if (v < lo || v > hi) invalid(str("attribute '", name, "' = ", v, ": allowed [", lo, ", ", hi, "]"));
    return v;
}

float positive_float(const AttrReader& r, const char* name, double fallback) {
    const double v = r.get_f64(name, fallback);
    if (!(v > 0) || !std::isfinite(v))
        invalid(str("attribute '", name, "' = ", v, ": it must be a positive finite number (allowed (0, inf))"));
    return static_cast<float>(v);
}

std::vector<float> positive_list(const AttrReader& r, const char* name) {
    const std::vector<double> v = r.get_f64_list(name);
    if (v.empty()) invalid(str("attribute '", name, "' is empty: it takes at least one positive number"));
    std::vector<float> out;
    for (size_t i = 0; i < v.size(); ++i) {
        if (!(v[i] > 0) || !std::isfinite(v[i]))
            invalid(str("attribute '", name, "' value ", i, " = ", v[i],
                        ": every value must be a positive finite number (allowed (0, inf))"));
        out.push_back(static_cast<float>(v[i]));
    }
    return out;
}

std::unique_ptr<OpAttrs> parse(const AttrReader& r, bool v4) {
    constexpr int64_t kI64Max = INT64_MAX, kI32Max = (int64_t{1} << 31) - 1;
    auto a = std::make_unique<ProposalAttrs>();
    a->v4 = v4;
    a->base_size = int_attr(r, "base_size", 1, kI32Max);
    a->pre_nms_topn = int_attr(r, "pre_nms_topn", 1, kI64Max);
    a->post_nms_topn = int_attr(r, "post_nms_topn", 1, kI32Max);
    a->feat_stride = int_attr(r, "feat_stride", 1, kI32Max);
    a->min_size = int_attr(r, "min_size", 0, kI32Max);
    const double nms = r.get_f64("nms_thresh");
    if (!(nms >= 0) || !std::isfinite(nms))
        invalid(str("attribute 'nms_thresh' = ", nms, ": it must be a finite number >= 0 (allowed [0, inf))"));
    a->nms_thresh = static_cast<float>(nms);
    a->ratio = positive_list(r, "ratio");
    a->scale = positive_list(r, "scale");
    a->clip_before_nms = r.get_bool("clip_before_nms", true);
    a->clip_after_nms = r.get_bool("clip_after_nms", false);
    a->normalize = r.get_bool("normalize", false);
    a->box_size_scale = positive_float(r, "box_size_scale", 1.0);
    a->box_coordinate_scale = positive_float(r, "box_coordinate_scale", 1.0);
    const std::string fw = r.get_string("framework", "");
    if (fw != "" && fw != "tensorflow")
        invalid(str("attribute 'framework' = '", fw, "': allowed \"\" (Caffe) or \"tensorflow\""));
    a->tensorflow = fw == "tensorflow";
    return a;
}

int64_t anchor_count(const ProposalAttrs& a) {
    return static_cast<int64_t>(a.ratio.size() * a.scale.size());
}

size_t output_count(const InferContext& ctx) {
    const auto& a = ctx.attrs<ProposalAttrs>();
    if (!a.v4) return 1;
    const int declared = ctx.declared_outputs();
    if (declared > 2)
        throw Error(ErrorKind::Graph, "output-count",
                    str("Proposal-4 has 2 outputs (boxes, probs); the layer declares ", declared));
    return declared <= 0 ? 2 : static_cast<size_t>(declared);
}

// Checks a 4-D score/delta input: rank 4, channels = per_anchor * K.
void check_map(const InferContext& ctx, size_t port, int64_t per_anchor, int64_t k) {
    const PartialShape& s = ctx.shape(port);
    if (!s.rank_known()) return;
    const std::string role = ctx.def().input_role(port);
    if (s.rank() != 4)
        throw ctx.input_error(port, ErrorKind::ShapeRule, "rank-invalid",
                              str(role, " must be 4-D [N, ", per_anchor, "K, H, W], got ", to_string(s)));
    if (!dims_compatible(s[1], per_anchor * k))
        throw ctx.input_error(port, ErrorKind::ShapeRule, "shape-invalid",
                              str(role, " must have ", per_anchor, " * K = ", per_anchor * k,
                                  " channels (K = |ratio| * |scale| = ", k, " anchors), got ", to_string(s)));
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    const auto& a = ctx.attrs<ProposalAttrs>();
    for (size_t i = 0; i < ctx.num_inputs(); ++i)
        if (!is_storable_float(ctx.type(i)))
            throw ctx.input_error(i, ErrorKind::Type, "element-type-unsupported",
                                  str(ctx.def().input_role(i), " must be a floating-point tensor (f16, bf16, f32, f64), got ",
                                      to_string(ctx.type(i))));
    const size_t outputs = output_count(ctx);
    const int64_t k = anchor_count(a);
    check_map(ctx, kProbs, 2, k);
    check_map(ctx, kDeltas, 4, k);
    const PartialShape& p = ctx.shape(kProbs);
    const PartialShape& d = ctx.shape(kDeltas);
    int64_t n = kDynamic;
    if (p.rank_known()) n = p[0];
    if (d.rank_known()) {
        const char* names[] = {"batch", "", "height", "width"};
        if (p.rank_known())
            for (size_t i : {size_t{0}, size_t{2}, size_t{3}})
                if (!dims_compatible(p[i], d[i]))
                    throw ctx.input_error(kDeltas, ErrorKind::ShapeRule, "shape-mismatch",
                                          str("bbox_deltas ", to_string(d), " and class_probs ", to_string(p),
                                              " differ in the ", names[i], " dim: they must have the same N, H and W"));
        if (n == kDynamic) n = d[0];
    }
    const PartialShape& im = ctx.shape(kImage);
    if (im.rank_known() && (im.rank() != 1 || !(dims_compatible(im[0], 3) || dims_compatible(im[0], 4))))
        throw ctx.input_error(kImage, ErrorKind::ShapeRule, im.rank() != 1 ? "rank-invalid" : "shape-invalid",
                              str("image_shape must be 1-D with 3 or 4 elements ([height, width, scale] or [height, width, "
                                  "scale_height, scale_width]), got ",
                                  to_string(im)));
    const int64_t rows = n == kDynamic ? kDynamic : n * a.post_nms_topn;
    const ElementType type = ctx.type(kProbs);
    std::vector<OutputInfo> out = {{type, PartialShape({rows, 5})}, {type, PartialShape({rows})}};
    out.resize(outputs);
    return out;
}

// One proposal, laid out as OpenVINO's kernels lay it out (the sort moves these records).
struct Box {
    float x0, y0, x1, y1, score;
};

struct ProposalPlan : OpPlan {
    int64_t batch = 0, k = 0, height = 0, width = 0, proposals = 0, pre = 0, kept_max = 0;
    std::vector<float> anchors;  // [4][K]: x0, y0, x1, y1 of each anchor at (0, 0)
    size_t boxes_at = 0, dead_at = 0;
};

std::vector<float> make_anchors(const ProposalAttrs& a) {
    const size_t ns = a.scale.size(), k = a.ratio.size() * ns;
    std::vector<float> anchors(4 * k);
    const float off = a.tensorflow ? 0.0f : 1.0f;
    const float base = static_cast<float>(a.base_size);
    const float base_area = static_cast<float>(a.base_size * a.base_size);
    const float center = 0.5f * (base - off), half_base = base * 0.5f;
    for (size_t r = 0; r < a.ratio.size(); ++r) {
        float rw = std::sqrt(base_area / a.ratio[r]);
        float rh = rw * a.ratio[r];
        if (!a.tensorflow) {
            rw = std::round(rw);
            rh = std::round(rw * a.ratio[r]);
        }
        for (size_t s = 0; s < ns; ++s) {
            const float hw = 0.5f * (rw * a.scale[s] - off), hh = 0.5f * (rh * a.scale[s] - off);
            float box[4] = {center - hw, center - hh, center + hw, center + hh};
            for (int c = 0; c < 4; ++c) anchors[static_cast<size_t>(c) * k + r * ns + s] = a.tensorflow ? box[c] - half_base : box[c];
        }
    }
    return anchors;
}

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    infer(ctx);
    const auto& a = ctx.attrs<ProposalAttrs>();
    auto plan = std::make_unique<ProposalPlan>();
    const PartialShape& p = ctx.shape(kProbs);
    plan->batch = p[0];
    plan->k = anchor_count(a);
    plan->height = p[2];
    plan->width = p[3];
    plan->proposals = plan->k * plan->height * plan->width;
    plan->pre = std::min(plan->proposals, a.pre_nms_topn);
    plan->kept_max = std::min(plan->pre, a.post_nms_topn);
    plan->anchors = make_anchors(a);
    const auto kept_bytes = static_cast<size_t>(plan->kept_max) * sizeof(int64_t);
    plan->boxes_at = kept_bytes;
    plan->dead_at = plan->boxes_at + static_cast<size_t>(plan->proposals) * sizeof(Box);
    plan->scratch_bytes = plan->dead_at + static_cast<size_t>(plan->pre);
    plan->method = a.tensorflow ? "rpn-tensorflow" : "rpn-caffe";
    return plan;
}

template <class T>
constexpr bool kFloating = std::is_same_v<T, float16> || std::is_same_v<T, bfloat16> || std::is_same_v<T, float> ||
                           std::is_same_v<T, double>;

// The image's geometry, read from image_shape and checked.
struct Image {
    float height = 0, width = 0, min_h = 0, min_w = 0;
};

Image read_image(const KernelContext& ctx, const ProposalAttrs& a) {
    const Tensor& t = ctx.input(kImage);
    const int64_t n = t.num_elements();
    float v[4] = {0, 0, 0, 0};
    for (int64_t i = 0; i < n && i < 4; ++i) v[i] = static_cast<float>(t.value_as_double(i));
    for (int i = 0; i < 2; ++i)
        if (!std::isnormal(v[i]) || v[i] < 0)
            throw ctx.input_error(kImage, ErrorKind::Value, "image-shape-invalid",
                                  str("image_shape[", i, "] = ", v[i], ": the image ", i == 0 ? "height" : "width",
                                      " must be a positive (normal) number"));
    const float scale_h = v[2], scale_w = n == 4 ? v[3] : v[2];
    for (int i = 2; i < n; ++i)
        if (!std::isfinite(v[i]) || v[i] < 0)
            throw ctx.input_error(kImage, ErrorKind::Value, "image-shape-invalid",
                                  str("image_shape[", i, "] = ", v[i], ": scales must be finite numbers >= 0"));
    Image im;
    // tensorflow boxes have x along H: their "width" is the image height.
    im.height = a.tensorflow ? v[1] : v[0];
    im.width = a.tensorflow ? v[0] : v[1];
    im.min_h = static_cast<float>(a.min_size) * scale_h;
    im.min_w = static_cast<float>(a.min_size) * scale_w;
    return im;
}

float clip(float v, float hi) { return std::max<float>(0.0f, std::min<float>(v, hi)); }

// Every proposal of image n (scores of the foreground channels), unsorted.
template <class TP, class TD>
void enumerate(const KernelContext& ctx, const ProposalPlan& plan, const Image& im, int64_t n, Box* boxes) {
    const auto& a = ctx.attrs<ProposalAttrs>();
    const int64_t k_count = plan.k, hgt = plan.height, wid = plan.width, area = hgt * wid;
    const TP* scores = ctx.input(kProbs).data<TP>() + (n * 2 + 1) * k_count * area;  // foreground half
    const TD* deltas = ctx.input(kDeltas).data<TD>() + n * 4 * k_count * area;
    const float off = a.tensorflow ? 0.0f : 1.0f;
    const float* awm = plan.anchors.data();
    const float* ahm = awm + k_count;
    const float* awp = ahm + k_count;
    const float* ahp = awp + k_count;
    for (int64_t h = 0; h < hgt; ++h)
        for (int64_t w = 0; w < wid; ++w) {
            const float x = static_cast<float>((a.tensorflow ? h : w) * a.feat_stride);
            const float y = static_cast<float>((a.tensorflow ? w : h) * a.feat_stride);
            const int64_t at = h * wid + w;
            Box* out = boxes + at * k_count;
            for (int64_t k = 0; k < k_count; ++k) {
                const float dx = load_as<float>(deltas, (k * 4 + 0) * area + at) / a.box_coordinate_scale;
                const float dy = load_as<float>(deltas, (k * 4 + 1) * area + at) / a.box_coordinate_scale;
                const float dlw = load_as<float>(deltas, (k * 4 + 2) * area + at) / a.box_size_scale;
                const float dlh = load_as<float>(deltas, (k * 4 + 3) * area + at) / a.box_size_scale;
                const float score = load_as<float>(scores, k * area + at);
                float x0 = x + awm[k], y0 = y + ahm[k], x1 = x + awp[k], y1 = y + ahp[k];
                if (a.tensorflow) {
                    x0 = clip(x0, im.width);
                    y0 = clip(y0, im.height);
                    x1 = clip(x1, im.width);
                    y1 = clip(y1, im.height);
                }
                const float ww = x1 - x0 + off, hh = y1 - y0 + off;
                const float cx = x0 + 0.5f * ww, cy = y0 + 0.5f * hh;
                const float pcx = dx * ww + cx, pcy = dy * hh + cy;
                const float pw = std::exp(dlw) * ww, ph = std::exp(dlh) * hh;
                x0 = pcx - 0.5f * pw;
                y0 = pcy - 0.5f * ph;
                x1 = pcx + 0.5f * pw;
                y1 = pcy + 0.5f * ph;
                if (a.clip_before_nms) {
                    x0 = clip(x0, im.width - off);
                    y0 = clip(y0, im.height - off);
                    x1 = clip(x1, im.width - off);
                    y1 = clip(y1, im.height - off);
                }
                const float bw = x1 - x0 + off, bh = y1 - y0 + off;
                const int big = static_cast<int>(im.min_w <= bw) * static_cast<int>(im.min_h <= bh);
                out[k] = {x0, y0, x1, y1, static_cast<float>(big) * score};
            }
        }
}

// IoU of two boxes with sizes + off; 0 when they do not overlap.
float iou(const Box& i, const Box& j, float off) {
    if (!(i.x0 <= j.x1 && i.y0 <= j.y1 && j.x0 <= i.x1 && j.y0 <= i.y1)) return 0.0f;
    const float x0 = std::max(i.x0, j.x0), y0 = std::max(i.y0, j.y0);
    const float x1 = std::min(i.x1, j.x1), y1 = std::min(i.y1, j.y1);
    const float inter = std::max<float>(0.0f, x1 - x0 + off) * std::max<float>(0.0f, y1 - y0 + off);
    const float area_i = (i.x1 - i.x0 + off) * (i.y1 - i.y0 + off);
    const float area_j = (j.x1 - j.x0 + off) * (j.y1 - j.y0 + off);
    return inter / (area_i + area_j - inter);
}

template <class TP, class TD>
void propose(KernelContext& ctx, const ProposalPlan& plan) {
    const auto& a = ctx.attrs<ProposalAttrs>();
    const Image im = read_image(ctx, a);
    auto* scratch = static_cast<std::byte*>(ctx.scratch());
    auto* kept = reinterpret_cast<int64_t*>(scratch);
    auto* boxes = reinterpret_cast<Box*>(scratch + plan.boxes_at);
    auto* dead = reinterpret_cast<unsigned char*>(scratch + plan.dead_at);
    const float off = a.tensorflow ? 0.0f : 1.0f;
    const int64_t post = a.post_nms_topn;
    TP* rois = ctx.output(0).data<TP>();
    TP* probs = ctx.num_outputs() > 1 && ctx.output_needed(1) ? ctx.output(1).data<TP>() : nullptr;
    for (int64_t n = 0; n < plan.batch; ++n) {
        int64_t count = 0;
        if (plan.pre > 0) {  // else an empty map: no proposal
            enumerate<TP, TD>(ctx, plan, im, n, boxes);
            std::partial_sort(boxes, boxes + plan.pre, boxes + plan.proposals,
                              [](const Box& x, const Box& y) { return x.score > y.score; });
            std::memset(dead, 0, static_cast<size_t>(plan.pre));
            for (int64_t b = 0; b < plan.pre && count < plan.kept_max; ++b) {
                if (dead[b]) continue;
                kept[count++] = b;
                if (count == post) break;
                for (int64_t t = b + 1; t < plan.pre; ++t)
                    if (a.nms_thresh < iou(boxes[b], boxes[t], off)) dead[t] = 1;
            }
        }
        TP* out = rois + n * post * 5;
        TP* out_probs = probs ? probs + n * post : nullptr;
        for (int64_t r = 0; r < count; ++r) {
            const Box& b = boxes[kept[r]];
            float c[4] = {b.x0, b.y0, b.x1, b.y1};
            if (a.clip_after_nms) {
                c[0] = clip(c[0], im.width);
                c[1] = clip(c[1], im.height);
                c[2] = clip(c[2], im.width);
                c[3] = clip(c[3], im.height);
            }
            if (a.normalize) {
                c[0] /= im.width;
                c[1] /= im.height;
                c[2] /= im.width;
                c[3] /= im.height;
            }
            out[r * 5] = store_as<TP>(static_cast<float>(n));
            for (int i = 0; i < 4; ++i) out[r * 5 + 1 + i] = store_as<TP>(c[i]);
            if (out_probs) out_probs[r] = store_as<TP>(b.score);
        }
        for (int64_t r = count; r < post; ++r) {
            for (int i = 0; i < 5; ++i) out[r * 5 + i] = store_as<TP>(0.0f);
            if (out_probs) out_probs[r] = store_as<TP>(0.0f);
        }
        if (count < post) out[count * 5] = store_as<TP>(-1.0f);
    }
}

void compute(KernelContext& ctx) {
    const auto& plan = ctx.plan<ProposalPlan>();
    const auto& a = ctx.attrs<ProposalAttrs>();
    IRLITE_CHECK(ctx.output(0).num_elements() == plan.batch * a.post_nms_topn * 5, ErrorKind::ShapeRule,
                 "kernel-output-mismatch", "output 0 disagrees with the plan");
    dispatch_type(ctx.input(kProbs).type(), [&](auto p) {
        using TP = decltype(p);
        if constexpr (kFloating<TP>)
            dispatch_type(ctx.input(kDeltas).type(), [&](auto d) {
                using TD = decltype(d);
                if constexpr (kFloating<TD>) propose<TP, TD>(ctx, plan);
            });
    });
}

OpDef make_def(int version) {
    OpDef d;
    d.type = "Proposal";
    d.version = version;
    d.first_opset = version == 1 ? 1 : 4;
    d.last_opset = version == 1 ? 3 : kLatestOpset;
    d.input_roles = {"class_probs", "bbox_deltas", "image_shape"};
    d.min_inputs = 3;
    d.num_outputs = version == 1 ? 1 : -1;  // Proposal-4: 2, or only the first when the layer declares one
    const bool v4 = version == 4;
    d.parse_attrs = [v4](const AttrReader& r) { return parse(r, v4); };
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace

OpDef make_proposal_1_op() { return make_def(1); }
OpDef make_proposal_4_op() { return make_def(4); }

}  // namespace irlite
