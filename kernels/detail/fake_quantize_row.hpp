// FakeQuantize's per-tensor formula over a row of f32 (kernels/quantization/fake_quantize.cpp), in
// a form the compiler vectorises, shared by the op and by the epilogues that end with one
// (engine/epilogue.hpp), so that a fused FakeQuantize gives the op's values bit for bit.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

#include "engine/epilogue.hpp"
#include "kernels/detail/cpu_isa.hpp"

namespace irlite::nn {

// The value of level k (a whole number in [0, steps]): the formula's order of operations, the one
// definition every exact comparison with the op's results (level tables, level maps) relies on.
inline float fake_quantize_level_value(float k, float steps, float ol, float oh) { return k / steps * (oh - ol) + ol; }

// Every element gets the same result as the op's scalar form: the interior's
// t = (x - il) / (ih - il) * steps lies in [0, steps] (both orderings of the range), and for
// 0 <= t < 2^23, (t + 2^23) - 2^23 rounds it to the nearest even integer as nearbyint does; the
// ends are selects, as in the scalar form. Valid for steps below kMagicRoundLimit.
inline constexpr float kMagicRoundLimit = 4194304.f;  // 2^22: steps below it keep t in the exact range
IRLITE_ISA_INLINE void fake_quantize_row(const float* x, int64_t n, float il, float ih, float ol, float oh, float steps,
                                         float* out) {
    const float lo = std::min(il, ih), hi = std::max(il, ih), magic = 8388608.f;
    for (int64_t j = 0; j < n; ++j) {
        const float v = x[j];
        const float t = (v - il) / (ih - il) * steps;
        const float q = (t + magic) - magic;
        const float mid = fake_quantize_level_value(q, steps, ol, oh);
        out[j] = v <= lo ? ol : (v > hi ? oh : mid);
    }
}

// Whether fq(act(x)) == fq(x) for every x, so that an epilogue can skip the activation: a ReLU or
// Clamp whose range holds the FakeQuantize's input range changes only values at or beyond the
// range's ends, which the FakeQuantize maps to out_low or out_high anyway (ReLU6 before a
// FakeQuantize of [0, 6] or narrower, as NNCF writes MobileNets). A Clamp whose top is the range's
// top itself maps there to the formula's top value, which must then be out_high exactly. NaN
// stays NaN through either activation and gives NaN.
inline bool fake_quantize_absorbs(const Activation& act, const EpilogueFakeQuantize& fq) {
    if (!fq.active || (act.kind != ActivationKind::Relu && act.kind != ActivationKind::Clamp)) return false;
    const float a = act.kind == ActivationKind::Relu ? 0.f : act.alpha;
    const float b = act.kind == ActivationKind::Relu ? std::numeric_limits<float>::infinity() : act.beta;
    const float lo = std::min(fq.in_low, fq.in_high), hi = std::max(fq.in_low, fq.in_high);
    if (!(a <= lo && b >= hi)) return false;
    if (b > hi) return true;
    // act(x) = hi for x > hi: the FakeQuantize gives hi the formula's top level when the range is
    // in order (level 0 when reversed), x itself out_high.
    const auto steps = static_cast<float>(fq.levels - 1);
    const float top = fake_quantize_level_value(steps, steps, fq.out_low, fq.out_high);
    return fq.in_low < fq.in_high && top == fq.out_high;
}

// In place over a block of rows x cols floats at c (row stride ldc); fq.levels - 1 below
// kMagicRoundLimit (as OpDef::as_fake_quantize promises). Contiguous rows are one row: the
// column-form GEMM's blocks are many rows of 2-8 floats, whose remainder loops cost more than the
// formula (MobileNetV2's 2x2 layers took 1.7x as long).
inline void fake_quantize_block(const EpilogueFakeQuantize& fq, float* c, int64_t ldc, int64_t rows, int64_t cols) {
    const auto steps = static_cast<float>(fq.levels - 1);
    if (rows > 1 && ldc == cols) cols *= rows, rows = 1;
    cpu::run([&] {
        for (int64_t r = 0; r < rows; ++r)
            fake_quantize_row(c + r * ldc, cols, fq.in_low, fq.in_high, fq.out_low, fq.out_high, steps, c + r * ldc);
    });
}

}  // namespace irlite::nn
