// Binary elementwise ops (Add, Multiply, and later Subtract, Divide, Maximum, comparisons, ...):
// the attribute, shape-and-type rule and kernel they share. An op is a few lines:
//
//   OpDef make_add_op() {
//       return make_binary_op<kArithmeticTypes>("Add", 1, [](auto a, auto b) { return a + b; });
//   }
//
// The functor receives two Eigen array expressions of the compute type C (below) and returns an
// Eigen expression of C (arithmetic) or of bool (comparisons: pass BinaryOutput::Boolean). It is
// applied to whole rows at once, so plain operators vectorise; use a.binaryExpr(b, scalar_fn) for
// anything Eigen has no operator for. It must not fail on any pair of values (integer division by
// zero needs a guard in the functor).
//
// Compute types (C) by storage type T:
//   f32, f64 -> T; f16, bf16 -> f32 (converted in chunks of kChunk elements, rounded back to
//   nearest even); boolean -> bool;
//   integers with IntegerMath::Wrapping (Add, Subtract, Multiply): the unsigned type of T's width
//   (at least 32 bits, so that u16 x u16 cannot overflow a promoted int); results wrap modulo
//   2^bits as OpenVINO's do, without C++ signed-overflow UB;
//   integers with IntegerMath::Native (Divide, comparisons, ...): T, or int32 for 8/16-bit types.
//
// Shapes: numpy broadcasting or none (attribute `auto_broadcast`, see broadcast.hpp). The kernel
// runs one Eigen expression over each broadcast row (broadcast.hpp's BroadcastPlan): same shapes
// are one row, tensor (+) scalar is one row against a constant, and everything else an outer loop
// over the rows of the innermost broadcast pattern.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "engine/op.hpp"
#include "kernels/detail/broadcast.hpp"
#include "kernels/detail/cpu_isa.hpp"
#include "kernels/detail/parallel.hpp"

namespace irlite::detail {

// ---- element type sets ---------------------------------------------------------------------
// A set of element types as a bit mask over ElementType, usable at compile time.
using TypeMask = uint32_t;
constexpr TypeMask type_bit(ElementType t) { return TypeMask{1} << static_cast<int>(t); }
inline constexpr TypeMask kAllTypes = (TypeMask{1} << kNumElementTypes) - 1;
inline constexpr TypeMask kFloatTypes =
    type_bit(ElementType::f16) | type_bit(ElementType::bf16) | type_bit(ElementType::f32) | type_bit(ElementType::f64);
// Every type but boolean (OpenVINO's arithmetic ops reject boolean).
inline constexpr TypeMask kArithmeticTypes = kAllTypes & ~type_bit(ElementType::boolean);
inline constexpr TypeMask kIntegerTypes = kArithmeticTypes & ~kFloatTypes;

// "f16, bf16, f32" (ElementType order).
std::string type_mask_text(TypeMask mask);

// ---- compute types -------------------------------------------------------------------------
enum class IntegerMath { Wrapping, Native };
enum class BinaryOutput { SameAsInput, Boolean };

template <class T, IntegerMath M>
struct compute_type {
    using type = T;  // float, double, bool
};
template <IntegerMath M>
struct compute_type<float16, M> {
    using type = float;
};
template <IntegerMath M>
struct compute_type<bfloat16, M> {
    using type = float;
};
template <class T, IntegerMath M>
struct integer_compute_type {
    using wide = std::conditional_t<(sizeof(T) < 4), std::conditional_t<std::is_signed_v<T>, int32_t, uint32_t>, T>;
    using type = std::conditional_t<M == IntegerMath::Wrapping, std::make_unsigned_t<wide>, wide>;
};
#define IRLITE_INTEGER_COMPUTE_TYPE(T)                          \
    template <IntegerMath M>                                    \
    struct compute_type<T, M> {                                 \
        using type = typename integer_compute_type<T, M>::type; \
    };
IRLITE_INTEGER_COMPUTE_TYPE(int8_t)
IRLITE_INTEGER_COMPUTE_TYPE(int16_t)
IRLITE_INTEGER_COMPUTE_TYPE(int32_t)
IRLITE_INTEGER_COMPUTE_TYPE(int64_t)
IRLITE_INTEGER_COMPUTE_TYPE(uint8_t)
IRLITE_INTEGER_COMPUTE_TYPE(uint16_t)
IRLITE_INTEGER_COMPUTE_TYPE(uint32_t)
IRLITE_INTEGER_COMPUTE_TYPE(uint64_t)
#undef IRLITE_INTEGER_COMPUTE_TYPE

template <class T, IntegerMath M>
using compute_t = typename compute_type<T, M>::type;

// Storage -> compute value, and back (integers: modulo 2^bits; f16/bf16: round to nearest even).
template <class C, class T>
C to_compute(T v) {
    if constexpr (std::is_same_v<T, float16>)
        return f16_to_f32(v.bits);
    else if constexpr (std::is_same_v<T, bfloat16>)
        return bf16_to_f32(v.bits);
    else
        return static_cast<C>(v);
}
template <class T, class C>
T from_compute(C v) {
    if constexpr (std::is_same_v<T, float16>)
        return float16{f32_to_f16(v)};
    else if constexpr (std::is_same_v<T, bfloat16>)
        return bfloat16{f32_to_bf16(v)};
    else
        return static_cast<T>(v);
}
// Element i of float data as a double, and a double stored into element i (f16/bf16 through f32):
// the per-element access of the kernels that compute in double (ROI and detection ops).
template <class T>
double load_double(const T* p, int64_t i) {
    return to_compute<double>(p[i]);
}
template <class T>
void store_double(T* p, int64_t i, double v) {
    p[i] = from_compute<T>(v);
}

// True when a buffer of S can be read as C in place (same type, or signed/unsigned twins).
template <class S, class C>
inline constexpr bool same_representation_v = std::is_same_v<S, C> ||
                                              (std::is_integral_v<S> && std::is_integral_v<C> &&
                                               !std::is_same_v<S, bool> && !std::is_same_v<C, bool> &&
                                               sizeof(S) == sizeof(C));

// Wrapping scalar arithmetic on any integer storage type (for scalar loops such as scatter
// reductions): computed in the unsigned compute type, so overflow is defined.
template <class T>
T wrapping_add(T a, T b) {
    using U = compute_t<T, IntegerMath::Wrapping>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
}
template <class T>
T wrapping_sub(T a, T b) {
    using U = compute_t<T, IntegerMath::Wrapping>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
}
template <class T>
T wrapping_mul(T a, T b) {
    using U = compute_t<T, IntegerMath::Wrapping>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
}

// ---- run-time instruction set -----------------------------------------------------------------
// Eigen vectorises with the baseline's 128-bit packets in the default build (cpu_isa.hpp). An op
// whose functor is cheap per element and free of library calls (arithmetic, min/max, compare,
// select: the compiler vectorises its scalar form) wraps it in isa_loop; on AVX2 / AVX-512 CPUs its
// expression is then evaluated element by element in a loop compiled for that level
// (cpu::run_at), and by Eigen's packets at the baseline. Each element is computed by the same
// scalar operations either way, so the results are the same at every level. Functors with exp,
// tanh, erf, ... must not be wrapped: their scalar form calls libm and would be slower.
//   make_binary_op<kArithmeticTypes>("Add", 1, isa_loop([](auto a, auto b) { return a + b; }));
// isa_loop_f32 does the same for the f32 instance only (other compute types keep Eigen's packets):
// for functors whose f32 form is x.unaryExpr of vec_math.hpp's scalar functions (sigmoid_f32,
// tanh_f32, erf_f32: no libm), which Eigen has no packet form of. An expression without packet access runs
// through cpu::run_at at every level, the baseline included, so its loop is vectorised there too.
template <class Fn, bool kF32Only>
struct IsaLoop {
    Fn fn;
    template <class... X>
    auto operator()(const X&... x) const {
        return fn(x...);
    }
};
template <class Fn>
IsaLoop<Fn, false> isa_loop(Fn fn) {
    return {std::move(fn)};
}
template <class Fn>
IsaLoop<Fn, true> isa_loop_f32(Fn fn) {
    return {std::move(fn)};
}
// Whether Fn's expressions of scalar type S run through cpu::run_at.
template <class Fn, class S>
inline constexpr bool is_isa_loop_v = false;
template <class Fn, bool kF32Only, class S>
inline constexpr bool is_isa_loop_v<IsaLoop<Fn, kF32Only>, S> = !kF32Only || std::is_same_v<S, float>;

// out[0..n) = expr, by Eigen's packets or, for an isa_loop functor on a CPU above the baseline (or
// an expression without packets), by an element loop compiled for the active level.
template <class Fn, class R, class Expr>
void assign_eltwise(const Expr& expr, R* out, int64_t n) {
    if constexpr (is_isa_loop_v<Fn, typename Expr::Scalar>) {
        constexpr bool kPackets = (Eigen::internal::evaluator<Expr>::Flags & Eigen::PacketAccessBit) != 0;
        const cpu::Isa isa = cpu::active_isa();
        if (isa != cpu::Isa::Sse || !kPackets) {
            cpu::run_at(isa, [&] {
                const Eigen::internal::evaluator<Expr> ev(expr);
                for (int64_t i = 0; i < n; ++i) out[i] = ev.coeff(i);
            });
            return;
        }
    }
    Eigen::Map<Eigen::Array<R, Eigen::Dynamic, 1>>(out, n) = expr;
}

// ---- the row kernel ------------------------------------------------------------------------
inline constexpr int64_t kChunk = 256;
// Elements per parallel chunk: about 64 KiB of f32 output.
inline constexpr int64_t kEltwiseGrain = 16384;

// out[i] = fn(a[i or 0], b[i or 0]) for i < n, on buffers already in compute type C / result R.
template <class C, class R, class Fn>
void apply_mapped(const Fn& fn, const C* a, bool a_varies, const C* b, bool b_varies, R* out, int64_t n) {
    using In = Eigen::Array<C, Eigen::Dynamic, 1>;
    const Eigen::Map<const In> am(a, a_varies ? n : 1);
    const Eigen::Map<const In> bm(b, b_varies ? n : 1);
    if (a_varies && b_varies)
        assign_eltwise<Fn>(fn(am, bm), out, n);
    else if (a_varies)
        assign_eltwise<Fn>(fn(am, In::Constant(n, *b)), out, n);
    else if (b_varies)
        assign_eltwise<Fn>(fn(In::Constant(n, *a), bm), out, n);
    else
        assign_eltwise<Fn>(fn(In::Constant(n, *a), In::Constant(n, *b)), out, n);
}

// One broadcast row in storage types: T inputs, O output; C compute, R result.
template <class T, class C, class R, class O, class Fn>
void binary_row(const Fn& fn, const T* a, bool a_varies, const T* b, bool b_varies, O* out, int64_t n) {
    constexpr bool in_direct = same_representation_v<T, C>;
    constexpr bool out_direct = same_representation_v<O, R>;
    if constexpr (in_direct && out_direct) {
        // Signed integers are read as their unsigned twins here; the aliasing rules allow it.
        apply_mapped<C, R>(fn, reinterpret_cast<const C*>(a), a_varies, reinterpret_cast<const C*>(b), b_varies,
                           reinterpret_cast<R*>(out), n);
    } else {
        // Convert in chunks that stay in L1, never whole-tensor copies.
        C a_buf[kChunk], b_buf[kChunk];
        R o_buf[kChunk];
        const C a0 = to_compute<C>(a[0]), b0 = to_compute<C>(b[0]);
        for (int64_t i = 0; i < n; i += kChunk) {
            const int64_t m = std::min(kChunk, n - i);
            if (a_varies)
                for (int64_t j = 0; j < m; ++j) a_buf[j] = to_compute<C>(a[i + j]);
            if (b_varies)
                for (int64_t j = 0; j < m; ++j) b_buf[j] = to_compute<C>(b[i + j]);
            apply_mapped<C, R>(fn, a_varies ? a_buf : &a0, a_varies, b_varies ? b_buf : &b0, b_varies, o_buf, m);
            for (int64_t j = 0; j < m; ++j) out[i + j] = from_compute<O>(o_buf[j]);
        }
    }
}

// The result scalar type of fn on compute type C.
template <class C, class Fn>
using binary_result_t = typename decltype(std::declval<const Fn&>()(
    std::declval<Eigen::Map<const Eigen::Array<C, Eigen::Dynamic, 1>>>(),
    std::declval<Eigen::Map<const Eigen::Array<C, Eigen::Dynamic, 1>>>()))::Scalar;

// ---- the op --------------------------------------------------------------------------------
struct BinaryAttrs : OpAttrs {
    AutoBroadcast broadcast = AutoBroadcast::Numpy;
};

std::unique_ptr<OpAttrs> parse_binary_attrs(const AttrReader& reader);

// The shape-and-type rule: input 0's type must be in `allowed` and input 1's type must equal it
// (Error kind Type, codes "element-type-unsupported" / "element-type-mismatch", at the port);
// the output shape is broadcast_shapes(a, b, auto_broadcast); the type is input 0's or boolean.
std::vector<OutputInfo> infer_binary(const InferContext& ctx, TypeMask allowed, BinaryOutput output);

// Divide, Mod and FloorMod: throws Error(kind Value, code "division-by-zero") naming the first
// zero of an integer divisor (input 1), as OpenVINO's reference throws too; `what` names the
// operation in the message ("division", "remainder"). A float divisor is not checked (IEEE).
void check_integer_divisor_not_zero(const KernelContext& ctx, const char* what);

// The prepared plan of a binary op: its broadcast rows. The output may overwrite an input of the
// output's shape (each element is read before it is written).
struct BinaryPlan : OpPlan {
    BroadcastPlan broadcast;
};
std::unique_ptr<OpPlan> prepare_binary(const InferContext& ctx, TypeMask allowed);

// The kernel on buffers a and b of element type `type` (laid out as the broadcast plan's inputs) ->
// `out`, across the request's pool. Ops whose second operand is not their input 1 as it is (PReLU's
// slope converted once) call this; the others run_binary.
template <TypeMask kAllowed, IntegerMath kMath, class Fn>
void run_binary_buffers(const KernelContext& ctx, ElementType type, const void* a, const void* b, Tensor& out,
                        const Fn& fn, const BroadcastPlan& plan) {
    if (out.num_elements() == 0) return;
    dispatch_type(type, [&](auto tag) {
        using T = decltype(tag);
        if constexpr ((kAllowed & type_bit(element_type_of<T>())) != 0) {
            using C = compute_t<T, kMath>;
            using R = binary_result_t<C, Fn>;
            static_assert(std::is_same_v<R, C> || std::is_same_v<R, bool>, "the functor must return C or bool");
            using O = std::conditional_t<std::is_same_v<R, C>, T, bool>;
            IRLITE_CHECK(out.type() == element_type_of<O>(), ErrorKind::Type, "element-type-mismatch", "output type ",
                         to_string(out.type()), ", expected ", to_string(element_type_of<O>()));
            const T* pa = static_cast<const T*>(a);
            const T* pb = static_cast<const T*>(b);
            O* po = out.data<O>();
            const int64_t rows = plan.num_rows();
            const bool a_varies = plan.varies[0], b_varies = plan.varies[1];
            if (rows == 1) {
                // One long row (same shapes, or a scalar operand): cut it into chunks.
                for_chunks(ctx.pool(), plan.row_length, kEltwiseGrain, [&](int64_t begin, int64_t end) {
                    binary_row<T, C, R, O>(fn, pa + (a_varies ? begin : 0), a_varies, pb + (b_varies ? begin : 0),
                                           b_varies, po + begin, end - begin);
                });
                return;
            }
            const int64_t grain = std::max<int64_t>(1, kEltwiseGrain / std::max<int64_t>(plan.row_length, 1));
            for_chunks(ctx.pool(), rows, grain, [&](int64_t begin, int64_t end) {
                plan.for_each_row_in(begin, end, [&](const BroadcastPlan::Offsets& in, int64_t oo) {
                    binary_row<T, C, R, O>(fn, pa + in[0], a_varies, pb + in[1], b_varies, po + oo, plan.row_length);
                });
            });
        } else {
            throw ctx.input_error(0, ErrorKind::Type, "element-type-unsupported",
                                  str(ctx.def().type, " does not support element type ", to_string(type)));
        }
    });
}

// The kernel on inputs 0 and 1 -> output 0, with their broadcast plan.
template <TypeMask kAllowed, IntegerMath kMath, class Fn>
void run_binary(KernelContext& ctx, const Fn& fn, const BroadcastPlan& plan) {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (ctx.output(0).num_elements() == 0) return;
    IRLITE_CHECK(a.type() == b.type(), ErrorKind::Type, "element-type-mismatch", "input types ", to_string(a.type()),
                 " and ", to_string(b.type()), " differ");
    run_binary_buffers<kAllowed, kMath>(ctx, a.type(), a.data(), b.data(), ctx.output(0), fn, plan);
}

// An OpDef for a binary elementwise op: inputs 'a' and 'b', attribute auto_broadcast, element
// types kAllowed, in opsets version..latest.
template <TypeMask kAllowed, IntegerMath kMath = IntegerMath::Wrapping, class Fn>
OpDef make_binary_op(std::string type, int version, Fn fn, BinaryOutput output = BinaryOutput::SameAsInput) {
    OpDef d;
    d.type = std::move(type);
    d.version = version;
    d.first_opset = version;
    d.input_roles = {"a", "b"};
    d.min_inputs = 2;
    d.parse_attrs = parse_binary_attrs;
    d.infer = [output](const InferContext& ctx) { return infer_binary(ctx, kAllowed, output); };
    d.prepare = [](const InferContext& ctx) { return prepare_binary(ctx, kAllowed); };
    d.compute = [fn](KernelContext& ctx) { run_binary<kAllowed, kMath>(ctx, fn, ctx.plan<BinaryPlan>().broadcast); };
    return d;
}

}  // namespace irlite::detail
