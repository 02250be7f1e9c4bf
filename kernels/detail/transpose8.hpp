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

// The first two steps of transpose8 on 4 vectors: r[k] <- [r0[k] r1[k] r2[k] r3[k] | r0[k+4]
// r1[k+4] r2[k+4] r3[k+4]] for k < 4: a [4][8] block into [8][4] (4 pixels x 8 channels turned
// 8 channels x 4 pixels, in the halves), and back when each r[i] holds rows i and i + 4 of a
// [8][4] block in its halves.
inline void transpose4x8(Float8 (&r)[4]) {
    const Float8 t0 = __builtin_shufflevector(r[0], r[1], 0, 8, 1, 9, 4, 12, 5, 13);
    const Float8 t1 = __builtin_shufflevector(r[0], r[1], 2, 10, 3, 11, 6, 14, 7, 15);
    const Float8 t2 = __builtin_shufflevector(r[2], r[3], 0, 8, 1, 9, 4, 12, 5, 13);
    const Float8 t3 = __builtin_shufflevector(r[2], r[3], 2, 10, 3, 11, 6, 14, 7, 15);
    r[0] = __builtin_shufflevector(t0, t2, 0, 1, 8, 9, 4, 5, 12, 13);
    r[1] = __builtin_shufflevector(t0, t2, 2, 3, 10, 11, 6, 7, 14, 15);
    r[2] = __builtin_shufflevector(t1, t3, 0, 1, 8, 9, 4, 5, 12, 13);
    r[3] = __builtin_shufflevector(t1, t3, 2, 3, 10, 11, 6, 7, 14, 15);
}

}  // namespace irlite::detail
