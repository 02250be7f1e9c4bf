// Depthwise convolution in int8 (the low-precision pass's GroupConvolution of one input and one
// output channel per group): a method of GroupConvolution (kernels/nn/convolution.cpp), 2-D, f32
// data quantized on the way in, or u8 levels (engine/level_tensors.hpp).
//
// Each channel's levels fill a plane padded with the zero level (what a padded tap holds, as in
// convolution_int8.hpp). Outputs are computed 16 at a time (a block), each output an int32 lane:
//
//   acc = -zero_index * sum(w[c]) + sum over taps of w * level
//
// A block is a window of 64 bytes of the padded plane(s) per step (a kernel row's taps, four at a
// time): a byte permutation gives each lane the four levels of its taps, and a u8 x s8 dot of
// four products adds them (AVX-512 VBMI's vpermb and VNNI's vpdpbusd; 3 pairs per 16 outputs of a
// 3x3 kernel). Which outputs a block's lanes are is the plan's tiling:
//   - rows: one channel, 16 columns of an output row, or whole rows of fewer columns (R rows of
//     ow < 16), the lanes contiguous in the output plane;
//   - channels: whole small planes of several channels (oh * ow <= 8: 2x2 outputs, four channels),
//     the lanes contiguous too, the weights per lane.
// The sums are exact integers; the output is
//
//   y = float(acc) * (weight_scale[c] * out_step) + bias[c]
//
// (one rounding each for the conversion, the product and the sum: the same operations on every
// path) then the fused residual, activation and FakeQuantize; f32 out, or the levels under the
// readers' quantizer. The portable path computes the same lanes from the same tables, one product
// at a time: results are bit-identical for every thread count and instruction set.
//
// The fast path needs AVX-512 VBMI and VNNI; the pass hands a depthwise layer to this method only
// on such a CPU (int8_depthwise_runs_fast), so elsewhere the layer stays in float, as fast as
// before. Under an IRLITE_ISA cap below AVX-512 the same method runs its portable blocks (the
// same results, slower). A level for 0 between two levels (FP16-INT8 ranges) is handled as the
// dense int8 convolution does: the bias less the offset's share, and at a padded border the share
// of the padded taps given back (Int8BorderFix, applied before the epilogue).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/op.hpp"
#include "engine/quantized_input.hpp"
#include "kernels/detail/apply_epilogue.hpp"
#include "kernels/detail/nn_common.hpp"
#include "kernels/detail/quantize_levels.hpp"
#include "kernels/nn/convolution_int8.hpp"

namespace irlite::nn {

inline constexpr int64_t kDepthwiseLanes = 16;
inline constexpr int64_t kDepthwiseWindow = 64;  // bytes a step's permutation picks from

// Whether this CPU runs the fast path (AVX-512 with VBMI and VNNI): the pass's condition, from the
// CPU itself and not the IRLITE_ISA cap, so that a capped run takes the same method (and results).
bool int8_depthwise_runs_fast();

// Whether a depthwise layer of kernel width kw, column stride sw and dilation dw has a tiling: a
// block of 16 columns' four taps at a time within one 64-byte window.
bool int8_depthwise_fits(int64_t kw, int64_t sw, int64_t dw);

struct Int8DepthwisePlan {
    int64_t channels = 0;
    AxisWindow h, w;          // rows, columns
    Int8Quantizer quantizer;  // the data's
    uint8_t zero_index = 0;   // the level a padded tap holds
    bool levels_in = false, writes_levels = false;
    Int8Quantizer out_quantizer;  // the readers' (writes_levels)
    FusedEpilogue epilogue;       // its bias is in beta; residual, activation and FakeQuantize after
    Int8BorderFix border;         // a level for 0 between two levels and padding
    bool fast = false;            // the VBMI + VNNI path (else the portable one)

    // The tiling. A unit is `group` channels (1 in the rows tiling); its padded planes, each
    // rows x cols bytes, lie one after another in a buffer of unit_bytes (room for the last
    // window's reads). In the rows tiling a block is tile_rows output rows of tile_cols columns;
    // channel_lanes: a block is the unit's whole output planes. direct: a unit is one block read
    // where its levels lie (group planes of fewer than 64 bytes together, unpadded): its window
    // is a masked load of those bytes with the zero level after them, and a tap outside the data
    // picks byte 63.
    bool channel_lanes = false, direct = false;
    int64_t group = 1, tile_rows = 1, tile_cols = kDepthwiseLanes;
    int64_t rows = 0, cols = 0, unit_bytes = 0;
    std::vector<int64_t> window;  // per step: its window's first byte from the block's
    std::vector<uint8_t> index;   // per step: 64 bytes, lane i's taps at 4i..4i+3 of its window
    // Per unit: per step the lanes' four weights (s8 x 4 as int32), then start (int32), alpha and
    // beta (float bits) per lane; in the rows tiling one value for all lanes (`lane_values` 1).
    std::vector<int32_t> terms;
    int64_t lane_values = 1;
    // A unit's blocks: where each reads (from the unit's first padded byte) and writes (from its
    // first output).
    std::vector<int64_t> block_in, block_out;
    std::vector<int32_t> block_lanes;  // the lanes of each block that are outputs
    // Nothing of the epilogue is left (no residual, or activation and FakeQuantize that make a
    // difference): the blocks store their lanes straight into y, as floats or quantized in
    // registers to the readers' levels, instead of into a buffer the epilogue reads.
    bool stores_y = false;
    int64_t unit_terms() const { return (static_cast<int64_t>(window.size()) + 3) * lane_values; }
    int64_t units() const { return (channels + group - 1) / group; }  // per image
    int64_t unit_outputs() const { return group * h.out * w.out; }

    size_t scratch_bytes = 0;  // per thread: the levels of a batch, its padded planes, its outputs
};

// `q` holds the weights as [channels][1][1][kh][kw] (or any shape of channels x kh x kw); `epilogue`
// is the fused one. Requires int8_depthwise_fits(w.kernel, w.stride, w.dilation).
Int8DepthwisePlan plan_int8_depthwise(int64_t channels, const AxisWindow& h, const AxisWindow& w,
                                      const QuantizedInput& q, const FusedEpilogue& epilogue, cpu::Isa isa);

// x [batch][channels][h][w] -> y [batch][channels][oh][ow], f32 or u8 levels as the plan says; res
// the fused residual (f32, y's shape) or null. Scratch: ctx.scratch(), plan.scratch_bytes a thread.
void run_int8_depthwise(const Int8DepthwisePlan& plan, int64_t batch, const void* x, void* y, const float* res,
                        const KernelContext& ctx);

namespace dw {
// Consecutive units of one image: their blocks from their inputs into their outputs (each block
// stores all 16 lanes: the plan's output buffers have 16 floats of slack).
struct Units {
    const uint8_t* in = nullptr;  // the first unit's padded planes, or its levels (direct)
    int64_t in_stride = 0;        // bytes between units' inputs
    int64_t last_valid = 0;       // direct: the last unit's bytes of data
    int64_t last_lanes = 0;       // the last unit's outputs (fewer than its block's lanes at an image's end)
    const int32_t* terms = nullptr;  // the first unit's (Int8DepthwisePlan::terms), unit_terms() apart
    // The first unit's outputs, group * oh * ow apart: floats in a buffer, or y's (f32 or u8
    // levels) when the plan stores_y.
    void* out = nullptr;
    int64_t count = 0;
};
void units_portable(const Int8DepthwisePlan& plan, const Units& units);
// convolution_int8_depthwise_vbmi.cpp (x86; the portable one elsewhere).
void units_fast(const Int8DepthwisePlan& plan, const Units& units);
// A unit's padded planes from its n channels' levels (one plane after another): the zero level
// around and after them. The fast one with masked AVX-512 moves (rows of a few bytes cost more as
// memcpy calls).
void fill_portable(const Int8DepthwisePlan& plan, const uint8_t* levels, int64_t n, uint8_t* padded);
void fill_fast(const Int8DepthwisePlan& plan, const uint8_t* levels, int64_t n, uint8_t* padded);
}  // namespace dw

}  // namespace irlite::nn
