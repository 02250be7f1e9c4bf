// Fused epilogues (engine/epilogue.hpp) as kernels apply them: the part the packed GEMM does on a
// tile in registers (bias, ReLU, clamp), and the rest done on the block just written, while it is
// still in cache (residual, other activations). f32 only.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/epilogue.hpp"
#include "kernels/detail/sgemm.hpp"

namespace irlite::nn {

// An epilogue resolved for an op's output: the bias expanded to one value per channel.
struct FusedEpilogue {
    bool active = false;
    std::vector<float> bias;  // `channels` values, or empty
    bool residual = false;
    Activation act;
    EpilogueFakeQuantize fake_quantize;  // only kernels that take it see it (OpDef::takes_fake_quantize)

    // `channels`: the output's extent along the epilogue's channel axis.
    static FusedEpilogue from(const Epilogue* e, int64_t channels);
    // The activation runs inside the GEMM micro-kernel (no residual comes between them).
    bool act_in_gemm() const;
    // What run_gemm_tile applies: the bias of channels from `first_channel` on along `axis`, and the
    // activation when act_in_gemm().
    GemmEpilogue gemm(GemmEpilogue::BiasAxis axis, int64_t first_channel) const;
    const float* bias_at(int64_t channel) const { return bias.empty() ? nullptr : bias.data() + channel; }
    // Whether anything is left for apply_rest after the GEMM epilogue.
    bool has_rest() const { return active && (residual || !act_in_gemm()); }
};

// Activation in place over n floats (the op's own formula).
void apply_activation(const Activation& act, float* p, int64_t n);

// In place over a block of `rows` x `cols` floats at c (row stride ldc): + row_bias[r] (may be
// null), + col_bias[j] (may be null), + res[r * ldr + j] (may be null), then act.
void apply_block(float* c, int64_t ldc, int64_t rows, int64_t cols, const float* row_bias, const float* col_bias,
                 const float* res, int64_t ldr, const Activation& act);

// After a GEMM that applied e.gemm(...): the residual and the activation if it did not.
inline void apply_rest(const FusedEpilogue& e, float* c, int64_t ldc, int64_t rows, int64_t cols, const float* res,
                       int64_t ldr) {
    if (!e.has_rest()) return;
    const Activation none;
    apply_block(c, ldc, rows, cols, nullptr, nullptr, e.residual ? res : nullptr, ldr,
                e.act_in_gemm() ? none : e.act);
}

}  // namespace irlite::nn
