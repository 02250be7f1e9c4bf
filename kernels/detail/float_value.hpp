// One load and one store for kernels that compute a stored float type T (f16, bf16, f32, f64, or
// any arithmetic type) in a wider compute type C, instead of a copy of these lines per op.
// 16-bit floats widen through f32 (exact) and narrow through f32 with round to nearest even (a
// double result is rounded to f32 first, as every kernel here did).
#pragma once

#include <cstdint>
#include <type_traits>

#include "irlite/element_type.hpp"

namespace irlite::detail {

template <class C, class T>
inline C load_as(T v) {
    if constexpr (std::is_same_v<T, float16>) return static_cast<C>(f16_to_f32(v.bits));
    else if constexpr (std::is_same_v<T, bfloat16>) return static_cast<C>(bf16_to_f32(v.bits));
    else return static_cast<C>(v);
}

template <class C, class T>
inline C load_as(const T* p, int64_t i) {
    return load_as<C>(p[i]);
}

template <class T, class C>
inline T store_as(C v) {
    if constexpr (std::is_same_v<T, float16>) return float16{f32_to_f16(static_cast<float>(v))};
    else if constexpr (std::is_same_v<T, bfloat16>) return bfloat16{f32_to_bf16(static_cast<float>(v))};
    else return static_cast<T>(v);
}

template <class T, class C>
inline void store_at(T* p, int64_t i, C v) {
    p[i] = store_as<T>(v);
}

}  // namespace irlite::detail
