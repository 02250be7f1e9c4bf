// A direct double-precision reference of the LSTM, GRU and RNN cells and sequences, written from
// the specifications' formulas element by element (no GEMM, no shared code with the kernel), and
// deterministic test values. Used by lstm_test.cpp, gru_test.cpp and rnn_test.cpp.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "op_tester.hpp"

namespace irlite::testing::recurrent {

// Deterministic values in about [-scale, scale].
inline std::vector<double> wave(size_t count, double seed, double scale = 1.0) {
    std::vector<double> v(count);
    for (size_t i = 0; i < count; ++i)
        v[i] = scale * std::sin(seed * 1.7 + static_cast<double>(i) * 0.731 + 0.37 * seed * static_cast<double>(i % 7));
    return v;
}

inline double act(const std::string& name, double x) {
    if (name == "sigmoid") return 1.0 / (1.0 + std::exp(-x));
    if (name == "tanh") return std::tanh(x);
    return x > 0 ? x : 0.0;  // relu
}

struct Spec {
    std::string cell;  // "lstm", "gru", "rnn"
    int64_t n = 1, t = 1, i = 1, h = 1, d = 1;
    std::vector<std::string> acts;
    double clip = 0;
    bool lbr = false, input_forget = false;
    std::string direction = "forward";
};

struct Result {
    std::vector<double> y, ho, co;  // [N, D, T, H], [N, D, H], [N, D, H]
};

// x [N, T, I], h0/c0 [N, D, H], w [D, G*H, I], r [D, G*H, H], b [D, bias] (empty: zeros), p [3H]
// (empty: none), lengths [N] (empty: T).
inline Result reference(const Spec& s, const std::vector<double>& x, const std::vector<double>& h0,
                        const std::vector<double>& c0, const std::vector<double>& w, const std::vector<double>& r,
                        const std::vector<double>& b, const std::vector<double>& p, std::vector<int64_t> lengths) {
    const int64_t G = s.cell == "lstm" ? 4 : s.cell == "gru" ? 3 : 1, H = s.h, I = s.i, N = s.n, T = s.t, D = s.d;
    const int64_t bias_size = (s.cell == "gru" && s.lbr ? 4 : G) * H;
    if (lengths.empty()) lengths.assign(static_cast<size_t>(N), T);
    Result out;
    out.y.assign(static_cast<size_t>(N * D * T * H), 0.0);
    out.ho.assign(static_cast<size_t>(N * D * H), 0.0);
    out.co.assign(static_cast<size_t>(N * D * H), 0.0);
    auto clip = [&](double v) { return s.clip > 0 ? std::min(std::max(v, -s.clip), s.clip) : v; };
    for (int64_t d = 0; d < D; ++d) {
        const bool reverse = s.direction == "reverse" || d == 1;
        auto W = [&](int64_t row, int64_t k) { return w[static_cast<size_t>((d * G * H + row) * I + k)]; };
        auto R = [&](int64_t row, int64_t k) { return r[static_cast<size_t>((d * G * H + row) * H + k)]; };
        auto B = [&](int64_t k) { return b.empty() ? 0.0 : b[static_cast<size_t>(d * bias_size + k)]; };
        for (int64_t n = 0; n < N; ++n) {
            std::vector<double> hs(static_cast<size_t>(H)), cs(static_cast<size_t>(H), 0.0);
            for (int64_t j = 0; j < H; ++j) {
                hs[static_cast<size_t>(j)] = h0[static_cast<size_t>((n * D + d) * H + j)];
                if (!c0.empty()) cs[static_cast<size_t>(j)] = c0[static_cast<size_t>((n * D + d) * H + j)];
            }
            const int64_t L = lengths[static_cast<size_t>(n)];
            for (int64_t s_ = 0; s_ < L; ++s_) {
                const int64_t t = reverse ? L - 1 - s_ : s_;
                const double* xt = x.data() + (n * T + t) * I;
                // xw[row] = x W^T, hr[row] = h R^T
                std::vector<double> xw(static_cast<size_t>(G * H)), hr(static_cast<size_t>(G * H));
                for (int64_t row = 0; row < G * H; ++row) {
                    double a = 0, c = 0;
                    for (int64_t k = 0; k < I; ++k) a += xt[k] * W(row, k);
                    for (int64_t k = 0; k < H; ++k) c += hs[static_cast<size_t>(k)] * R(row, k);
                    xw[static_cast<size_t>(row)] = a;
                    hr[static_cast<size_t>(row)] = c;
                }
                std::vector<double> nh(static_cast<size_t>(H));
                for (int64_t j = 0; j < H; ++j) {
                    const auto J = static_cast<size_t>(j);
                    const auto pre = [&](int64_t gate) {
                        return xw[static_cast<size_t>(gate * H + j)] + hr[static_cast<size_t>(gate * H + j)] +
                               B(gate * H + j);
                    };
                    if (s.cell == "lstm") {
                        const double pi = p.empty() ? 0 : p[J], po = p.empty() ? 0 : p[static_cast<size_t>(H + j)],
                                     pf = p.empty() ? 0 : p[static_cast<size_t>(2 * H + j)];
                        const double ig = act(s.acts[0], clip(pre(1) + pi * cs[J]));
                        double fg = act(s.acts[0], clip(pre(0) + pf * cs[J]));
                        if (s.input_forget) fg = 1 - ig;
                        const double cg = act(s.acts[1], clip(pre(2)));
                        const double c = fg * cs[J] + ig * cg;
                        const double og = act(s.acts[0], clip(pre(3) + po * c));
                        cs[J] = c;
                        nh[J] = og * act(s.acts[2], c);
                    } else if (s.cell == "gru") {
                        const double z = act(s.acts[0], clip(pre(0))), rg = act(s.acts[0], clip(pre(1)));
                        double hh;
                        if (s.lbr) {
                            hh = act(s.acts[1], clip(xw[static_cast<size_t>(2 * H + j)] + B(2 * H + j) +
                                                     rg * (hr[static_cast<size_t>(2 * H + j)] + B(3 * H + j))));
                        } else {
                            double rec = 0;  // (r (.) H) Rh^T for unit j: needs every unit's r
                            for (int64_t k = 0; k < H; ++k) {
                                const double rk = act(s.acts[0], clip(xw[static_cast<size_t>(H + k)] +
                                                                      hr[static_cast<size_t>(H + k)] + B(H + k)));
                                rec += rk * hs[static_cast<size_t>(k)] * R(2 * H + j, k);
                            }
                            hh = act(s.acts[1], clip(xw[static_cast<size_t>(2 * H + j)] + rec + B(2 * H + j)));
                        }
                        nh[J] = (1 - z) * hh + z * hs[J];
                    } else {
                        nh[J] = act(s.acts[0], clip(pre(0)));
                    }
                }
                hs = nh;
                for (int64_t j = 0; j < H; ++j)
                    out.y[static_cast<size_t>(((n * D + d) * T + t) * H + j)] = hs[static_cast<size_t>(j)];
            }
            for (int64_t j = 0; j < H; ++j) {
                out.ho[static_cast<size_t>((n * D + d) * H + j)] = hs[static_cast<size_t>(j)];
                out.co[static_cast<size_t>((n * D + d) * H + j)] = cs[static_cast<size_t>(j)];
            }
        }
    }
    return out;
}

inline ::testing::AssertionResult near(const Tensor& got, const std::vector<double>& want, double tol) {
    const std::vector<double> g = to_doubles(got);
    if (g.size() != want.size())
        return ::testing::AssertionFailure() << "size " << g.size() << ", want " << want.size();
    for (size_t k = 0; k < g.size(); ++k)
        if (!(std::fabs(g[k] - want[k]) <= tol))
            return ::testing::AssertionFailure() << "element " << k << ": " << g[k] << ", want " << want[k];
    return ::testing::AssertionSuccess();
}

inline std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (size_t k = 0; k < v.size(); ++k) s += (k ? "," : "") + v[k];
    return s;
}

// The op's attributes for a spec.
inline std::vector<IrAttribute> attributes(const Spec& s, bool sequence) {
    std::vector<IrAttribute> a = {{"hidden_size", std::to_string(s.h)},
                                  {"activations", join(s.acts)},
                                  {"activations_alpha", ""},
                                  {"activations_beta", ""},
                                  {"clip", std::to_string(s.clip)}};
    if (sequence) a.push_back({"direction", s.direction});
    if (s.cell == "gru") a.push_back({"linear_before_reset", s.lbr ? "1" : "0"});
    if (s.input_forget) a.push_back({"input_forget", "1"});
    return a;
}

}  // namespace irlite::testing::recurrent
