#include "kernels/detail/epilogue.hpp"

#include <Eigen/Core>
#include <unsupported/Eigen/SpecialFunctions>

#include "kernels/detail/unary.hpp"

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

void apply_activation(const Activation& act, float* p, int64_t n) {
    if (n <= 0 || act.kind == ActivationKind::None) return;
    Eigen::Map<Eigen::ArrayXf> x(p, n);
    switch (act.kind) {
        case ActivationKind::None: break;
        case ActivationKind::Relu: x = max_nan(x, 0.0f); break;
        case ActivationKind::Clamp: x = min_nan(max_nan(x, act.alpha), act.beta); break;
        case ActivationKind::Sigmoid: x = 1.0f / (1.0f + (-x).exp()); break;
        case ActivationKind::Tanh: x = x.tanh(); break;
        case ActivationKind::Swish: x = x / (1.0f + (-act.alpha * x).exp()); break;
        case ActivationKind::HSwish: x = x * min_nan(max_nan(x + 3.0f, 0.0f), 6.0f) / 6.0f; break;
        case ActivationKind::HSigmoid: x = min_nan(max_nan(x + 3.0f, 0.0f), 6.0f) / 6.0f; break;
        case ActivationKind::Elu: x = max_nan(x, 0.0f) + act.alpha * min_nan(x, 0.0f).expm1(); break;
        case ActivationKind::GeluErf: x = 0.5f * x * (1.0f + (x * 0.70710678118654752440f).erf()); break;
        case ActivationKind::GeluTanh:
            x = 0.5f * x * (1.0f + (0.79788456080286535588f * (x + 0.044715f * x * x * x)).tanh());
            break;
        case ActivationKind::SoftPlus: x = softplus(x); break;
        case ActivationKind::Mish: x = x * softplus(x).tanh(); break;
    }
}

void apply_block(float* c, int64_t ldc, int64_t rows, int64_t cols, const float* row_bias, const float* col_bias,
                 const float* res, int64_t ldr, const Activation& act) {
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
