#include "kernels/detail/nn_common.hpp"

#include <limits>

namespace irlite::nn {
namespace {

// Attribute values beyond this are rejected: no real model needs them, and it keeps every window
// computation far from int64 overflow.
constexpr int64_t kMaxWindowValue = std::numeric_limits<int32_t>::max();

const char* describe_allowed_float() { return "f16, bf16, f32 or f64"; }

Error attribute_error(const AttrReader& r, const char* name, const std::string& why) {
    return Error(ErrorKind::Attribute, "attribute-invalid",
                 str("attribute '", name, "' = \"", r.get_string(name, ""), "\" is invalid: ", why));
}

int64_t checked_mul(int64_t a, int64_t b) {
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r))
        throw Error(ErrorKind::Limit, "size-overflow", str("window size ", a, " x ", b, " overflows 64 bits"));
    return r;
}

int64_t checked_add(int64_t a, int64_t b) {
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        throw Error(ErrorKind::Limit, "size-overflow", str("window size ", a, " + ", b, " overflows 64 bits"));
    return r;
}

// A static cast between storage and compute types that knows f16, bf16 and bool.
template <class D, class S>
D cast_value(S v) {
    if constexpr (std::is_same_v<S, float16>) {
        return static_cast<D>(f16_to_f32(v.bits));
    } else if constexpr (std::is_same_v<S, bfloat16>) {
        return static_cast<D>(bf16_to_f32(v.bits));
    } else if constexpr (std::is_same_v<D, float16>) {
        return float16{f32_to_f16(static_cast<float>(v))};
    } else if constexpr (std::is_same_v<D, bfloat16>) {
        return bfloat16{f32_to_bf16(static_cast<float>(v))};
    } else if constexpr (std::is_same_v<D, bool>) {
        return v != S{};
    } else {
        return static_cast<D>(v);
    }
}

int64_t list_value(const std::vector<int64_t>& list, size_t i, int64_t fallback) {
    return list.empty() ? fallback : list[i];
}

}  // namespace

// ---- type checks -----------------------------------------------------------------------------

void require_float(const InferContext& ctx, size_t i) {
    if (!is_float(ctx.type(i)))
        throw ctx.input_error(i, ErrorKind::Type, "type-unsupported",
                              str("element type ", to_string(ctx.type(i)), " is not supported; expected ",
                                  describe_allowed_float()));
}

void require_numeric(const InferContext& ctx, size_t i) {
    if (ctx.type(i) == ElementType::boolean)
        throw ctx.input_error(i, ErrorKind::Type, "type-unsupported",
                              "element type boolean is not supported; expected a floating-point or integer type");
}

void require_integer(const InferContext& ctx, size_t i) {
    if (!is_integral(ctx.type(i)))
        throw ctx.input_error(i, ErrorKind::Type, "type-unsupported",
                              str("element type ", to_string(ctx.type(i)),
                                  " is not supported; expected an integer type"));
}

void require_same_type(const InferContext& ctx, size_t i, size_t ref) {
    if (ctx.type(i) != ctx.type(ref))
        throw ctx.input_error(i, ErrorKind::Type, "type-mismatch",
                              str("element type ", to_string(ctx.type(i)), " differs from input ", ref, "'s ",
                                  to_string(ctx.type(ref))));
}

ElementType require_one_storable_float_type(const InferContext& ctx) {
    const ElementType type = ctx.type(0);
    const std::string first = ctx.def().input_role(0);
    if (!is_storable_float(type))
        throw ctx.input_error(0, ErrorKind::Type, "element-type-unsupported",
                              str(first, " must be a floating-point tensor (f16, bf16, f32, f64), got ", to_string(type)));
    for (size_t i = 1; i < ctx.num_inputs(); ++i)
        if (ctx.type(i) != type)
            throw ctx.input_error(i, ErrorKind::Type, "element-type-mismatch",
                                  str(ctx.def().input_role(i), " is ", to_string(ctx.type(i)), " but ", first, " is ",
                                      to_string(type), ": every input has the same type"));
    return type;
}

void require_rank(const InferContext& ctx, size_t i, int64_t lo, int64_t hi, const char* what) {
    const PartialShape& s = ctx.shape(i);
    if (!s.rank_known()) return;
    const int64_t r = static_cast<int64_t>(s.rank());
    if (r < lo || r > hi)
        throw ctx.input_error(i, ErrorKind::ShapeRule, "rank-invalid",
                              str("expected ", what, " (rank ", lo,
                                  lo == hi ? "" : hi == std::numeric_limits<int64_t>::max() ? " or more" : str("..", hi),
                                  "), got shape ",
                                  to_string(s)));
}

// ---- compute types ---------------------------------------------------------------------------

template <class C>
void load_as(const Tensor& src, C* dst) {
    const int64_t n = src.num_elements();
    dispatch_type(src.type(), [&](auto tag) {
        using S = decltype(tag);
        const S* p = src.data<S>();
        for (int64_t i = 0; i < n; ++i) dst[i] = cast_value<C>(p[i]);
    });
}

template <class C>
void store_as(const C* src, Tensor& dst) {
    const int64_t n = dst.num_elements();
    dispatch_type(dst.type(), [&](auto tag) {
        using D = decltype(tag);
        D* p = dst.data<D>();
        for (int64_t i = 0; i < n; ++i) p[i] = cast_value<D>(src[i]);
    });
}

template void load_as<float>(const Tensor&, float*);
template void load_as<double>(const Tensor&, double*);
template void load_as<int64_t>(const Tensor&, int64_t*);
template void load_as<uint64_t>(const Tensor&, uint64_t*);
template void store_as<float>(const float*, Tensor&);
template void store_as<double>(const double*, Tensor&);
template void store_as<int64_t>(const int64_t*, Tensor&);
template void store_as<uint64_t>(const uint64_t*, Tensor&);

// ---- window attributes -----------------------------------------------------------------------

std::vector<int64_t> read_positive_list(const AttrReader& r, const char* name, int64_t min_value) {
    std::vector<int64_t> values = r.get_i64_list(name);
    for (int64_t v : values)
        if (v < min_value || v > kMaxWindowValue)
            throw attribute_error(r, name, str("values must be in [", min_value, ", ", kMaxWindowValue, "]"));
    return values;
}

WindowSpec read_window_spec(const AttrReader& r, bool has_dilations) {
    WindowSpec w;
    w.strides = read_positive_list(r, "strides", 1);
    if (has_dilations && r.has("dilations")) w.dilations = read_positive_list(r, "dilations", 1);
    const std::string pad =
        r.get_enum("auto_pad", {"explicit", "notset", "same_upper", "same_lower", "valid"}, "explicit");
    if (pad == "same_upper") w.auto_pad = AutoPad::SameUpper;
    else if (pad == "same_lower") w.auto_pad = AutoPad::SameLower;
    else if (pad == "valid") w.auto_pad = AutoPad::Valid;
    // pads are ignored unless explicit, but still checked when written.
    if (w.auto_pad == AutoPad::Explicit || r.has("pads_begin")) w.pads_begin = read_positive_list(r, "pads_begin", 0);
    if (w.auto_pad == AutoPad::Explicit || r.has("pads_end")) w.pads_end = read_positive_list(r, "pads_end", 0);
    if (w.auto_pad != AutoPad::Explicit) {
        w.pads_begin.clear();
        w.pads_end.clear();
    }
    return w;
}

Rounding read_rounding(const AttrReader& r, bool allow_ceil_torch) {
    std::vector<std::string> allowed = {"floor", "ceil"};
    if (allow_ceil_torch) allowed.push_back("ceil_torch");
    const std::string v = r.get_enum("rounding_type", allowed, "floor");
    if (v == "ceil") return Rounding::Ceil;
    if (v == "ceil_torch") return Rounding::CeilTorch;
    return Rounding::Floor;
}

void check_spatial_lists(const WindowSpec& w, size_t spatial_rank, const std::vector<int64_t>* extra,
                         const char* extra_name) {
    const auto check = [&](const std::vector<int64_t>& list, const char* name, bool may_be_empty) {
        if (list.size() == spatial_rank || (may_be_empty && list.empty())) return;
        throw Error(ErrorKind::Attribute, "attribute-invalid",
                    str("attribute '", name, "' has ", list.size(), " value(s); expected one per spatial axis (",
                        spatial_rank, ")"));
    };
    check(w.strides, "strides", false);
    check(w.dilations, "dilations", true);
    const bool explicit_pads = w.auto_pad == AutoPad::Explicit;
    check(w.pads_begin, "pads_begin", !explicit_pads);
    check(w.pads_end, "pads_end", !explicit_pads);
    if (extra) check(*extra, extra_name, true);
}

// ---- window geometry -------------------------------------------------------------------------

std::vector<AxisWindow> forward_windows(const WindowSpec& w, const std::vector<int64_t>& in_dims,
                                        const std::vector<int64_t>& kernel, Rounding rounding,
                                        bool forbid_all_padding) {
    const size_t rank = in_dims.size();
    check_spatial_lists(w, rank);
    std::vector<AxisWindow> axes(rank);
    for (size_t i = 0; i < rank; ++i) {
        AxisWindow& a = axes[i];
        a.in = in_dims[i];
        a.kernel = kernel[i];
        a.stride = w.strides[i];
        a.dilation = list_value(w.dilations, i, 1);
        a.pad_begin = list_value(w.pads_begin, i, 0);
        a.pad_end = list_value(w.pads_end, i, 0);
        if (a.kernel == kDynamic) {
            a.out = kDynamic;
            continue;
        }
        IRLITE_CHECK(a.kernel >= 1, ErrorKind::ShapeRule, "window-invalid", "the kernel size along spatial axis ", i,
                     " is ", a.kernel, "; it must be at least 1");
        IRLITE_CHECK(a.kernel <= kMaxWindowValue, ErrorKind::Limit, "size-overflow", "the kernel size along spatial axis ",
                     i, " (", a.kernel, ") is too large");
        const int64_t dk = a.dilated_kernel();
        if (forbid_all_padding && w.auto_pad == AutoPad::Explicit)
            IRLITE_CHECK(dk > a.pad_begin && dk > a.pad_end, ErrorKind::ShapeRule, "window-in-padding",
                         "along spatial axis ", i, " the dilated kernel (", dk, ") is not larger than the pads (",
                         a.pad_begin, ", ", a.pad_end, "): some windows would lie entirely in the padding");
        if (a.in == kDynamic) {
            a.out = kDynamic;
            continue;
        }
        if (w.auto_pad == AutoPad::SameUpper || w.auto_pad == AutoPad::SameLower) {
            a.out = ceil_div(a.in, a.stride);
            const int64_t total = std::max<int64_t>(
                0, checked_add(checked_mul(std::max<int64_t>(a.out - 1, 0), a.stride), dk) - a.in);
            a.pad_begin = w.auto_pad == AutoPad::SameUpper ? total / 2 : total - total / 2;
            a.pad_end = total - a.pad_begin;
            continue;
        }
        const int64_t padded = checked_add(a.in, a.pad_begin + a.pad_end);
        IRLITE_CHECK(padded >= dk, ErrorKind::ShapeRule, "window-too-large", "along spatial axis ", i,
                     " the dilated kernel (", dk, ") is larger than the padded input (", padded, ")");
        const int64_t span = padded - dk;
        a.out = (rounding == Rounding::Floor ? span / a.stride : ceil_div(span, a.stride)) + 1;
        if (rounding == Rounding::CeilTorch && (a.out - 1) * a.stride >= a.in + a.pad_begin) --a.out;
    }
    return axes;
}

std::vector<AxisWindow> backprop_windows(const WindowSpec& w, const std::vector<int64_t>& output_padding,
                                         const std::vector<int64_t>& in_dims, const std::vector<int64_t>& kernel,
                                         const std::vector<int64_t>* output_shape) {
    const size_t rank = in_dims.size();
    check_spatial_lists(w, rank, &output_padding, "output_padding");
    const bool same = w.auto_pad == AutoPad::SameUpper || w.auto_pad == AutoPad::SameLower;
    std::vector<AxisWindow> axes(rank);
    for (size_t i = 0; i < rank; ++i) {
        AxisWindow& a = axes[i];
        a.in = in_dims[i];
        a.kernel = kernel[i];
        a.stride = w.strides[i];
        a.dilation = list_value(w.dilations, i, 1);
        a.pad_begin = list_value(w.pads_begin, i, 0);
        a.pad_end = list_value(w.pads_end, i, 0);
        const int64_t extra = list_value(output_padding, i, 0);
        if (a.kernel != kDynamic) {
            IRLITE_CHECK(a.kernel >= 1, ErrorKind::ShapeRule, "window-invalid", "the kernel size along spatial axis ",
                         i, " is ", a.kernel, "; it must be at least 1");
            IRLITE_CHECK(a.kernel <= kMaxWindowValue, ErrorKind::Limit, "size-overflow",
                         "the kernel size along spatial axis ", i, " (", a.kernel, ") is too large");
        }
        const bool known = a.in != kDynamic && a.kernel != kDynamic;
        // s * (in - 1) + dilated kernel + output_padding: the size before pads are cut away.
        const int64_t full = known ? checked_add(checked_mul(a.stride, a.in - 1), a.dilated_kernel() + extra) : 0;
        if (output_shape) {
            a.out = (*output_shape)[i];
            IRLITE_CHECK(a.out == kDynamic || a.out >= 1, ErrorKind::ShapeRule, "output-size-invalid",
                         "the output size along spatial axis ", i, " is ", a.out, "; it must be at least 1");
            if (same) {
                a.pad_begin = a.pad_end = 0;
                if (known && a.out != kDynamic) {
                    const int64_t total = std::max<int64_t>(0, full - a.out);
                    a.pad_end = w.auto_pad == AutoPad::SameUpper ? total / 2 : total - total / 2;
                    a.pad_begin = total - a.pad_end;
                }
            }
        } else {
            if (same) a.pad_begin = a.pad_end = 0;
            a.out = kDynamic;
            if (known) {
                const int64_t size = full - a.pad_begin - a.pad_end;
                IRLITE_CHECK(size >= 1, ErrorKind::ShapeRule, "output-size-invalid", "the output size along spatial axis ",
                             i, " would be ", size, "; it must be at least 1");
                a.out = size;
            }
        }
    }
    return axes;
}

// ---- reductions ------------------------------------------------------------------------------

ReducePlan::ReducePlan(const Shape& shape, const std::vector<int64_t>& axes) {
    std::vector<bool> reduced(shape.size(), false);
    for (int64_t a : axes) reduced[static_cast<size_t>(a)] = true;
    total_ = 1;
    std::vector<bool> kinds;
    for (size_t i = 0; i < shape.size(); ++i) {
        total_ *= shape[i];
        (reduced[i] ? reduce_count_ : group_count_) *= shape[i];
        if (shape[i] == 1) continue;
        if (!dims_.empty() && kinds.back() == reduced[i]) {
            dims_.back() *= shape[i];
        } else {
            dims_.push_back(shape[i]);
            kinds.push_back(reduced[i]);
        }
    }
    if (dims_.empty()) {
        dims_.push_back(1);
        kinds.push_back(true);
    }
    group_strides_.assign(dims_.size(), 0);
    int64_t stride = 1;
    for (size_t i = dims_.size(); i-- > 0;) {
        if (kinds[i]) continue;
        group_strides_[i] = stride;
        stride *= dims_[i];
    }
    inner_reduced_ = kinds.back();
}

}  // namespace irlite::nn
