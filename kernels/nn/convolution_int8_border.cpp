// The int8 convolutions' correction at a padded border for a level for 0 between two levels
// (Int8BorderFix, convolution_int8.hpp), shared by the dense and the depthwise methods.
#include <algorithm>
#include <utility>
#include <vector>

#include "kernels/nn/convolution_int8.hpp"

namespace irlite::nn {
namespace {

// Per output position of one axis, the class of its range of valid taps (those inside the data),
// into `ranges` (class 0: every tap).
std::vector<int32_t> tap_classes(const AxisWindow& a, std::vector<std::pair<int64_t, int64_t>>& ranges) {
    ranges.assign(1, {0, a.kernel - 1});
    std::vector<int32_t> classes(static_cast<size_t>(a.out));
    for (int64_t o = 0; o < a.out; ++o) {
        std::pair<int64_t, int64_t> valid{a.kernel, -1};  // empty
        for (int64_t k = 0; k < a.kernel; ++k) {
            const int64_t i = o * a.stride - a.pad_begin + k * a.dilation;
            if (i >= 0 && i < a.in) valid = {std::min(valid.first, k), std::max(valid.second, k)};
        }
        auto found = std::find(ranges.begin(), ranges.end(), valid);
        if (found == ranges.end()) found = ranges.insert(ranges.end(), valid);
        classes[static_cast<size_t>(o)] = static_cast<int32_t>(found - ranges.begin());
    }
    return classes;
}

}  // namespace

// Int8BorderFix for weights [cout][cin][kh][kw] (`q`); inactive without a zero offset or padding.
Int8BorderFix int8_border_fix(const Int8ConvShape& shape, const QuantizedInput& q, const std::vector<float>& alpha) {
    Int8BorderFix fix;
    if (q.zero_offset == 0) return fix;
    std::vector<std::pair<int64_t, int64_t>> rows, cols;
    fix.row_class = tap_classes(shape.h, rows);
    fix.col_class = tap_classes(shape.w, cols);
    if (rows.size() == 1 && cols.size() == 1) return Int8BorderFix{};  // no padded tap anywhere
    fix.col_classes = static_cast<int64_t>(cols.size());
    const int64_t cout = shape.out_channels, cin = shape.channels, kh = shape.h.kernel, kw = shape.w.kernel;
    for (int64_t x = 0; x < shape.w.out; ++x)
        if (fix.col_class[static_cast<size_t>(x)] != 0) fix.border_cols.push_back(static_cast<int32_t>(x));
    const size_t classes = rows.size() * cols.size();
    fix.classes = static_cast<int64_t>(classes);
    fix.add.assign(classes * static_cast<size_t>(cout), 0.f);
    for (size_t rc = 0; rc < rows.size(); ++rc)
        for (size_t cc = 0; cc < cols.size(); ++cc)
            for (int64_t m = 0; m < cout; ++m) {
                int64_t padded = 0;  // the weights of the taps outside (rows x cols)
                for (int64_t c = 0; c < cin; ++c)
                    for (int64_t y = 0; y < kh; ++y)
                        for (int64_t x = 0; x < kw; ++x) {
                            const bool inside = y >= rows[rc].first && y <= rows[rc].second && x >= cols[cc].first &&
                                                x <= cols[cc].second;
                            if (!inside) padded += q.weights[static_cast<size_t>(((m * cin + c) * kh + y) * kw + x)];
                        }
                fix.add[static_cast<size_t>(m) * classes + rc * cols.size() + cc] =
                    static_cast<float>(static_cast<double>(alpha[static_cast<size_t>(m)]) * q.zero_offset * padded);
            }
    return fix;
}

// Int8BorderFix's additions to the block C rows [m0, m1) x columns [n0, n1) at c (row stride ldc),
// row by row of C (its rows are far apart: a column at a time would miss the cache each step).
void apply_int8_border_fix(const Int8BorderFix& b, int64_t ow, int64_t m0, int64_t m1, int64_t n0, int64_t n1, float* c,
                           int64_t ldc) {
    const int64_t classes = b.classes;
    for (int64_t oy = n0 / ow; oy * ow < n1; ++oy) {
        const int64_t first = std::max(n0, oy * ow) - oy * ow, last = std::min(n1, (oy + 1) * ow) - oy * ow;
        const int64_t row_classes = b.row_class[static_cast<size_t>(oy)] * b.col_classes;  // this row's first class
        for (int64_t m = m0; m < m1; ++m) {
            float* row = c + (m - m0) * ldc + (oy * ow - n0);
            const float* add = b.add.data() + m * classes + row_classes;
            if (row_classes != 0) {
                for (int64_t x = first; x < last; ++x) row[x] += add[b.col_class[static_cast<size_t>(x)]];
            } else {
                for (int32_t x : b.border_cols)
                    if (x >= first && x < last) row[x] += add[b.col_class[static_cast<size_t>(x)]];
            }
        }
    }
}

}  // namespace irlite::nn
