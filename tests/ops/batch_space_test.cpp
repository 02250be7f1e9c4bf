// BatchToSpace-2 and SpaceToBatch-2: OpenVINO's reference vectors, the spec's examples, a literal
// reference (the spec's reshape / transpose / crop or pad steps) over ranks 2..5, round trips, every
// element type and index type, the shape rule with unknown values, the errors, and a model run
// with a dynamic batch on several threads.
#include "irlite/irlite.hpp"
#include "ir_builder.hpp"
#include "op_tester.hpp"

namespace irlite {
namespace {

using namespace irlite::testing;

struct Case {
    const char* name;
    Shape data;
    std::vector<int64_t> block, begin, end;
};

// ---- a literal reference, by the spec's steps --------------------------------------------------

struct Nd {
    Shape shape;
    std::vector<double> v;
};

Nd transpose(const Nd& x, const std::vector<size_t>& perm) {
    Shape out_shape;
    for (size_t p : perm) out_shape.push_back(x.shape[p]);
    const std::vector<int64_t> in_strides = row_major_strides(x.shape);
    Nd y{out_shape, std::vector<double>(x.v.size())};
    std::vector<int64_t> coord(perm.size(), 0);
    for (size_t i = 0; i < y.v.size(); ++i) {
        int64_t src = 0;
        for (size_t d = 0; d < perm.size(); ++d) src += coord[d] * in_strides[perm[d]];
        y.v[i] = x.v[static_cast<size_t>(src)];
        for (size_t d = perm.size(); d-- > 0;) {
            if (++coord[d] < out_shape[d]) break;
            coord[d] = 0;
        }
    }
    return y;
}

// y[c] = x[c + offset] where inside x, else 0 (offset may be negative: padding).
Nd window(const Nd& x, const Shape& out_shape, const std::vector<int64_t>& offset) {
    const std::vector<int64_t> strides = row_major_strides(x.shape);
    Nd y{out_shape, std::vector<double>(static_cast<size_t>(checked_num_elements(out_shape)), 0.0)};
    std::vector<int64_t> coord(out_shape.size(), 0);
    for (size_t i = 0; i < y.v.size(); ++i) {
        int64_t src = 0;
        bool inside = true;
        for (size_t d = 0; d < coord.size(); ++d) {
            const int64_t c = coord[d] + offset[d];
            inside = inside && c >= 0 && c < x.shape[d];
            src += c * strides[d];
        }
        if (inside) y.v[i] = x.v[static_cast<size_t>(src)];
        for (size_t d = coord.size(); d-- > 0;) {
            if (++coord[d] < out_shape[d]) break;
            coord[d] = 0;
        }
    }
    return y;
}

Nd batch_to_space_reference(const Nd& x, const Case& c) {
    const size_t k = x.shape.size() - 1;
    int64_t product = 1;
    for (size_t i = 1; i <= k; ++i) product *= c.block[i];
    // 1. [B1, ..., Bk, batch / prod, D1, ..., Dk]
    Nd r{{}, x.v};
    for (size_t i = 1; i <= k; ++i) r.shape.push_back(c.block[i]);
    r.shape.push_back(x.shape[0] / product);
    for (size_t i = 1; i <= k; ++i) r.shape.push_back(x.shape[i]);
    // 2. [batch / prod, D1, B1, ..., Dk, Bk]
    std::vector<size_t> perm{k};
    for (size_t i = 0; i < k; ++i) {
        perm.push_back(k + 1 + i);
        perm.push_back(i);
    }
    Nd t = transpose(r, perm);
    // 3. [batch / prod, D1 * B1, ...], 4. crop.
    Shape merged{t.shape[0]}, out{t.shape[0]};
    std::vector<int64_t> offset{0};
    for (size_t i = 1; i <= k; ++i) {
        merged.push_back(x.shape[i] * c.block[i]);
        out.push_back(merged.back() - c.begin[i] - c.end[i]);
        offset.push_back(c.begin[i]);
    }
    t.shape = merged;
    return window(t, out, offset);
}

Nd space_to_batch_reference(const Nd& x, const Case& c) {
    const size_t k = x.shape.size() - 1;
    // Zero-pad, then [batch, D1' , B1, ..., Dk', Bk] -> [B1, ..., Bk, batch, D1', ..., Dk'].
    Shape padded{x.shape[0]};
    std::vector<int64_t> offset{0};
    for (size_t i = 1; i <= k; ++i) {
        padded.push_back(x.shape[i] + c.begin[i] + c.end[i]);
        offset.push_back(-c.begin[i]);
    }
    Nd p = window(x, padded, offset);
    p.shape = {x.shape[0]};
    for (size_t i = 1; i <= k; ++i) {
        p.shape.push_back(padded[i] / c.block[i]);
        p.shape.push_back(c.block[i]);
    }
    std::vector<size_t> perm;
    for (size_t i = 0; i < k; ++i) perm.push_back(2 + 2 * i);
    perm.push_back(0);
    for (size_t i = 0; i < k; ++i) perm.push_back(1 + 2 * i);
    Nd t = transpose(p, perm);
    Shape out{x.shape[0]};
    for (size_t i = 1; i <= k; ++i) {
        out[0] *= c.block[i];
        out.push_back(padded[i] / c.block[i]);
    }
    t.shape = out;
    return t;
}

Tensor run(const char* type, const Tensor& x, const Case& c, ElementType index_type = ElementType::i64) {
    const auto idx = [&](const std::vector<int64_t>& v) {
        std::vector<double> d(v.begin(), v.end());
        return make_tensor(index_type, {static_cast<int64_t>(v.size())}, d);
    };
    return OpTester(type, 2).run1({x, idx(c.block), idx(c.begin), idx(c.end)}, {1, 2, 3});
}

// ---- values ------------------------------------------------------------------------------------

TEST(BatchToSpace, OpenVinoReferenceVectors) {
    const Tensor x = make_tensor<float>({4, 1, 2, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
                                                       13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24});
    Tensor out = run("BatchToSpace", make_tensor<float>({4, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}),
                     {"4x3", {}, {1, 2}, {0, 0}, {0, 0}});
    EXPECT_EQ(out.shape(), (Shape{2, 6}));
    EXPECT_EQ(values_of<float>(out), (std::vector<float>{1, 7, 2, 8, 3, 9, 4, 10, 5, 11, 6, 12}));
    out = run("BatchToSpace", x, {"crop_end", {}, {1, 1, 2, 2}, {0, 0, 0, 0}, {0, 0, 0, 2}});
    EXPECT_EQ(out.shape(), (Shape{1, 1, 4, 4}));
    EXPECT_EQ(values_of<float>(out), (std::vector<float>{1, 7, 2, 8, 13, 19, 14, 20, 4, 10, 5, 11, 16, 22, 17, 23}));
    out = run("BatchToSpace", x, {"crop_both", {}, {1, 1, 2, 2}, {0, 0, 1, 0}, {0, 0, 1, 0}});
    EXPECT_EQ(out.shape(), (Shape{1, 1, 2, 6}));
    EXPECT_EQ(values_of<float>(out), (std::vector<float>{13, 19, 14, 20, 15, 21, 4, 10, 5, 11, 6, 12}));
}

TEST(BatchToSpace, SpecExampleShapes) {
    EXPECT_EQ(run("BatchToSpace", iota(ElementType::f32, {10, 2}), {"2d", {}, {1, 5}, {0, 2}, {0, 0}}).shape(),
              (Shape{2, 8}));
    EXPECT_EQ(run("BatchToSpace", iota(ElementType::f32, {48, 3, 3, 1, 3}),
                  {"5d", {}, {1, 2, 4, 3, 1}, {0, 0, 1, 0, 0}, {0, 0, 1, 0, 0}})
                  .shape(),
              (Shape{2, 6, 10, 3, 3}));
    EXPECT_EQ(run("SpaceToBatch", iota(ElementType::f32, {2, 6, 10, 3, 3}),
                  {"5d", {}, {1, 2, 4, 3, 1}, {0, 0, 1, 0, 0}, {0, 0, 1, 0, 0}})
                  .shape(),
              (Shape{48, 3, 3, 1, 3}));
}

const std::vector<Case> kB2SCases = {
    {"rank2", {6, 3}, {1, 3}, {0, 1}, {0, 2}},
    {"rank3_no_crop", {8, 2, 3}, {1, 2, 4}, {0, 0, 0}, {0, 0, 0}},
    {"rank4_crops", {12, 2, 3, 2}, {1, 2, 3, 2}, {0, 1, 2, 0}, {0, 0, 1, 3}},
    {"rank4_last_block_1", {6, 3, 4, 5}, {1, 3, 2, 1}, {0, 1, 1, 1}, {0, 1, 0, 2}},
    {"rank5", {48, 3, 3, 1, 3}, {1, 2, 4, 3, 1}, {0, 0, 1, 0, 0}, {0, 0, 1, 0, 0}},
    {"crop_everything", {4, 2, 2}, {1, 2, 2}, {0, 4, 0}, {0, 0, 1}},
    {"batch_left_over", {12, 2, 2}, {1, 2, 2}, {0, 1, 1}, {0, 1, 0}},
};

const std::vector<Case> kS2BCases = {
    {"rank2", {2, 4}, {1, 3}, {0, 1}, {0, 1}},
    {"rank3_no_pad", {2, 4, 6}, {1, 2, 3}, {0, 0, 0}, {0, 0, 0}},
    {"rank4_pads", {3, 3, 4, 5}, {1, 2, 3, 2}, {0, 1, 2, 0}, {0, 0, 0, 1}},
    {"rank4_last_block_1", {2, 3, 4, 5}, {1, 3, 2, 1}, {0, 1, 1, 2}, {0, 2, 1, 3}},
    {"rank5", {2, 6, 10, 3, 3}, {1, 2, 4, 3, 1}, {0, 0, 1, 0, 0}, {0, 0, 1, 0, 0}},
    {"pads_larger_than_dim", {1, 1, 2}, {1, 2, 2}, {0, 3, 1}, {0, 2, 1}},
    {"empty_spatial", {2, 0, 3}, {1, 2, 3}, {0, 0, 0}, {0, 0, 0}},
};

TEST(BatchToSpace, MatchesTheSpecStepsInEveryRank) {
    for (const Case& c : kB2SCases) {
        const Tensor x = iota(ElementType::f32, c.data, 100000);
        const Nd want = batch_to_space_reference({c.data, to_doubles(x)}, c);
        const Tensor out = run("BatchToSpace", x, c);
        EXPECT_EQ(out.shape(), want.shape) << c.name;
        EXPECT_EQ(to_doubles(out), want.v) << c.name;
    }
}

TEST(SpaceToBatch, MatchesTheSpecStepsInEveryRank) {
    for (const Case& c : kS2BCases) {
        const Tensor x = iota(ElementType::f32, c.data, 100000);
        const Nd want = space_to_batch_reference({c.data, to_doubles(x)}, c);
        const Tensor out = run("SpaceToBatch", x, c);
        EXPECT_EQ(out.shape(), want.shape) << c.name;
        EXPECT_EQ(to_doubles(out), want.v) << c.name;
    }
}

TEST(SpaceToBatch, PadsWithZerosAndBatchToSpaceUndoesIt) {
    // [1, 2] padded to [0, 1, 2, 0] -> batches of even and odd positions.
    const Tensor x = make_tensor<int32_t>({1, 2}, {1, 2});
    const Case c{"pad", {1, 2}, {1, 2}, {0, 1}, {0, 1}};
    const Tensor space = run("SpaceToBatch", x, c);
    EXPECT_EQ(space.shape(), (Shape{2, 2}));
    EXPECT_EQ(values_of<int32_t>(space), (std::vector<int32_t>{0, 2, 1, 0}));
    EXPECT_TRUE(tensors_equal(run("BatchToSpace", space, c), x));
}

TEST(BatchSpace, RoundTripsInEveryElementType) {
    const std::vector<Case> cases = {{"a", {2, 3, 5}, {1, 2, 3}, {0, 1, 2}, {0, 0, 2}},
                                     {"b", {1, 4, 2, 3}, {1, 2, 1, 3}, {0, 0, 1, 0}, {0, 2, 1, 0}}};
    for (ElementType t : {ElementType::boolean, ElementType::u8, ElementType::i8, ElementType::f16, ElementType::bf16,
                          ElementType::i16, ElementType::u16, ElementType::f32, ElementType::i32, ElementType::u32,
                          ElementType::f64, ElementType::i64, ElementType::u64})
        for (const Case& c : cases) {
            const Tensor x = iota(t, c.data, 97);
            const Tensor space = run("SpaceToBatch", x, c);
            const Nd want = space_to_batch_reference({c.data, to_doubles(x)}, c);
            EXPECT_EQ(to_doubles(space), want.v) << to_string(t) << " " << c.name;
            EXPECT_EQ(space.type(), t);
            EXPECT_TRUE(tensors_equal(run("BatchToSpace", space, c), x)) << to_string(t) << " " << c.name;
        }
}

TEST(BatchSpace, TakesEveryIntegerIndexType) {
    const Case c{"c", {4, 2, 3}, {1, 2, 2}, {0, 1, 0}, {0, 0, 1}};
    const Tensor x = iota(ElementType::f32, c.data);
    const Tensor want = run("BatchToSpace", x, c);
    for (ElementType t : {ElementType::i8, ElementType::i16, ElementType::i32, ElementType::u8, ElementType::u16,
                          ElementType::u32, ElementType::u64})
        EXPECT_TRUE(tensors_equal(run("BatchToSpace", x, c, t), want)) << to_string(t);
    const Case s{"s", {1, 3, 3}, {1, 2, 2}, {0, 1, 0}, {0, 0, 1}};
    const Tensor y = iota(ElementType::f32, s.data);
    EXPECT_TRUE(tensors_equal(run("SpaceToBatch", y, s, ElementType::i32), run("SpaceToBatch", y, s)));
}

TEST(BatchSpace, PlansGatherRuns) {
    // A last block of 1 reads consecutive elements: one memcpy run per row (and padding runs).
    const Tensor x = iota(ElementType::f32, {2, 3, 8});
    const auto plan = OpTester("SpaceToBatch", 2).plan({x, i64s({1, 3, 1}), i64s({0, 0, 2}), i64s({0, 0, 1})});
    ASSERT_NE(plan, nullptr);
    EXPECT_STREQ(plan->method, "gather-runs");
}

// ---- the shape rule ----------------------------------------------------------------------------

TEST(BatchSpace, UnknownValuesGiveDynamicDims) {
    for (const char* type : {"BatchToSpace", "SpaceToBatch"}) {
        const OpTester op(type, 2);
        auto infos = op.infer({unknown(ElementType::f32, PartialShape({4, 2, 3})), unknown(i64s({1, 2, 2})),
                               unknown(i64s({0, 0, 0})), unknown(i64s({0, 0, 0}))});
        EXPECT_EQ(infos[0].shape, PartialShape::all_dynamic(3)) << type;
        EXPECT_EQ(infos[0].type, ElementType::f32);
        // data of unknown rank: the rank comes from the values' count.
        infos = op.infer({unknown(ElementType::u8, PartialShape::dynamic_rank()), unknown(i64s({1, 2, 2})),
                          unknown(ElementType::i64, PartialShape({kDynamic})), unknown(i64s({0, 0, 0}))});
        EXPECT_EQ(infos[0].shape, PartialShape::all_dynamic(3)) << type;
        infos = op.infer({unknown(ElementType::u8, PartialShape::dynamic_rank()),
                          unknown(ElementType::i32, PartialShape({kDynamic})),
                          unknown(ElementType::i32, PartialShape({kDynamic})),
                          unknown(ElementType::i32, PartialShape::dynamic_rank())});
        EXPECT_EQ(infos[0].shape, PartialShape::dynamic_rank()) << type;
    }
    // Known values with dynamic dims: the known dims are computed, the others stay dynamic.
    auto infos = OpTester("BatchToSpace", 2)
                     .infer({unknown(ElementType::f32, PartialShape({8, kDynamic, 3})), known(i64s({1, 2, 2})),
                             known(i64s({0, 1, 0})), known(i64s({0, 0, 1}))});
    EXPECT_EQ(infos[0].shape, PartialShape({2, kDynamic, 5}));
    infos = OpTester("SpaceToBatch", 2)
                .infer({unknown(ElementType::f32, PartialShape({kDynamic, 3, kDynamic})), known(i64s({1, 2, 2})),
                        known(i64s({0, 1, 0})), known(i64s({0, 0, 1}))});
    EXPECT_EQ(infos[0].shape, PartialShape({kDynamic, 2, kDynamic}));
}

// ---- errors ------------------------------------------------------------------------------------

TEST(BatchSpace, Errors) {
    const auto b2s = [](Shape data, std::vector<int64_t> block, std::vector<int64_t> begin, std::vector<int64_t> end) {
        return [=] { run("BatchToSpace", iota(ElementType::f32, data), {"e", data, block, begin, end}); };
    };
    const auto s2b = [](Shape data, std::vector<int64_t> block, std::vector<int64_t> begin, std::vector<int64_t> end) {
        return [=] { run("SpaceToBatch", iota(ElementType::f32, data), {"e", data, block, begin, end}); };
    };
    EXPECT_TRUE(throws_error(b2s({4, 3}, {1, 0}, {0, 0}, {0, 0}), ErrorKind::Value, "value-out-of-range",
                             "block_shape[1] = 0: block_shape values must be >= 1", 1));
    EXPECT_TRUE(throws_error(b2s({4, 3}, {2, 2}, {0, 0}, {0, 0}), ErrorKind::Value, "value-out-of-range",
                             "block_shape[0] = 2: the batch dim's block must be 1", 1));
    EXPECT_TRUE(throws_error(b2s({4, 3}, {1, 2}, {0, -1}, {0, 0}), ErrorKind::Value, "value-out-of-range",
                             "crops_begin[1] = -1", 2));
    EXPECT_TRUE(throws_error(b2s({4, 3}, {1, 2}, {0, 0}, {1, 0}), ErrorKind::Value, "value-out-of-range",
                             "crops_end[0] = 1: the batch dim's value must be 0", 3));
    EXPECT_TRUE(throws_error(b2s({6, 3}, {1, 4}, {0, 0}, {0, 0}), ErrorKind::ShapeRule, "shape-invalid",
                             "batch 6 is not divisible by the product of block_shape 4", 0));
    EXPECT_TRUE(throws_error(b2s({4, 3}, {1, 2}, {0, 4}, {0, 3}), ErrorKind::ShapeRule, "shape-invalid",
                             "crops_begin[1] + crops_end[1] = 4 + 3 = 7 is larger than data dim 3 x block_shape[1] 2 = 6", 3));
    EXPECT_TRUE(throws_error(b2s({4, 3}, {1, 2, 1}, {0, 0, 0}, {0, 0, 0}), ErrorKind::ShapeRule, "length-mismatch",
                             "block_shape has 3 values but data [4,3] has rank 2", 1));
    EXPECT_TRUE(throws_error(b2s({4}, {1}, {0}, {0}), ErrorKind::ShapeRule, "rank-invalid", "rank >= 2", 0));
    EXPECT_TRUE(throws_error(s2b({1, 3}, {1, 2}, {0, 0}, {0, 0}), ErrorKind::ShapeRule, "shape-invalid",
                             "dim 1: padded size 3 + 0 + 0 = 3 is not divisible by block_shape[1] = 2", 1));
    EXPECT_TRUE(throws_error(s2b({1, 3}, {1, 3}, {0, 0}, {0, -3}), ErrorKind::Value, "value-out-of-range",
                             "pads_end[1] = -3: pads_end values must be >= 0", 3));
    EXPECT_TRUE(throws_error(s2b({1, 3}, {1, 3}, {1, 0}, {0, 0}), ErrorKind::Value, "value-out-of-range",
                             "pads_begin[0] = 1", 2));
    // Index inputs: integer, one type, 1-D, one length.
    const OpTester op("SpaceToBatch", 2);
    const RuleInput data = unknown(ElementType::f32, PartialShape({2, 4}));
    EXPECT_TRUE(throws_error([&] { op.infer({data, unknown(i64s({1, 2})), unknown(i32s({0, 0})), unknown(i64s({0, 0}))}); },
                             ErrorKind::Type, "element-type-mismatch", "pads_begin is i32, block_shape i64", 2));
    EXPECT_TRUE(throws_error(
        [&] {
            op.infer({data, unknown(ElementType::f32, PartialShape({2})), unknown(ElementType::f32, PartialShape({2})),
                      unknown(ElementType::f32, PartialShape({2}))});
        },
        ErrorKind::Type, "index-type", "block_shape must be an integer tensor", 1));
    EXPECT_TRUE(throws_error([&] { op.infer({data, unknown(i64s({1, 2})), unknown(ElementType::i64, PartialShape({1, 2})), unknown(i64s({0, 0}))}); },
                             ErrorKind::ShapeRule, "rank-invalid", "pads_begin must be 1-D", 2));
    EXPECT_TRUE(throws_error([&] { op.infer({data, unknown(i64s({1, 2, 1})), unknown(i64s({0, 0, 0})), unknown(i64s({0, 0, 0}))}); },
                             ErrorKind::ShapeRule, "length-mismatch", "block_shape has 3 values but data [2,4] has rank 2", 1));
    EXPECT_TRUE(throws_error([&] { op.infer({data, unknown(i64s({1, 2})), unknown(i64s({0, 0, 0})), unknown(i64s({0, 0}))}); },
                             ErrorKind::ShapeRule, "shape-mismatch", "pads_begin has 3 values, an earlier one 2", 2));
    EXPECT_TRUE(throws_error(
        [&] {
            op.infer({unknown(ElementType::f32, PartialShape::dynamic_rank()), unknown(i64s({1, 2})), unknown(i64s({0, 0, 0})),
                      unknown(i64s({0, 0}))});
        },
        ErrorKind::ShapeRule, "shape-mismatch", "must have the same length", 2));
}

// ---- in a model --------------------------------------------------------------------------------

// x [?, 3, 8] -> SpaceToBatch(block [1, 1, 4], pads [0, 0, 2] / [0, 0, 2]) -> BatchToSpace(same,
// crops = pads) -> y: the identity, with the SpaceToBatch output's batch known only at run time.
IrBuilder round_trip_model() {
    IrBuilder b;
    const int64_t block[3] = {1, 1, 4}, pads[3] = {0, 0, 2};
    b.parameter(0, "x", "f32", {-1, 3, 8});
    b.constant(1, "block", "i64", {3}, block, sizeof block);
    b.constant(2, "pads", "i64", {3}, pads, sizeof pads);
    b.layer(3, "s2b", "SpaceToBatch", "opset2", "",
            {{0, "", {-1, 3, 8}, ""}, {1, "", {3}, ""}, {2, "", {3}, ""}, {3, "", {3}, ""}}, {{4, "FP32", {-1, 3, 3}, ""}});
    b.layer(4, "b2s", "BatchToSpace", "opset2", "",
            {{0, "", {-1, 3, 3}, ""}, {1, "", {3}, ""}, {2, "", {3}, ""}, {3, "", {3}, ""}}, {{4, "FP32", {-1, 3, 8}, "y"}});
    b.result(5, "y/sink_port_0", "f32", {-1, 3, 8});
    b.edge(0, 0, 3, 0).edge(1, 0, 3, 1).edge(2, 0, 3, 2).edge(2, 0, 3, 3);
    b.edge(3, 4, 4, 0).edge(1, 0, 4, 1).edge(2, 0, 4, 2).edge(2, 0, 4, 3).edge(4, 4, 5, 0);
    return b;
}

TEST(BatchSpace, RunsInAModelWithADynamicBatchOnThreads) {
    const IrBuilder b = round_trip_model();
    CompileOptions options;
    options.threads = 3;
    const CompiledModel model(Model::read_from_memory(b.xml(), b.weights().data(), b.weights().size()), options);
    InferRequest req = model.create_infer_request();
    for (int64_t batch : {1, 6000}) {  // 6000 x 3 x 12 x 4 bytes padded: several chunks of rows
        std::vector<float> x(static_cast<size_t>(batch * 24));
        for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
        req.set_input("x", Tensor::wrap(ElementType::f32, {batch, 3, 8}, x.data()));
        req.infer();
        const Tensor& y = req.output(0);
        ASSERT_EQ(y.shape(), (Shape{batch, 3, 8}));
        EXPECT_EQ(std::vector<float>(y.data<float>(), y.data<float>() + y.num_elements()), x) << batch;
    }
}

}  // namespace
}  // namespace irlite
