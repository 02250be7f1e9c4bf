// Run-time instruction-set dispatch (kernels/detail/cpu_isa.hpp): the IRLITE_ISA names, the cap,
// and the multi-versioned kernels (isa_loop ops) at every level this CPU supports: each level's
// result equals a scalar reference computed here, and all levels give the same bytes.
// tests/CMakeLists.txt also runs the op tests once per capped level (IRLITE_ISA=sse, avx2).
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>

#include "kernels/detail/apply_epilogue.hpp"
#include "kernels/detail/cpu_isa.hpp"
#include "kernels/detail/vec_math.hpp"
#include "op_tester.hpp"
#include "ops/recurrent_test_util.hpp"

namespace irlite::testing {
namespace {

using cpu::Isa;

std::vector<Isa> supported_levels() {
    std::vector<Isa> v;
    for (Isa i : {Isa::Sse, Isa::Avx2, Isa::Avx512})
        if (cpu::isa_supported(i)) v.push_back(i);
    return v;
}

// Caps the level for the lifetime of the object.
struct IsaCap {
    explicit IsaCap(Isa cap) { cpu::set_isa_cap_for_testing(cap); }
    ~IsaCap() { cpu::reset_isa_cap_for_testing(); }
    IsaCap(const IsaCap&) = delete;
    IsaCap& operator=(const IsaCap&) = delete;
};

TEST(IsaDispatch, NamesParse) {
    Isa i = Isa::Avx512;
    EXPECT_TRUE(cpu::parse_isa("sse", i));
    EXPECT_EQ(i, Isa::Sse);
    EXPECT_TRUE(cpu::parse_isa("avx2", i));
    EXPECT_EQ(i, Isa::Avx2);
    EXPECT_TRUE(cpu::parse_isa("avx512", i));
    EXPECT_EQ(i, Isa::Avx512);
    EXPECT_TRUE(cpu::parse_isa("baseline", i));
    EXPECT_EQ(i, Isa::Sse);
    EXPECT_FALSE(cpu::parse_isa("avx3", i));
    EXPECT_FALSE(cpu::parse_isa("", i));
    EXPECT_FALSE(cpu::parse_isa(nullptr, i));
    for (Isa l : {Isa::Sse, Isa::Avx2, Isa::Avx512}) {
        Isa back = Isa::Sse;
        EXPECT_TRUE(cpu::parse_isa(cpu::isa_name(l), back));
        EXPECT_EQ(back, l);
    }
}

TEST(IsaDispatch, CapNeverExceedsTheCpu) {
    const Isa detected = cpu::detected_isa();
    EXPECT_TRUE(cpu::isa_supported(Isa::Sse));
    EXPECT_TRUE(cpu::isa_supported(detected));
    for (Isa cap : {Isa::Sse, Isa::Avx2, Isa::Avx512}) {
        const IsaCap c(cap);
        const Isa active = cpu::active_isa();
        EXPECT_LE(static_cast<int>(active), static_cast<int>(cap));
        EXPECT_LE(static_cast<int>(active), static_cast<int>(detected));
        EXPECT_EQ(active, static_cast<int>(cap) < static_cast<int>(detected) ? cap : detected);
    }
}

// Under ctest's ops_isa_sse / ops_isa_avx2 (IRLITE_ISA set), the cap is in force.
TEST(IsaDispatch, EnvironmentCapIsApplied) {
    const char* env = std::getenv("IRLITE_ISA");
    Isa cap = Isa::Avx512;
    if (env == nullptr || !cpu::parse_isa(env, cap)) GTEST_SKIP() << "IRLITE_ISA is not set";
    const Isa detected = cpu::detected_isa();
    EXPECT_EQ(cpu::active_isa(), static_cast<int>(cap) < static_cast<int>(detected) ? cap : detected);
}

TEST(IsaDispatch, RunAtRunsTheBodyOnceAtEveryLevel) {
    for (Isa isa : supported_levels()) {
        std::vector<float> a(1000), out(1000, -1.0f);
        for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i) * 0.5f;
        int calls = 0;
        cpu::run_at(isa, [&] {
            ++calls;
            for (size_t i = 0; i < a.size(); ++i) out[i] = a[i] * 2.0f + 1.0f;
        });
        EXPECT_EQ(calls, 1) << cpu::isa_name(isa);
        for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(out[i], static_cast<float>(i) + 1.0f) << cpu::isa_name(isa);
    }
}

// ---- the isa_loop ops ------------------------------------------------------------------------

// Values that exercise every branch: signed zeros, infinities, NaN, tiny and huge numbers,
// values around Clamp's and HSwish's bounds; then random ones. Lengths not a multiple of any
// vector width.
std::vector<float> test_values(size_t n, uint32_t seed) {
    std::vector<float> v = {0.0f, -0.0f, 1.0f, -1.0f, 3.0f, -3.0f, 6.0f, 2.9999998f, -2.9999998f,
                            std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::denorm_min(),
                            1e-30f, -1e30f, 3.4e38f};
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> d(-10.0f, 10.0f);
    while (v.size() < n) v.push_back(d(rng));
    v.resize(n);
    return v;
}

bool same_float(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b)); }

::testing::AssertionResult matches(const Tensor& got, const std::vector<float>& want) {
    if (got.type() != ElementType::f32 || static_cast<size_t>(got.num_elements()) != want.size())
        return ::testing::AssertionFailure() << "type or size differs";
    const float* g = got.data<float>();
    for (size_t i = 0; i < want.size(); ++i)
        if (!same_float(g[i], want[i]))
            return ::testing::AssertionFailure() << "element " << i << ": got " << g[i] << ", want " << want[i];
    return ::testing::AssertionSuccess();
}

float nan_max(float x, float c) { return std::isnan(x) ? x : (x > c ? x : c); }
float nan_min(float x, float c) { return std::isnan(x) ? x : (x < c ? x : c); }

struct UnaryCase {
    const char* op;
    int opset;
    std::vector<IrAttribute> attrs;
    float (*ref)(float);
};

const UnaryCase kUnary[] = {
    {"ReLU", 1, {}, [](float x) { return nan_max(x, 0.0f); }},
    {"Clamp", 1, {{"min", "-1.5"}, {"max", "6"}}, [](float x) { return nan_min(nan_max(x, -1.5f), 6.0f); }},
    {"HSwish", 4, {}, [](float x) { return x * nan_min(nan_max(x + 3.0f, 0.0f), 6.0f) / 6.0f; }},
    {"HSigmoid", 5, {}, [](float x) { return nan_min(nan_max(x + 3.0f, 0.0f), 6.0f) / 6.0f; }},
    {"SoftSign", 9, {}, [](float x) { return x / (1.0f + std::fabs(x)); }},
    // The f32 kernels built on vec_math.hpp: the same bits as its scalar functions.
    {"Sigmoid", 1, {}, [](float x) { return vmath::sigmoid_f32(x); }},
    {"Tanh", 1, {}, [](float x) { return vmath::tanh_f32(x); }},
    {"Swish", 4, {}, [](float x) { return x * vmath::sigmoid_f32(1.0f * x); }},
    {"Gelu", 7, {{"approximation_mode", "tanh"}}, [](float x) { return vmath::gelu_tanh_f32(x); }},
    {"Gelu", 7, {}, [](float x) { return vmath::gelu_erf_f32(x); }},
    {"Gelu", 2, {}, [](float x) { return vmath::gelu_erf_f32(x); }},
    {"Erf", 1, {}, [](float x) { return vmath::erf_f32(x); }},
};

TEST(IsaDispatch, UnaryOpsMatchTheReferenceAtEveryLevel) {
    const std::vector<float> x = test_values(40011, 1);  // more than one parallel chunk
    for (const UnaryCase& c : kUnary) {
        std::vector<float> want(x.size());
        for (size_t i = 0; i < x.size(); ++i) want[i] = c.ref(x[i]);
        std::vector<Tensor> results;
        for (Isa isa : supported_levels()) {
            const IsaCap cap(isa);
            results.push_back(OpTester(c.op, c.opset, c.attrs).run1({make_tensor<float>({40011}, x)}));
            EXPECT_TRUE(matches(results.back(), want)) << c.op << " at " << cpu::isa_name(isa);
        }
        for (size_t l = 1; l < results.size(); ++l) EXPECT_TRUE(tensors_equal(results[l], results[0])) << c.op;
    }
}

struct BinaryCase {
    const char* op;
    float (*ref)(float, float);
};

const BinaryCase kBinary[] = {
    {"Add", [](float a, float b) { return a + b; }},
    {"Subtract", [](float a, float b) { return a - b; }},
    {"Multiply", [](float a, float b) { return a * b; }},
    {"Divide", [](float a, float b) { return a / b; }},
    {"SquaredDifference", [](float a, float b) { return (a - b) * (a - b); }},
};

// Same shapes (one row), a scalar operand, and a row broadcast (rows of 7, 33, ...).
TEST(IsaDispatch, BinaryOpsMatchTheReferenceAtEveryLevel) {
    struct Shapes {
        Shape a, b;
    };
    const Shapes kShapes[] = {{{3, 1001}, {3, 1001}}, {{2, 517}, {}}, {{}, {2, 517}}, {{64, 33}, {33}}, {{5, 7, 9}, {5, 1, 9}}};
    for (const BinaryCase& c : kBinary)
        for (const Shapes& s : kShapes) {
            const Tensor a = make_tensor<float>(s.a, test_values(static_cast<size_t>(checked_num_elements(s.a)), 2));
            Tensor b = make_tensor<float>(s.b, test_values(static_cast<size_t>(checked_num_elements(s.b)), 3));
            // A reversed b so that special values meet each other, not only themselves.
            std::reverse(b.data<float>(), b.data<float>() + b.num_elements());
            std::vector<Tensor> results;
            for (Isa isa : supported_levels()) {
                const IsaCap cap(isa);
                results.push_back(OpTester(c.op, 1).run1({a, b}));
            }
            ASSERT_FALSE(results.empty());
            // Reference: numpy broadcasting by index arithmetic on the output shape.
            const Tensor& r0 = results[0];
            const Shape& out = r0.shape();
            std::vector<float> want(static_cast<size_t>(r0.num_elements()));
            auto offset = [&](const Shape& in, int64_t flat) {
                int64_t off = 0, stride = 1, rem = flat;
                for (size_t d = out.size(); d-- > 0;) {
                    const int64_t idx = rem % out[d];
                    rem /= out[d];
                    const size_t k = in.size() - (out.size() - d);
                    if (d + in.size() >= out.size()) {
                        if (in[k] != 1) off += idx * stride;
                        stride *= in[k];
                    }
                }
                return off;
            };
            for (size_t i = 0; i < want.size(); ++i)
                want[i] = c.ref(a.data<float>()[offset(s.a, static_cast<int64_t>(i))],
                                b.data<float>()[offset(s.b, static_cast<int64_t>(i))]);
            const std::vector<Isa> levels = supported_levels();
            for (size_t l = 0; l < results.size(); ++l) {
                EXPECT_TRUE(matches(results[l], want)) << c.op << " " << to_string(s.a) << " " << to_string(s.b)
                                                       << " at " << cpu::isa_name(levels[l]);
                EXPECT_TRUE(tensors_equal(results[l], results[0])) << c.op << " at " << cpu::isa_name(levels[l]);
            }
        }
}

// Integer and 16-bit float storage go through the same loops (wrapping integer math, f16
// converted to f32 and back): every level gives the same bytes.
TEST(IsaDispatch, OtherElementTypesAreTheSameAtEveryLevel) {
    for (ElementType t : {ElementType::i32, ElementType::i64, ElementType::u8, ElementType::f16, ElementType::f64}) {
        const Tensor a = iota(t, {3, 333}, 97);
        const Tensor b = iota(t, {333}, 13);
        for (const char* op : {"Add", "Subtract", "Multiply"}) {
            std::vector<Tensor> results;
            for (Isa isa : supported_levels()) {
                const IsaCap cap(isa);
                results.push_back(OpTester(op, 1).run1({a, b}));
            }
            for (size_t l = 1; l < results.size(); ++l)
                EXPECT_TRUE(tensors_equal(results[l], results[0])) << op << " " << to_string(t);
        }
        std::vector<Tensor> relu;
        for (Isa isa : supported_levels()) {
            const IsaCap cap(isa);
            relu.push_back(OpTester("ReLU", 1).run1({a}));
        }
        for (size_t l = 1; l < relu.size(); ++l) EXPECT_TRUE(tensors_equal(relu[l], relu[0])) << to_string(t);
    }
}

// ---- vec_math and the kernels built on it ------------------------------------------------------

TEST(IsaDispatch, ExpIsWithinOneUlpAndTheSameAtEveryLevel) {
    std::vector<float> x;
    for (float v = -87.3f; v < 88.7f; v += 0.0137f) x.push_back(v);
    std::vector<std::vector<float>> results;
    for (Isa isa : supported_levels()) {
        std::vector<float> y(x.size());
        cpu::run_at(isa, [&] {
            for (size_t i = 0; i < x.size(); ++i) y[i] = vmath::exp_f32(x[i]);
        });
        results.push_back(std::move(y));
    }
    for (size_t i = 0; i < x.size(); ++i) {
        const double want = std::exp(static_cast<double>(x[i]));
        const float below = static_cast<float>(want);
        const double ulp = static_cast<double>(std::nextafter(below, std::numeric_limits<float>::infinity())) - below;
        ASSERT_LE(std::fabs(static_cast<double>(results[0][i]) - want), ulp) << "exp(" << x[i] << ")";
        for (size_t l = 1; l < results.size(); ++l) ASSERT_TRUE(same_float(results[l][i], results[0][i])) << x[i];
    }
    EXPECT_EQ(vmath::exp_f32(-std::numeric_limits<float>::infinity()), 0.0f);
    EXPECT_EQ(vmath::exp_f32(-1000.0f), 0.0f);
    EXPECT_EQ(vmath::exp_f32(89.0f), std::numeric_limits<float>::infinity());
    EXPECT_EQ(vmath::exp_f32(0.0f), 1.0f);
    EXPECT_TRUE(std::isnan(vmath::exp_f32(std::numeric_limits<float>::quiet_NaN())));
}

// |got - want| in units of the float ulp at want (denorm_min below FLT_MIN).
double ulps(float got, double want) {
    const float w = std::fabs(static_cast<float>(want));
    const double ulp = w < std::numeric_limits<float>::min()
                           ? static_cast<double>(std::numeric_limits<float>::denorm_min())
                           : static_cast<double>(std::nextafter(w, std::numeric_limits<float>::infinity())) - w;
    return std::fabs(static_cast<double>(got) - want) / ulp;
}

// Calls check(x) on blocks of the floats from lo to hi (by value), every `stride`-th one.
template <class F>
void for_float_blocks(float lo, float hi, uint32_t stride, const F& check) {
    std::vector<float> x;
    for (float v = lo; v <= hi;) {
        x.push_back(v);
        if (x.size() == 65536) {
            check(x);
            x.clear();
        }
        uint32_t bits;
        std::memcpy(&bits, &v, sizeof bits);
        bits = v < 0 ? (bits > 0x80000000u + stride ? bits - stride : 0u) : bits + stride;  // toward +inf
        std::memcpy(&v, &bits, sizeof v);
    }
    const float inf = std::numeric_limits<float>::infinity();
    for (float special : {0.0f, -0.0f, std::numeric_limits<float>::denorm_min(), -1e-40f, 1e-30f, -1e-20f, 0.625f,
                          std::nextafter(0.625f, 0.0f), -0.625f, 9.0f, 44.0f, -87.0f, 88.0f, 1e30f, -3.4e38f, inf, -inf})
        x.push_back(special);
    check(x);
}

// tanh_f32 within 7 ulp and sigmoid_f32 within 3 ulp of the double-precision values, on every 101st
// float in [-20, 20] and every 10007th in [-87, 100] (an offline sweep of every 7th float in
// [-20, 20] measured 1.51 and 2.47 ulp); sigmoid's tail; the specials; the same bits at every level.
TEST(IsaDispatch, TanhAndSigmoidAreAccurateAndTheSameAtEveryLevel) {
    const std::vector<Isa> levels = supported_levels();
    auto check = [&](const std::vector<float>& x) {
        std::vector<std::vector<float>> t, s;
        for (Isa isa : levels) {
            std::vector<float> ty(x.size()), sy(x.size());
            cpu::run_at(isa, [&] {
                for (size_t i = 0; i < x.size(); ++i) ty[i] = vmath::tanh_f32(x[i]);
                for (size_t i = 0; i < x.size(); ++i) sy[i] = vmath::sigmoid_f32(x[i]);
            });
            t.push_back(std::move(ty));
            s.push_back(std::move(sy));
        }
        for (size_t i = 0; i < x.size(); ++i) {
            const double xd = x[i];
            ASSERT_LE(ulps(t[0][i], std::tanh(xd)), 7.0) << "tanh(" << x[i] << ") = " << t[0][i];
            if (xd >= -87.0) {
                ASSERT_LE(ulps(s[0][i], 1.0 / (1.0 + std::exp(-xd))), 3.0) << "sigmoid(" << x[i] << ")";
            }
            for (size_t l = 1; l < t.size(); ++l) {
                ASSERT_TRUE(same_float(t[l][i], t[0][i])) << x[i];
                ASSERT_TRUE(same_float(s[l][i], s[0][i])) << x[i];
            }
        }
    };
    for_float_blocks(-20.0f, 20.0f, 101, check);
    for_float_blocks(-87.0f, 100.0f, 10007, check);
    // Sigmoid's far tail: denormal results down to x = -88.72 (e^-x overflows below), then 0, where
    // the exact value is below 3.4e-39 (Eigen's f32 1 / (1 + exp(-x)) does the same).
    for (float v = -80.0f; v > -88.72f; v -= 0.01f)
        ASSERT_NEAR(vmath::sigmoid_f32(v), 1.0 / (1.0 + std::exp(-static_cast<double>(v))), 3e-7 * std::exp(v) + 2e-45)
            << v;
    EXPECT_GT(vmath::sigmoid_f32(-88.0f), 6.0e-39f);
    EXPECT_EQ(vmath::sigmoid_f32(-88.73f), 0.0f);
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    EXPECT_EQ(vmath::sigmoid_f32(inf), 1.0f);
    EXPECT_EQ(vmath::sigmoid_f32(-inf), 0.0f);
    EXPECT_EQ(vmath::sigmoid_f32(0.0f), 0.5f);
    EXPECT_EQ(vmath::sigmoid_f32(20.0f), 1.0f);
    EXPECT_TRUE(std::isnan(vmath::sigmoid_f32(nan)));
    EXPECT_EQ(vmath::tanh_f32(inf), 1.0f);
    EXPECT_EQ(vmath::tanh_f32(-inf), -1.0f);
    EXPECT_EQ(vmath::tanh_f32(100.0f), 1.0f);
    EXPECT_EQ(vmath::tanh_f32(-3.4e38f), -1.0f);
    EXPECT_TRUE(same_float(vmath::tanh_f32(-0.0f), -0.0f));
    EXPECT_TRUE(same_float(vmath::tanh_f32(0.0f), 0.0f));
    EXPECT_EQ(vmath::tanh_f32(1e-30f), 1e-30f);
    EXPECT_EQ(vmath::tanh_f32(-1e-40f), -1e-40f);
    EXPECT_TRUE(std::isnan(vmath::tanh_f32(nan)));
    EXPECT_TRUE(std::isnan(vmath::tanh_f32(-nan)));
}

// erf_f32 within 7 ulp of the double-precision erf (Eigen's float erf: 6.7 ulp on a sweep of
// [-6, 6] in steps of 1e-4; erf_f32 measured 6.6 offline), on every 307th float in [-6, 6] and
// every 10007th beyond; the specials; the same bits at every level.
TEST(IsaDispatch, ErfIsAccurateAndTheSameAtEveryLevel) {
    const std::vector<Isa> levels = supported_levels();
    auto check = [&](const std::vector<float>& x) {
        std::vector<std::vector<float>> e;
        for (Isa isa : levels) {
            std::vector<float> y(x.size());
            cpu::run_at(isa, [&] {
                for (size_t i = 0; i < x.size(); ++i) y[i] = vmath::erf_f32(x[i]);
            });
            e.push_back(std::move(y));
        }
        for (size_t i = 0; i < x.size(); ++i) {
            ASSERT_LE(ulps(e[0][i], std::erf(static_cast<double>(x[i]))), 7.0) << "erf(" << x[i] << ") = " << e[0][i];
            for (size_t l = 1; l < e.size(); ++l) ASSERT_TRUE(same_float(e[l][i], e[0][i])) << x[i];
        }
    };
    for_float_blocks(-6.0f, 6.0f, 307, check);
    for_float_blocks(-100.0f, 100.0f, 10007, check);
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    EXPECT_EQ(vmath::erf_f32(inf), 1.0f);
    EXPECT_EQ(vmath::erf_f32(-inf), -1.0f);
    EXPECT_EQ(vmath::erf_f32(4.5f), 1.0f);
    EXPECT_TRUE(same_float(vmath::erf_f32(-0.0f), -0.0f));
    EXPECT_TRUE(std::isnan(vmath::erf_f32(nan)));
    EXPECT_TRUE(std::isnan(vmath::gelu_erf_f32(nan)));
    EXPECT_EQ(vmath::gelu_erf_f32(-20.0f), -0.0f);
    EXPECT_EQ(vmath::gelu_erf_f32(20.0f), 20.0f);
}

// The fused epilogue's Sigmoid, Tanh, Swish and Gelu (both forms, with a bias) give vec_math's values, the
// same bits at every level.
TEST(IsaDispatch, EpilogueActivationsAreTheSameAtEveryLevel) {
    const int64_t rows = 7, cols = 45;
    const std::vector<float> x = test_values(static_cast<size_t>(rows * cols), 11);
    std::vector<float> bias(static_cast<size_t>(cols));
    for (int64_t j = 0; j < cols; ++j) bias[static_cast<size_t>(j)] = 0.125f * static_cast<float>(j % 5) - 0.25f;
    for (ActivationKind kind : {ActivationKind::Sigmoid, ActivationKind::Tanh, ActivationKind::Swish, ActivationKind::GeluTanh,
                                ActivationKind::GeluErf}) {
        Activation act;
        act.kind = kind;
        act.alpha = kind == ActivationKind::Swish ? 1.5f : 0.0f;
        std::vector<float> want(x.size());
        for (size_t i = 0; i < x.size(); ++i) {
            const float v = x[i] + bias[i % static_cast<size_t>(cols)];
            want[i] = kind == ActivationKind::Sigmoid ? vmath::sigmoid_f32(v)
                      : kind == ActivationKind::Tanh  ? vmath::tanh_f32(v)
                      : kind == ActivationKind::Swish ? v * vmath::sigmoid_f32(1.5f * v)
                      : kind == ActivationKind::GeluTanh ? vmath::gelu_tanh_f32(v)
                                                         : vmath::gelu_erf_f32(v);
        }
        for (Isa isa : supported_levels()) {
            const IsaCap cap(isa);
            std::vector<float> c(x);
            nn::apply_block(c.data(), cols, rows, cols, nullptr, bias.data(), nullptr, 0, act);
            for (size_t i = 0; i < c.size(); ++i)
                ASSERT_TRUE(same_float(c[i], want[i]))
                    << "kind " << static_cast<int>(kind) << " at " << cpu::isa_name(isa) << ", element " << i;
        }
    }
}

// An LSTMSequence whose products are exact (dyadic X and W, R = 0: the GEMM's FMA or not rounds
// nothing), so that its outputs are the same at every level only if its gates (sigmoid_f32,
// tanh_f32) and state updates are.
TEST(IsaDispatch, LstmSequenceGatesAreTheSameAtEveryLevel) {
    const int64_t n = 2, t = 6, in = 8, h = 37;
    auto dyadic = [](size_t count, double seed, double step) {
        std::vector<double> v = recurrent::wave(count, seed, 2.0);
        for (double& d : v) d = std::round(d / step) * step;
        return v;
    };
    const Tensor x = make_tensor(ElementType::f32, {n, t, in}, dyadic(static_cast<size_t>(n * t * in), 1.0, 0.25));
    const Tensor w = make_tensor(ElementType::f32, {1, 4 * h, in}, dyadic(static_cast<size_t>(4 * h * in), 2.0, 0.125));
    const Tensor r = make_tensor(ElementType::f32, {1, 4 * h, h}, std::vector<double>(static_cast<size_t>(4 * h * h), 0.0));
    const Tensor b = make_tensor(ElementType::f32, {1, 4 * h}, dyadic(static_cast<size_t>(4 * h), 3.0, 0.5));
    const Tensor h0 = make_tensor(ElementType::f32, {n, 1, h}, recurrent::wave(static_cast<size_t>(n * h), 4.0, 0.5));
    const Tensor c0 = make_tensor(ElementType::f32, {n, 1, h}, recurrent::wave(static_cast<size_t>(n * h), 5.0, 0.8));
    recurrent::Spec s;
    s.cell = "lstm";
    s.n = n, s.t = t, s.i = in, s.h = h;
    s.acts = {"sigmoid", "tanh", "tanh"};
    std::vector<std::vector<Tensor>> results;
    for (Isa isa : supported_levels()) {
        const IsaCap cap(isa);
        results.push_back(OpTester("LSTMSequence", 5, recurrent::attributes(s, true)).run({x, h0, c0, i64s({t, t}), w, r, b}));
    }
    for (size_t l = 1; l < results.size(); ++l)
        for (size_t o = 0; o < results[0].size(); ++o) EXPECT_TRUE(tensors_equal(results[l][o], results[0][o])) << o;
}

TEST(IsaDispatch, LaneSumIsTheSameAtEveryLevel) {
    const std::vector<float> v = test_values(1237, 5);
    std::vector<float> finite;
    for (float f : v)
        if (std::isfinite(f) && std::fabs(f) < 1e6f) finite.push_back(f);
    double exact = 0;
    for (float f : finite) exact += f;
    std::vector<float> sums;
    for (Isa isa : supported_levels())
        cpu::run_at(isa, [&] { sums.push_back(vmath::lane_sum(finite.data(), static_cast<int64_t>(finite.size()))); });
    for (float s : sums) {
        EXPECT_NEAR(s, exact, 1e-3);
        EXPECT_TRUE(same_float(s, sums[0]));
    }
}

TEST(IsaDispatch, SoftmaxIsTheSameAtEveryLevel) {
    const Shape shape = {6, 1001};
    const std::vector<float> x = test_values(6 * 1001, 7);
    std::vector<float> finite(x);
    for (float& f : finite)
        if (!std::isfinite(f) || std::fabs(f) > 50.0f) f = 0.25f;
    for (const char* op : {"Softmax", "LogSoftmax"}) {
        const int opset = std::string(op) == "Softmax" ? 8 : 5;
        std::vector<Tensor> results;
        for (Isa isa : supported_levels()) {
            const IsaCap cap(isa);
            results.push_back(OpTester(op, opset, {{"axis", "-1"}}).run1({make_tensor<float>(shape, finite)}));
        }
        // Against the definition in double.
        const float* y = results[0].data<float>();
        for (int64_t r = 0; r < 6; ++r) {
            double max = -1e300, sum = 0;
            for (int64_t i = 0; i < 1001; ++i) max = std::max(max, static_cast<double>(finite[r * 1001 + i]));
            for (int64_t i = 0; i < 1001; ++i) sum += std::exp(finite[r * 1001 + i] - max);
            for (int64_t i = 0; i < 1001; ++i) {
                const double d = finite[r * 1001 + i] - max;
                const double want = std::string(op) == "Softmax" ? std::exp(d) / sum : d - std::log(sum);
                ASSERT_NEAR(y[r * 1001 + i], want, 1e-6 + 1e-5 * std::fabs(want)) << op << " row " << r << " " << i;
            }
        }
        for (size_t l = 1; l < results.size(); ++l) EXPECT_TRUE(tensors_equal(results[l], results[0])) << op;
    }
}

}  // namespace
}  // namespace irlite::testing
