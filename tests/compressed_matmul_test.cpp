// The weight-compression pass (engine/weight_compression.hpp) and the compressed-weight MatMul
// (kernels/math/mat_mul_compressed.hpp): NNCF-style u4/i4/u8/i8 linear layers, per group and per
// channel, decompressed in f32 or f16, run compressed and agree with the float decompression path
// (--no-int8) to the float sums' rounding; the same for every thread count and close under every
// instruction-set cap (which also exercises the portable kernel); what the pass must not take stays
// in float.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "compressed_ir.hpp"
#include "irlite/irlite.hpp"
#include "run_one_input.hpp"
#include "kernels/detail/cpu_isa.hpp"

namespace irlite {
namespace {

using testing::build_compressed_linear;
using testing::BuiltLinear;
using testing::CompressedLinear;

struct Outcome {
    std::vector<float> out;
    std::string method, isa;  // the MatMul's
};

Outcome run(const BuiltLinear& b, const std::vector<float>& x, long long rows, long long depth, bool int8,
            int threads = 1) {
    const Model model = Model::read_from_memory(b.xml, b.weights.data(), b.weights.size());
    CompileOptions o;
    o.int8 = int8;
    o.threads = threads;
    const testing::OneRun r = testing::run_one_input(model, x, Shape{rows, depth}, o);
    Outcome result;
    result.out = r.out;
    for (const ProfileEntry& e : r.profile)
        if (e.type.rfind("MatMul", 0) == 0) result.method = e.method, result.isa = e.isa;
    return result;
}

// |got - ref| within `rel` of sum_k |w x| per output (the sums' scale), plus the bias's rounding.
void expect_close(const CompressedLinear& c, const BuiltLinear& b, const std::vector<float>& x, const Outcome& ref,
                  const Outcome& got, double rel, const std::string& what) {
    ASSERT_EQ(ref.out.size(), got.out.size()) << what;
    for (long long m = 0; m < c.rows; ++m)
        for (long long n = 0; n < c.columns; ++n) {
            double scale = 0;
            for (long long k = 0; k < c.depth; ++k)
                scale += std::fabs(b.w[static_cast<size_t>(n * c.depth + k)] * x[static_cast<size_t>(m * c.depth + k)]);
            const size_t i = static_cast<size_t>(m * c.columns + n);
            ASSERT_NEAR(got.out[i], ref.out[i], rel * scale + 1e-5) << what << " at " << m << ", " << n;
        }
}

TEST(CompressedMatMul, EveryFormatAndGroupMatchesTheFloatDecompression) {
    std::mt19937 rng(7);
    std::normal_distribution<float> nd(0.f, 1.f);
    int trial = 0;
    for (const char* format : {"u4", "i4", "u8", "i8"})
        for (long long group : {32LL, 64LL, 128LL, 0LL, 6LL})
            for (bool f16 : {false, true}) {
                CompressedLinear c;
                c.format = format;
                c.group = group;
                c.f16 = f16;
                c.rows = 1 + trial % 3;
                c.columns = 9 + trial % 5 * 7;  // edge 4-row blocks
                // 192 with groups of 64: an odd number of groups, which the AVX-512 table (blocks
                // of two groups of 64) leaves to the generic kernel.
                c.depth = group == 6 ? 96 : group == 64 && f16 ? 192 : 256;
                c.bias = trial % 2 == 1;
                c.seed = static_cast<unsigned>(trial++);
                const BuiltLinear b = build_compressed_linear(c);
                std::vector<float> x(static_cast<size_t>(c.rows * c.depth));
                for (float& v : x) v = nd(rng);
                const std::string what = std::string(format) + " group " + std::to_string(group) + (f16 ? " f16" : " f32");
                const Outcome ref = run(b, x, c.rows, c.depth, false);
                const Outcome got = run(b, x, c.rows, c.depth, true);
                EXPECT_EQ(ref.method.find("compressed"), std::string::npos) << what;
                EXPECT_EQ(got.method, std::string("compressed-") + format) << what;
                // Every group but 6 tiles the vector levels' blocks: the profile names the level.
                if (group != 6) EXPECT_EQ(got.isa, cpu::isa_name(cpu::active_isa())) << what;
                // f16 decompression rounds each weight to 11 bits; f32 only the sums differ.
                const double rel = f16 ? 2e-3 : 2e-6;
                expect_close(c, b, x, ref, got, rel, what);
                EXPECT_EQ(run(b, x, c.rows, c.depth, true, 3).out, got.out) << what << ": 3 threads";
                for (cpu::Isa cap : {cpu::Isa::Sse, cpu::Isa::Avx2}) {
                    if (!cpu::isa_supported(cap) || cap == cpu::detected_isa()) continue;
                    cpu::set_isa_cap_for_testing(cap);
                    const Outcome capped = run(b, x, c.rows, c.depth, true);
                    cpu::reset_isa_cap_for_testing();
                    expect_close(c, b, x, got, capped, 2e-6, what + " at " + cpu::isa_name(cap));
                    if (group != 6) EXPECT_EQ(capped.isa, cpu::isa_name(cap)) << what;
                }
            }
}

// B not transposed (the weights [K, N] behind a Transpose) is not NNCF's form: it keeps running in
// float.
TEST(CompressedMatMul, WhatTheKernelCannotReadStaysInFloat) {
    CompressedLinear c;
    c.transpose_b = false;
    const BuiltLinear b = build_compressed_linear(c);
    const std::vector<float> x(static_cast<size_t>(c.depth), 0.5f);
    const Outcome got = run(b, x, c.rows, c.depth, true);
    EXPECT_EQ(got.method.find("compressed"), std::string::npos) << got.method;
    const Outcome ref = run(b, x, c.rows, c.depth, false);
    EXPECT_EQ(got.out, ref.out);
}

}  // namespace
}  // namespace irlite
