// Compile a model with given options and run it once on one f32 input: its first output and the
// per-node profile, for tests (and the int8 fuzzer) that compare two ways of running one model.
#pragma once

#include <vector>

#include "irlite/irlite.hpp"

namespace irlite::testing {

struct OneRun {
    std::vector<float> out;             // output 0
    std::vector<ProfileEntry> profile;  // per node (profiling is turned on)
};

inline OneRun run_one_input(const Model& model, const std::vector<float>& x, const Shape& shape, CompileOptions options) {
    options.profiling = true;
    const CompiledModel compiled(model, options);
    InferRequest r = compiled.create_infer_request();
    std::vector<float> data = x;
    r.set_input(0, Tensor::wrap(ElementType::f32, shape, data.data()));
    r.infer();
    const Tensor& t = r.output(0);
    OneRun result;
    result.out.assign(t.data<float>(), t.data<float>() + t.num_elements());
    result.profile = r.profiling();
    return result;
}

}  // namespace irlite::testing
