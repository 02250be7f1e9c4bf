// BatchNormInference-1/5, MVN-1/6 and NormalizeL2-1: values against the formulas, attribute
// variants, shape rules and errors.
#include "nn_test_util.hpp"
#include "kernels/all_ops.hpp"

namespace irlite::testing {
namespace {

// Groups of element positions that reduce together over `axes` (normalized, any order).
std::vector<std::vector<size_t>> groups_of(const Shape& shape, const std::vector<int64_t>& axes) {
    Shape kept = shape;
    for (int64_t a : axes) kept[static_cast<size_t>(a < 0 ? a + static_cast<int64_t>(shape.size()) : a)] = 1;
    std::vector<std::vector<size_t>> groups(static_cast<size_t>(checked_num_elements(kept)));
    for (int64_t flat = 0; flat < checked_num_elements(shape); ++flat) {
        std::vector<int64_t> idx = unravel(flat, shape);
        for (size_t d = 0; d < shape.size(); ++d)
            if (kept[d] == 1) idx[d] = 0;
        groups[static_cast<size_t>(ravel(idx, kept))].push_back(static_cast<size_t>(flat));
    }
    return groups;
}

std::vector<double> mvn_reference(const Tensor& x, const std::vector<int64_t>& axes, bool normalize_variance,
                                  double eps, bool inside) {
    const std::vector<double> xv = to_doubles(x);
    std::vector<double> out(xv.size());
    for (const auto& g : groups_of(x.shape(), axes)) {
        double mean = 0, var = 0;
        for (size_t i : g) mean += xv[i];
        mean /= static_cast<double>(g.size());
        for (size_t i : g) var += (xv[i] - mean) * (xv[i] - mean);
        var /= static_cast<double>(g.size());
        const double div = !normalize_variance ? 1 : inside ? std::sqrt(var + eps) : std::sqrt(var) + eps;
        for (size_t i : g) out[i] = (xv[i] - mean) / div;
    }
    return out;
}

std::vector<double> normalize_reference(const Tensor& x, const std::vector<int64_t>& axes, double eps, bool add) {
    const std::vector<double> xv = to_doubles(x);
    std::vector<double> out(xv.size());
    for (const auto& g : groups_of(x.shape(), axes)) {
        double sum = 0;
        for (size_t i : g) sum += xv[i] * xv[i];
        const double div = std::sqrt(add ? sum + eps : std::max(sum, eps));
        for (size_t i : g) out[i] = xv[i] / div;
    }
    return out;
}

// ---- BatchNormInference ----------------------------------------------------------------------

std::vector<double> batch_norm_reference(const Tensor& x, const Tensor& gamma, const Tensor& beta, const Tensor& mean,
                                         const Tensor& var, double eps) {
    std::vector<double> out;
    const std::vector<double> xv = to_doubles(x);
    for (size_t i = 0; i < xv.size(); ++i) {
        const int64_t c = unravel(static_cast<int64_t>(i), x.shape())[1];
        out.push_back((xv[i] - mean.value_as_double(c)) / std::sqrt(var.value_as_double(c) + eps) *
                          gamma.value_as_double(c) + beta.value_as_double(c));
    }
    return out;
}

TEST(BatchNormInference, ValuesInBothPortOrders) {
    unsigned seed = 900;
    for (const Shape& shape : {Shape{4, 3}, Shape{2, 3, 4, 5}, Shape{1, 3, 2, 2, 2}}) {
        for (const ElementType type : {ElementType::f32, ElementType::f64, ElementType::f16}) {
            SCOPED_TRACE(to_string(Shape(shape)) + " " + to_string(type));
            const Tensor x = random_tensor(type, shape, seed++, -3, 3);
            const Tensor gamma = random_tensor(type, {3}, seed++), beta = random_tensor(type, {3}, seed++);
            const Tensor mean = random_tensor(type, {3}, seed++), var = random_tensor(type, {3}, seed++, 0.1, 2);
            const std::vector<double> want = batch_norm_reference(x, gamma, beta, mean, var, 1e-3);
            const double tol = type == ElementType::f16 ? 1e-2 : 1e-6;
            const Tensor v5 = OpTester("BatchNormInference", 5, {attr("epsilon", "0.001")}).run1({x, gamma, beta, mean, var});
            EXPECT_TRUE(all_close(v5, want, tol));
            const Tensor v1 = OpTester("BatchNormInference", 1, {attr("epsilon", "0.001")}).run1({gamma, beta, x, mean, var});
            EXPECT_TRUE(all_close(v1, want, tol));
        }
    }
}

TEST(BatchNormInference, OnnxExample) {
    // ONNX batchnorm example: x [1,2,1,3], scale [1, 1.5], bias [0, 1], mean [0, 3], var [1, 1.5].
    const Tensor x = make_tensor<float>({1, 2, 1, 3}, {-1, 0, 1, 2, 3, 4});
    const Tensor out = OpTester("BatchNormInference", 5, {attr("epsilon", "1e-05")})
                           .run1({x, make_tensor<float>({2}, {1, 1.5f}), make_tensor<float>({2}, {0, 1}),
                                  make_tensor<float>({2}, {0, 3}), make_tensor<float>({2}, {1, 1.5f})});
    EXPECT_TRUE(all_close(out, {-0.999995, 0, 0.999995, -0.22474074, 1, 2.2247407}, 1e-6));
}

TEST(BatchNormInference, ShapeRuleAndErrors) {
    const auto f32 = ElementType::f32;
    const OpTester v5("BatchNormInference", 5, {attr("epsilon", "1e-5")});
    EXPECT_EQ(v5.infer({unknown(f32, {kDynamic, 3, 8}), unknown(f32, {3}), unknown(f32, {kDynamic}), unknown(f32, {3}),
                        unknown(f32, PartialShape::dynamic_rank())})[0]
                  .shape,
              PartialShape({kDynamic, 3, 8}));
    struct Row {
        const char* name;
        std::vector<RuleInput> inputs;
        ErrorKind kind;
        const char* code;
        const char* text;
        int port;
    };
    const Row rows[] = {
        {"gamma_size", {unknown(f32, {2, 3}), unknown(f32, {4}), unknown(f32, {3}), unknown(f32, {3}), unknown(f32, {3})},
         ErrorKind::ShapeRule, "dims-mismatch", "expected shape [C] with C = 3", 1},
        {"variance_rank", {unknown(f32, {2, 3}), unknown(f32, {3}), unknown(f32, {3}), unknown(f32, {3}), unknown(f32, {1, 3})},
         ErrorKind::ShapeRule, "dims-mismatch", "got [1,3]", 4},
        {"data_rank_1", {unknown(f32, {3}), unknown(f32, {3}), unknown(f32, {3}), unknown(f32, {3}), unknown(f32, {3})},
         ErrorKind::ShapeRule, "rank-invalid", "rank 2 or more", 0},
        {"mean_type", {unknown(f32, {2, 3}), unknown(f32, {3}), unknown(f32, {3}), unknown(ElementType::f16, {3}),
                       unknown(f32, {3})},
         ErrorKind::Type, "type-mismatch", "f16", 3},
        {"integer_data", {unknown(ElementType::i32, {2, 3}), unknown(ElementType::i32, {3}), unknown(ElementType::i32, {3}),
                          unknown(ElementType::i32, {3}), unknown(ElementType::i32, {3})},
         ErrorKind::Type, "type-unsupported", "i32", 0},
    };
    for (const Row& row : rows) {
        SCOPED_TRACE(row.name);
        EXPECT_TRUE(throws_error([&] { v5.infer(row.inputs); }, row.kind, row.code, row.text, row.port));
    }
    // v1: data is port 2.
    EXPECT_TRUE(throws_error(
        [] {
            OpTester("BatchNormInference", 1, {attr("epsilon", "1e-5")})
                .infer({unknown(f32, {3}), unknown(f32, {3}), unknown(f32, {2, 5}), unknown(f32, {3}), unknown(f32, {3})});
        },
        ErrorKind::ShapeRule, "dims-mismatch", "with C = 5", 0));
    EXPECT_TRUE(throws_error([] { OpTester("BatchNormInference", 5, {attr("epsilon", "-1")}).attrs(); },
                             ErrorKind::Attribute, "attribute-invalid", "'epsilon'"));
    EXPECT_TRUE(throws_error([] { OpTester("BatchNormInference", 5).attrs(); }, ErrorKind::Attribute, "attribute-missing",
                             "'epsilon'"));
}

// ---- MVN -------------------------------------------------------------------------------------

TEST(MVN, Version6MatchesFormula) {
    struct Row {
        const char* name;
        Shape shape;
        std::vector<int64_t> axes;
        bool normalize_variance;
        const char* eps_mode;
    };
    const Row rows[] = {
        {"spatial_inside", {2, 3, 4, 5}, {2, 3}, true, "inside_sqrt"},
        {"last_axis_outside", {2, 3, 6}, {-1}, true, "outside_sqrt"},
        {"unsorted_axes", {2, 3, 4}, {2, 0}, true, "inside_sqrt"},
        {"mean_only", {2, 3, 4}, {1}, false, "inside_sqrt"},
        {"all_axes", {3, 4}, {0, 1}, true, "OUTSIDE_SQRT"},
        {"long_rows", {2, 768}, {1}, true, "inside_sqrt"},
    };
    unsigned seed = 1000;
    for (const Row& row : rows) {
        for (const ElementType type : {ElementType::f32, ElementType::f64, ElementType::f16}) {
            SCOPED_TRACE(std::string(row.name) + " " + to_string(type));
            const OpTester op("MVN", 6, {attr("normalize_variance", row.normalize_variance ? "true" : "false"),
                                         attr("eps", "0.001"), attr("eps_mode", row.eps_mode)});
            const Tensor x = random_tensor(type, row.shape, seed++, -2, 2);
            const Tensor out = op.run1({x, i64s(row.axes)}, {1});
            const bool inside = std::string(row.eps_mode) == "inside_sqrt";
            EXPECT_TRUE(all_close(out, mvn_reference(x, row.axes, row.normalize_variance, 1e-3, inside),
                                  type == ElementType::f16 ? 1e-2 : 1e-5));
        }
    }
}

TEST(MVN, Version1Attributes) {
    struct Row {
        const char* name;
        std::vector<IrAttribute> attributes;
        std::vector<int64_t> axes;
        bool normalize_variance;
    };
    const Row rows[] = {
        {"per_channel", {attr("eps", "1e-9"), attr("normalize_variance", "true")}, {2, 3}, true},
        {"across_channels", {attr("eps", "1e-9"), attr("normalize_variance", "true"), attr("across_channels", "true")},
         {1, 2, 3}, true},
        {"reduction_axes", {attr("eps", "1e-9"), attr("normalize_variance", "false"), attr("reduction_axes", "-1,1")},
         {1, 3}, false},
    };
    for (const Row& row : rows) {
        SCOPED_TRACE(row.name);
        const Tensor x = random_tensor(ElementType::f32, {2, 3, 4, 5}, 77);
        const Tensor out = OpTester("MVN", 2, row.attributes).run1({x});
        EXPECT_TRUE(all_close(out, mvn_reference(x, row.axes, row.normalize_variance, 1e-9, true), 1e-5));
    }
    EXPECT_EQ(builtin_ops().find("MVN", 1), nullptr);  // MVN-1 entered in opset2
    EXPECT_NE(builtin_ops().find("MVN", 5), nullptr);
    EXPECT_EQ(builtin_ops().find("MVN", 6)->version, 6);
}

TEST(MVN, Errors) {
    const auto f32 = ElementType::f32;
    const std::vector<IrAttribute> good = {attr("normalize_variance", "true"), attr("eps", "1e-9"),
                                           attr("eps_mode", "inside_sqrt")};
    EXPECT_TRUE(throws_error([&] { OpTester("MVN", 6, good).infer({unknown(f32, {2, 3}), known(i64s({2}))}); },
                             ErrorKind::Value, "axis-out-of-range", "axis 2", 1));
    EXPECT_TRUE(throws_error([&] { OpTester("MVN", 6, good).infer({unknown(f32, {2, 3}), unknown(f32, {1})}); },
                             ErrorKind::Type, "type-unsupported", "integer", 1));
    EXPECT_TRUE(throws_error([&] { OpTester("MVN", 6, good).infer({unknown(ElementType::i64, {2, 3}), known(i64s({1}))}); },
                             ErrorKind::Type, "type-unsupported", "i64", 0));
    EXPECT_TRUE(throws_error([] { OpTester("MVN", 6, {attr("normalize_variance", "true"), attr("eps", "1e-9")}).attrs(); },
                             ErrorKind::Attribute, "attribute-missing", "'eps_mode'"));
    EXPECT_TRUE(throws_error(
        [] {
            OpTester("MVN", 6, {attr("normalize_variance", "true"), attr("eps", "1e-9"), attr("eps_mode", "inside")}).attrs();
        },
        ErrorKind::Attribute, "attribute-invalid", "'eps_mode'"));
    EXPECT_TRUE(throws_error([] { OpTester("MVN", 6, {attr("eps", "1e-9"), attr("eps_mode", "inside_sqrt")}).attrs(); },
                             ErrorKind::Attribute, "attribute-missing", "'normalize_variance'"));
    EXPECT_TRUE(throws_error([] { OpTester("MVN", 2, {attr("eps", "1e-9"), attr("reduction_axes", "4")})
                                      .infer({unknown(ElementType::f32, {2, 3})}); },
                             ErrorKind::Attribute, "axis-out-of-range", "'reduction_axes'"));
    EXPECT_TRUE(throws_error([] { OpTester("MVN", 2, {attr("eps", "-1")}).attrs(); }, ErrorKind::Attribute,
                             "attribute-invalid", "'eps'"));
}

// ---- NormalizeL2 -----------------------------------------------------------------------------

TEST(NormalizeL2, MatchesFormula) {
    struct Row {
        const char* name;
        Shape shape;
        std::vector<int64_t> axes;
        const char* mode;
    };
    const Row rows[] = {
        {"channels_add", {2, 3, 4, 5}, {1}, "add"},
        {"channels_and_spatial_max", {2, 3, 4, 5}, {1, 2, 3}, "max"},
        {"no_axes", {2, 3}, {}, "add"},
        {"all_axes", {2, 3}, {-1, 0}, "max"},
    };
    unsigned seed = 1100;
    for (const Row& row : rows) {
        SCOPED_TRACE(row.name);
        const Tensor x = random_tensor(ElementType::f32, row.shape, seed++);
        const Tensor out = OpTester("NormalizeL2", 1, {attr("eps", "1e-6"), attr("eps_mode", row.mode)}).run1({x, i64s(row.axes)}, {1});
        EXPECT_TRUE(all_close(out, normalize_reference(x, row.axes, 1e-6, std::string(row.mode) == "add"), 1e-5));
    }
    // eps decides when the sum of squares is small.
    const Tensor small = make_tensor<float>({2}, {0.001f, 0});
    EXPECT_TRUE(all_close(OpTester("NormalizeL2", 1, {attr("eps", "1"), attr("eps_mode", "max")}).run1({small, i64s({0})}),
                          {0.001, 0}, 1e-7));
    EXPECT_TRUE(all_close(OpTester("NormalizeL2", 1, {attr("eps", "1"), attr("eps_mode", "add")}).run1({small, scalar<int32_t>(0)}),
                          {0.001 / std::sqrt(1.000001), 0}, 1e-7));
    const Tensor h = OpTester("NormalizeL2", 1, {attr("eps", "0"), attr("eps_mode", "add")})
                         .run1({make_tensor(ElementType::f16, {2}, {3, 4}), i64s({0})});
    EXPECT_TRUE(all_close(h, {0.6, 0.8}, 1e-3));
}

TEST(NormalizeL2, Errors) {
    const std::vector<IrAttribute> good = {attr("eps", "1e-6"), attr("eps_mode", "add")};
    EXPECT_TRUE(throws_error([&] { OpTester("NormalizeL2", 1, good).infer({unknown(ElementType::i32, {2}), known(i64s({0}))}); },
                             ErrorKind::Type, "type-unsupported", "i32", 0));
    EXPECT_TRUE(throws_error([&] { OpTester("NormalizeL2", 1, good).infer({unknown(ElementType::f32, {2}), known(i64s({-2}))}); },
                             ErrorKind::Value, "axis-out-of-range", "axis -2", 1));
    EXPECT_TRUE(throws_error([] { OpTester("NormalizeL2", 1, {attr("eps", "1e-6"), attr("eps_mode", "mul")}).attrs(); },
                             ErrorKind::Attribute, "attribute-invalid", "'eps_mode'"));
    EXPECT_TRUE(throws_error([] { OpTester("NormalizeL2", 1, {attr("eps_mode", "max")}).attrs(); }, ErrorKind::Attribute,
                             "attribute-missing", "'eps'"));
}

}  // namespace
}  // namespace irlite::testing
