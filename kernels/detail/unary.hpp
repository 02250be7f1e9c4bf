// Unary elementwise ops (ReLU, Exp, Clamp, Gelu, ...): the shape-and-type rule and the kernel they
// share, so that an op is a few lines:
//
//   OpDef make_exp_op() {
//       return make_unary_op<kFloatTypes>("Exp", 1, [](const NoAttrs&, auto x) { return x.exp(); });
//   }
//
// The functor receives the op's typed attributes and an Eigen array expression (a Map over the
// whole tensor, or over a chunk of it) of the compute type C, and returns an Eigen expression of C.
// Wrapped in isa_loop (eltwise.hpp), a cheap functor runs at the CPU's vector width (AVX2,
// AVX-512) in the default portable build.
// Eigen's array functions (.exp(), .tanh(), .sqrt(), .erf(), select, ...) vectorise; for anything
// else use x.unaryExpr(scalar_fn). Compute types by storage type:
//   f32, f64        -> themselves, in place over the tensor;
//   f16, bf16       -> f32, converted in chunks of kChunk elements that stay in L1, rounded back to
//                      nearest even;
//   boolean         -> bool;
//   integer types   -> by the op's UnaryIntegers:
//     Native    the integer type itself; the functor must not overflow (no signed-overflow UB);
//     Identity  the input is copied (Floor, Ceiling, Round of an integer is the integer);
//     ViaDouble computed in f64 by the functor's double instance, rounded half away from zero and
//               saturated to the type's range, NaN -> 0 (OpenVINO: "for integer element type the
//               result is rounded to the nearest integer"; Sqrt, Tanh, Log, Sin, ...);
//     None      the op has no integer types (kAllowed must not name any).
// Only the instances the op's types need are compiled: the conversions for f16/bf16 and for
// ViaDouble integers are shared by every op (unary.cpp), so a float op costs two Eigen kernels.
//
// The output has the input's type and shape. Types outside kAllowed are rejected by the shape rule
// at load time: Error kind Type, code "element-type-unsupported", at input 0.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/op.hpp"
#include "kernels/detail/eltwise.hpp"

namespace irlite::detail {

enum class UnaryIntegers { None, Native, Identity, ViaDouble };

// A kernel over compute-type buffers, type-erased so that the shared conversion loops are compiled
// once: call(self, in, out, n) computes out[0..n) from in[0..n).
template <class C>
struct UnaryKernelRef {
    const void* self;
    void (*call)(const void* self, const C* in, C* out, int64_t n);
};

// f16/bf16 storage through an f32 kernel, chunk by chunk.
void unary_via_f32(ElementType type, const void* in, void* out, int64_t n, UnaryKernelRef<float> kernel);
// Integer storage through an f64 kernel: results rounded half away from zero, saturated, NaN -> 0.
void unary_via_f64(ElementType type, const void* in, void* out, int64_t n, UnaryKernelRef<double> kernel);

// max(x, c) and min(x, c) that keep NaN, vectorised: Eigen 3.4's .max()/.min() leave the result of
// a NaN operand unspecified and have no public NaN-propagating form. A tie (x == c, e.g. -0 and
// +0) gives c, so ReLU(-0) is +0 as in OpenVINO's reference (x > 0 ? x : 0). The scalar and the
// packet forms agree bit for bit (a compare and a select), so the value does not depend on
// whether Eigen's packets or an isa_loop evaluate it. Integers: plain max/min.
template <class S>
struct MaxNanOp {
    S operator()(const S& x, const S& c) const { return x <= c ? c : x; }  // NaN: the test fails, x
    template <class P>
    P packetOp(const P& x, const P& c) const {
        return Eigen::internal::pselect(Eigen::internal::pcmp_le(x, c), c, x);
    }
};
template <class S>
struct MinNanOp {
    S operator()(const S& x, const S& c) const { return c <= x ? c : x; }
    template <class P>
    P packetOp(const P& x, const P& c) const {
        return Eigen::internal::pselect(Eigen::internal::pcmp_le(c, x), c, x);
    }
};

template <class Derived>
auto max_nan(const Eigen::ArrayBase<Derived>& x, typename Derived::Scalar c) {
    using S = typename Derived::Scalar;
    if constexpr (std::is_floating_point_v<S>)
        return x.binaryExpr(Derived::PlainObject::Constant(x.size(), c), MaxNanOp<S>());
    else
        return x.max(c);
}
template <class Derived>
auto min_nan(const Eigen::ArrayBase<Derived>& x, typename Derived::Scalar c) {
    using S = typename Derived::Scalar;
    if constexpr (std::is_floating_point_v<S>)
        return x.binaryExpr(Derived::PlainObject::Constant(x.size(), c), MinNanOp<S>());
    else
        return x.min(c);
}

// The shape-and-type rule: input 0's type must be in `allowed`; the output is input 0's type and
// shape.
std::vector<OutputInfo> infer_unary(const InferContext& ctx, TypeMask allowed);

// out = fn(attrs, in) over n elements of compute type C.
template <class C, class Attrs, class Fn>
struct UnaryKernel {
    const Attrs& attrs;
    const Fn& fn;

    static void call(const void* self, const C* in, C* out, int64_t n) {
        using Array = Eigen::Array<C, Eigen::Dynamic, 1>;
        const auto& k = *static_cast<const UnaryKernel*>(self);
        assign_eltwise<Fn>(k.fn(k.attrs, Eigen::Map<const Array>(in, n)), out, n);
    }
    UnaryKernelRef<C> ref() const { return {this, &call}; }
};

// The kernel of a unary op on input 0 -> output 0 (same type and shape).
template <TypeMask kAllowed, UnaryIntegers kIntegers, class Attrs, class Fn>
void run_unary(KernelContext& ctx, const Attrs& attrs, const Fn& fn) {
    static_assert(kIntegers != UnaryIntegers::None || (kAllowed & kIntegerTypes) == 0,
                  "an op with integer types must say how it computes them");
    const Tensor& in = ctx.input(0);
    Tensor& out = ctx.output(0);
    const int64_t n = in.num_elements();
    const ElementType type = in.type();
    if ((kAllowed & type_bit(type)) == 0)
        throw ctx.input_error(0, ErrorKind::Type, "element-type-unsupported",
                              str(ctx.def().type, " does not support element type ", to_string(type), " (supported: ",
                                  type_mask_text(kAllowed), ")"));
    IRLITE_CHECK(out.type() == type && out.num_elements() == n, ErrorKind::ShapeRule, "output-mismatch", "output ",
                 to_string(out.type()), to_string(out.shape()), " does not match input ", to_string(type),
                 to_string(in.shape()));
    if (n == 0) return;
    const size_t elem = element_size(type);
    for_chunks(ctx.pool(), n, kEltwiseGrain, [&](int64_t begin, int64_t end) {
        const void* src = in.bytes() + static_cast<size_t>(begin) * elem;
        void* dst = out.bytes() + static_cast<size_t>(begin) * elem;
        const int64_t m = end - begin;
        dispatch_type(type, [&](auto tag) {
            using T = decltype(tag);
            constexpr TypeMask bit = type_bit(element_type_of<T>());
            const T* x = static_cast<const T*>(src);
            T* y = static_cast<T*>(dst);
            if constexpr ((kAllowed & bit) == 0) {
                return;  // rejected above
            } else if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
                const UnaryKernel<float, Attrs, Fn> k{attrs, fn};
                unary_via_f32(type, src, dst, m, k.ref());
            } else if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, bool>) {
                const UnaryKernel<T, Attrs, Fn> k{attrs, fn};
                k.call(&k, x, y, m);
            } else if constexpr (kIntegers == UnaryIntegers::Native) {
                const UnaryKernel<T, Attrs, Fn> k{attrs, fn};
                k.call(&k, x, y, m);
            } else if constexpr (kIntegers == UnaryIntegers::Identity) {
                if (x != y) std::copy(x, x + m, y);
            } else if constexpr (kIntegers == UnaryIntegers::ViaDouble) {
                const UnaryKernel<double, Attrs, Fn> k{attrs, fn};
                unary_via_f64(type, src, dst, m, k.ref());
            }
        });
    });
}

// The OpDef fields every unary op shares: type, opsets version..latest, input 'data', the rule
// infer_unary(allowed). The caller adds parse_attrs and compute.
OpDef unary_op_def(std::string type, int version, TypeMask allowed);

// The plan of an elementwise op of input 0 -> output 0 whose other inputs are scalars read at run
// time: nothing to plan but that the output may overwrite the input when nothing else reads it.
std::unique_ptr<OpPlan> prepare_eltwise(const InferContext&);

// An OpDef for a unary elementwise op with input 'data', element types kAllowed, in opsets
// version..latest. `parse` reads Attrs (null when the op has none: Attrs is then NoAttrs).
template <TypeMask kAllowed, UnaryIntegers kIntegers = UnaryIntegers::None, class Attrs = NoAttrs, class Fn>
OpDef make_unary_op(std::string type, int version, Fn fn, AttrParser parse = nullptr) {
    OpDef d = unary_op_def(std::move(type), version, kAllowed);
    d.parse_attrs = std::move(parse);
    d.compute = [fn](KernelContext& ctx) { run_unary<kAllowed, kIntegers>(ctx, ctx.attrs<Attrs>(), fn); };
    return d;
}

}  // namespace irlite::detail

// Eigen evaluates MaxNanOp / MinNanOp with packets where the packet type has compares.
namespace Eigen::internal {
template <class S>
struct functor_traits<irlite::detail::MaxNanOp<S>> {
    enum { Cost = 2 * NumTraits<S>::AddCost, PacketAccess = packet_traits<S>::HasCmp };
};
template <class S>
struct functor_traits<irlite::detail::MinNanOp<S>> {
    enum { Cost = 2 * NumTraits<S>::AddCost, PacketAccess = packet_traits<S>::HasCmp };
};
}  // namespace Eigen::internal
