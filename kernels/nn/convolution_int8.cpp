#include "kernels/nn/convolution_int8.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "kernels/detail/fake_quantize_row.hpp"
#include "kernels/detail/parallel.hpp"
#include "kernels/detail/quantize_levels.hpp"
#include "kernels/detail/transpose8.hpp"

namespace irlite::nn {
namespace {

// GEMM tasks: blocks of output channels x output pixels, fixed by the sizes alone: kTaskRows
// rows in the row form, two panels (up to 32 rows) in the column form.
constexpr int64_t kTaskRows = 4 * kInt8Rows;
constexpr int64_t kMaxTaskRows = 32;
constexpr int64_t kTaskColumns = 128;
static_assert(kTaskRows <= kMaxTaskRows, "a task's rows fit run_block_to_levels' tile");

// Channel quad cq's quads (Int8Quantizer::quantize_quads) of the lines `at` from element `first`
// of each channel's plane (planes of `stride` elements at x): quantized from f32, or joined when
// the data is levels already (Int8ConvPlan::levels_in); the zero level for channels past the data's.
void quads_of(const Int8ConvPlan& plan, const void* x, int64_t stride, int64_t cq, int64_t first,
              const Int8Quantizer::QuadLines& at, uint8_t* quads) {
    const int64_t valid = std::clamp<int64_t>(plan.shape.channels - cq * 4, 0, 4);
    if (plan.levels_in) {
        const uint8_t* rows[4] = {};
        for (int64_t j = 0; j < valid; ++j) rows[j] = static_cast<const uint8_t*>(x) + (cq * 4 + j) * stride + first;
        plan.quantizer.levels_as_quads(rows, at, quads);
    } else {
        const float* rows[4] = {};
        for (int64_t j = 0; j < valid; ++j) rows[j] = static_cast<const float*>(x) + (cq * 4 + j) * stride + first;
        plan.quantizer.quantize_quads(rows, at, quads);
    }
}

// n pixels' quads (4 bytes each), of padded columns [px, px + n) of one row, into that row of each
// column phase: column x goes to phase x % phases, at x / phases; row0 is the row in phase 0,
// phase_bytes the distance between phases. Stride 2 by even/odd shuffles (transpose8.hpp), any
// other in one strided pass per phase.
void split_phases(const uint32_t* quads, int64_t n, int64_t px, int64_t phases, uint8_t* row0, int64_t phase_bytes) {
    if (phases == 2) {  // stride 2, the common one: pixel px + j goes to phase (px + j) % 2, at (px + j) / 2
        detail::split_even_odd(quads, n, reinterpret_cast<uint32_t*>(row0 + px % 2 * phase_bytes + px / 2 * 4),
                               reinterpret_cast<uint32_t*>(row0 + (px + 1) % 2 * phase_bytes + (px + 1) / 2 * 4));
        return;
    }
    for (int64_t phase = 0; phase < phases; ++phase) {
        const int64_t j0 = ((phase - px) % phases + phases) % phases;  // the first pixel in this phase
        uint8_t* dst = row0 + phase * phase_bytes + (px + j0) / phases * 4;
        for (int64_t j = j0; j < n; j += phases, dst += 4) std::memcpy(dst, quads + j, 4);
    }
}

// Channel quads [q0, q1) of the data as their levels, in the quad planes (convolution_int8.hpp):
// the data rows and columns that fall inside the padded plane, quantized and joined into quads in
// one pass, straight into place at column stride 1, else through a chunk of rows of quads that
// split_phases puts into place row by row.
void quantize_planes(const Int8ConvPlan& plan, const void* x, uint8_t* planes, int64_t q0, int64_t q1) {
    const AxisWindow &ah = plan.shape.h, &aw = plan.shape.w;
    const int64_t phases = aw.stride, pw = plan.phase_width, ph = plan.padded_rows;
    const int64_t hw = ah.in * aw.in;
    // The data rows and columns inside the padded plane: [y0, y1) x [col0, col1).
    const int64_t y0 = std::max<int64_t>(0, -ah.pad_begin), y1 = std::min(ah.in, ph - ah.pad_begin);
    const int64_t col0 = std::max<int64_t>(0, -aw.pad_begin);
    const int64_t col1 = std::min(aw.in, plan.padded_width - aw.pad_begin);
    const int64_t n = std::min(col1 - col0, kQuantizeChunk), px = col0 + aw.pad_begin;  // n: per piece of a row
    alignas(64) uint32_t quads[kQuantizeChunk];  // a pixel's quad as one element (split_phases)
    for (int64_t cq = q0; cq < q1; ++cq) {
        uint8_t* dst = planes + cq * plan.quad_plane_bytes;
        std::memset(dst, plan.quantizer.zero_level, static_cast<size_t>(plan.quad_plane_bytes));
        if (y0 >= y1 || n <= 0) continue;
        if (phases == 1) {
            const Int8Quantizer::QuadLines at{y1 - y0, col1 - col0, aw.in, pw * 4};
            quads_of(plan, x, hw, cq, y0 * aw.in + col0, at, dst + ((y0 + ah.pad_begin) * pw + px) * 4);
            continue;
        }
        const int64_t lines = std::max<int64_t>(1, kQuantizeChunk / n);
        for (int64_t y = y0; y < y1; y += lines)
            for (int64_t c = col0; c < col1; c += n) {
                const int64_t m = std::min(n, col1 - c);
                const Int8Quantizer::QuadLines at{m == n ? std::min(lines, y1 - y) : 1, m, aw.in, m * 4};
                quads_of(plan, x, hw, cq, y * aw.in + c, at, reinterpret_cast<uint8_t*>(quads));
                for (int64_t l = 0; l < at.lines; ++l)
                    split_phases(quads + l * m, m, c + aw.pad_begin, phases, dst + (y + l + ah.pad_begin) * pw * 4,
                                 ph * pw * 4);
            }
    }
}

// dst[0, count) = src[0, count), count a multiple of 4 (whole quads): 16-byte pieces, then 8 and 4,
// each a fixed-size copy the compiler inlines (the rows of a small plane are 8-64 bytes).
inline void copy_quads(uint8_t* dst, const uint8_t* src, int64_t count) {
    int64_t j = 0;
    for (; j + 16 <= count; j += 16) std::memcpy(dst + j, src + j, 16);
    if (j + 8 <= count) std::memcpy(dst + j, src + j, 8), j += 8;
    if (j < count) std::memcpy(dst + j, src + j, 4);
}

// B for quads [q0, q1): quad q = (tap, channel quad) reads, for each output row, one contiguous
// run of the quad planes (four bytes per output pixel).
void gather_quads(const Int8ConvPlan& plan, const uint8_t* planes, uint8_t* b, int64_t q0, int64_t q1) {
    const AxisWindow &ah = plan.shape.h, &aw = plan.shape.w;
    const int64_t run = aw.out * 4, row_step = ah.stride * plan.phase_width * 4, rows = ah.out;
    // The plan's fields in locals: the stores through b could alias them, and reloading them every
    // quad cost as much as the copies when the rows are short.
    const int64_t channel_quads = plan.channel_quads, quad_plane = plan.quad_plane_bytes, quad_bytes = plan.ldb * 4;
    const int64_t used = plan.columns * 4, pad = quad_bytes - used;
    const int64_t* tap_offset = plan.tap_offset.data();
    const uint8_t zero = plan.quantizer.zero_level;
    // q = tap * channel_quads + cq, stepped without a division per quad.
    int64_t tap = q0 / channel_quads, cq = q0 % channel_quads;
    for (int64_t q = q0; q < q1; ++q, cq = cq + 1 == channel_quads ? (++tap, 0) : cq + 1) {
        const uint8_t* src = planes + cq * quad_plane + tap_offset[tap];
        uint8_t* dst = b + q * quad_bytes;
        for (int64_t oy = 0; oy < rows; ++oy) copy_quads(dst + oy * run, src + oy * row_step, run);
        if (pad > 0) std::memset(dst + used, zero, static_cast<size_t>(pad));
    }
}

// A 1x1 convolution of stride 1 without padding: B is the data's levels themselves, four
// channels interleaved, quantized straight into place for channel quads [q0, q1).
void quantize_quads(const Int8ConvPlan& plan, const void* x, uint8_t* b, int64_t q0, int64_t q1) {
    const int64_t hw = plan.columns;
    for (int64_t q = q0; q < q1; ++q) {
        uint8_t* dst = b + q * plan.ldb * 4;
        quads_of(plan, x, hw, q, 0, Int8Quantizer::QuadLines{1, hw, 0, 0}, dst);
        std::memset(dst + hw * 4, plan.quantizer.zero_level, static_cast<size_t>((plan.ldb - hw) * 4));
    }
}

// One GEMM task's block of one image: C rows [m0, m1) x columns [n0, n1) into c (its first
// element; row stride ldc), then the epilogue (res: the residual's block, row stride res_ld). b is
// the packed B, or the quad planes when the plan reads B where it lies (indexed_b).
void run_block(const Int8ConvPlan& plan, const uint8_t* b, int64_t m0, int64_t m1, int64_t n0, int64_t n1, float* c,
               int64_t ldc, const float* res, int64_t res_ld) {
    if (plan.column_form) {
        Int8Strides strides;
        strides.quad_offset = plan.quad_offset.data(), strides.column_offset = plan.column_offset.data();
        strides.c_row = ldc;
        int8_gemm_columns(plan.level, plan.weights, b, strides, m0, m1, n0, n1, plan.terms.alpha.data(),
                          plan.terms.beta.data(), plan.terms.start.data(), c);
    } else if (plan.indexed_b) {  // b: the quad planes
        int8_gemm_indexed(plan.level, plan.weights, b, plan.run_offset.data(), plan.quad_offset.data(), m0, m1, n0, n1,
                          plan.terms.alpha.data(), plan.terms.beta.data(), plan.terms.start.data(), c, ldc);
    } else {
        int8_gemm(plan.level, plan.weights, b, plan.ldb, m0, m1, n0, n1, plan.terms.alpha.data(), plan.terms.beta.data(),
                  plan.terms.start.data(), c, ldc);
    }
    if (plan.border.active()) apply_int8_border_fix(plan.border, plan.shape.w.out, m0, m1, n0, n1, c, ldc);
    const FusedEpilogue& e = plan.epilogue;
    if (e.active && (e.residual || e.act.kind != ActivationKind::None))
        apply_block(c, ldc, m1 - m0, n1 - n0, nullptr, nullptr, res, res_ld, e.act);
    if (e.fake_quantize.active) fake_quantize_block(e.fake_quantize, c, ldc, m1 - m0, n1 - n0);
}

// The same block written as levels (Int8ConvPlan::writes_levels) at y (the image's first level):
// computed in a tile on the stack, then quantized; one call when the block's rows are whole
// output rows (contiguous in the tile and in y).
void run_block_to_levels(const Int8ConvPlan& plan, const uint8_t* b, int64_t m0, int64_t m1, int64_t n0, int64_t n1,
                         uint8_t* y, const float* res) {
    alignas(64) float tile[kMaxTaskRows * kTaskColumns];
    const int64_t cols = n1 - n0, rows = m1 - m0;
    run_block(plan, b, m0, m1, n0, n1, tile, cols, res ? res + m0 * plan.columns + n0 : nullptr, plan.columns);
    uint8_t* out = y + m0 * plan.columns + n0;
    const auto levels = [&](const float* from, int64_t n, uint8_t* to) {
        plan.out_quantizer.quantize(from, n, to);
        if (plan.maps_levels) lookup_levels(plan.level_map.data(), to, n, to, plan.out_quantizer.isa);
    };
    if (cols == plan.columns) return levels(tile, rows * cols, out);
    for (int64_t r = 0; r < rows; ++r) levels(tile + r * cols, cols, out + r * plan.columns);
}

// An epilogue's FakeQuantize of another range before the readers' levels: as a map of the levels
// under its own range (fake_quantize_as_level_map), where that is exact; NaN, which only a residual
// can bring, must map to 0 as the float form gives it.
void map_fake_quantize_levels(Int8ConvPlan& plan) {
    FusedEpilogue& e = plan.epilogue;
    const std::optional<LevelMap> map = fake_quantize_as_level_map(e.fake_quantize, plan.out_quantizer);
    if (!map || (e.residual && !map->nan_safe)) return;
    plan.out_quantizer = map->quantizer;
    plan.level_map = map->level;
    plan.maps_levels = true;
    e.fake_quantize.active = false;
    if (!e.residual && activation_then_levels_is_levels(e.act, plan.out_quantizer)) e.act = Activation{};
}

// B read in the quad planes (Int8ConvPlan::indexed_b): quad k = (tap, channel quad), as
// gather_quads reads it; output pixel n at its row's start in the phase plane plus its column,
// per pixel (column form) or per run of kInt8Run pixels (row form). No B matrix.
void plan_indexed_b(Int8ConvPlan& plan) {
    const AxisWindow &ah = plan.shape.h, &aw = plan.shape.w;
    for (int64_t k = 0; k < plan.weights.quads; ++k)
        plan.quad_offset.push_back((k % plan.channel_quads) * plan.quad_plane_bytes +
                                   plan.tap_offset[static_cast<size_t>(k / plan.channel_quads)]);
    const int64_t step = plan.column_form ? 1 : kInt8Run;
    auto& offsets = plan.column_form ? plan.column_offset : plan.run_offset;
    for (int64_t n = 0; n < plan.columns; n += step)
        offsets.push_back(((n / aw.out) * ah.stride * plan.phase_width + n % aw.out) * 4);
    plan.b_bytes = 0;
}

}  // namespace

Int8ConvPlan plan_int8_convolution(const Int8ConvShape& shape, const QuantizedInput& q, const FusedEpilogue& epilogue,
                                   cpu::Isa isa) {
    Int8ConvPlan plan;
    plan.shape = shape;
    plan.quantizer = Int8Quantizer(q, isa);
    plan.levels_in = q.levels_in;
    if (q.levels_out) {
        plan.writes_levels = true;
        plan.out_quantizer = Int8Quantizer(*q.levels_out, isa);
    }
    plan.level = int8_level_for(isa);
    const AxisWindow &ah = shape.h, &aw = shape.w;
    const int64_t cout = shape.out_channels, cin = shape.channels, taps = ah.kernel * aw.kernel;
    plan.channel_quads = (cin + 3) / 4;
    plan.columns = ah.out * aw.out;
    plan.pointwise = taps == 1 && ah.stride == 1 && aw.stride == 1 && ah.pad_begin == 0 && aw.pad_begin == 0 &&
                     ah.out == ah.in && aw.out == aw.in;
    // The weights in the GEMM's depth order: k = (tap * channel_quads + channel quad) * 4 + j for
    // input channel 4 * quad + j (zeros past the channels), as the quad planes give B's rows.
    const int64_t depth = taps * plan.channel_quads * 4;
    std::vector<int8_t> ordered(static_cast<size_t>(cout * depth), 0);
    for (int64_t m = 0; m < cout; ++m)
        for (int64_t c = 0; c < cin; ++c)
            for (int64_t t = 0; t < taps; ++t)
                ordered[static_cast<size_t>(m * depth + (t * plan.channel_quads + c / 4) * 4 + c % 4)] =
                    q.weights[static_cast<size_t>((m * cin + c) * taps + t)];
    const int lanes = int8_column_panel_rows(plan.level);
    // The column form's 16 accumulators beat the row form's 4 per vector of columns while they fit
    // in registers: up to two vectors of columns with 32 (AVX-512), below one with 16 (AVX2).
    plan.column_form = plan.columns < lanes || (lanes >= 16 && plan.columns <= 2 * lanes);
    plan.weights = pack_int8_weights(ordered.data(), cout, depth, depth, plan.column_form ? lanes : kInt8Rows);
    plan.terms = Int8RowTerms(q, plan.weights, epilogue.bias, 2 * lanes);
    plan.epilogue = int8_layer_epilogue(epilogue, plan.writes_levels ? &plan.out_quantizer : nullptr);
    if (plan.writes_levels) map_fake_quantize_levels(plan);
    plan.border = int8_border_fix(shape, q, plan.terms.alpha);
    // The row form reads whole vectors of columns (int8_padded_columns); the column form only the
    // columns there are, so its quads are packed tight.
    plan.ldb = plan.column_form ? plan.columns : int8_padded_columns(plan.columns);
    // + 64: the GEMM reads whole vectors of columns.
    plan.b_bytes = round64(static_cast<size_t>(plan.weights.quads * plan.ldb * 4) + 64);
    if (plan.pointwise) {
        if (plan.column_form) {  // B packed tight: [quads][columns][4]
            plan.quad_offset = int8_offsets(plan.weights.quads, plan.ldb * 4);
            plan.column_offset = int8_offsets(plan.columns, 4);
        }
        return plan;
    }
    // The quad planes, padded far enough for every tap of every output (pads hold the zero level).
    plan.padded_rows = (ah.out - 1) * ah.stride + (ah.kernel - 1) * ah.dilation + 1;
    plan.padded_width = (aw.out - 1) * aw.stride + (aw.kernel - 1) * aw.dilation + 1;
    plan.phase_width = (plan.padded_width + aw.stride - 1) / aw.stride;
    plan.quad_plane_bytes = aw.stride * plan.padded_rows * plan.phase_width * 4;
    for (int64_t ky = 0; ky < ah.kernel; ++ky)
        for (int64_t kx = 0; kx < aw.kernel; ++kx) {
            const int64_t tap_x = kx * aw.dilation;
            plan.tap_offset.push_back(
                (((tap_x % aw.stride) * plan.padded_rows + ky * ah.dilation) * plan.phase_width + tap_x / aw.stride) * 4);
        }
    // + 64: slack past the last plane (every read ends inside it; kept as a margin).
    plan.plane_bytes = round64(static_cast<size_t>(plan.channel_quads * plan.quad_plane_bytes) + 64);
    plan.indexed_b = plan.column_form || aw.out % kInt8Run == 0;
    if (plan.indexed_b) plan_indexed_b(plan);
    return plan;
}

void run_int8_convolution(const Int8ConvPlan& plan, int64_t batch, const void* x, void* y, const float* res,
                          void* scratch, ThreadPool* pool) {
    const Int8ConvShape& s = plan.shape;
    uint8_t* planes = static_cast<uint8_t*>(scratch);
    uint8_t* b = planes + plan.plane_bytes;
    const int64_t in_size = s.channels * s.h.in * s.w.in, out_size = s.out_channels * plan.columns;
    const int64_t hw = s.h.in * s.w.in;
    const size_t in_bytes = plan.levels_in ? 1 : sizeof(float), out_bytes = plan.writes_levels ? 1 : sizeof(float);
    // Column form: two panels of at most 16 rows (AVX-512's lanes).
    const int64_t task_rows = plan.column_form ? std::min<int64_t>(2 * plan.weights.panel_rows, kMaxTaskRows) : kTaskRows;
    const int64_t row_tasks = (s.out_channels + task_rows - 1) / task_rows;
    const int64_t col_tasks = (plan.columns + kTaskColumns - 1) / kTaskColumns;
    for (int64_t image = 0; image < batch; ++image) {
        const void* xi = static_cast<const std::byte*>(x) + static_cast<size_t>(image * in_size) * in_bytes;
        std::byte* yi = static_cast<std::byte*>(y) + static_cast<size_t>(image * out_size) * out_bytes;
        const float* ri = res ? res + image * out_size : nullptr;
        const int64_t quads = plan.weights.quads;
        if (plan.pointwise) {
            detail::for_chunks(pool, quads, std::max<int64_t>(1, (int64_t{1} << 16) / (plan.ldb * 4)),
                               [&](int64_t q0, int64_t q1) { quantize_quads(plan, xi, b, q0, q1); });
        } else {
            detail::for_chunks(pool, plan.channel_quads, std::max<int64_t>(1, (int64_t{1} << 12) / std::max<int64_t>(hw, 1)),
                               [&](int64_t c0, int64_t c1) { quantize_planes(plan, xi, planes, c0, c1); });
            if (!plan.indexed_b)
                detail::for_chunks(pool, quads, std::max<int64_t>(1, (int64_t{1} << 16) / (plan.ldb * 4)),
                                   [&](int64_t q0, int64_t q1) { gather_quads(plan, planes, b, q0, q1); });
        }
        detail::for_chunks(pool, row_tasks * col_tasks, 1, [&](int64_t t0, int64_t t1) {
            for (int64_t t = t0; t < t1; ++t) {
                const int64_t m0 = (t / col_tasks) * task_rows, n0 = (t % col_tasks) * kTaskColumns;
                const int64_t m1 = std::min(s.out_channels, m0 + task_rows), n1 = std::min(plan.columns, n0 + kTaskColumns);
                const uint8_t* operand = plan.indexed_b ? planes : b;
                if (plan.writes_levels) {
                    run_block_to_levels(plan, operand, m0, m1, n0, n1, reinterpret_cast<uint8_t*>(yi), ri);
                } else {
                    const int64_t at = m0 * plan.columns + n0;
                    run_block(plan, operand, m0, m1, n0, n1, reinterpret_cast<float*>(yi) + at, plan.columns,
                              ri ? ri + at : nullptr, plan.columns);
                }
            }
        });
    }
}

}  // namespace irlite::nn
