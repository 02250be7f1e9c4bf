// Where two runs' results diverge, layer by layer (`irlite compare`, Python's irlite.compare): run
// two models, or one model two ways, on the same inputs keeping every node's outputs
// (CompileOptions::keep_intermediates), match the outputs of one run with the other's, and measure
// how far each matched pair is apart.
//
// Matching, in A's topological order: by tensor name (any of A's port's names among B's), then by
// layer name and port (the layer whose output it is: a fused node's last layer, so a fused run
// matches an unfused one). Each output of B is matched at most once; outputs of different element
// counts do not match. Values are compared in double, whatever their element types (f16 against
// f32, u8 against f32).
//
// Per matched pair: the cosine similarity of the finite elements (1 when both are all zeros, 0
// when only one is), the largest absolute difference of finite elements, that over the largest
// finite |A| (0 when both are 0; infinity when only B differs from an all-zero A), and whether the
// elements that are NaN, +inf or -inf differ. The first divergent output is the first matched pair
// (A's order) whose cosine is below the threshold or whose non-finite elements differ; with an
// absolute tolerance `atol` > 0, a pair whose largest difference is at most atol is never
// divergent by its cosine (a tensor that is only rounding noise, such as a LayerNorm's mean of a
// zero-mean input, has a low cosine however small its difference).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "irlite/irlite.hpp"

namespace irlite {

// A model input given to a comparison: every name it answers to (a Parameter's name and tensor
// names; the other run's input is the one with any of these names), its value, and where the
// value came from (a file, "random fill, seed 0"), for reports.
struct NamedInput {
    std::vector<std::string> names;
    Tensor tensor;
    std::string source;
};

// The value `t` converted to `type` element by element through double (rounded to nearest even
// for f16 and bf16, truncated toward zero for integer types); `t` itself when the type is the same.
Tensor convert_element_type(const Tensor& t, ElementType type);

// Caps the instruction set (set_isa_cap) while it lives, when `isa` is not empty.
class IsaCapScope {
public:
    explicit IsaCapScope(std::string isa);
    ~IsaCapScope();
    IsaCapScope(const IsaCapScope&) = delete;
    IsaCapScope& operator=(const IsaCapScope&) = delete;

private:
    std::string isa_;
};

// Runs `compiled` (compiled with keep_intermediates) once with `inputs` bound by name, each
// converted to its Parameter's element type when only that differs (an f16 model takes the f32
// inputs rounded), and returns every node's outputs as copies that own their memory. Throws
// Error(Input, "input-missing") when one of the model's inputs answers to none of the names.
std::vector<NodeOutput> run_keeping_outputs(const CompiledModel& compiled, const std::vector<NamedInput>& inputs);

// How far two tensors with the same number of elements are apart.
struct TensorDifference {
    double cosine = 1, max_abs = 0, max_rel = 0;
    bool nonfinite_differs = false;
};
TensorDifference tensor_difference(const Tensor& a, const Tensor& b);

struct MatchedTensor {
    std::string name;     // A's first tensor name, else its label (output_label)
    std::string layer_a;  // NodeOutput::name of each side
    std::string layer_b;
    std::string type_a;   // NodeOutput::type of A
    int port = 0;         // A's port
    TensorDifference difference;
    bool diverges = false;  // cosine below the threshold (and max_abs above atol), or non-finite elements differ
};

struct Comparison {
    double threshold = 0.999;
    double atol = 0;
    std::vector<MatchedTensor> tensors;  // in A's topological order
    int first_divergent = -1;            // index into tensors; -1 when nothing diverges
    std::vector<std::string> unmatched_a, unmatched_b;  // output labels, in each side's order
};

// "name", or "name.port" when the layer has several outputs: `irlite run --dump`'s file names
// (before the characters outside [A-Za-z0-9._-] become '_').
std::string output_label(const NodeOutput& output);

// Matches A's outputs with B's and measures every pair (see the top of this file).
Comparison compare_outputs(const std::vector<NodeOutput>& a, const std::vector<NodeOutput>& b, double threshold = 0.999,
                           double atol = 0);

// One run of a comparison: a model and how it is compiled and run.
struct CompareSide {
    const Model* model = nullptr;
    CompileOptions options;  // keep_intermediates is set for it
    std::string isa;         // "": the process's level; else the cap it compiles and runs under
};

// Compiles and runs A, then B, on the same inputs and compares them. `make_inputs` gives the
// inputs from A's compiled model (files, fills or arrays); `used`, when given, receives them.
Comparison compare_models(const CompareSide& a, const CompareSide& b,
                          const std::function<std::vector<NamedInput>(const CompiledModel&)>& make_inputs,
                          double threshold = 0.999, std::vector<NamedInput>* used = nullptr, double atol = 0);

// `compare --vs WHAT`: B as A's model run another way. WHAT is "no-fusion" (A fused, B not),
// "no-int8" (B runs every FakeQuantize in float), "threads=N" or "isa=NAME" (sse, avx2, avx512). Throws Error(Usage, "vs-invalid") otherwise.
CompareSide side_run_another_way(const CompareSide& a, const std::string& what);

}  // namespace irlite
