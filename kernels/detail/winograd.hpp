// Winograd minimal filtering F(2x2, 3x3) for 3x3 stride-1 convolutions (Lavin & Gray, "Fast
// Algorithms for Convolutional Neural Networks", 2015): every 2x2 block of outputs ("tile") of an
// output channel is
//
//   Y = A^T [ sum over input channels of (G g G^T) . (B^T d B) ] A
//
// with d the 4x4 input patch of the tile, g a 3x3 filter and `.` the element-wise product. The 16
// element-wise positions xi of the bracket are 16 independent GEMMs, M_xi = U_xi x V_xi over the
// input channels, with U = G g G^T (the weights, transformed once) and V = B^T d B (the input, per
// run): 16 multiply-adds per tile and channel pair instead of 36, 2.25 times fewer.
//
//   B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1]   G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1]
//   A^T = [1 1 1 0; 0 1 -1 -1]
//
// The transforms only add and subtract (and halve the weights), so the results differ from a
// direct sum by rounding alone, a few units in the last place of the largest terms. The functions
// here work on one "lane" type L: float, or a GCC/clang vector of floats holding 8 tiles side by
// side; they are inline so that a cpu::run clone compiles them for its instruction set.
#pragma once

#include <cstdint>

namespace irlite::nn {

// u[xi * cout * cin + o * cin + i] = (G g G^T)[xi] of filter g = w[(o * cin + i) * 9 ..], computed
// in double and rounded once.
void winograd_filters(const float* w, int64_t cout, int64_t cin, float* u);

// V = B^T d B of a 4x4 patch d[r][k] (row r, column k); v[xi] with xi = 4a + b.
template <class L>
inline void winograd_input_tile(const L (&d)[4][4], L (&v)[16]) {
    L h[4][4];
    for (int r = 0; r < 4; ++r) {
        h[r][0] = d[r][0] - d[r][2];
        h[r][1] = d[r][1] + d[r][2];
        h[r][2] = d[r][2] - d[r][1];
        h[r][3] = d[r][1] - d[r][3];
    }
    for (int k = 0; k < 4; ++k) {
        v[0 + k] = h[0][k] - h[2][k];
        v[4 + k] = h[1][k] + h[2][k];
        v[8 + k] = h[2][k] - h[1][k];
        v[12 + k] = h[1][k] - h[3][k];
    }
}

// The 2x2 outputs y[row][col] = A^T m A of the 16 sums m[xi].
template <class L>
inline void winograd_output_tile(const L (&m)[16], L (&y)[2][2]) {
    L s[2][4];
    for (int b = 0; b < 4; ++b) {
        s[0][b] = m[b] + m[4 + b] + m[8 + b];
        s[1][b] = m[4 + b] - m[8 + b] - m[12 + b];
    }
    for (int r = 0; r < 2; ++r) {
        y[r][0] = s[r][0] + s[r][1] + s[r][2];
        y[r][1] = s[r][1] - s[r][2] - s[r][3];
    }
}

}  // namespace irlite::nn
