// GridSample-9 (opset9+): samples a 4D image at the normalized (x, y) points of a grid.
// Inputs: 0 'data' [N, C, H, W] (every numeric type: f16, bf16, f32, f64, i8..i64, u8..u64;
// boolean is refused), 1 'grid' [N, H_out, W_out, 2] (f16, bf16, f32, f64) holding (x, y) pairs,
// x along W, y along H, -1..1 spanning the image. Output [N, C, H_out, W_out] of data's type.
// Attributes: align_corners (default false), mode = bilinear (default) | bicubic | nearest,
// padding_mode = zeros (default) | border | reflection.
//
// Denormalization, per axis of L pixels: align_corners=true maps -1 and 1 to the centers of the
// edge pixels, p = (v + 1) * (L - 1) / 2; false maps them to the outer edges of the edge pixels,
// p = ((v + 1) * L - 1) / 2.
// mode=nearest picks pixel round(p), rounding halves to even (the spec leaves the rounding open;
// this is OpenVINO's reference, which uses the current rounding mode, round-to-nearest-even, and
// PyTorch's choice). mode=bilinear weighs the 2 x 2 pixels around p, mode=bicubic the 4 x 4 around
// it with Keys' cubic convolution, A = -0.75 (OpenVINO's reference and PyTorch's).
// Padding applies to each pixel index an interpolation reads: zeros reads 0 outside the image;
// border clamps the index into [0, L-1]; reflection mirrors it: with align_corners=true about the
// edge pixels' centers (-1 -> 1, L -> L-2; a 1-pixel axis always reads pixel 0), with false about
// their outer edges (-1 -> 0, L -> L-1), as often as needed.
// Denormalized coordinates are clamped to [-2^40, 2^40] first (so infinities are handled like far
// points); a NaN grid value is an error naming its position. An empty image (H or W = 0) gives
// zeros whatever the padding.
// Nearest copies the picked element bit for bit (every type, exact). Bilinear and bicubic compute
// in double; floating-point results are rounded once to data's type, integer results are rounded
// half to even and saturated to the type's range (bicubic can overshoot).
// Only 4D data is supported; the 5D (volumetric) form of newer specifications is refused.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/detail/eltwise.hpp"
#include "kernels/detail/index_values.hpp"
#include "kernels/detail/nn_common.hpp"
#include "kernels/detail/parallel.hpp"

namespace irlite {
namespace {

constexpr size_t kData = 0, kGrid = 1;
constexpr double kCoordLimit = 1099511627776.0;  // 2^40

enum class Mode { Bilinear, Bicubic, Nearest };
enum class Padding { Zeros, Border, Reflection };

struct GridSampleAttrs : OpAttrs {
    bool align_corners = false;
    Mode mode = Mode::Bilinear;
    Padding padding = Padding::Zeros;
};

std::unique_ptr<OpAttrs> parse(const AttrReader& r) {
    auto a = std::make_unique<GridSampleAttrs>();
    a->align_corners = r.get_bool("align_corners", false);
    const std::string mode = r.get_enum("mode", {"bilinear", "bicubic", "nearest"}, "bilinear");
    a->mode = mode == "bicubic" ? Mode::Bicubic : mode == "nearest" ? Mode::Nearest : Mode::Bilinear;
    const std::string pad = r.get_enum("padding_mode", {"zeros", "border", "reflection"}, "zeros");
    a->padding = pad == "border" ? Padding::Border : pad == "reflection" ? Padding::Reflection : Padding::Zeros;
    return a;
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    const ElementType t = ctx.type(kData);
    if (t == ElementType::boolean || !is_storable(t) || !(is_float(t) || is_integral(t)))
        throw ctx.input_error(kData, ErrorKind::Type, "type-unsupported",
                              str("element type ", to_string(t), " is not supported; expected a floating-point or integer type"));
    nn::require_float(ctx, kGrid);
    const PartialShape& data = ctx.shape(kData);
    const PartialShape& grid = ctx.shape(kGrid);
    if (data.rank_known() && data.rank() == 5)
        throw ctx.input_error(kData, ErrorKind::Unsupported, "rank-unsupported",
                              str("5D (volumetric) GridSample is not supported, got shape ", to_string(data)));
    nn::require_rank(ctx, kData, 4, 4, "a 4D tensor [N, C, H, W]");
    nn::require_rank(ctx, kGrid, 4, 4, "a 4D tensor [N, H_out, W_out, 2]");
    if (grid.rank_known() && !dims_compatible(grid[3], 2))
        throw ctx.input_error(kGrid, ErrorKind::ShapeRule, "grid-shape",
                              str("grid must be [N, H_out, W_out, 2] (x, y) pairs, got shape ", to_string(grid)));
    int64_t n = data.rank_known() ? data[0] : kDynamic;
    if (grid.rank_known()) {
        if (!dims_compatible(n, grid[0]))
            throw ctx.input_error(kGrid, ErrorKind::ShapeRule, "shape-mismatch",
                                  str("grid has batch ", grid[0], " but data has ", n));
        if (n == kDynamic) n = grid[0];
    }
    const int64_t c = data.rank_known() ? data[1] : kDynamic;
    const int64_t h = grid.rank_known() ? grid[1] : kDynamic, w = grid.rank_known() ? grid[2] : kDynamic;
    return {{t, PartialShape({n, c, h, w})}};
}

struct GridSamplePlan : OpPlan {
    int64_t n = 0, c = 0, h = 0, w = 0, out_h = 0, out_w = 0;
};

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    infer(ctx);
    const Shape& d = ctx.shape(kData).dims();
    const Shape& g = ctx.shape(kGrid).dims();
    auto plan = std::make_unique<GridSamplePlan>();
    plan->n = d[0];
    plan->c = d[1];
    plan->h = d[2];
    plan->w = d[3];
    plan->out_h = g[1];
    plan->out_w = g[2];
    const Mode m = ctx.attrs<GridSampleAttrs>().mode;
    plan->method = m == Mode::Nearest ? "nearest" : m == Mode::Bicubic ? "bicubic" : "bilinear";
    return plan;
}

template <class T>
void store(T* p, int64_t i, double v) {
    if constexpr (std::is_same_v<T, float16>) {
        p[i] = float16{f32_to_f16(static_cast<float>(v))};
    } else if constexpr (std::is_same_v<T, bfloat16>) {
        p[i] = bfloat16{f32_to_bf16(static_cast<float>(v))};
    } else if constexpr (std::is_floating_point_v<T>) {
        p[i] = static_cast<T>(v);
    } else {
        // Round half to even, then saturate (NaN cannot occur: inputs are integers, weights finite).
        double r = std::floor(v);
        const double frac = v - r;
        if (frac > 0.5 || (frac == 0.5 && std::fmod(r, 2.0) != 0.0)) r += 1.0;
        const auto lo = static_cast<double>(std::numeric_limits<T>::lowest());
        const auto hi = static_cast<double>(std::numeric_limits<T>::max());
        if (r <= lo) p[i] = std::numeric_limits<T>::lowest();
        else if (r >= hi) p[i] = std::numeric_limits<T>::max();  // hi may round up past max: saturate
        else p[i] = static_cast<T>(r);
    }
}

double denormalize(double v, int64_t size, bool align) {
    const auto l = static_cast<double>(size);
    const double p = align ? (v + 1.0) * (l - 1.0) / 2.0 : ((v + 1.0) * l - 1.0) / 2.0;
    return std::clamp(p, -kCoordLimit, kCoordLimit);
}

double round_half_even(double v) {
    double r = std::floor(v);
    const double frac = v - r;
    if (frac > 0.5 || (frac == 0.5 && std::fmod(r, 2.0) != 0.0)) r += 1.0;
    return r;
}

// The pixel that index i reads along an axis of `size` (> 0) pixels, or -1 for a zero.
int64_t padded(int64_t i, int64_t size, Padding padding, bool align) {
    if (i >= 0 && i < size) return i;
    switch (padding) {
        case Padding::Zeros: return -1;
        case Padding::Border: return i < 0 ? 0 : size - 1;
        case Padding::Reflection:
            if (align) {
                if (size == 1) return 0;
                const int64_t period = 2 * (size - 1);
                int64_t m = (i < 0 ? -i : i) % period;
                return m >= size ? period - m : m;
            } else {
                const int64_t period = 2 * size;
                const int64_t m = ((i % period) + period) % period;
                return m >= size ? period - 1 - m : m;
            }
    }
    return -1;
}

// Keys' cubic convolution weights of the 4 pixels floor(p) - 1 .. floor(p) + 2, t = p - floor(p).
std::array<double, 4> cubic_weights(double t) {
    constexpr double A = -0.75;
    const auto near = [](double d) { return ((A + 2) * d - (A + 3)) * d * d + 1; };       // |d| <= 1
    const auto far = [](double d) { return ((A * d - 5 * A) * d + 8 * A) * d - 4 * A; };  // 1 < |d| < 2
    return {far(t + 1), near(t), near(1 - t), far(2 - t)};
}

// Up to 16 (pixel offset in the plane, weight) pairs for one output location.
struct Taps {
    std::array<int64_t, 16> offset{};
    std::array<double, 16> weight{};
    int count = 0;
    void add(int64_t y, int64_t x, int64_t W, double w) {
        if (y < 0 || x < 0) return;  // a zero of the padding
        offset[static_cast<size_t>(count)] = y * W + x;
        weight[static_cast<size_t>(count)] = w;
        ++count;
    }
};

// Every grid value a number, before any output is written.
void check_grid(const KernelContext& ctx, const Tensor& grid) {
    const int64_t total = grid.num_elements();
    for (int64_t i = 0; i < total; ++i)
        if (std::isnan(grid.value_as_double(i)))
            throw ctx.input_error(kGrid, ErrorKind::Value, "grid-invalid",
                                  str("grid", detail::position_text(grid.shape(), i),
                                      " = nan: sampling coordinates must be numbers"));
}

// Output locations [begin, end) of the flattened [N, H_out, W_out], every channel.
template <class T>
void sample(const GridSampleAttrs& a, const GridSamplePlan& p, const T* data, const Tensor& grid, T* out, int64_t begin,
            int64_t end) {
    const int64_t H = p.h, W = p.w, plane = H * W, out_plane = p.out_h * p.out_w;
    const bool align = a.align_corners;
    for (int64_t loc = begin; loc < end; ++loc) {
        const int64_t n = loc / out_plane;
        T* o = out + n * p.c * out_plane + loc % out_plane;
        const T* src = data + n * p.c * plane;
        if (H == 0 || W == 0) {
            for (int64_t c = 0; c < p.c; ++c) store(o, c * out_plane, 0.0);
            continue;
        }
        const double x = denormalize(grid.value_as_double(2 * loc), W, align);
        const double y = denormalize(grid.value_as_double(2 * loc + 1), H, align);
        if (a.mode == Mode::Nearest) {
            const int64_t yi = padded(static_cast<int64_t>(round_half_even(y)), H, a.padding, align);
            const int64_t xi = padded(static_cast<int64_t>(round_half_even(x)), W, a.padding, align);
            for (int64_t c = 0; c < p.c; ++c) {
                if (yi < 0 || xi < 0) store(o, c * out_plane, 0.0);
                else o[c * out_plane] = src[c * plane + yi * W + xi];
            }
            continue;
        }
        const double fy = std::floor(y), fx = std::floor(x);
        const double ty = y - fy, tx = x - fx;
        const auto y0 = static_cast<int64_t>(fy), x0 = static_cast<int64_t>(fx);
        Taps taps;
        if (a.mode == Mode::Bilinear) {
            const double wy[2] = {1 - ty, ty}, wx[2] = {1 - tx, tx};
            for (int64_t j = 0; j < 2; ++j)
                for (int64_t i = 0; i < 2; ++i)
                    taps.add(padded(y0 + j, H, a.padding, align), padded(x0 + i, W, a.padding, align), W,
                             wy[j] * wx[i]);
        } else {
            const std::array<double, 4> wy = cubic_weights(ty), wx = cubic_weights(tx);
            for (int64_t j = 0; j < 4; ++j)
                for (int64_t i = 0; i < 4; ++i)
                    taps.add(padded(y0 - 1 + j, H, a.padding, align), padded(x0 - 1 + i, W, a.padding, align), W,
                             wy[static_cast<size_t>(j)] * wx[static_cast<size_t>(i)]);
        }
        for (int64_t c = 0; c < p.c; ++c) {
            const T* s = src + c * plane;
            double v = 0;
            for (int k = 0; k < taps.count; ++k)
                v += taps.weight[static_cast<size_t>(k)] * detail::load_double(s, taps.offset[static_cast<size_t>(k)]);
            store(o, c * out_plane, v);
        }
    }
}

void compute(KernelContext& ctx) {
    const auto& plan = ctx.plan<GridSamplePlan>();
    const auto& a = ctx.attrs<GridSampleAttrs>();
    const Tensor& data = ctx.input(kData);
    const Tensor& grid = ctx.input(kGrid);
    Tensor& out = ctx.output(0);
    check_grid(ctx, grid);
    const int64_t locations = plan.n * plan.out_h * plan.out_w;
    const int64_t per_location = std::max<int64_t>(1, plan.c) * (a.mode == Mode::Bicubic ? 16 : 4);
    const int64_t grain = std::max<int64_t>(1, 65536 / per_location);
    dispatch_type(data.type(), [&](auto tag) {
        using T = decltype(tag);
        if constexpr (!std::is_same_v<T, bool>) {
            const T* x = data.data<T>();
            T* y = out.data<T>();
            detail::for_chunks(ctx.pool(), locations, grain,
                               [&](int64_t begin, int64_t end) { sample<T>(a, plan, x, grid, y, begin, end); });
        }
    });
}

}  // namespace

OpDef make_grid_sample_op() {
    OpDef d;
    d.type = "GridSample";
    d.version = 9;
    d.first_opset = 9;
    d.last_opset = kLatestOpset;
    d.input_roles = {"data", "grid"};
    d.min_inputs = 2;
    d.parse_attrs = parse;
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace irlite
