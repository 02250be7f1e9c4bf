// ScaledDotProductAttention-13 against a direct reference: plain, causal, boolean and float
// masks, explicit scale, broadcast batch dims, f16, and the errors.
#include <cmath>

#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

// softmax(q k^T * scale + bias) v for one batch; bias(i, j) from `mask_at`.
template <class Bias>
std::vector<double> reference(const std::vector<double>& q, const std::vector<double>& k, const std::vector<double>& v, int64_t L,
                              int64_t S, int64_t E, int64_t Ev, double scale, Bias bias) {
    std::vector<double> out(static_cast<size_t>(L * Ev));
    for (int64_t i = 0; i < L; ++i) {
        std::vector<double> w(static_cast<size_t>(S));
        double max = -INFINITY, sum = 0;
        for (int64_t j = 0; j < S; ++j) {
            double s = 0;
            for (int64_t e = 0; e < E; ++e) s += q[i * E + e] * k[j * E + e];
            w[j] = s * scale + bias(i, j);
            max = std::max(max, w[j]);
        }
        for (auto& x : w) sum += (x = std::exp(x - max));
        for (int64_t c = 0; c < Ev; ++c) {
            double acc = 0;
            for (int64_t j = 0; j < S; ++j) acc += w[j] / sum * v[j * Ev + c];
            out[i * Ev + c] = acc;
        }
    }
    return out;
}

std::vector<double> ramp(size_t n, double a) {
    std::vector<double> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = std::sin(a * static_cast<double>(i + 1));
    return v;
}

TEST(ScaledDotProductAttention, PlainCausalAndMasked) {
    const int64_t L = 3, S = 4, E = 2, Ev = 3;
    const auto q = ramp(L * E, 0.7), k = ramp(S * E, 1.3), v = ramp(S * Ev, 0.4);
    const Tensor tq = make_tensor(ElementType::f32, {1, L, E}, q), tk = make_tensor(ElementType::f32, {1, S, E}, k),
                 tv = make_tensor(ElementType::f32, {1, S, Ev}, v);
    const auto check = [&](const Tensor& got, const std::vector<double>& want) {
        const std::vector<double> g = to_doubles(got);
        ASSERT_EQ(g.size(), want.size());
        for (size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], want[i], 1e-5) << i;
    };
    const double scale = 1 / std::sqrt(2.0);
    check(OpTester("ScaledDotProductAttention", 13, {{"causal", "false"}}).run1({tq, tk, tv}),
          reference(q, k, v, L, S, E, Ev, scale, [](int64_t, int64_t) { return 0.0; }));
    check(OpTester("ScaledDotProductAttention", 13, {{"causal", "true"}}).run1({tq, tk, tv}),
          reference(q, k, v, L, S, E, Ev, scale, [](int64_t i, int64_t j) { return j > i ? -INFINITY : 0.0; }));
    // Boolean mask [1, 1, S] (broadcast over L) and float mask [L, S], with an explicit scale.
    const Tensor bmask = make_tensor<bool>({1, 1, S}, {true, false, true, true});
    check(OpTester("ScaledDotProductAttention", 13, {{"causal", "false"}}).run1({tq, tk, tv, bmask, scalar(0.5f)}),
          reference(q, k, v, L, S, E, Ev, 0.5, [](int64_t, int64_t j) { return j == 1 ? -INFINITY : 0.0; }));
    const auto fm = ramp(L * S, 2.1);
    check(OpTester("ScaledDotProductAttention", 13, {{"causal", "false"}}).run1({tq, tk, tv, make_tensor(ElementType::f32, {L, S}, fm)}),
          reference(q, k, v, L, S, E, Ev, scale, [&](int64_t i, int64_t j) { return fm[i * S + j]; }));
    // causal ignores the mask; a scalar 0 mask is no mask.
    check(OpTester("ScaledDotProductAttention", 13, {{"causal", "true"}}).run1({tq, tk, tv, bmask}),
          reference(q, k, v, L, S, E, Ev, scale, [](int64_t i, int64_t j) { return j > i ? -INFINITY : 0.0; }));
    check(OpTester("ScaledDotProductAttention", 13, {{"causal", "false"}}).run1({tq, tk, tv, scalar(0.0f)}),
          reference(q, k, v, L, S, E, Ev, scale, [](int64_t, int64_t) { return 0.0; }));
}

TEST(ScaledDotProductAttention, BroadcastBatchAndF16) {
    // query [2, 1, 2, 2], key/value [1, 3, 2, 2]: output [2, 3, 2, 2].
    const Tensor q = make_tensor(ElementType::f16, {2, 1, 2, 2}, ramp(8, 0.5));
    const Tensor k = make_tensor(ElementType::f16, {1, 3, 2, 2}, ramp(12, 0.9));
    const Tensor v = make_tensor(ElementType::f16, {1, 3, 2, 2}, ramp(12, 0.3));
    const Tensor out = OpTester("ScaledDotProductAttention", 13, {{"causal", "false"}}).run1({q, k, v});
    ASSERT_EQ(out.shape(), (Shape{2, 3, 2, 2}));
    const auto qd = to_doubles(q), kd = to_doubles(k), vd = to_doubles(v), od = to_doubles(out);
    for (int64_t b0 = 0; b0 < 2; ++b0)
        for (int64_t b1 = 0; b1 < 3; ++b1) {
            const auto part = [](const std::vector<double>& x, int64_t at) { return std::vector<double>(x.begin() + at, x.begin() + at + 4); };
            const auto want = reference(part(qd, b0 * 4), part(kd, b1 * 4), part(vd, b1 * 4), 2, 2, 2, 2, 1 / std::sqrt(2.0),
                                        [](int64_t, int64_t) { return 0.0; });
            for (int64_t i = 0; i < 4; ++i) EXPECT_NEAR(od[(b0 * 3 + b1) * 4 + i], want[i], 1e-2);
        }
}

TEST(ScaledDotProductAttention, Errors) {
    const OpTester sdpa("ScaledDotProductAttention", 13, {{"causal", "false"}});
    const Tensor q = iota(ElementType::f32, {1, 2, 3}), k = iota(ElementType::f32, {1, 4, 3}), v = iota(ElementType::f32, {1, 4, 5});
    EXPECT_TRUE(throws_error([&] { sdpa.run1({q, iota(ElementType::f32, {1, 4, 2}), v}); }, ErrorKind::ShapeRule, "dims-mismatch",
                             "embedding", 1));
    EXPECT_TRUE(throws_error([&] { sdpa.run1({q, k, iota(ElementType::f32, {1, 3, 5})}); }, ErrorKind::ShapeRule, "dims-mismatch",
                             "keys", 2));
    EXPECT_TRUE(throws_error([&] { sdpa.run1({iota(ElementType::f32, {2, 3}), k, v}); }, ErrorKind::ShapeRule, "rank-invalid",
                             "rank >= 3", 0));
    EXPECT_TRUE(throws_error([&] { sdpa.run1({q, k, v, iota(ElementType::i32, {2, 4})}); }, ErrorKind::Type, "element-type-mismatch",
                             "attention_mask", 3));
    EXPECT_TRUE(throws_error([&] { sdpa.run1({q, k, v, iota(ElementType::f32, {2, 3})}); }, ErrorKind::ShapeRule, "dims-mismatch",
                             "must be S = 4", 3));
    EXPECT_THROW(OpTester("ScaledDotProductAttention", 13).attrs(), Error);  // causal is required
}

}  // namespace
}  // namespace irlite
