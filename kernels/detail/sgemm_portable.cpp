// The GEMM's portable micro-kernels (sgemm_microkernels.inl on 4-float vectors of GCC's vector
// extension: SSE2 on any x86-64, NEON on Arm, scalar code elsewhere): 4 x 8 on A panels of 4 rows.
// A product then a sum, not a fused multiply-add (the build's -ffp-contract=off keeps them apart).
#include "kernels/detail/sgemm.hpp"
#include "kernels/detail/sgemm_kernels.hpp"
#include "kernels/detail/simd.hpp"

#include <cstring>

#define IRLITE_SGEMM_TARGET

namespace irlite::nn::sgemm {
namespace {

struct Vec {
    using Reg = simd::f32x4;
    static constexpr int kWidth = 4;
    static constexpr int kUnrollK = 1;
    static Reg zero() { return Reg{0, 0, 0, 0}; }
    static Reg set1(float x) { return Reg{x, x, x, x}; }
    static Reg broadcast(const float* p) { return set1(*p); }
    static Reg load(const float* p) {
        Reg v;
        std::memcpy(&v, p, sizeof v);
        return v;
    }
    static void store(float* p, Reg v) { std::memcpy(p, &v, sizeof v); }
    static Reg load_runs(const float* const* g, int64_t o) { return load(g[0] + o); }  // unused: no indexed kernels
    static Reg fmadd(Reg a, Reg b, Reg c) { return c + a * b; }
    static Reg add(Reg a, Reg b) { return a + b; }
    static Reg max(Reg a, Reg b) { return a > b ? a : b; }
    static Reg min(Reg a, Reg b) { return a < b ? a : b; }
    static void prefetch(const float* p) { __builtin_prefetch(p, 0, 3); }
};

#include "kernels/detail/sgemm_microkernels.inl"

constexpr int kMr = 4;

constexpr IsaParams kParams = {
    kMr,
    2 * Vec::kWidth,
    256,
    64,
    1024,
    {kernel<kMr, 1, 2>, kernel<kMr, 2, 2>, kernel<kMr, 3, 2>, kernel<kMr, 4, 2>},
    {},
    {},
    {},
    {},
    {},
    {},
};

}  // namespace

const IsaParams& portable_params() { return kParams; }

}  // namespace irlite::nn::sgemm
