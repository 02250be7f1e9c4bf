// kernels/detail/igemm (the int8 layers' GEMM), single thread, on shapes of the INT8 models of
// ../shared/models-int8. Counter GMACS = M*N*K multiply-adds per second (1e9).
//   BM_Int8Gemm/<shape>/<level>   level: 0 portable, 1 avx2, 2 avx-vnni, 3 avx512, 4 avx512-vnni
// (skipped when this CPU lacks it). Wide outputs use the row form, narrow ones the column form,
// as the int8 convolution chooses; A (the weights) is packed outside the timed loop, as at compile
// time.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "kernels/detail/igemm.hpp"

namespace {

using namespace irlite::nn;

struct Shape {
    const char* name;
    int64_t m, n, k;
};

const Shape kShapes[] = {
    {"conv7x7_M16_K196_N1024", 16, 1024, 196},     // ResNet-18 conv1 (3 channels as a quad)
    {"conv3x3_M64_K576_N256", 64, 256, 576},       // ResNet-18 layer1
    {"conv3x3_M256_K2304_N16", 256, 16, 2304},     // ResNet-18 layer3
    {"conv1x1_M1000_K512_N16", 1000, 16, 512},     // SqueezeNet's classifier
    {"conv1x1_M1280_K320_N4", 1280, 4, 320},       // MobileNetV2's last convolution
    {"matmul_M1000_K1280_N1", 1000, 1, 1280},      // MobileNetV2's classifier (batch 1)
};

void BM_Int8Gemm(benchmark::State& state) {
    const Shape& s = kShapes[state.range(0)];
    const auto level = static_cast<Int8Level>(state.range(1));
    if (!int8_level_supported(level)) {
        state.SkipWithError("level not supported on this CPU");
        return;
    }
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> wi(-127, 127), bi(0, 255);
    std::vector<int8_t> a(static_cast<size_t>(s.m * s.k));
    for (int8_t& v : a) v = static_cast<int8_t>(wi(rng));
    const int lanes = int8_column_panel_rows(level);
    const bool columns = s.n < lanes || (lanes >= 16 && s.n <= 2 * lanes);
    const Int8Weights w = pack_int8_weights(a.data(), s.m, s.k, s.k, columns ? lanes : kInt8Rows);
    const int64_t ldb = int8_padded_columns(s.n);
    std::vector<uint8_t> b(static_cast<size_t>(w.quads * ldb * 4 + 64));
    for (uint8_t& v : b) v = static_cast<uint8_t>(bi(rng));
    const auto padded = static_cast<size_t>(s.m + 2 * lanes);
    std::vector<float> alpha(padded, 0.01f), beta(padded, 0.f), c(static_cast<size_t>(s.m * s.n));
    std::vector<int32_t> start(padded, 0);
    const std::vector<int64_t> quad_offset = int8_offsets(w.quads, ldb * 4), column_offset = int8_offsets(s.n, 4);
    Int8Strides strides;
    strides.quad_offset = quad_offset.data(), strides.column_offset = column_offset.data(), strides.c_row = s.n;
    for (auto _ : state) {
        if (columns)
            int8_gemm_columns(level, w, b.data(), strides, 0, s.m, 0, s.n, alpha.data(), beta.data(), start.data(), c.data());
        else
            int8_gemm(level, w, b.data(), ldb, 0, s.m, 0, s.n, alpha.data(), beta.data(), start.data(), c.data(), s.n);
        benchmark::DoNotOptimize(c.data());
        benchmark::ClobberMemory();
    }
    state.SetLabel(columns ? "column form" : "row form");
    state.counters["GMACS"] =
        benchmark::Counter(static_cast<double>(s.m * s.n * s.k) / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

void int8_args(benchmark::internal::Benchmark* b) {
    for (int64_t shape = 0; shape < static_cast<int64_t>(sizeof(kShapes) / sizeof(kShapes[0])); ++shape)
        for (int64_t level : {1, 2, 4}) b->Args({shape, level});
}
BENCHMARK(BM_Int8Gemm)->Apply(int8_args)->Unit(benchmark::kMicrosecond);

}  // namespace
