// ROIAlign-3 (opset3..opset8) and ROIAlign-9 (opset9+): pools every region of interest of a
// feature map into a fixed pooled_h x pooled_w grid of bilinearly interpolated samples (Mask R-CNN).
// Inputs: 0 'data' [N, C, H, W] (f16, bf16, f32, f64), 1 'rois' [NUM_ROIS, 4] of the same type,
// rows [x_1, y_1, x_2, y_2], 2 'batch_indices' [NUM_ROIS] (any integer type). Output
// [NUM_ROIS, C, pooled_h, pooled_w] of data's type.
// Attributes: pooled_h, pooled_w (required, in [1, 2147483647]), sampling_ratio (required, in
// [0, 2147483647]), spatial_scale (required, positive), mode = avg | max (required); ROIAlign-9
// also aligned_mode = asymmetric (default) | half_pixel_for_nn | half_pixel.
//
// Box in map coordinates: asymmetric x' = x * spatial_scale, width = max(x_2' - x_1', 1) (and the
// same for y); half_pixel_for_nn x' = x * spatial_scale - 0.5; half_pixel x' = (x + 0.5) *
// spatial_scale - 0.5; the aligned modes take width = x_2' - x_1' as it is. The box splits into
// pooled_h x pooled_w bins; bin (ph, pw) holds sy x sx samples, sy = sampling_ratio or, when it is
// 0, ceil(bin height) (a bin of height <= 0 then has no samples), at y = y_1' + ph * bin_h +
// (iy + 0.5) * bin_h / sy and the like for x.
// A sample outside [-1, H] x [-1, W] has value 0. Otherwise its coordinates are clamped below at 0;
// a row at or past H - 1 reads row H - 1 alone (the same for columns); the value is the bilinear
// interpolation of the four pixels around it.
// mode=avg: the sum of the bin's sample values over the number of samples (out-of-map samples
// included as 0). mode=max: the maximum of the sample values (an out-of-map sample counts as 0;
// NaN propagates). OpenVINO's reference starts its max at 0, which turns an all-negative bin into
// 0; irlite takes the true maximum. A bin without samples is 0.
// Only samples that can fall inside the map are visited (their index range is computed per bin and
// each candidate is still tested), so a huge box costs no more than one the size of the map.
// Geometry and sums are computed in double; f16/bf16 results are rounded once.
//
// Run-time checks, before any output is written: every batch index in [0, N-1], every ROI
// coordinate finite, and an adaptive sample count (sampling_ratio = 0) at most 2147483647.
// A batch index known at load time (a Const input) is checked then.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/detail/eltwise.hpp"
#include "kernels/detail/index_values.hpp"
#include "kernels/detail/nn_common.hpp"
#include "kernels/detail/float_dispatch.hpp"
#include "kernels/detail/roi_common.hpp"

namespace irlite {
namespace {

constexpr size_t kData = 0, kRois = 1, kBatch = 2;
constexpr int64_t kMaxInt = std::numeric_limits<int32_t>::max();

enum class Aligned { Asymmetric, HalfPixelForNN, HalfPixel };

struct RoiAlignAttrs : OpAttrs {
    int64_t pooled_h = 0, pooled_w = 0, sampling_ratio = 0;
    double spatial_scale = 0;
    bool max = false;
    Aligned aligned = Aligned::Asymmetric;
};

std::unique_ptr<OpAttrs> parse(const AttrReader& r, bool v9) {
    auto a = std::make_unique<RoiAlignAttrs>();
    a->pooled_h = detail::roi_int_attr(r, "pooled_h", 1);
    a->pooled_w = detail::roi_int_attr(r, "pooled_w", 1);
    a->sampling_ratio = detail::roi_int_attr(r, "sampling_ratio", 0);
    a->spatial_scale = detail::spatial_scale_attr(r);
    r.get_string("mode");  // required
    a->max = r.get_enum("mode", {"avg", "max"}, "") == "max";
    if (v9) {
        const std::string m = r.get_enum("aligned_mode", {"asymmetric", "half_pixel_for_nn", "half_pixel"}, "asymmetric");
        a->aligned = m == "half_pixel" ? Aligned::HalfPixel : m == "half_pixel_for_nn" ? Aligned::HalfPixelForNN : Aligned::Asymmetric;
    }
    return a;
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    nn::require_float(ctx, kData);
    nn::require_float(ctx, kRois);
    nn::require_same_type(ctx, kRois, kData);
    nn::require_integer(ctx, kBatch);
    nn::require_rank(ctx, kData, 4, 4, "a 4D tensor [N, C, H, W]");
    nn::require_rank(ctx, kRois, 2, 2, "a 2D tensor [NUM_ROIS, 4]");
    nn::require_rank(ctx, kBatch, 1, 1, "a 1D tensor [NUM_ROIS]");
    const PartialShape& data = ctx.shape(kData);
    const PartialShape& rois = ctx.shape(kRois);
    const PartialShape& batch = ctx.shape(kBatch);
    if (rois.rank_known() && !dims_compatible(rois[1], 4))
        throw ctx.input_error(kRois, ErrorKind::ShapeRule, "rois-shape",
                              str("rois must be [NUM_ROIS, 4] rows [x_1, y_1, x_2, y_2], got shape ", to_string(rois)));
    int64_t num_rois = rois.rank_known() ? rois[0] : kDynamic;
    if (batch.rank_known()) {
        if (!dims_compatible(num_rois, batch[0]))
            throw ctx.input_error(kBatch, ErrorKind::ShapeRule, "shape-mismatch",
                                  str("batch_indices has ", batch[0], " elements but rois has ", num_rois, " rows"));
        if (num_rois == kDynamic) num_rois = batch[0];
    }
    if (const Tensor* v = ctx.value(kBatch); v && data.rank_known() && data[0] != kDynamic) {
        const std::vector<int64_t> ids = detail::read_index_values(*v);
        for (size_t r = 0; r < ids.size(); ++r)
            detail::check_value_in_range(ctx, kBatch, ids[r], 0, data[0] - 1, "batch-index-out-of-range",
                                         str("batch_indices[", r, "] = ", ids[r], " (data has N = ", data[0], ")"));
    }
    const auto& a = ctx.attrs<RoiAlignAttrs>();
    return detail::roi_pooled_output(ctx, num_rois, a.pooled_h, a.pooled_w);
}

using RoiAlignPlan = detail::RoiPlan;

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    infer(ctx);
    auto plan = std::make_unique<RoiAlignPlan>();
    detail::plan_rois(ctx, *plan);
    plan->method = ctx.attrs<RoiAlignAttrs>().max ? "max" : "avg";
    return plan;
}

// One axis of one ROI: the box start, the bin size and the samples per bin.
struct Axis {
    double start = 0, bin = 0, step = 0;
    int64_t count = 0;
    double count_wanted = 0;  // before the limit check (adaptive counts can be huge)
};

Axis make_axis(const RoiAlignAttrs& a, double lo, double hi, int64_t pooled) {
    double src = 0, dst = 0;
    if (a.aligned == Aligned::HalfPixelForNN) dst = -0.5;
    if (a.aligned == Aligned::HalfPixel) src = 0.5, dst = -0.5;
    Axis ax;
    ax.start = (lo + src) * a.spatial_scale + dst;
    double size = (hi + src) * a.spatial_scale + dst - ax.start;
    if (a.aligned == Aligned::Asymmetric) size = std::max(size, 1.0);
    ax.bin = size / static_cast<double>(pooled);
    ax.count_wanted = a.sampling_ratio > 0 ? static_cast<double>(a.sampling_ratio) : std::max(std::ceil(ax.bin), 0.0);
    ax.count = ax.count_wanted <= static_cast<double>(kMaxInt) ? static_cast<int64_t>(ax.count_wanted) : 0;
    ax.step = ax.count > 0 ? ax.bin / static_cast<double>(ax.count) : 0;
    return ax;
}

// A sample's place along an axis of `size` pixels: the two pixels and the weight of the second.
struct Tap {
    int64_t low = 0, high = 0;
    double frac = 0;
};

// False when the coordinate is outside [-1, size].
bool tap_at(double v, int64_t size, Tap& t) {
    if (!(v >= -1.0 && v <= static_cast<double>(size))) return false;
    v = std::max(v, 0.0);
    t.low = static_cast<int64_t>(v);
    if (t.low >= size - 1) {
        t.low = t.high = size - 1;
        t.frac = 0;
    } else {
        t.high = t.low + 1;
        t.frac = v - static_cast<double>(t.low);
    }
    return true;
}

// The sample indices of bin `b` that can land in [-1, size]: a superset (widened by one on each
// side), every candidate is still tested with tap_at.
std::pair<int64_t, int64_t> candidates(const Axis& ax, int64_t b, int64_t size) {
    if (ax.count == 0) return {0, -1};
    if (!(ax.step > 0)) return {0, ax.count - 1};
    const double base = ax.start + static_cast<double>(b) * ax.bin;
    const double last = static_cast<double>(ax.count - 1);
    const double lo = std::clamp(std::floor((-1.0 - base) / ax.step - 0.5) - 1.0, 0.0, last + 1.0);
    const double hi = std::clamp(std::ceil((static_cast<double>(size) - base) / ax.step - 0.5) + 1.0, -1.0, last);
    return {static_cast<int64_t>(lo), static_cast<int64_t>(hi)};
}

double sample_position(const Axis& ax, int64_t b, int64_t i) {
    return ax.start + static_cast<double>(b) * ax.bin + (static_cast<double>(i) + 0.5) * ax.step;
}

template <class T>
void check_rois(const KernelContext& ctx, const RoiAlignPlan& plan, const T* rois, const Tensor& batch) {
    const auto& a = ctx.attrs<RoiAlignAttrs>();
    for (int64_t r = 0; r < plan.rois; ++r) {
        const int64_t id = batch.value_as_int64(r);
        if (id < 0 || id >= plan.n)
            throw ctx.input_error(kBatch, ErrorKind::Value, "batch-index-out-of-range",
                                  str("batch_indices[", r, "] = ", id, " (data has N = ", plan.n,
                                      "): ", detail::value_range_message(id, 0, plan.n - 1)));
        for (int64_t k = 0; k < 4; ++k) {
            const double v = detail::load_double(rois, r * 4 + k);
            if (!std::isfinite(v))
                throw ctx.input_error(kRois, ErrorKind::Value, "roi-invalid",
                                      str("rois[", r, ", ", k, "] = ", v, ": ROI coordinates must be finite numbers"));
        }
        const Axis ys = make_axis(a, detail::load_double(rois, r * 4 + 1), detail::load_double(rois, r * 4 + 3), a.pooled_h);
        const Axis xs = make_axis(a, detail::load_double(rois, r * 4 + 0), detail::load_double(rois, r * 4 + 2), a.pooled_w);
        for (const Axis* ax : {&ys, &xs})
            if (ax->count_wanted > static_cast<double>(kMaxInt))
                throw ctx.input_error(kRois, ErrorKind::Value, "roi-invalid",
                                      str("ROI ", r, " has bins of ", ax->bin, " pixels: sampling_ratio=0 would take ",
                                          ax->count_wanted, " samples per bin along one axis (at most ", kMaxInt, ")"));
    }
}

// Output plane o of ROI r, channel c.
template <class T>
void align_plane(const RoiAlignAttrs& a, const RoiAlignPlan& plan, const T* data, const T* rois, const Tensor& batch,
                 int64_t r, int64_t c, T* o) {
    const int64_t ph_n = a.pooled_h, pw_n = a.pooled_w, H = plan.h, W = plan.w;
    const T* roi = rois + r * 4;
    const Axis ys = make_axis(a, detail::load_double(roi, 1), detail::load_double(roi, 3), ph_n);
    const Axis xs = make_axis(a, detail::load_double(roi, 0), detail::load_double(roi, 2), pw_n);
    const T* plane = data + plan.plane_at(batch.value_as_int64(r), c);
    const double total = static_cast<double>(ys.count) * static_cast<double>(xs.count);
    for (int64_t ph = 0; ph < ph_n; ++ph) {
        const auto [y_lo, y_hi] = candidates(ys, ph, H);
        for (int64_t pw = 0; pw < pw_n; ++pw) {
            const auto [x_lo, x_hi] = candidates(xs, pw, W);
            double sum = 0, m = 0;
            int64_t inside = 0;
            for (int64_t iy = y_lo; iy <= y_hi && H > 0 && W > 0; ++iy) {
                Tap ty;
                if (!tap_at(sample_position(ys, ph, iy), H, ty)) continue;
                for (int64_t ix = x_lo; ix <= x_hi; ++ix) {
                    Tap tx;
                    if (!tap_at(sample_position(xs, pw, ix), W, tx)) continue;
                    const double v = (1 - ty.frac) * ((1 - tx.frac) * detail::load_double(plane, ty.low * W + tx.low) +
                                                      tx.frac * detail::load_double(plane, ty.low * W + tx.high)) +
                                     ty.frac * ((1 - tx.frac) * detail::load_double(plane, ty.high * W + tx.low) +
                                                tx.frac * detail::load_double(plane, ty.high * W + tx.high));
                    if (a.max) {
                        if (inside == 0) m = v;
                        else if (!std::isnan(m) && (v > m || std::isnan(v))) m = v;
                    } else {
                        sum += v;
                    }
                    ++inside;
                }
            }
            double result = 0;
            if (total > 0) {
                if (!a.max) result = sum / total;
                else if (inside == 0) result = 0;
                else result = static_cast<double>(inside) < total && m < 0 ? 0.0 : m;
            }
            detail::store_double(o, ph * pw_n + pw, result);
        }
    }
}

template <class T>
void run(const KernelContext& ctx, const RoiAlignPlan& plan, const Tensor& data, const Tensor& rois, const Tensor& batch,
         Tensor& out) {
    const auto& a = ctx.attrs<RoiAlignAttrs>();
    const T* x = data.data<T>();
    const T* boxes = rois.data<T>();
    T* y = out.data<T>();
    check_rois(ctx, plan, boxes, batch);
    detail::for_each_roi_plane(ctx, plan, a.pooled_h * a.pooled_w, 4096, [&](int64_t r, int64_t c, int64_t out_at) {
        align_plane(a, plan, x, boxes, batch, r, c, y + out_at);
    });
}

void compute(KernelContext& ctx) {
    const auto& plan = ctx.plan<RoiAlignPlan>();
    const Tensor& data = ctx.input(kData);
    const Tensor& rois = ctx.input(kRois);
    const Tensor& batch = ctx.input(kBatch);
    Tensor& out = ctx.output(0);
    detail::dispatch_storable_float(data.type(), [&](auto tag) { run<decltype(tag)>(ctx, plan, data, rois, batch, out); });
}

OpDef make_def(int version, int first, int last) {
    OpDef d;
    d.type = "ROIAlign";
    d.version = version;
    d.first_opset = first;
    d.last_opset = last;
    d.input_roles = {"data", "rois", "batch_indices"};
    d.min_inputs = 3;
    if (version == 9) d.parse_attrs = [](const AttrReader& r) { return parse(r, true); };
    else d.parse_attrs = [](const AttrReader& r) { return parse(r, false); };
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace

OpDef make_roi_align_3_op() { return make_def(3, 3, 8); }
OpDef make_roi_align_9_op() { return make_def(9, 9, kLatestOpset); }

}  // namespace irlite
