// Broadcast-1 and Broadcast-3: numpy, explicit (axes_mapping) and bidirectional modes, a dtype
// sweep, load-time rules, and error rows.
#include <gtest/gtest.h>

#include <optional>

#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

struct BroadcastRow {
    const char* name;
    int opset;
    const char* mode;
    Shape data;  // 0, 1, 2, ...
    std::vector<int64_t> target;
    std::optional<std::vector<int64_t>> axes_mapping;
    Shape out_shape;
    std::vector<double> out;
};

const BroadcastRow kRows[] = {
    {"numpy_row", 3, "numpy", {3}, {2, 3}, std::nullopt, {2, 3}, {0, 1, 2, 0, 1, 2}},
    {"numpy_column", 3, "numpy", {2, 1}, {2, 3}, std::nullopt, {2, 3}, {0, 0, 0, 1, 1, 1}},
    {"numpy_scalar", 1, "numpy", {}, {2, 2}, std::nullopt, {2, 2}, {0, 0, 0, 0}},
    {"numpy_same", 1, "numpy", {2}, {2}, std::nullopt, {2}, {0, 1}},
    {"numpy_to_empty", 3, "numpy", {1}, {0}, std::nullopt, {0}, {}},
    {"explicit_channel", 3, "explicit", {2}, {1, 2, 2}, {{1}}, {1, 2, 2}, {0, 0, 1, 1}},
    {"explicit_two_axes", 1, "explicit", {2, 3}, {2, 2, 3}, {{1, 2}}, {2, 2, 3}, {0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5}},
    {"explicit_unit_dim", 3, "explicit", {1, 2}, {3, 2}, {{0, 1}}, {3, 2}, {0, 1, 0, 1, 0, 1}},
    {"bidirectional_keeps_data_dims", 3, "bidirectional", {2, 1}, {1, 3}, std::nullopt, {2, 3}, {0, 0, 0, 1, 1, 1}},
    {"bidirectional_short_target", 3, "bidirectional", {2, 3}, {1}, std::nullopt, {2, 3}, {0, 1, 2, 3, 4, 5}},
    {"bidirectional_longer_target", 3, "bidirectional", {3}, {2, 1}, std::nullopt, {2, 3}, {0, 1, 2, 0, 1, 2}},
};

std::vector<Tensor> make_inputs(const BroadcastRow& r, ElementType type) {
    std::vector<Tensor> in = {iota(type, r.data), i64s(r.target)};
    if (r.axes_mapping) in.push_back(i64s(*r.axes_mapping));
    return in;
}

class BroadcastRows : public ::testing::TestWithParam<BroadcastRow> {};

TEST_P(BroadcastRows, MatchesExpected) {
    const BroadcastRow& r = GetParam();
    const OpTester broadcast("Broadcast", r.opset, {{"mode", r.mode}});
    std::vector<size_t> hidden = {1};
    if (r.axes_mapping) hidden.push_back(2);
    EXPECT_TRUE(tensors_equal(broadcast.run1(make_inputs(r, ElementType::f32), hidden),
                              make_tensor(ElementType::f32, r.out_shape, r.out)));
}

INSTANTIATE_TEST_SUITE_P(Rows, BroadcastRows, ::testing::ValuesIn(kRows),
                         [](const auto& row) { return std::string(row.param.name); });

TEST(Broadcast, DtypeSweep) {
    const BroadcastRow& r = kRows[6];
    ASSERT_STREQ(r.name, "explicit_two_axes");
    const OpTester broadcast("Broadcast", 3, {{"mode", r.mode}});
    for (int t = 0; t < kNumElementTypes; ++t) {
        const auto type = static_cast<ElementType>(t);
        SCOPED_TRACE(to_string(type));
        std::vector<double> want = r.out;
        if (type == ElementType::boolean)
            for (double& v : want) v = static_cast<double>(static_cast<int64_t>(v) % 2);
        EXPECT_TRUE(tensors_equal(broadcast.run1(make_inputs(r, type)), make_tensor(type, r.out_shape, want)));
    }
}

TEST(Broadcast, RuleWithUnknownTarget) {
    const OpTester numpy("Broadcast", 3, {{"mode", "numpy"}});
    auto infos = numpy.infer({unknown(ElementType::f32, {3}), unknown(ElementType::i64, {4})});
    EXPECT_EQ(infos[0].shape, PartialShape::all_dynamic(4));
    const OpTester bidirectional("Broadcast", 3, {{"mode", "bidirectional"}});
    infos = bidirectional.infer({unknown(ElementType::f32, {2, 3, 4}), unknown(ElementType::i64, {2})});
    EXPECT_EQ(infos[0].shape, PartialShape::all_dynamic(3));
}

TEST(Broadcast, Errors) {
    const OpTester numpy("Broadcast", 3, {{"mode", "numpy"}});
    EXPECT_TRUE(throws_error([&] { numpy.run1({iota(ElementType::f32, {3}), i64s({2, 4})}); }, ErrorKind::ShapeRule,
                             "broadcast-incompatible", "data dim 0 = 3 vs target dim 1 = 4", 1));
    EXPECT_TRUE(throws_error([&] { numpy.run1({iota(ElementType::f32, {2, 3}), i64s({3})}); }, ErrorKind::ShapeRule,
                             "broadcast-incompatible", "lower-rank target", 1));
    EXPECT_TRUE(throws_error([&] { numpy.run1({iota(ElementType::f32, {3}), i64s({-1, 3})}); }, ErrorKind::Value,
                             "value-out-of-range", "target_shape[0] = -1 is negative", 1));
    const OpTester explicit_mode("Broadcast", 3, {{"mode", "explicit"}});
    EXPECT_TRUE(throws_error([&] { explicit_mode.run1({iota(ElementType::f32, {2, 3}), i64s({2, 3, 4}), i64s({1, 0})}); },
                             ErrorKind::Value, "axes-mapping-invalid", "strictly increasing", 2));
    EXPECT_TRUE(throws_error([&] { explicit_mode.run1({iota(ElementType::f32, {2}), i64s({2, 3}), i64s({2})}); },
                             ErrorKind::Value, "value-out-of-range", "axes_mapping[0] = 2: value 2 not in [0, 1]", 2));
    EXPECT_TRUE(throws_error([&] { explicit_mode.run1({iota(ElementType::f32, {2}), i64s({2, 3})}); }, ErrorKind::Graph,
                             "input-missing", "axes_mapping", 2));
    EXPECT_TRUE(throws_error([&] { OpTester("Broadcast", 1, {{"mode", "pdpd"}}).attrs(); }, ErrorKind::Unsupported,
                             "broadcast-mode-unsupported", "pdpd"));
    EXPECT_TRUE(throws_error([&] { OpTester("Broadcast", 1, {{"mode", "bidirectional"}}).attrs(); },
                             ErrorKind::Attribute, "attribute-invalid", "'mode'"));
}

}  // namespace
}  // namespace irlite
