// The compressed-weight MatMul's kernel (mat_mul_compressed.hpp), written once for every level:
// included by mat_mul_compressed.cpp after it defines CW_TARGET and a `V` with: L (f32 lanes), F,
// I, zero(), set1(f), load(p), fmadd(a, b, c) (a * b + c), fnmadd(a, b, c) (c - a * b), add,
// to_float(I), widen_u8(p) / widen_i8(p) (L bytes, zero- or sign-extended to int32), low_u/high_u
// (the nibbles of zero-extended bytes), low_s/high_s (the same sign-extended), hsum(F).

// One row of A (prepared: a, and with zero points the per-lane group sums xs) times rows
// [n, n + R) of the weights: y[r] for each.
template <CompressedWeights::Format Fmt, int R>
CW_TARGET void compressed_rows(const CompressedWeights& w, const float* a, const float* xs, int64_t n, float* y) {
    using F = typename V::F;
    using I = typename V::I;
    constexpr int L = V::L;
    constexpr bool kFour = Fmt == CompressedWeights::Format::U4 || Fmt == CompressedWeights::Format::I4;
    constexpr bool kSigned = Fmt == CompressedWeights::Format::I4 || Fmt == CompressedWeights::Format::I8;
    constexpr int64_t kChunk = kFour ? 2 * L : L;  // elements per L bytes
    const int64_t depth = w.depth, group = w.group, groups = depth / group;
    const int64_t row_bytes = kFour ? depth / 2 : depth;
    const bool zeros = !w.zero.empty();
    // The same byte of the next block's rows: the R row streams at once outrun the hardware
    // prefetchers, the 4-bit path most (its unpacking takes longer per byte). A prefetch past the
    // weights' end is harmless (no fault).
    const int64_t ahead = R * row_bytes;
    const uint8_t* q[R];
    for (int r = 0; r < R; ++r) q[r] = w.data.data() + (n + r) * row_bytes;
    F total[R];
    for (int r = 0; r < R; ++r) total[r] = V::zero();
    for (int64_t g = 0; g < groups; ++g) {
        F acc0[R], acc1[R];
        for (int r = 0; r < R; ++r) acc0[r] = V::zero(), acc1[r] = V::zero();
        const int64_t end = (g + 1) * group;
        if constexpr (kFour) {
            for (int64_t k = g * group; k < end; k += kChunk) {
                const F even = V::load(a + k), odd = V::load(a + k + L);
                for (int r = 0; r < R; ++r) {
                    __builtin_prefetch(q[r] + k / 2 + ahead);
                    const I b = V::widen_u8(q[r] + k / 2);
                    const I lo = kSigned ? V::low_s(b) : V::low_u(b);
                    const I hi = kSigned ? V::high_s(b) : V::high_u(b);
                    acc0[r] = V::fmadd(V::to_float(lo), even, acc0[r]);
                    acc1[r] = V::fmadd(V::to_float(hi), odd, acc1[r]);
                }
            }
        } else {
            int64_t k = g * group;
            for (; k + 2 * kChunk <= end; k += 2 * kChunk) {
                const F x0 = V::load(a + k), x1 = V::load(a + k + L);
                for (int r = 0; r < R; ++r) {
                    __builtin_prefetch(q[r] + k + ahead);
                    const I b0 = kSigned ? V::widen_i8(q[r] + k) : V::widen_u8(q[r] + k);
                    const I b1 = kSigned ? V::widen_i8(q[r] + k + L) : V::widen_u8(q[r] + k + L);
                    acc0[r] = V::fmadd(V::to_float(b0), x0, acc0[r]);
                    acc1[r] = V::fmadd(V::to_float(b1), x1, acc1[r]);
                }
            }
            if (k < end) {
                const F x0 = V::load(a + k);
                for (int r = 0; r < R; ++r) {
                    const I b0 = kSigned ? V::widen_i8(q[r] + k) : V::widen_u8(q[r] + k);
                    acc0[r] = V::fmadd(V::to_float(b0), x0, acc0[r]);
                }
            }
        }
        for (int r = 0; r < R; ++r) {
            const size_t at = static_cast<size_t>((n + r) * groups + g);
            F sum = V::add(acc0[r], acc1[r]);
            if (zeros) sum = V::fnmadd(V::set1(w.zero[at]), V::load(xs + g * L), sum);
            total[r] = V::fmadd(sum, V::set1(w.scale[at]), total[r]);
        }
    }
    for (int r = 0; r < R; ++r) y[r] = V::hsum(total[r]);
}

// Rows [n0, n1) of the weights for one row of A.
template <CompressedWeights::Format Fmt>
void compressed_range(const CompressedWeights& w, const float* a, const float* xs, int64_t n0, int64_t n1, float* y) {
    int64_t n = n0;
    for (; n + 4 <= n1; n += 4) compressed_rows<Fmt, 4>(w, a, xs, n, y + n);
    for (; n < n1; ++n) compressed_rows<Fmt, 1>(w, a, xs, n, y + n);
}

inline RangeFn range_for(CompressedWeights::Format f) {
    switch (f) {
        case CompressedWeights::Format::U4: return compressed_range<CompressedWeights::Format::U4>;
        case CompressedWeights::Format::I4: return compressed_range<CompressedWeights::Format::I4>;
        case CompressedWeights::Format::U8: return compressed_range<CompressedWeights::Format::U8>;
        case CompressedWeights::Format::I8: return compressed_range<CompressedWeights::Format::I8>;
    }
    return nullptr;
}
