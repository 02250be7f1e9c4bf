// The SIMD vector types of the kernels written with GCC's vector extension (clang has it too),
// declared once. Arithmetic on them compiles to SSE, AVX2 or AVX-512 instructions at the level of
// the function using them (cpu_isa.hpp: cpu::run clones) and to scalar code where there are none.
// Their alignment is their size: load and store them through memcpy (or __builtin_memcpy) from
// unaligned data.
#pragma once

#include <cstdint>

namespace irlite::simd {

typedef float f32x4 __attribute__((vector_size(16)));
typedef float f32x8 __attribute__((vector_size(32)));
typedef int32_t i32x8 __attribute__((vector_size(32)));

// BYTES / sizeof(T) lanes of T, for kernels templated on the element type.
template <class T, int BYTES>
struct VecOf {
    typedef T type __attribute__((vector_size(BYTES)));
};
template <class T, int BYTES>
using vec_t = typename VecOf<T, BYTES>::type;

}  // namespace irlite::simd
