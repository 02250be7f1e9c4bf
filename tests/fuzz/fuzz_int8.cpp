// libFuzzer harness: a differential fuzzer of the int8 path (engine/low_precision.hpp,
// kernels/nn/convolution_int8.hpp) against the float FakeQuantize path (CompileOptions::int8 =
// false), on FakeQuantize chains as POT/NNCF write them (tests/quantized_ir.hpp):
//
//   x -> FakeQuantize -> Convolution(integer weights x scale) -> Add(bias) [-> ReLU] [-> FakeQuantize]
//
// The fuzzer's bytes choose the shapes (batch, channels, plane, kernel, stride, padding,
// dilation), the levels (2..256), the ranges (ReLU-style from 0, asymmetric with a level for 0, or
// any range, 0 then mostly between two levels as in FP16-INT8 IR), per-channel or per-tensor scales, the weights' form (i8 and a
// Multiply, or older POT's u8 levels and a FakeQuantize), the trailing FakeQuantize and the thread
// count; the values come from a generator seeded by the input. Both paths must load and run (or
// both throw irlite::Error), give outputs of one shape, and agree: to the float sums' rounding
// without a trailing FakeQuantize, to one of its output steps with one (a level may flip where the
// sums round differently), and the int8 path must give the same bits at every thread count.
// Anything else traps after printing the model.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "irlite/irlite.hpp"
#include "quantized_ir.hpp"
#include "run_one_input.hpp"

namespace {

using irlite::testing::QuantConv;

struct Outcome {
    bool ok = false;
    std::string error;
    std::vector<float> out;
};

Outcome run(const irlite::testing::Built& g, const std::vector<float>& x, bool int8, int threads) {
    Outcome o;
    try {
        const irlite::Model model = irlite::Model::read_from_memory(g.xml, g.weights.data(), g.weights.size());
        irlite::CompileOptions options;
        options.int8 = int8;
        options.threads = threads;
        o.out = irlite::testing::run_one_input(model, x, irlite::Shape(g.in_dims.begin(), g.in_dims.end()), options).out;
        o.ok = true;
    } catch (const irlite::Error& e) {
        o.error = e.what();
    }
    return o;
}

[[noreturn]] void fail(const std::string& why, const irlite::testing::Built& g) {
    std::fprintf(stderr, "fuzz_int8: %s\n%s\n", why.c_str(), g.xml.c_str());
    __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    FuzzedDataProvider fdp(data, size);
    QuantConv q;
    q.n = fdp.ConsumeIntegralInRange<long long>(1, 2);
    q.cin = fdp.ConsumeIntegralInRange<long long>(1, 20);
    q.cout = fdp.ConsumeIntegralInRange<long long>(1, 40);
    q.hw = fdp.ConsumeIntegralInRange<long long>(1, 24);
    q.k = fdp.ConsumeIntegralInRange<long long>(1, 5);
    q.stride = fdp.ConsumeIntegralInRange<long long>(1, 3);
    q.pad = fdp.ConsumeIntegralInRange<long long>(0, 2);
    q.dilation = fdp.ConsumeIntegralInRange<long long>(1, 2);
    if (q.out_hw() < 1) q.hw += q.dilation * (q.k - 1) + 1;
    q.levels = fdp.ConsumeIntegralInRange<int>(2, 256);
    q.relu = fdp.ConsumeBool();
    q.per_channel_scale = fdp.ConsumeBool();
    q.per_channel_range = fdp.ConsumeIntegralInRange<int>(0, 7) == 0;  // the pass must refuse it
    q.fq_weights = fdp.ConsumeBool();
    q.out_fq = fdp.ConsumeBool();
    const float step = std::ldexp(1.f, -fdp.ConsumeIntegralInRange<int>(2, 9));
    switch (fdp.ConsumeIntegralInRange<int>(0, 2)) {
        case 0:  // ReLU-style: from 0
            q.il = q.ol = 0.f;
            q.ih = q.oh = static_cast<float>(q.levels - 1) * step;
            break;
        case 1: {  // asymmetric, level z stands for 0
            const int z = fdp.ConsumeIntegralInRange<int>(0, q.levels - 1);
            q.il = q.ol = static_cast<float>(-z) * step;
            q.ih = q.oh = static_cast<float>(q.levels - 1 - z) * step;
            break;
        }
        default:  // any range: 0 mostly between two levels (engine/quantized_input.hpp)
            q.il = q.ol = -fdp.ConsumeFloatingPointInRange<float>(0.f, 4.f);
            q.ih = q.oh = fdp.ConsumeFloatingPointInRange<float>(0.01f, 4.f);
            break;
    }
    const int threads = fdp.ConsumeIntegralInRange<int>(1, 3);
    std::mt19937 rng(fdp.ConsumeIntegral<uint32_t>());
    const irlite::testing::Built g = irlite::testing::build(q, rng);
    std::vector<float> x(irlite::testing::count(g.in_dims));
    std::uniform_real_distribution<float> u(q.il - 0.5f, q.ih + 0.5f);  // beyond both ends too
    for (float& v : x) v = u(rng);

    const Outcome ref = run(g, x, false, 1);
    const Outcome got = run(g, x, true, threads);
    if (ref.ok != got.ok) fail("one path threw: '" + ref.error + got.error + "'", g);
    if (!ref.ok) return 0;
    if (ref.out.size() != got.out.size()) fail("outputs of different sizes", g);
    // Recursive f32 summation is off by at most (depth - 1) ulp-units of the sum of |terms|, here
    // below depth x max |FakeQuantize output| x max |weight| (127 x the largest scale, 0.01); the
    // int8 path's sums are exact. A trailing FakeQuantize may then put a value on the neighbouring
    // level: one of its output steps (quantized_ir.hpp's [-0.25, 1.5] over 255).
    // (A flip only there: the sums' differences are far below a step.)
    const double depth = static_cast<double>(q.cin * q.k * q.k);
    const double terms = depth * std::max(std::fabs(q.ol), std::fabs(q.oh)) * 1.27;
    // The pass also takes a level for 0 up to 1e-3 of a step off (engine/low_precision.cpp): the
    // int8 path then counts that level (and the padding) as 0, the float path as its value.
    const double out_step = (static_cast<double>(q.oh) - q.ol) / (q.levels - 1);
    const double tolerance = 4 * depth * std::ldexp(1.0, -24) * terms + depth * 1.27 * 1e-3 * out_step + 1e-6 +
                             (q.out_fq ? 1.75 / 255 : 0.0);
    for (size_t i = 0; i < ref.out.size(); ++i) {
        if (std::isnan(ref.out[i]) != std::isnan(got.out[i])) fail("NaN in one path only", g);
        if (std::isnan(ref.out[i])) continue;
        if (std::fabs(static_cast<double>(got.out[i]) - ref.out[i]) > tolerance * (1 + 1e-6))
            fail("element " + std::to_string(i) + ": int8 " + std::to_string(got.out[i]) + ", float " +
                     std::to_string(ref.out[i]) + ", tolerance " + std::to_string(tolerance),
                 g);
    }
    // The int8 path is bit-identical for every thread count.
    if (threads != 1 && run(g, x, true, 1).out != got.out) fail("int8 results differ between 1 and more threads", g);
    return 0;
}
