// Convolution in int8 (the low-precision pass's layers: engine/low_precision.hpp): one method of
// Convolution (kernels/nn/convolution.cpp), 2-D, one group, f32 data quantized on the way in.
//
// Per image: the data is quantized to its u8 levels (the absorbed FakeQuantize's formula,
// engine/quantized_input.hpp) into zero-padded planes (the pad at the zero level) split by column
// phase (one plane per remainder of the padded column modulo stride_w, so that every tap's row of
// outputs reads a contiguous run), gathered into the int8 GEMM's B layout (im2col, four rows
// interleaved), and multiplied by the s8 weights packed at prepare (kernels/detail/igemm.hpp). The float result per output channel c is
//
//   y = float(acc - zero_index * sum(w[c])) * (weight_scale[c] * out_step) + bias[c]
//
// then the fused residual and activation. Integer sums are exact: the result is bit-identical for
// every thread count and instruction set.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/epilogue.hpp"
#include "engine/quantized_input.hpp"
#include "engine/thread_pool.hpp"
#include "kernels/detail/epilogue.hpp"
#include "kernels/detail/igemm.hpp"
#include "kernels/detail/nn_common.hpp"

namespace irlite::nn {

struct Int8ConvShape {
    int64_t channels = 0, out_channels = 0;
    AxisWindow h, w;  // rows, columns
};

struct Int8ConvPlan {
    Int8ConvShape shape;
    Int8Level level = Int8Level::Portable;
    Int8Weights weights;
    std::vector<float> alpha, beta;   // per output channel
    std::vector<int32_t> acc_start;   // per output channel: -zero_index * sum(w[c])
    float in_low = 0, in_high = 0, steps = 255;
    uint8_t zero_level = 0;
    int64_t columns = 0, ldb = 0;  // output pixels, and B's padded row
    // The phase planes: [channel][phase (stride_w)][padded_rows][phase_width].
    int64_t padded_rows = 0, padded_width = 0, phase_width = 0;
    // Where each im2col row (c, ky, kx) starts in the phase planes, and each output column
    // (oy, ox) relative to it.
    std::vector<int64_t> row_base, column_offset;
    cpu::Isa isa = cpu::Isa::Sse;  // of the quantizing loop
    // 1x1, stride 1, no padding: B is quantized straight from the data (no planes).
    bool pointwise = false;
    size_t plane_bytes = 0, b_bytes = 0;
    FusedEpilogue epilogue;  // its bias is in beta; residual and activation after the GEMM
    size_t scratch_bytes() const { return plane_bytes + b_bytes; }
};

// `q` describes the weights in [out_channels][channels][kh][kw] order; `epilogue` is the fused one.
Int8ConvPlan plan_int8_convolution(const Int8ConvShape& shape, const QuantizedInput& q, const FusedEpilogue& epilogue,
                                   cpu::Isa isa);

// x [batch][channels][h][w] -> y [batch][out_channels][oh][ow]; res the fused residual (y's shape)
// or null; scratch: plan.scratch_bytes(), 64-byte aligned, the calling thread's.
void run_int8_convolution(const Int8ConvPlan& plan, int64_t batch, const float* x, float* y, const float* res,
                          void* scratch, ThreadPool* pool);

}  // namespace irlite::nn
