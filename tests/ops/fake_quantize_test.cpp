// FakeQuantize-1: the spec's formula per element, per-tensor / per-channel / per-element ranges,
// inverted ranges, every float type, the shape rule and its errors.
#include <array>
#include <cmath>
#include <cstring>
#include <random>

#include "kernels/detail/cpu_isa.hpp"

#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

std::vector<IrAttribute> levels(int64_t n, const char* broadcast = "numpy") {
    return {{"levels", std::to_string(n)}, {"auto_broadcast", broadcast}};
}

// The spec's formula in double, round half to even.
double reference(double x, double il, double ih, double ol, double oh, int64_t levels) {
    if (x <= std::min(il, ih)) return ol;
    if (x > std::max(il, ih)) return oh;
    const double steps = static_cast<double>(levels - 1);
    return std::nearbyint((x - il) / (ih - il) * steps) / steps * (oh - ol) + ol;
}

TEST(FakeQuantize, PerTensorMatchesTheFormula) {
    const OpTester fq("FakeQuantize", 1, levels(5));
    // OpenVINO's op_reference vector: levels 5, ranges (3, 17, 2, 16) on 1..24.
    std::vector<double> x(24);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<double>(i + 1);
    const Tensor out = fq.run1({make_tensor(ElementType::f32, {1, 2, 3, 4}, x), scalar(3.0f), scalar(17.0f),
                                scalar(2.0f), scalar(16.0f)});
    ASSERT_EQ(out.shape(), (Shape{1, 2, 3, 4}));
    for (size_t i = 0; i < x.size(); ++i)
        EXPECT_FLOAT_EQ(out.data<float>()[i], static_cast<float>(reference(x[i], 3, 17, 2, 16, 5))) << "x = " << x[i];
    EXPECT_FLOAT_EQ(out.data<float>()[0], 2.0f);    // below the range: output_low
    EXPECT_FLOAT_EQ(out.data<float>()[23], 16.0f);  // above: output_high
}

// The per-tensor f32 rows run a vectorised form of the formula (cpu::run clones, rounding by
// adding 2^23): bit-identical to the scalar form, which per-element ranges take, on random values,
// values at level midpoints (round half to even), the range ends and NaN-free extremes, at every
// instruction-set level.
TEST(FakeQuantize, VectorisedRowsMatchTheScalarFormulaBitForBit) {
    std::mt19937 rng(3);
    for (int64_t lv : {2, 5, 255, 256, 65536}) {
        for (const auto& r : std::vector<std::array<float, 4>>{{-1.f, 2.f, -0.5f, 3.f}, {0.f, 6.f, 0.f, 6.f}, {2.f, -1.f, 3.f, -3.f}}) {
            const OpTester fq("FakeQuantize", 1, levels(lv));
            const Shape shape{1, 2, 7, 9};
            const int64_t n = 2 * 7 * 9;
            std::uniform_real_distribution<double> u(std::min(r[0], r[1]) - 1.0, std::max(r[0], r[1]) + 1.0);
            std::vector<double> x(static_cast<size_t>(n));
            for (int64_t i = 0; i < n; ++i) {
                const double k = static_cast<double>(i % 9) + 0.5;
                x[static_cast<size_t>(i)] = i % 3 == 0 ? r[0] + k / static_cast<double>(lv - 1) * (r[1] - r[0])
                                          : i % 7 == 0 ? r[i % 2] : u(rng);
            }
            x[0] = 1e30, x[1] = -1e30;
            const Tensor data = make_tensor(ElementType::f32, shape, x);
            std::vector<Tensor> full;
            for (float v : r) full.push_back(make_tensor(ElementType::f32, shape, std::vector<double>(static_cast<size_t>(n), v)));
            const Tensor scalar_form = fq.run1({data, full[0], full[1], full[2], full[3]});
            for (cpu::Isa cap : {cpu::Isa::Sse, cpu::Isa::Avx2, cpu::Isa::Avx512}) {
                cpu::set_isa_cap_for_testing(cap);
                const Tensor vector_form = fq.run1({data, scalar(r[0]), scalar(r[1]), scalar(r[2]), scalar(r[3])});
                cpu::reset_isa_cap_for_testing();
                ASSERT_EQ(0, std::memcmp(vector_form.data(), scalar_form.data(), static_cast<size_t>(n) * sizeof(float)))
                    << "levels " << lv << " range " << r[0] << ".." << r[1] << " " << cpu::isa_name(cap);
            }
        }
    }
}

TEST(FakeQuantize, PerChannelAndPerElementRanges) {
    const OpTester fq("FakeQuantize", 1, levels(256));
    const Shape shape{2, 3, 2, 2};
    std::vector<double> x(24), il{-1, 0, 2}, ih{1, 4, 3}, ol{0, -5, 10}, oh{255, 5, 20};
    for (size_t i = 0; i < x.size(); ++i) x[i] = -1.3 + 0.27 * static_cast<double>(i);
    const Tensor out = fq.run1({make_tensor(ElementType::f32, shape, x), make_tensor(ElementType::f32, {1, 3, 1, 1}, il),
                                make_tensor(ElementType::f32, {1, 3, 1, 1}, ih), make_tensor(ElementType::f32, {3, 1, 1}, ol),
                                make_tensor(ElementType::f32, {1, 3, 1, 1}, oh)});
    for (size_t i = 0; i < x.size(); ++i) {
        const size_t c = (i / 4) % 3;
        EXPECT_NEAR(out.data<float>()[i], reference(x[i], il[c], ih[c], ol[c], oh[c], 256), 1e-4) << i;
    }
    // Per element: every range a full tensor; and an input_low that varies along the last axis.
    std::vector<double> low(24), high(24);
    for (size_t i = 0; i < 24; ++i) low[i] = -static_cast<double>(i % 5), high[i] = 1.0 + static_cast<double>(i % 7);
    const Tensor per_element = fq.run1({make_tensor(ElementType::f32, shape, x), make_tensor(ElementType::f32, shape, low),
                                        make_tensor(ElementType::f32, shape, high), scalar(0.0f), scalar(1.0f)});
    for (size_t i = 0; i < 24; ++i)
        EXPECT_NEAR(per_element.data<float>()[i], reference(x[i], low[i], high[i], 0, 1, 256), 1e-6) << i;
    const Tensor last_axis = fq.run1({make_tensor(ElementType::f32, shape, x),
                                      make_tensor(ElementType::f32, {2}, {-1.0, 0.5}), scalar(2.0f), scalar(0.0f),
                                      scalar(1.0f)});
    for (size_t i = 0; i < 24; ++i)
        EXPECT_NEAR(last_axis.data<float>()[i], reference(x[i], i % 2 ? 0.5 : -1.0, 2, 0, 1, 256), 1e-6) << i;
}

TEST(FakeQuantize, InvertedAndEmptyRanges) {
    const OpTester fq("FakeQuantize", 1, levels(16));
    const std::vector<double> x{-2, -0.9, -0.2, 0.3, 0.77, 1.5};
    // output_low > output_high mirrors the levels; input_low > input_high follows the same formula.
    for (const auto& [il, ih, ol, oh] : std::vector<std::array<double, 4>>{{-1, 1, 5, -5}, {1, -1, 0, 1}, {0.25, 0.25, 0, 1}}) {
        const Tensor out = fq.run1({make_tensor(ElementType::f32, {6}, x), scalar(static_cast<float>(il)),
                                    scalar(static_cast<float>(ih)), scalar(static_cast<float>(ol)),
                                    scalar(static_cast<float>(oh))});
        for (size_t i = 0; i < x.size(); ++i)
            EXPECT_NEAR(out.data<float>()[i], reference(x[i], il, ih, ol, oh, 16), 1e-5) << il << " " << ih << " x=" << x[i];
    }
}

TEST(FakeQuantize, EveryFloatType) {
    const OpTester fq("FakeQuantize", 1, levels(4));
    const std::vector<double> x{0.0, 0.2, 0.4, 0.55, 0.9, 1.2};
    for (ElementType t : {ElementType::f16, ElementType::bf16, ElementType::f32, ElementType::f64}) {
        const Tensor one = make_tensor(t, {}, {1.0}), zero = make_tensor(t, {}, {0.0});
        const Tensor out = fq.run1({make_tensor(t, {2, 3}, x), zero, one, zero, make_tensor(t, {}, {3.0})});
        EXPECT_EQ(out.type(), t);
        const std::vector<double> got = to_doubles(out);
        for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(got[i], reference(x[i], 0, 1, 0, 3, 4), 1e-2) << to_string(t);
    }
    // Integer data is not FakeQuantize's: OpenVINO defines it on floats only.
    EXPECT_TRUE(throws_error(
        [&] { fq.run1({iota(ElementType::i32, {2}), scalar(0), scalar(1), scalar(0), scalar(1)}); },
        ErrorKind::Type, "element-type-unsupported", "floating-point", 0));
}

TEST(FakeQuantize, ShapeRuleAndErrors) {
    const OpTester fq("FakeQuantize", 1, levels(256));
    const auto f32 = [](PartialShape s) { return unknown(ElementType::f32, std::move(s)); };
    // Output: X's shape (dynamic dims kept); ranges of any broadcastable shape.
    const auto infos = fq.infer({f32(PartialShape({-1, 3, 8, 8})), f32({1, 3, 1, 1}), f32({1, 3, 1, 1}), f32({}), f32({})});
    ASSERT_EQ(infos.size(), 1u);
    EXPECT_EQ(infos[0].shape, PartialShape({-1, 3, 8, 8}));
    EXPECT_EQ(infos[0].type, ElementType::f32);
    // A range that does not broadcast to X.
    EXPECT_TRUE(throws_error([&] { fq.infer({f32({1, 4, 2, 2}), f32({1, 3, 1, 1}), f32({}), f32({}), f32({})}); },
                             ErrorKind::ShapeRule, "broadcast-incompatible", "does not broadcast to data [1,4,2,2]", 1));
    // Mixed types.
    EXPECT_TRUE(throws_error(
        [&] { fq.infer({f32({2}), unknown(ElementType::f16, PartialShape({})), f32({}), f32({}), f32({})}); },
        ErrorKind::Type, "element-type-mismatch", "same element type", 1));
    // auto_broadcast none: equal shapes only.
    const OpTester none("FakeQuantize", 1, levels(256, "none"));
    EXPECT_TRUE(throws_error([&] { none.infer({f32({2, 2}), f32({1}), f32({2, 2}), f32({2, 2}), f32({2, 2})}); },
                             ErrorKind::ShapeRule, "broadcast-incompatible", "input_low"));
    // levels < 2 and a missing levels.
    for (const char* bad : {"1", "0", "-3"})
        EXPECT_TRUE(throws_error([&] { OpTester("FakeQuantize", 1, {{"levels", bad}}).attrs(); }, ErrorKind::Attribute,
                                 "attribute-invalid", "levels must be >= 2"))
            << bad;
    EXPECT_THROW(OpTester("FakeQuantize", 1, {}).attrs(), Error);
}

TEST(FakeQuantize, RunsInPlaceAndInRows) {
    const OpTester fq("FakeQuantize", 1, levels(256));
    const auto plan = fq.plan({Tensor(ElementType::f32, {1, 8, 4, 4}), Tensor(ElementType::f32, {1, 8, 1, 1}),
                               Tensor(ElementType::f32, {1, 8, 1, 1}), Tensor(ElementType::f32, {}),
                               Tensor(ElementType::f32, {})});
    ASSERT_NE(plan, nullptr);
    ASSERT_EQ(plan->in_place.size(), 1u);
    EXPECT_EQ(plan->in_place[0].input, 0);
    EXPECT_STREQ(plan->method, "eltwise");
}

}  // namespace
}  // namespace irlite
