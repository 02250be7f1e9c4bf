// f16 <-> f32 over whole buffers: the conversions at an FP16 model's boundary (engine/precision.hpp)
// and Convert's hot pair. F16C (vcvtph2ps / vcvtps2ph, round to nearest even) where the CPU has
// it, the scalar f16_to_f32 / f32_to_f16 elsewhere and for tails: both give the same bits for
// every input (NaN payloads included), so results do not depend on the instruction set.
#pragma once

#include <cstdint>

namespace irlite {
class ThreadPool;
}

namespace irlite::detail {

void f16_to_f32_buffer(ThreadPool* pool, const uint16_t* in, float* out, int64_t n);
void f32_to_f16_buffer(ThreadPool* pool, const float* in, uint16_t* out, int64_t n);

}  // namespace irlite::detail
