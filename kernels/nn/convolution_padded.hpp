// The zero-padded data planes that the depthwise, channels-last and GEMM methods of the
// convolution read (kernels/nn/convolution_methods.hpp: DwLayout), and the short copies that make
// them: inline, for the methods' kernels compiled per instruction-set level (cpu_isa.hpp: run()'s
// lambdas inline what they call). Internal to kernels/nn/convolution*.cpp.
#pragma once

#include <cstdint>
#include <cstring>

#include "kernels/detail/simd.hpp"
#include "kernels/detail/transpose8.hpp"
#include "kernels/nn/convolution_methods.hpp"

// dw_load returns GCC/clang vector-extension values; without -mavx, compilers warn that such
// values would change the ABI of an exported function. These are inline helpers of the
// convolution's files only, never called across a library boundary, so the warning does not apply.
#if defined(__clang__) || defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace irlite::nn::conv {

// Where a tap's column shift (kw * dilation, padded columns) lies in a row of the layout, from
// the position of its output column's first tap.
inline int64_t dw_tap_column(const DwLayout& l, int64_t shift) { return shift % l.phases * l.phase_width + shift / l.phases; }

// Short runs of floats or doubles copied or zeroed inline, 32 bytes at a time: rows here are 2 to
// 64 elements long, and a memcpy / memset call per row cost more than the row (8 % of MobileNetV2).
// The tails are a half chunk and single elements without a loop: compilers turn an element loop
// back into a memset / memcpy call (with its vzeroupper), the very cost these avoid.
template <class T>
inline void copy_short(T* dst, const T* src, int64_t n) {
    constexpr int64_t kChunk = 32 / sizeof(T);
    using Chunk = simd::vec_t<T, 32>;
    using Half = simd::vec_t<T, 16>;
    int64_t i = 0;
    for (; i + kChunk <= n; i += kChunk) {
        Chunk v;
        std::memcpy(&v, src + i, sizeof v);
        std::memcpy(dst + i, &v, sizeof v);
    }
    if (i + kChunk / 2 <= n) {
        Half v;
        std::memcpy(&v, src + i, sizeof v);
        std::memcpy(dst + i, &v, sizeof v);
        i += kChunk / 2;
    }
    if constexpr (kChunk / 2 > 1) {
        for (int k = 0; k < kChunk / 2 - 1; ++k)  // at most 3 left (floats)
            if (i < n) dst[i] = src[i], ++i;
    }
}

template <class T>
inline void zero_short(T* dst, int64_t n) {
    constexpr int64_t kChunk = 32 / sizeof(T);
    using Chunk = simd::vec_t<T, 32>;
    using Half = simd::vec_t<T, 16>;
    const Chunk zero = {};
    const Half half = {};
    int64_t i = 0;
    for (; i + kChunk <= n; i += kChunk) std::memcpy(dst + i, &zero, sizeof zero);
    if (i + kChunk / 2 <= n) {
        std::memcpy(dst + i, &half, sizeof half);
        i += kChunk / 2;
    }
    if constexpr (kChunk / 2 > 1) {
        for (int k = 0; k < kChunk / 2 - 1; ++k)
            if (i < n) dst[i] = T(0), ++i;
    }
}

template <class T>
void dw_copy_plane_data(const DwLayout& l, int64_t in_h, int64_t in_w, const T* x, T* dst);

// Copies one [H, W] data plane into the zero-padded layout.
template <class T>
void dw_pad_plane(const DwLayout& l, int64_t in_h, int64_t in_w, const T* x, T* dst) {
    if (l.phases > 1) {  // zeros everywhere, then the data: the zero runs of a phase row are short
        zero_short(dst, l.rows * l.width);
        dw_copy_plane_data(l, in_h, in_w, x, dst);
        return;
    }
    const int64_t width = l.width, left = l.left, right = l.width - l.left - in_w;
    zero_short(dst, l.top * width);
    T* row = dst + l.top * width;
    for (int64_t h = 0; h < in_h; ++h, row += width) {
        zero_short(row, left);
        copy_short(row + left, x + h * in_w, in_w);
        zero_short(row + left + in_w, right);
    }
    zero_short(row, dst + l.rows * width - row);
}

// Only the data of a plane into a padded layout whose padding is already zero (dw_pad_plane wrote
// it for an earlier plane of the same geometry in the same buffer): the zeros stay.
template <class T>
void dw_copy_plane_data(const DwLayout& l, int64_t in_h, int64_t in_w, const T* x, T* dst) {
    if (l.phases == 2) {
        // Stride 2, the common one: each data row split into its even and odd elements from the
        // same loads, one pass. Data column j is padded column c = j + left: phase c % 2, column
        // c / 2. So the even elements go to phase left % 2 from column left / 2, the odd ones to
        // the other phase from column (left + 1) / 2.
        const int64_t pw = l.phase_width, left = l.left;
        const int64_t even_at = left % 2 * pw + left / 2, odd_at = (left + 1) % 2 * pw + (left + 1) / 2;
        T* row = dst + l.top * l.width;
        for (int64_t h = 0; h < in_h; ++h, row += l.width)
            detail::split_even_odd(x + h * in_w, in_w, row + even_at, row + odd_at);
        return;
    }
    if (l.phases > 1) {
        const int64_t s = l.phases, pw = l.phase_width;
        // Any other stride (rare: 3, 4), phase by phase: phase f's column q holds padded column
        // q * s + f, i.e. data column q * s + f - left: data for q in [q0, q1).
        for (int64_t f = 0; f < s; ++f) {
            const int64_t first = f - l.left;  // data column of q = 0
            const int64_t q0 = first >= 0 ? 0 : (-first + s - 1) / s;
            const int64_t q1 = std::max(q0, std::min(pw, (in_w - first + s - 1) / s));
            T* row = dst + l.top * l.width + f * pw + q0;
            const T* src = x + q0 * s + first;
            for (int64_t h = 0; h < in_h; ++h, row += l.width, src += in_w)
                for (int64_t q = 0; q < q1 - q0; ++q) row[q] = src[q * s];
        }
        return;
    }
    T* row = dst + l.top * l.width + l.left;
    for (int64_t h = 0; h < in_h; ++h, row += l.width) copy_short(row, x + h * in_w, in_w);
}

// GCC/clang vector extensions: V elements of T (AVX, SSE, NEON or scalar code as the target allows).
template <class T, int V>
struct DwVec;
template <>
struct DwVec<float, 16> {
    using type = simd::vec_t<float, 64>;
};
template <>
struct DwVec<float, 8> {
    using type = simd::f32x8;
};
template <>
struct DwVec<float, 4> {
    using type = simd::f32x4;
};
template <>
struct DwVec<double, 4> {
    using type = simd::vec_t<double, 32>;
};
template <>
struct DwVec<double, 2> {
    using type = simd::vec_t<double, 16>;
};

// Elements p[0], p[s], ..., p[(V - 1) * s] as a vector, s = S when S > 0 (1 or 2: reads
// p[0 .. V * S)); any s when S == 0.
template <class T, int V, int S, class Vec = typename DwVec<T, V>::type>
inline Vec dw_load(const T* p, int64_t s) {
    Vec v;
    if constexpr (S == 1) {
        std::memcpy(&v, p, sizeof v);
    } else if constexpr (S == 2) {
        Vec a, b;
        std::memcpy(&a, p, sizeof a);
        std::memcpy(&b, p + V, sizeof b);
        if constexpr (V == 8) v = __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14);
        else if constexpr (V == 4) v = __builtin_shufflevector(a, b, 0, 2, 4, 6);
        else v = __builtin_shufflevector(a, b, 0, 2);
    } else {
        for (int i = 0; i < V; ++i) v[i] = p[i * s];
    }
    return v;
}

}  // namespace irlite::nn::conv
