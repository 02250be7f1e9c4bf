// BitwiseAnd-13, BitwiseOr-13, BitwiseXor-13 (binary, numpy or none broadcasting) and
// BitwiseNot-13 (unary): bit operations on every integer type and boolean (where they are the
// logical operations). Floats are rejected when the model is loaded.
#include "kernels/detail/eltwise.hpp"
#include "kernels/detail/unary.hpp"

namespace irlite {
namespace {

using namespace detail;

constexpr TypeMask kBitwiseTypes = kIntegerTypes | type_bit(ElementType::boolean);

// Integers in their own type: bit operations cannot overflow.
template <class Op>
OpDef bitwise_binary(const char* type, Op op) {
    return make_binary_op<kBitwiseTypes, IntegerMath::Native>(type, 13, [op](auto a, auto b) {
        using C = typename decltype(a)::Scalar;
        return a.binaryExpr(b, [op](C x, C y) { return static_cast<C>(op(x, y)); });
    });
}

}  // namespace

OpDef make_bitwise_and_op() {
    return bitwise_binary("BitwiseAnd", [](auto x, auto y) { return x & y; });
}

OpDef make_bitwise_or_op() {
    return bitwise_binary("BitwiseOr", [](auto x, auto y) { return x | y; });
}

OpDef make_bitwise_xor_op() {
    return bitwise_binary("BitwiseXor", [](auto x, auto y) { return x ^ y; });
}

OpDef make_bitwise_not_op() {
    return make_unary_op<kBitwiseTypes, UnaryIntegers::Native>("BitwiseNot", 13, [](const NoAttrs&, auto x) {
        using C = typename decltype(x)::Scalar;
        return x.unaryExpr([](C v) {
            if constexpr (std::is_same_v<C, bool>) return !v;
            else return static_cast<C>(~v);
        });
    });
}

}  // namespace irlite
