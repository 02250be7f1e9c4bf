// Depthwise convolution in int8 (convolution_int8_depthwise.hpp): the plan's tiling and tables,
// the padded planes, the portable blocks and the epilogue; the fast blocks are in
// convolution_int8_depthwise_vbmi.cpp.
#include "kernels/nn/convolution_int8_depthwise.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <limits>
#include <vector>

#include "kernels/detail/fake_quantize_row.hpp"
#include "kernels/detail/parallel.hpp"

namespace irlite::nn {

bool int8_depthwise_runs_fast() { return cpu::has_avx512_vbmi() && cpu::has_avx512_vnni(); }

bool int8_depthwise_fits(int64_t kw, int64_t sw, int64_t dw) {
    return kw >= 1 && sw >= 1 && dw >= 1 && (kDepthwiseLanes - 1) * sw + (kw - 1) * dw < kDepthwiseWindow;
}

namespace {

// Extent along one axis of the padded plane: every window inside, the data at pad_begin.
int64_t padded_extent(const AxisWindow& a) {
    return std::max((a.out - 1) * a.stride + a.dilated_kernel(), a.pad_begin + a.in);
}

// Units per batch: the epilogue and the output's quantizer run once per batch.
int64_t unit_batch(const Int8DepthwisePlan& plan) {
    return std::clamp<int64_t>(4096 / std::max<int64_t>(plan.unit_outputs(), 1), 1, 64);
}

// The tiling: channels in the lanes when whole planes of two channels or more fit a block and a
// window, else rows of one channel, as many as fit a window when rows are narrower than a block.
void choose_tiling(Int8DepthwisePlan& plan) {
    const AxisWindow &h = plan.h, &w = plan.w;
    const int64_t outputs = h.out * w.out, plane = plan.rows * plan.cols, in_size = h.in * w.in;
    if (outputs <= kDepthwiseLanes && in_size < kDepthwiseWindow) {
        plan.direct = true;
        plan.group = std::min({kDepthwiseLanes / std::max<int64_t>(outputs, 1), (kDepthwiseWindow - 1) / in_size,
                               plan.channels});
        plan.channel_lanes = plan.group >= 2;
        plan.tile_rows = h.out, plan.tile_cols = w.out;
        return;
    }
    const int64_t group = std::min({kDepthwiseLanes / std::max<int64_t>(outputs, 1), kDepthwiseWindow / plane, plan.channels});
    if (group >= 2) {
        plan.channel_lanes = true;
        plan.group = group;
        plan.tile_rows = h.out, plan.tile_cols = w.out;
        return;
    }
    plan.tile_cols = std::min(w.out, kDepthwiseLanes);
    plan.tile_rows = 1;
    if (w.out >= kDepthwiseLanes) return;
    const int64_t reach = (w.out - 1) * w.stride + (w.kernel - 1) * w.dilation;
    for (int64_t r = std::min(h.out, kDepthwiseLanes / w.out); r > 1; --r)
        if ((r - 1) * h.stride * plan.cols + reach < kDepthwiseWindow) {
            plan.tile_rows = r;
            break;
        }
}

// The direct tiling's permutations: lane (channel, output) picks its taps in the unpadded
// planes, or byte 63 (the zero level) for a tap outside the data.
void build_direct_tables(Int8DepthwisePlan& plan) {
    const AxisWindow &h = plan.h, &w = plan.w;
    const int64_t quads = (w.kernel + 3) / 4, outputs = h.out * w.out, in_size = h.in * w.in;
    const int64_t outside = kDepthwiseWindow - 1;
    for (int64_t ky = 0; ky < h.kernel; ++ky)
        for (int64_t g = 0; g < quads; ++g) {
            plan.window.push_back(0);
            for (int64_t lane = 0; lane < kDepthwiseLanes; ++lane)
                for (int64_t j = 0; j < 4; ++j) {
                    const int64_t ch = lane / outputs, p = lane % outputs, kx = 4 * g + j;
                    const int64_t iy = (p / w.out) * h.stride - h.pad_begin + ky * h.dilation;
                    const int64_t ix = (p % w.out) * w.stride - w.pad_begin + kx * w.dilation;
                    const bool inside = ch < plan.group && kx < w.kernel && iy >= 0 && iy < h.in && ix >= 0 && ix < w.in;
                    plan.index.push_back(static_cast<uint8_t>(inside ? ch * in_size + iy * w.in + ix : outside));
                }
        }
    plan.block_in.push_back(0);
    plan.block_out.push_back(0);
    plan.block_lanes.push_back(static_cast<int32_t>(plan.group * outputs));
}

// Steps (kernel row, four taps at a time): windows and permutations; the blocks of a unit.
void build_tables(Int8DepthwisePlan& plan) {
    if (plan.direct) {
        build_direct_tables(plan);
        return;
    }
    const AxisWindow &h = plan.h, &w = plan.w;
    const int64_t quads = (w.kernel + 3) / 4, plane = plan.rows * plan.cols, outputs = h.out * w.out;
    for (int64_t ky = 0; ky < h.kernel; ++ky)
        for (int64_t g = 0; g < quads; ++g) {
            const int64_t row = ky * h.dilation * plan.cols;
            plan.window.push_back(plan.channel_lanes ? 0 : row);
            for (int64_t lane = 0; lane < kDepthwiseLanes; ++lane) {
                int64_t at = -1;  // the lane's first tap, from the window; -1: an unused lane
                if (plan.channel_lanes && lane < plan.group * outputs) {
                    const int64_t ch = lane / outputs, p = lane % outputs;
                    at = ch * plane + row + (p / w.out) * h.stride * plan.cols + (p % w.out) * w.stride;
                } else if (!plan.channel_lanes && lane < plan.tile_rows * plan.tile_cols) {
                    at = (lane / plan.tile_cols) * h.stride * plan.cols + (lane % plan.tile_cols) * w.stride;
                }
                for (int64_t j = 0; j < 4; ++j) {
                    const int64_t tap = 4 * g + j;
                    const int64_t byte = at < 0 || tap >= w.kernel ? 0 : at + tap * w.dilation;
                    plan.index.push_back(static_cast<uint8_t>(byte));
                }
            }
        }
    if (plan.channel_lanes) {
        plan.block_in.push_back(0);
        plan.block_out.push_back(0);
        plan.block_lanes.push_back(static_cast<int32_t>(plan.group * outputs));
        plan.unit_bytes = std::max(plan.group * plane, kDepthwiseWindow);
        return;
    }
    int64_t reach = 0;
    for (int64_t oy = 0; oy < h.out; oy += plan.tile_rows)
        for (int64_t ox = 0; ox < w.out; ox += plan.tile_cols) {
            plan.block_in.push_back(oy * h.stride * plan.cols + ox * w.stride);
            plan.block_out.push_back(oy * w.out + ox);
            const int64_t lanes = plan.tile_rows > 1 ? std::min(plan.tile_rows, h.out - oy) * w.out
                                                     : std::min(plan.tile_cols, w.out - ox);
            plan.block_lanes.push_back(static_cast<int32_t>(lanes));
            reach = std::max(reach, plan.block_in.back() + plan.window.back() + kDepthwiseWindow);
        }
    plan.unit_bytes = std::max(plane, reach);
}

// Per unit: the steps' weights, start, alpha and beta (Int8DepthwisePlan::terms).
void build_terms(Int8DepthwisePlan& plan, const QuantizedInput& q, const std::vector<float>& alpha_of,
                 const FusedEpilogue& epilogue) {
    const AxisWindow &h = plan.h, &w = plan.w;
    const int64_t quads = (w.kernel + 3) / 4, taps = h.kernel * w.kernel, steps = static_cast<int64_t>(plan.window.size());
    const int64_t outputs = h.out * w.out, units = plan.units();
    plan.lane_values = plan.channel_lanes ? kDepthwiseLanes : 1;
    const int64_t lv = plan.lane_values;
    plan.terms.assign(static_cast<size_t>(units * plan.unit_terms()), 0);
    for (int64_t u = 0; u < units; ++u) {
        int32_t* t = plan.terms.data() + u * plan.unit_terms();
        for (int64_t lane = 0; lane < lv; ++lane) {
            const int64_t c = u * plan.group + (plan.channel_lanes ? lane / outputs : 0);
            if (c >= plan.channels || (plan.channel_lanes && lane >= plan.group * outputs)) continue;
            const int8_t* wc = q.weights.data() + c * taps;
            int32_t sum = 0;
            for (int64_t k = 0; k < taps; ++k) sum += wc[k];
            for (int64_t s = 0; s < steps; ++s) {
                uint32_t quad = 0;
                for (int64_t j = 0; j < 4; ++j) {
                    const int64_t kx = (s % quads) * 4 + j;
                    if (kx < w.kernel) quad |= uint32_t{static_cast<uint8_t>(wc[(s / quads) * w.kernel + kx])} << (8 * j);
                }
                std::memcpy(t + s * lv + lane, &quad, sizeof quad);
            }
            const float alpha = alpha_of[static_cast<size_t>(c)];
            // The bias less the share of a level for 0 between two levels (Int8RowTerms' form).
            const double bias = epilogue.bias.empty() ? 0.0 : epilogue.bias[epilogue.bias.size() == 1 ? 0 : static_cast<size_t>(c)];
            const auto beta = static_cast<float>(bias - static_cast<double>(alpha) * q.zero_offset * sum);
            t[steps * lv + lane] = -q.zero_index * sum;
            std::memcpy(t + (steps + 1) * lv + lane, &alpha, sizeof alpha);
            std::memcpy(t + (steps + 2) * lv + lane, &beta, sizeof beta);
        }
    }
}

// The fused epilogue on `planes` output planes at out (contiguous), then the result at y's plane
// `first` on: f32, or levels.
void finish(const Int8DepthwisePlan& plan, float* out, int64_t planes, int64_t first, void* y, const float* res) {
    const int64_t size = plan.h.out * plan.w.out, n = planes * size;
    if (plan.border.active())
        for (int64_t i = 0; i < planes; ++i) {
            const int64_t c = (first + i) % plan.channels;
            apply_int8_border_fix(plan.border, plan.w.out, c, c + 1, 0, size, out + i * size, size);
        }
    const FusedEpilogue& e = plan.epilogue;
    if (e.active && (e.residual || e.act.kind != ActivationKind::None))
        apply_block(out, n, 1, n, nullptr, nullptr, res ? res + first * size : nullptr, n, e.act);
    if (e.fake_quantize.active) fake_quantize_block(e.fake_quantize, out, n, 1, n);
    if (plan.writes_levels) plan.out_quantizer.quantize(out, n, static_cast<uint8_t*>(y) + first * size);
    else std::memcpy(static_cast<float*>(y) + first * size, out, static_cast<size_t>(n) * sizeof(float));
}

// Units [begin, end) (image * units + unit), a batch at a time, in this thread's scratch: the
// batch's padded planes, then its blocks (one call per image's run of units), then its epilogue.
void run_units(const Int8DepthwisePlan& plan, const void* x, void* y, const float* res, int64_t begin, int64_t end,
               std::byte* scratch) {
    const int64_t in_size = plan.h.in * plan.w.in, out_size = plan.h.out * plan.w.out, batch = unit_batch(plan);
    const int64_t units = plan.units();
    auto* padded = reinterpret_cast<uint8_t*>(scratch);
    float* out = reinterpret_cast<float*>(scratch + (batch * plan.unit_bytes + 63) / 64 * 64);
    auto* buffer = reinterpret_cast<uint8_t*>(out + batch * plan.unit_outputs() + kDepthwiseLanes);
    // The plane of a unit's first channel (at an image's end: the next image's first).
    auto first_plane = [&](int64_t t) { return (t / units) * plan.channels + (t % units) * plan.group; };
    for (int64_t t0 = begin; t0 < end; t0 += batch) {
        const int64_t t1 = std::min(end, t0 + batch), p0 = first_plane(t0), planes = first_plane(t1) - p0;
        const uint8_t* levels = static_cast<const uint8_t*>(x) + p0 * in_size;
        if (!plan.levels_in) {
            plan.quantizer.quantize(static_cast<const float*>(x) + p0 * in_size, planes * in_size, buffer);
            levels = buffer;
        }
        if (!plan.direct) {
            for (int64_t t = t0; t < t1; ++t) {
                const int64_t p = first_plane(t), n = std::min(plan.group, plan.channels - (t % units) * plan.group);
                uint8_t* unit = padded + (t - t0) * plan.unit_bytes;
                if (plan.fast) dw::fill_fast(plan, levels + (p - p0) * in_size, n, unit);
                else dw::fill_portable(plan, levels + (p - p0) * in_size, n, unit);
            }
        }
        for (int64_t t = t0; t < t1;) {
            const int64_t run = std::min(t1, (t / units + 1) * units) - t;  // units of one image
            dw::Units u;
            u.count = run;
            // The run's last unit: its channels (fewer at an image's end).
            const int64_t last_channels = (t + run) % units == 0 ? plan.channels - (units - 1) * plan.group : plan.group;
            u.last_lanes = last_channels * out_size;
            if (plan.direct) {
                u.in = levels + (first_plane(t) - p0) * in_size;
                u.in_stride = plan.group * in_size;
                u.last_valid = last_channels * in_size;
            } else {
                u.in = padded + (t - t0) * plan.unit_bytes;
                u.in_stride = plan.unit_bytes;
            }
            u.terms = plan.terms.data() + (t % units) * plan.unit_terms();
            if (!plan.stores_y) u.out = out + (first_plane(t) - p0) * out_size;
            else if (plan.writes_levels) u.out = static_cast<uint8_t*>(y) + first_plane(t) * out_size;
            else u.out = static_cast<float*>(y) + first_plane(t) * out_size;
            if (plan.fast) dw::units_fast(plan, u);
            else dw::units_portable(plan, u);
            t += run;
        }
        if (!plan.stores_y) finish(plan, out, planes, p0, y, res);
    }
}

}  // namespace

namespace dw {
namespace {

// The block's lanes [0, lanes) to the unit's outputs at `at` (Units::out).
void store_block(const Int8DepthwisePlan& plan, const float (&y)[kDepthwiseLanes], int64_t lanes, void* out, int64_t at) {
    if (!plan.stores_y) std::memcpy(static_cast<float*>(out) + at, y, sizeof y);  // all 16: the buffer's slack
    else if (plan.writes_levels) plan.out_quantizer.quantize(y, lanes, static_cast<uint8_t*>(out) + at);
    else std::memcpy(static_cast<float*>(out) + at, y, static_cast<size_t>(lanes) * sizeof(float));
}

// One unit: per block and lane the same sums as the fast path's, one product at a time; a byte of
// the window at or past `valid` is the zero level (the direct tiling's masked load).
void unit_portable(const Int8DepthwisePlan& plan, const uint8_t* in, int64_t valid, int64_t last_lanes,
                   const int32_t* terms, void* out) {
    const auto steps = static_cast<int64_t>(plan.window.size());
    const int64_t lv = plan.lane_values;
    for (size_t b = 0; b < plan.block_in.size(); ++b) {
        const int64_t base = plan.block_in[b];
        float o[kDepthwiseLanes];
        for (int64_t lane = 0; lane < kDepthwiseLanes; ++lane) {
            const int64_t v = lv == 1 ? 0 : lane;
            int32_t acc = terms[steps * lv + v];
            for (int64_t s = 0; s < steps; ++s) {
                const uint8_t* index = plan.index.data() + s * kDepthwiseWindow + lane * 4;
                uint32_t quad = 0;
                std::memcpy(&quad, terms + s * lv + v, sizeof quad);
                for (int j = 0; j < 4; ++j) {
                    const int64_t at = base + plan.window[static_cast<size_t>(s)] + index[j];
                    const int32_t level = at < valid ? in[at] : plan.zero_index;
                    acc += level * int32_t{static_cast<int8_t>(static_cast<uint8_t>(quad >> (8 * j)))};
                }
            }
            float alpha = 0, beta = 0;
            std::memcpy(&alpha, terms + (steps + 1) * lv + v, sizeof alpha);
            std::memcpy(&beta, terms + (steps + 2) * lv + v, sizeof beta);
            o[lane] = static_cast<float>(acc) * alpha + beta;  // -ffp-contract=off: two roundings, as the fast path
        }
        store_block(plan, o, std::min<int64_t>(plan.block_lanes[b], last_lanes), out, plan.block_out[b]);
    }
}

}  // namespace

void units_portable(const Int8DepthwisePlan& plan, const Units& u) {
    const int64_t full = plan.direct ? plan.group * plan.h.in * plan.w.in : std::numeric_limits<int64_t>::max();
    const size_t out_bytes = plan.stores_y && plan.writes_levels ? 1 : sizeof(float);
    for (int64_t i = 0; i < u.count; ++i) {
        const bool last = i + 1 == u.count;
        unit_portable(plan, u.in + i * u.in_stride, last && plan.direct ? u.last_valid : full,
                      last ? u.last_lanes : kDepthwiseLanes, u.terms + i * plan.unit_terms(),
                      static_cast<std::byte*>(u.out) + static_cast<size_t>(i * plan.unit_outputs()) * out_bytes);
    }
}

// The plan's fields are held in locals: byte stores may alias them.
void fill_portable(const Int8DepthwisePlan& plan, const uint8_t* levels, int64_t n, uint8_t* padded) {
    const int64_t plane = plan.rows * plan.cols, cols = plan.cols, in_h = plan.h.in, in_w = plan.w.in;
    uint8_t* first = padded + plan.h.pad_begin * cols + plan.w.pad_begin;
    std::memset(padded, plan.zero_index, static_cast<size_t>(plan.unit_bytes));
    for (int64_t ch = 0; ch < n; ++ch)
        for (int64_t y = 0; y < in_h; ++y) {
            uint8_t* to = first + ch * plane + y * cols;
            const uint8_t* from = levels + (ch * in_h + y) * in_w;
            if (in_w > 8) std::memcpy(to, from, static_cast<size_t>(in_w));
            else for (int64_t i = 0; i < in_w; ++i) to[i] = from[i];
        }
}

#if !IRLITE_ISA_X86
void units_fast(const Int8DepthwisePlan& plan, const Units& u) { units_portable(plan, u); }
void fill_fast(const Int8DepthwisePlan& plan, const uint8_t* levels, int64_t n, uint8_t* padded) {
    fill_portable(plan, levels, n, padded);
}
#endif

}  // namespace dw

Int8DepthwisePlan plan_int8_depthwise(int64_t channels, const AxisWindow& h, const AxisWindow& w,
                                      const QuantizedInput& q, const FusedEpilogue& epilogue, cpu::Isa isa) {
    Int8DepthwisePlan plan;
    plan.channels = channels;
    plan.h = h, plan.w = w;
    plan.quantizer = Int8Quantizer(q, isa);
    plan.zero_index = static_cast<uint8_t>(q.zero_index);
    plan.levels_in = q.levels_in;
    if (q.levels_out) {
        plan.writes_levels = true;
        plan.out_quantizer = Int8Quantizer(*q.levels_out, isa);
    }
    plan.fast = int8_depthwise_runs_fast() && isa == cpu::Isa::Avx512;  // a cap below takes the portable blocks
    plan.rows = padded_extent(h);
    plan.cols = padded_extent(w);
    choose_tiling(plan);
    build_tables(plan);
    // Per channel: weight_scale * out_step.
    std::vector<float> alpha(static_cast<size_t>(channels));
    for (size_t c = 0; c < alpha.size(); ++c) alpha[c] = q.weight_scale[q.weight_scale.size() == 1 ? 0 : c] * q.out_step;
    build_terms(plan, q, alpha, epilogue);
    plan.epilogue = int8_layer_epilogue(epilogue, plan.writes_levels ? &plan.out_quantizer : nullptr);
    plan.border = int8_border_fix(Int8ConvShape{1, channels, h, w}, q, alpha);
    const FusedEpilogue& e = plan.epilogue;
    plan.stores_y = !plan.border.active() && !e.residual && e.act.kind == ActivationKind::None && !e.fake_quantize.active;
    const int64_t batch = unit_batch(plan);
    const int64_t floats = batch * plan.unit_outputs() + kDepthwiseLanes;
    const int64_t level_bytes = plan.levels_in ? 0 : batch * plan.group * h.in * w.in;
    plan.scratch_bytes = static_cast<size_t>((batch * plan.unit_bytes + 63) / 64 * 64 + floats * 4 + level_bytes + 63) / 64 * 64;
    return plan;
}

void run_int8_depthwise(const Int8DepthwisePlan& plan, int64_t batch, const void* x, void* y, const float* res,
                        const KernelContext& ctx) {
    const int64_t units = plan.units();
    const int64_t grain = std::max<int64_t>(1, 4096 / std::max<int64_t>(plan.unit_outputs(), 1));
    detail::for_chunks(ctx.pool(), batch * units, grain, [&](int64_t begin, int64_t end) {
        run_units(plan, x, y, res, begin, end, static_cast<std::byte*>(ctx.scratch()));
    });
}

}  // namespace irlite::nn
