// What ROIAlign and ROIPooling (kernels/object_detection/) share: their size attributes, the
// output [NUM_ROIS, C, pooled_h, pooled_w], the plan (data's dims and the ROI count) and the walk
// over (ROI, channel) planes of the output, cut into chunks across the request's pool. Each op keeps
// its ROI layout, its checks and how it pools one plane.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "engine/op.hpp"
#include "kernels/detail/parallel.hpp"

namespace irlite::detail {

// An integer attribute in [lo, 2^31 - 1] (OpenVINO holds the pooled sizes and the sampling ratio
// in an int).
int64_t roi_int_attr(const AttrReader& r, const char* name, int64_t lo);

// The required spatial_scale attribute: a positive finite number.
double spatial_scale_attr(const AttrReader& r);

// The output of data (input 0, [N, C, H, W]) pooled over num_rois ROIs into pooled_h x pooled_w.
std::vector<OutputInfo> roi_pooled_output(const InferContext& ctx, int64_t num_rois, int64_t pooled_h,
                                          int64_t pooled_w);

struct RoiPlan : OpPlan {
    int64_t n = 0, c = 0, h = 0, w = 0, rois = 0;
    // Where data's plane (batch b, channel ch) starts, in elements.
    int64_t plane_at(int64_t b, int64_t ch) const { return (b * c + ch) * h * w; }
};

// Fills the plan from the static shapes of data (input 0) and rois (input 1, one ROI a row).
void plan_rois(const InferContext& ctx, RoiPlan& plan);

// Calls pool_plane(r, c, out_at) for every output plane (ROI r, channel c), which starts at
// element out_at = (r * C + c) * bins of the output. Planes go in chunks of about `chunk_bins`
// bins, fixed by the sizes alone (each plane's result does not depend on the chunking).
template <class PoolPlane>
void for_each_roi_plane(const KernelContext& ctx, const RoiPlan& plan, int64_t bins, int64_t chunk_bins,
                        const PoolPlane& pool_plane) {
    const int64_t grain = std::max<int64_t>(1, chunk_bins / std::max<int64_t>(1, bins));
    for_chunks(ctx.pool(), plan.rois * plan.c, grain, [&](int64_t begin, int64_t end) {
        for (int64_t rc = begin; rc < end; ++rc) pool_plane(rc / plan.c, rc % plan.c, rc * bins);
    });
}

}  // namespace irlite::detail
