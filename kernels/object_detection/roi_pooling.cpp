// ROIPooling-1 (in opset2..opset16; an IR that says opset1 is looked up in opset2, as OpenVINO
// does): pools every region of interest of a feature map into a fixed pooled_h x pooled_w grid.
// Inputs: 0 'data' [N, C, H, W] (f16, bf16, f32, f64), 1 'rois' [NUM_ROIS, 5] of the same type,
// rows [batch_id, x_1, y_1, x_2, y_2]. Output [NUM_ROIS, C, pooled_h, pooled_w] of data's type.
// Attributes: pooled_h, pooled_w (required, in [1, 2147483647]: the spec says "non-negative int",
// OpenVINO's shape inference refuses 0, and so does irlite), spatial_scale (required, positive),
// method = max (default) | bilinear.
//
// method=max (Caffe's ROI pooling): the box corners are scaled by spatial_scale and rounded to
// pixels (half away from zero); the box is (y_2' - y_1' + 1) x (x_2' - x_1' + 1) pixels (both ends
// included), at least 1 x 1 (the spec's max(spatial_scale * (x_2 - x_1), 1) rule for malformed
// boxes). Bin (ph, pw) covers rows [y_1' + floor(ph * h / pooled_h), y_1' + ceil((ph + 1) * h /
// pooled_h)) and the like for columns, computed in exact integer arithmetic, clipped to the map;
// its value is the maximum there (NaN propagates), 0 when the clipped bin is empty. Scaled
// coordinates are clamped to [-2^30, 2^30] before rounding (far outside any feature map).
// method=bilinear: coordinates are normalized to [0, 1]; spatial_scale is not used. Output row ph
// samples y = y_1 * (H - 1) + ph * (y_2 - y_1) * (H - 1) / (pooled_h - 1) (the last row exactly
// y_2 * (H - 1); with pooled_h = 1 the box's center), the same for x; the value is the bilinear
// interpolation of the four pixels around (y, x), 0 when the point is outside [0, H-1] x [0, W-1].
// Geometry and interpolation are computed in double; f16/bf16 results are rounded once.
//
// batch_id is truncated toward zero (a C++ conversion, as OpenVINO's reference does) and must then
// lie in [0, N-1]; a batch_id out of range, or a NaN coordinate, is an error naming the ROI (not a
// memory access). Every ROI is checked before any output is written.
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "kernels/detail/eltwise.hpp"
#include "kernels/detail/nn_common.hpp"
#include "kernels/detail/float_dispatch.hpp"
#include "kernels/detail/roi_common.hpp"

namespace irlite {
namespace {

constexpr size_t kData = 0, kRois = 1;
constexpr double kCoordLimit = 1073741824.0;  // 2^30

struct RoiPoolingAttrs : OpAttrs {
    int64_t pooled_h = 0, pooled_w = 0;
    double spatial_scale = 0;
    bool bilinear = false;
};

std::unique_ptr<OpAttrs> parse(const AttrReader& r) {
    auto a = std::make_unique<RoiPoolingAttrs>();
    a->pooled_h = detail::roi_int_attr(r, "pooled_h", 1);
    a->pooled_w = detail::roi_int_attr(r, "pooled_w", 1);
    a->spatial_scale = detail::spatial_scale_attr(r);
    a->bilinear = r.get_enum("method", {"max", "bilinear"}, "max") == "bilinear";
    return a;
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    nn::require_float(ctx, kData);
    nn::require_float(ctx, kRois);
    nn::require_same_type(ctx, kRois, kData);
    nn::require_rank(ctx, kData, 4, 4, "a 4D tensor [N, C, H, W]");
    nn::require_rank(ctx, kRois, 2, 2, "a 2D tensor [NUM_ROIS, 5]");
    const PartialShape& rois = ctx.shape(kRois);
    if (rois.rank_known() && !dims_compatible(rois[1], 5))
        throw ctx.input_error(kRois, ErrorKind::ShapeRule, "rois-shape",
                              str("rois must be [NUM_ROIS, 5] rows [batch_id, x_1, y_1, x_2, y_2], got shape ",
                                  to_string(rois)));
    const auto& a = ctx.attrs<RoiPoolingAttrs>();
    return detail::roi_pooled_output(ctx, rois.rank_known() ? rois[0] : kDynamic, a.pooled_h, a.pooled_w);
}

using RoiPoolingPlan = detail::RoiPlan;

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    infer(ctx);
    auto plan = std::make_unique<RoiPoolingPlan>();
    detail::plan_rois(ctx, *plan);
    plan->method = ctx.attrs<RoiPoolingAttrs>().bilinear ? "bilinear" : "max";
    return plan;
}

// Every ROI's batch id in range and coordinates not NaN, before anything is written.
template <class T>
void check_rois(const KernelContext& ctx, const RoiPoolingPlan& plan, const T* rois) {
    for (int64_t r = 0; r < plan.rois; ++r) {
        const double id = detail::load_double(rois, r * 5);
        if (!(id > -1.0 && id < static_cast<double>(plan.n)))
            throw ctx.input_error(kRois, ErrorKind::Value, "roi-batch-invalid",
                                  str("rois[", r, ", 0] = ", id, ": batch id not in [0, ", plan.n - 1,
                                      "] (data has N = ", plan.n, ")"));
        for (int64_t k = 1; k < 5; ++k)
            if (std::isnan(detail::load_double(rois, r * 5 + k)))
                throw ctx.input_error(kRois, ErrorKind::Value, "roi-invalid",
                                      str("rois[", r, ", ", k, "] = nan: ROI coordinates must be numbers"));
    }
}

int64_t scaled_pixel(double v, double scale) {
    return static_cast<int64_t>(std::round(std::clamp(v * scale, -kCoordLimit, kCoordLimit)));
}

// Output plane o of ROI r, channel c.
template <class T>
void pool_max(const RoiPoolingAttrs& a, const RoiPoolingPlan& plan, const T* data, const T* rois, int64_t r, int64_t c,
              T* o) {
    const int64_t ph_n = a.pooled_h, pw_n = a.pooled_w, H = plan.h, W = plan.w;
    const T* roi = rois + r * 5;
    const auto batch = static_cast<int64_t>(detail::load_double(roi, 0));
    const int64_t x1 = scaled_pixel(detail::load_double(roi, 1), a.spatial_scale), y1 = scaled_pixel(detail::load_double(roi, 2), a.spatial_scale);
    const int64_t x2 = scaled_pixel(detail::load_double(roi, 3), a.spatial_scale), y2 = scaled_pixel(detail::load_double(roi, 4), a.spatial_scale);
    const int64_t roi_h = std::max<int64_t>(y2 - y1 + 1, 1), roi_w = std::max<int64_t>(x2 - x1 + 1, 1);
    const T* plane = data + plan.plane_at(batch, c);
    for (int64_t ph = 0; ph < ph_n; ++ph) {
        const int64_t hs = std::clamp(y1 + ph * roi_h / ph_n, int64_t{0}, H);
        const int64_t he = std::clamp(y1 + ((ph + 1) * roi_h + ph_n - 1) / ph_n, int64_t{0}, H);
        for (int64_t pw = 0; pw < pw_n; ++pw) {
            const int64_t ws = std::clamp(x1 + pw * roi_w / pw_n, int64_t{0}, W);
            const int64_t we = std::clamp(x1 + ((pw + 1) * roi_w + pw_n - 1) / pw_n, int64_t{0}, W);
            double m = 0;
            if (he > hs && we > ws) {
                m = detail::load_double(plane, hs * W + ws);
                for (int64_t y = hs; y < he; ++y)
                    for (int64_t x = ws; x < we; ++x) {
                        const double v = detail::load_double(plane, y * W + x);
                        if (v > m || std::isnan(v)) m = v;
                        if (std::isnan(m)) break;
                    }
            }
            detail::store_double(o, ph * pw_n + pw, m);
        }
    }
}

// The sample position along one axis of `size` pixels for output index i of `count`.
double bilinear_position(double lo, double hi, int64_t i, int64_t count, int64_t size) {
    const double span = static_cast<double>(size - 1);
    if (count == 1) return 0.5 * (lo + hi) * span;
    if (i == count - 1) return hi * span;
    return static_cast<double>(i) * ((hi - lo) * span / static_cast<double>(count - 1)) + lo * span;
}

// Output plane o of ROI r, channel c.
template <class T>
void pool_bilinear(const RoiPoolingAttrs& a, const RoiPoolingPlan& plan, const T* data, const T* rois, int64_t r,
                   int64_t c, T* o) {
    const int64_t ph_n = a.pooled_h, pw_n = a.pooled_w, H = plan.h, W = plan.w;
    const T* roi = rois + r * 5;
    const auto batch = static_cast<int64_t>(detail::load_double(roi, 0));
    const double x1 = detail::load_double(roi, 1), y1 = detail::load_double(roi, 2), x2 = detail::load_double(roi, 3), y2 = detail::load_double(roi, 4);
    const T* plane = data + plan.plane_at(batch, c);
    for (int64_t ph = 0; ph < ph_n; ++ph) {
        const double y = bilinear_position(y1, y2, ph, ph_n, H);
        for (int64_t pw = 0; pw < pw_n; ++pw) {
            const double x = bilinear_position(x1, x2, pw, pw_n, W);
            double v = 0;
            if (y >= 0 && y <= static_cast<double>(H - 1) && x >= 0 && x <= static_cast<double>(W - 1)) {
                const auto top = static_cast<int64_t>(std::floor(y)), left = static_cast<int64_t>(std::floor(x));
                const int64_t bottom = std::min(top + 1, H - 1), right = std::min(left + 1, W - 1);
                const double dy = y - static_cast<double>(top), dx = x - static_cast<double>(left);
                const double tl = detail::load_double(plane, top * W + left), tr = detail::load_double(plane, top * W + right);
                const double bl = detail::load_double(plane, bottom * W + left), br = detail::load_double(plane, bottom * W + right);
                const double upper = tl + (tr - tl) * dx, lower = bl + (br - bl) * dx;
                v = upper + (lower - upper) * dy;
            }
            detail::store_double(o, ph * pw_n + pw, v);
        }
    }
}

template <class T>
void run(const KernelContext& ctx, const RoiPoolingPlan& plan, const Tensor& data, const Tensor& rois, Tensor& out) {
    const auto& a = ctx.attrs<RoiPoolingAttrs>();
    const T* x = data.data<T>();
    const T* boxes = rois.data<T>();
    T* y = out.data<T>();
    check_rois(ctx, plan, boxes);
    detail::for_each_roi_plane(ctx, plan, a.pooled_h * a.pooled_w, 16384, [&](int64_t r, int64_t c, int64_t out_at) {
        if (a.bilinear) pool_bilinear(a, plan, x, boxes, r, c, y + out_at);
        else pool_max(a, plan, x, boxes, r, c, y + out_at);
    });
}

void compute(KernelContext& ctx) {
    const auto& plan = ctx.plan<RoiPoolingPlan>();
    const Tensor& data = ctx.input(kData);
    const Tensor& rois = ctx.input(kRois);
    Tensor& out = ctx.output(0);
    detail::dispatch_storable_float(data.type(), [&](auto tag) { run<decltype(tag)>(ctx, plan, data, rois, out); });
}

}  // namespace

OpDef make_roi_pooling_op() {
    OpDef d;
    d.type = "ROIPooling";
    d.version = 1;
    d.first_opset = 2;
    d.last_opset = kLatestOpset;
    d.input_roles = {"data", "rois"};
    d.min_inputs = 2;
    d.parse_attrs = parse;
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace irlite
