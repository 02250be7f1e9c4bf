// The activations the f32 GEMM applies in its micro-kernels' epilogue, shared by the GEMM's API
// (sgemm.hpp: GemmEpilogue) and its kernels (sgemm_kernels.hpp) without either including the other.
#pragma once

#include <cstdint>

namespace irlite::nn {

// Relu = max(x, 0); Clamp = min(max(x, lo), hi). NaN stays NaN.
enum class GemmActivation : uint8_t { None, Relu, Clamp };

}  // namespace irlite::nn
