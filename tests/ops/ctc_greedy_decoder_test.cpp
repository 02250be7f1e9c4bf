// CTCGreedyDecoder-1: best path, blanks, merging repeats, sequence masks, types and errors.
#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

// Logits [T, N, C] that make class `path[n][t]` the best at each step.
Tensor logits_for(ElementType type, const std::vector<std::vector<int>>& path, int64_t classes) {
    const auto batch = static_cast<int64_t>(path.size()), steps = static_cast<int64_t>(path[0].size());
    std::vector<double> v(static_cast<size_t>(steps * batch * classes), 0.0);
    for (int64_t t = 0; t < steps; ++t)
        for (int64_t n = 0; n < batch; ++n)
            for (int64_t c = 0; c < classes; ++c)
                v[static_cast<size_t>((t * batch + n) * classes + c)] = c == path[n][t] ? 0.9 : 0.1 / (1.0 + c);
    return make_tensor(type, {steps, batch, classes}, v);
}

Tensor mask_for(ElementType type, int64_t steps, const std::vector<int64_t>& lengths) {
    const auto batch = static_cast<int64_t>(lengths.size());
    std::vector<double> v(static_cast<size_t>(steps * batch));
    for (int64_t t = 0; t < steps; ++t)
        for (int64_t n = 0; n < batch; ++n) v[static_cast<size_t>(t * batch + n)] = t < lengths[n] ? 1.0 : 0.0;
    return make_tensor(type, {steps, batch}, v);
}

TEST(CtcGreedyDecoder, MergesRepeatsAndDropsBlanks) {
    // C = 4: class 3 is the blank.
    const std::vector<std::vector<int>> path = {{0, 0, 3, 0, 1, 1, 2, 3}, {2, 2, 2, 3, 3, 1, 0, 0}};
    const OpTester merge("CTCGreedyDecoder", 1, {{"ctc_merge_repeated", "true"}});
    const Tensor out = merge.run1({logits_for(ElementType::f32, path, 4), mask_for(ElementType::f32, 8, {8, 6})});
    ASSERT_EQ(out.shape(), (Shape{2, 8, 1, 1}));
    EXPECT_EQ(values_of<float>(out), (std::vector<float>{0, 0, 1, 2, -1, -1, -1, -1,  //
                                                         2, 1, -1, -1, -1, -1, -1, -1}));
    const OpTester keep("CTCGreedyDecoder", 1, {{"ctc_merge_repeated", "false"}});
    const Tensor all = keep.run1({logits_for(ElementType::f32, path, 4), mask_for(ElementType::f32, 8, {8, 6})});
    EXPECT_EQ(values_of<float>(all), (std::vector<float>{0, 0, 0, 1, 1, 2, -1, -1,  //
                                                         2, 2, 2, 1, -1, -1, -1, -1}));
    // The default merges.
    EXPECT_TRUE(tensors_equal(OpTester("CTCGreedyDecoder", 1).run1({logits_for(ElementType::f32, path, 4),
                                                                   mask_for(ElementType::f32, 8, {8, 6})}),
                              out));
}

TEST(CtcGreedyDecoder, TiesTakeTheLowestClassAndEveryFloatType) {
    for (ElementType t : {ElementType::f16, ElementType::bf16, ElementType::f32, ElementType::f64}) {
        const Tensor equal = make_tensor(t, {1, 1, 3}, {0.5, 0.5, 0.2});
        const Tensor out = OpTester("CTCGreedyDecoder", 1).run1({equal, make_tensor(t, {1, 1}, {1})});
        EXPECT_EQ(out.type(), t);
        EXPECT_EQ(to_doubles(out), (std::vector<double>{0})) << to_string(t);
    }
}

TEST(CtcGreedyDecoder, Errors) {
    const OpTester op("CTCGreedyDecoder", 1);
    const auto f32 = [](PartialShape s) { return unknown(ElementType::f32, std::move(s)); };
    EXPECT_TRUE(throws_error([&] { op.infer({f32({4, 2, 5}), f32({4, 3})}); }, ErrorKind::ShapeRule, "shape-mismatch",
                             "does not match data [T=4, N=2]", 1));
    EXPECT_TRUE(throws_error([&] { op.infer({f32({4, 2}), f32({4, 2})}); }, ErrorKind::ShapeRule, "rank-invalid", "3-D", 0));
    EXPECT_TRUE(throws_error([&] { op.infer({unknown(ElementType::i32, PartialShape({4, 2, 5})), f32({4, 2})}); },
                             ErrorKind::Type, "element-type-unsupported", "floating-point", 0));
    // Dynamic dims come from either input.
    const auto infos = op.infer({f32(PartialShape({-1, 2, 5})), f32(PartialShape({7, -1}))});
    EXPECT_EQ(infos[0].shape, PartialShape({2, 7, 1, 1}));
}

TEST(CtcGreedyDecoderSeqLen, LengthsBlankAndTypes) {
    // data [N=2, T=5, C=3]: paths (batch first).
    const std::vector<std::vector<int>> path = {{0, 0, 2, 1, 1}, {1, 2, 1, 0, 0}};
    std::vector<double> v;
    for (const auto& p : path)
        for (int c : p)
            for (int k = 0; k < 3; ++k) v.push_back(k == c ? 1.0 : 0.0);
    const Tensor data = make_tensor(ElementType::f32, {2, 5, 3}, v);
    const auto out = OpTester("CTCGreedyDecoderSeqLen", 6).run({data, make_tensor<int32_t>({2}, {5, 3})});
    // blank = C-1 = 2; merge: batch 0 -> 0 1; batch 1 (3 steps) -> 1 1.
    EXPECT_EQ(values_of<int32_t>(out[0]), (std::vector<int32_t>{0, 1, -1, -1, -1, 1, 1, -1, -1, -1}));
    EXPECT_EQ(values_of<int32_t>(out[1]), (std::vector<int32_t>{2, 2}));
    const auto blank0 = OpTester("CTCGreedyDecoderSeqLen", 6, {{"merge_repeated", "false"}, {"classes_index_type", "i64"},
                                                              {"sequence_length_type", "i64"}})
                            .run({data, make_tensor<int64_t>({2}, {5, 0}), scalar<int64_t>(0)});
    EXPECT_EQ(values_of<int64_t>(blank0[0]), (std::vector<int64_t>{2, 1, 1, -1, -1, -1, -1, -1, -1, -1}));
    EXPECT_EQ(values_of<int64_t>(blank0[1]), (std::vector<int64_t>{3, 0}));
    EXPECT_TRUE(throws_error([&] { OpTester("CTCGreedyDecoderSeqLen", 6).run({data, make_tensor<int32_t>({3}, {1, 1, 1})}); },
                             ErrorKind::ShapeRule, "shape-mismatch", "sequence_length has 3 entries, batch is 2", 1));
    EXPECT_TRUE(throws_error([&] { OpTester("CTCGreedyDecoderSeqLen", 6).run({data, make_tensor<int32_t>({2}, {6, 1})}); },
                             ErrorKind::Value, "index-out-of-range", "not in [0, 5]", 1));
}

}  // namespace
}  // namespace irlite
