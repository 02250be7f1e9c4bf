// The registry of the ops irlite runs, from the one list in kernels/op_list.inc. The registry
// rejects overlapping (type, opset) pairs, and tests/op_table_test.cpp fails when an op has no
// unit test or no line in the README's op list.
#include "kernels/all_ops.hpp"

namespace irlite {

#define IRLITE_OP(factory) OpDef factory();
#include "kernels/op_list.inc"
#undef IRLITE_OP

namespace {

OpRegistry build_registry() {
    OpRegistry r;
    for (auto make : {
#define IRLITE_OP(factory) factory,
#include "kernels/op_list.inc"
#undef IRLITE_OP
         })
        r.add(make());
    return r;
}

}  // namespace

const OpRegistry& builtin_ops() {
    static const OpRegistry registry = build_registry();
    return registry;
}

}  // namespace irlite
