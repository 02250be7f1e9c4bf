// MatMul with compressed weights (the weight-compression pass's layers:
// engine/weight_compression.hpp): one method of MatMul (kernels/math/mat_mul.cpp) for f32 A
// [..., M, K] times B given as [N, K] (transpose_b) in NNCF's compressed form
// (engine/compressed_weights.hpp: u4/i4/u8/i8 integers, a scale and zero point per group of
// K). The weights stay compressed: each row of B is unpacked inside the kernel, in registers, so
// a batch-1 layer is bound by reading the compressed bytes (a half or one byte per weight instead
// of four). Per output element, with the zero point taken out of the sum,
//
//   C[m][n] = sum_g scale[n][g] * (sum_{k in g} q[n][k] * A[m][k] - zero[n][g] * sum_{k in g} A[m][k])
//
// each sum in f32 in a fixed order per instruction set (vector lanes, then the lanes added in a
// fixed tree), then the fused bias, residual and activation. The same for every thread count;
// instruction sets may differ in the last bits (the lanes' order), as f32 GEMMs do.
#pragma once

#include <cstdint>
#include <memory>

#include "engine/compressed_weights.hpp"
#include "engine/thread_pool.hpp"
#include "kernels/detail/cpu_isa.hpp"
#include "kernels/detail/apply_epilogue.hpp"

namespace irlite::nn {

struct CompressedMatMulPlan {
    std::shared_ptr<const CompressedWeights> weights;
    int64_t rows = 0;  // M: every batch's rows of A
    int lanes = 1;     // the level's f32 lanes (1: portable)
    bool table = false;  // 4-bit weights looked up in per-group tables (AVX-512, groups of 64 or 128k)
    FusedEpilogue epilogue;
    // Scratch per row of A: A reordered for the level's unpacking (within each block of 2 x lanes
    // elements, for 4-bit weights: the even elements, then the odd ones; with a table, within each
    // block of 128: elements j, j + 8, ..., j + 120 for j = 0..7) and, with zero points and no
    // table, the per-lane sums of each group.
    int64_t a_floats() const;
    size_t scratch_bytes() const;
};

CompressedMatMulPlan plan_compressed_mat_mul(int64_t rows, std::shared_ptr<const CompressedWeights> weights,
                                             const FusedEpilogue& epilogue, cpu::Isa isa);

// a [rows][depth] -> c [rows][weights->rows]; res the fused residual (c's shape) or null;
// scratch: plan.scratch_bytes(), the calling thread's.
void run_compressed_mat_mul(const CompressedMatMulPlan& plan, const float* a, float* c, const float* res,
                            void* scratch, ThreadPool* pool);

}  // namespace irlite::nn
