#include "kernels/math/mat_mul_int8.hpp"

#include <algorithm>
#include <cstring>

#include "kernels/detail/parallel.hpp"
#include "kernels/detail/quantize_levels.hpp"

namespace irlite::nn {

bool int8_mat_mul_fits(const QuantizedInput& q, bool transpose_b) { return transpose_b || q.weight_scale.size() == 1; }

Int8MatMulPlan plan_int8_mat_mul(int64_t rows, int64_t depth, int64_t columns, bool transpose_b,
                                 const QuantizedInput& q, const FusedEpilogue& epilogue, cpu::Isa isa) {
    Int8MatMulPlan plan;
    plan.quantizer = Int8Quantizer(q, isa);
    plan.level = int8_level_for(isa);
    plan.rows = rows, plan.depth = depth, plan.columns = columns;
    std::vector<int8_t> by_column;  // [N][K]
    const int8_t* w = q.weights.data();
    if (!transpose_b) {
        by_column.resize(static_cast<size_t>(columns * depth));
        for (int64_t k = 0; k < depth; ++k)
            for (int64_t n = 0; n < columns; ++n)
                by_column[static_cast<size_t>(n * depth + k)] = q.weights[static_cast<size_t>(k * columns + n)];
        w = by_column.data();
    }
    const int lanes = int8_column_panel_rows(plan.level);
    plan.weights = pack_int8_weights(w, columns, depth, depth, lanes);
    plan.terms = Int8RowTerms(q, plan.weights, epilogue.bias, 2 * lanes);
    plan.epilogue = epilogue;
    plan.epilogue.bias.clear();
    plan.quad_offset = int8_offsets(plan.weights.quads, 4);
    plan.row_offset = int8_offsets(rows, plan.weights.quads * 4);
    return plan;
}

void run_int8_mat_mul(const Int8MatMulPlan& plan, const float* a, float* c, const float* res, void* scratch,
                      ThreadPool* pool) {
    const int64_t quads = plan.weights.quads, k = plan.depth;
    auto* levels = static_cast<uint8_t*>(scratch);
    // Each row of A as its levels, K padded to whole quads with the zero level (zero weights there).
    detail::for_chunks(pool, plan.rows, std::max<int64_t>(1, (int64_t{1} << 14) / std::max<int64_t>(k, 1)),
                       [&](int64_t r0, int64_t r1) {
                           for (int64_t r = r0; r < r1; ++r) {
                               uint8_t* dst = levels + r * quads * 4;
                               for (int64_t j = 0; j < k; j += kQuantizeChunk) {
                                   const int64_t n = std::min(kQuantizeChunk, k - j);
                                   plan.quantizer.quantize(a + r * k + j, n, dst + j);
                               }
                               std::memset(dst + k, plan.quantizer.zero_level, static_cast<size_t>(quads * 4 - k));
                           }
                       });
    // Output columns in blocks of a few panels: the tasks.
    const int64_t block = 4 * int64_t{plan.weights.panel_rows};
    const int64_t blocks = (plan.columns + block - 1) / block;
    Int8Strides strides;
    strides.quad_offset = plan.quad_offset.data(), strides.column_offset = plan.row_offset.data();
    strides.c_row = 1, strides.c_column = plan.columns;
    const FusedEpilogue& e = plan.epilogue;
    detail::for_chunks(pool, blocks, 1, [&](int64_t b0, int64_t b1) {
        for (int64_t blk = b0; blk < b1; ++blk) {
            const int64_t n0 = blk * block, n1 = std::min(plan.columns, n0 + block);
            // The GEMM's rows are the output columns n, its columns the rows of A.
            int8_gemm_columns(plan.level, plan.weights, levels, strides, n0, n1, 0, plan.rows, plan.terms.alpha.data(),
                              plan.terms.beta.data(), plan.terms.start.data(), c + n0);
            if (e.active && (e.residual || e.act.kind != ActivationKind::None))
                apply_block(c + n0, plan.columns, plan.rows, n1 - n0, nullptr, nullptr, e.residual ? res + n0 : nullptr,
                            plan.columns, e.act);
        }
    });
}

}  // namespace irlite::nn
