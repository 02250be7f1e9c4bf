// The fused epilogue's activations (kernels/detail/apply_epilogue.hpp).
#include "kernels/detail/apply_epilogue.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

namespace irlite {
namespace {

const ActivationKind kKinds[] = {ActivationKind::Relu,    ActivationKind::Clamp,    ActivationKind::Sigmoid,
                                 ActivationKind::Tanh,    ActivationKind::Swish,    ActivationKind::HSwish,
                                 ActivationKind::HSigmoid, ActivationKind::Elu,     ActivationKind::GeluErf,
                                 ActivationKind::GeluTanh, ActivationKind::SoftPlus, ActivationKind::Mish};

Activation make(ActivationKind kind) {
    Activation a;
    a.kind = kind;
    a.alpha = kind == ActivationKind::Clamp ? -0.5f : kind == ActivationKind::Elu ? 0.7f : 1.0f;
    a.beta = 0.25f;
    return a;
}

// The value of element i does not depend on the run it is part of: where the run starts (its
// alignment), how long it is, or where in it the element sits. A GEMM tile's epilogue runs over
// the tile's rows, whose bounds follow the thread count, so this is what keeps results
// bit-identical for every thread count.
TEST(Epilogue, ActivationOfAnElementDoesNotDependOnItsRun) {
    std::vector<float> values(53);
    for (size_t i = 0; i < values.size(); ++i) values[i] = -6.0f + 0.2371f * static_cast<float>(i);
    for (ActivationKind kind : kKinds) {
        const Activation act = make(kind);
        std::vector<float> alone(values.size());
        for (size_t i = 0; i < values.size(); ++i) {
            float v = values[i];
            nn::apply_activation(act, &v, 1);
            alone[i] = v;
        }
        for (size_t start = 0; start < 9; ++start)
            for (size_t len : {size_t{3}, size_t{8}, size_t{17}, size_t{31}, size_t{44}}) {
                std::vector<float> buf(values.size() + 16, 0.0f);
                float* run = buf.data() + start % 8;  // 0 .. 7 floats past the buffer's start
                std::memcpy(run, values.data() + start, len * sizeof(float));
                nn::apply_activation(act, run, static_cast<int64_t>(len));
                for (size_t i = 0; i < len; ++i) {
                    uint32_t a, b;
                    std::memcpy(&a, &run[i], 4);
                    std::memcpy(&b, &alone[start + i], 4);
                    EXPECT_EQ(a, b) << "kind " << static_cast<int>(kind) << ", element " << start + i << " in a run of "
                                    << len << " from " << start;
                }
            }
    }
}

TEST(Epilogue, ActivationsMatchTheirDefinitions) {
    for (ActivationKind kind : kKinds) {
        const Activation act = make(kind);
        for (int i = 0; i < 41; ++i) {
            const double x = -5.0 + 0.25 * i;
            double want = x;
            switch (kind) {
                case ActivationKind::Relu: want = x > 0 ? x : 0; break;
                case ActivationKind::Clamp: want = std::fmin(std::fmax(x, act.alpha), act.beta); break;
                case ActivationKind::Sigmoid: want = 1 / (1 + std::exp(-x)); break;
                case ActivationKind::Tanh: want = std::tanh(x); break;
                case ActivationKind::Swish: want = x / (1 + std::exp(-act.alpha * x)); break;
                case ActivationKind::HSwish: want = x * std::fmin(std::fmax(x + 3, 0), 6) / 6; break;
                case ActivationKind::HSigmoid: want = std::fmin(std::fmax(x + 3, 0), 6) / 6; break;
                case ActivationKind::Elu: want = x > 0 ? x : act.alpha * std::expm1(x); break;
                case ActivationKind::GeluErf: want = 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); break;
                case ActivationKind::GeluTanh:
                    want = 0.5 * x * (1 + std::tanh(0.79788456080286535588 * (x + 0.044715 * x * x * x)));
                    break;
                case ActivationKind::SoftPlus: want = std::log1p(std::exp(x)); break;
                case ActivationKind::Mish: want = x * std::tanh(std::log1p(std::exp(x))); break;
                default: break;
            }
            float v = static_cast<float>(x);
            nn::apply_activation(act, &v, 1);
            EXPECT_NEAR(v, want, 2e-6 + 2e-6 * std::fabs(want)) << "kind " << static_cast<int>(kind) << " at " << x;
        }
    }
}

}  // namespace
}  // namespace irlite
