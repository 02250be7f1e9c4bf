// dispatch_type restricted to the storable floating-point types: the kernels of ops defined on
// f16, bf16, f32 and f64 only (their prepare step refuses every other type).
#pragma once

#include <type_traits>

#include "irlite/element_type.hpp"

namespace irlite::detail {

// Calls f(T{}) with T the storage type of t (float16, bfloat16, float or double); does nothing
// for any other type, so that no other instantiation is compiled.
template <class F>
void dispatch_storable_float(ElementType t, F&& f) {
    dispatch_type(t, [&](auto tag) {
        using T = decltype(tag);
        if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16> || std::is_same_v<T, float> ||
                      std::is_same_v<T, double>)
            f(tag);
    });
}

}  // namespace irlite::detail
