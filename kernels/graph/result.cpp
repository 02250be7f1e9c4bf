// Result-1 (opset1+): a model output. One input, no output port; what flows into it is what
// the user gets back. Types: all.
#include "engine/op.hpp"

namespace irlite {

OpDef make_result_op() {
    OpDef d;
    d.type = "Result";
    d.version = 1;
    d.input_roles = {"data"};
    d.min_inputs = 1;
    d.num_outputs = 0;
    d.role = OpRole::Result;
    d.foldable = false;
    d.infer = [](const InferContext&) { return std::vector<OutputInfo>{}; };
    d.compute = [](KernelContext&) {};
    return d;
}

}  // namespace irlite
