// ExperimentalDetectronTopKROIs-6: the best max_rois ROIs in descending probability, ties in input
// order, NaN first, zero rows when there are fewer ROIs, the shape rule with unknown inputs, every
// error, and the element types.
#include <cmath>

#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

OpTester topk_rois(int64_t max_rois) {
    return OpTester("ExperimentalDetectronTopKROIs", 6, {{"max_rois", std::to_string(max_rois)}});
}

// ROI i = (i, i, i + 10, i + 10).
Tensor rois(ElementType t, int64_t n) {
    std::vector<double> v;
    for (int64_t i = 0; i < n; ++i)
        for (const int64_t c : {i, i, i + 10, i + 10}) v.push_back(static_cast<double>(c));
    return make_tensor(t, {n, 4}, v);
}
std::vector<double> rows_of(const std::vector<int>& ids) {
    std::vector<double> v;
    for (const int i : ids)
        for (const int c : {i, i, i + 10, i + 10}) v.push_back(i < 0 ? 0.0 : c);
    return v;
}

TEST(ExperimentalDetectronTopKROIs, BestFirstTiesInInputOrder) {
    const Tensor probs = make_tensor<float>({5}, {0.125f, 0.875f, 0.5f, 0.875f, 0.25f});
    const Tensor out = topk_rois(3).run1({rois(ElementType::f32, 5), probs});
    EXPECT_EQ(out.shape(), (Shape{3, 4}));
    EXPECT_EQ(to_doubles(out), rows_of({1, 3, 2}));
    // More rows than ROIs: all five, then zeros.
    EXPECT_EQ(to_doubles(topk_rois(7).run1({rois(ElementType::f32, 5), probs})), rows_of({1, 3, 2, 4, 0, -1, -1}));
    // NaN ranks first.
    const Tensor nan = make_tensor<float>({3}, {0.25f, NAN, 0.5f});
    EXPECT_EQ(to_doubles(topk_rois(2).run1({rois(ElementType::f32, 3), nan})), rows_of({1, 2}));
    // max_rois defaults to 0: an empty output.
    EXPECT_EQ(OpTester("ExperimentalDetectronTopKROIs", 6).run1({rois(ElementType::f32, 5), probs}).shape(), (Shape{0, 4}));
}

// OpenVINO's reference test cases.
TEST(ExperimentalDetectronTopKROIs, OpenVinoReferenceCases) {
    for (ElementType t : {ElementType::f32, ElementType::f16, ElementType::bf16, ElementType::f64}) {
        SCOPED_TRACE(to_string(t));
        EXPECT_EQ(to_doubles(topk_rois(1).run1({make_tensor(t, {2, 4}, {1, 1, 3, 4, 2, 1, 5, 7}), make_tensor(t, {2}, {0.5, 0.3})})),
                  (std::vector<double>{1, 1, 3, 4}));
        const Tensor four = make_tensor(t, {4, 4}, {1, 1, 4, 5, 3, 2, 7, 9, 10, 15, 13, 17, 13, 10, 18, 15});
        EXPECT_EQ(to_doubles(topk_rois(2).run1({four, make_tensor(t, {4}, {0.1, 0.7, 0.5, 0.9})})),
                  (std::vector<double>{13, 10, 18, 15, 3, 2, 7, 9}));
    }
}

TEST(ExperimentalDetectronTopKROIs, ShapeRule) {
    const auto infos = topk_rois(1000).infer({unknown(ElementType::f32, PartialShape({-1, 4})),
                                              unknown(ElementType::f32, PartialShape::dynamic_rank())});
    EXPECT_EQ(infos[0].shape, PartialShape({1000, 4}));
    EXPECT_EQ(infos[0].type, ElementType::f32);
    const Tensor probs = make_tensor<float>({4}, {0.5f, 0.25f, 1, 0});
    EXPECT_EQ(to_doubles(topk_rois(2).run1({rois(ElementType::f32, 4), probs}, {0, 1})), rows_of({2, 0}));
}

TEST(ExperimentalDetectronTopKROIs, Errors) {
    EXPECT_TRUE(throws_error([] { topk_rois(-1).attrs(); }, ErrorKind::Attribute, "attribute-invalid", "'max_rois' = -1"));
    const Tensor probs = make_tensor<float>({5}, std::vector<float>(5, 0));
    EXPECT_TRUE(throws_error([&] { topk_rois(2).run1({make_tensor<float>({5, 3}, std::vector<float>(15, 0)), probs}); },
                             ErrorKind::ShapeRule, "shape-invalid", "[number_of_rois, 4]", 0));
    EXPECT_TRUE(throws_error([&] { topk_rois(2).run1({make_tensor<float>({20}, std::vector<float>(20, 0)), probs}); },
                             ErrorKind::ShapeRule, "rank-invalid", "rois must be 2-D", 0));
    EXPECT_TRUE(throws_error([&] { topk_rois(2).run1({rois(ElementType::f32, 5), make_tensor<float>({5, 1}, std::vector<float>(5, 0))}); },
                             ErrorKind::ShapeRule, "rank-invalid", "probs must be 1-D", 1));
    EXPECT_TRUE(throws_error([&] { topk_rois(2).run1({rois(ElementType::f32, 4), probs}); }, ErrorKind::ShapeRule,
                             "shape-mismatch", "probs has 5 values but rois has 4 rows", 1));
    EXPECT_TRUE(throws_error([&] { topk_rois(2).run1({rois(ElementType::f32, 5), make_tensor(ElementType::f16, {5}, std::vector<double>(5, 0))}); },
                             ErrorKind::Type, "element-type-mismatch", "probs is f16 but rois is f32", 1));
    EXPECT_TRUE(throws_error([] { topk_rois(2).run1({rois(ElementType::i32, 2), make_tensor<int32_t>({2}, {0, 1})}); },
                             ErrorKind::Type, "element-type-unsupported", "rois must be a floating-point tensor", 0));
}

TEST(ExperimentalDetectronTopKROIs, ElementTypes) {
    for (ElementType t : {ElementType::f32, ElementType::f16, ElementType::bf16, ElementType::f64}) {
        SCOPED_TRACE(to_string(t));
        const Tensor out = topk_rois(4).run1({rois(t, 3), make_tensor(t, {3}, {0.25, 0.75, 0.5})});
        EXPECT_EQ(out.type(), t);
        EXPECT_EQ(to_doubles(out), rows_of({1, 2, 0, -1}));
    }
}

}  // namespace
}  // namespace irlite
