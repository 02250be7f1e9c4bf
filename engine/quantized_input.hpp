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
// (q - zero) * out_step with zero = -out_low / out_step, the level that stands for 0. zero is
// zero_index + zero_offset: the nearest level (what a padded tap holds) and what is left, 0 up to
// float rounding in f32 models, up to half a step where f16 rounded the ranges (FP16-INT8 IR:
// -3.8555 and 4.1367 put 0 at level 123.013). The kernels take the offset into their bias, and at
// a padded border correct for the taps that hold no data (convolution_int8.hpp).
// The weights are weights[i] * weight_scale[c] for index c along axis 0 (per channel, or one scale).
//
// Between two int8 layers the tensor can be the levels themselves (u8, a quarter of the bytes),
// as the level pass (engine/level_tensors.hpp) arranges: the producer then writes the levels of
// its result under its readers' quantizer (levels_out), and the readers take them as they are
// (levels_in) instead of quantizing floats.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "irlite/shape.hpp"

namespace irlite {

struct QuantizedInput {
    float in_low = 0, in_high = 0, out_step = 0;
    float out_low = 0, out_high = 0;  // the FakeQuantize's output range (out_step's ends)
    int levels = 256;   // 2..256: every index fits in a u8
    int zero_index = 0;      // 0..levels - 1
    double zero_offset = 0;  // -0.5..0.5
    std::vector<int8_t> weights;      // the weights' layout, row-major
    Shape weights_shape;
    std::vector<float> weight_scale;  // one per output channel (axis 0 of the weights), or one for all
    // The data input is u8: this quantizer's levels, made by the layer before.
    bool levels_in = false;
    // The output is u8: the levels of the layer's result (after its epilogue) under this quantizer
    // (the level formula above with these bounds and levels).
    struct LevelQuantizer {
        float in_low = 0, in_high = 0;
        int levels = 256;
    };
    std::optional<LevelQuantizer> levels_out;
};

}  // namespace irlite
