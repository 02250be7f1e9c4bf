#include "kernels/detail/nn_gemm.hpp"

// GCC 12 reports Eigen's AVX-512 packet code (built with -march=native) as "may be used
// uninitialized" (_mm512_undefined_* placeholders); a known false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <Eigen/Core>

#include <algorithm>

namespace irlite::nn {
namespace {

template <class T>
using RowMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class T>
using ConstMap = Eigen::Map<const RowMatrix<T>, Eigen::Unaligned, Eigen::OuterStride<>>;
template <class T>
using MutableMap = Eigen::Map<RowMatrix<T>, Eigen::Unaligned, Eigen::OuterStride<>>;

template <class T, class A, class B>
void multiply(MutableMap<T>& c, const A& a, const B& b, bool accumulate) {
    if (accumulate) c.noalias() += a * b;
    else c.noalias() = a * b;
}

// Integer products: i-k-j order so that the inner loop runs along contiguous rows of B and C.
template <class U>
void gemm_loops(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const U* a, int64_t lda, const U* b,
                int64_t ldb, U* c, int64_t ldc) {
    for (int64_t i = 0; i < m; ++i) {
        U* crow = c + i * ldc;
        for (int64_t j = 0; j < n; ++j) crow[j] = 0;
        for (int64_t p = 0; p < k; ++p) {
            const U av = trans_a ? a[p * lda + i] : a[i * lda + p];
            if (trans_b) {
                for (int64_t j = 0; j < n; ++j) crow[j] += av * b[j * ldb + p];
            } else {
                const U* brow = b + p * ldb;
                for (int64_t j = 0; j < n; ++j) crow[j] += av * brow[j];
            }
        }
    }
}

// Eigen's GEMM packs blocks of op(A) and op(B) into buffers it declares on the stack up to
// EIGEN_STACK_ALLOCATION_LIMIT bytes and takes from the heap above it. Cutting the product into
// sub-products no larger than kDepthBlock x kSideBlock keeps every buffer under the limit, so a
// product never allocates (compute's contract) at any size.
template <class T>
constexpr int64_t kDepthBlock = 128;
template <class T>
constexpr int64_t kSideBlock = EIGEN_STACK_ALLOCATION_LIMIT / (kDepthBlock<T> * static_cast<int64_t>(sizeof(T)));

template <class T>
void gemm_block(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b,
                int64_t ldb, T* c, int64_t ldc, bool accumulate) {
    MutableMap<T> cm(c, m, n, Eigen::OuterStride<>(ldc));
    const ConstMap<T> am(a, trans_a ? k : m, trans_a ? m : k, Eigen::OuterStride<>(lda));
    const ConstMap<T> bm(b, trans_b ? n : k, trans_b ? k : n, Eigen::OuterStride<>(ldb));
    if (!trans_a && !trans_b) multiply(cm, am, bm, accumulate);
    else if (!trans_a) multiply(cm, am, bm.transpose(), accumulate);
    else if (!trans_b) multiply(cm, am.transpose(), bm, accumulate);
    else multiply(cm, am.transpose(), bm.transpose(), accumulate);
}

}  // namespace

template <class T>
void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b,
          int64_t ldb, T* c, int64_t ldc, bool accumulate) {
    if (m == 0 || n == 0) return;
    if (k == 0) {
        if (!accumulate) MutableMap<T>(c, m, n, Eigen::OuterStride<>(ldc)).setZero();
        return;
    }
    constexpr int64_t side = kSideBlock<T>, depth = kDepthBlock<T>;
    static_assert(side >= 64, "blocks too thin for Eigen's kernels to pay off");
    for (int64_t i0 = 0; i0 < m; i0 += side) {
        const int64_t rows = std::min(side, m - i0);
        for (int64_t j0 = 0; j0 < n; j0 += side) {
            const int64_t cols = std::min(side, n - j0);
            for (int64_t p0 = 0; p0 < k; p0 += depth) {
                const int64_t len = std::min(depth, k - p0);
                const T* ab = trans_a ? a + p0 * lda + i0 : a + i0 * lda + p0;
                const T* bb = trans_b ? b + j0 * ldb + p0 : b + p0 * ldb + j0;
                gemm_block(trans_a, trans_b, rows, cols, len, ab, lda, bb, ldb, c + i0 * ldc + j0, ldc,
                           accumulate || p0 > 0);
            }
        }
    }
}

template void gemm<float>(bool, bool, int64_t, int64_t, int64_t, const float*, int64_t, const float*, int64_t,
                          float*, int64_t, bool);
template void gemm<double>(bool, bool, int64_t, int64_t, int64_t, const double*, int64_t, const double*, int64_t,
                           double*, int64_t, bool);

void gemm_int(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const int64_t* a, int64_t lda,
              const int64_t* b, int64_t ldb, int64_t* c, int64_t ldc) {
    // Two's complement: the wrapped unsigned product is the wrapped signed one.
    gemm_loops(trans_a, trans_b, m, n, k, reinterpret_cast<const uint64_t*>(a), lda,
               reinterpret_cast<const uint64_t*>(b), ldb, reinterpret_cast<uint64_t*>(c), ldc);
}

void gemm_int(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const uint64_t* a, int64_t lda,
              const uint64_t* b, int64_t ldb, uint64_t* c, int64_t ldc) {
    gemm_loops(trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc);
}

}  // namespace irlite::nn
