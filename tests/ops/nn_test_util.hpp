// Helpers for the numeric NN op tests: seeded random tensors, tolerance comparison and a
// row-major multi-index walk for the plain-loop reference implementations the tests compare
// kernels against.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "op_tester.hpp"

namespace irlite::testing {

// Values uniform in [lo, hi), rounded to the type (integers: truncated).
inline std::vector<double> random_values(size_t n, unsigned seed, double lo = -1.0, double hi = 1.0) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> dist(lo, hi);
    std::vector<double> v(n);
    for (double& x : v) x = dist(gen);
    return v;
}

// A random tensor; values are what the tensor actually holds (after rounding to its type).
inline Tensor random_tensor(ElementType type, const Shape& shape, unsigned seed, double lo = -1.0, double hi = 1.0) {
    std::vector<double> v = random_values(static_cast<size_t>(checked_num_elements(shape)), seed, lo, hi);
    if (is_integral(type))
        for (double& x : v) x = std::trunc(x);
    return make_tensor(type, shape, v);
}

// got matches want (doubles) within |got - want| <= tol * (1 + |want|); NaN matches NaN.
inline ::testing::AssertionResult all_close(const Tensor& got, const std::vector<double>& want, double tol) {
    if (static_cast<size_t>(got.num_elements()) != want.size())
        return ::testing::AssertionFailure() << "got " << got.num_elements() << " elements, want " << want.size();
    for (size_t i = 0; i < want.size(); ++i) {
        const double g = got.value_as_double(static_cast<int64_t>(i));
        if ((std::isnan(want[i]) && std::isnan(g)) || g == want[i]) continue;
        if (!(std::fabs(g - want[i]) <= tol * (1 + std::fabs(want[i]))))
            return ::testing::AssertionFailure() << "element " << i << " is " << g << ", want " << want[i];
    }
    return ::testing::AssertionSuccess();
}

// The multi-index of flat position `flat` in a row-major tensor of `shape`.
inline std::vector<int64_t> unravel(int64_t flat, const Shape& shape) {
    std::vector<int64_t> index(shape.size());
    for (size_t d = shape.size(); d-- > 0;) {
        index[d] = shape[d] ? flat % shape[d] : 0;
        flat = shape[d] ? flat / shape[d] : 0;
    }
    return index;
}

inline int64_t ravel(const std::vector<int64_t>& index, const Shape& shape) {
    int64_t flat = 0;
    for (size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + index[d];
    return flat;
}

inline IrAttribute attr(std::string name, std::string value) { return {std::move(name), std::move(value)}; }

}  // namespace irlite::testing
