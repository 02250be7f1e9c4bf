// Register shuffles (GCC/clang vector extensions) shared by the window kernels: 8 x 8 float
// transposes, for kernels that turn a block of 8 planes channels-last and back (depthwise
// convolution and pooling on small planes), and the split of a row into its even and odd elements
// (stride-2 windows). Inside a cpu::run clone (cpu_isa.hpp) the shuffles are single AVX
// instructions; at the baseline they are pairs of SSE ones.
#pragma once

#include <cstdint>
#include <cstring>

#include "kernels/detail/simd.hpp"

namespace irlite::detail {

using Float8 = simd::f32x8;

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

// The even and the odd elements of the 16 in a then b: even = [a0 a2 a4 a6 b0 b2 b4 b6], odd =
// [a1 a3 a5 a7 b1 b3 b5 b7], for any vector of 8 lanes (Float8; 8 quads of u8 levels). (References,
// as above: vector values by value would change the ABI of a function compiled without AVX.)
template <class V8>
inline void even_odd(const V8& a, const V8& b, V8& even, V8& odd) {
    even = __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14);
    odd = __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15);
}

// even[k] = src[2k] and odd[k] = src[2k + 1] for the n elements of src: 32 bytes' worth of each
// from two vector loads, then half that, then one element at a time. Writes exactly (n + 1) / 2
// evens and n / 2 odds; T is any type of 4 or 8 bytes (float, double, a u8 quad as uint32_t).
template <class T>
inline void split_even_odd(const T* src, int64_t n, T* even, T* odd) {
    constexpr int kV = 32 / sizeof(T);
    using Vec = simd::vec_t<T, 32>;
    using Half = simd::vec_t<T, 16>;
    int64_t j = 0;
    for (; j + 2 * kV <= n; j += 2 * kV) {
        Vec a, b, e, o;
        std::memcpy(&a, src + j, sizeof a);
        std::memcpy(&b, src + j + kV, sizeof b);
        if constexpr (kV == 8) {
            even_odd(a, b, e, o);
        } else {
            e = __builtin_shufflevector(a, b, 0, 2, 4, 6);
            o = __builtin_shufflevector(a, b, 1, 3, 5, 7);
        }
        std::memcpy(even + j / 2, &e, sizeof e);
        std::memcpy(odd + j / 2, &o, sizeof o);
    }
    if (j + kV <= n) {  // rows of 8 + 16k floats (56, 28, 14 wide)
        Half a, b, e, o;
        std::memcpy(&a, src + j, sizeof a);
        std::memcpy(&b, src + j + kV / 2, sizeof b);
        if constexpr (kV == 8) {
            e = __builtin_shufflevector(a, b, 0, 2, 4, 6);
            o = __builtin_shufflevector(a, b, 1, 3, 5, 7);
        } else {
            e = __builtin_shufflevector(a, b, 0, 2);
            o = __builtin_shufflevector(a, b, 1, 3);
        }
        std::memcpy(even + j / 2, &e, sizeof e);
        std::memcpy(odd + j / 2, &o, sizeof o);
        j += kV;
    }
    for (; j < n; ++j) (j % 2 ? odd : even)[j / 2] = src[j];
}

}  // namespace irlite::detail
