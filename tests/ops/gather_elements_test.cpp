// GatherElements-6: OpenVINO's op_reference vectors and spec examples, negative indices (irlite
// accepts [-d, d-1], as ONNX does), a dtype sweep over 1/2/4/8-byte types, shape rules with
// partial shapes, and error rows; then the kernel's traversals (last axis, staged and direct
// column blocks) under each instruction set this CPU has, against a plain reference, with and
// without a thread pool.
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <iterator>
#include <memory>
#include <random>

#include "engine/thread_pool.hpp"
#include "kernels/detail/cpu_isa.hpp"
#include "op_tester.hpp"

namespace irlite {
namespace detail {
// Plans prepared from now on use instruction-set level `isa` (0 sse, 1 AVX2, 2 AVX-512; -1 the
// CPU's best, or IRLITE_ISA's cap); false when this CPU lacks it.
bool set_gather_elements_isa_for_testing(int isa) {
    if (isa < 0) {
        cpu::reset_isa_cap_for_testing();
        return true;
    }
    const auto level = static_cast<cpu::Isa>(isa);
    if (!cpu::isa_supported(level)) return false;
    cpu::set_isa_cap_for_testing(level);
    return true;
}
}  // namespace detail

namespace {

using namespace irlite::testing;

struct GatherRow {
    const char* name;
    int64_t axis;
    ElementType type;
    Shape data_shape;
    std::vector<double> data;
    Shape indices_shape;  // = output shape
    std::vector<int64_t> indices;
    std::vector<double> out;
};

// From ../shared/conformance/ov_vectors.json, then irlite's own rows.
// clang-format off
const GatherRow kRows[] = {
    {"1D_3_indices_int32", 0, ElementType::f32, {3}, {1, 2, 3}, {7}, {1, 2, 0, 2, 0, 0, 2}, {2, 3, 1, 3, 1, 1, 3}},
    {"2D_2x2_indices_int32_axis_0", 0, ElementType::f32, {2, 2}, {1, 2, 3, 4}, {2, 2}, {0, 1, 0, 0}, {1, 4, 1, 2}},
    {"2D_2x2_indices_int32_axis_1", 1, ElementType::f32, {2, 2}, {1, 2, 3, 4}, {2, 2}, {0, 1, 0, 0}, {1, 2, 3, 3}},
    {"2D_2x2_indices_int32_axis_minus_1", -1, ElementType::f32, {2, 2}, {1, 2, 3, 4}, {2, 2}, {0, 1, 0, 0},
     {1, 2, 3, 3}},
    {"2D_2x3_indices_int32", 0, ElementType::f32, {3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}, {2, 3}, {1, 2, 0, 2, 0, 0},
     {4, 8, 3, 7, 2, 3}},
    {"3D_3x2x2_indices_int32", -1, ElementType::f32, {3, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, {3, 2, 2},
     {1, 0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 1}, {2, 1, 3, 4, 6, 6, 8, 7, 9, 9, 12, 12}},
    {"4D_3x2x2x2", -1, ElementType::f32, {3, 2, 2, 2},
     {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24}, {3, 2, 2, 4},
     {1, 0, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0, 1, 0, 1, 0, 1, 1, 1, 1, 1,
      0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 0},
     {2, 1, 1, 1, 3, 4, 4, 3, 6, 6, 6, 6, 8, 7, 7, 8, 9, 9, 9, 10, 12, 12, 12, 11, 13, 13, 13, 13, 16, 15, 16, 15, 18,
      18, 18, 18, 20, 19, 20, 19, 22, 21, 21, 22, 23, 23, 23, 23}},
    {"2D_2x2x1_data_float32", 0, ElementType::f32, {2, 2, 1}, {5, 4, 1, 4}, {4, 2, 1}, {0, 0, 1, 1, 1, 1, 0, 1},
     {5, 4, 1, 4, 1, 4, 5, 4}},
    {"2D_3x2_data_bool", 0, ElementType::boolean, {3, 2}, {1, 0, 1, 1, 0, 0}, {2, 2}, {0, 1, 0, 2}, {1, 1, 1, 0}},
    {"example2", 1, ElementType::f32, {2, 2}, {1, 7, 4, 3}, {2, 3}, {1, 1, 0, 1, 0, 1}, {7, 7, 1, 3, 4, 3}},
    {"example3", 0, ElementType::f32, {3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}, {2, 3}, {1, 0, 1, 1, 2, 0},
     {4, 2, 6, 4, 8, 3}},
    {"negative_indices", 1, ElementType::f32, {2, 3}, {1, 2, 3, 4, 5, 6}, {2, 4}, {-1, -3, 0, 2, -2, 1, -1, -3},
     {3, 1, 1, 3, 5, 5, 6, 4}},
    {"larger_axis_dim", 0, ElementType::f32, {2, 2}, {1, 2, 3, 4}, {3, 2}, {1, 0, 0, 1, 1, 1}, {3, 2, 1, 4, 3, 4}},
    {"empty_axis_dim", 1, ElementType::f32, {2, 3}, {1, 2, 3, 4, 5, 6}, {2, 0}, {}, {}},
    {"middle_axis", 1, ElementType::f32, {2, 3, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, {2, 1, 2}, {2, 0, 1, -1},
     {4, 1, 8, 11}},
};
// clang-format on

std::vector<Tensor> inputs_of(const GatherRow& r, ElementType type, ElementType index_type) {
    std::vector<double> idx(r.indices.begin(), r.indices.end());
    return {make_tensor(type, r.data_shape, r.data), make_tensor(index_type, r.indices_shape, idx)};
}

OpTester tester(int64_t axis) { return OpTester("GatherElements", 6, {{"axis", std::to_string(axis)}}); }

class GatherElementsCompute : public ::testing::TestWithParam<GatherRow> {};

TEST_P(GatherElementsCompute, MatchesExpected) {
    const GatherRow& r = GetParam();
    for (ElementType index_type : {ElementType::i32, ElementType::i64}) {
        SCOPED_TRACE(to_string(index_type));
        const Tensor out = tester(r.axis).run1(inputs_of(r, r.type, index_type), {0, 1});
        EXPECT_TRUE(tensors_equal(out, make_tensor(r.type, r.indices_shape, r.out)));
    }
}

INSTANTIATE_TEST_SUITE_P(Rows, GatherElementsCompute, ::testing::ValuesIn(kRows),
                         [](const auto& row) { return std::string(row.param.name); });

TEST(GatherElements, DtypeSweep) {
    for (const GatherRow& r : {kRows[6], kRows[std::size(kRows) - 1]}) {
        for (int t = 0; t < kNumElementTypes; ++t) {
            const auto type = static_cast<ElementType>(t);
            SCOPED_TRACE(std::string(r.name) + " " + to_string(type));
            EXPECT_TRUE(tensors_equal(tester(r.axis).run1(inputs_of(r, type, ElementType::i64)),
                                      make_tensor(type, r.indices_shape, r.out)));
        }
    }
}

// ---- shape rule ------------------------------------------------------------------------------

struct RuleRow {
    const char* name;
    int64_t axis;
    PartialShape data, indices, out;
};

TEST(GatherElements, ShapeRule) {
    const RuleRow rows[] = {
        {"static", -2, {1, 2, 3, 4}, {1, 2, 10, 4}, {1, 2, 10, 4}},
        {"smaller_axis_dim", 0, {3, 3}, {2, 3}, {2, 3}},
        {"larger_axis_dim", 2, {300, 3, 10}, {300, 3, 10000}, {300, 3, 10000}},
        {"zero_axis_dim", 0, {3, 3}, {0, 3}, {0, 3}},
        {"dynamic_dims_merge", 0, {4, 4, kDynamic}, {1, kDynamic, 5}, {1, 4, 5}},
        {"dynamic_out_dim", 0, {4, 4, kDynamic}, {1, kDynamic, kDynamic}, {1, 4, kDynamic}},
        {"dynamic_axis_dim", 1, {4, kDynamic}, {4, 7}, {4, 7}},
        {"data_rank_dynamic", 0, PartialShape::dynamic_rank(), {4, 7, 5}, {4, 7, 5}},
        {"indices_rank_dynamic", 0, {4, kDynamic, 5}, PartialShape::dynamic_rank(), {kDynamic, kDynamic, 5}},
        {"indices_rank_dynamic_static_data", -3, {4, 7, 5}, PartialShape::dynamic_rank(), {kDynamic, 7, 5}},
        {"both_dynamic", 5, PartialShape::dynamic_rank(), PartialShape::dynamic_rank(), PartialShape::dynamic_rank()},
    };
    for (const RuleRow& r : rows) {
        SCOPED_TRACE(r.name);
        const std::vector<OutputInfo> out =
            tester(r.axis).infer({unknown(ElementType::u16, r.data), unknown(ElementType::i64, r.indices)});
        ASSERT_EQ(out.size(), 1u);
        EXPECT_EQ(out[0].type, ElementType::u16);
        EXPECT_EQ(out[0].shape, r.out) << to_string(out[0].shape);
    }
}

// ---- errors --------------------------------------------------------------------------------

TEST(GatherElements, ShapeRuleErrors) {
    struct Row {
        const char* name;
        int64_t axis;
        PartialShape data, indices;
        ElementType index_type;
        ErrorKind kind;
        const char* code;
        int port;
        const char* message;
    };
    const Row rows[] = {
        {"indices_u32",
         1,
         {3, 3},
         {2, 1},
         ElementType::u32,
         ErrorKind::Type,
         "index-type",
         1,
         "indices must be an integer tensor (i32 or i64), got u32"},
        {"indices_f32", 1, {3, 3}, {2, 1}, ElementType::f32, ErrorKind::Type, "index-type", 1, "got f32"},
        {"axis_out_of_range",
         -33,
         {3, 3},
         {2, 1},
         ElementType::i32,
         ErrorKind::Attribute,
         "axis-out-of-range",
         -1,
         "attribute 'axis' = -33: axis -33 out of the tensor rank range [-2, 1]"},
        {"axis_out_of_range_indices_rank",
         3,
         PartialShape::dynamic_rank(),
         {2, 1, 1},
         ElementType::i32,
         ErrorKind::Attribute,
         "axis-out-of-range",
         -1,
         "axis 3 out of the tensor rank range [-3, 2]"},
        {"rank_mismatch",
         0,
         {3, 3},
         {2, 3, 3333},
         ElementType::i32,
         ErrorKind::ShapeRule,
         "rank-mismatch",
         1,
         "indices has rank 3, data has rank 2; they must be equal"},
        {"non_axis_dim_smaller",
         1,
         {3, 3},
         {2, 1},
         ElementType::i32,
         ErrorKind::ShapeRule,
         "shape-mismatch",
         1,
         "indices shape [2,1] differs from data shape [3,3] in dim 0 (2 vs 3); only the axis dim (1) may differ"},
        {"non_axis_dim_larger",
         0,
         {4, 2, 4, kDynamic},
         {1, 3, kDynamic, 5},
         ElementType::i64,
         ErrorKind::ShapeRule,
         "shape-mismatch",
         1,
         "in dim 1 (3 vs 2)"},
        {"scalar_data",
         0,
         {},
         {1},
         ElementType::i32,
         ErrorKind::ShapeRule,
         "rank-invalid",
         0,
         "data must have rank >= 1"},
        {"scalar_indices",
         0,
         {3},
         {},
         ElementType::i32,
         ErrorKind::ShapeRule,
         "rank-invalid",
         1,
         "indices must have rank >= 1"},
    };
    for (const Row& r : rows) {
        SCOPED_TRACE(r.name);
        EXPECT_TRUE(throws_error(
            [&] {
                tester(r.axis).infer({unknown(ElementType::f32, r.data), unknown(r.index_type, r.indices)});
            },
            r.kind, r.code, r.message, r.port));
    }
    EXPECT_TRUE(throws_error([] { OpTester("GatherElements", 6).attrs(); }, ErrorKind::Attribute, "attribute-missing",
                             "required attribute 'axis' is missing"));
}

TEST(GatherElements, IndexErrors) {
    struct Row {
        const char* name;
        int64_t axis;
        Shape data_shape, indices_shape;
        std::vector<int64_t> indices;
        const char* message;
    };
    const Row rows[] = {
        {"past_the_end_1d",
         0,
         {3},
         {7},
         {1, 2, 0, 2, 0, 0, 8},
         "indices[6] = 8: value 8 not in [-3, 2] (data dim 0 has size 3)"},
        {"past_the_end_2d", 0, {3, 3}, {2, 3}, {1, 3, 0, 2, 0, 0}, "indices[0,1] = 3: value 3 not in [-3, 2]"},
        {"too_negative",
         1,
         {2, 2},
         {2, 2},
         {0, 1, -3, 0},
         "indices[1,0] = -3: value -3 not in [-2, 1] (data dim 1 has size 2)"},
        {"empty_data_axis", 0, {0, 2}, {1, 2}, {0, 0}, "indices[0,0] = 0: value 0 not in [0, -1]"},
        // The last-axis path: an empty row, and a bad index after good ones in one run.
        {"empty_last_axis", 1, {2, 0}, {2, 1}, {0, 0}, "indices[0,0] = 0: value 0 not in [0, -1]"},
        {"late_in_a_row", 1, {1, 40}, {1, 40}, [] {
             std::vector<int64_t> v(40, 3);
             v[37] = 40;
             return v;
         }(), "indices[0,37] = 40: value 40 not in [-40, 39]"},
    };
    for (const Row& r : rows) {
        SCOPED_TRACE(r.name);
        for (ElementType index_type : {ElementType::i32, ElementType::i64}) {
            std::vector<double> idx(r.indices.begin(), r.indices.end());
            const std::vector<Tensor> in = {iota(ElementType::i32, r.data_shape),
                                            make_tensor(index_type, r.indices_shape, idx)};
            // Const indices: the shape rule reports them at load time (what `irlite check` sees);
            // indices bound at run time: the kernel does, with the same words.
            EXPECT_TRUE(throws_error([&] { tester(r.axis).run(in); }, ErrorKind::Value, "index-out-of-range",
                                     std::string("input 1 'indices': ") + r.message, 1));
            EXPECT_TRUE(throws_error([&] { tester(r.axis).run_kernel(in, {1}); }, ErrorKind::Value,
                                     "index-out-of-range", std::string("input 1 'indices': ") + r.message, 1));
        }
    }
}

// ---- the kernel's traversals ---------------------------------------------------------------

const char* const kIsaNames[] = {"sse", "avx2", "avx512"};

struct IsaReset {
    ~IsaReset() { detail::set_gather_elements_isa_for_testing(-1); }
};

// Random bytes for data; indices uniform in [-dim, dim) (negatives included).
Tensor random_data(ElementType type, const Shape& shape, std::mt19937_64& rng) {
    Tensor t(type, shape);
    for (size_t i = 0; i < t.byte_size(); ++i) t.bytes()[i] = static_cast<std::byte>(rng() & 0xFF);
    return t;
}

Tensor random_indices(ElementType type, const Shape& shape, int64_t dim, std::mt19937_64& rng) {
    Tensor t(type, shape);
    for (int64_t i = 0; i < t.num_elements(); ++i) {
        const int64_t v = static_cast<int64_t>(rng() % static_cast<uint64_t>(2 * dim)) - dim;
        if (type == ElementType::i32) t.data<int32_t>()[i] = static_cast<int32_t>(v);
        else t.data<int64_t>()[i] = v;
    }
    return t;
}

int64_t index_at(const Tensor& indices, int64_t i) {
    return indices.type() == ElementType::i32 ? indices.data<int32_t>()[i] : indices.data<int64_t>()[i];
}

void set_index(Tensor& indices, int64_t i, int64_t v) {
    if (indices.type() == ElementType::i32) indices.data<int32_t>()[i] = static_cast<int32_t>(v);
    else indices.data<int64_t>()[i] = v;
}

// numpy's take_along_axis, one element at a time.
Tensor reference(const Tensor& data, const Tensor& indices, size_t axis) {
    const Shape& shape = indices.shape();
    int64_t inner = 1;
    for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
    const int64_t dim = data.shape()[axis], index_dim = shape[axis];
    const size_t n = element_size(data.type());
    Tensor out(data.type(), shape);
    for (int64_t p = 0; p < indices.num_elements(); ++p) {
        const int64_t i = p % inner, o = p / inner / index_dim;
        int64_t v = index_at(indices, p);
        if (v < 0) v += dim;
        std::memcpy(out.bytes() + p * static_cast<int64_t>(n),
                    data.bytes() + ((o * dim + v) * inner + i) * static_cast<int64_t>(n), n);
    }
    return out;
}

// The kernel as the executor runs it: a prepared plan, per-thread scratch, an optional pool.
Tensor run_kernel(int64_t axis, const std::vector<Tensor>& in, ThreadPool* pool,
                  std::unique_ptr<OpPlan>* plan_out = nullptr) {
    const OpTester t = tester(axis);
    const std::unique_ptr<OpAttrs> attrs = t.attrs();
    std::unique_ptr<OpPlan> plan = t.plan(in);
    const size_t stride = (plan->scratch_bytes + 63) / 64 * 64;
    const size_t threads = pool ? static_cast<size_t>(pool->size()) : 1;
    std::unique_ptr<void, decltype(&std::free)> scratch(
        stride ? std::aligned_alloc(64, stride * threads) : nullptr, &std::free);
    const Tensor* inputs[2] = {&in[0], &in[1]};
    Tensor out(in[0].type(), in[1].shape());
    std::memset(out.data(), 0xA5, out.byte_size());
    KernelContext ctx(t.def(), *attrs, inputs, 2, &out, 1, plan.get(), scratch.get(), stride, pool);
    t.def().compute(ctx);
    if (plan_out) *plan_out = std::move(plan);
    return out;
}

struct TraversalRow {
    const char* name;
    int64_t axis;
    Shape data_shape, indices_shape;
    bool staged;  // the plan asks for scratch memory: the column blocks are copied first
};

// Last axis (inner 1): rows whose output starts unaligned (scalar head, vector body, scalar tail).
// Other axes: staged blocks (one block with a vector tail; several blocks and row segments);
// direct blocks (few index rows for many data rows; data too tall to stage).
const TraversalRow kTraversals[] = {
    {"last_axis", 1, {5, 37}, {5, 53}, false},
    {"last_axis_3d", -1, {3, 4, 21}, {3, 4, 9}, false},
    {"staged_one_block", 1, {3, 40, 70}, {3, 50, 70}, true},
    {"staged_blocks_and_segments", 0, {2048, 150}, {3000, 150}, true},
    {"direct_few_rows", 1, {2, 100, 33}, {2, 10, 33}, false},
    {"direct_tall_data", 0, {9000, 20}, {9000, 20}, false},
};

size_t normalized(const TraversalRow& r) {
    return static_cast<size_t>(r.axis < 0 ? r.axis + static_cast<int64_t>(r.data_shape.size()) : r.axis);
}

TEST(GatherElements, TraversalsMatchReference) {
    const IsaReset reset;
    std::mt19937_64 rng(6);
    ThreadPool pool(3);
    for (int isa = 0; isa < 3; ++isa) {
        if (!detail::set_gather_elements_isa_for_testing(isa)) {
            std::cout << "[ note ] this CPU has no " << kIsaNames[isa] << "; not tested\n";
            continue;
        }
        for (const TraversalRow& r : kTraversals) {
            for (ElementType type : {ElementType::u8, ElementType::i16, ElementType::f32, ElementType::f64}) {
                for (ElementType index_type : {ElementType::i32, ElementType::i64}) {
                    SCOPED_TRACE(std::string(kIsaNames[isa]) + " " + r.name + " " + to_string(type) + " " +
                                 to_string(index_type));
                    const size_t axis = normalized(r);
                    const int64_t dim = r.data_shape[axis];
                    std::vector<Tensor> in = {random_data(type, r.data_shape, rng),
                                              random_indices(index_type, r.indices_shape, dim, rng)};
                    // The extremes of the valid range, in the vector body and in a tail.
                    set_index(in[1], 3, -dim);
                    set_index(in[1], 4, dim - 1);
                    set_index(in[1], in[1].num_elements() - 1, -dim);
                    const Tensor want = reference(in[0], in[1], axis);
                    std::unique_ptr<OpPlan> plan;
                    EXPECT_TRUE(tensors_equal(run_kernel(r.axis, in, nullptr, &plan), want));
                    EXPECT_STREQ(plan->method, kIsaNames[isa]);
                    EXPECT_EQ(plan->scratch_bytes > 0, r.staged) << plan->scratch_bytes;
                    EXPECT_TRUE(tensors_equal(run_kernel(r.axis, in, &pool), want));
                }
            }
        }
    }
}

// Empty tensors (a zero dim before, at or after the axis) plan and run without dividing by zero.
TEST(GatherElements, EmptyShapesUnderEachIsa) {
    const IsaReset reset;
    std::mt19937_64 rng(9);
    const TraversalRow rows[] = {
        {"inner_0", -5, {5, 4, 1, 6, 1, 0}, {5, 8, 1, 6, 1, 0}, false},  // from the generated corpus
        {"outer_0", 1, {0, 4, 3}, {0, 2, 3}, false},
        {"index_dim_0", 0, {4, 3}, {0, 3}, false},
        {"index_dim_0_last", 1, {4, 3}, {4, 0}, false},
    };
    for (int isa = 0; isa < 3; ++isa) {
        if (!detail::set_gather_elements_isa_for_testing(isa)) continue;
        for (const TraversalRow& r : rows) {
            SCOPED_TRACE(std::string(kIsaNames[isa]) + " " + r.name);
            const std::vector<Tensor> in = {random_data(ElementType::i16, r.data_shape, rng),
                                            random_indices(ElementType::i32, r.indices_shape, 1, rng)};
            EXPECT_TRUE(tensors_equal(run_kernel(r.axis, in, nullptr), Tensor(ElementType::i16, r.indices_shape)));
        }
    }
}

// Outputs of 8 MiB and more are written with streaming stores: both traversals, every ISA, one
// thread and three.
TEST(GatherElements, LargeOutputsMatchReference) {
    const IsaReset reset;
    std::mt19937_64 rng(7);
    ThreadPool pool(3);
    const TraversalRow rows[] = {
        {"last_axis", 1, {520, 3000}, {520, 4100}, false},
        {"staged", 0, {600, 4096}, {520, 4096}, true},
    };
    for (int isa = 0; isa < 3; ++isa) {
        if (!detail::set_gather_elements_isa_for_testing(isa)) continue;
        for (const TraversalRow& r : rows) {
            SCOPED_TRACE(std::string(kIsaNames[isa]) + " " + r.name);
            const int64_t dim = r.data_shape[static_cast<size_t>(r.axis)];
            const std::vector<Tensor> in = {random_data(ElementType::f32, r.data_shape, rng),
                                            random_indices(ElementType::i64, r.indices_shape, dim, rng)};
            ASSERT_GE(in[1].num_elements() * 4, int64_t{8} << 20);
            const Tensor want = reference(in[0], in[1], static_cast<size_t>(r.axis));
            EXPECT_TRUE(tensors_equal(run_kernel(r.axis, in, nullptr), want));
            EXPECT_TRUE(tensors_equal(run_kernel(r.axis, in, &pool), want));
        }
    }
}

// A bad index anywhere (vector body, head, tail; too large, too negative, far out) is reported,
// never read through, and the error names the first bad position in flat order whatever the
// threads, even when a later one sits in a chunk that runs first.
TEST(GatherElements, TraversalsReportTheFirstBadIndex) {
    const IsaReset reset;
    std::mt19937_64 rng(8);
    ThreadPool pool(3);
    for (int isa = 0; isa < 3; ++isa) {
        if (!detail::set_gather_elements_isa_for_testing(isa)) continue;
        for (const TraversalRow& r : kTraversals) {
            for (ElementType index_type : {ElementType::i32, ElementType::i64}) {
                const size_t axis = normalized(r);
                const int64_t dim = r.data_shape[axis];
                std::vector<Tensor> in = {random_data(ElementType::f32, r.data_shape, rng),
                                          random_indices(index_type, r.indices_shape, dim, rng)};
                const int64_t n = in[1].num_elements();
                const int64_t far = index_type == ElementType::i32 ? INT32_MIN : INT64_MIN;
                for (const auto& [at, value] : std::vector<std::pair<int64_t, int64_t>>{
                         {0, dim}, {9, -dim - 1}, {n / 2 + 3, far}, {n - 1, dim}, {n - 2, INT32_MAX}}) {
                    SCOPED_TRACE(std::string(kIsaNames[isa]) + " " + r.name + " " + to_string(index_type) + " at " +
                                 std::to_string(at) + " = " + std::to_string(value));
                    Tensor bad = in[1].clone();
                    set_index(bad, at, value);
                    if (at < n - 1) set_index(bad, n - 1, dim + 5);  // a later bad index: not the one named
                    std::vector<int64_t> position(r.indices_shape.size());
                    for (int64_t rest = at, d = static_cast<int64_t>(position.size()) - 1; d >= 0; --d) {
                        position[static_cast<size_t>(d)] = rest % r.indices_shape[static_cast<size_t>(d)];
                        rest /= r.indices_shape[static_cast<size_t>(d)];
                    }
                    std::string where;
                    for (int64_t p : position) where += (where.empty() ? "" : ",") + std::to_string(p);
                    const std::string message = "indices[" + where + "] = " + std::to_string(value) +
                                                ": value " + std::to_string(value) + " not in [" +
                                                std::to_string(-dim) + ", " + std::to_string(dim - 1) + "]";
                    for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool})
                        EXPECT_TRUE(throws_error([&] { run_kernel(r.axis, {in[0], bad}, p); }, ErrorKind::Value,
                                                 "index-out-of-range", message, 1));
                }
            }
        }
    }
}

}  // namespace
}  // namespace irlite
