// irlite's own op set: the registry filled from the one list in kernels/op_list.inc. engine/ defines the
// registry type and never includes this; api/ (Model::read), the tools and the tests do.
#pragma once

#include "engine/op.hpp"

namespace irlite {

// Every op irlite runs, built on first use (thread-safe) and immutable afterwards.
const OpRegistry& builtin_ops();

}  // namespace irlite
