// Binding NAME=FILE.npy arguments to a compiled model's inputs (run and bench share it).
#pragma once

#include <string>
#include <vector>

#include "irlite/irlite.hpp"

namespace irlite::cli {

struct BoundInput {
    size_t index;  // model input position
    std::string path;  // the .npy it came from; empty when filled (--fill)
    Tensor tensor;
};

// --fill: what an input not given with -i holds (OpenVINO's benchmark_app fills inputs the same
// way). Random: floats uniform in [0, 1), integers in [0, 10), booleans 0/1, from a fixed
// generator (splitmix64) so that a seed gives the same values on every machine.
enum class FillMode { None, Zeros, Ones, Random };
FillMode parse_fill_mode(const std::string& text);  // throws UsageError
const char* fill_mode_name(FillMode mode);
uint64_t parse_seed(const std::string& text);  // --seed: a whole number >= 0; throws UsageError

// Reads every NAME=FILE.npy; errors (kind Input) name the argument and list what the model
// expects when a name is unknown or given twice. Inputs not given are filled per `fill` (they
// need a static shape), or, with FillMode::None, are an `input-missing` error. Returns every
// model input, in model order.
std::vector<BoundInput> load_inputs(const CompiledModel& model, const std::vector<std::string>& specs,
                                    FillMode fill = FillMode::None, uint64_t seed = 0);

// A tensor of the port's type and static shape filled per `mode`; the values of a random fill
// depend on (seed, index) only.
Tensor filled_input(const PortInfo& port, FillMode mode, uint64_t seed, size_t index);

// "'x' f32 [1,3,?]; 'y' i64 []"
std::string describe_inputs(const CompiledModel& model);

}  // namespace irlite::cli
