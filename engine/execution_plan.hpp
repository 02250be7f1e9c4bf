// The compiled plan of a graph: the steps to run, each node's prepared OpPlan, and where every
// value lives. Made once per CompiledModel (and once per input-shape signature of a dynamic
// model); immutable and shared by every infer request.
//
// Where a value lives (ValueSlot::Kind):
//   Constant  a Const or a value folded at load time: the graph's tensor (read-only; Consts view
//             the memory-mapped .bin).
//   Input     a model input: the tensor the caller bound (read-only).
//   Arena     an intermediate with a static shape: a fixed offset in the request's arena, shared
//             over time with other intermediates whose lifetimes do not overlap (memory_plan.hpp).
//   View      the bytes of another value from an offset on (Reshape, Squeeze, outer-axis Slice,
//             in-place outputs). Writable only when its root is an Arena value.
//   Dynamic   made at run time: by a node whose shapes or value inputs are only known then, or by a
//             DataDependent step, whose kernel sizes it in the runner's DynamicOutputBuffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/graph.hpp"

namespace irlite {

struct ValueSlot {
    enum class Kind { Constant, Input, Arena, View, Dynamic };
    Kind kind = Kind::Dynamic;
    int node = -1, output = 0;
    ElementType type = ElementType::f32;
    Shape shape;              // static kinds (Constant, Arena, View; Input when the plan is static)
    int input_index = -1;     // Input: the model input's position
    int base = -1;            // View: the value it views
    size_t byte_offset = 0;   // View: offset into the base; Arena: offset in the arena
    int root = -1;            // the Arena / Input / Constant value whose memory this is
    int last_use = -1;        // last step that reads it (INT32_MAX: a model output)
};

struct ExecStep {
    enum class Mode {
        Kernel,   // call the kernel with the prepared plan on pre-made outputs
        Skip,     // every output is a view: nothing to do at run time
        // Call the kernel with the prepared plan; its output sizes depend on values (OpDef::
        // data_dependent_outputs), and it makes its outputs in the runner's buffers, first_dynamic_buffer on.
        DataDependent,
        Dynamic,  // infer, prepare and allocate at run time (shapes or values known only then)
    };
    Mode mode = Mode::Kernel;
    int node = -1;
    std::vector<int> inputs;  // value ids
    int first_output = 0;     // value ids first_output .. first_output + num_outputs - 1
    int num_outputs = 0;
    // Bit o set: output o is read by no step and is no model output (MaxPool's indices of a CNN
    // exported from PyTorch); the kernel may leave it unwritten (KernelContext::output_needed).
    uint64_t unused_outputs = 0;
    std::shared_ptr<const OpPlan> plan;  // Kernel steps of ops that prepare; DataDependent steps
    // DataDependent: output o's memory is the runner's DynamicOutputBuffer first_dynamic_buffer + o.
    int first_dynamic_buffer = -1;
};

struct ExecutionPlan {
    std::shared_ptr<const Graph> graph;
    std::string file;
    std::vector<ValueSlot> values;
    std::vector<int> node_first_value;  // per node: the value id of its output 0
    std::vector<ExecStep> steps;
    size_t arena_bytes = 0;
    size_t scratch_bytes = 0;           // the largest scratch any step needs
    int dynamic_buffers = 0;            // the DynamicOutputBuffers a runner keeps (DataDependent steps' outputs)
    std::vector<int> input_values;      // per model input: its value id
    std::vector<int> output_values;     // per model output: the value id feeding the Result
    std::vector<int> input_views;       // View values rooted in an Input, in topological order
    bool has_dynamic_steps = false;
    bool inputs_static = false;         // every model input has a static shape in this plan
};

// Prepares every node whose shapes are static and plans the memory. Throws the first error.
// threads: the pool the plan will run on (InferContext::threads), 0 when unknown.
// keep_values (CompileOptions::keep_intermediates): every value a step makes lives until the end of
// the run, so that each node's outputs can be read after it: no arena bytes shared over time, no
// in-place outputs, no Concat inputs written into the Concat's output, every output computed.
std::shared_ptr<const ExecutionPlan> make_execution_plan(std::shared_ptr<const Graph> graph, const std::string& file,
                                                         int threads = 0, bool keep_values = false);

// The memory of a plan's runs, as an infer request (or a sub-graph's body runner) holds it:
// `bound`, per model input, the tensor bound to it; `values`, per value of the plan, its tensor.
// Value v's tensor: an Input's is the bound one, every other value's is values[v].
inline const Tensor* value_tensor(const ExecutionPlan& ep, const std::vector<Tensor>& bound,
                                  const std::vector<Tensor>& values, int v) {
    const ValueSlot& slot = ep.values[static_cast<size_t>(v)];
    if (slot.kind == ValueSlot::Kind::Input) return &bound[static_cast<size_t>(slot.input_index)];
    return &values[static_cast<size_t>(v)];
}

// Makes `values` (one tensor per value of the plan) point at their memory for good: Constants at
// the graph's tensors, Arena values into `arena` (ep.arena_bytes, 64-byte aligned), Views into
// their bases, each chain of views from its root down (a view's base may come later in value
// order: an input of a Concat whose producer writes into the Concat's output). Views of inputs
// are left to be aimed at every run (ep.input_views); Input and Dynamic values stay empty.
void bind_values(const ExecutionPlan& ep, std::byte* arena, const std::vector<Tensor>& bound, std::vector<Tensor>& values);

// After a DataDependent step's kernel: every output was made (KernelContext::dynamic_output),
// with the type and a shape the graph inferred for it; else Error(ShapeRule,
// "kernel-output-mismatch"). Allocates nothing when they were.
void check_data_dependent_outputs(const Node& node, const KernelContext& ctx);

// The memory a runner (an infer request, a sub-graph's body runner) keeps for a plan's steps.
struct StepMemory {
    std::vector<Tensor>& values;                       // per value of the plan
    void* scratch;                                     // per thread: scratch_stride bytes
    size_t scratch_stride;
    ThreadPool* pool;                                  // null: the calling thread only
    std::vector<std::unique_ptr<OpState>>& op_states;  // per step
    std::vector<DynamicOutputBuffer>& dynamic_buffers;  // per DataDependent step's output
};

// Runs step i of `ep`, a Kernel or DataDependent step, on `inputs` and the runner's memory; checks
// a DataDependent step's outputs (check_data_dependent_outputs).
void run_planned_step(const ExecutionPlan& ep, size_t i, const std::vector<const Tensor*>& inputs, const StepMemory& m);

// Per step, its inputs' tensors (value_tensor of each), for a KernelContext.
std::vector<std::vector<const Tensor*>> step_input_tensors(const ExecutionPlan& ep, const std::vector<Tensor>& bound,
                                                           const std::vector<Tensor>& values);

}  // namespace irlite
