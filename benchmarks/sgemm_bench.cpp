// kernels/detail/sgemm against Eigen's GEMM (row-major maps, as nn_gemm.cpp uses it), single thread,
// on shapes taken from real models. Counter GFLOPS = 2*M*N*K per second (1e9).
//   BM_Sgemm/<shape>/<isa>   isa: 0 portable, 1 avx2, 2 avx512 (skipped when unsupported)
//   BM_EigenGemm/<shape>
// Convolution shapes pack A (the weights) ahead of time and pack B per call; MatMul shapes pack B
// (the weights) ahead of time and A per call; "dyn" shapes pack both per call. Packing of the
// constant operand is outside the timed loop (it happens once, when a model is compiled).
#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <Eigen/Core>

#include "kernels/detail/sgemm.hpp"

namespace {

using namespace irlite::nn;

enum class Const { A, B, None };
struct Shape {
    const char* name;
    int64_t m, n, k;
    Const constant;
};

const Shape kShapes[] = {
    {"square512_constB", 512, 512, 512, Const::B},
    {"square512_dyn", 512, 512, 512, Const::None},
    {"conv3x3_M64_K576_N256", 64, 256, 576, Const::A},
    {"conv3x3_M128_K1152_N64", 128, 64, 1152, Const::A},
    {"conv_first_M16_K27_N4096", 16, 4096, 27, Const::A},
    {"conv1x1_M96_K32_N1024", 96, 1024, 32, Const::A},
    {"matmul_M1_K512_N2048", 1, 2048, 512, Const::B},
    {"matmul_M2_K512_N2048", 2, 2048, 512, Const::B},
    {"matmul_M4_K512_N2048", 4, 2048, 512, Const::B},
    {"matmul_M8_K512_N2048", 8, 2048, 512, Const::B},
    {"matmul_M128_K64_N64", 128, 64, 64, Const::B},
};
constexpr int kNumShapes = sizeof(kShapes) / sizeof(kShapes[0]);

std::vector<float> random_floats(size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    std::vector<float> v(n);
    for (float& x : v) x = d(rng);
    return v;
}

void set_flops(benchmark::State& state, const Shape& s) {
    state.counters["GFLOPS"] = benchmark::Counter(2.0 * static_cast<double>(s.m * s.n * s.k) / 1e9,
                                                  benchmark::Counter::kIsIterationInvariantRate);
    state.SetLabel(s.name);
}

void BM_Sgemm(benchmark::State& state) {
    const Shape& s = kShapes[state.range(0)];
    const auto isa = static_cast<GemmIsa>(state.range(1));
    if (!gemm_isa_supported(isa)) {
        state.SkipWithError("instruction set not supported here");
        for (auto _ : state) {
        }
        return;
    }
    const std::vector<float> a = random_floats(static_cast<size_t>(s.m * s.k), 1);
    const std::vector<float> b = random_floats(static_cast<size_t>(s.k * s.n), 2);
    std::vector<float> c(static_cast<size_t>(s.m * s.n));
    const GemmPlan plan = plan_gemm(s.m, s.n, s.k, s.constant == Const::A, s.constant == Const::B, 1, isa);
    std::vector<float> packed;
    GemmOperand ao = GemmOperand::plain(a.data(), s.k), bo = GemmOperand::plain(b.data(), s.n);
    if (s.constant == Const::A) {
        packed.resize(packed_a_floats(plan));
        pack_a(plan, a.data(), s.k, false, packed.data());
        ao = GemmOperand::prepacked(packed.data());
    } else if (s.constant == Const::B) {
        packed.resize(packed_b_floats(plan.layout, s.n));
        pack_b(plan.layout, b.data(), s.n, false, s.n, packed.data());
        bo = GemmOperand::prepacked(packed.data());
    }
    std::vector<unsigned char> scratch(plan.scratch_bytes);
    for (auto _ : state) {
        run_gemm(plan, ao, bo, c.data(), s.n, GemmEpilogue{}, scratch.data());
        benchmark::DoNotOptimize(c.data());
        benchmark::ClobberMemory();
    }
    set_flops(state, s);
    state.SetLabel(std::string(s.name) + " " + gemm_isa_name(isa));
}

void BM_EigenGemm(benchmark::State& state) {
    const Shape& s = kShapes[state.range(0)];
    using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    const std::vector<float> a = random_floats(static_cast<size_t>(s.m * s.k), 1);
    const std::vector<float> b = random_floats(static_cast<size_t>(s.k * s.n), 2);
    std::vector<float> c(static_cast<size_t>(s.m * s.n));
    const Eigen::Map<const RowMatrix> am(a.data(), s.m, s.k), bm(b.data(), s.k, s.n);
    Eigen::Map<RowMatrix> cm(c.data(), s.m, s.n);
    for (auto _ : state) {
        cm.noalias() = am * bm;
        benchmark::DoNotOptimize(c.data());
        benchmark::ClobberMemory();
    }
    set_flops(state, s);
}

void sgemm_args(benchmark::internal::Benchmark* b) {
    for (int s = 0; s < kNumShapes; ++s)
        for (int isa = 0; isa < 3; ++isa) b->Args({s, isa});
}
void eigen_args(benchmark::internal::Benchmark* b) {
    for (int s = 0; s < kNumShapes; ++s) b->Args({s});
}

BENCHMARK(BM_Sgemm)->Apply(sgemm_args);
BENCHMARK(BM_EigenGemm)->Apply(eigen_args);

}  // namespace
