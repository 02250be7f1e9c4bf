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
#include "kernels/detail/index_values.hpp"
#include "kernels/detail/rule_context.hpp"

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

// Everything the kernel needs, derived from the inputs' shapes and values.
struct Plan {
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

// The plan; output dims stay kDynamic where they depend on values not known yet.
Plan make_plan(const InferContext& ctx) {
    const auto& a = ctx.attrs<InterpolateAttrs>();
    const PartialShape& in = ctx.shape(0);
    Plan p;
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
    return {{ctx.type(0), make_plan(ctx).output}};
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

// The taps of one output coordinate along one axis: input coordinates and weights.
struct Taps {
    std::vector<int64_t> index;
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
std::vector<Taps> axis_taps(const InterpolateAttrs& a, float scale, int64_t in_len, int64_t out_len, bool antialias) {
    std::vector<Taps> all(static_cast<size_t>(out_len));
    const auto clamp = [&](int64_t i) { return std::min(std::max<int64_t>(i, 0), in_len - 1); };
    // Coordinates far outside the input all land on its edge; keeping them within a few pixels of
    // it keeps the float -> integer conversions below defined for any scale.
    const float lo = -8.0f, hi = static_cast<float>(in_len) + 8.0f;
    for (int64_t x = 0; x < out_len; ++x) {
        Taps& t = all[static_cast<size_t>(x)];
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
                    t.index = {i1};
                    t.weight = {1.0};
                } else {
                    t.index = {i1, i2};
                    t.weight = {static_cast<double>(i2) - c, c - static_cast<double>(i1)};
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
                for (double& w : t.weight) w /= sum;
                break;
            }
        }
    }
    return all;
}

// ---- kernel ------------------------------------------------------------------------------------

// Copies `in` into the middle of a zero tensor of the padded shape.
Tensor pad_input(const Tensor& in, const std::vector<int64_t>& pb, const Shape& padded_shape) {
    Tensor out(in.type(), padded_shape);
    if (in.num_elements() == 0) return out;
    const size_t rank = in.rank();
    const size_t elem = element_size(in.type());
    const std::vector<int64_t> out_strides = row_major_strides(padded_shape);
    const int64_t row = in.shape()[rank - 1];
    const int64_t rows = in.num_elements() / row;
    std::vector<int64_t> counter(rank - 1, 0);
    for (int64_t r = 0; r < rows; ++r) {
        int64_t offset = pb[rank - 1];
        for (size_t d = 0; d + 1 < rank; ++d) offset += (counter[d] + pb[d]) * out_strides[d];
        std::memcpy(out.bytes() + offset * static_cast<int64_t>(elem), in.bytes() + r * row * static_cast<int64_t>(elem),
                    static_cast<size_t>(row) * elem);
        for (size_t d = rank - 1; d-- > 0;) {
            if (++counter[d] < in.shape()[d]) break;
            counter[d] = 0;
        }
    }
    return out;
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

// Nearest: every output element copies one input element (bytes; any type).
void resize_nearest(const Tensor& in, Tensor& out, const std::vector<std::vector<int64_t>>& maps) {
    const size_t rank = in.rank();
    const int64_t elem = static_cast<int64_t>(element_size(in.type()));
    const std::vector<int64_t> strides = row_major_strides(in.shape());
    if (out.num_elements() == 0) return;
    if (rank == 0) {
        std::memcpy(out.data(), in.data(), static_cast<size_t>(elem));
        return;
    }
    const int64_t row = out.shape()[rank - 1];
    const int64_t rows = out.num_elements() / row;
    const std::vector<int64_t>& last = maps[rank - 1];
    std::vector<int64_t> counter(rank - 1, 0);
    std::byte* dst = out.bytes();
    for (int64_t r = 0; r < rows; ++r) {
        int64_t base = 0;
        for (size_t d = 0; d + 1 < rank; ++d) base += maps[d][static_cast<size_t>(counter[d])] * strides[d];
        gather_row(dst, in.bytes() + base * elem, last.data(), row, static_cast<size_t>(elem));
        dst += row * elem;
        for (size_t d = rank - 1; d-- > 0;) {
            if (++counter[d] < out.shape()[d]) break;
            counter[d] = 0;
        }
    }
}

// One separable pass along `axis`: shape[axis] goes from in_len to taps.size().
template <class C>
std::vector<C> resize_axis(const std::vector<C>& src, Shape& shape, size_t axis, const std::vector<Taps>& taps) {
    int64_t outer = 1, inner = 1;
    for (size_t d = 0; d < axis; ++d) outer *= shape[d];
    for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
    const int64_t in_len = shape[axis];
    const int64_t out_len = static_cast<int64_t>(taps.size());
    std::vector<C> dst(static_cast<size_t>(outer * out_len * inner), C{0});
    for (int64_t o = 0; o < outer; ++o) {
        const C* s = src.data() + o * in_len * inner;
        for (int64_t x = 0; x < out_len; ++x) {
            C* d = dst.data() + (o * out_len + x) * inner;
            const Taps& t = taps[static_cast<size_t>(x)];
            for (size_t k = 0; k < t.index.size(); ++k) {
                const C w = static_cast<C>(t.weight[k]);
                const C* row = s + t.index[k] * inner;
                for (int64_t i = 0; i < inner; ++i) d[i] += w * row[i];
            }
        }
    }
    shape[axis] = out_len;
    return dst;
}

template <class C>
void resize_filtered(const Tensor& in, Tensor& out, const std::vector<int64_t>& axes,
                     const std::vector<std::vector<Taps>>& taps) {
    std::vector<C> buf(static_cast<size_t>(in.num_elements()));
    dispatch_type(in.type(), [&](auto tag) {
        using T = decltype(tag);
        const T* p = in.data<T>();
        for (size_t i = 0; i < buf.size(); ++i) {
            if constexpr (std::is_same_v<T, float16>) buf[i] = static_cast<C>(f16_to_f32(p[i].bits));
            else if constexpr (std::is_same_v<T, bfloat16>) buf[i] = static_cast<C>(bf16_to_f32(p[i].bits));
            else if constexpr (std::is_floating_point_v<T>) buf[i] = static_cast<C>(p[i]);
        }
    });
    Shape shape = in.shape();
    for (size_t k = 0; k < axes.size(); ++k) buf = resize_axis(buf, shape, static_cast<size_t>(axes[k]), taps[k]);
    dispatch_type(out.type(), [&](auto tag) {
        using T = decltype(tag);
        T* o = out.data<T>();
        for (size_t i = 0; i < buf.size(); ++i) {
            if constexpr (std::is_same_v<T, float16>) o[i] = float16{f32_to_f16(static_cast<float>(buf[i]))};
            else if constexpr (std::is_same_v<T, bfloat16>) o[i] = bfloat16{f32_to_bf16(static_cast<float>(buf[i]))};
            else if constexpr (std::is_floating_point_v<T>) o[i] = static_cast<T>(buf[i]);
        }
    });
}

void compute(KernelContext& ctx) {
    const auto& a = ctx.attrs<InterpolateAttrs>();
    const InferContext rule = detail::rule_context(ctx);
    const Plan plan = make_plan(rule);
    Tensor& out = ctx.output(0);
    const Tensor& data = ctx.input(0);
    const size_t rank = data.rank();
    const Shape padded = plan.padded.to_shape();
    const Tensor in = padded == data.shape() ? data : pad_input(data, fit_pads(a.pads_begin, rank), padded);
    if (out.num_elements() == 0) return;
    for (size_t k = 0; k < plan.axes.size(); ++k) {
        const size_t axis = static_cast<size_t>(plan.axes[k]);
        if (padded[axis] == 0)
            throw ctx.input_error(0, ErrorKind::Value, "empty-dim",
                                  str("cannot resize dim ", axis, " of size 0 to ", out.shape()[axis]));
    }
    bool downsample = false;
    for (float s : plan.scales) downsample |= s < 1.0f;
    const bool antialias = a.antialias && downsample;
    // Axes in increasing order (the passes commute); taps per axis.
    std::vector<size_t> order(plan.axes.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return plan.axes[x] < plan.axes[y]; });
    std::vector<int64_t> axes;
    std::vector<std::vector<Taps>> taps;
    for (size_t k : order) {
        const size_t axis = static_cast<size_t>(plan.axes[k]);
        axes.push_back(plan.axes[k]);
        taps.push_back(axis_taps(a, plan.scales[k], padded[axis], out.shape()[axis], antialias));
    }
    if (a.mode == Mode::Nearest) {
        std::vector<std::vector<int64_t>> maps(rank);
        for (size_t d = 0; d < rank; ++d)
            for (int64_t x = 0; x < out.shape()[d]; ++x) maps[d].push_back(x);
        for (size_t k = 0; k < axes.size(); ++k) {
            auto& m = maps[static_cast<size_t>(axes[k])];
            for (size_t x = 0; x < m.size(); ++x) m[x] = taps[k][x].index[0];
        }
        resize_nearest(in, out, maps);
        return;
    }
    if (in.type() == ElementType::f64) resize_filtered<double>(in, out, axes, taps);
    else resize_filtered<float>(in, out, axes, taps);
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

OpDef make_interpolate_v4_op() {
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
    d.compute = compute;
    return d;
}

OpDef make_interpolate_v11_op() {
    OpDef d;
    d.type = "Interpolate";
    d.version = 11;
    d.first_opset = 11;
    d.input_roles = {"image", "scales_or_sizes", "axes"};
    d.min_inputs = 2;
    d.value_inputs = inputs(1, 2);
    d.parse_attrs = [](const AttrReader& r) { return parse(r, 11); };
    d.infer = infer;
    d.compute = compute;
    return d;
}

}  // namespace irlite
