// The fused epilogue's activations (kernels/detail/apply_epilogue.hpp).
#include "kernels/detail/apply_epilogue.hpp"
#include "kernels/detail/fake_quantize_row.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
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

// fake_quantize_absorbs claims fq(act(x)) == fq(x) bit for bit: checked on values around every
// bound (each side, the bounds themselves, +-0, the infinities, NaN), on the cases it takes
// (ReLU6 before [0, 6], ReLU before [0, 2.5], a Clamp wider than the range) and shown to matter on
// the cases it refuses (a Clamp inside the range, ReLU before a range below 0, a reversed range
// clamped at its top, a top that (oh - ol) + ol does not give back).
TEST(Epilogue, FakeQuantizeAbsorbsOnlyActivationsItMakesNoDifferenceTo) {
    const auto fq = [](float il, float ih, float ol, float oh) {
        EpilogueFakeQuantize f;
        f.active = true, f.in_low = il, f.in_high = ih, f.out_low = ol, f.out_high = oh, f.levels = 256;
        return f;
    };
    const auto act = [](ActivationKind kind, float a = 0, float b = 0) {
        Activation r;
        r.kind = kind, r.alpha = a, r.beta = b;
        return r;
    };
    const auto differs = [](const Activation& a, const EpilogueFakeQuantize& f) {
        std::vector<float> x;
        for (float v : {f.in_low, f.in_high, a.alpha, a.beta, 0.f, 6.f})
            for (float d : {-1.f, -1e-3f, 0.f, 1e-3f, 1.f}) x.push_back(v + d), x.push_back(std::nextafter(v + d, 100.f));
        for (int i = -100; i <= 100; ++i) x.push_back(static_cast<float>(i) * 0.073f);
        for (float v : {-0.f, std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                        std::numeric_limits<float>::quiet_NaN()})
            x.push_back(v);
        std::vector<float> activated(x.size()), plain(x.size()), through(x.size());
        for (size_t i = 0; i < x.size(); ++i) {
            const float lo = a.kind == ActivationKind::Relu ? 0.f : a.alpha;
            const float hi = a.kind == ActivationKind::Relu ? std::numeric_limits<float>::infinity() : a.beta;
            activated[i] = std::isnan(x[i]) ? x[i] : std::min(std::max(x[i], lo), hi);
        }
        const auto n = static_cast<int64_t>(x.size());
        nn::fake_quantize_row(x.data(), n, f.in_low, f.in_high, f.out_low, f.out_high, 255.f, plain.data());
        nn::fake_quantize_row(activated.data(), n, f.in_low, f.in_high, f.out_low, f.out_high, 255.f, through.data());
        return std::memcmp(plain.data(), through.data(), x.size() * sizeof(float)) != 0;
    };
    const struct {
        Activation a;
        EpilogueFakeQuantize f;
        bool absorbed;
    } cases[] = {
        {act(ActivationKind::Clamp, 0, 6), fq(0, 6, 0, 6), true},
        {act(ActivationKind::Clamp, 0, 6), fq(0, 5.3f, 0, 5.3f), true},
        {act(ActivationKind::Relu), fq(0, 2.5f, 0, 2.5f), true},
        {act(ActivationKind::Clamp, -3, 3), fq(-1, 1, -1, 1), true},
        {act(ActivationKind::Clamp, 0, 5), fq(0, 6, 0, 6), false},
        {act(ActivationKind::Relu), fq(-1, 2, -1, 2), false},
        {act(ActivationKind::Clamp, 0, 6), fq(6, 0, 6, 0), false},
        // (oh - ol) + ol is oh less an ulp for these two
        {act(ActivationKind::Clamp, -1, 0x1.70a3d6p-1f), fq(-0x1.930bep-6f, 0x1.70a3d6p-1f, -0x1.930bep-6f, 0x1.70a3d6p-1f), false},
    };
    for (const auto& c : cases) {
        EXPECT_EQ(nn::fake_quantize_absorbs(c.a, c.f), c.absorbed) << c.f.in_low << " " << c.f.in_high;
        // Sound where it absorbs; and each refused case is one where the activation matters.
        EXPECT_EQ(differs(c.a, c.f), !c.absorbed) << c.f.in_low << " " << c.f.in_high;
    }
}

}  // namespace
}  // namespace irlite
