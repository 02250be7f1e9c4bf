// ReduceSum/Mean/Max/Min/Prod-1 and ReduceL1/L2-4: every op over a table of axis sets against a
// plain-loop reference, integer semantics, empty reductions, shape rules and errors.
#include <limits>

#include "nn_test_util.hpp"
#include "kernels/all_ops.hpp"

namespace irlite::testing {
namespace {

struct ReduceOp {
    const char* type;
    int opset;
};
const ReduceOp kOps[] = {{"ReduceSum", 1},  {"ReduceMean", 1}, {"ReduceMax", 1}, {"ReduceMin", 1},
                         {"ReduceProd", 1}, {"ReduceL1", 4},   {"ReduceL2", 4}};

OpTester reducer(const std::string& type, int opset, bool keep_dims) {
    return OpTester(type, opset, {attr("keep_dims", keep_dims ? "true" : "false")});
}

// The reduction of every group, by definition: each input element goes to the keep_dims output
// index with the reduced coordinates set to 0.
std::vector<double> reference(const std::string& type, const Tensor& x, std::vector<int64_t> axes) {
    const Shape& shape = x.shape();
    const int64_t rank = static_cast<int64_t>(shape.size());
    std::vector<bool> reduced(shape.size(), false);
    for (int64_t& a : axes) reduced[static_cast<size_t>(a < 0 ? a + rank : a)] = true;
    Shape kept = shape;
    int64_t count = 1;
    for (size_t d = 0; d < shape.size(); ++d)
        if (reduced[d]) count *= shape[d], kept[d] = 1;
    std::vector<std::vector<double>> groups(static_cast<size_t>(checked_num_elements(kept)));
    const std::vector<double> xv = to_doubles(x);
    for (int64_t flat = 0; flat < x.num_elements(); ++flat) {
        std::vector<int64_t> idx = unravel(flat, shape);
        for (size_t d = 0; d < shape.size(); ++d)
            if (reduced[d]) idx[d] = 0;
        groups[static_cast<size_t>(ravel(idx, kept))].push_back(xv[static_cast<size_t>(flat)]);
    }
    std::vector<double> out;
    for (const auto& g : groups) {
        double r = type == "ReduceProd" ? 1 : 0;
        if (type == "ReduceMax") r = -std::numeric_limits<double>::infinity();
        if (type == "ReduceMin") r = std::numeric_limits<double>::infinity();
        for (double v : g) {
            if (type == "ReduceSum" || type == "ReduceMean") r += v;
            if (type == "ReduceProd") r *= v;
            if (type == "ReduceMax") r = std::max(r, v);
            if (type == "ReduceMin") r = std::min(r, v);
            if (type == "ReduceL1") r += std::fabs(v);
            if (type == "ReduceL2") r += v * v;
        }
        if (type == "ReduceMean") r /= static_cast<double>(count);
        if (type == "ReduceL2") r = std::sqrt(r);
        out.push_back(r);
    }
    return out;
}

struct AxesRow {
    const char* name;
    Shape data;
    std::vector<int64_t> axes;
    bool keep_dims;
    Shape out;
};

const AxesRow kRows[] = {
    {"last_axis", {2, 3, 4}, {2}, false, {2, 3}},
    {"first_axis_keep", {2, 3, 4}, {0}, true, {1, 3, 4}},
    {"middle_axis", {2, 3, 4}, {1}, false, {2, 4}},
    {"two_separate_axes", {2, 3, 4, 5}, {0, 2}, false, {3, 5}},
    {"negative_axes_keep", {2, 3, 4}, {-1, -3}, true, {1, 3, 1}},
    {"duplicate_axes", {2, 3, 4}, {1, 1, -2}, false, {2, 4}},
    {"unsorted_axes", {3, 2, 4, 2}, {3, 1}, false, {3, 4}},
    {"all_axes", {2, 3, 4}, {0, 1, 2}, false, {}},
    {"all_axes_keep", {2, 3, 4}, {2, 0, 1}, true, {1, 1, 1}},
    {"no_axes", {2, 3}, {}, false, {2, 3}},
    {"size_one_dims", {1, 3, 1, 4}, {0, 3}, false, {3, 1}},
    {"spatial_of_nchw", {2, 8, 7, 7}, {2, 3}, true, {2, 8, 1, 1}},
    {"scalar_data", {}, {}, false, {}},
    {"long_rows", {3, 1000}, {1}, false, {3}},
};

TEST(Reduce, EveryOpMatchesReference) {
    unsigned seed = 500;
    for (const ReduceOp& op : kOps) {
        for (const AxesRow& row : kRows) {
            SCOPED_TRACE(std::string(op.type) + " " + row.name);
            // Products of many values in [-1, 1) vanish; keep them near 1.
            const bool prod = std::string(op.type) == "ReduceProd";
            const Tensor x = random_tensor(ElementType::f32, row.data, seed++, prod ? 0.9 : -1.0, prod ? 1.1 : 1.0);
            const Tensor axes = seed % 2 ? i64s(row.axes) : i32s(std::vector<int32_t>(row.axes.begin(), row.axes.end()));
            const Tensor out = reducer(op.type, op.opset, row.keep_dims).run1({x, axes}, {1});
            EXPECT_EQ(out.shape(), row.out);
            EXPECT_TRUE(all_close(out, reference(op.type, x, row.axes), 1e-5));
        }
    }
}

TEST(Reduce, OtherFloatTypes) {
    for (const ElementType type : {ElementType::f64, ElementType::f16, ElementType::bf16}) {
        for (const char* op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceL2"}) {
            SCOPED_TRACE(std::string(op) + " " + to_string(type));
            const Tensor x = random_tensor(type, {3, 5, 4}, 9);
            const Tensor out = reducer(op, std::string(op) == "ReduceL2" ? 4 : 1, false).run1({x, i64s({0, 2})});
            EXPECT_EQ(out.type(), type);
            EXPECT_TRUE(all_close(out, reference(op, x, {0, 2}), type == ElementType::f64 ? 1e-12 : 1e-2));
        }
    }
}

TEST(Reduce, ScalarAxis) {
    const Tensor x = make_tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
    EXPECT_TRUE(tensors_equal(reducer("ReduceSum", 1, false).run1({x, scalar<int64_t>(-1)}, {1}),
                              make_tensor<float>({2}, {6, 15})));
    EXPECT_TRUE(tensors_equal(reducer("ReduceMax", 1, true).run1({x, scalar<int32_t>(0)}, {1}),
                              make_tensor<float>({1, 3}, {4, 5, 6})));
}

TEST(Reduce, Integers) {
    struct Row {
        const char* name;
        const char* type;
        Tensor data;
        Tensor want;
    };
    const Row rows[] = {
        {"sum_i32", "ReduceSum", make_tensor<int32_t>({2, 2}, {1, -7, 100, 5}), make_tensor<int32_t>({2}, {-6, 105})},
        {"prod_u8_wraps", "ReduceProd", make_tensor<uint8_t>({1, 3}, {16, 16, 3}), make_tensor<uint8_t>({1}, {0})},
        {"sum_i8_wraps", "ReduceSum", make_tensor<int8_t>({1, 2}, {100, 100}), make_tensor<int8_t>({1}, {-56})},
        {"mean_i64_toward_zero", "ReduceMean", make_tensor<int64_t>({2, 2}, {-3, -4, 7, 8}),
         make_tensor<int64_t>({2}, {-3, 7})},
        {"max_i8", "ReduceMax", make_tensor<int8_t>({2, 2}, {-128, -5, 3, 127}), make_tensor<int8_t>({2}, {-5, 127})},
        {"min_u16", "ReduceMin", make_tensor<uint16_t>({2, 2}, {65535, 7, 0, 9}), make_tensor<uint16_t>({2}, {7, 0})},
        {"l1_i32", "ReduceL1", make_tensor<int32_t>({2, 2}, {-3, 4, -5, -6}), make_tensor<int32_t>({2}, {7, 11})},
        {"sum_i64_large", "ReduceSum", make_tensor<int64_t>({1, 2}, {int64_t{1} << 62, int64_t{1} << 61}),
         make_tensor<int64_t>({1}, {(int64_t{1} << 62) + (int64_t{1} << 61)})},
    };
    for (const Row& row : rows) {
        SCOPED_TRACE(row.name);
        const int opset = std::string(row.type) == "ReduceL1" ? 4 : 1;
        EXPECT_TRUE(tensors_equal(reducer(row.type, opset, false).run1({row.data, i64s({1})}), row.want));
    }
}

TEST(Reduce, LogicalAndOr) {
    const Tensor x = make_tensor<bool>({2, 3}, {true, true, false, true, true, true});
    const OpTester all("ReduceLogicalAnd", 1, {{"keep_dims", "false"}});
    const OpTester any("ReduceLogicalOr", 1, {{"keep_dims", "true"}});
    EXPECT_EQ(values_of<bool>(all.run1({x, i64s({1})})), (std::vector<bool>{false, true}));
    EXPECT_EQ(values_of<bool>(all.run1({x, i64s({0})})), (std::vector<bool>{true, true, false}));
    EXPECT_EQ(values_of<bool>(all.run1({x, i64s({0, 1})})), (std::vector<bool>{false}));
    const Tensor none = make_tensor<bool>({2, 2}, {false, false, true, false});
    const Tensor out = any.run1({none, i64s({-1})});
    EXPECT_EQ(out.shape(), (Shape{2, 1}));
    EXPECT_EQ(values_of<bool>(out), (std::vector<bool>{false, true}));
    // Reducing nothing: And gives true, Or gives false.
    EXPECT_EQ(values_of<bool>(all.run1({Tensor(ElementType::boolean, {0, 2}), i64s({0})})), (std::vector<bool>{true, true}));
    EXPECT_EQ(values_of<bool>(any.run1({Tensor(ElementType::boolean, {0, 2}), i64s({0})})), (std::vector<bool>{false, false}));
    EXPECT_TRUE(throws_error([&] { all.run1({iota(ElementType::f32, {2}), i64s({0})}); }, ErrorKind::Type, "element-type-unsupported",
                             "boolean", 0));
}

TEST(Reduce, EmptyReductionGivesIdentity) {
    const Tensor x(ElementType::f32, {2, 0, 3});
    const double inf = std::numeric_limits<double>::infinity();
    const struct {
        const char* type;
        double want;
    } rows[] = {{"ReduceSum", 0}, {"ReduceProd", 1}, {"ReduceMax", -inf}, {"ReduceMin", inf}, {"ReduceMean", NAN}};
    for (const auto& row : rows) {
        SCOPED_TRACE(row.type);
        const Tensor out = reducer(row.type, 1, false).run1({x, i64s({1})});
        EXPECT_EQ(out.shape(), Shape({2, 3}));
        EXPECT_TRUE(all_close(out, std::vector<double>(6, row.want), 0));
    }
    EXPECT_EQ(reducer("ReduceSum", 1, true).run1({Tensor(ElementType::f32, {0, 3}), i64s({1})}).shape(), Shape({0, 1}));
}

TEST(Reduce, ShapeRuleWithAxesUnknownAtLoad) {
    struct Row {
        const char* name;
        bool keep_dims;
        PartialShape data, axes, out;
    };
    const Row rows[] = {
        {"keep_dims", true, {2, 3, 4}, {2}, PartialShape::all_dynamic(3)},
        {"scalar_axis", false, {2, 3, 4}, {}, PartialShape::all_dynamic(2)},
        {"list_of_axes", false, {2, 3, 4}, {2}, PartialShape::dynamic_rank()},
        {"dynamic_data_rank", true, PartialShape::dynamic_rank(), {1}, PartialShape::dynamic_rank()},
    };
    for (const Row& row : rows) {
        SCOPED_TRACE(row.name);
        const auto infos = reducer("ReduceMean", 1, row.keep_dims)
                               .infer({unknown(ElementType::f32, row.data), unknown(ElementType::i64, row.axes)});
        EXPECT_EQ(infos[0].shape, row.out);
    }
    // Known axes with dynamic data dims.
    const auto infos = reducer("ReduceSum", 1, false)
                           .infer({unknown(ElementType::f32, {kDynamic, 3, kDynamic}), known(i64s({1}))});
    EXPECT_EQ(infos[0].shape, PartialShape({kDynamic, kDynamic}));
}

TEST(Reduce, Errors) {
    struct Row {
        const char* name;
        const char* type;
        std::vector<RuleInput> inputs;
        ErrorKind kind;
        const char* code;
        const char* text;
        int port;
    };
    const auto f32 = ElementType::f32;
    const Row rows[] = {
        {"axis_out_of_range", "ReduceSum", {unknown(f32, {2, 3, 4}), known(i64s({0, 3}))}, ErrorKind::Value,
         "axis-out-of-range", "axis 3 (element 1) not in [-3, 2]", 1},
        {"negative_axis_out_of_range", "ReduceMax", {unknown(f32, {2, 3}), known(i32s({-3}))}, ErrorKind::Value,
         "axis-out-of-range", "axis -3", 1},
        {"axis_on_scalar", "ReduceMin", {unknown(f32, {}), known(i64s({0}))}, ErrorKind::Value, "axis-out-of-range",
         "not in [0, -1]", 1},
        {"axes_rank_2", "ReduceProd", {unknown(f32, {2, 3}), unknown(ElementType::i64, {1, 1})}, ErrorKind::ShapeRule,
         "rank-invalid", "got shape [1,1]", 1},
        {"float_axes", "ReduceMean", {unknown(f32, {2, 3}), unknown(f32, {1})}, ErrorKind::Type, "type-unsupported",
         "integer", 1},
        {"l2_of_integers", "ReduceL2", {unknown(ElementType::i32, {2, 3}), known(i64s({0}))}, ErrorKind::Type,
         "type-unsupported", "i32", 0},
        {"boolean_data", "ReduceL1", {unknown(ElementType::boolean, {2, 3}), known(i64s({0}))}, ErrorKind::Type,
         "type-unsupported", "boolean", 0},
    };
    for (const Row& row : rows) {
        SCOPED_TRACE(row.name);
        const int opset = std::string(row.type).find("ReduceL") == 0 ? 4 : 1;
        EXPECT_TRUE(throws_error([&] { reducer(row.type, opset, false).infer(row.inputs); }, row.kind, row.code, row.text,
                                 row.port));
    }
    EXPECT_TRUE(throws_error([] { reducer("ReduceSum", 1, false).run1({iota(ElementType::f32, {2, 2}), i64s({2})}); },
                             ErrorKind::Value, "axis-out-of-range", "axis 2", 1));
    EXPECT_EQ(builtin_ops().find("ReduceL1", 3), nullptr);
}

}  // namespace
}  // namespace irlite::testing
