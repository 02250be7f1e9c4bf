// Tile-1: repeats per dim (shorter and longer repeats than the rank, zeros), a dtype sweep,
// load-time rules, and error rows.
#include <gtest/gtest.h>

#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

struct TileRow {
    const char* name;
    Shape data;  // 0, 1, 2, ...
    std::vector<int64_t> repeats;
    Shape out_shape;
    std::vector<double> out;
};

const TileRow kRows[] = {
    {"1d", {3}, {2}, {6}, {0, 1, 2, 0, 1, 2}},
    {"2d_both", {2, 2}, {2, 3}, {4, 6}, {0, 1, 0, 1, 0, 1, 2, 3, 2, 3, 2, 3, 0, 1, 0, 1, 0, 1, 2, 3, 2, 3, 2, 3}},
    {"short_repeats_pad_front", {2, 2}, {2}, {2, 4}, {0, 1, 0, 1, 2, 3, 2, 3}},
    {"long_repeats_pad_data", {2}, {2, 1}, {2, 2}, {0, 1, 0, 1}},
    {"zero_repeat", {2, 2}, {0, 1}, {0, 2}, {}},
    {"ones", {2, 3}, {1, 1}, {2, 3}, {0, 1, 2, 3, 4, 5}},
    {"scalar_data", {}, {3}, {3}, {0, 0, 0}},
};

class TileRows : public ::testing::TestWithParam<TileRow> {};

TEST_P(TileRows, MatchesExpected) {
    const TileRow& r = GetParam();
    const OpTester tile("Tile", 1);
    EXPECT_TRUE(tensors_equal(tile.run1({iota(ElementType::f32, r.data), i64s(r.repeats)}, {1}),
                              make_tensor(ElementType::f32, r.out_shape, r.out)));
}

INSTANTIATE_TEST_SUITE_P(Rows, TileRows, ::testing::ValuesIn(kRows),
                         [](const auto& row) { return std::string(row.param.name); });

TEST(Tile, DtypeSweep) {
    const TileRow& r = kRows[2];
    const OpTester tile("Tile", 1);
    for (int t = 0; t < kNumElementTypes; ++t) {
        const auto type = static_cast<ElementType>(t);
        SCOPED_TRACE(to_string(type));
        std::vector<double> want = r.out;
        if (type == ElementType::boolean)
            for (double& v : want) v = static_cast<double>(static_cast<int64_t>(v) % 2);
        EXPECT_TRUE(tensors_equal(tile.run1({iota(type, r.data), i32s({2})}), make_tensor(type, r.out_shape, want)));
    }
}

TEST(Tile, RuleWithUnknowns) {
    const OpTester tile("Tile", 1);
    auto infos = tile.infer({unknown(ElementType::f32, {2, 3}), unknown(ElementType::i64, {3})});
    EXPECT_EQ(infos[0].shape, PartialShape::all_dynamic(3));
    infos = tile.infer({unknown(ElementType::f32, {kDynamic, 3}), known(i64s({2, 2}))});
    EXPECT_EQ(infos[0].shape, PartialShape({kDynamic, 6}));
}

TEST(Tile, Errors) {
    const OpTester tile("Tile", 1);
    EXPECT_TRUE(throws_error([&] { tile.run1({iota(ElementType::f32, {2}), i64s({-1})}); }, ErrorKind::Value,
                             "value-out-of-range", "repeats[0] = -1 is negative", 1));
    EXPECT_TRUE(throws_error([&] { tile.run1({iota(ElementType::f32, {2}), make_tensor<int64_t>({1, 1}, {2})}); },
                             ErrorKind::ShapeRule, "rank-invalid", "repeats must be 1-D", 1));
}

}  // namespace
}  // namespace irlite
