#include "kernels/detail/apply_epilogue.hpp"

#include <algorithm>
#include <cstring>

#include <Eigen/Core>
#include <unsupported/Eigen/SpecialFunctions>

#include "kernels/detail/cpu_isa.hpp"
#include "kernels/detail/unary.hpp"
#include "kernels/detail/vec_math.hpp"

namespace irlite::nn {

FusedEpilogue FusedEpilogue::from(const Epilogue* e, int64_t channels) {
    FusedEpilogue f;
    if (!e || e->empty()) return f;
    f.active = true;
    if (!e->bias.empty()) {
        f.bias.resize(static_cast<size_t>(channels));
        for (int64_t c = 0; c < channels; ++c) f.bias[static_cast<size_t>(c)] = e->bias.size() == 1 ? e->bias[0] : e->bias[static_cast<size_t>(c)];
    }
    f.residual = e->residual;
    f.act = e->act;
    f.fake_quantize = e->fake_quantize;
    return f;
}

bool FusedEpilogue::act_in_gemm() const {
    return !residual && (act.kind == ActivationKind::None || act.kind == ActivationKind::Relu ||
                         act.kind == ActivationKind::Clamp);
}

GemmEpilogue FusedEpilogue::gemm(GemmEpilogue::BiasAxis axis, int64_t first_channel) const {
    GemmEpilogue g;
    if (!active) return g;
    g.bias = bias_at(first_channel);
    g.axis = axis;
    if (act_in_gemm()) {
        if (act.kind == ActivationKind::Relu) g.act = GemmActivation::Relu;
        if (act.kind == ActivationKind::Clamp) {
            g.act = GemmActivation::Clamp;
            g.lo = act.alpha;
            g.hi = act.beta;
        }
    }
    return g;
}

namespace {

using detail::max_nan;
using detail::min_nan;

template <class X>
auto softplus(const X& x) {
    return max_nan(x, 0.0f) + (-x.abs()).exp().log1p();
}

}  // namespace

// Eigen computes a run's unaligned head and its tail with the scalar functions (std::exp, ...),
// whose last bits differ from its packet ones: an element's value would then depend on where its
// run starts and ends, i.e. on a GEMM tile's bounds, which follow the thread count. So the
// transcendental activations take every element through the packet functions: in blocks of
// kActivationBlock floats, each copied into an aligned buffer (zero-padded at the end). Sigmoid,
// Tanh, Swish and Gelu (both forms) do not need this: they use vec_math.hpp (activate_at_level).
// Add, multiply, divide, max and min round the same in either path and run in place.
inline constexpr int64_t kActivationBlock = 16;

template <class F>
void by_blocks(float* p, int64_t n, const F& f) {
    alignas(64) float buf[kActivationBlock];
    for (int64_t i = 0; i < n; i += kActivationBlock) {
        const int64_t m = std::min(kActivationBlock, n - i);
        std::memcpy(buf, p + i, sizeof(float) * static_cast<size_t>(m));
        std::fill(buf + m, buf + kActivationBlock, 0.0f);
        Eigen::Map<Eigen::Array<float, kActivationBlock, 1>, Eigen::Aligned64> x(buf);
        f(x);
        std::memcpy(p + i, buf, sizeof(float) * static_cast<size_t>(m));
    }
}

namespace {

// Sigmoid, Tanh, Swish and Gelu (both forms): vec_math's functions (no libm), element by element
// at the CPU's level (cpu_isa.hpp), the same bits at every level and wherever a run starts, and
// the same as the unfused ops' f32 kernels.
template <class F>
IRLITE_ISA_INLINE void map_in_place(float* __restrict p, int64_t n, const F& f) {
    for (int64_t i = 0; i < n; ++i) p[i] = f(p[i]);
}

void activate_at_level(const Activation& act, float* p, int64_t n) {
    const float alpha = act.alpha;
    cpu::run([&] {
        switch (act.kind) {
            case ActivationKind::Sigmoid: map_in_place(p, n, [](float x) { return vmath::sigmoid_f32(x); }); break;
            case ActivationKind::Tanh: map_in_place(p, n, [](float x) { return vmath::tanh_f32(x); }); break;
            case ActivationKind::Swish:
                map_in_place(p, n, [alpha](float x) { return x * vmath::sigmoid_f32(alpha * x); });
                break;
            case ActivationKind::GeluTanh: map_in_place(p, n, [](float x) { return vmath::gelu_tanh_f32(x); }); break;
            case ActivationKind::GeluErf: map_in_place(p, n, [](float x) { return vmath::gelu_erf_f32(x); }); break;
            default: break;
        }
    });
}

}  // namespace

void apply_activation(const Activation& act, float* p, int64_t n) {
    if (n <= 0 || act.kind == ActivationKind::None) return;
    Eigen::Map<Eigen::ArrayXf> whole(p, n);
    switch (act.kind) {
        case ActivationKind::None: return;
        case ActivationKind::Relu: whole = max_nan(whole, 0.0f); return;
        case ActivationKind::Clamp: whole = min_nan(max_nan(whole, act.alpha), act.beta); return;
        case ActivationKind::HSwish: whole = whole * min_nan(max_nan(whole + 3.0f, 0.0f), 6.0f) / 6.0f; return;
        case ActivationKind::HSigmoid: whole = min_nan(max_nan(whole + 3.0f, 0.0f), 6.0f) / 6.0f; return;
        case ActivationKind::Sigmoid:
        case ActivationKind::Tanh:
        case ActivationKind::Swish:
        case ActivationKind::GeluTanh:
        case ActivationKind::GeluErf: activate_at_level(act, p, n); return;
        default: break;
    }
    by_blocks(p, n, [&](auto& x) {
        switch (act.kind) {
            case ActivationKind::Elu: x = max_nan(x, 0.0f) + act.alpha * min_nan(x, 0.0f).expm1(); break;
            case ActivationKind::SoftPlus: x = softplus(x); break;
            case ActivationKind::Mish: x = x * softplus(x).tanh(); break;
            default: break;
        }
    });
}

namespace {

// Bias, residual and ReLU / Clamp in one pass over each row, compiled for the CPU's level
// (cpu_isa.hpp). Each element gets the same operations as the separate passes below (adds only
// where a term is present, so -0 stays -0; max/min with MaxNanOp/MinNanOp's rule), so results do
// not depend on which path or level ran. The terms present are template arguments, so that the
// inner loop has no branch and vectorises.
enum class Act { None, Relu, Clamp };

template <bool kRowBias, bool kColBias, bool kRes, Act kAct>
void block_one_pass(float* c, int64_t ldc, int64_t rows, int64_t cols, const float* row_bias, const float* col_bias,
                    const float* res, int64_t ldr, float lo, float hi) {
    const detail::MaxNanOp<float> max_op;
    const detail::MinNanOp<float> min_op;
    for (int64_t r = 0; r < rows; ++r) {
        float* __restrict row = c + r * ldc;
        const float* __restrict rr = kRes ? res + r * ldr : nullptr;
        const float* __restrict cb = col_bias;
        const float b = kRowBias ? row_bias[r] : 0.0f;
        for (int64_t j = 0; j < cols; ++j) {
            float v = row[j];
            if constexpr (kRowBias) v = v + b;
            if constexpr (kColBias) v = v + cb[j];
            if constexpr (kRes) v = v + rr[j];
            if constexpr (kAct == Act::Relu) v = max_op(v, 0.0f);
            if constexpr (kAct == Act::Clamp) v = min_op(max_op(v, lo), hi);
            row[j] = v;
        }
    }
}

struct BlockArgs {
    float* c;
    int64_t ldc, rows, cols;
    const float *row_bias, *col_bias, *res;
    int64_t ldr;
    float lo, hi;
};

// Direct calls all the way down (no function pointers), so that cpu::run's flatten compiles every
// instantiation into the clone of each level.
template <bool kRowBias, bool kColBias, bool kRes>
void run_act(const BlockArgs& a, Act act) {
    if (act == Act::Relu)
        block_one_pass<kRowBias, kColBias, kRes, Act::Relu>(a.c, a.ldc, a.rows, a.cols, a.row_bias, a.col_bias, a.res,
                                                            a.ldr, a.lo, a.hi);
    else if (act == Act::Clamp)
        block_one_pass<kRowBias, kColBias, kRes, Act::Clamp>(a.c, a.ldc, a.rows, a.cols, a.row_bias, a.col_bias, a.res,
                                                             a.ldr, a.lo, a.hi);
    else
        block_one_pass<kRowBias, kColBias, kRes, Act::None>(a.c, a.ldc, a.rows, a.cols, a.row_bias, a.col_bias, a.res,
                                                            a.ldr, a.lo, a.hi);
}

template <bool kRowBias, bool kColBias>
void run_res(const BlockArgs& a, Act act) {
    if (a.res) run_act<kRowBias, kColBias, true>(a, act);
    else run_act<kRowBias, kColBias, false>(a, act);
}

template <bool kRowBias>
void run_col(const BlockArgs& a, Act act) {
    if (a.col_bias) run_res<kRowBias, true>(a, act);
    else run_res<kRowBias, false>(a, act);
}

void run_block(const BlockArgs& a, Act act) {
    if (a.row_bias) run_col<true>(a, act);
    else run_col<false>(a, act);
}

}  // namespace

void apply_block(float* c, int64_t ldc, int64_t rows, int64_t cols, const float* row_bias, const float* col_bias,
                 const float* res, int64_t ldr, const Activation& act) {
    // Contiguous rows with nothing per row or column are one row (few-column blocks: see
    // fake_quantize_block).
    if (rows > 1 && !row_bias && !col_bias && ldc == cols && (!res || ldr == cols)) cols *= rows, rows = 1;
    if (act.kind == ActivationKind::None || act.kind == ActivationKind::Relu || act.kind == ActivationKind::Clamp) {
        const Act kind = act.kind == ActivationKind::Relu ? Act::Relu
                         : act.kind == ActivationKind::Clamp ? Act::Clamp
                                                             : Act::None;
        const BlockArgs args{c, ldc, rows, cols, row_bias, col_bias, res, ldr, act.alpha, act.beta};
        cpu::run([&] { run_block(args, kind); });
        return;
    }
    for (int64_t r = 0; r < rows; ++r) {
        float* row = c + r * ldc;
        if (row_bias) {
            const float b = row_bias[r];
            for (int64_t j = 0; j < cols; ++j) row[j] = row[j] + b;
        }
        if (col_bias)
            for (int64_t j = 0; j < cols; ++j) row[j] = row[j] + col_bias[j];
        if (res) {
            const float* rr = res + r * ldr;
            for (int64_t j = 0; j < cols; ++j) row[j] = row[j] + rr[j];
        }
        apply_activation(act, row, cols);
    }
}

}  // namespace irlite::nn
