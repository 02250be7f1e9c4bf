// Convolution in int8 (the low-precision pass's layers: engine/low_precision.hpp): one method of
// Convolution (kernels/nn/convolution.cpp chooses it; the others are listed in
// kernels/nn/convolution_methods.hpp), 2-D, one group, f32 data quantized on the way in.
//
// Per image: the data is quantized to its u8 levels (the absorbed FakeQuantize's formula,
// engine/quantized_input.hpp) into zero-padded quad planes (four channels interleaved, the pad at
// the zero level, split by column phase), from which the int8 GEMM's B (im2col, depth ordered
// (tap, channel quad, channel)) is read where it lies when output rows are whole runs of 8 pixels
// (an indexed B), else copied one output row at a time, and multiplied by the s8 weights packed
// in that order at prepare (kernels/detail/igemm.hpp). A 1x1 convolution of
// stride 1 quantizes straight into B. The float result per output channel c is
//
//   y = float(acc - zero_index * sum(w[c])) * (weight_scale[c] * out_step) + bias[c]
//
// (with a level for 0 between two levels, engine/quantized_input.hpp: the bias less its offset's
// share, and at a padded border the share of the padded taps given back: Int8BorderFix)
// then the fused residual, activation and FakeQuantize. Integer sums are exact: the result is
// bit-identical for every thread count and instruction set. Between int8 layers the data and the
// result can be u8 levels (engine/level_tensors.hpp): the data's are then copied instead of
// quantized, and the result is quantized under the readers' quantizer as its block is finished.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/epilogue.hpp"
#include "engine/quantized_input.hpp"
#include "engine/thread_pool.hpp"
#include "kernels/detail/apply_epilogue.hpp"
#include "kernels/detail/igemm.hpp"
#include "kernels/detail/nn_common.hpp"
#include "kernels/detail/quantize_levels.hpp"

namespace irlite::nn {

struct Int8ConvShape {
    int64_t channels = 0, out_channels = 0;
    AxisWindow h, w;  // rows, columns
};

// A level for 0 between two levels (QuantizedInput::zero_offset) and a padded border: the bias
// (Int8RowTerms) takes alpha * zero_offset * sum(w) off every output for the offset of its taps'
// data, so an output whose window holds padded taps gets back alpha * zero_offset * (those taps'
// weights), added after the GEMM. Taps are valid in a range per output row and per output column;
// the ranges are classes, 0 the full one.
struct Int8BorderFix {
    std::vector<int32_t> row_class, col_class;  // per output row, per output column
    int64_t col_classes = 0;
    std::vector<int32_t> border_cols;  // the output columns whose class is not 0
    std::vector<float> add;  // [output channel][row class * col_classes + col class]
    int64_t classes = 0;     // row classes * col_classes
    bool active() const { return !add.empty(); }
};

// Int8BorderFix for weights [cout][cin][kh][kw] (`q`; a depthwise layer's: cin 1) and alpha per
// output channel; inactive without a zero offset or padding (convolution_int8_border.cpp).
Int8BorderFix int8_border_fix(const Int8ConvShape& shape, const QuantizedInput& q, const std::vector<float>& alpha);
// The fix's additions to C rows [m0, m1) (output channels) x columns [n0, n1) (pixels of output
// rows ow wide) at c, row stride ldc.
void apply_int8_border_fix(const Int8BorderFix& fix, int64_t ow, int64_t m0, int64_t m1, int64_t n0, int64_t n1, float* c,
                           int64_t ldc);

struct Int8ConvPlan {
    Int8ConvShape shape;
    Int8Level level = Int8Level::Portable;
    Int8Weights weights;
    Int8RowTerms terms;       // per output channel, padded by two panels
    Int8Quantizer quantizer;  // the data's
    int64_t columns = 0, ldb = 0;  // output pixels, and B's padded row
    // The quad planes: [channel quad][phase (stride_w)][padded_rows][phase_width][4 channels]:
    // the data's levels, zero-padded, four channels interleaved, split by column phase (the
    // padded column modulo stride_w) so that each tap's output row reads one contiguous run.
    int64_t channel_quads = 0, padded_rows = 0, padded_width = 0, phase_width = 0, quad_plane_bytes = 0;
    std::vector<int64_t> tap_offset;  // per (ky, kx): its first byte in a quad plane
    // 1x1, stride 1, no padding: B is quantized straight from the data (no planes).
    bool pointwise = false;
    // B read in the quad planes where it lies, instead of gathered into an im2col matrix first:
    // quad q (tap, channel quad) at quad_offset[q], and in the row form (output rows of whole runs
    // of kInt8Run pixels: int8_gemm_indexed) run r of output pixels at run_offset[r], in the
    // column form pixel n at column_offset[n]. The column form of a pointwise layer has the
    // offsets of its packed B in the same tables.
    bool indexed_b = false;
    std::vector<int64_t> run_offset, quad_offset, column_offset;
    // Few output pixels (below a vector's lanes, up to two vectors' with AVX-512): the GEMM's
    // column form (igemm.hpp), output channels in the lanes.
    bool column_form = false;
    // The data is u8 levels already (QuantizedInput::levels_in); the output is written as levels
    // under out_quantizer (QuantizedInput::levels_out).
    bool levels_in = false, writes_levels = false;
    Int8Quantizer out_quantizer;
    size_t plane_bytes = 0, b_bytes = 0;
    FusedEpilogue epilogue;  // its bias is in terms.beta; residual and activation after the GEMM
    Int8BorderFix border;
    // An epilogue's FakeQuantize of another range before the readers' levels (LevelMap): written as
    // levels under its own range (out_quantizer), then mapped through level_map in place.
    bool maps_levels = false;
    std::array<uint8_t, 256> level_map{};
    size_t scratch_bytes() const { return plane_bytes + b_bytes; }
};

// `q` describes the weights in [out_channels][channels][kh][kw] order; `epilogue` is the fused one.
Int8ConvPlan plan_int8_convolution(const Int8ConvShape& shape, const QuantizedInput& q, const FusedEpilogue& epilogue,
                                   cpu::Isa isa);

// x [batch][channels][h][w] -> y [batch][out_channels][oh][ow], each f32 or u8 levels as the plan
// says (levels_in, writes_levels); res the fused residual (f32, y's shape) or null; scratch:
// plan.scratch_bytes(), 64-byte aligned, the calling thread's.
void run_int8_convolution(const Int8ConvPlan& plan, int64_t batch, const void* x, void* y, const float* res,
                          void* scratch, ThreadPool* pool);

}  // namespace irlite::nn
