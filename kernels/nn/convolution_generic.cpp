// Convolution's generic method (kernels/nn/convolution_methods.hpp), for any spatial rank (1-D, 2-D,
// 3-D) and both directions: im2col + GEMM (forward, "generic"), GEMM + col2im (the backprop ops), in
// column chunks that bound the scratch buffer; a 1x1 stride-1 convolution is a GEMM on the data
// itself, and a group with one input channel runs a direct kernel. The 2-D forward convolutions of
// CNNs take the faster methods of the other files; this one is the reference for every shape.
#include <algorithm>
#include <array>

#include "kernels/detail/nn_gemm.hpp"
#include "kernels/nn/convolution_methods.hpp"

namespace irlite::nn::conv {
namespace {

// Numbers per spatial axis (at most 3: rank 3..5), held inline so that the N-d path allocates
// nothing per run.
class Dims {
public:
    static constexpr size_t kMax = 3;
    explicit Dims(size_t n = 0, int64_t value = 0) : n_(n) { v_.fill(value); }
    size_t size() const { return n_; }
    int64_t& operator[](size_t i) { return v_[i]; }
    int64_t operator[](size_t i) const { return v_[i]; }
    int64_t back() const { return v_[n_ - 1]; }
    void push_back(int64_t x) { v_[n_++] = x; }
    void pop_back() { --n_; }
    const int64_t* begin() const { return v_.data(); }
    const int64_t* end() const { return v_.data() + n_; }

private:
    std::array<int64_t, kMax> v_{};
    size_t n_ = 0;
};

// Visits every multi-index of dims in row-major order.
template <class F>
void for_each_index(const Dims& dims, F&& f) {
    int64_t total = 1;
    for (int64_t d : dims) total *= d;
    Dims index(dims.size(), 0);
    for (int64_t n = 0; n < total; ++n) {
        f(index);
        for (size_t d = dims.size(); d-- > 0;) {
            if (++index[d] < dims[d]) break;
            index[d] = 0;
        }
    }
}

Dims strides_of(const std::vector<nn::AxisWindow>& axes, bool data_side) {
    Dims s(axes.size(), 1);
    for (size_t i = axes.size(); i-- > 1;) s[i - 1] = s[i] * (data_side ? axes[i].in : axes[i].out);
    return s;
}

// A run of consecutive positions along the last spatial axis of one side (the result for im2col,
// the data for col2im), with fixed coordinates on the other axes.
struct Segment {
    int64_t column;  // position of the run's first element in the chunk
    int64_t first;   // coordinate of that element along the last axis
    int64_t count;
    Dims lead;  // coordinates along the other axes
};

// Splits positions [begin, begin + len) of a row-major grid of `dims` into segments, visited in
// order (made as they are visited: nothing to allocate).
template <class F>
void for_each_segment(const Dims& dims, int64_t begin, int64_t len, F&& f) {
    const int64_t last = dims.back();
    const size_t lead_rank = dims.size() - 1;
    int64_t pos = begin;
    while (pos < begin + len) {
        Segment s;
        s.column = pos - begin;
        s.first = pos % last;
        s.count = std::min(last - s.first, begin + len - pos);
        int64_t rest = pos / last;
        s.lead = Dims(lead_rank, 0);
        for (size_t d = lead_rank; d-- > 0;) {
            s.lead[d] = rest % dims[d];
            rest /= dims[d];
        }
        pos += s.count;
        f(s);
    }
}

Dims axis_dims(const std::vector<nn::AxisWindow>& axes, bool data_side) {
    Dims d;
    for (const auto& a : axes) d.push_back(data_side ? a.in : a.out);
    return d;
}

Dims kernel_dims(const std::vector<nn::AxisWindow>& axes) {
    Dims d;
    for (const auto& a : axes) d.push_back(a.kernel);
    return d;
}

// Offset, along the leading spatial axes, of the element that kernel tap `tap` of position `lead`
// reaches (lead * stride - pad_begin + tap * dilation on each axis), or -1 when that falls outside
// [0, limit): the data when forward (lead are result coordinates), the result otherwise (lead are
// data coordinates).
int64_t lead_offset(const std::vector<nn::AxisWindow>& axes, const Dims& lead, const Dims& tap, const Dims& strides,
                    bool forward) {
    int64_t off = 0;
    for (size_t a = 0; a + 1 < axes.size(); ++a) {
        const nn::AxisWindow& w = axes[a];
        const int64_t c = lead[a] * w.stride - w.pad_begin + tap[a] * w.dilation;
        if (c < 0 || c >= (forward ? w.in : w.out)) return -1;
        off += c * strides[a];
    }
    return off;
}

// col[row][j] for rows (channel, kernel tap) and the chunk's result positions j: the data element
// that tap reads, 0 in the padding.
template <class T>
void im2col(const ConvProblem& p, const T* x, int64_t begin, int64_t len, T* col) {
    const auto& axes = p.axes;
    const nn::AxisWindow& last = axes.back();
    const Dims out_dims = axis_dims(axes, false);
    const Dims in_strides = strides_of(axes, true);
    const int64_t in_spatial = p.in_spatial();
    int64_t row = 0;
    for (int64_t c = 0; c < p.in_per_group; ++c) {
        const T* xc = x + c * in_spatial;
        for_each_index(kernel_dims(axes), [&](const Dims& tap) {
            T* dst_row = col + row++ * len;
            const int64_t shift = tap.back() * last.dilation - last.pad_begin;
            // (a pair, not a structured binding: the lambda below captures lo and hi)
            const auto range = nn::affine_range(last.out, last.stride, shift, last.in);
            const int64_t lo = range.first, hi = range.second;
            for_each_segment(out_dims, begin, len, [&](const Segment& s) {
                T* dst = dst_row + s.column;
                const int64_t off = lead_offset(axes, s.lead, tap, in_strides, true);
                const int64_t a = std::clamp(lo, s.first, s.first + s.count);
                const int64_t b = std::clamp(hi, a, s.first + s.count);
                if (off < 0) {
                    std::fill(dst, dst + s.count, T(0));
                    return;
                }
                std::fill(dst, dst + (a - s.first), T(0));
                const T* src = xc + off;  // element o of the run reads src[o * stride + shift]
                if (last.stride == 1) {
                    std::copy(src + (a + shift), src + (b + shift), dst + (a - s.first));
                } else {
                    for (int64_t o = a; o < b; ++o) dst[o - s.first] = src[o * last.stride + shift];
                }
                std::fill(dst + (b - s.first), dst + s.count, T(0));
            });
        });
    }
}

// The reverse of im2col for the backprop ops: adds col[row][j] (rows: output channel, kernel tap;
// j: the chunk's data positions) into the result element it lands on.
template <class T>
void col2im_add(const ConvProblem& p, const T* col, int64_t begin, int64_t len, T* y) {
    const auto& axes = p.axes;
    const nn::AxisWindow& last = axes.back();
    const Dims in_dims = axis_dims(axes, true);
    const Dims out_strides = strides_of(axes, false);
    const int64_t out_spatial = p.out_spatial();
    int64_t row = 0;
    for (int64_t c = 0; c < p.out_per_group; ++c) {
        T* yc = y + c * out_spatial;
        for_each_index(kernel_dims(axes), [&](const Dims& tap) {
            const T* src_row = col + row++ * len;
            const int64_t shift = tap.back() * last.dilation - last.pad_begin;
            // (a pair, not a structured binding: the lambda below captures lo and hi)
            const auto range = nn::affine_range(last.in, last.stride, shift, last.out);
            const int64_t lo = range.first, hi = range.second;
            for_each_segment(in_dims, begin, len, [&](const Segment& s) {
                const int64_t off = lead_offset(axes, s.lead, tap, out_strides, false);
                if (off < 0) return;
                const int64_t a = std::clamp(lo, s.first, s.first + s.count);
                const int64_t b = std::clamp(hi, a, s.first + s.count);
                const T* src = src_row + s.column;  // element i of the run is src[i - s.first]
                T* dst = yc + off;
                for (int64_t i = a; i < b; ++i) dst[i * last.stride + shift] += src[i - s.first];
            });
        });
    }
}

// One output channel of a group with a single input channel: for each result row, each kernel tap
// adds weight x (a shifted data row) over the range of positions where it reads real data.
template <class T>
void direct_single_channel(const ConvProblem& p, const T* x, const T* w, T* y) {
    const auto& axes = p.axes;
    const nn::AxisWindow& last = axes.back();
    const Dims in_strides = strides_of(axes, true);
    Dims out_lead = axis_dims(axes, false), kernel_lead = kernel_dims(axes);
    out_lead.pop_back();
    kernel_lead.pop_back();
    std::fill(y, y + p.out_spatial(), T(0));
    T* y_row = y;
    for_each_index(out_lead, [&](const Dims& lead) {
        const T* w_row = w;
        for_each_index(kernel_lead, [&](const Dims& tap) {
            const int64_t off = lead_offset(axes, lead, tap, in_strides, true);
            if (off >= 0) {
                for (int64_t k = 0; k < last.kernel; ++k) {
                    const T wv = w_row[k];
                    const T* src = x + off;
                    const int64_t shift = k * last.dilation - last.pad_begin;
                    const auto [lo, hi] = nn::affine_range(last.out, last.stride, shift, last.in);
                    if (last.stride == 1) {
                        for (int64_t o = lo; o < hi; ++o) y_row[o] += wv * src[o + shift];
                    } else {
                        for (int64_t o = lo; o < hi; ++o) y_row[o] += wv * src[o * last.stride + shift];
                    }
                }
            }
            w_row += last.kernel;
        });
        y_row += last.out;
    });
}

// The generic path's column block (im2col forward, col2im backprop): elements of it in scratch,
// 0 when the forward path reads the data directly (one input channel, or 1x1 stride 1).
bool generic_direct(const ConvProblem& p) { return p.in_per_group == 1 && p.out_per_group <= 4; }

int64_t generic_col_elements(const ConvProblem& p, bool backprop) {
    if (backprop) {
        const int64_t rows = p.out_per_group * p.kernel_size();
        return rows * chunk_columns(rows, p.in_spatial());
    }
    if (generic_direct(p) || is_pointwise(p)) return 0;
    const int64_t rows = p.in_per_group * p.kernel_size();
    return rows * chunk_columns(rows, p.out_spatial());
}

// `col`: generic_col_elements(p, false) elements of scratch.
template <class T>
void forward(const ConvProblem& p, const T* x, const T* w, T* y, T* col) {
    const int64_t cin = p.in_per_group, cout = p.out_per_group, kernel = p.kernel_size();
    const int64_t in_spatial = p.in_spatial(), out_spatial = p.out_spatial();
    const int64_t rows = cin * kernel;
    const bool direct = generic_direct(p);
    const bool pointwise = is_pointwise(p);
    const int64_t chunk = chunk_columns(rows, out_spatial);
    for (int64_t n = 0; n < p.batch; ++n) {
        for (int64_t g = 0; g < p.groups; ++g) {
            const T* xg = x + (n * p.groups + g) * cin * in_spatial;
            const T* wg = w + g * cout * rows;
            T* yg = y + (n * p.groups + g) * cout * out_spatial;
            if (direct) {
                for (int64_t j = 0; j < cout; ++j) direct_single_channel(p, xg, wg + j * kernel, yg + j * out_spatial);
            } else if (pointwise) {
                nn::gemm<T>(false, false, cout, out_spatial, cin, wg, cin, xg, in_spatial, yg, out_spatial, false);
            } else {
                for (int64_t begin = 0; begin < out_spatial; begin += chunk) {
                    const int64_t len = std::min(chunk, out_spatial - begin);
                    im2col(p, xg, begin, len, col);
                    nn::gemm<T>(false, false, cout, len, rows, wg, rows, col, len, yg + begin, out_spatial, false);
                }
            }
        }
    }
}

// `col`: generic_col_elements(p, true) elements of scratch.
template <class T>
void backprop(const ConvProblem& p, const T* x, const T* w, T* y, T* col) {
    const int64_t cin = p.in_per_group, cout = p.out_per_group, kernel = p.kernel_size();
    const int64_t in_spatial = p.in_spatial(), out_spatial = p.out_spatial();
    const int64_t rows = cout * kernel;
    const int64_t chunk = chunk_columns(rows, in_spatial);
    std::fill(y, y + p.batch * p.groups * cout * out_spatial, T(0));
    for (int64_t n = 0; n < p.batch; ++n) {
        for (int64_t g = 0; g < p.groups; ++g) {
            const T* xg = x + (n * p.groups + g) * cin * in_spatial;
            const T* wg = w + g * cin * rows;
            T* yg = y + (n * p.groups + g) * cout * out_spatial;
            for (int64_t begin = 0; begin < in_spatial; begin += chunk) {
                const int64_t len = std::min(chunk, in_spatial - begin);
                nn::gemm<T>(true, false, rows, len, cin, wg, rows, xg + begin, in_spatial, col, len, false);
                col2im_add(p, col, begin, len, yg);
            }
        }
    }
}

}  // namespace

GenericPlan plan_generic(const ConvProblem& p, bool backprop, size_t elem) {
    GenericPlan plan;
    plan.backprop = backprop;
    plan.col_elements = generic_col_elements(p, backprop);
    plan.scratch_bytes = static_cast<size_t>(plan.col_elements) * elem;
    return plan;
}

template <class T>
void run_generic(const ConvProblem& p, const GenericPlan& plan, const ConvTensors<T>& io, T* col) {
    if (plan.backprop) backprop(p, io.x, io.w, io.y, col);
    else forward(p, io.x, io.w, io.y, col);
}

template void run_generic<float>(const ConvProblem&, const GenericPlan&, const ConvTensors<float>&, float*);
template void run_generic<double>(const ConvProblem&, const GenericPlan&, const ConvTensors<double>&, double*);

}  // namespace irlite::nn::conv
