#include "kernels/detail/roi_common.hpp"

#include <cmath>
#include <limits>

namespace irlite::detail {

int64_t roi_int_attr(const AttrReader& r, const char* name, int64_t lo) {
    constexpr int64_t kMaxInt = std::numeric_limits<int32_t>::max();
    const int64_t v = r.get_i64(name);
    if (v < lo || v > kMaxInt)
        throw Error(ErrorKind::Attribute, "attribute-invalid",
                    str("attribute '", name, "' = ", v, ": must be in [", lo, ", ", kMaxInt, "]"));
    return v;
}

double spatial_scale_attr(const AttrReader& r) {
    const double scale = r.get_f64("spatial_scale");
    if (!(scale > 0) || !std::isfinite(scale))
        throw Error(ErrorKind::Attribute, "attribute-invalid",
                    str("attribute 'spatial_scale' = ", scale, ": must be a positive finite number"));
    return scale;
}

std::vector<OutputInfo> roi_pooled_output(const InferContext& ctx, int64_t num_rois, int64_t pooled_h,
                                          int64_t pooled_w) {
    const PartialShape& data = ctx.shape(0);
    const int64_t channels = data.rank_known() ? data[1] : kDynamic;
    return {{ctx.type(0), PartialShape({num_rois, channels, pooled_h, pooled_w})}};
}

void plan_rois(const InferContext& ctx, RoiPlan& plan) {
    const Shape& d = ctx.shape(0).dims();
    plan.n = d[0];
    plan.c = d[1];
    plan.h = d[2];
    plan.w = d[3];
    plan.rois = ctx.shape(1)[0];
}

}  // namespace irlite::detail
