// MatMul-1 (opset1+): matrix product of the two innermost dims, numpy-broadcast over the others.
// Inputs: 0 'A' [..., M, K] ([..., K, M] with transpose_a), 1 'B' [..., K, N] ([..., N, K] with
// transpose_b), the same element type. A 1-D A is taken as [1, K] and a 1-D B as [K, 1] whatever the
// transpose flags, and that added dim is removed from the result. Scalars are rejected.
// Attributes: transpose_a, transpose_b (default false).
// Output: broadcast(A batch, B batch) + [M, N].
// Types: f32 and f64 through Eigen's GEMM, f16/bf16 computed in f32, every integer type (sums wrap).
#include "kernels/detail/apply_epilogue.hpp"
#include "kernels/detail/nn_common.hpp"
#include "kernels/detail/nn_gemm.hpp"
#include "kernels/detail/parallel.hpp"
#include "kernels/detail/sgemm.hpp"
#include "kernels/math/mat_mul_compressed.hpp"
#include "kernels/math/mat_mul_int8.hpp"

namespace irlite {
namespace {

struct MatMulAttrs : OpAttrs {
    bool transpose_a = false, transpose_b = false;
    // f32 only: bias (along the last output axis), residual (input 2) and activation fused after.
    std::shared_ptr<const Epilogue> epilogue;
    // A's FakeQuantize and B's integers, when the low-precision pass made this layer int8
    // (mat_mul_int8.hpp).
    std::shared_ptr<const QuantizedInput> quantized;
    // B [N, K] compressed, when the weight-compression pass found it (mat_mul_compressed.hpp);
    // input 1 is then the weights' integer Const, which the kernel does not read.
    std::shared_ptr<const CompressedWeights> compressed;
};

std::unique_ptr<OpAttrs> parse(const AttrReader& r) {
    auto a = std::make_unique<MatMulAttrs>();
    a->transpose_a = r.get_bool("transpose_a", false);
    a->transpose_b = r.get_bool("transpose_b", false);
    return a;
}

// Dims of the product; each may be kDynamic in a shape rule.
struct MatMulPlan {
    bool a_vector = false, b_vector = false;  // 1-D operands
    bool trans_a = false, trans_b = false;    // effective (ignored for 1-D operands)
    int64_t m = 0, n = 0, k = 0;
    std::vector<int64_t> batch_a, batch_b, batch_out;  // aligned to the same length
    std::vector<int64_t> out_shape;
};

std::string describe_operand(const char* name, const std::vector<int64_t>& dims, bool transpose) {
    return str(name, " ", to_string(PartialShape(dims)), transpose ? " (transposed)" : "");
}

int64_t broadcast_dim(int64_t x, int64_t y, bool& ok) {
    if (x == y) return x;
    if (x == 1) return y;
    if (y == 1) return x;
    if (x == kDynamic) return y;
    if (y == kDynamic) return x;
    ok = false;
    return x;
}

template <class Ctx>
MatMulPlan make_plan(const Ctx& ctx, const MatMulAttrs& attrs, const std::vector<int64_t>& a,
                     const std::vector<int64_t>& b) {
    if (a.empty()) throw ctx.input_error(0, ErrorKind::ShapeRule, "rank-invalid", "MatMul does not accept a scalar");
    if (b.empty()) throw ctx.input_error(1, ErrorKind::ShapeRule, "rank-invalid", "MatMul does not accept a scalar");
    MatMulPlan p;
    p.a_vector = a.size() == 1;
    p.b_vector = b.size() == 1;
    p.trans_a = attrs.transpose_a && !p.a_vector;
    p.trans_b = attrs.transpose_b && !p.b_vector;
    const size_t ra = a.size(), rb = b.size();
    int64_t ka;
    if (p.a_vector) {
        p.m = 1;
        ka = a[0];
    } else {
        p.m = p.trans_a ? a[ra - 1] : a[ra - 2];
        ka = p.trans_a ? a[ra - 2] : a[ra - 1];
    }
    int64_t kb;
    if (p.b_vector) {
        p.n = 1;
        kb = b[0];
    } else {
        p.n = p.trans_b ? b[rb - 2] : b[rb - 1];
        kb = p.trans_b ? b[rb - 1] : b[rb - 2];
    }
    if (ka != kb && ka != kDynamic && kb != kDynamic)
        throw ctx.input_error(1, ErrorKind::ShapeRule, "dims-mismatch",
                              str("the inner dims differ: ", describe_operand("A", a, p.trans_a), " has K = ", ka,
                                  ", ", describe_operand("B", b, p.trans_b), " has K = ", kb));
    p.k = ka != kDynamic ? ka : kb;

    const size_t batch_rank_a = ra >= 2 ? ra - 2 : 0, batch_rank_b = rb >= 2 ? rb - 2 : 0;
    const size_t batch_rank = std::max(batch_rank_a, batch_rank_b);
    p.batch_a.assign(batch_rank - batch_rank_a, 1);
    p.batch_a.insert(p.batch_a.end(), a.begin(), a.begin() + static_cast<std::ptrdiff_t>(batch_rank_a));
    p.batch_b.assign(batch_rank - batch_rank_b, 1);
    p.batch_b.insert(p.batch_b.end(), b.begin(), b.begin() + static_cast<std::ptrdiff_t>(batch_rank_b));
    for (size_t i = 0; i < batch_rank; ++i) {
        bool ok = true;
        p.batch_out.push_back(broadcast_dim(p.batch_a[i], p.batch_b[i], ok));
        if (!ok)
            throw ctx.input_error(1, ErrorKind::ShapeRule, "dims-mismatch",
                                  str("the batch dims do not broadcast: A ", to_string(PartialShape(a)), ", B ",
                                      to_string(PartialShape(b))));
    }
    p.out_shape = p.batch_out;
    if (!p.a_vector) p.out_shape.push_back(p.m);
    if (!p.b_vector) p.out_shape.push_back(p.n);
    return p;
}

const char* compressed_method(CompressedWeights::Format f) {
    switch (f) {
        case CompressedWeights::Format::U4: return "compressed-u4";
        case CompressedWeights::Format::I4: return "compressed-i4";
        case CompressedWeights::Format::U8: return "compressed-u8";
        case CompressedWeights::Format::I8: return "compressed-i8";
    }
    return "compressed";
}

// A [..., M, K] times compressed B [N, K]: [..., M, N].
std::vector<OutputInfo> infer_compressed(const InferContext& ctx, const CompressedWeights& w) {
    const PartialShape& a = ctx.shape(0);
    if (ctx.type(0) != ElementType::f32 || !a.is_static() || a.rank() < 2 || a.dims().back() != w.depth)
        throw Error(ErrorKind::Unsupported, "compressed-unsupported",
                    "compressed weights on a MatMul whose A is not f32 [..., M, " + std::to_string(w.depth) + "]");
    Shape out = a.to_shape();
    out.back() = w.rows;
    return {{ElementType::f32, PartialShape(out)}};
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    if (const CompressedWeights* w = ctx.attrs<MatMulAttrs>().compressed.get()) return infer_compressed(ctx, *w);
    nn::require_numeric(ctx, 0);
    nn::require_same_type(ctx, 1, 0);
    if (!ctx.shape(0).rank_known() || !ctx.shape(1).rank_known())
        return {{ctx.type(0), PartialShape::dynamic_rank()}};
    const MatMulPlan p = make_plan(ctx, ctx.attrs<MatMulAttrs>(), ctx.shape(0).dims(), ctx.shape(1).dims());
    return {{ctx.type(0), PartialShape(p.out_shape)}};
}

template <class C>
void product(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const C* a, int64_t lda, const C* b,
             int64_t ldb, C* c, int64_t ldc) {
    if constexpr (std::is_floating_point_v<C>)
        nn::gemm<C>(trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc, false);
    else
        nn::gemm_int(trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc);
}

// Batch strides in matrices; 0 along broadcast dims.
std::vector<int64_t> batch_strides(const std::vector<int64_t>& batch) {
    std::vector<int64_t> strides(batch.size(), 0);
    int64_t s = 1;
    for (size_t i = batch.size(); i-- > 0;) {
        strides[i] = batch[i] == 1 ? 0 : s;
        s *= batch[i];
    }
    return strides;
}

// The product planned once: dims, batch broadcasting and batch strides; for f32 (and f16/bf16,
// computed in f32) the packed GEMM (sgemm.hpp): a constant B shared by every batch (the weights of
// a linear layer) is packed here, once, and the rows of A run against it tile by tile.
struct MatMulOpPlan : OpPlan {
    MatMulPlan dims;
    std::vector<int64_t> stride_a, stride_b;  // per batch dim, in matrices; 0 where broadcast
    bool sgemm = false;
    std::vector<float> packed_b;  // B packed for `tall`, when B is constant and shared
    nn::GemmPlan tall;            // all batches of A stacked as rows, times packed_b
    nn::GemmPlan per_batch;       // one batch's product, both operands as they are
    // The fused epilogue (f32), its bias along the output's last axis: applied tile by tile when
    // epilogue_in_kernel (the GEMM's columns are that axis), else over the whole output.
    nn::FusedEpilogue epilogue;
    bool epilogue_in_kernel = false;
    // The int8 method (the low-precision pass's layers): everything else above is unused.
    std::unique_ptr<nn::Int8MatMulPlan> int8;
    // The compressed-weight method (the weight-compression pass's layers): likewise.
    std::unique_ptr<nn::CompressedMatMulPlan> compressed;
    // Scratch: the GEMM's (each thread's region), then A, B and C converted to the compute type
    // (f16/bf16 as f32, narrower integers as 64 bits: nn::conversion_bytes), which the calling
    // thread's region holds for every thread to read (A, B) and write (C).
    size_t gemm_bytes = 0, a_bytes = 0, b_bytes = 0, c_bytes = 0;
    nn::ScratchSpace space(const KernelContext& ctx, size_t offset, size_t bytes) const {
        return {static_cast<std::byte*>(ctx.scratch()) + gemm_bytes + offset, bytes};
    }
};

// Adds the conversions' bytes to a prepared plan's scratch.
std::unique_ptr<OpPlan> with_conversions(const InferContext& ctx, std::unique_ptr<MatMulOpPlan> plan) {
    const auto count = [](const PartialShape& s) { return checked_num_elements(s.to_shape()); };
    plan->gemm_bytes = (plan->scratch_bytes + 63) / 64 * 64;
    plan->a_bytes = nn::conversion_bytes(ctx.type(0), count(ctx.shape(0)));
    plan->b_bytes = plan->packed_b.empty() ? nn::conversion_bytes(ctx.type(1), count(ctx.shape(1))) : 0;
    plan->c_bytes = nn::conversion_bytes(ctx.type(0), checked_num_elements(plan->dims.out_shape));
    plan->scratch_bytes = plan->gemm_bytes + plan->a_bytes + plan->b_bytes + plan->c_bytes;
    return plan;
}

// Fixed blocks (never a function of the thread count): rows of a tall product, or columns of a
// short one (batch-1 linear layers), so that threads share the work with identical results.
inline constexpr int64_t kRowBlock = 64, kColumnBlock = 256;

template <class C>
void blocked_product(ThreadPool* pool, bool trans_b, int64_t m, int64_t n, int64_t k, const C* a, int64_t lda,
                     const C* b, int64_t ldb, C* c, int64_t ldc) {
    if (m >= 2 * kRowBlock) {
        detail::for_chunks(pool, m, kRowBlock, [&](int64_t begin, int64_t end) {
            product(false, trans_b, end - begin, n, k, a + begin * lda, lda, b, ldb, c + begin * ldc, ldc);
        });
    } else {
        detail::for_chunks(pool, n, kColumnBlock, [&](int64_t begin, int64_t end) {
            product(false, trans_b, m, end - begin, k, a, lda, b + (trans_b ? begin * ldb : begin), ldb, c + begin, ldc);
        });
    }
}

template <class C>
void run(const MatMulOpPlan& plan, const C* a, const C* b, C* c, ThreadPool* pool) {
    const MatMulPlan& p = plan.dims;
    const int64_t lda = p.trans_a ? p.m : p.k, ldb = p.trans_b ? p.k : p.n;
    const int64_t a_size = p.m * p.k, b_size = p.k * p.n, c_size = p.m * p.n;
    int64_t batches = 1, batches_a = 1;
    bool b_shared = true;
    for (size_t i = 0; i < p.batch_out.size(); ++i) {
        batches *= p.batch_out[i];
        batches_a *= p.batch_a[i];
        b_shared = b_shared && p.batch_b[i] == 1;
    }
    if (b_shared && !p.trans_a) {
        // One tall product: the batches of A stacked row-wise (the usual Linear layer).
        blocked_product(pool, p.trans_b, batches_a * p.m, p.n, p.k, a, lda, b, ldb, c, p.n);
        return;
    }
    // One product per batch (attention heads), the batches shared among the threads.
    const std::vector<int64_t>& sa = plan.stride_a;
    const std::vector<int64_t>& sb = plan.stride_b;
    const size_t rank = p.batch_out.size();
    detail::for_chunks(pool, batches, 1, [&](int64_t begin, int64_t end) {
        for (int64_t batch = begin; batch < end; ++batch) {
            int64_t off_a = 0, off_b = 0;
            for (size_t d = rank, rest = static_cast<size_t>(batch); d-- > 0;) {
                const auto count = static_cast<size_t>(p.batch_out[d]);
                const auto index = static_cast<int64_t>(rest % count);
                off_a += index * sa[d];
                off_b += index * sb[d];
                rest /= count;
            }
            product(p.trans_a, p.trans_b, p.m, p.n, p.k, a + off_a * a_size, lda, b + off_b * b_size, ldb,
                    c + batch * c_size, p.n);
        }
    });
}

bool computes_in_f32(ElementType t) { return t == ElementType::f32 || t == ElementType::f16 || t == ElementType::bf16; }

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    auto plan = std::make_unique<MatMulOpPlan>();
    if (auto w = ctx.attrs<MatMulAttrs>().compressed) {
        const Shape out = infer_compressed(ctx, *w)[0].shape.to_shape();
        plan->dims.out_shape = out;
        plan->epilogue = nn::FusedEpilogue::from(ctx.attrs<MatMulAttrs>().epilogue.get(), out.back());
        int64_t rows = 1;
        for (size_t i = 0; i + 1 < out.size(); ++i) rows *= out[i];
        plan->compressed = std::make_unique<nn::CompressedMatMulPlan>(
            nn::plan_compressed_mat_mul(rows, std::move(w), plan->epilogue, cpu::active_isa()));
        plan->scratch_bytes = plan->compressed->scratch_bytes();
        plan->method = compressed_method(plan->compressed->weights->format);
        plan->epilogue_in_kernel = true;
        return plan;
    }
    MatMulPlan& p = plan->dims;
    p = make_plan(ctx, ctx.attrs<MatMulAttrs>(), ctx.shape(0).dims(), ctx.shape(1).dims());
    plan->stride_a = batch_strides(p.batch_a);
    plan->stride_b = batch_strides(p.batch_b);
    plan->method = "gemm";
    if (!computes_in_f32(ctx.type(0))) return with_conversions(ctx, std::move(plan));
    plan->sgemm = true;
    plan->method = "sgemm";
    if (ctx.type(0) == ElementType::f32) {
        plan->epilogue = nn::FusedEpilogue::from(ctx.attrs<MatMulAttrs>().epilogue.get(),
                                                 p.out_shape.empty() ? 1 : p.out_shape.back());
        plan->epilogue_in_kernel = !p.b_vector;
    }
    int64_t batches_a = 1;
    bool b_shared = true;
    for (size_t i = 0; i < p.batch_out.size(); ++i) {
        batches_a *= p.batch_a[i];
        b_shared = b_shared && p.batch_b[i] == 1;
    }
    if (const QuantizedInput* q = ctx.attrs<MatMulAttrs>().quantized.get()) {
        // The pass only hands this to f32 A, not transposed, times constant 2-D weights.
        if (ctx.type(0) != ElementType::f32 || !ctx.value(1) || !b_shared || p.trans_a || p.b_vector ||
            static_cast<int64_t>(q->weights.size()) != p.k * p.n)
            throw Error(ErrorKind::Unsupported, "int8-unsupported", "an int8 input on a MatMul the int8 method cannot run");
        plan->int8 = std::make_unique<nn::Int8MatMulPlan>(
            nn::plan_int8_mat_mul(batches_a * p.m, p.k, p.n, p.trans_b, *q, plan->epilogue, cpu::active_isa()));
        plan->scratch_bytes = plan->int8->scratch_bytes();
        plan->method = "int8-gemm";
        return plan;
    }
    if (ctx.value(1) && b_shared && !p.trans_a) {
        std::vector<float> b(static_cast<size_t>(p.k * p.n));
        nn::load_as<float>(*ctx.value(1), b.data());
        plan->tall = nn::plan_gemm(batches_a * p.m, p.n, p.k, false, true, nn::gemm_workers(ctx.threads()));
        plan->packed_b.resize(nn::packed_b_floats(plan->tall.layout, p.n));
        nn::pack_b(plan->tall.layout, b.data(), p.trans_b ? p.k : p.n, p.trans_b, p.n, plan->packed_b.data());
        plan->scratch_bytes = nn::scratch_bytes(plan->tall);
        plan->method = "sgemm-packed";
        return with_conversions(ctx, std::move(plan));
    }
    plan->per_batch = nn::plan_gemm(p.m, p.n, p.k, false, false, 1, nn::gemm_isa_for(p.n));
    plan->scratch_bytes = nn::scratch_bytes(plan->per_batch);
    return with_conversions(ctx, std::move(plan));
}

void run_sgemm(const MatMulOpPlan& plan, const float* a, const float* b, float* c, const float* res,
               const KernelContext& ctx) {
    const MatMulPlan& p = plan.dims;
    const int64_t lda = p.trans_a ? p.m : p.k, ldb = p.trans_b ? p.k : p.n;
    const nn::FusedEpilogue& fe = plan.epilogue;
    const nn::GemmEpilogue epi =
        plan.epilogue_in_kernel ? fe.gemm(nn::GemmEpilogue::BiasAxis::Column, 0) : nn::GemmEpilogue{};
    if (!plan.packed_b.empty()) {
        const nn::GemmPlan& g = plan.tall;
        detail::for_chunks(ctx.pool(), g.tiles(), 1, [&](int64_t begin, int64_t end) {
            for (int64_t t = begin; t < end; ++t) {
                nn::run_gemm_tile(g, t, nn::GemmOperand::plain(a, lda), nn::GemmOperand::prepacked(plan.packed_b.data()),
                                  c, p.n, epi, ctx.scratch());
                if (plan.epilogue_in_kernel && fe.has_rest()) {  // the rest while the tile is in cache
                    const int64_t i0 = t / g.tiles_n * g.mc, j0 = t % g.tiles_n * g.nc;
                    const int64_t rows = std::min(g.mc, g.m - i0), cols = std::min(g.nc, g.n - j0);
                    nn::apply_rest(fe, c + i0 * p.n + j0, p.n, rows, cols, res ? res + i0 * p.n + j0 : nullptr, p.n);
                }
            }
        });
        return;
    }
    int64_t batches = 1;
    for (int64_t d : p.batch_out) batches *= d;
    const int64_t a_size = p.m * p.k, b_size = p.k * p.n, c_size = p.m * p.n;
    const size_t rank = p.batch_out.size();
    detail::for_chunks(ctx.pool(), batches, 1, [&](int64_t begin, int64_t end) {
        for (int64_t batch = begin; batch < end; ++batch) {
            int64_t off_a = 0, off_b = 0;
            for (size_t d = rank, rest = static_cast<size_t>(batch); d-- > 0;) {
                const auto count = static_cast<size_t>(p.batch_out[d]);
                const auto index = static_cast<int64_t>(rest % count);
                off_a += index * plan.stride_a[d];
                off_b += index * plan.stride_b[d];
                rest /= count;
            }
            nn::run_gemm(plan.per_batch, nn::GemmOperand::plain(a + off_a * a_size, lda, p.trans_a),
                         nn::GemmOperand::plain(b + off_b * b_size, ldb, p.trans_b), c + batch * c_size, p.n, epi,
                         ctx.scratch());
            if (plan.epilogue_in_kernel)
                nn::apply_rest(fe, c + batch * c_size, p.n, p.m, p.n, res ? res + batch * c_size : nullptr, p.n);
        }
    });
}

void compute(KernelContext& ctx) {
    const MatMulOpPlan& p = ctx.plan<MatMulOpPlan>();
    if (ctx.output(0).num_elements() == 0) return;
    if (p.compressed) {
        // A fused residual is the last input (f32, the output's shape).
        const float* res = p.epilogue.residual ? ctx.input(ctx.num_inputs() - 1).data<float>() : nullptr;
        nn::run_compressed_mat_mul(*p.compressed, ctx.input(0).data<float>(), ctx.output(0).data<float>(), res,
                                   ctx.scratch(), ctx.pool());
        return;
    }
    nn::dispatch_compute(ctx.input(0).type(), [&](auto tag) {
        using C = decltype(tag);
        const nn::ComputeIn<C> a(ctx.input(0), p.space(ctx, 0, p.a_bytes));
        nn::ComputeOut<C> c(ctx.output(0), p.space(ctx, p.a_bytes + p.b_bytes, p.c_bytes));
        if constexpr (std::is_same_v<C, float>) {
            if (p.sgemm) {
                // A fused residual is the last input (f32, the output's shape).
                const float* res = p.epilogue.residual ? ctx.input(ctx.num_inputs() - 1).data<float>() : nullptr;
                if (p.int8) {
                    nn::run_int8_mat_mul(*p.int8, a.data(), c.data(), res, ctx.scratch(), ctx.pool());
                    c.commit();
                    return;
                }
                if (!p.packed_b.empty()) {
                    run_sgemm(p, a.data(), nullptr, c.data(), res, ctx);  // B is packed in the plan
                } else {
                    const nn::ComputeIn<C> b(ctx.input(1), p.space(ctx, p.a_bytes, p.b_bytes));
                    run_sgemm(p, a.data(), b.data(), c.data(), res, ctx);
                }
                if (p.epilogue.active && !p.epilogue_in_kernel) {
                    // The output as [elements / channels, channels]: a column bias.
                    const int64_t channels = p.dims.out_shape.empty() ? 1 : p.dims.out_shape.back();
                    const int64_t rows = channels ? ctx.output(0).num_elements() / channels : 0;
                    nn::apply_block(c.data(), channels, rows, channels, nullptr, p.epilogue.bias_at(0), res, channels,
                                    p.epilogue.act);
                }
                c.commit();
                return;
            }
        }
        const nn::ComputeIn<C> b(ctx.input(1), p.space(ctx, p.a_bytes, p.b_bytes));
        run<C>(p, a.data(), b.data(), c.data(), ctx.pool());
        c.commit();
    });
}

}  // namespace

OpDef make_mat_mul_op() {
    OpDef d;
    d.type = "MatMul";
    d.version = 1;
    d.input_roles = {"A", "B"};
    d.min_inputs = 2;
    d.parse_attrs = parse;
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    d.with_epilogue = [](const OpAttrs& a, std::shared_ptr<const Epilogue> e) -> std::unique_ptr<OpAttrs> {
        auto fused = std::make_unique<MatMulAttrs>(static_cast<const MatMulAttrs&>(a));
        fused->epilogue = std::move(e);
        return fused;
    };
    d.epilogue_channel_axis = -1;
    d.with_quantized_input = [](const OpAttrs& a, std::shared_ptr<const QuantizedInput> q) -> std::unique_ptr<OpAttrs> {
        const auto& attrs = static_cast<const MatMulAttrs&>(a);
        const Shape& w = q->weights_shape;
        const int64_t depth = w.size() == 2 ? w[attrs.transpose_b ? 1 : 0] : 0;
        if (w.size() != 2 || attrs.transpose_a || depth >= nn::kInt8MaxDepth ||
            !nn::int8_mat_mul_fits(*q, attrs.transpose_b))
            return nullptr;
        auto quantized = std::make_unique<MatMulAttrs>(attrs);
        quantized->quantized = std::move(q);
        return quantized;
    };
    d.with_compressed_weights = [](const OpAttrs& a, std::shared_ptr<const CompressedWeights> w) -> std::unique_ptr<OpAttrs> {
        const auto& attrs = static_cast<const MatMulAttrs&>(a);
        if (!attrs.transpose_b || attrs.transpose_a || attrs.quantized) return nullptr;
        auto compressed = std::make_unique<MatMulAttrs>(attrs);
        compressed->compressed = std::move(w);
        return compressed;
    };
    return d;
}

}  // namespace irlite
