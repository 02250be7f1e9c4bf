// Matrix products for MatMul and convolution, in one compilation unit so that Eigen's GEMM is
// instantiated once per type (float, double) for the whole library.
#pragma once

#include <cstdint>

namespace irlite::nn {

// C = op(A) * op(B), or C += op(A) * op(B) when accumulate. All matrices are row-major with the
// given row strides (lda, ldb, ldc >= their row length). op(A) is m x k: A is stored m x k, or
// k x m when trans_a. op(B) is k x n: B is stored k x n, or n x k when trans_b. k == 0 gives zeros.
// T = float or double (Eigen, vectorized and cache-blocked; allocates nothing at any size).
template <class T>
void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b,
          int64_t ldb, T* c, int64_t ldc, bool accumulate);

extern template void gemm<float>(bool, bool, int64_t, int64_t, int64_t, const float*, int64_t, const float*,
                                 int64_t, float*, int64_t, bool);
extern template void gemm<double>(bool, bool, int64_t, int64_t, int64_t, const double*, int64_t, const double*,
                                  int64_t, double*, int64_t, bool);

// The same for int64_t / uint64_t with plain loops; sums wrap modulo 2^64.
void gemm_int(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const int64_t* a, int64_t lda,
              const int64_t* b, int64_t ldb, int64_t* c, int64_t ldc);
void gemm_int(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const uint64_t* a, int64_t lda,
              const uint64_t* b, int64_t ldb, uint64_t* c, int64_t ldc);

}  // namespace irlite::nn
