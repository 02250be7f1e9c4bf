// ExperimentalDetectronPriorGridGenerator-6: the grid from the feature map and image sizes, given
// strides, a grid smaller than the map (h, w) with its zero rows, flatten, the shape rule with
// unknown dims, every error, and the element types.
#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

OpTester generator(std::vector<IrAttribute> attrs = {}) {
    return OpTester("ExperimentalDetectronPriorGridGenerator", 6, std::move(attrs));
}

// Two priors; a 2x3 feature map of a 20x30 image (only the shapes count).
std::vector<Tensor> inputs(ElementType t = ElementType::f32) {
    return {make_tensor(t, {2, 4}, {-2, -2, 2, 2, -4, -1, 4, 1}), make_tensor(t, {1, 1, 2, 3}, std::vector<double>(6, 0)),
            make_tensor(t, {1, 3, 20, 30}, std::vector<double>(1800, 0))};
}

// Row (i, j, s) = prior s + (dx_j, dy_i, dx_j, dy_i), rows in i, j, s order.
std::vector<double> grid(const std::vector<double>& dx, const std::vector<double>& dy) {
    const double priors[2][4] = {{-2, -2, 2, 2}, {-4, -1, 4, 1}};
    std::vector<double> v;
    for (const double y : dy)
        for (const double x : dx)
            for (const auto& p : priors)
                for (const double c : {p[0] + x, p[1] + y, p[2] + x, p[3] + y}) v.push_back(c);
    return v;
}

TEST(ExperimentalDetectronPriorGridGenerator, StepsFromTheImageAndFromStrides) {
    // Steps 30 / 3 = 10 and 20 / 2 = 10: centres 5, 15, 25 across and 5, 15 down.
    const Tensor out = generator().run1(inputs());
    EXPECT_EQ(out.shape(), (Shape{12, 4}));
    EXPECT_EQ(to_doubles(out), grid({5, 15, 25}, {5, 15}));
    const std::vector<double> first = {3, 3, 7, 7, 1, 4, 9, 6};  // the spec's rule by hand: prior + 5
    const std::vector<double> all = to_doubles(out);
    EXPECT_EQ(std::vector<double>(all.begin(), all.begin() + 8), first);
    // Strides 4 (x) and 8 (y); not flattened: [2, 3, 2, 4].
    const Tensor strided = generator({{"stride_x", "4"}, {"stride_y", "8.0"}, {"flatten", "false"}}).run1(inputs());
    EXPECT_EQ(strided.shape(), (Shape{2, 3, 2, 4}));
    EXPECT_EQ(to_doubles(strided), grid({2, 6, 10}, {4, 12}));
}

TEST(ExperimentalDetectronPriorGridGenerator, SmallerGridLeavesZeroRows) {
    // h = 1, w = 2 on the 2x3 map: steps 30 / 2 = 15 and 20 / 1 = 20; 4 rows, then 8 zero rows.
    const Tensor out = generator({{"h", "1"}, {"w", "2"}}).run1(inputs());
    EXPECT_EQ(out.shape(), (Shape{12, 4}));
    std::vector<double> want = grid({7.5, 22.5}, {10});
    want.resize(48, 0.0);
    EXPECT_EQ(to_doubles(out), want);
    // h = featmap_height is allowed.
    EXPECT_EQ(to_doubles(generator({{"h", "2"}}).run1(inputs())), grid({5, 15, 25}, {5, 15}));
}

// OpenVINO's reference test cases (spot rows of their expected outputs).
TEST(ExperimentalDetectronPriorGridGenerator, OpenVinoReferenceCases) {
    const auto shape_only = [](const Shape& s) {
        return make_tensor(ElementType::f32, s, std::vector<double>(static_cast<size_t>(checked_num_elements(s)), 0.0));
    };
    const auto row = [](const std::vector<double>& v, size_t r) { return std::vector<double>(v.begin() + 4 * r, v.begin() + 4 * r + 4); };
    // flatten, strides 4 on a 4x5 map: [60, 4].
    const auto a = to_doubles(generator({{"stride_x", "4"}, {"stride_y", "4"}})
                                  .run1({make_tensor<float>({3, 4}, {-24.5f, -12.5f, 24.5f, 12.5f, -16.5f, -16.5f, 16.5f, 16.5f,
                                                                     -12.5f, -24.5f, 12.5f, 24.5f}),
                                         shape_only({1, 16, 4, 5}), shape_only({1, 3, 100, 200})}));
    ASSERT_EQ(a.size(), 240u);
    EXPECT_EQ(row(a, 0), (std::vector<double>{-22.5, -10.5, 26.5, 14.5}));
    EXPECT_EQ(row(a, 3), (std::vector<double>{-18.5, -10.5, 30.5, 14.5}));
    EXPECT_EQ(row(a, 59), (std::vector<double>{5.5, -10.5, 30.5, 38.5}));
    // h = 3, w = 6, strides 64 on a 100x100 map: 54 grid rows, then zeros (OpenVINO leaves them undefined).
    const auto b = to_doubles(generator({{"h", "3"}, {"w", "6"}, {"stride_x", "64"}, {"stride_y", "64"}})
                                  .run1({make_tensor<float>({3, 4}, {-364.5f, -184.5f, 364.5f, 184.5f, -256.5f, -256.5f, 256.5f,
                                                                     256.5f, -180.5f, -360.5f, 180.5f, 360.5f}),
                                         shape_only({1, 16, 100, 100}), shape_only({1, 3, 100, 200})}));
    ASSERT_EQ(b.size(), 120000u);
    EXPECT_EQ(row(b, 0), (std::vector<double>{-332.5, -152.5, 396.5, 216.5}));
    EXPECT_EQ(row(b, 3), (std::vector<double>{-268.5, -152.5, 460.5, 216.5}));
    EXPECT_EQ(row(b, 53), (std::vector<double>{171.5, -200.5, 532.5, 520.5}));
    EXPECT_EQ(row(b, 54), (std::vector<double>{0, 0, 0, 0}));
}

TEST(ExperimentalDetectronPriorGridGenerator, ShapeRule) {
    const auto flat = generator().infer({unknown(ElementType::f32, PartialShape({3, 4})),
                                         unknown(ElementType::f32, PartialShape({1, 256, -1, 42})),
                                         unknown(ElementType::f32, PartialShape({1, 3, 800, 1344}))});
    EXPECT_EQ(flat[0].shape, PartialShape({-1, 4}));
    const auto known = generator().infer({unknown(ElementType::f16, PartialShape({3, 4})),
                                          unknown(ElementType::f16, PartialShape({1, 256, 25, 42})),
                                          unknown(ElementType::f32, PartialShape::dynamic_rank())});
    EXPECT_EQ(known[0].shape, PartialShape({3150, 4}));  // the spec's example
    EXPECT_EQ(known[0].type, ElementType::f16);
    const auto four = generator({{"flatten", "false"}}).infer({unknown(ElementType::f32, PartialShape({-1, 4})),
                                                               unknown(ElementType::f32, PartialShape::dynamic_rank()),
                                                               unknown(ElementType::f32, PartialShape({1, 3, 8, 8}))});
    EXPECT_EQ(four[0].shape, PartialShape({-1, -1, -1, 4}));
    // The map and image are read for their shapes only; the priors may be unknown at load time.
    EXPECT_EQ(generator().run(inputs(), {0, 1, 2})[0].shape(), (Shape{12, 4}));
}

TEST(ExperimentalDetectronPriorGridGenerator, Errors) {
    const auto attrs_of = [](std::vector<IrAttribute> a) { return [a] { generator(a).attrs(); }; };
    EXPECT_TRUE(throws_error(attrs_of({{"h", "-1"}}), ErrorKind::Attribute, "attribute-invalid", "'h' = -1"));
    EXPECT_TRUE(throws_error(attrs_of({{"w", "-2"}}), ErrorKind::Attribute, "attribute-invalid", "'w' = -2"));
    EXPECT_TRUE(throws_error(attrs_of({{"stride_x", "-1"}}), ErrorKind::Attribute, "attribute-invalid", "'stride_x' = -1"));
    EXPECT_TRUE(throws_error(attrs_of({{"stride_y", "-0.5"}}), ErrorKind::Attribute, "attribute-invalid", "'stride_y' = -0.5"));
    EXPECT_TRUE(throws_error(attrs_of({{"flatten", "maybe"}}), ErrorKind::Attribute, "attribute-invalid", "flatten"));
    EXPECT_TRUE(throws_error([] { generator({{"h", "3"}}).run1(inputs()); }, ErrorKind::Attribute, "attribute-invalid",
                             "'h' = 3 is larger than featmap_height 2", 1));
    EXPECT_TRUE(throws_error([] { generator({{"w", "4"}}).run1(inputs()); }, ErrorKind::Attribute, "attribute-invalid",
                             "'w' = 4 is larger than featmap_width 3", 1));
    std::vector<Tensor> in = inputs();
    in[0] = make_tensor<float>({2, 3}, std::vector<float>(6, 0));
    EXPECT_TRUE(throws_error([&] { generator().run1(in); }, ErrorKind::ShapeRule, "shape-invalid", "[number_of_priors, 4]", 0));
    in[0] = make_tensor<float>({8}, std::vector<float>(8, 0));
    EXPECT_TRUE(throws_error([&] { generator().run1(in); }, ErrorKind::ShapeRule, "rank-invalid", "priors must be 2-D", 0));
    in = inputs();
    in[1] = make_tensor<float>({1, 2, 3}, std::vector<float>(6, 0));
    EXPECT_TRUE(throws_error([&] { generator().run1(in); }, ErrorKind::ShapeRule, "rank-invalid", "feature_map must be 4-D", 1));
    in = inputs();
    in[2] = make_tensor<float>({20, 30}, std::vector<float>(600, 0));
    EXPECT_TRUE(throws_error([&] { generator().run1(in); }, ErrorKind::ShapeRule, "rank-invalid", "im_data must be 4-D", 2));
    in = inputs();
    in[0] = make_tensor<int32_t>({2, 4}, std::vector<int32_t>(8, 0));
    EXPECT_TRUE(throws_error([&] { generator().run1(in); }, ErrorKind::Type, "element-type-unsupported",
                             "priors must be a floating-point tensor", 0));
}

TEST(ExperimentalDetectronPriorGridGenerator, ElementTypes) {
    for (ElementType t : {ElementType::f32, ElementType::f16, ElementType::bf16, ElementType::f64}) {
        SCOPED_TRACE(to_string(t));
        const Tensor out = generator().run1(inputs(t));
        EXPECT_EQ(out.type(), t);
        EXPECT_EQ(to_doubles(out), grid({5, 15, 25}, {5, 15}));
    }
}

}  // namespace
}  // namespace irlite
