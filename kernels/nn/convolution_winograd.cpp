// Convolution's Winograd method (kernels/nn/convolution_methods.hpp): F(2x2, 3x3)
// (kernels/detail/winograd.hpp), 3x3, stride 1, one group, f32 constant filters ("winograd").
#include <algorithm>
#include <cstring>

#include "kernels/detail/cpu_isa.hpp"
#include "kernels/detail/parallel.hpp"
#include "kernels/detail/simd.hpp"
#include "kernels/detail/transpose8.hpp"
#include "kernels/detail/winograd.hpp"
#include "kernels/nn/convolution_methods.hpp"

// The transforms below pass GCC/clang vector-extension values between functions of this file
// only; without -mavx, compilers warn that such values would change the ABI of an exported
// function. None is exported (anonymous namespace), so the warning does not apply here.
#if defined(__clang__) || defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace irlite::nn::conv {
namespace {

// ---- Winograd F(2x2, 3x3) ------------------------------------------------------------------
// Worth it where the GEMMs dominate: both channel counts at least this, output planes of at
// least 16x16 (rows of 8 tiles or more, the transforms' vector width). With fewer channels the
// transforms cost more than the 2.25 times fewer multiply-adds save (BM_Conv3x3Winograd, this
// machine, one thread: 32 -> 32 on 32x32 210 -> 277 us, 32 -> 128 on 8x8 52 -> 102 us); from 64
// on it pays: 64 -> 128 on 16x16 408 -> 317 us, 64 -> 64 on 56x56 2474 -> 1984, 128 -> 128 on
// 28x28 3026 -> 1779. (Rows of fewer than 8 tiles, e.g. 14x14, would need a narrower transform.)
inline constexpr int64_t kWinogradMinChannels = 64;
inline constexpr int64_t kWinogradMinOutput = 16;
// V and M of one band: about this many bytes (a band is at least one row of tiles).
inline constexpr int64_t kWinogradBandBytes = int64_t{2} << 20;

// The padded width of a tile row's input rows: 2 columns per tile and 2 more.
int64_t winograd_row_width(const WinogradPlan& plan) { return 2 * plan.tiles_w + 2; }
// Each padded row split by column parity: tiles_w + 1 entries apiece (the last 8 tiles' loads
// from even[j + 1] end there).
int64_t winograd_phase_floats(const WinogradPlan& plan) { return plan.tiles_w + 1; }

// V of input channel c for tile rows [i0, i1): 8 tiles at a time (rows of 8 tiles or more:
// winograd_fits) from the padded rows split by column parity (tile j's 4 columns are even[j],
// odd[j], even[j + 1], odd[j + 1]). Tile row i reads padded rows 2i .. 2i + 3, so consecutive tile
// rows share two: each padded row is made once, into slot (row % 4) of four. v: the band's V,
// band_tiles per (xi, channel).
void winograd_input_rows(const ConvProblem& p, const WinogradPlan& plan, const float* xc, int64_t c, int64_t i0,
                         int64_t i1, int64_t band_tiles, float* rows, float* v) {
    using V8 = simd::f32x8;
    const nn::AxisWindow& ah = p.axes[0];
    const nn::AxisWindow& aw = p.axes[1];
    const int64_t tw = plan.tiles_w, width = winograd_row_width(plan), pf = winograd_phase_floats(plan);
    const int64_t cin = p.in_per_group;
    float* row = rows;
    float* phases = rows + width;  // [slot][even, odd][pf]
    // The padded row: pad_begin zeros, the data (width >= pad_begin + in: 2 * tiles_w + 2 covers
    // out + 2 = in + both pads), zeros to the end; then split into its slot.
    const auto make_row = [&](int64_t pr) {
        float* even = phases + 2 * (pr % 4) * pf;
        float* odd = even + pf;
        const int64_t ih = pr - ah.pad_begin;
        if (ih < 0 || ih >= ah.in) {
            std::memset(even, 0, sizeof(float) * static_cast<size_t>(2 * pf));
            return;
        }
        std::memset(row, 0, sizeof(float) * static_cast<size_t>(aw.pad_begin));
        std::memcpy(row + aw.pad_begin, xc + ih * aw.in, sizeof(float) * static_cast<size_t>(aw.in));
        std::memset(row + aw.pad_begin + aw.in, 0, sizeof(float) * static_cast<size_t>(width - aw.pad_begin - aw.in));
        detail::split_even_odd(row, width, even, odd);
    };
    for (int64_t pr = 2 * i0; pr < 2 * i0 + 2; ++pr) make_row(pr);
    for (int64_t i = i0; i < i1; ++i) {
        make_row(2 * i + 2);
        make_row(2 * i + 3);
        float* out = v + c * band_tiles + (i - i0) * tw;
        const size_t xi_stride = static_cast<size_t>(cin * band_tiles);
        for (int64_t b = 0; b < tw; b += 8) {
            const int64_t j = std::min<int64_t>(b, tw - 8);  // the last block overlaps: same values
            V8 d[4][4], vv[16];
            for (int r = 0; r < 4; ++r) {
                const float* even = phases + 2 * ((2 * i + r) % 4) * pf;
                const float* odd = even + pf;
                std::memcpy(&d[r][0], even + j, sizeof(V8));
                std::memcpy(&d[r][1], odd + j, sizeof(V8));
                std::memcpy(&d[r][2], even + j + 1, sizeof(V8));
                std::memcpy(&d[r][3], odd + j + 1, sizeof(V8));
            }
            nn::winograd_input_tile(d, vv);
            for (int xi = 0; xi < 16; ++xi) std::memcpy(out + xi * xi_stride + j, &vv[xi], sizeof(V8));
        }
    }
}

// Output channel o's rows [2 * i0, 2 * i1) (within the plane) from M, the band's GEMM results
// (band_tiles per (xi, channel)), 8 tiles (16 columns) at a time.
void winograd_output_rows(const ConvProblem& p, const WinogradPlan& plan, const float* m, int64_t o, int64_t i0,
                          int64_t i1, int64_t band_tiles, float* yo) {
    using V8 = simd::f32x8;
    const int64_t out_h = p.axes[0].out, out_w = p.axes[1].out, tw = plan.tiles_w;
    const size_t xi_stride = static_cast<size_t>(p.out_per_group * band_tiles);
    for (int64_t i = i0; i < i1; ++i) {
        const float* src = m + o * band_tiles + (i - i0) * tw;
        for (int64_t b = 0; b < tw; b += 8) {
            const int64_t j = std::min<int64_t>(b, tw - 8);  // the last block overlaps: same values
            V8 mm[16], yy[2][2];
            for (int xi = 0; xi < 16; ++xi) std::memcpy(&mm[xi], src + xi * xi_stride + j, sizeof(V8));
            nn::winograd_output_tile(mm, yy);
            for (int r = 0; r < 2 && 2 * i + r < out_h; ++r) {
                // Outputs 2j .. 2j + 15 of the row: each tile's two columns side by side.
                const V8 lo = __builtin_shufflevector(yy[r][0], yy[r][1], 0, 8, 1, 9, 2, 10, 3, 11);
                const V8 hi = __builtin_shufflevector(yy[r][0], yy[r][1], 4, 12, 5, 13, 6, 14, 7, 15);
                float pair[16];
                std::memcpy(pair, &lo, sizeof lo);
                std::memcpy(pair + 8, &hi, sizeof hi);
                const int64_t n = std::min<int64_t>(16, out_w - 2 * j);  // an odd width ends mid-tile
                std::memcpy(yo + (2 * i + r) * out_w + 2 * j, pair, sizeof(float) * static_cast<size_t>(n));
            }
        }
    }
}

// The whole convolution, band by band: the input transform by channels, the 16 GEMMs by their
// tiles, the output transform and the fused epilogue by output channels, each across the threads.
// Results depend on no thread count: every value is made by one fixed computation.
}  // namespace

bool winograd_fits(const InferContext& ctx, const ConvProblem& p) {
    if (ctx.type(0) != ElementType::f32 || !ctx.value(1) || p.groups != 1 || p.axes.size() != 2) return false;
    for (const nn::AxisWindow& a : p.axes)
        if (a.kernel != 3 || a.stride != 1 || a.dilation != 1 || a.out < kWinogradMinOutput) return false;
    return p.in_per_group >= kWinogradMinChannels && p.out_per_group >= kWinogradMinChannels;
}

WinogradPlan plan_winograd(const InferContext& ctx, const ConvProblem& p) {
    WinogradPlan plan;
    const int64_t cin = p.in_per_group, cout = p.out_per_group;
    plan.tiles_h = (p.axes[0].out + 1) / 2;
    plan.tiles_w = (p.axes[1].out + 1) / 2;
    const int64_t tw = plan.tiles_w, th = plan.tiles_h;
    const int64_t row_bytes = 16 * (cin + cout) * tw * static_cast<int64_t>(sizeof(float));
    plan.band_rows = std::clamp<int64_t>(kWinogradBandBytes / std::max<int64_t>(row_bytes, 1), 1, th);
    const int64_t band_tiles = plan.band_rows * tw, last = th % plan.band_rows;
    const int workers = nn::gemm_workers(ctx.threads());
    plan.full = nn::plan_gemm(cout, band_tiles, cin, true, false, workers);
    plan.tail = nn::plan_gemm(cout, (last ? last : plan.band_rows) * tw, cin, true, false, workers);
    // The filters transformed, then each of the 16 [Cout, Cin] matrices packed as A (the same
    // panels serve both plans: they depend on M and K only).
    std::vector<float> w(static_cast<size_t>(cout * cin * 9)), u(static_cast<size_t>(16 * cout * cin));
    nn::load_as<float>(*ctx.value(1), w.data());
    nn::winograd_filters(w.data(), cout, cin, u.data());
    plan.u_floats = nn::packed_a_floats(plan.full);
    plan.u.assign(16 * plan.u_floats, 0.0f);
    for (int64_t xi = 0; xi < 16; ++xi)
        nn::pack_a(plan.full, u.data() + xi * cout * cin, cin, false, plan.u.data() + xi * plan.u_floats);
    const auto bytes = [](int64_t floats) { return (static_cast<size_t>(floats) * sizeof(float) + 63) / 64 * 64; };
    plan.v_offset = 0;
    plan.m_offset = bytes(16 * cin * band_tiles);
    plan.rows_offset = plan.m_offset + bytes(16 * cout * band_tiles);
    plan.gemm_offset = plan.rows_offset + bytes(winograd_row_width(plan) + 8 * winograd_phase_floats(plan));
    plan.scratch_bytes = plan.gemm_offset + std::max(nn::scratch_bytes(plan.full), nn::scratch_bytes(plan.tail));
    return plan;
}

void run_winograd(const ConvProblem& p, const WinogradPlan& plan, const nn::FusedEpilogue& e,
                  const ConvTensors<float>& io, const KernelContext& ctx) {
    const float* x = io.x;
    float* y = io.y;
    const float* res = io.res;
    const int64_t cin = p.in_per_group, cout = p.out_per_group, th = plan.tiles_h, tw = plan.tiles_w;
    const int64_t in_spatial = p.in_spatial(), out_spatial = p.out_spatial(), out_h = p.axes[0].out, out_w = p.axes[1].out;
    auto* mine = static_cast<std::byte*>(ctx.scratch());
    float* v = reinterpret_cast<float*>(mine + plan.v_offset);
    float* m = reinterpret_cast<float*>(mine + plan.m_offset);
    const cpu::Isa isa = cpu::active_isa();
    for (int64_t n = 0; n < p.batch; ++n) {
        const float* xn = x + n * cin * in_spatial;
        float* yn = y + n * cout * out_spatial;
        const float* rn = res ? res + n * cout * out_spatial : nullptr;
        for (int64_t i0 = 0; i0 < th; i0 += plan.band_rows) {
            const int64_t i1 = std::min(th, i0 + plan.band_rows), band_tiles = (i1 - i0) * tw;
            const nn::GemmPlan& gp = i1 - i0 == plan.band_rows ? plan.full : plan.tail;
            detail::for_chunks(ctx.pool(), cin, 4, [&](int64_t c0, int64_t c1) {
                float* rows = reinterpret_cast<float*>(static_cast<std::byte*>(ctx.scratch()) + plan.rows_offset);
                cpu::run_at(isa, [&] {
                    for (int64_t c = c0; c < c1; ++c) winograd_input_rows(p, plan, xn + c * in_spatial, c, i0, i1, band_tiles, rows, v);
                });
            });
            const int64_t tiles = gp.tiles();
            detail::for_chunks(ctx.pool(), 16 * tiles, 1, [&](int64_t t0, int64_t t1) {
                void* gemm_scratch = static_cast<std::byte*>(ctx.scratch()) + plan.gemm_offset;
                for (int64_t t = t0; t < t1; ++t) {
                    const int64_t xi = t / tiles;
                    nn::run_gemm_tile(gp, t % tiles, nn::GemmOperand::prepacked(plan.u.data() + xi * plan.u_floats),
                                      nn::GemmOperand::plain(v + xi * cin * band_tiles, band_tiles),
                                      m + xi * cout * band_tiles, band_tiles, nn::GemmEpilogue{}, gemm_scratch);
                }
            });
            const int64_t first = 2 * i0 * out_w, len = (std::min(2 * i1, out_h) - 2 * i0) * out_w;
            detail::for_chunks(ctx.pool(), cout, 4, [&](int64_t o0, int64_t o1) {
                cpu::run_at(isa, [&] {
                    for (int64_t o = o0; o < o1; ++o) winograd_output_rows(p, plan, m, o, i0, i1, band_tiles, yn + o * out_spatial);
                });
                finish_block(e, false, o0, yn + o0 * out_spatial + first, rn ? rn + o0 * out_spatial + first : nullptr,
                             out_spatial, o1 - o0, len);
            });
        }
    }
}

}  // namespace irlite::nn::conv
