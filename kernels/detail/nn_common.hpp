// Shared pieces of the numeric NN kernels (MatMul, convolution, pooling, reduce, softmax,
// normalization):
//   - type checks for shape rules, with errors located at the input port;
//   - compute types: every kernel computes in float (f16, bf16, f32), double (f64), int64_t (signed
//     integers) or uint64_t (unsigned integers); ComputeIn/ComputeOut stage tensors of narrower
//     types through a buffer of the compute type, so each kernel is instantiated at most 4 times;
//   - the sliding-window geometry of convolution and pooling (strides, dilations, pads, auto_pad,
//     rounding), written once for any spatial rank and used by both the shape rules and the kernels;
//   - the reader of `axes` inputs and ReducePlan, the N-d "which group does this element reduce
//     into" iteration shared by ReduceX, MVN and NormalizeL2.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/op.hpp"

namespace irlite::nn {

// ---- type checks (shape rules) -----------------------------------------------------------------

// Throws Error(Type, "type-unsupported") at input i unless its type is f16, bf16, f32 or f64.
void require_float(const InferContext& ctx, size_t i);
// Throws Error(Type, "type-unsupported") at input i when its type is boolean.
void require_numeric(const InferContext& ctx, size_t i);
// Throws Error(Type, "type-unsupported") at input i unless its type is an integer type.
void require_integer(const InferContext& ctx, size_t i);
// Throws Error(Type, "type-mismatch") at input i unless its type equals input ref's.
void require_same_type(const InferContext& ctx, size_t i, size_t ref);
// The ops whose inputs are all of one float type (the Detectron ones, GenerateProposals): input 0's
// type must be a storable float (f16, bf16, f32, f64; Error(Type, "element-type-unsupported")) and
// every other input's type the same (Error(Type, "element-type-mismatch") at that input); returns it.
ElementType require_one_storable_float_type(const InferContext& ctx);
// Throws Error(ShapeRule, "rank-invalid") at input i when its rank is known and not in [lo, hi].
void require_rank(const InferContext& ctx, size_t i, int64_t lo, int64_t hi, const char* what);

// ---- compute types -----------------------------------------------------------------------------

// Calls f(C{}) with C the compute type of t: float for f16/bf16/f32, double for f64, int64_t for
// i8..i64, uint64_t for u8..u64 and boolean.
template <class F>
void dispatch_compute(ElementType t, F&& f) {
    switch (t) {
        case ElementType::f16:
        case ElementType::bf16:
        case ElementType::f32: f(float{}); return;
        case ElementType::f64: f(double{}); return;
        case ElementType::i8:
        case ElementType::i16:
        case ElementType::i32:
        case ElementType::i64: f(int64_t{}); return;
        default: f(uint64_t{}); return;
    }
}
// Same, for kernels that compute only in floating point (the rule has rejected other types).
template <class F>
void dispatch_float(ElementType t, F&& f) {
    if (t == ElementType::f64) f(double{});
    else f(float{});
}

// Converts every element of src into dst (C = float, double, int64_t or uint64_t; integers wrap
// modulo 2^64, floats convert with static_cast).
template <class C>
void load_as(const Tensor& src, C* dst);
// Converts every element of src into dst (narrowing integers wrap; f16/bf16 round to nearest even).
template <class C>
void store_as(const C* src, Tensor& dst);

// `bytes` rounded up to whole 64-byte lines: the size of a piece of a kernel's scratch, so that the
// piece after it keeps KernelContext::scratch()'s 64-byte alignment.
inline size_t round64(size_t bytes) { return (bytes + 63) / 64 * 64; }

// Bytes of scratch that ComputeIn / ComputeOut need for `count` elements of `type` converted to
// its compute type (dispatch_compute's: f16 and bf16 to float, narrower integers to 64 bits),
// rounded up to 64; 0 when the type is its own compute type (f32, f64, i64, u64). Prepare adds
// this to the plan's scratch_bytes so that compute converts without allocating.
inline size_t conversion_bytes(ElementType type, int64_t count) {
    switch (type) {
        case ElementType::f32:
        case ElementType::f64:
        case ElementType::i64:
        case ElementType::u64: return 0;
        default: break;
    }
    const size_t each = type == ElementType::f16 || type == ElementType::bf16 ? 4 : 8;
    return round64(static_cast<size_t>(std::max<int64_t>(count, 0)) * each);
}

// Part of a kernel's scratch memory (KernelContext::scratch()), e.g. conversion_bytes of it.
struct ScratchSpace {
    void* data = nullptr;
    size_t bytes = 0;
    // `n` elements of C from here, or nullptr when they do not fit.
    template <class C>
    C* take(int64_t n) const {
        return data && static_cast<size_t>(std::max<int64_t>(n, 0)) * sizeof(C) <= bytes ? static_cast<C*>(data) : nullptr;
    }
};

// A tensor seen as an array of compute type C: a view when its type is C, a converted copy otherwise,
// in `space` (conversion_bytes(t.type(), t.num_elements()) of the kernel's scratch) or, when none
// is given or it is too small, in memory of its own (outside the op contract: an allocation per run).
template <class C>
class ComputeIn {
public:
    explicit ComputeIn(const Tensor& t, ScratchSpace space = {}) {
        if (t.type() == element_type_of<C>()) {
            ptr_ = t.data<C>();
            return;
        }
        C* dst = space.take<C>(t.num_elements());
        if (!dst) {
            copy_.resize(static_cast<size_t>(t.num_elements()));
            dst = copy_.data();
        }
        load_as<C>(t, dst);
        ptr_ = dst;
    }
    const C* data() const { return ptr_; }

private:
    std::vector<C> copy_;
    const C* ptr_ = nullptr;
};

// An output tensor written as an array of C: the tensor itself when its type is C, otherwise a
// buffer (`space`, as for ComputeIn, or memory of its own) that commit() converts into the tensor.
// Kernels must call commit() when done.
template <class C>
class ComputeOut {
public:
    explicit ComputeOut(Tensor& t, ScratchSpace space = {}) : tensor_(t) {
        if (t.type() == element_type_of<C>()) {
            ptr_ = t.data<C>();
            return;
        }
        converted_ = true;
        C* dst = space.take<C>(t.num_elements());
        if (!dst) {
            scratch_.resize(static_cast<size_t>(t.num_elements()));
            dst = scratch_.data();
        }
        std::fill(dst, dst + t.num_elements(), C{});
        ptr_ = dst;
    }
    C* data() { return ptr_; }
    void commit() {
        if (converted_) store_as<C>(ptr_, tensor_);
    }

private:
    Tensor& tensor_;
    std::vector<C> scratch_;
    C* ptr_ = nullptr;
    bool converted_ = false;
};

// Sum and product that wrap instead of overflowing for integers (signed overflow is UB).
template <class C>
inline C wrap_add(C a, C b) {
    if constexpr (std::is_integral_v<C>)
        return static_cast<C>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
    else
        return a + b;
}
template <class C>
inline C wrap_mul(C a, C b) {
    if constexpr (std::is_integral_v<C>)
        return static_cast<C>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
    else
        return a * b;
}

// ---- sliding windows (convolution, pooling) --------------------------------------------------

enum class AutoPad { Explicit, SameUpper, SameLower, Valid };
enum class Rounding { Floor, Ceil, CeilTorch };

// The window attributes shared by convolution and pooling, as written in <data>.
struct WindowSpec {
    std::vector<int64_t> strides, dilations, pads_begin, pads_end;
    AutoPad auto_pad = AutoPad::Explicit;
};

// Reads strides (required), dilations (when has_dilations; default all 1), pads_begin, pads_end
// (required when auto_pad is explicit) and auto_pad (explicit, notset, same_upper, same_lower,
// valid; default explicit). Throws Attribute errors naming the attribute for values < 1 (strides,
// dilations) or < 0 (pads).
WindowSpec read_window_spec(const AttrReader& r, bool has_dilations);
// Reads a rounding_type attribute: floor (default), ceil, and ceil_torch when allow_ceil_torch.
Rounding read_rounding(const AttrReader& r, bool allow_ceil_torch);
// Reads a required list of values >= min_value.
std::vector<int64_t> read_positive_list(const AttrReader& r, const char* name, int64_t min_value);

// One spatial axis of a sliding window: output coordinate o reads input coordinates
// o * stride - pad_begin + k * dilation for k in [0, kernel).
struct AxisWindow {
    int64_t in = 0, out = 0, kernel = 1, stride = 1, dilation = 1, pad_begin = 0, pad_end = 0;
    int64_t dilated_kernel() const { return (kernel - 1) * dilation + 1; }
};

// Checks that each list of the spec (and `extra`, named extra_name, when not null) has one value per
// spatial axis; throws Error(Attribute, "attribute-invalid") naming the attribute otherwise.
void check_spatial_lists(const WindowSpec& w, size_t spatial_rank, const std::vector<int64_t>* extra = nullptr,
                         const char* extra_name = nullptr);

// Forward windows (Convolution, pooling): per spatial axis, the output size and the pads that
// auto_pad resolves to. in_dims and kernel may hold kDynamic (then out is kDynamic). For pooling,
// forbid_all_padding rejects explicit pads >= the dilated kernel (a window entirely in padding).
// Throws ShapeRule "window-too-large" when the dilated kernel exceeds the padded input.
std::vector<AxisWindow> forward_windows(const WindowSpec& w, const std::vector<int64_t>& in_dims,
                                        const std::vector<int64_t>& kernel, Rounding rounding,
                                        bool forbid_all_padding = false);

// Transposed windows (ConvolutionBackpropData): `in` is the data's spatial size and `out` the
// result's, computed from the pads, or taken from output_shape (when not null; may hold kDynamic)
// with pads resolved by auto_pad. Throws ShapeRule "output-size-invalid" for a result size < 1.
std::vector<AxisWindow> backprop_windows(const WindowSpec& w, const std::vector<int64_t>& output_padding,
                                         const std::vector<int64_t>& in_dims, const std::vector<int64_t>& kernel,
                                         const std::vector<int64_t>* output_shape);

// floor(a / b) and ceil(a / b) for b > 0 and any sign of a.
inline int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
inline int64_t ceil_div(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

// The range [lo, hi) of x in [0, count) for which x * scale + offset lies in [0, limit); scale > 0.
// Empty ranges come back as lo == hi.
inline std::pair<int64_t, int64_t> affine_range(int64_t count, int64_t scale, int64_t offset, int64_t limit) {
    const int64_t lo = std::max<int64_t>(0, ceil_div(-offset, scale));
    const int64_t hi = std::min<int64_t>(count, floor_div(limit - 1 - offset, scale) + 1);
    return {lo, std::max(lo, hi)};
}

// ---- axes inputs and reductions over them --------------------------------------------------------

// Reads an axes tensor (an integer scalar or 1-D tensor) into sorted, duplicate-free axes in
// [0, rank). Errors are located at input `port` of ctx: ShapeRule "rank-invalid" for a rank > 1,
// Value "axis-out-of-range" naming the value and [-rank, rank-1].
template <class Ctx>
std::vector<int64_t> read_axes(const Ctx& ctx, size_t port, const Tensor& axes, int64_t rank) {
    if (axes.rank() > 1)
        throw ctx.input_error(port, ErrorKind::ShapeRule, "rank-invalid",
                              str("axes must be a scalar or a 1-D tensor, got shape ", to_string(axes.shape())));
    if (!is_integral(axes.type()))
        throw ctx.input_error(port, ErrorKind::Type, "type-unsupported",
                              str("axes must be of an integer type, got ", to_string(axes.type())));
    std::vector<int64_t> out;
    for (int64_t i = 0; i < axes.num_elements(); ++i) {
        const int64_t a = axes.value_as_int64(i);
        if (a < -rank || a >= rank)
            throw ctx.input_error(port, ErrorKind::Value, "axis-out-of-range",
                                  str("axis ", a, " (element ", i, ") not in [", -rank, ", ", rank - 1, "]"));
        out.push_back(a < 0 ? a + rank : a);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

// Iteration over a tensor whose `axes` collapse, each, onto one element of a smaller "group"
// tensor (the keep_dims result of a reduction). Size-1 axes are dropped and neighbouring axes of the
// same kind merged, so the usual cases (reduce the last axes, reduce H*W of NCHW) become a few long
// contiguous runs.
class ReducePlan {
public:
    ReducePlan(const Shape& shape, const std::vector<int64_t>& axes);

    int64_t group_count() const { return group_count_; }    // elements of the keep_dims result
    int64_t reduce_count() const { return reduce_count_; }  // input elements per group
    // True when every group is one contiguous run of reduce_count() elements, group after group
    // (the reduced axes are the trailing ones, size-1 axes aside: global pooling).
    bool trailing() const { return inner_reduced_ && dims_.size() <= 2; }

    // Calls run(in_offset, group_offset, length, reduced) for consecutive runs of `length` input
    // elements starting at in_offset. reduced: every element of the run belongs to group
    // group_offset; otherwise element j belongs to group group_offset + j.
    template <class F>
    void for_each_run(F&& run) const {
        if (total_ == 0) return;
        const size_t outer_rank = dims_.size() - 1;
        const int64_t inner = dims_.back();
        // The odometer lives on the stack for every rank a model uses (no allocation per run).
        constexpr size_t kStackRank = 16;
        int64_t stack_index[kStackRank] = {};
        std::vector<int64_t> heap_index(outer_rank > kStackRank ? outer_rank : 0, 0);
        int64_t* index = outer_rank > kStackRank ? heap_index.data() : stack_index;
        int64_t group = 0;
        for (int64_t in = 0; in < total_; in += inner) {
            run(in, group, inner, inner_reduced_);
            for (size_t d = outer_rank; d-- > 0;) {
                if (++index[d] < dims_[d]) {
                    group += group_strides_[d];
                    break;
                }
                group -= group_strides_[d] * (dims_[d] - 1);
                index[d] = 0;
            }
        }
    }

private:
    std::vector<int64_t> dims_;           // merged dims (at least one)
    std::vector<int64_t> group_strides_;  // per merged dim; 0 for reduced dims
    bool inner_reduced_ = true;
    int64_t total_ = 0, group_count_ = 1, reduce_count_ = 1;
};

}  // namespace irlite::nn
