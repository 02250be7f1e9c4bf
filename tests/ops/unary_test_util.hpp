// Helpers for the unary elementwise op tests (activations_test.cpp, unary_math_test.cpp): a table
// row that names an op and its plain double reference, the value a storage type holds, and a
// per-type tolerance check against the reference.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "op_tester.hpp"

namespace irlite::testing {

inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline const double kNaN = std::numeric_limits<double>::quiet_NaN();

// How an op computes integer inputs (the kernel's UnaryIntegers, seen from outside).
enum class IntegerRule {
    None,     // integers are rejected
    Exact,    // the reference's value is an integer (ReLU, Abs, Clamp with integer bounds, ...)
    Rounded,  // the reference's value rounded half away from zero, saturated, NaN -> 0
};

struct UnaryRow {
    const char* name;  // row name, for the trace
    const char* op;
    int opset;
    std::vector<IrAttribute> attrs;
    std::function<double(double)> ref;   // the op in double precision
    std::vector<double> inputs;          // values to check (in the op's domain)
    std::vector<ElementType> types;      // every type the op supports
    IntegerRule integers = IntegerRule::None;
    // An absolute tolerance added to the per-type one, for ops whose f32 formula cancels near 0
    // (Gelu's 1 + erf(x / sqrt 2) for x < -3 is within an f32 ulp of 0: error |x| * 2^-24).
    double abs_tol = 0;
};

inline const std::vector<ElementType> kFloats = {ElementType::f16, ElementType::bf16, ElementType::f32,
                                                 ElementType::f64};
inline const std::vector<ElementType> kIntegers = {ElementType::i8,  ElementType::i16, ElementType::i32,
                                                   ElementType::i64, ElementType::u8,  ElementType::u16,
                                                   ElementType::u32, ElementType::u64};
inline std::vector<ElementType> numeric_types() {
    std::vector<ElementType> all = kFloats;
    all.insert(all.end(), kIntegers.begin(), kIntegers.end());
    return all;
}

// The value `type` stores for x (f16/bf16 round to nearest even).
inline double stored(ElementType type, double x) {
    if (type == ElementType::f16) return f16_to_f32(f32_to_f16(static_cast<float>(x)));
    if (type == ElementType::bf16) return bf16_to_f32(f32_to_bf16(static_cast<float>(x)));
    if (type == ElementType::f32) return static_cast<float>(x);
    return x;
}

// What the reference gives for an integer type under `rule` (round half away, saturate, NaN -> 0).
inline double integer_result(ElementType type, double want) {
    if (std::isnan(want)) return 0;
    want = std::round(want);
    double lo = 0, hi = 0;
    dispatch_type(type, [&](auto tag) {
        using T = decltype(tag);
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
            lo = static_cast<double>(std::numeric_limits<T>::lowest());
            hi = static_cast<double>(std::numeric_limits<T>::max());
        }
    });
    return std::min(std::max(want, lo), hi);
}

// got is want within the precision of `type`: f64 1e-12, f32 1e-5 (relative, with a 1e-6 floor),
// f16/bf16 one unit in the last place of the result; NaN matches NaN, infinities match exactly.
inline ::testing::AssertionResult close_for(ElementType type, double got, double want, double abs_tol = 0) {
    if (std::isnan(want) || std::isinf(want) || is_integral(type)) {
        if ((std::isnan(want) && std::isnan(got)) || got == want) return ::testing::AssertionSuccess();
        return ::testing::AssertionFailure() << "got " << got << ", want " << want;
    }
    double tol = abs_tol;
    switch (type) {
        case ElementType::f64: tol += 1e-12 * (1 + std::fabs(want)); break;
        case ElementType::f32: tol += 1e-5 * std::fabs(want) + 1e-6; break;
        case ElementType::f16: tol += std::ldexp(std::fabs(want), -10) + 1e-7; break;
        case ElementType::bf16: tol += std::ldexp(std::fabs(want), -7) + 1e-38; break;
        default: break;
    }
    if (std::fabs(got - want) <= tol) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got " << got << ", want " << want << " (tolerance " << tol << ")";
}

// Runs a one-input op on xs stored as `type` and checks every element against the reference
// computed in double on the stored inputs (and, for f16/bf16, rounded to the type).
inline void check_unary(const UnaryRow& r, ElementType type, const std::vector<double>& xs) {
    SCOPED_TRACE(std::string(r.name) + " (" + r.op + "-" + std::to_string(r.opset) + ") " + to_string(type));
    const Shape shape{static_cast<int64_t>(xs.size())};
    const Tensor got = OpTester(r.op, r.opset, r.attrs).run1({make_tensor(type, shape, xs)});
    ASSERT_EQ(got.type(), type);
    ASSERT_EQ(got.shape(), shape);
    for (size_t i = 0; i < xs.size(); ++i) {
        const double x = stored(type, xs[i]);
        double want = r.ref(x);
        if (is_integral(type))
            want = r.integers == IntegerRule::Rounded ? integer_result(type, want) : want;
        else if (type == ElementType::f16 || type == ElementType::bf16)
            want = stored(type, want);
        EXPECT_TRUE(close_for(type, got.value_as_double(static_cast<int64_t>(i)), want, r.abs_tol)) << "x = " << x;
    }
}

// Inputs every integer type holds: small values, negative ones only for signed types.
inline std::vector<double> integer_inputs(ElementType type) {
    if (traits(type).is_signed) return {-7, -2, -1, 0, 1, 2, 3, 10, 100};
    return {0, 1, 2, 3, 4, 9, 10, 100, 120};
}

// Every row, in every type it supports: its own inputs for floats, integer_inputs() for integers.
inline void check_rows_for_every_type(const std::vector<UnaryRow>& rows) {
    for (const UnaryRow& r : rows)
        for (ElementType type : r.types) check_unary(r, type, is_integral(type) ? integer_inputs(type) : r.inputs);
}

// The shape rule of the row's op rejects `type` at its data port.
inline void expect_type_rejected(const UnaryRow& r, ElementType type) {
    SCOPED_TRACE(std::string(r.name) + " " + to_string(type));
    const OpTester op(r.op, r.opset, r.attrs);
    EXPECT_TRUE(throws_error([&] { op.infer({unknown(type, PartialShape{2})}); }, ErrorKind::Type,
                             "element-type-unsupported", to_string(type), 0));
}

// Every element type a row does not list.
inline std::vector<ElementType> types_not_in(const UnaryRow& r) {
    std::vector<ElementType> out;
    for (int i = 0; i < kNumElementTypes; ++i) {
        const auto type = static_cast<ElementType>(i);
        if (std::find(r.types.begin(), r.types.end(), type) == r.types.end()) out.push_back(type);
    }
    return out;
}

// A type that `types` does not contain, preferring i32, then f32, then boolean.
inline ElementType unsupported_type(const std::vector<ElementType>& types) {
    for (ElementType t : {ElementType::i32, ElementType::u8, ElementType::f32, ElementType::boolean})
        if (std::find(types.begin(), types.end(), t) == types.end()) return t;
    return ElementType::boolean;
}

}  // namespace irlite::testing
