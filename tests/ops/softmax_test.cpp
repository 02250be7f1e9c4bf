// SoftMax-1, Softmax-8 and LogSoftmax-5: values against the definition along every axis,
// numerical stability, opset resolution and errors.
#include <limits>

#include "nn_test_util.hpp"
#include "kernels/all_ops.hpp"

namespace irlite::testing {
namespace {

std::vector<double> reference(const Tensor& x, int64_t axis, bool log) {
    const Shape& shape = x.shape();
    if (axis < 0) axis += static_cast<int64_t>(shape.size());
    const std::vector<double> xv = to_doubles(x);
    std::vector<double> out(xv.size());
    for (size_t flat = 0; flat < xv.size(); ++flat) {
        std::vector<int64_t> idx = unravel(static_cast<int64_t>(flat), shape);
        double sum = 0;
        for (int64_t j = 0; j < shape[static_cast<size_t>(axis)]; ++j) {
            idx[static_cast<size_t>(axis)] = j;
            sum += std::exp(xv[static_cast<size_t>(ravel(idx, shape))]);
        }
        out[flat] = log ? xv[flat] - std::log(sum) : std::exp(xv[flat]) / sum;
    }
    return out;
}

struct Row {
    const char* name;
    const char* type;
    int opset;
    Shape shape;
    int64_t axis;
};

const Row kRows[] = {
    {"softmax1_axis1", "SoftMax", 1, {2, 3, 4}, 1},   {"softmax1_axis0", "SoftMax", 7, {2, 3, 4}, 0},
    {"softmax1_last", "SoftMax", 1, {2, 3, 4}, 2},    {"softmax8_minus1", "Softmax", 8, {3, 5}, -1},
    {"softmax8_minus3", "Softmax", 8, {2, 3, 4}, -3}, {"softmax8_1d", "Softmax", 13, {7}, 0},
    {"softmax8_long_row", "Softmax", 8, {2, 1000}, 1}, {"log_minus1", "LogSoftmax", 5, {3, 5}, -1},
    {"log_axis1", "LogSoftmax", 5, {2, 3, 4}, 1},
};

TEST(Softmax, ValuesMatchDefinition) {
    unsigned seed = 700;
    for (const Row& row : kRows) {
        for (const ElementType type : {ElementType::f32, ElementType::f64, ElementType::f16}) {
            SCOPED_TRACE(std::string(row.name) + " " + to_string(type));
            const Tensor x = random_tensor(type, row.shape, seed++, -3, 3);
            const Tensor out = OpTester(row.type, row.opset, {attr("axis", std::to_string(row.axis))}).run1({x});
            EXPECT_EQ(out.type(), type);
            EXPECT_EQ(out.shape(), row.shape);
            const double tol = type == ElementType::f16 ? 5e-3 : type == ElementType::f32 ? 1e-6 : 1e-13;
            EXPECT_TRUE(all_close(out, reference(x, row.axis, std::string(row.type) == "LogSoftmax"), tol));
        }
    }
}

TEST(Softmax, LargeInputsDoNotOverflow) {
    const Tensor x = make_tensor<float>({1, 3}, {1000, 1001, 1002});
    const Tensor soft = OpTester("Softmax", 8, {attr("axis", "-1")}).run1({x});
    EXPECT_TRUE(all_close(soft, {0.09003057, 0.24472847, 0.66524096}, 1e-6));
    const Tensor log = OpTester("LogSoftmax", 5, {attr("axis", "1")}).run1({x});
    EXPECT_TRUE(all_close(log, {-2.40760596, -1.40760596, -0.40760596}, 1e-6));
    const Tensor tiny = OpTester("SoftMax", 1, {attr("axis", "1")}).run1({make_tensor<float>({1, 2}, {-1e30f, 0})});
    EXPECT_TRUE(all_close(tiny, {0, 1}, 0));
}

TEST(Softmax, DefaultAxisIsOneAndOpsetsResolve) {
    const Tensor x = make_tensor<float>({2, 2}, {0, 0, 1, 3});
    EXPECT_TRUE(all_close(OpTester("Softmax", 8).run1({x}), reference(x, 1, false), 1e-7));
    const OpRegistry& r = builtin_ops();
    EXPECT_EQ(r.find("SoftMax", 7)->version, 1);
    EXPECT_EQ(r.find("SoftMax", 8)->version, 8);
    EXPECT_EQ(r.find("Softmax", 1)->version, 1);
    EXPECT_EQ(r.find("LogSoftmax", 4), nullptr);
    EXPECT_EQ(OpTester("Softmax", 8).infer({unknown(ElementType::f32, {kDynamic, 4})})[0].shape,
              PartialShape({kDynamic, 4}));
    EXPECT_EQ(OpTester("LogSoftmax", 5).infer({unknown(ElementType::bf16, PartialShape::dynamic_rank())})[0].shape,
              PartialShape::dynamic_rank());
}

TEST(Softmax, Errors) {
    EXPECT_TRUE(throws_error([] { OpTester("SoftMax", 1, {attr("axis", "-1")}).attrs(); }, ErrorKind::Attribute,
                             "attribute-invalid", "SoftMax-1 needs an axis >= 0"));
    EXPECT_TRUE(throws_error([] { OpTester("SoftMax", 1, {attr("axis", "2")}).infer({unknown(ElementType::f32, {2, 3})}); },
                             ErrorKind::Attribute, "axis-out-of-range", "out of the range [0, 1]"));
    EXPECT_TRUE(throws_error([] { OpTester("Softmax", 8, {attr("axis", "-4")}).infer({unknown(ElementType::f32, {2, 3, 4})}); },
                             ErrorKind::Attribute, "axis-out-of-range", "out of the range [-3, 2]"));
    EXPECT_TRUE(throws_error([] { OpTester("LogSoftmax", 5).infer({unknown(ElementType::i32, {2, 3})}); },
                             ErrorKind::Type, "type-unsupported", "i32", 0));
    EXPECT_TRUE(throws_error([] { OpTester("Softmax", 8, {attr("axis", "x")}).attrs(); }, ErrorKind::Attribute,
                             "attribute-invalid", "'axis'"));
}

}  // namespace
}  // namespace irlite::testing
