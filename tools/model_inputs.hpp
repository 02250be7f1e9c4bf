// Binding NAME=FILE.npy arguments to a compiled model's inputs (run and bench share it).
#pragma once

#include <string>
#include <vector>

#include "engine/irlite.hpp"

namespace irlite::cli {

struct BoundInput {
    size_t index;  // model input position
    std::string path;
    Tensor tensor;
};

// Reads every NAME=FILE.npy; errors (kind Input) name the argument and list what the model
// expects when a name is unknown, given twice, or missing.
std::vector<BoundInput> load_inputs(const CompiledModel& model, const std::vector<std::string>& specs);

// "'x' f32 [1,3,?]; 'y' i64 []"
std::string describe_inputs(const CompiledModel& model);

}  // namespace irlite::cli
