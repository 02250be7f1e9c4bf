// What the low-precision pass (engine/low_precision.hpp) hands to an op whose kernel can run in
// int8 (OpDef::with_quantized_input): the FakeQuantize it absorbed on its data input and its
// weights as integers. Typed data only (no XML); the op's prepare step turns it into its plan.
//
// The op's data input is then the FakeQuantize's input x (f32), and the kernel quantizes it itself,
// with the FakeQuantize's formula (kernels/quantization/fake_quantize.cpp) for the level index:
//
//   q = 0                                            x <= in_low (and NaN)
//   q = levels - 1                                   x >  in_high
//   q = nearbyint((x - in_low) / (in_high - in_low) * (levels - 1))    otherwise
//
// the FakeQuantize's output being q / (levels - 1) * (out_high - out_low) + out_low, i.e.
// (q - zero_index) * out_step: zero_index is the level that stands for 0 (the value of a padded
// tap), out_low = -zero_index * out_step up to float rounding (the pass checks it).
// The weights are weights[i] * weight_scale[c] for index c along axis 0 (per channel, or one scale).
#pragma once

#include <cstdint>
#include <vector>

#include "irlite/shape.hpp"

namespace irlite {

struct QuantizedInput {
    float in_low = 0, in_high = 0, out_step = 0;
    int levels = 256;   // 2..256: every index fits in a u8
    int zero_index = 0;  // 0..levels - 1
    std::vector<int8_t> weights;      // the weights' layout, row-major
    Shape weights_shape;
    std::vector<float> weight_scale;  // one per output channel (axis 0 of the weights), or one for all
};

}  // namespace irlite
