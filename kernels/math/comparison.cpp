// Comparisons, opset1+: Equal, NotEqual, Less, LessEqual, Greater, GreaterEqual.
// out = a <op> b elementwise, with broadcasting; the output is boolean.
// Inputs: 0 'a', 1 'b' (same element type). Attribute auto_broadcast: numpy (default) or none.
// Types: every type (boolean compares false < true); integers compare in their own signedness.
#include "kernels/detail/eltwise.hpp"

namespace irlite {
namespace {

template <class Fn>
OpDef comparison(const char* type, Fn fn) {
    using namespace detail;
    return make_binary_op<kAllTypes, IntegerMath::Native>(type, 1, fn, BinaryOutput::Boolean);
}

}  // namespace

OpDef make_equal_op() { return comparison("Equal", [](auto a, auto b) { return a == b; }); }
OpDef make_not_equal_op() { return comparison("NotEqual", [](auto a, auto b) { return a != b; }); }
OpDef make_less_op() { return comparison("Less", [](auto a, auto b) { return a < b; }); }
OpDef make_less_equal_op() { return comparison("LessEqual", [](auto a, auto b) { return a <= b; }); }
OpDef make_greater_op() { return comparison("Greater", [](auto a, auto b) { return a > b; }); }
OpDef make_greater_equal_op() { return comparison("GreaterEqual", [](auto a, auto b) { return a >= b; }); }

}  // namespace irlite
