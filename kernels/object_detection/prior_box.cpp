// PriorBox-1 (opset1..7), PriorBox-8 (opset8+) and PriorBoxClustered-1 (opset1+): the SSD prior
// (anchor) boxes of a feature map, normalized to the image size.
// Inputs: 0 'output_size' [2] = [layer_height, layer_width], 1 'image_size' [2] = [image_height,
// image_width] (any integer type; PriorBoxClustered's image_size may be omitted: then the layer
// size). Output f32 [2, 4 * H * W * priors]: row 0 the boxes (xmin, ymin, xmax, ymax) per location
// (row-major over H, W) and prior, row 1 their variances (one value repeated, or 4 per box; none:
// 0.1, OpenVINO's default).
//
// PriorBoxClustered: attributes width, height (equal counts: one prior per pair), step, step_w,
// step_h, offset, clip (default true), variance. Steps: step_w/step_h, else step, else image /
// layer. Center (i + offset) * step; box = center -/+ size / 2, divided by the image size.
//
// PriorBox (Caffe SSD): attributes min_size, max_size, aspect_ratio, flip, clip, step, offset,
// variance, scale_all_sizes (default true), fixed_size, fixed_ratio, density, and for PriorBox-8
// min_max_aspect_ratios_order (default true; PriorBox-1 always has that order). Aspect ratios are
// 1 followed by each given ratio (and its inverse with flip) not within 1e-6 of one already there.
// Step 0: centers (i + 0.5) * image / layer; otherwise (i + offset) * step. Per location and
// min_size: the min_size box, then sqrt(min_size * max_size) if a max_size is paired with it, then
// one box per aspect ratio != 1 (min_size * sqrt(ar) wide, min_size / sqrt(ar) high); with
// min_max_aspect_ratios_order=false the aspect-ratio boxes come before the max box. With
// scale_all_sizes=false (MXNet) the max sizes are ignored, sizes and a non-zero step are scaled by
// the image height, and the aspect-ratio boxes are made for the last min_size only. fixed_size /
// fixed_ratio / density boxes (before the min_size ones) follow OpenVINO's reference.
// With clip every coordinate is clipped to [0, 1].
#include <algorithm>
#include <cmath>

#include "engine/op.hpp"
#include "kernels/detail/index_values.hpp"

namespace irlite {
namespace {

constexpr size_t kOutputSize = 0, kImageSize = 1;

struct PriorBoxAttrs : OpAttrs {
    bool clustered = false;
    // PriorBoxClustered
    std::vector<double> widths, heights;
    double step_w = 0, step_h = 0;
    // PriorBox
    std::vector<double> min_size, max_size, aspect_ratios, fixed_size, fixed_ratio, density;
    bool scale_all_sizes = true, min_max_order = true;
    // both
    double step = 0, offset = 0;
    bool clip = false;
    std::vector<double> variance;
};

std::vector<double> list(const AttrReader& r, const char* name) {
    return r.has(name) ? r.get_f64_list(name) : std::vector<double>{};
}

void check_variance(const std::vector<double>& v) {
    if (v.size() != 0 && v.size() != 1 && v.size() != 4)
        throw Error(ErrorKind::Attribute, "attribute-invalid",
                    str("attribute 'variance' has ", v.size(), " values; it takes 0, 1 or 4"));
}

std::unique_ptr<OpAttrs> parse_clustered(const AttrReader& r) {
    auto a = std::make_unique<PriorBoxAttrs>();
    a->clustered = true;
    a->widths = r.has("width") ? r.get_f64_list("width") : std::vector<double>{1.0};
    a->heights = r.has("height") ? r.get_f64_list("height") : std::vector<double>{1.0};
    if (a->widths.size() != a->heights.size())
        throw Error(ErrorKind::Attribute, "attribute-invalid",
                    str("width has ", a->widths.size(), " values, height has ", a->heights.size(), "; they must pair up"));
    a->clip = r.get_bool("clip", true);
    a->step = r.get_f64("step", 0.0);
    a->step_w = r.get_f64("step_w", 0.0);
    a->step_h = r.get_f64("step_h", 0.0);
    a->offset = r.get_f64("offset");
    a->variance = list(r, "variance");
    check_variance(a->variance);
    return a;
}

std::unique_ptr<OpAttrs> parse_prior_box(const AttrReader& r, bool v8) {
    auto a = std::make_unique<PriorBoxAttrs>();
    a->min_size = list(r, "min_size");
    a->max_size = list(r, "max_size");
    const bool flip = r.get_bool("flip", false);
    a->aspect_ratios = {1.0};
    for (const double ar : list(r, "aspect_ratio")) {
        if (!(ar > 0))
            throw Error(ErrorKind::Attribute, "attribute-invalid", str("aspect_ratio ", ar, " must be positive"));
        for (const double candidate : {ar, 1.0 / ar}) {
            if (candidate != ar && !flip) break;
            const bool known = std::any_of(a->aspect_ratios.begin(), a->aspect_ratios.end(),
                                           [&](double x) { return std::fabs(x - candidate) < 1e-6; });
            if (!known) a->aspect_ratios.push_back(candidate);
        }
    }
    a->clip = r.get_bool("clip", false);
    a->step = r.get_f64("step", 0.0);
    a->offset = r.get_f64("offset");
    a->variance = list(r, "variance");
    check_variance(a->variance);
    a->scale_all_sizes = r.get_bool("scale_all_sizes", true);
    a->fixed_size = list(r, "fixed_size");
    a->fixed_ratio = list(r, "fixed_ratio");
    a->density = list(r, "density");
    if (!a->density.empty() && a->density.size() != a->fixed_size.size())
        throw Error(ErrorKind::Attribute, "attribute-invalid",
                    str("density has ", a->density.size(), " values, fixed_size ", a->fixed_size.size(), "; they must pair up"));
    a->min_max_order = v8 ? r.get_bool("min_max_aspect_ratios_order", true) : true;
    return a;
}

// Boxes per location.
int64_t priors_per_point(const PriorBoxAttrs& a) {
    if (a.clustered) return static_cast<int64_t>(a.widths.size());
    const auto ratios = static_cast<int64_t>(a.aspect_ratios.size());
    int64_t n = a.scale_all_sizes ? ratios * static_cast<int64_t>(a.min_size.size()) + static_cast<int64_t>(a.max_size.size())
                                  : ratios + static_cast<int64_t>(a.min_size.size()) - 1;
    if (!a.fixed_size.empty()) n = ratios * static_cast<int64_t>(a.fixed_size.size());
    for (const double d : a.density) {
        const auto rounded = static_cast<int64_t>(d);
        const int64_t extra = rounded * rounded - 1;
        n += (a.fixed_ratio.empty() ? ratios : static_cast<int64_t>(a.fixed_ratio.size())) * extra;
    }
    return std::max<int64_t>(n, 0);
}

// [height, width] from a size input, when known.
std::optional<std::pair<int64_t, int64_t>> known_size(const InferContext& ctx, size_t port) {
    const Tensor* v = ctx.value(port);
    if (!v) return std::nullopt;
    const std::vector<int64_t> s = detail::read_index_values(*v);
    if (s.size() != 2)
        throw ctx.input_error(port, ErrorKind::ShapeRule, "size-invalid",
                              str(ctx.def().input_role(port), " must be a 1D tensor of two elements [height, width], it has ",
                                  s.size()));
    if (s[0] < 0 || s[1] < 0)
        throw ctx.input_error(port, ErrorKind::Value, "size-invalid",
                              str(ctx.def().input_role(port), " = [", s[0], ", ", s[1], "]: sizes must be non-negative"));
    return std::make_pair(s[0], s[1]);
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    for (size_t port = 0; port < ctx.num_inputs(); ++port) {
        detail::require_index_type(ctx, port, detail::IndexTypes::AnyInteger);
        const PartialShape& s = ctx.shape(port);
        if (s.rank_known() && (s.rank() != 1 || !dims_compatible(s[0], 2)))
            throw ctx.input_error(port, ErrorKind::ShapeRule, "size-invalid",
                                  str(ctx.def().input_role(port), " must be a 1D tensor of two elements [height, width], got shape ",
                                      to_string(s)));
    }
    if (ctx.num_inputs() > kImageSize) known_size(ctx, kImageSize);
    const auto layer = known_size(ctx, kOutputSize);
    int64_t dim = kDynamic;
    if (layer) {
        const int64_t priors = priors_per_point(ctx.attrs<PriorBoxAttrs>());
        int64_t n = 4;
        if (__builtin_mul_overflow(n, layer->first, &n) || __builtin_mul_overflow(n, layer->second, &n) ||
            __builtin_mul_overflow(n, priors, &n))
            throw ctx.input_error(kOutputSize, ErrorKind::Limit, "shape-overflow", "the number of boxes overflows int64");
        dim = n;
    }
    return {{ElementType::f32, PartialShape({2, dim})}};
}

// Appends one box, clipped to [0, 1] when asked.
struct BoxWriter {
    float* out;
    int64_t at = 0;
    double inv_w, inv_h;
    bool clip_now;
    void box(double cx, double cy, double half_w, double half_h) {
        const double v[4] = {(cx - half_w) * inv_w, (cy - half_h) * inv_h, (cx + half_w) * inv_w, (cy + half_h) * inv_h};
        for (const double x : v) out[at++] = static_cast<float>(clip_now ? std::min(std::max(x, 0.0), 1.0) : x);
    }
};

void clustered(const PriorBoxAttrs& a, int64_t lh, int64_t lw, int64_t ih, int64_t iw, BoxWriter& w) {
    double step_w = a.step_w, step_h = a.step_h;
    if (step_w == 0 && step_h == 0) step_w = step_h = a.step;
    if (step_w == 0 && step_h == 0) {
        step_w = static_cast<double>(iw) / static_cast<double>(lw);
        step_h = static_cast<double>(ih) / static_cast<double>(lh);
    }
    for (int64_t h = 0; h < lh; ++h)
        for (int64_t x = 0; x < lw; ++x) {
            const double cx = (static_cast<double>(x) + a.offset) * step_w, cy = (static_cast<double>(h) + a.offset) * step_h;
            for (size_t s = 0; s < a.widths.size(); ++s) w.box(cx, cy, a.widths[s] / 2, a.heights[s] / 2);
        }
}

void prior_box(const PriorBoxAttrs& a, int64_t lh, int64_t lw, int64_t ih, int64_t iw, BoxWriter& w) {
    double step = a.step;
    const bool step_zero = a.step == 0;
    // MXNet-style (scale_all_sizes=false): sizes and the step are fractions of the image height.
    const double size_scale = a.scale_all_sizes ? 1.0 : static_cast<double>(ih);
    if (!step_zero) step *= size_scale;
    const auto min_size = [&](size_t m) { return a.min_size[m] * size_scale; };
    const double step_x = step_zero ? static_cast<double>(iw) / static_cast<double>(lw) : step;
    const double step_y = step_zero ? static_cast<double>(ih) / static_cast<double>(lh) : step;
    for (int64_t h = 0; h < lh; ++h)
        for (int64_t x = 0; x < lw; ++x) {
            const double cx = step_zero ? (static_cast<double>(x) + 0.5) * step_x : (a.offset + static_cast<double>(x)) * step;
            const double cy = step_zero ? (static_cast<double>(h) + 0.5) * step_y : (a.offset + static_cast<double>(h)) * step;
            for (size_t s = 0; s < a.fixed_size.size(); ++s) {
                const double fixed = a.fixed_size[s];
                const auto density = a.density.empty() ? int64_t{0} : static_cast<int64_t>(a.density[s]);
                const double shift = density > 0 ? fixed / static_cast<double>(density) : 0;
                // Boxes on a density x density grid inside the fixed box.
                const auto grid = [&](double half_w, double half_h) {
                    for (int64_t r = 0; r < density; ++r)
                        for (int64_t c = 0; c < density; ++c)
                            w.box(cx - fixed / 2 + shift / 2 + static_cast<double>(c) * shift,
                                  cy - fixed / 2 + shift / 2 + static_cast<double>(r) * shift, half_w, half_h);
                };
                if (!a.fixed_ratio.empty()) {
                    for (const double ratio : a.fixed_ratio) {
                        const double ar = std::sqrt(ratio);
                        grid(fixed * 0.5 * ar, fixed * 0.5 / ar);
                    }
                } else {
                    if (!a.density.empty()) grid(fixed * 0.5, fixed * 0.5);
                    for (const double ratio : a.aspect_ratios) {
                        if (std::fabs(ratio - 1.0) < 1e-6) continue;
                        const double ar = std::sqrt(ratio);
                        grid(fixed * 0.5 * ar, fixed * 0.5 / ar);
                    }
                }
            }
            const size_t sizes = a.min_size.size();
            for (size_t m = 0; m < sizes; ++m) {
                const double half = min_size(m) * 0.5;
                w.box(cx, cy, half, half);
                const auto max_box = [&] {
                    if (a.scale_all_sizes && m < a.max_size.size()) {
                        const double side = std::sqrt(min_size(m) * a.max_size[m]) * 0.5;
                        w.box(cx, cy, side, side);
                    }
                };
                const auto ratio_boxes = [&] {
                    if (!a.scale_all_sizes && m + 1 != sizes) return;
                    const size_t base = a.scale_all_sizes ? m : 0;
                    for (const double ratio : a.aspect_ratios) {
                        if (std::fabs(ratio - 1.0) < 1e-6) continue;
                        const double ar = std::sqrt(ratio);
                        w.box(cx, cy, min_size(base) * 0.5 * ar, min_size(base) * 0.5 / ar);
                    }
                };
                if (a.min_max_order) {
                    max_box();
                    ratio_boxes();
                } else {
                    ratio_boxes();
                    max_box();
                }
            }
        }
}

// [height, width] of a size input at run time, into out (no allocation); false unless it has two.
bool read_size(const Tensor& t, int64_t (&out)[2]) {
    if (t.num_elements() != 2) return false;
    detail::read_index_values(t, out);
    return true;
}

// The output's shape is settled before prepare (the sizes are known then, or the output would be
// dynamic); what is left for the kernel is to write the boxes, which depend on the sizes' values.
std::unique_ptr<OpPlan> prepare(const InferContext&) {
    auto plan = std::make_unique<OpPlan>();
    plan->method = "boxes";
    return plan;
}

void compute(KernelContext& ctx) {
    const auto& a = ctx.attrs<PriorBoxAttrs>();
    int64_t layer[2] = {0, 0}, image[2] = {0, 0};
    const bool sizes_ok = read_size(ctx.input(kOutputSize), layer) &&
                          read_size(ctx.input(ctx.num_inputs() > kImageSize ? kImageSize : kOutputSize), image);
    Tensor& out = ctx.output(0);
    const int64_t boxes = out.num_elements() / 2;
    IRLITE_CHECK(sizes_ok && boxes == 4 * layer[0] * layer[1] * priors_per_point(a), ErrorKind::ShapeRule,
                 "kernel-output-mismatch", "output disagrees with the sizes");
    float* o = out.data<float>();
    BoxWriter w{o, 0, image[1] ? 1.0 / static_cast<double>(image[1]) : 0.0, image[0] ? 1.0 / static_cast<double>(image[0]) : 0.0,
                a.clip};
    if (boxes == 0) return;
    if (a.clustered) clustered(a, layer[0], layer[1], image[0], image[1], w);
    else prior_box(a, layer[0], layer[1], image[0], image[1], w);
    IRLITE_CHECK(w.at == boxes, ErrorKind::ShapeRule, "kernel-output-mismatch", "wrote ", w.at, " box values, expected ", boxes);
    float* var = o + boxes;
    for (int64_t i = 0; i < boxes; ++i)
        var[i] = static_cast<float>(a.variance.empty() ? 0.1 : a.variance.size() == 1 ? a.variance[0] : a.variance[static_cast<size_t>(i % 4)]);
}

OpDef make_def(const char* type, int version, int first, int last, AttrParser parse, int min_inputs) {
    OpDef d;
    d.type = type;
    d.version = version;
    d.first_opset = first;
    d.last_opset = last;
    d.input_roles = {"output_size", "image_size"};
    d.min_inputs = min_inputs;
    d.value_inputs = (1u << kOutputSize) | (1u << kImageSize);
    d.parse_attrs = std::move(parse);
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace

OpDef make_prior_box_1_op() {
    return make_def("PriorBox", 1, 1, 7, [](const AttrReader& r) { return parse_prior_box(r, false); }, 2);
}
OpDef make_prior_box_8_op() {
    return make_def("PriorBox", 8, 8, kLatestOpset, [](const AttrReader& r) { return parse_prior_box(r, true); }, 2);
}
OpDef make_prior_box_clustered_op() { return make_def("PriorBoxClustered", 1, 1, kLatestOpset, parse_clustered, 1); }

}  // namespace irlite
