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

// r[i][j] <- r[j][i] for 16 vectors of 16 bytes: interleaves of bytes, then of 2-, 4- and 8-byte
// groups (one SSE unpack each, 64 in all), for the u8 window kernels that turn 16 planes
// channels-last and back.
inline void transpose16_bytes(simd::vec_t<uint8_t, 16> (&r)[16]) {
    using U8 = simd::vec_t<uint8_t, 16>;
    using U16 = simd::vec_t<uint16_t, 16>;
    using U32 = simd::vec_t<uint32_t, 16>;
    using U64 = simd::vec_t<uint64_t, 16>;
    U16 a[16];  // a[2i], a[2i + 1]: rows 2i and 2i + 1 byte by byte, columns 0-7 and 8-15
    for (int i = 0; i < 16; i += 2) {
        a[i] = reinterpret_cast<U16>(
            __builtin_shufflevector(r[i], r[i + 1], 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23));
        a[i + 1] = reinterpret_cast<U16>(
            __builtin_shufflevector(r[i], r[i + 1], 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31));
    }
    U32 b[16];  // b[4g + k]: rows 4g .. 4g + 3 of columns 4k .. 4k + 3, a column's 4 bytes together
    for (int g = 0; g < 16; g += 4) {
        b[g] = reinterpret_cast<U32>(__builtin_shufflevector(a[g], a[g + 2], 0, 8, 1, 9, 2, 10, 3, 11));
        b[g + 1] = reinterpret_cast<U32>(__builtin_shufflevector(a[g], a[g + 2], 4, 12, 5, 13, 6, 14, 7, 15));
        b[g + 2] = reinterpret_cast<U32>(__builtin_shufflevector(a[g + 1], a[g + 3], 0, 8, 1, 9, 2, 10, 3, 11));
        b[g + 3] = reinterpret_cast<U32>(__builtin_shufflevector(a[g + 1], a[g + 3], 4, 12, 5, 13, 6, 14, 7, 15));
    }
    U64 c[16];  // c[8h + j]: rows 8h .. 8h + 7 of columns 2j and 2j + 1, 8 bytes each
    for (int h = 0; h < 2; ++h)
        for (int k = 0; k < 4; ++k) {
            const U32 lo = b[8 * h + k], hi = b[8 * h + 4 + k];
            c[8 * h + 2 * k] = reinterpret_cast<U64>(__builtin_shufflevector(lo, hi, 0, 4, 1, 5));
            c[8 * h + 2 * k + 1] = reinterpret_cast<U64>(__builtin_shufflevector(lo, hi, 2, 6, 3, 7));
        }
    for (int j = 0; j < 8; ++j) {
        r[2 * j] = reinterpret_cast<U8>(__builtin_shufflevector(c[j], c[8 + j], 0, 2));
        r[2 * j + 1] = reinterpret_cast<U8>(__builtin_shufflevector(c[j], c[8 + j], 1, 3));
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
