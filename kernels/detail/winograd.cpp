// Winograd F(2x2, 3x3): the filter transform (see winograd.hpp).
#include "kernels/detail/winograd.hpp"

#include <cstddef>

namespace irlite::nn {

void winograd_filters(const float* w, int64_t cout, int64_t cin, float* u) {
    const size_t plane = static_cast<size_t>(cout * cin);
    for (int64_t o = 0; o < cout; ++o) {
        for (int64_t i = 0; i < cin; ++i) {
            const float* g = w + (o * cin + i) * 9;
            double t[4][3];  // G g: rows of the 4x3 product
            for (int k = 0; k < 3; ++k) {
                const double g0 = g[k], g1 = g[3 + k], g2 = g[6 + k];
                t[0][k] = g0;
                t[1][k] = (g0 + g1 + g2) / 2;
                t[2][k] = (g0 - g1 + g2) / 2;
                t[3][k] = g2;
            }
            const size_t at = static_cast<size_t>(o * cin + i);
            for (int a = 0; a < 4; ++a) {  // (G g) G^T
                const double t0 = t[a][0], t1 = t[a][1], t2 = t[a][2];
                u[(4 * a + 0) * plane + at] = static_cast<float>(t0);
                u[(4 * a + 1) * plane + at] = static_cast<float>((t0 + t1 + t2) / 2);
                u[(4 * a + 2) * plane + at] = static_cast<float>((t0 - t1 + t2) / 2);
                u[(4 * a + 3) * plane + at] = static_cast<float>(t2);
            }
        }
    }
}

}  // namespace irlite::nn
