// Interpolate-4 (opset4..opset10) and Interpolate-11 (opset11+): resizes a tensor along some axes.
// Inputs, v11: 0 'image', 1 'scales_or_sizes', 2 'axes' (optional).
//         v4:  0 'data', 1 'sizes', 2 'scales', 3 'axes' (optional).
// sizes: 1-D integers; scales: 1-D f16/bf16/f32/f64; axes: 1-D integers, distinct, in [-r, r-1]
// (default 0..r-1); all value inputs, with one size or scale per axis.
// Attributes: mode (nearest, linear, linear_onnx, cubic; the pillow modes are rejected as
// unsupported), shape_calculation_mode (sizes or scales), coordinate_transformation_mode
// (half_pixel default, pytorch_half_pixel, asymmetric, tf_half_pixel_for_nn, align_corners),
// nearest_mode (round_prefer_floor default, round_prefer_ceil, floor, ceil, simple), antialias
// (linear mode only), pads_begin / pads_end (zero padding added first; >= 0; padded or cut to the
// rank), cube_coeff (-0.75).
// Output: every dim d is in[d] + pads; along the axes, sizes[i], or floor(padded * (scale + 1e-6))
// in scales mode (OpenVINO's epsilon, in f32). The scale an axis uses for coordinates is the given
// one in scales mode and out / padded_in in sizes mode.
// Types: nearest moves bytes, so every element type; linear, linear_onnx and cubic need f16, bf16,
// f32 or f64 (computed in f32, f64 for f64). Every mode is separable: the kernel resizes one axis
// at a time, each output element a weighted sum of a few input elements along that axis.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "engine/op.hpp"
#include "kernels/detail/eltwise.hpp"
#include "kernels/detail/float_value.hpp"
#include "kernels/detail/index_values.hpp"
#include "kernels/detail/nn_common.hpp"
#include "kernels/detail/parallel.hpp"

namespace irlite {
namespace {

enum class Mode { Nearest, Linear, LinearOnnx, Cubic };
enum class CoordMode { HalfPixel, PytorchHalfPixel, Asymmetric, TfHalfPixelForNn, AlignCorners };
enum class NearestMode { RoundPreferFloor, RoundPreferCeil, Floor, Ceil, Simple };

struct InterpolateAttrs : OpAttrs {
    int version = 11;
    Mode mode = Mode::Nearest;
    bool sizes_mode = true;  // shape_calculation_mode
    CoordMode coord = CoordMode::HalfPixel;
    NearestMode nearest = NearestMode::RoundPreferFloor;
    bool antialias = false;
    std::vector<int64_t> pads_begin, pads_end;
    double cube_coeff = -0.75;
};

// Input ports by version.
size_t sizes_port(const InterpolateAttrs&) { return 1; }
size_t scales_port(const InterpolateAttrs& a) { return a.version >= 11 ? 1 : 2; }
size_t axes_port(const InterpolateAttrs& a) { return a.version >= 11 ? 2 : 3; }
size_t target_port(const InterpolateAttrs& a) { return a.sizes_mode ? sizes_port(a) : scales_port(a); }

// A pads attribute extended with 0s or cut to the rank (OpenVINO's correct_pad).
std::vector<int64_t> fit_pads(const std::vector<int64_t>& pads, size_t rank) {
    std::vector<int64_t> out(rank, 0);
    for (size_t i = 0; i < rank && i < pads.size(); ++i) out[i] = pads[i];
    return out;
}

// The resize's geometry, derived from the inputs' shapes and values.
struct Geometry {
    std::vector<int64_t> axes;    // normalized, in input order
    std::vector<float> scales;    // per axis, for coordinate transforms
    PartialShape padded;          // input shape + pads
    PartialShape output;
};

std::vector<int64_t> read_axes(const InferContext& ctx, size_t rank) {
    const auto& a = ctx.attrs<InterpolateAttrs>();
    const size_t port = axes_port(a);
    std::vector<int64_t> axes;
    if (ctx.num_inputs() <= port) {
        for (size_t i = 0; i < rank; ++i) axes.push_back(static_cast<int64_t>(i));
        return axes;
    }
    std::vector<bool> seen(rank, false);
    for (int64_t v : detail::read_index_values(ctx, port)) {
        const int64_t axis = detail::normalize_axis_at(ctx, port, v, static_cast<int64_t>(rank));
        if (seen[static_cast<size_t>(axis)])
            throw ctx.input_error(port, ErrorKind::Value, "duplicate-axis", str("axis ", v, " appears twice in axes"));
        seen[static_cast<size_t>(axis)] = true;
        axes.push_back(axis);
    }
    return axes;
}

std::vector<double> read_float_values(const Tensor& t) {
    std::vector<double> out(static_cast<size_t>(t.num_elements()));
    for (size_t i = 0; i < out.size(); ++i) out[i] = t.value_as_double(static_cast<int64_t>(i));
    return out;
}

void check_types(const InferContext& ctx) {
    const auto& a = ctx.attrs<InterpolateAttrs>();
    if (a.mode != Mode::Nearest && !is_float(ctx.type(0)))
        throw ctx.input_error(0, ErrorKind::Unsupported, "type-unsupported",
                              str("modes linear, linear_onnx and cubic need f16, bf16, f32 or f64 data, got ",
                                  to_string(ctx.type(0))));
    const bool has_sizes = a.version < 11 || a.sizes_mode;
    const bool has_scales = a.version < 11 || !a.sizes_mode;
    if (has_sizes) detail::require_index_type(ctx, sizes_port(a), detail::IndexTypes::AnyInteger);
    if (has_scales && !is_float(ctx.type(scales_port(a))))
        throw ctx.input_error(scales_port(a), ErrorKind::Type, "type-invalid",
                              str("scales must be a floating-point tensor, got ", to_string(ctx.type(scales_port(a)))));
    if (ctx.num_inputs() > axes_port(a)) detail::require_index_type(ctx, axes_port(a), detail::IndexTypes::AnyInteger);
    for (size_t port = 1; port < ctx.num_inputs(); ++port) {
        const PartialShape& s = ctx.shape(port);
        if (s.rank_known() && s.rank() != 1)
            throw ctx.input_error(port, ErrorKind::ShapeRule, "rank-invalid",
                                  str(ctx.def().input_roles[port], " must be 1-D, got shape ", to_string(s)));
    }
}

// The geometry; output dims stay kDynamic where they depend on values not known yet.
Geometry make_geometry(const InferContext& ctx) {
    const auto& a = ctx.attrs<InterpolateAttrs>();
    const PartialShape& in = ctx.shape(0);
    Geometry p;
    const size_t rank = in.rank();
    const std::vector<int64_t> pb = fit_pads(a.pads_begin, rank), pe = fit_pads(a.pads_end, rank);
    p.padded = in;
    for (size_t d = 0; d < rank; ++d)
        if (in[d] != kDynamic) p.padded[d] = in[d] + pb[d] + pe[d];
    p.output = p.padded;
    const bool axes_known = ctx.num_inputs() <= axes_port(a) || ctx.value(axes_port(a));
    if (!axes_known) {
        p.output = PartialShape::all_dynamic(rank);
        return p;
    }
    p.axes = read_axes(ctx, rank);
    const size_t port = target_port(a);
    if (!ctx.value(port)) {
        for (int64_t axis : p.axes) p.output[static_cast<size_t>(axis)] = kDynamic;
        return p;
    }
    const Tensor& target = *ctx.value(port);
    if (static_cast<size_t>(target.num_elements()) != p.axes.size())
        throw ctx.input_error(port, ErrorKind::ShapeRule, "length-mismatch",
                              str(ctx.def().input_roles[port], " has ", target.num_elements(), " values but there are ",
                                  p.axes.size(), " axes"));
    if (a.sizes_mode) {
        const std::vector<int64_t> sizes = detail::read_index_values(target);
        for (size_t i = 0; i < sizes.size(); ++i) {
            if (sizes[i] < 0)
                throw ctx.input_error(port, ErrorKind::Value, "value-out-of-range",
                                      str("sizes[", i, "] = ", sizes[i], " is negative"));
            const size_t axis = static_cast<size_t>(p.axes[i]);
            p.output[axis] = sizes[i];
            const int64_t in_dim = p.padded[axis];
            p.scales.push_back(in_dim > 0 ? static_cast<float>(sizes[i]) / static_cast<float>(in_dim) : 1.0f);
        }
    } else {
        const std::vector<double> scales = read_float_values(target);
        for (size_t i = 0; i < scales.size(); ++i) {
            const float scale = static_cast<float>(scales[i]);  // OpenVINO computes scales in f32
            if (!(scale > 0) || !std::isfinite(scale))
                throw ctx.input_error(port, ErrorKind::Value, "value-out-of-range",
                                      str("scales[", i, "] = ", scales[i], " must be a finite number > 0 (in f32)"));
            const size_t axis = static_cast<size_t>(p.axes[i]);
            p.scales.push_back(scale);
            if (p.padded[axis] != kDynamic) {
                const double out = std::floor(static_cast<double>(static_cast<float>(p.padded[axis]) * (scale + 1e-6f)));
                if (out > 1e15)
                    throw ctx.input_error(port, ErrorKind::Limit, "size-overflow",
                                          str("scales[", i, "] = ", scales[i], " makes dim ", axis, " too large"));
                p.output[axis] = static_cast<int64_t>(out);
            }
        }
    }
    return p;
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    const auto& a = ctx.attrs<InterpolateAttrs>();
    if (static_cast<int>(ctx.num_inputs()) <= static_cast<int>(target_port(a)))
        throw Error(ErrorKind::Graph, "input-missing", str(ctx.def().input_roles[target_port(a)], " input is missing"));
    check_types(ctx);
    if (!ctx.shape(0).rank_known()) return {{ctx.type(0), PartialShape::dynamic_rank()}};
    for (int64_t pad : a.pads_begin)
        if (pad < 0) throw Error(ErrorKind::Attribute, "attribute-invalid", "attribute 'pads_begin' must not be negative");
    for (int64_t pad : a.pads_end)
        if (pad < 0) throw Error(ErrorKind::Attribute, "attribute-invalid", "attribute 'pads_end' must not be negative");
    return {{ctx.type(0), make_geometry(ctx).output}};
}

// ---- coordinates -------------------------------------------------------------------------------

// The input coordinate of output coordinate x along an axis (OpenVINO computes it in f32).
float original_coordinate(CoordMode mode, float x, float scale, int64_t out_len, int64_t in_len) {
    switch (mode) {
        case CoordMode::HalfPixel: return (x + 0.5f) / scale - 0.5f;
        case CoordMode::PytorchHalfPixel: return out_len > 1 ? (x + 0.5f) / scale - 0.5f : 0.0f;
        case CoordMode::Asymmetric: return x / scale;
        case CoordMode::TfHalfPixelForNn: return (x + 0.5f) / scale;
        case CoordMode::AlignCorners:
            return out_len == 1 ? 0.0f
                                : x * static_cast<float>(in_len - 1) / static_cast<float>(out_len - 1);
    }
    return 0;
}

int64_t nearest_pixel(NearestMode mode, float x, bool downsample) {
    switch (mode) {
        case NearestMode::RoundPreferFloor:
            return x == std::floor(x) + 0.5f ? static_cast<int64_t>(std::floor(x)) : static_cast<int64_t>(std::round(x));
        case NearestMode::RoundPreferCeil: return static_cast<int64_t>(std::round(x));
        case NearestMode::Floor: return static_cast<int64_t>(std::floor(x));
        case NearestMode::Ceil: return static_cast<int64_t>(std::ceil(x));
        case NearestMode::Simple: return downsample ? static_cast<int64_t>(std::ceil(x)) : static_cast<int64_t>(x);
    }
    return 0;
}

// The taps of every output coordinate along one axis, flat: coordinate x's input coordinates and
// weights are index[first[x] .. first[x + 1]) and the same of weight. Flat, not a vector per
// coordinate: an output axis of millions (a fuzzed `sizes`) costs three vectors, not millions.
struct Taps {
    std::vector<int64_t> first{0}, index;
    std::vector<double> weight;
};

double cubic_weight(double s, double a, int k) {
    const double t = std::abs(s);
    switch (k) {
        case 0: return a * (t - 1.0) * (t - 1.0) * t;
        case 1: return ((a + 2.0) * t - (a + 3.0)) * t * t + 1.0;
        case 2: return (((-a - 2.0) * t + (2.0 * a + 3.0)) * t - a) * t;
        default: return -a * t * t * (t - 1.0);
    }
}

// Taps for every output coordinate of one axis (in_len >= 1).
Taps axis_taps(const InterpolateAttrs& a, float scale, int64_t in_len, int64_t out_len, bool antialias) {
    Taps t;
    // Every mode but the antialiasing Linear has at most 4 taps per coordinate: reserving them
    // spares the copies of growing (an output axis may have millions of coordinates).
    const size_t taps = a.mode == Mode::Nearest ? 1 : a.mode == Mode::LinearOnnx ? 2 : 4;
    t.first.reserve(static_cast<size_t>(out_len) + 1);
    t.index.reserve(static_cast<size_t>(out_len) * taps);
    t.weight.reserve(static_cast<size_t>(out_len) * taps);
    const auto clamp = [&](int64_t i) { return std::min(std::max<int64_t>(i, 0), in_len - 1); };
    // Coordinates far outside the input all land on its edge; keeping them within a few pixels of
    // it keeps the float -> integer conversions below defined for any scale.
    const float lo = -8.0f, hi = static_cast<float>(in_len) + 8.0f;
    for (int64_t x = 0; x < out_len; ++x) {
        const size_t begin = t.index.size();
        const float coord =
            std::min(std::max(original_coordinate(a.coord, static_cast<float>(x), scale, out_len, in_len), lo), hi);
        switch (a.mode) {
            case Mode::Nearest:
                t.index.push_back(clamp(nearest_pixel(a.nearest, coord, scale < 1.0f)));
                t.weight.push_back(1.0);
                break;
            case Mode::LinearOnnx: {
                const double c = std::min(std::max(static_cast<double>(coord), 0.0), static_cast<double>(in_len - 1));
                const int64_t i1 = clamp(static_cast<int64_t>(c));
                const int64_t i2 = std::min(i1 + 1, in_len - 1);
                if (i1 == i2) {
                    t.index.push_back(i1);
                    t.weight.push_back(1.0);
                } else {
                    t.index.insert(t.index.end(), {i1, i2});
                    t.weight.insert(t.weight.end(), {static_cast<double>(i2) - c, c - static_cast<double>(i1)});
                }
                break;
            }
            case Mode::Cubic: {
                const double c = coord;
                const int64_t base = static_cast<int64_t>(std::floor(c));
                const double frac = c - static_cast<double>(base);
                for (int k = 0; k < 4; ++k) {
                    t.index.push_back(clamp(base + k - 1));
                    t.weight.push_back(cubic_weight(frac, a.cube_coeff, k));
                }
                break;
            }
            case Mode::Linear: {
                // A triangle filter, widened by 1/scale when antialiasing a downscale; taps outside
                // the input are dropped and the rest renormalized.
                const double support = antialias ? static_cast<double>(scale) : 1.0;
                const double reach = scale > 1.0f ? 2.0 : std::min(std::ceil(2.0 / support), static_cast<double>(in_len) + 16);
                const int64_t radius = static_cast<int64_t>(reach);
                const int64_t center = static_cast<int64_t>(std::round(coord));
                double sum = 0;
                for (int64_t i = std::max<int64_t>(center - radius, 0); i <= std::min(center + radius, in_len - 1); ++i) {
                    const double w = std::max(0.0, 1.0 - std::abs(support * (static_cast<double>(coord) - static_cast<double>(i))));
                    if (w == 0) continue;
                    t.index.push_back(i);
                    t.weight.push_back(w);
                    sum += w;
                }
                for (size_t k = begin; k < t.weight.size(); ++k) t.weight[k] /= sum;
                break;
            }
        }
        t.first.push_back(static_cast<int64_t>(t.index.size()));
    }
    return t;
}

// ---- plan ---------------------------------------------------------------------------------------

// One separable pass along an axis of a [outer, in_len, inner] tensor: output coordinate x of
// [outer, out_len, inner] is the sum over taps [first[x], first[x + 1]) of weight * input row index.
struct AxisPass : Taps {
    size_t axis = 0;
    int64_t outer = 1, in_len = 1, out_len = 1, inner = 1;
};

// Everything the kernel needs, made once: the padding, the nearest maps or the filtered passes,
// and where each piece lives in scratch (the padded input, two buffers the passes alternate).
struct InterpolatePlan : OpPlan {
    size_t elem = 0;                 // bytes per element
    Shape data_shape, padded, output;
    std::vector<int64_t> padded_strides;  // per dim, of the padded input
    std::vector<int64_t> pads_begin;      // per dim (empty: no padding)
    bool nearest = false, f64 = false;
    std::vector<int64_t> maps, map_first;  // nearest: dim d's input coordinates from maps[map_first[d]]
    std::vector<AxisPass> passes;          // filtered: in increasing axis order (the passes commute)
    size_t pad_bytes = 0, buffer_bytes = 0;
};

// The filtered passes over `geometry`'s axes, in increasing axis order, and the largest tensor
// any of them reads or writes (elements).
int64_t plan_passes(const InterpolateAttrs& a, const Geometry& g, bool antialias, InterpolatePlan& plan) {
    std::vector<size_t> order(g.axes.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return g.axes[x] < g.axes[y]; });
    Shape shape = plan.padded;
    int64_t largest = checked_num_elements(shape);
    for (size_t k : order) {
        const auto axis = static_cast<size_t>(g.axes[k]);
        AxisPass pass;
        pass.axis = axis;
        for (size_t d = 0; d < axis; ++d) pass.outer *= shape[d];
        for (size_t d = axis + 1; d < shape.size(); ++d) pass.inner *= shape[d];
        pass.in_len = shape[axis];
        pass.out_len = plan.output[axis];
        static_cast<Taps&>(pass) = axis_taps(a, g.scales[k], pass.in_len, pass.out_len, antialias);
        shape[axis] = pass.out_len;
        largest = std::max(largest, checked_num_elements(shape));
        plan.passes.push_back(std::move(pass));
    }
    return largest;
}

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    const auto& a = ctx.attrs<InterpolateAttrs>();
    const Geometry g = make_geometry(ctx);
    auto plan = std::make_unique<InterpolatePlan>();
    plan->method = a.mode == Mode::Nearest ? "nearest" : "separable";
    plan->elem = element_size(ctx.type(0));
    plan->data_shape = ctx.shape(0).to_shape();
    plan->padded = g.padded.to_shape();
    plan->output = g.output.to_shape();
    const size_t rank = plan->data_shape.size();
    plan->padded_strides = row_major_strides(plan->padded);
    if (plan->padded != plan->data_shape) {
        plan->pads_begin = fit_pads(a.pads_begin, rank);
        plan->pad_bytes = nn::round64(static_cast<size_t>(checked_num_elements(plan->padded)) * plan->elem);
    }
    if (checked_num_elements(plan->output) == 0) return plan;
    for (int64_t axis : g.axes)
        if (plan->padded[static_cast<size_t>(axis)] == 0)
            throw ctx.input_error(0, ErrorKind::Value, "empty-dim",
                                  str("cannot resize dim ", axis, " of size 0 to ", plan->output[static_cast<size_t>(axis)]));
    bool downsample = false;
    for (float s : g.scales) downsample |= s < 1.0f;
    const bool antialias = a.antialias && downsample;
    plan->nearest = a.mode == Mode::Nearest;
    if (plan->nearest) {
        // Identity maps for the dims not resized; each output coordinate's one tap for the others.
        plan_passes(a, g, antialias, *plan);
        size_t k = 0;  // the passes are in increasing axis order
        for (size_t d = 0; d < rank; ++d) {
            plan->map_first.push_back(static_cast<int64_t>(plan->maps.size()));
            const AxisPass* pass = k < plan->passes.size() && plan->passes[k].axis == d ? &plan->passes[k++] : nullptr;
            for (int64_t x = 0; x < plan->output[d]; ++x)
                plan->maps.push_back(pass ? pass->index[static_cast<size_t>(pass->first[static_cast<size_t>(x)])] : x);
        }
        plan->passes.clear();
        plan->scratch_bytes = plan->pad_bytes;
        return plan;
    }
    plan->f64 = ctx.type(0) == ElementType::f64;
    const int64_t largest = plan_passes(a, g, antialias, *plan);
    plan->buffer_bytes = nn::round64(static_cast<size_t>(largest) * (plan->f64 ? sizeof(double) : sizeof(float)));
    plan->scratch_bytes = plan->pad_bytes + 2 * plan->buffer_bytes;
    return plan;
}

// ---- kernel ------------------------------------------------------------------------------------

// The offset of row r (all dims but the last) of a tensor of `dims`, in elements, with each
// coordinate mapped through coordinate(d, c) and `strides` (one row per value of the leading dims).
template <class Coordinate>
int64_t row_offset(const Shape& dims, int64_t r, const std::vector<int64_t>& strides, Coordinate coordinate) {
    int64_t offset = 0;
    for (size_t d = dims.size() - 1; d-- > 0;) {
        const int64_t c = r % dims[d];
        r /= dims[d];
        offset += coordinate(d, c) * strides[d];
    }
    return offset;
}

// The data in the middle of a zero tensor of the padded shape, at `dst`.
void pad_input(const InterpolatePlan& plan, const Tensor& in, std::byte* dst) {
    std::memset(dst, 0, static_cast<size_t>(checked_num_elements(plan.padded)) * plan.elem);
    const size_t rank = plan.data_shape.size();
    const int64_t row = plan.data_shape[rank - 1];
    if (in.num_elements() == 0) return;
    const int64_t rows = in.num_elements() / row;
    const auto elem = static_cast<int64_t>(plan.elem);
    for (int64_t r = 0; r < rows; ++r) {
        const int64_t offset = plan.pads_begin[rank - 1] +
                               row_offset(plan.data_shape, r, plan.padded_strides, [&](size_t d, int64_t c) { return c + plan.pads_begin[d]; });
        std::memcpy(dst + offset * elem, in.bytes() + r * row * elem, static_cast<size_t>(row * elem));
    }
}

// One output row of nearest: dst[x] = src[map[x]], items of N bytes.
template <size_t N>
void gather_row(std::byte* dst, const std::byte* src, const int64_t* map, int64_t count) {
    for (int64_t x = 0; x < count; ++x, dst += N) std::memcpy(dst, src + map[x] * static_cast<int64_t>(N), N);
}

void gather_row(std::byte* dst, const std::byte* src, const int64_t* map, int64_t count, size_t elem) {
    switch (elem) {
        case 1: return gather_row<1>(dst, src, map, count);
        case 2: return gather_row<2>(dst, src, map, count);
        case 4: return gather_row<4>(dst, src, map, count);
        default: return gather_row<8>(dst, src, map, count);
    }
}

// Nearest: every output element copies one input element (bytes; any type), row by row.
void resize_nearest(const InterpolatePlan& plan, const std::byte* in, Tensor& out, ThreadPool* pool) {
    const size_t rank = plan.output.size();
    const auto elem = static_cast<int64_t>(plan.elem);
    if (rank == 0) {
        std::memcpy(out.data(), in, plan.elem);
        return;
    }
    const int64_t row = plan.output[rank - 1];
    const int64_t rows = out.num_elements() / row;
    const int64_t* last = plan.maps.data() + plan.map_first[rank - 1];
    std::byte* dst = out.bytes();
    const int64_t grain = std::max<int64_t>(1, detail::kCopyGrainBytes / std::max<int64_t>(1, row * elem));
    detail::for_chunks(pool, rows, grain, [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
            const int64_t base = row_offset(plan.output, r, plan.padded_strides, [&](size_t d, int64_t c) {
                return plan.maps[static_cast<size_t>(plan.map_first[d] + c)];
            });
            gather_row(dst + r * row * elem, in + base * elem, last, row, plan.elem);
        }
    });
}

// One pass: dst [outer, out_len, inner] from src [outer, in_len, inner].
template <class C>
void run_pass(const AxisPass& pass, const C* src, C* dst, ThreadPool* pool) {
    const int64_t units = pass.outer * pass.out_len, inner = pass.inner;
    const int64_t taps = static_cast<int64_t>(pass.index.size()) / std::max<int64_t>(pass.out_len, 1) + 1;
    const int64_t grain = std::max<int64_t>(1, detail::kEltwiseGrain / std::max<int64_t>(1, inner * taps));
    detail::for_chunks(pool, units, grain, [&](int64_t u0, int64_t u1) {
        for (int64_t u = u0; u < u1; ++u) {
            const int64_t o = u / pass.out_len, x = u % pass.out_len;
            const C* s = src + o * pass.in_len * inner;
            C* d = dst + u * inner;
            std::fill(d, d + inner, C{0});
            for (int64_t k = pass.first[static_cast<size_t>(x)]; k < pass.first[static_cast<size_t>(x) + 1]; ++k) {
                const C w = static_cast<C>(pass.weight[static_cast<size_t>(k)]);
                const C* row = s + pass.index[static_cast<size_t>(k)] * inner;
                for (int64_t i = 0; i < inner; ++i) d[i] += w * row[i];
            }
        }
    });
}

// Linear, linear_onnx, cubic: the data in compute type C, one pass per axis between two scratch
// buffers (the last straight into the output when it has type C), then stored in the output type.
template <class C>
void resize_filtered(const InterpolatePlan& plan, const std::byte* in, ElementType type, Tensor& out, std::byte* buffers,
                     ThreadPool* pool) {
    C* buf[2] = {reinterpret_cast<C*>(buffers), reinterpret_cast<C*>(buffers + plan.buffer_bytes)};
    const int64_t n = checked_num_elements(plan.padded);
    dispatch_type(type, [&](auto tag) {
        using T = decltype(tag);
        const T* p = reinterpret_cast<const T*>(in);
        if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>)
            for (int64_t i = 0; i < n; ++i) buf[0][i] = detail::load_as<C>(p[i]);
    });
    const bool direct = out.type() == element_type_of<C>();
    int cur = 0;
    for (size_t k = 0; k < plan.passes.size(); ++k) {
        C* dst = direct && k + 1 == plan.passes.size() ? out.data<C>() : buf[1 - cur];
        run_pass(plan.passes[k], buf[cur], dst, pool);
        if (dst == out.data<C>()) return;
        cur = 1 - cur;
    }
    const C* result = buf[cur];
    dispatch_type(out.type(), [&](auto tag) {
        using T = decltype(tag);
        T* o = out.data<T>();
        if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>)
            for (int64_t i = 0; i < out.num_elements(); ++i) o[i] = detail::store_as<T>(result[i]);
    });
}

void compute(KernelContext& ctx) {
    const auto& plan = ctx.plan<InterpolatePlan>();
    const Tensor& data = ctx.input(0);
    Tensor& out = ctx.output(0);
    IRLITE_CHECK(data.shape() == plan.data_shape && out.shape() == plan.output, ErrorKind::ShapeRule,
                 "kernel-output-mismatch", "Interpolate was prepared for ", to_string(plan.data_shape), " -> ",
                 to_string(plan.output), ", not ", to_string(data.shape()), " -> ", to_string(out.shape()));
    if (out.num_elements() == 0) return;
    auto* scratch = static_cast<std::byte*>(ctx.scratch());
    const std::byte* in = data.bytes();
    if (!plan.pads_begin.empty()) {
        pad_input(plan, data, scratch);
        in = scratch;
    }
    if (plan.nearest) return resize_nearest(plan, in, out, ctx.pool());
    if (plan.f64) resize_filtered<double>(plan, in, data.type(), out, scratch + plan.pad_bytes, ctx.pool());
    else resize_filtered<float>(plan, in, data.type(), out, scratch + plan.pad_bytes, ctx.pool());
}

// ---- definition --------------------------------------------------------------------------------

std::unique_ptr<OpAttrs> parse(const AttrReader& r, int version) {
    auto a = std::make_unique<InterpolateAttrs>();
    a->version = version;
    const std::string mode =
        r.get_enum("mode", {"nearest", "linear", "linear_onnx", "cubic", "bilinear_pillow", "bicubic_pillow"}, "");
    if (mode.empty()) throw Error(ErrorKind::Attribute, "attribute-missing", "required attribute 'mode' is missing");
    if (mode == "bilinear_pillow" || mode == "bicubic_pillow" || (version < 11 && mode.find("pillow") != std::string::npos))
        throw Error(ErrorKind::Unsupported, "interpolate-mode-unsupported",
                    str("attribute 'mode' = \"", mode, "\" is not supported (irlite has nearest, linear, linear_onnx, cubic)"));
    a->mode = mode == "linear" ? Mode::Linear : mode == "linear_onnx" ? Mode::LinearOnnx : mode == "cubic" ? Mode::Cubic : Mode::Nearest;
    const std::string calc = r.get_enum("shape_calculation_mode", {"sizes", "scales"}, "");
    if (calc.empty())
        throw Error(ErrorKind::Attribute, "attribute-missing", "required attribute 'shape_calculation_mode' is missing");
    a->sizes_mode = calc == "sizes";
    const std::string coord = r.get_enum(
        "coordinate_transformation_mode",
        {"half_pixel", "pytorch_half_pixel", "asymmetric", "tf_half_pixel_for_nn", "align_corners"}, "half_pixel");
    a->coord = coord == "pytorch_half_pixel" ? CoordMode::PytorchHalfPixel
               : coord == "asymmetric" ? CoordMode::Asymmetric
               : coord == "tf_half_pixel_for_nn" ? CoordMode::TfHalfPixelForNn
               : coord == "align_corners" ? CoordMode::AlignCorners : CoordMode::HalfPixel;
    const std::string nearest = r.get_enum(
        "nearest_mode", {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "simple"}, "round_prefer_floor");
    a->nearest = nearest == "round_prefer_ceil" ? NearestMode::RoundPreferCeil
                 : nearest == "floor" ? NearestMode::Floor
                 : nearest == "ceil" ? NearestMode::Ceil
                 : nearest == "simple" ? NearestMode::Simple : NearestMode::RoundPreferFloor;
    a->antialias = r.get_bool("antialias", false);
    a->pads_begin = r.get_i64_list("pads_begin", {0});
    a->pads_end = r.get_i64_list("pads_end", {0});
    a->cube_coeff = r.get_f64("cube_coeff", -0.75);
    return a;
}

}  // namespace

OpDef make_interpolate_4_op() {
    OpDef d;
    d.type = "Interpolate";
    d.version = 4;
    d.first_opset = 4;
    d.last_opset = 10;
    d.input_roles = {"data", "sizes", "scales", "axes"};
    d.min_inputs = 3;
    d.value_inputs = inputs(1, 2, 3);
    d.parse_attrs = [](const AttrReader& r) { return parse(r, 4); };
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

OpDef make_interpolate_11_op() {
    OpDef d;
    d.type = "Interpolate";
    d.version = 11;
    d.first_opset = 11;
    d.input_roles = {"image", "scales_or_sizes", "axes"};
    d.min_inputs = 2;
    d.value_inputs = inputs(1, 2);
    d.parse_attrs = [](const AttrReader& r) { return parse(r, 11); };
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace irlite
