// MatMul in int8 (the low-precision pass's layers: engine/low_precision.hpp): one method of
// MatMul (kernels/math/mat_mul.cpp) for f32 activations A [..., M, K] (not transposed) quantized on
// the way in by their FakeQuantize's formula, times constant weights that are integers times a
// scale (one, or one per output column for B given as [N, K] with transpose_b), the classifier of
// an INT8 CNN. Each row of A is quantized into its u8 levels (row-major, K padded to whole quads)
// and multiplied by the s8 weights packed at prepare with the int8 GEMM's column form
// (kernels/detail/igemm.hpp: output columns in the vector lanes):
//
//   C[m][n] = float(acc - zero_index * sum(w[n])) * (weight_scale[n] * out_step) + bias[n]
//
// then the fused residual and activation. Bit-identical for every thread count and instruction set.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/quantized_input.hpp"
#include "engine/thread_pool.hpp"
#include "kernels/detail/apply_epilogue.hpp"
#include "kernels/detail/igemm.hpp"
#include "kernels/detail/quantize_levels.hpp"

namespace irlite::nn {

struct Int8MatMulPlan {
    Int8Level level = Int8Level::Portable;
    Int8Weights weights;      // [N][K] rows
    Int8RowTerms terms;       // per output column, padded by two panels
    Int8Quantizer quantizer;  // A's
    int64_t rows = 0, depth = 0, columns = 0;  // M (every batch's rows), K, N
    // Where the GEMM's column form finds A's levels ([rows][quads][4]): quad q at 4 q, row r at
    // 4 quads r (Int8Strides).
    std::vector<int64_t> quad_offset, row_offset;
    FusedEpilogue epilogue;  // its bias is in terms.beta; residual and activation after the GEMM
    size_t scratch_bytes() const { return static_cast<size_t>(rows * weights.quads * 4) + 64; }
};

// Whether the int8 method can take these weights: B [N, K] (transpose_b) with any scale, or B
// [K, N] with one scale.
bool int8_mat_mul_fits(const QuantizedInput& q, bool transpose_b);

// `q` holds B's integers in B's own layout ([N][K] when transpose_b, else [K][N]).
Int8MatMulPlan plan_int8_mat_mul(int64_t rows, int64_t depth, int64_t columns, bool transpose_b,
                                 const QuantizedInput& q, const FusedEpilogue& epilogue, cpu::Isa isa);

// a [rows][depth] -> c [rows][columns]; res the fused residual (c's shape) or null; scratch:
// plan.scratch_bytes() of the calling thread.
void run_int8_mat_mul(const Int8MatMulPlan& plan, const float* a, float* c, const float* res, void* scratch,
                      ThreadPool* pool);

}  // namespace irlite::nn
