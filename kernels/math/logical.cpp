// LogicalAnd-1, LogicalOr-1, LogicalXor-1 (opset1+): elementwise boolean logic with broadcasting.
// Inputs: 0 'a', 1 'b' (boolean). Attribute auto_broadcast: numpy (default) or none.
// Types: boolean only. (LogicalNot is unary and lives with the unary ops.)
#include "kernels/detail/eltwise.hpp"

namespace irlite {
namespace {

constexpr detail::TypeMask kBoolean = detail::type_bit(ElementType::boolean);

}  // namespace

OpDef make_logical_and_op() {
    return detail::make_binary_op<kBoolean>("LogicalAnd", 1, [](auto a, auto b) { return a && b; });
}
OpDef make_logical_or_op() {
    return detail::make_binary_op<kBoolean>("LogicalOr", 1, [](auto a, auto b) { return a || b; });
}
OpDef make_logical_xor_op() {
    return detail::make_binary_op<kBoolean>("LogicalXor", 1, [](auto a, auto b) { return a != b; });
}

}  // namespace irlite
