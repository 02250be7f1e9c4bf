// GridSample-9: identity grids, hand-computed bilinear / bicubic values, nearest rounding (halves to
// even), every padding mode with and without align_corners against a direct reference loop, the
// shape rule with unknown inputs, every error row, and the element types (integer results rounded
// and saturated, nearest exact for i64).
#include <cmath>
#include <limits>

#include "nn_test_util.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

std::vector<IrAttribute> attrs(const char* mode, const char* padding, bool align) {
    return {{"mode", mode}, {"padding_mode", padding}, {"align_corners", align ? "true" : "false"}};
}

// The pixel an index reads, by repeated mirroring (zeros: -1).
int64_t reference_pad(int64_t i, int64_t size, const std::string& padding, bool align) {
    if (i >= 0 && i < size) return i;
    if (padding == "zeros") return -1;
    if (padding == "border") return std::min<int64_t>(std::max<int64_t>(i, 0), size - 1);
    if (align && size == 1) return 0;
    while (i < 0 || i >= size) {
        if (align) i = i < 0 ? -i : 2 * (size - 1) - i;   // mirror about the edge pixels' centers
        else i = i < 0 ? -1 - i : 2 * size - 1 - i;        // mirror about their outer edges
    }
    return i;
}

double cubic(double d) {
    const double A = -0.75;
    d = std::fabs(d);
    if (d <= 1) return (A + 2) * d * d * d - (A + 3) * d * d + 1;
    if (d < 2) return A * d * d * d - 5 * A * d * d + 8 * A * d - 4 * A;
    return 0;
}

std::vector<double> reference(const std::vector<double>& x, const Shape& ds, const std::vector<double>& grid,
                              const Shape& gs, const std::string& mode, const std::string& padding, bool align) {
    const int64_t N = ds[0], C = ds[1], H = ds[2], W = ds[3], Ho = gs[1], Wo = gs[2];
    std::vector<double> out;
    for (int64_t n = 0; n < N; ++n)
        for (int64_t c = 0; c < C; ++c)
            for (int64_t oy = 0; oy < Ho; ++oy)
                for (int64_t ox = 0; ox < Wo; ++ox) {
                    const size_t g = static_cast<size_t>(((n * Ho + oy) * Wo + ox) * 2);
                    const auto denorm = [&](double v, int64_t L) {
                        return align ? (v + 1) / 2 * static_cast<double>(L - 1) : ((v + 1) * static_cast<double>(L) - 1) / 2;
                    };
                    const double px = denorm(grid[g], W), py = denorm(grid[g + 1], H);
                    const auto pixel = [&](int64_t yy, int64_t xx) {
                        const int64_t a = reference_pad(yy, H, padding, align), b = reference_pad(xx, W, padding, align);
                        return a < 0 || b < 0 ? 0.0 : x[static_cast<size_t>(((n * C + c) * H + a) * W + b)];
                    };
                    double v = 0;
                    if (mode == "nearest") {
                        v = pixel(static_cast<int64_t>(std::nearbyint(py)), static_cast<int64_t>(std::nearbyint(px)));
                    } else if (mode == "bilinear") {
                        const auto y0 = static_cast<int64_t>(std::floor(py)), x0 = static_cast<int64_t>(std::floor(px));
                        for (int64_t yy = y0; yy <= y0 + 1; ++yy)
                            for (int64_t xx = x0; xx <= x0 + 1; ++xx)
                                v += (1 - std::fabs(py - static_cast<double>(yy))) * (1 - std::fabs(px - static_cast<double>(xx))) *
                                     pixel(yy, xx);
                    } else {
                        const auto y0 = static_cast<int64_t>(std::floor(py)), x0 = static_cast<int64_t>(std::floor(px));
                        for (int64_t yy = y0 - 1; yy <= y0 + 2; ++yy)
                            for (int64_t xx = x0 - 1; xx <= x0 + 2; ++xx)
                                v += cubic(py - static_cast<double>(yy)) * cubic(px - static_cast<double>(xx)) * pixel(yy, xx);
                    }
                    out.push_back(v);
                }
    return out;
}

TEST(GridSample, IdentityGrids) {
    const Shape ds{2, 3, 4, 5};
    const std::vector<double> x = random_values(120, 1, -4, 4);
    for (const bool align : {true, false}) {
        std::vector<double> g;
        for (int64_t n = 0; n < 2; ++n)
            for (int64_t i = 0; i < 4; ++i)
                for (int64_t j = 0; j < 5; ++j) {
                    if (align) g.insert(g.end(), {-1.0 + 2.0 * static_cast<double>(j) / 4, -1.0 + 2.0 * static_cast<double>(i) / 3});
                    else g.insert(g.end(), {(2.0 * static_cast<double>(j) + 1) / 5 - 1, (2.0 * static_cast<double>(i) + 1) / 4 - 1});
                }
        for (const char* mode : {"bilinear", "bicubic", "nearest"}) {
            const Tensor out = OpTester("GridSample", 9, attrs(mode, "zeros", align))
                                   .run1({make_tensor(ElementType::f64, ds, x), make_tensor(ElementType::f64, {2, 4, 5, 2}, g)}, {1});
            EXPECT_TRUE(all_close(out, x, 1e-12)) << mode << " align " << align;
        }
    }
}

TEST(GridSample, ByHand) {
    // Bilinear at the center of a 2x2 map; the defaults are bilinear, zeros, align_corners=false
    // (the center is still the center).
    const Tensor m = make_tensor<float>({1, 1, 2, 2}, {0, 1, 2, 3});
    EXPECT_EQ(values_of<float>(OpTester("GridSample", 9, {}).run1({m, make_tensor<float>({1, 1, 1, 2}, {0, 0})})),
              (std::vector<float>{1.5f}));
    // Bicubic halfway between pixels 1 and 2 of [0, 1, 4, 9]: weights -0.09375, 0.59375, 0.59375,
    // -0.09375 -> 2.125 (x^2 is not reproduced exactly: 2.25).
    const Tensor sq = make_tensor<float>({1, 1, 1, 4}, {0, 1, 4, 9});
    EXPECT_EQ(values_of<float>(OpTester("GridSample", 9, attrs("bicubic", "zeros", true)).run1({sq, make_tensor<float>({1, 1, 1, 2}, {0, 0})})),
              (std::vector<float>{2.125f}));
    // Nearest rounds halves to even: on 3 pixels with align_corners, p = v + 1.
    const Tensor row = make_tensor<float>({1, 1, 1, 3}, {10, 20, 30});
    const Tensor halves = make_tensor<float>({1, 1, 3, 2}, {-0.5f, 0, 0.5f, 0, 0, 0});  // p = 0.5, 1.5, 1
    EXPECT_EQ(values_of<float>(OpTester("GridSample", 9, attrs("nearest", "zeros", true)).run1({row, halves})),
              (std::vector<float>{10, 30, 20}));
    // Padding of pixel 3 (v = 2) and -1 (v = -2) with align_corners (mirror about 0 and 2), and of
    // pixels 4 and -2 without (v = 2 and -2; mirror about -0.5 and 2.5).
    const Tensor far = make_tensor<float>({1, 1, 2, 2}, {2, 0, -2, 0});
    const std::vector<std::pair<const char*, std::vector<float>>> align_rows = {{"zeros", {0, 0}}, {"border", {30, 10}}, {"reflection", {20, 20}}};
    for (const auto& [pad, want] : align_rows)
        EXPECT_EQ(values_of<float>(OpTester("GridSample", 9, attrs("nearest", pad, true)).run1({row, far})), want) << pad;
    const std::vector<std::pair<const char*, std::vector<float>>> edge_rows = {{"zeros", {0, 0}}, {"border", {30, 10}}, {"reflection", {20, 20}}};
    for (const auto& [pad, want] : edge_rows)
        EXPECT_EQ(values_of<float>(OpTester("GridSample", 9, attrs("nearest", pad, false)).run1({row, far})), want) << pad;
    // Bilinear with zeros: half of pixel 0 beyond the left edge.
    EXPECT_EQ(values_of<float>(OpTester("GridSample", 9, attrs("bilinear", "zeros", true)).run1({row, make_tensor<float>({1, 1, 1, 2}, {-1.5f, 0})})),
              (std::vector<float>{5}));
}

TEST(GridSample, MatchesTheReference) {
    const Shape ds{2, 3, 5, 4}, gs{2, 3, 7, 2};
    const std::vector<double> x = random_values(120, 7, -3, 3);
    std::vector<double> g = random_values(84, 8, -2.5, 2.5);
    g[0] = 9.75, g[1] = -7.25, g[2] = -1, g[3] = 1;  // far away, and the corners
    for (const char* mode : {"bilinear", "bicubic", "nearest"})
        for (const char* pad : {"zeros", "border", "reflection"})
            for (const bool align : {false, true}) {
                const Tensor out = OpTester("GridSample", 9, attrs(mode, pad, align))
                                       .run1({make_tensor(ElementType::f64, ds, x), make_tensor(ElementType::f64, gs, g)});
                EXPECT_TRUE(all_close(out, reference(x, ds, g, gs, mode, pad, align), 1e-12)) << mode << " " << pad << " " << align;
            }
    // One-pixel axes (reflection with align_corners reads pixel 0).
    const Shape one{1, 2, 1, 3};
    const std::vector<double> y = {1, 2, 3, 4, 5, 6};
    const std::vector<double> g2 = {0.3, 0.9, -3, 2, 4.5, -6};
    for (const char* mode : {"nearest", "bilinear", "bicubic"})
        for (const char* pad : {"border", "reflection"})
            for (const bool align : {false, true}) {
                const Tensor out = OpTester("GridSample", 9, attrs(mode, pad, align))
                                       .run1({make_tensor(ElementType::f64, one, y), make_tensor(ElementType::f64, {1, 1, 3, 2}, g2)});
                EXPECT_TRUE(all_close(out, reference(y, one, g2, {1, 1, 3, 2}, mode, pad, align), 1e-12)) << mode << " " << pad << " " << align;
            }
    // Infinite coordinates are far points: zeros reads 0, border the edge, reflection some pixel.
    const Tensor inf_grid = make_tensor<double>({1, 1, 1, 2}, {std::numeric_limits<double>::infinity(), 0});
    EXPECT_EQ(to_doubles(OpTester("GridSample", 9, attrs("bilinear", "zeros", false)).run1({make_tensor(ElementType::f64, one, y), inf_grid})),
              (std::vector<double>{0, 0}));
    EXPECT_EQ(to_doubles(OpTester("GridSample", 9, attrs("bicubic", "border", true)).run1({make_tensor(ElementType::f64, one, y), inf_grid})),
              (std::vector<double>{3, 6}));
    const std::vector<double> r = to_doubles(OpTester("GridSample", 9, attrs("nearest", "reflection", false)).run1({make_tensor(ElementType::f64, one, y), inf_grid}));
    EXPECT_TRUE(r[0] >= 1 && r[0] <= 3 && r[1] == r[0] + 3) << r[0] << " " << r[1];
}

TEST(GridSample, ShapeRule) {
    const OpTester op("GridSample", 9, attrs("bilinear", "zeros", false));
    auto infos = op.infer({unknown(ElementType::f32, PartialShape({2, 3, 100, 100})), unknown(ElementType::f16, PartialShape({2, 10, 12, 2}))});
    EXPECT_EQ(infos[0].type, ElementType::f32);
    EXPECT_EQ(infos[0].shape, PartialShape({2, 3, 10, 12}));
    infos = op.infer({unknown(ElementType::u8, PartialShape({-1, 3, -1, -1})), unknown(ElementType::f32, PartialShape({4, -1, 6, 2}))});
    EXPECT_EQ(infos[0].type, ElementType::u8);
    EXPECT_EQ(infos[0].shape, PartialShape({4, 3, -1, 6}));
    const PartialShape any = PartialShape::dynamic_rank();
    infos = op.infer({unknown(ElementType::f32, any), unknown(ElementType::f32, any)});
    EXPECT_EQ(infos[0].shape, PartialShape({-1, -1, -1, -1}));
}

TEST(GridSample, Errors) {
    EXPECT_TRUE(throws_error([] { OpTester("GridSample", 9, {{"mode", "linear"}}).attrs(); }, ErrorKind::Attribute, "attribute-invalid",
                             "bilinear, bicubic, nearest"));
    EXPECT_TRUE(throws_error([] { OpTester("GridSample", 9, {{"padding_mode", "wrap"}}).attrs(); }, ErrorKind::Attribute,
                             "attribute-invalid", "zeros, border, reflection"));
    EXPECT_TRUE(throws_error([] { OpTester("GridSample", 9, {{"align_corners", "maybe"}}).attrs(); }, ErrorKind::Attribute,
                             "attribute-invalid", "align_corners"));
    const OpTester op("GridSample", 9, attrs("bilinear", "zeros", false));
    const Tensor data = iota(ElementType::f32, {1, 1, 3, 3});
    const Tensor grid = make_tensor<float>({1, 1, 1, 2}, {0, 0});
    EXPECT_TRUE(throws_error([&] { op.run1({iota(ElementType::f32, {1, 3, 3}), grid}); }, ErrorKind::ShapeRule, "rank-invalid", "4D", 0));
    EXPECT_TRUE(throws_error([&] { op.run1({iota(ElementType::f32, {1, 1, 2, 3, 3}), make_tensor<float>({1, 1, 1, 1, 3}, {0, 0, 0})}); },
                             ErrorKind::Unsupported, "rank-unsupported", "5D", 0));
    EXPECT_TRUE(throws_error([&] { op.run1({data, make_tensor<float>({1, 1, 1, 3}, {0, 0, 0})}); }, ErrorKind::ShapeRule, "grid-shape",
                             "[N, H_out, W_out, 2]", 1));
    EXPECT_TRUE(throws_error([&] { op.run1({data, make_tensor<float>({1, 2}, {0, 0})}); }, ErrorKind::ShapeRule, "rank-invalid", "4D", 1));
    EXPECT_TRUE(throws_error([&] { op.run1({data, make_tensor<float>({2, 1, 1, 2}, {0, 0, 0, 0})}); }, ErrorKind::ShapeRule,
                             "shape-mismatch", "grid has batch 2 but data has 1", 1));
    EXPECT_TRUE(throws_error([&] { op.run1({data, make_tensor<int32_t>({1, 1, 1, 2}, {0, 0})}); }, ErrorKind::Type, "type-unsupported",
                             "i32", 1));
    EXPECT_TRUE(throws_error([&] { op.run1({make_tensor<bool>({1, 1, 1, 1}, {true}), grid}); }, ErrorKind::Type, "type-unsupported",
                             "boolean", 0));
    EXPECT_TRUE(throws_error([&] { op.run1({data, make_tensor<float>({1, 1, 2, 2}, {0, 0, 0.5f, std::nanf("")})}); }, ErrorKind::Value,
                             "grid-invalid", "grid[0,0,1,1] = nan", 1));
    EXPECT_EQ(builtin_ops().find("GridSample", 8), nullptr);
}

TEST(GridSample, ElementTypes) {
    const Shape ds{1, 2, 3, 4};
    const std::vector<double> x = random_values(24, 4, -2, 2);
    const std::vector<double> g = {0.1, -0.2, 0.7, 0.9, -0.95, 0.35, 0.5, 0.5};
    for (ElementType t : {ElementType::f16, ElementType::bf16, ElementType::f32, ElementType::f64})
        for (ElementType gt : {ElementType::f16, ElementType::f32, ElementType::f64}) {
            const std::vector<double> held = to_doubles(make_tensor(t, ds, x));
            const std::vector<double> held_g = to_doubles(make_tensor(gt, {1, 2, 2, 2}, g));
            const Tensor out = OpTester("GridSample", 9, attrs("bicubic", "border", false))
                                   .run1({make_tensor(t, ds, held), make_tensor(gt, {1, 2, 2, 2}, g)});
            EXPECT_EQ(out.type(), t);
            EXPECT_TRUE(all_close(out, reference(held, ds, held_g, {1, 2, 2, 2}, "bicubic", "border", false),
                                  t == ElementType::bf16 ? 1e-2 : t == ElementType::f16 ? 2e-3 : 1e-6))
                << to_string(t) << " grid " << to_string(gt);
        }
    // Integers: bilinear and bicubic round halves to even and saturate; nearest copies exactly.
    const Tensor half = make_tensor<float>({1, 1, 1, 2}, {0, 0});  // p = 1.5 on 4 pixels with align_corners
    const OpTester cubic_op("GridSample", 9, attrs("bicubic", "border", true));
    EXPECT_EQ(values_of<uint8_t>(cubic_op.run1({make_tensor<uint8_t>({1, 1, 1, 4}, {0, 0, 255, 255}), half})), (std::vector<uint8_t>{128}));
    EXPECT_EQ(values_of<uint8_t>(cubic_op.run1({make_tensor<uint8_t>({1, 1, 1, 4}, {0, 255, 255, 0}), half})), (std::vector<uint8_t>{255}));
    EXPECT_EQ(values_of<uint8_t>(cubic_op.run1({make_tensor<uint8_t>({1, 1, 1, 4}, {255, 0, 0, 255}), half})), (std::vector<uint8_t>{0}));
    const OpTester bil("GridSample", 9, attrs("bilinear", "zeros", true));
    EXPECT_EQ(values_of<int32_t>(bil.run1({make_tensor<int32_t>({1, 1, 1, 4}, {0, -3, -6, 0}), half})), (std::vector<int32_t>{-4}));  // -4.5
    EXPECT_EQ(values_of<int32_t>(bil.run1({make_tensor<int32_t>({1, 1, 1, 4}, {0, 3, 8, 0}), half})), (std::vector<int32_t>{6}));    // 5.5
    const int64_t big = (int64_t{1} << 62) + 1;
    const Tensor exact = OpTester("GridSample", 9, attrs("nearest", "zeros", true))
                             .run1({make_tensor<int64_t>({1, 1, 1, 2}, {big, 7}), make_tensor<double>({1, 1, 1, 2}, {-1, 0})});
    EXPECT_EQ(values_of<int64_t>(exact), (std::vector<int64_t>{big}));
}

}  // namespace
}  // namespace irlite
