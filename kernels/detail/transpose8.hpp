// 8 x 8 float transposes in registers (GCC/clang vector extensions), for kernels that turn a block
// of 8 planes channels-last and back (depthwise convolution and pooling on small planes). Inside a
// cpu::run clone (cpu_isa.hpp) the shuffles are single AVX instructions; at the baseline they are
// pairs of SSE ones.
#pragma once

#include <cstdint>
#include <cstring>

namespace irlite::detail {

typedef float Float8 __attribute__((vector_size(32)));

// r[i][j] <- r[j][i] for 8 vectors of 8 floats (unpack, 64-bit shuffle, 128-bit lane swap).
inline void transpose8(Float8 (&r)[8]) {
    Float8 t[8], u[8];
    for (int i = 0; i < 8; i += 2) {
        t[i] = __builtin_shufflevector(r[i], r[i + 1], 0, 8, 1, 9, 4, 12, 5, 13);
        t[i + 1] = __builtin_shufflevector(r[i], r[i + 1], 2, 10, 3, 11, 6, 14, 7, 15);
    }
    for (int i = 0; i < 8; i += 4) {
        u[i] = __builtin_shufflevector(t[i], t[i + 2], 0, 1, 8, 9, 4, 5, 12, 13);
        u[i + 1] = __builtin_shufflevector(t[i], t[i + 2], 2, 3, 10, 11, 6, 7, 14, 15);
        u[i + 2] = __builtin_shufflevector(t[i + 1], t[i + 3], 0, 1, 8, 9, 4, 5, 12, 13);
        u[i + 3] = __builtin_shufflevector(t[i + 1], t[i + 3], 2, 3, 10, 11, 6, 7, 14, 15);
    }
    for (int i = 0; i < 4; ++i) {
        r[i] = __builtin_shufflevector(u[i], u[i + 4], 0, 1, 2, 3, 8, 9, 10, 11);
        r[i + 4] = __builtin_shufflevector(u[i], u[i + 4], 4, 5, 6, 7, 12, 13, 14, 15);
    }
}

}  // namespace irlite::detail
