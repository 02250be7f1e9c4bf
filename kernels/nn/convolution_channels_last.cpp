// Convolution's channels-last depthwise method (kernels/nn/convolution_methods.hpp): f32, one
// output per group, small planes ("direct-channels-last").
#include <algorithm>
#include <cstring>

#include "kernels/detail/cpu_isa.hpp"
#include "kernels/detail/parallel.hpp"
#include "kernels/detail/simd.hpp"
#include "kernels/detail/transpose8.hpp"
#include "kernels/nn/convolution_methods.hpp"
#include "kernels/nn/convolution_padded.hpp"

// The kernels below pass GCC/clang vector-extension values between functions of this file only;
// without -mavx, compilers warn that such values would change the ABI of an exported function.
// None is exported (anonymous namespace), so the warning does not apply here.
#if defined(__clang__) || defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace irlite::nn::conv {
namespace {

// ---- depthwise on small planes, channels last --------------------------------------------------
// The deep layers of MobileNet-like networks are many channels of a few pixels (480 x 2x2): one
// plane at a time, fixed costs per plane (padding, dispatch, epilogue) dwarf its 36 multiply-adds.
// There the data is turned channels-last ([H][W][channels], zero-padded, dw_layout's geometry) for
// a block of kDwChannelBlock channels, and each output pixel is made 8 channels a vector, the taps
// in the same order (kh, kw) from a zero sum as dw_rows_vec: the same results. The block's
// outputs, channels last in scratch, are then written back as planes and the epilogue runs over
// the whole block at once.
inline constexpr int64_t kChannelsLastMaxPixels = 64;
inline constexpr int64_t kChannelsLastMinChannels = 32;
// Output rows at least this wide are full 8-float vectors for the planar kernel, which is then
// faster (measured: 96 channels, 8x8 -> 8x8 and 16x16 -> 8x8: 6 and 9 us planar against 7 and 14).
inline constexpr int64_t kChannelsLastBelowWidth = 8;
// Channels per block, about: 64 was faster than 32 and 16 on one thread (fixed costs per block:
// 4.5 against 4.9 and 5.5 us for 480 channels of 2x2), and blocks are rounded to an even number
// per image for two threads (plan_channels_last).
inline constexpr int64_t kDwChannelBlock = 64;

// Block b of an image's channels: [dw_block_start(b), dw_block_start(b + 1)), cut at multiples of 8
// channels (whole vectors; a channel's result does not depend on its block).
int64_t dw_block_start(const ChannelsLastPlan& plan, int64_t channels, int64_t b) {
    const int64_t vectors = (channels + 7) / 8;
    return std::min(channels, b * vectors / plan.blocks * 8);
}

// transpose8: kernels/detail/transpose8.hpp.
using detail::transpose4x8;
using detail::transpose8;

// Channels-last blocks: channels [c0, c0 + cn) of one image x ([C][H][W]) into y ([C][out
// pixels]), through two scratch buffers: xp, the block's data channels last and zero-padded
// (plan.padded's pixels, cn channels each), and out_cl, its outputs channels last. In four steps:
// load, taps, the epilogue (when in the block), store.

// The block's data into xp.
void cl_load_block(const ConvProblem& p, const ChannelsLastPlan& plan, const float* x, int64_t c0, int64_t cn,
                   float* xp) {
    using V8 = simd::f32x8;
    using V4 = simd::f32x4;
    const DwLayout& l = plan.padded;
    const nn::AxisWindow& ah = p.axes[0];
    const nn::AxisWindow& aw = p.axes[1];
    const int64_t in_plane = ah.in * aw.in;
    // Zeros on the padding ring only (the data pixels are all written below): rows above and
    // below the data whole, and the left and right ends of the data rows.
    {
        const int64_t row = l.width * cn, right = (l.width - l.left - aw.in) * cn;
        zero_short(xp, l.top * row);
        float* r = xp + l.top * row;
        for (int64_t h = 0; h < ah.in; ++h, r += row) {
            zero_short(r, l.left * cn);
            zero_short(r + (l.left + aw.in) * cn, right);
        }
        zero_short(r, (l.rows - l.top - ah.in) * row);
    }
    // Data pixel q (row-major in the plane) lands at padded pixel at[q]. 8 channels x 8 pixels are
    // moved as one 8 x 8 transpose; the pixel and channel tails one element at a time.
    const int64_t* at = plan.pixel_at.data();
    int64_t c8 = 0;
    for (; c8 + 8 <= cn; c8 += 8) {
        const float* src = x + (c0 + c8) * in_plane;
        int64_t q = 0;
        for (; q + 8 <= in_plane; q += 8) {
            V8 r[8];
            for (int i = 0; i < 8; ++i) std::memcpy(&r[i], src + i * in_plane + q, sizeof(V8));
            transpose8(r);
            for (int j = 0; j < 8; ++j) std::memcpy(xp + at[q + j] * cn + c8, &r[j], sizeof(V8));
        }
        if (q + 4 <= in_plane) {  // 4 pixels x 8 channels (2x2 planes, 4-pixel tails)
            V8 r[4];
            for (int i = 0; i < 4; ++i) {
                V4 lo, hi;
                std::memcpy(&lo, src + i * in_plane + q, sizeof lo);
                std::memcpy(&hi, src + (i + 4) * in_plane + q, sizeof hi);
                r[i] = __builtin_shufflevector(lo, hi, 0, 1, 2, 3, 4, 5, 6, 7);
            }
            transpose4x8(r);
            for (int k = 0; k < 4; ++k) std::memcpy(xp + at[q + k] * cn + c8, &r[k], sizeof(V8));
            q += 4;
        }
        for (; q < in_plane; ++q) {
            float* dst = xp + at[q] * cn + c8;
            for (int i = 0; i < 8; ++i) dst[i] = src[i * in_plane + q];
        }
    }
    for (int64_t c = c8; c < cn; ++c) {
        const float* src = x + (c0 + c) * in_plane;
        for (int64_t q = 0; q < in_plane; ++q) xp[at[q] * cn + c] = src[q];
    }
}

// Each output pixel of the block from xp into out_cl, 8 channels a vector, the taps in the same
// order (kh, kw) from a zero sum as dw_rows_vec.
void cl_taps(const ConvProblem& p, const ChannelsLastPlan& plan, int64_t c0, int64_t cn, const float* xp,
             float* out_cl) {
    using V8 = simd::f32x8;
    const DwLayout& l = plan.padded;
    const nn::AxisWindow& ah = p.axes[0];
    const nn::AxisWindow& aw = p.axes[1];
    const int64_t channels = p.groups;
    const float* w = plan.weights.data() + c0;
    const int64_t kh_n = ah.kernel, kw_n = aw.kernel;
    int64_t c_done = 0;  // channels made by the 3x3 loop below
    if (kh_n == 3 && kw_n == 3) {
        // 8 channels at a time over all pixels, their 9 weight vectors held in registers: one load
        // per multiply-add instead of two. Same taps in the same order as the loop after it.
        int64_t tap_off[9];
        for (int t = 0; t < 9; ++t) tap_off[t] = ((t / 3) * ah.dilation * l.width + (t % 3) * aw.dilation) * cn;
        for (; c_done + 8 <= cn; c_done += 8) {
            V8 wv[9];
            for (int t = 0; t < 9; ++t) std::memcpy(&wv[t], w + t * channels + c_done, sizeof(V8));
            for (int64_t oh = 0, pix = 0; oh < ah.out; ++oh) {
                const float* row = xp + oh * ah.stride * l.width * cn + c_done;
                for (int64_t ow = 0; ow < aw.out; ++ow, ++pix) {
                    const float* base = row + ow * aw.stride * cn;
                    V8 acc = {};
                    for (int t = 0; t < 9; ++t) {
                        V8 xv;
                        std::memcpy(&xv, base + tap_off[t], sizeof xv);
                        acc += wv[t] * xv;
                    }
                    std::memcpy(out_cl + pix * cn + c_done, &acc, sizeof acc);
                }
            }
        }
    }
    for (int64_t oh = 0, pix = 0; oh < ah.out; ++oh) {
        for (int64_t ow = 0; ow < aw.out; ++ow, ++pix) {
            const float* base = xp + (oh * ah.stride * l.width + ow * aw.stride) * cn;
            float* out = out_cl + pix * cn;
            int64_t c = c_done;
            for (; c + 8 <= cn; c += 8) {
                V8 acc = {};
                for (int64_t kh = 0; kh < kh_n; ++kh)
                    for (int64_t kw = 0; kw < kw_n; ++kw) {
                        V8 wv, xv;
                        std::memcpy(&wv, w + (kh * kw_n + kw) * channels + c, sizeof wv);
                        std::memcpy(&xv, base + (kh * ah.dilation * l.width + kw * aw.dilation) * cn + c, sizeof xv);
                        acc += wv * xv;
                    }
                std::memcpy(out + c, &acc, sizeof acc);
            }
            for (; c < cn; ++c) {
                float acc = 0.0f;
                for (int64_t kh = 0; kh < kh_n; ++kh)
                    for (int64_t kw = 0; kw < kw_n; ++kw)
                        acc += w[(kh * kw_n + kw) * channels + c] *
                               base[(kh * ah.dilation * l.width + kw * aw.dilation) * cn + c];
                out[c] = acc;
            }
        }
    }
}

// The fused bias and ReLU / Clamp on out_cl (ChannelsLastPlan::epilogue_in_block).
void cl_epilogue(const nn::FusedEpilogue& e, int64_t c0, int64_t cn, int64_t pixels, float* out_cl) {
    using V8 = simd::f32x8;
    // Bias and ReLU / Clamp on the block's outputs while they are in L1, 8 channels a vector:
    // the operations of nn::apply_block in its order (the add only with a bias, max and min
    // with MaxNanOp / MinNanOp's rule: x <= c ? c : x, c <= x ? c : x), so the same results.
    using V8i = simd::i32x8;
    const auto pick = [](V8i m, V8 a, V8 b) {  // m ? a : b
        V8i ai, bi;
        std::memcpy(&ai, &a, sizeof ai);
        std::memcpy(&bi, &b, sizeof bi);
        const V8i r = (m & ai) | (~m & bi);
        V8 v;
        std::memcpy(&v, &r, sizeof v);
        return v;
    };
    const float* bias = e.bias_at(c0);
    const bool relu = e.act.kind == ActivationKind::Relu, clamp = e.act.kind == ActivationKind::Clamp;
    const float lo = relu ? 0.0f : e.act.alpha, hi = e.act.beta;
    const V8 lo_v = V8{} + lo, hi_v = V8{} + hi;
    for (int64_t px = 0; px < pixels; ++px) {
        float* o = out_cl + px * cn;
        int64_t c = 0;
        for (; c + 8 <= cn; c += 8) {
            V8 v;
            std::memcpy(&v, o + c, sizeof v);
            if (bias) {
                V8 b;
                std::memcpy(&b, bias + c, sizeof b);
                v = v + b;
            }
            if (relu || clamp) v = pick(v <= lo_v, lo_v, v);
            if (clamp) v = pick(hi_v <= v, hi_v, v);
            std::memcpy(o + c, &v, sizeof v);
        }
        for (; c < cn; ++c) {
            float v = o[c];
            if (bias) v = v + bias[c];
            if (relu || clamp) v = v <= lo ? lo : v;
            if (clamp) v = hi <= v ? hi : v;
            o[c] = v;
        }
    }
}

// out_cl back into the block's output planes of y.
void cl_store_planes(int64_t c0, int64_t cn, int64_t pixels, const float* out_cl, float* y) {
    using V8 = simd::f32x8;
    using V4 = simd::f32x4;
    int64_t px = 0;
    for (; px + 8 <= pixels; px += 8) {  // 8 pixels x 8 channels a transpose
        int64_t ch = 0;
        for (; ch + 8 <= cn; ch += 8) {
            V8 r[8];
            for (int i = 0; i < 8; ++i) std::memcpy(&r[i], out_cl + (px + i) * cn + ch, sizeof(V8));
            transpose8(r);
            for (int j = 0; j < 8; ++j) std::memcpy(y + (c0 + ch + j) * pixels + px, &r[j], sizeof(V8));
        }
        for (; ch < cn; ++ch)
            for (int i = 0; i < 8; ++i) y[(c0 + ch) * pixels + px + i] = out_cl[(px + i) * cn + ch];
    }
    if (px + 4 <= pixels) {  // 4 pixels x 8 channels (2x2 planes, 4-pixel tails)
        int64_t ch = 0;
        for (; ch + 8 <= cn; ch += 8) {
            V8 r[4];
            for (int i = 0; i < 4; ++i) std::memcpy(&r[i], out_cl + (px + i) * cn + ch, sizeof(V8));
            transpose4x8(r);
            for (int k = 0; k < 4; ++k) {
                const V4 lo = __builtin_shufflevector(r[k], r[k], 0, 1, 2, 3), hi = __builtin_shufflevector(r[k], r[k], 4, 5, 6, 7);
                std::memcpy(y + (c0 + ch + k) * pixels + px, &lo, sizeof lo);
                std::memcpy(y + (c0 + ch + k + 4) * pixels + px, &hi, sizeof hi);
            }
        }
        for (; ch < cn; ++ch)
            for (int i = 0; i < 4; ++i) y[(c0 + ch) * pixels + px + i] = out_cl[(px + i) * cn + ch];
        px += 4;
    }
    for (; px < pixels; ++px)
        for (int64_t ch = 0; ch < cn; ++ch) y[(c0 + ch) * pixels + px] = out_cl[px * cn + ch];
}

// The whole block: the four steps above.
void dw_channels_last_block(const ConvProblem& p, const ChannelsLastPlan& plan, const nn::FusedEpilogue& e,
                            const float* x, int64_t c0, int64_t cn, float* xp, float* out_cl, float* y) {
    cl_load_block(p, plan, x, c0, cn, xp);
    cl_taps(p, plan, c0, cn, xp, out_cl);
    if (plan.epilogue_in_block) cl_epilogue(e, c0, cn, p.axes[0].out * p.axes[1].out, out_cl);
    cl_store_planes(c0, cn, p.axes[0].out * p.axes[1].out, out_cl, y);
}

}  // namespace

bool channels_last_fits(ElementType type, const ConvProblem& p, bool constant_filters) {
    return type == ElementType::f32 && p.out_per_group == 1 && p.out_spatial() <= kChannelsLastMaxPixels &&
           p.axes[1].out < kChannelsLastBelowWidth && p.groups >= kChannelsLastMinChannels && constant_filters;
}

ChannelsLastPlan plan_channels_last(const InferContext& ctx, const ConvProblem& p, const nn::FusedEpilogue& e) {
    ChannelsLastPlan plan;
    const int64_t channels = p.groups, taps = p.kernel_size();
    std::vector<float> w(static_cast<size_t>(channels * taps));
    nn::load_as<float>(*ctx.value(1), w.data());
    plan.weights.assign(w.size(), 0.0f);  // [tap][channel]
    for (int64_t c = 0; c < channels; ++c)
        for (int64_t t = 0; t < taps; ++t) plan.weights[static_cast<size_t>(t * channels + c)] = w[static_cast<size_t>(c * taps + t)];
    plan.padded = dw_layout(p);  // pixels, not split by phase: a pixel is a vector of channels
    const DwLayout& l = plan.padded;
    for (int64_t ih = 0; ih < p.axes[0].in; ++ih)
        for (int64_t iw = 0; iw < p.axes[1].in; ++iw) plan.pixel_at.push_back((ih + l.top) * l.width + iw + l.left);
    // About kDwChannelBlock channels a block (a block's padded data stays in L1), and an even
    // number of blocks per image, so that two threads share an image evenly.
    const int64_t vectors = (channels + 7) / 8;
    int64_t blocks = std::max<int64_t>(2, (channels + kDwChannelBlock - 1) / kDwChannelBlock);
    plan.blocks = std::min(vectors, blocks + blocks % 2);
    plan.block_max = 0;
    for (int64_t b = 0; b < plan.blocks; ++b)
        plan.block_max = std::max(plan.block_max, dw_block_start(plan, channels, b + 1) - dw_block_start(plan, channels, b));
    const size_t floats = static_cast<size_t>((plan.padded.rows * plan.padded.width + p.out_spatial()) * plan.block_max);
    // A bias and ReLU / Clamp (no residual) go into the block (its outputs are 4-pixel rows per
    // channel at 2x2: the row-wise epilogue after it cost a third of the layer); others after it.
    plan.epilogue_in_block = e.active && !e.residual &&
                             (e.act.kind == ActivationKind::None || e.act.kind == ActivationKind::Relu ||
                              e.act.kind == ActivationKind::Clamp);
    plan.scratch_bytes = floats * sizeof(float);
    return plan;
}

void run_channels_last(const ConvProblem& p, const ChannelsLastPlan& plan, const nn::FusedEpilogue& e,
                       const ConvTensors<float>& io, const KernelContext& ctx) {
    const float* x = io.x;
    float* y = io.y;
    const float* res = io.res;
    const int64_t in_spatial = p.in_spatial(), out_spatial = p.out_spatial();
    const int64_t channels = p.groups, blocks = plan.blocks;
    const cpu::Isa isa = cpu::active_isa();
    detail::for_chunks(ctx.pool(), p.batch * blocks, 1, [&](int64_t begin, int64_t end) {
        float* xp = static_cast<float*>(ctx.scratch());  // 64-byte aligned
        float* out_cl = xp + plan.padded.rows * plan.padded.width * plan.block_max;
        for (int64_t task = begin; task < end; ++task) {
            const int64_t n = task / blocks, c0 = dw_block_start(plan, channels, task % blocks);
            const int64_t cn = dw_block_start(plan, channels, task % blocks + 1) - c0;
            const float* xn = x + n * channels * in_spatial;
            float* yn = y + n * channels * out_spatial;
            // Compiled for the CPU's level (cpu_isa.hpp); the same operations in the same order at every level.
            cpu::run_at(isa, [&] { dw_channels_last_block(p, plan, e, xn, c0, cn, xp, out_cl, yn); });
            if (!plan.epilogue_in_block)
                finish_block(e, false, c0, yn + c0 * out_spatial, res ? res + (n * channels + c0) * out_spatial : nullptr,
                             out_spatial, cn, out_spatial);
        }
    });
}

}  // namespace irlite::nn::conv
