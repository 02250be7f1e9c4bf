// ExperimentalDetectronROIFeatureExtractor-6 (opset6+): ROIAlign (average mode) over a feature
// pyramid, each ROI pooled from the one pyramid level its size maps it to (Feature Pyramid
// Networks).
// Inputs: 0 'rois' [R, 4] rows (x1, y1, x2, y2) in image coordinates; 1.. 'feature_map0',
// 'feature_map1', ... the L >= 1 levels of the pyramid, each [1, C, H_l, W_l] with the same C. Every
// input has the same floating-point type T (f16, bf16, f32, f64).
// Attributes: output_size (required, > 0), sampling_ratio (required, >= 0), pyramid_scales
// (required, positive integers: image size / level size, one per level), aligned (default false).
// Outputs: 0 [R, C, output_size, output_size] the pooled features, 1 [R, 4] the ROIs (T). A layer
// may declare output 0 only (OpenVINO's own test models do); then only it is made.
//
// Per ROI: w = x2 - x1, h = y2 - y1 and level j = floor(2 + log2(sqrt(w * h) / 224)) (the spec's
// formula, computed in double, no epsilon), clamped to [0, L - 1]. On level j with
// scale = 1 / pyramid_scales[j], ROIAlign-3's average pooling: the ROI's corners are multiplied by
// scale (and, with aligned = true, shifted by -0.5 pixel), its width and height forced to at least
// 1, and it is cut into output_size x output_size bins; each bin averages a grid of
// sampling_ratio x sampling_ratio points (sampling_ratio = 0: ceil(roi_height / output_size) x
// ceil(roi_width / output_size)) at the centres of the grid's cells, each point bilinearly
// interpolated; a point more than one pixel outside the map (y < -1, y > H, x < -1 or x > W)
// counts as 0, one within it is clamped to the map.
// Choices where the specification is silent (each written in the README too):
// - pyramid_scales may list more scales than there are feature maps (OpenVINO's own example
//   lists 5 for 4 maps): the first L are used. Fewer than L is an error.
// - An ROI with w * h <= 0 (or NaN) maps to no level: its features are 0, as OpenVINO's reference.
// - Output 1 is the input ROIs in input order, the order of output 0's rows (the spec calls them
//   "reordered according to their mapping to the pyramid levels", but output 0 keeps the input
//   order, and OpenVINO's reference and CPU plugin copy the input ROIs).
// - A non-finite ROI coordinate is an error (naming the ROI); so is an adaptive grid
//   (sampling_ratio = 0) of more than 2^20 points per bin, which only an ROI thousands of times
//   larger than its feature map needs.
// - Bounds of irlite's own, so that no loop runs unbounded: output_size <= 2^20 and
//   sampling_ratio <= 1024 (attribute errors beyond).
// - aligned = true subtracts 0.5 from every scaled corner (the spec's "offset (-0.5)"), so the ROI
//   moves by half a pixel and keeps its size; the at-least-1 rule applies either way.
// - Feature maps must have batch 1 (the spec's [1, C, H, W]); their sizes are not checked against
//   the scales (the image size is not an input).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "engine/op.hpp"
#include "kernels/detail/eltwise.hpp"
#include "kernels/detail/float_dispatch.hpp"
#include "kernels/detail/parallel.hpp"

namespace irlite {
namespace {

constexpr size_t kRois = 0, kFirstLevel = 1;
constexpr double kCanonicalScale = 224.0;
constexpr double kCanonicalLevel = 2.0;
constexpr double kMaxGridPoints = double(int64_t{1} << 20);

struct RoiFeatureAttrs : OpAttrs {
    int64_t output_size = 0, sampling_ratio = 0;
    std::vector<int64_t> pyramid_scales;
    bool aligned = false;
};

std::unique_ptr<OpAttrs> parse(const AttrReader& r) {
    auto a = std::make_unique<RoiFeatureAttrs>();
    a->output_size = r.get_i64("output_size");
    if (a->output_size <= 0 || a->output_size > (int64_t{1} << 20))
        throw Error(ErrorKind::Attribute, "attribute-invalid",
                    str("attribute 'output_size' = ", a->output_size, ": it must be a positive integer (allowed [1, ",
                        int64_t{1} << 20, "])"));
    a->sampling_ratio = r.get_i64("sampling_ratio");
    if (a->sampling_ratio < 0 || a->sampling_ratio > (int64_t{1} << 10))
        throw Error(ErrorKind::Attribute, "attribute-invalid",
                    str("attribute 'sampling_ratio' = ", a->sampling_ratio,
                        ": it must be a non-negative integer (allowed [0, 1024]; 0 = adaptive)"));
    a->pyramid_scales = r.get_i64_list("pyramid_scales");
    if (a->pyramid_scales.empty())
        throw Error(ErrorKind::Attribute, "attribute-invalid",
                    "attribute 'pyramid_scales' is empty: it takes one positive integer per pyramid level");
    for (size_t i = 0; i < a->pyramid_scales.size(); ++i)
        if (a->pyramid_scales[i] <= 0)
            throw Error(ErrorKind::Attribute, "attribute-invalid",
                        str("attribute 'pyramid_scales' value ", i, " = ", a->pyramid_scales[i],
                            ": scales must be positive integers (allowed [1, ...])"));
    a->aligned = r.get_bool("aligned", false);
    return a;
}

// The output count: what the layer declares (1 or 2); 2 when it declares none (unit tests).
size_t output_count(const InferContext& ctx) {
    const int declared = ctx.declared_outputs();
    if (declared > 2)
        throw Error(ErrorKind::Graph, "output-count",
                    str("ExperimentalDetectronROIFeatureExtractor has 2 outputs (features, rois); the layer declares ",
                        declared));
    return declared <= 0 ? 2 : static_cast<size_t>(declared);
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    const auto& a = ctx.attrs<RoiFeatureAttrs>();
    const ElementType type = ctx.type(kRois);
    if (!is_storable_float(type))
        throw ctx.input_error(kRois, ErrorKind::Type, "element-type-unsupported",
                              str("rois must be a floating-point tensor (f16, bf16, f32, f64), got ", to_string(type)));
    const size_t levels = ctx.num_inputs() - kFirstLevel;
    for (size_t i = kFirstLevel; i < ctx.num_inputs(); ++i)
        if (ctx.type(i) != type)
            throw ctx.input_error(i, ErrorKind::Type, "element-type-mismatch",
                                  str(ctx.def().input_role(i), " is ", to_string(ctx.type(i)), " but rois is ",
                                      to_string(type), ": every input has the same type"));
    if (a.pyramid_scales.size() < levels)
        throw ctx.input_error(ctx.num_inputs() - 1, ErrorKind::Attribute, "attribute-invalid",
                              str("attribute 'pyramid_scales' has ", a.pyramid_scales.size(), " value(s) but the op has ",
                                  levels, " feature maps: it needs at least one scale per map"));
    const size_t outputs = output_count(ctx);
    const PartialShape& rois = ctx.shape(kRois);
    int64_t num_rois = kDynamic;
    if (rois.rank_known()) {
        if (rois.rank() != 2)
            throw ctx.input_error(kRois, ErrorKind::ShapeRule, "rank-invalid",
                                  str("rois must be 2-D [number_of_rois, 4], got ", to_string(rois)));
        if (!dims_compatible(rois[1], 4))
            throw ctx.input_error(kRois, ErrorKind::ShapeRule, "shape-invalid",
                                  str("rois must be [number_of_rois, 4], got ", to_string(rois)));
        num_rois = rois[0];
    }
    int64_t channels = kDynamic;
    size_t channels_from = 0;
    for (size_t i = kFirstLevel; i < ctx.num_inputs(); ++i) {
        const PartialShape& f = ctx.shape(i);
        if (!f.rank_known()) continue;
        if (f.rank() != 4)
            throw ctx.input_error(i, ErrorKind::ShapeRule, "rank-invalid",
                                  str(ctx.def().input_role(i), " must be 4-D [1, C, H, W], got ", to_string(f)));
        if (!dims_compatible(f[0], 1))
            throw ctx.input_error(i, ErrorKind::ShapeRule, "shape-invalid",
                                  str(ctx.def().input_role(i), " must have batch 1, got ", to_string(f)));
        if (f[1] == kDynamic) continue;
        if (channels != kDynamic && f[1] != channels)
            throw ctx.input_error(i, ErrorKind::ShapeRule, "shape-mismatch",
                                  str(ctx.def().input_role(i), " has ", f[1], " channels but ",
                                      ctx.def().input_role(channels_from), " has ", channels,
                                      ": every level has the same channel count"));
        channels = f[1];
        channels_from = i;
    }
    std::vector<OutputInfo> out = {{type, PartialShape({num_rois, channels, a.output_size, a.output_size})}};
    if (outputs > 1) out.push_back({type, PartialShape({num_rois, 4})});
    return out;
}

struct Level {
    int64_t height = 0, width = 0;
    double scale = 1;  // 1 / pyramid_scales[l]
};

struct RoiFeaturePlan : OpPlan {
    int64_t rois = 0, channels = 0, size = 0;
    std::vector<Level> levels;
};

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    infer(ctx);
    const auto& a = ctx.attrs<RoiFeatureAttrs>();
    auto plan = std::make_unique<RoiFeaturePlan>();
    plan->rois = ctx.shape(kRois)[0];
    plan->channels = ctx.shape(kFirstLevel)[1];
    plan->size = a.output_size;
    for (size_t i = kFirstLevel; i < ctx.num_inputs(); ++i) {
        const PartialShape& f = ctx.shape(i);
        plan->levels.push_back({f[2], f[3], 1.0 / static_cast<double>(a.pyramid_scales[i - kFirstLevel])});
    }
    plan->scratch_bytes = static_cast<size_t>(plan->channels) * sizeof(double);  // one bin's sums per channel
    plan->method = "roi-align-pyramid";
    return plan;
}

template <class T>
T from_double(double v) {
    if constexpr (std::is_same_v<T, float16>) return float16{f32_to_f16(static_cast<float>(v))};
    else if constexpr (std::is_same_v<T, bfloat16>) return bfloat16{f32_to_bf16(static_cast<float>(v))};
    else return static_cast<T>(v);
}

// The level an ROI maps to, or -1 when its area is not positive.
int64_t level_of(double x1, double y1, double x2, double y2, int64_t levels) {
    const double area = (x2 - x1) * (y2 - y1);
    if (!(area > 0)) return -1;
    const double j = std::floor(kCanonicalLevel + std::log2(std::sqrt(area) / kCanonicalScale));
    return static_cast<int64_t>(std::min(std::max(j, 0.0), static_cast<double>(levels - 1)));
}

// An ROI on one level, in that level's pixels.
struct RoiGeometry {
    double start_x = 0, start_y = 0, bin_w = 0, bin_h = 0;
    int64_t grid_w = 1, grid_h = 1;
};

// grid sizes as doubles first: the caller checks them before they are used as counts.
RoiGeometry geometry(const RoiFeatureAttrs& a, const Level& level, const double* box, double* grid_h, double* grid_w) {
    const double offset = a.aligned ? 0.5 : 0.0;
    RoiGeometry g;
    g.start_x = box[0] * level.scale - offset;
    g.start_y = box[1] * level.scale - offset;
    const double end_x = box[2] * level.scale - offset, end_y = box[3] * level.scale - offset;
    const double roi_w = std::max(end_x - g.start_x, 1.0), roi_h = std::max(end_y - g.start_y, 1.0);
    const auto size = static_cast<double>(a.output_size);
    g.bin_w = roi_w / size;
    g.bin_h = roi_h / size;
    *grid_h = a.sampling_ratio > 0 ? static_cast<double>(a.sampling_ratio) : std::ceil(roi_h / size);
    *grid_w = a.sampling_ratio > 0 ? static_cast<double>(a.sampling_ratio) : std::ceil(roi_w / size);
    return g;
}

template <class T>
void extract(KernelContext& ctx, const RoiFeaturePlan& plan) {
    const auto& a = ctx.attrs<RoiFeatureAttrs>();
    const T* rois = ctx.input(kRois).data<T>();
    const auto levels = static_cast<int64_t>(plan.levels.size());
    // Checked once, before the parallel part: every coordinate finite, every adaptive grid bounded.
    for (int64_t r = 0; r < plan.rois; ++r) {
        double box[4];
        for (int k = 0; k < 4; ++k) {
            box[k] = detail::load_double(rois, r * 4 + k);
            if (!std::isfinite(box[k]))
                throw ctx.input_error(kRois, ErrorKind::Value, "roi-invalid",
                                      str("ROI ", r, " has the non-finite coordinate ", box[k], " (column ", k,
                                          "): coordinates must be finite numbers"));
        }
        const int64_t l = level_of(box[0], box[1], box[2], box[3], levels);
        if (l < 0) continue;
        double gh = 0, gw = 0;
        geometry(a, plan.levels[static_cast<size_t>(l)], box, &gh, &gw);
        if (gh * gw > kMaxGridPoints)
            throw ctx.input_error(kRois, ErrorKind::Value, "roi-invalid",
                                  str("ROI ", r, " (", box[0], ", ", box[1], ", ", box[2], ", ", box[3],
                                      ") needs an adaptive sampling grid of ", gh, " x ", gw,
                                      " points per bin on its level; at most ", kMaxGridPoints, " are allowed"));
    }
    T* out = ctx.output(0).data<T>();
    const int64_t c_count = plan.channels, s = plan.size, bins = s * s;
    const int64_t per_roi = c_count * bins;
    const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 15) / std::max<int64_t>(1, per_roi));
    detail::for_chunks(ctx.pool(), plan.rois, grain, [&](int64_t begin, int64_t end) {
        auto* acc = static_cast<double*>(ctx.scratch());
        for (int64_t r = begin; r < end; ++r) {
            T* o = out + r * per_roi;
            double box[4];
            for (int k = 0; k < 4; ++k) box[k] = detail::load_double(rois, r * 4 + k);
            const int64_t l = level_of(box[0], box[1], box[2], box[3], levels);
            const Level* level = l >= 0 ? &plan.levels[static_cast<size_t>(l)] : nullptr;
            if (!level || level->height == 0 || level->width == 0) {
                for (int64_t i = 0; i < per_roi; ++i) o[i] = from_double<T>(0.0);
                continue;
            }
            const int64_t H = level->height, W = level->width;
            const T* map = ctx.input(kFirstLevel + static_cast<size_t>(l)).data<T>();
            double gh = 0, gw = 0;
            const RoiGeometry g = geometry(a, *level, box, &gh, &gw);
            const auto grid_h = static_cast<int64_t>(gh), grid_w = static_cast<int64_t>(gw);
            const double count = gh * gw;
            for (int64_t ph = 0; ph < s; ++ph)
                for (int64_t pw = 0; pw < s; ++pw) {
                    std::fill(acc, acc + c_count, 0.0);
                    for (int64_t iy = 0; iy < grid_h; ++iy) {
                        const double y = g.start_y + static_cast<double>(ph) * g.bin_h +
                                   (static_cast<double>(iy) + 0.5) * g.bin_h / gh;
                        for (int64_t ix = 0; ix < grid_w; ++ix) {
                            const double x = g.start_x + static_cast<double>(pw) * g.bin_w +
                                       (static_cast<double>(ix) + 0.5) * g.bin_w / gw;
                            if (y < -1.0 || y > static_cast<double>(H) || x < -1.0 || x > static_cast<double>(W)) continue;
                            double yy = std::max(y, 0.0), xx = std::max(x, 0.0);
                            auto y0 = static_cast<int64_t>(yy), x0 = static_cast<int64_t>(xx);
                            int64_t y1 = y0 + 1, x1 = x0 + 1;
                            if (y0 >= H - 1) y0 = y1 = H - 1, yy = static_cast<double>(y0);
                            if (x0 >= W - 1) x0 = x1 = W - 1, xx = static_cast<double>(x0);
                            const double ly = yy - static_cast<double>(y0), lx = xx - static_cast<double>(x0);
                            const double hy = 1.0 - ly, hx = 1.0 - lx;
                            const double w00 = hy * hx, w01 = hy * lx, w10 = ly * hx, w11 = ly * lx;
                            const int64_t p00 = y0 * W + x0, p01 = y0 * W + x1, p10 = y1 * W + x0, p11 = y1 * W + x1;
                            for (int64_t c = 0; c < c_count; ++c) {
                                const T* f = map + c * H * W;
                                acc[c] += w00 * detail::load_double(f, p00) + w01 * detail::load_double(f, p01) + w10 * detail::load_double(f, p10) + w11 * detail::load_double(f, p11);
                            }
                        }
                    }
                    for (int64_t c = 0; c < c_count; ++c) o[c * bins + ph * s + pw] = from_double<T>(acc[c] / count);
                }
        }
    });
}

void compute(KernelContext& ctx) {
    const auto& plan = ctx.plan<RoiFeaturePlan>();
    Tensor& features = ctx.output(0);
    IRLITE_CHECK(features.num_elements() == plan.rois * plan.channels * plan.size * plan.size, ErrorKind::ShapeRule,
                 "kernel-output-mismatch", "output 0 disagrees with the plan");
    detail::dispatch_storable_float(ctx.input(kRois).type(), [&](auto tag) {
        using T = decltype(tag);
        extract<T>(ctx, plan);
    });
    if (ctx.num_outputs() > 1 && ctx.output_needed(1)) {
        Tensor& rois = ctx.output(1);
        IRLITE_CHECK(rois.byte_size() == ctx.input(kRois).byte_size(), ErrorKind::ShapeRule, "kernel-output-mismatch",
                     "output 1 disagrees with the rois");
        if (rois.byte_size() > 0) std::memcpy(rois.data(), ctx.input(kRois).data(), rois.byte_size());
    }
}

}  // namespace

OpDef make_experimental_detectron_roi_feature_extractor_op() {
    OpDef d;
    d.type = "ExperimentalDetectronROIFeatureExtractor";
    d.version = 6;
    d.first_opset = 6;
    d.last_opset = kLatestOpset;
    d.input_roles = {"rois", "feature_map"};
    d.variadic_inputs = true;
    d.min_inputs = 2;
    d.num_outputs = -1;  // 2, or 1 when the layer declares only the features
    d.parse_attrs = parse;
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace irlite
