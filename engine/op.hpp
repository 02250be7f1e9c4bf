// The op contract. Each op lives in one file under kernels/ and describes itself with an OpDef:
// its IR type and opset range, its inputs by role, how to parse its attributes, its shape-and-type
// rule, its prepare step and its kernel. The graph builder calls only the rule (at load time, on
// what is known then). Compiling a model calls prepare once per node whose input shapes and value
// inputs are known, keeping the OpPlan it returns; the executor then calls only the kernel, which
// reads its plan, inputs and outputs (tflite-micro's prepare/eval split). Nodes whose shapes are
// only known at run time are inferred and prepared there.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/compressed_weights.hpp"
#include "engine/epilogue.hpp"
#include "engine/opset_catalog.hpp"
#include "engine/quantized_input.hpp"
#include "irlite/diagnostic.hpp"
#include "irlite/error.hpp"
#include "engine/ir_document.hpp"
#include "irlite/shape.hpp"
#include "irlite/tensor.hpp"

namespace irlite {

inline constexpr int kLatestOpset = 16;

// Base of every op's typed attributes (parsed once per layer from <data .../>).
struct OpAttrs {
    virtual ~OpAttrs() = default;
};
struct NoAttrs : OpAttrs {};

// Typed access to a layer's <data> attributes. Every getter names the attribute in its errors
// (kind Attribute, code "attribute-missing" / "attribute-invalid").
class AttrReader {
public:
    AttrReader(const IrLayer& layer, const WeightsBlob* weights) : layer_(layer), weights_(weights) {}

    bool has(std::string_view name) const;
    std::string get_string(std::string_view name) const;  // required
    std::string get_string(std::string_view name, std::string_view fallback) const;
    int64_t get_i64(std::string_view name) const;  // required
    int64_t get_i64(std::string_view name, int64_t fallback) const;
    double get_f64(std::string_view name) const;  // required
    double get_f64(std::string_view name, double fallback) const;
    // true/false/1/0, case-insensitive (OpenVINO's rule).
    bool get_bool(std::string_view name, bool fallback) const;
    // Comma-separated lists; "" is an empty list; an empty field ("1,,2") is an error.
    std::vector<int64_t> get_i64_list(std::string_view name) const;  // required
    std::vector<int64_t> get_i64_list(std::string_view name, std::vector<int64_t> fallback) const;
    std::vector<double> get_f64_list(std::string_view name) const;
    ElementType get_element_type(std::string_view name) const;  // required
    // One of `allowed` (compared case-insensitively); the error lists them.
    std::string get_enum(std::string_view name, const std::vector<std::string>& allowed,
                         std::string_view fallback) const;

    const IrLayer& layer() const { return layer_; }
    const WeightsBlob* weights() const { return weights_; }  // null when no .bin was loaded

private:
    const std::string* find(std::string_view name) const;
    [[noreturn]] void invalid(std::string_view name, const std::string& value, std::string_view why) const;

    const IrLayer& layer_;
    const WeightsBlob* weights_;
};

struct OpDef;

// What a shape rule knows about one output.
struct OutputInfo {
    ElementType type = ElementType::f32;
    PartialShape shape;
};

// What a shape rule sees: its inputs' types and shapes, and the values of inputs known at that
// time (Const or folded inputs at load time; every input at run time).
class InferContext {
public:
    struct Input {
        ElementType type;
        PartialShape shape;
        const Tensor* value;  // null when not known
    };
    InferContext(const OpDef& def, const OpAttrs& attrs, std::vector<Input> inputs, int declared_outputs)
        : def_(def), attrs_(attrs), inputs_(std::move(inputs)), declared_outputs_(declared_outputs) {}

    size_t num_inputs() const { return inputs_.size(); }
    const std::vector<Input>& inputs() const { return inputs_; }
    std::vector<Input> take_inputs() && { return std::move(inputs_); }
    ElementType type(size_t i) const { return inputs_[i].type; }
    const PartialShape& shape(size_t i) const { return inputs_[i].shape; }
    const Tensor* value(size_t i) const { return inputs_[i].value; }
    template <class A>
    const A& attrs() const {
        return static_cast<const A&>(attrs_);
    }
    // Number of output ports the layer declares (ops with a variable output count use it).
    int declared_outputs() const { return declared_outputs_; }
    const OpDef& def() const { return def_; }
    // The threads the plan's kernel will run on (the compiled model's pool), 0 when unknown. Work
    // may be cut for that many (fewer, larger pieces on one thread); results must not depend on it.
    int threads() const { return threads_; }
    void set_threads(int threads) { threads_ = threads; }
    // Check mode only (else null): where a rule that checks a whole sub-graph (a TensorIterator's
    // body) adds the findings inside it; the rule then goes on as check does.
    std::vector<Diagnostic>* findings() const { return findings_; }
    void set_findings(std::vector<Diagnostic>* findings) { findings_ = findings; }

    // An Error located at input port i (its role taken from the OpDef).
    Error input_error(size_t i, ErrorKind kind, std::string code, std::string message) const;

private:
    const OpDef& def_;
    const OpAttrs& attrs_;
    std::vector<Input> inputs_;
    int declared_outputs_;
    int threads_ = 0;
    std::vector<Diagnostic>* findings_ = nullptr;
};

// Stateful ops' variables (ReadValue/Assign), owned by an infer request, kept between runs.
class VariableStore {
public:
    const Tensor* find(const std::string& id) const;
    void set(const std::string& id, Tensor value) { values_[id] = std::move(value); }
    void reset() { values_.clear(); }
    void erase(const std::string& id) { values_.erase(id); }
    size_t size() const { return values_.size(); }

private:
    std::map<std::string, Tensor> values_;
};

// A node's prepared plan: what its op decided once, from static input shapes and the values of
// its constant inputs (resolved axes, strides, window geometry, packed constants, chosen method).
// Built by OpDef::prepare at compile time (again only when a dynamic shape changes) and read by
// the kernel on every run, so that the hot path repeats no validation and allocates nothing.
struct OpPlan {
    virtual ~OpPlan() = default;

    // Output `output` is the bytes of input `input` from `byte_offset` on, seen with the output's
    // shape (Reshape, Squeeze, Slice along the outermost axis): the executor makes it a view and
    // does not call the kernel when every output is one. Outside the executor (constant folding,
    // unit tests) outputs are separate buffers and the kernel copies.
    struct View {
        int output = 0, input = 0;
        size_t byte_offset = 0;
    };
    std::vector<View> views;
    // Output `output` may share input `input`'s buffer when that buffer dies at this node: the
    // kernel is correct whether out.data() == in.data() or not (ScatterNDUpdate, elementwise).
    struct InPlace {
        int output = 0, input = 0;
    };
    std::vector<InPlace> in_place;
    // Input `input` is the bytes of output `output` from `byte_offset` on (Concat along an axis
    // with only 1s before it): the executor may have each input's producer write straight into
    // the output and then not call the kernel (the converse of `views`). It does so only when every
    // input of the node can be placed that way; otherwise the kernel copies, as it always does
    // outside the executor.
    struct InputSlice {
        int input = 0, output = 0;
        size_t byte_offset = 0;
    };
    std::vector<InputSlice> input_slices;
    // Bytes of scratch memory the kernel needs per run (KernelContext::scratch()), 64-byte aligned.
    size_t scratch_bytes = 0;
    // A word for profiles and logs: the method the plan chose ("view", "gemm", "direct", ...).
    const char* method = "";
    // For an op that allocates its outputs (OpDef::allocates_outputs) or sizes them from the data:
    // with this plan its outputs' shapes are the static ones inferred, and the kernel writes into
    // outputs the executor makes (a TensorIterator whose iteration count the shapes give). The
    // kernel sees pre-made outputs as valid tensors; elsewhere (run_node, tests) it makes them.
    bool writes_outputs = false;
};

// What a kernel keeps from one run to the next of one node in one infer request (a sub-graph's
// body runner and its buffers): made by the kernel on its first run (KernelContext::state), reused
// by the later ones, dropped with the request or when the request changes plans. Never shared
// between requests, so a kernel may write it without locks.
struct OpState {
    virtual ~OpState() = default;
};

class ThreadPool;

// The memory of one output whose size only its kernel knows (OpDef::data_dependent_outputs),
// kept by whoever runs that kernel run after run (an infer request, a sub-graph's runner, the op
// tester). The kernel's output is a view of it with that run's shape (KernelContext::
// dynamic_output). It is reallocated only when a run needs more bytes than it holds, and then to
// exactly what that run needs: it grows to the high-water mark of the runs, no further, and from
// then on a run allocates nothing. A view handed out shares its ownership, so it never dangles;
// its bytes are the next run's once that run reuses the buffer.
struct DynamicOutputBuffer {
    Tensor memory;  // u8 [capacity]; empty before the first run
    size_t capacity() const { return memory.valid() ? memory.byte_size() : 0; }
};

// What a kernel sees: its inputs, its outputs (allocated by the executor with the inferred
// shapes, unless the OpDef sets allocates_outputs, in which case the kernel assigns them, or makes
// them with dynamic_output when it sets data_dependent_outputs), the node's prepared plan, per-run
// scratch memory and the request's thread pool.
class KernelContext {
public:
    // Inputs and outputs as contiguous tensors (constant folding, tests, benchmarks). When the op
    // has a prepare step and no plan is given, plan() prepares one on first use.
    KernelContext(const OpDef& def, const OpAttrs& attrs, const std::vector<Tensor>& inputs,
                  std::vector<Tensor>& outputs, VariableStore* variables, const Tensor* bound_input)
        : def_(def), attrs_(attrs), dense_inputs_(inputs.data()), num_inputs_(inputs.size()),
          outputs_(outputs.data()), num_outputs_(outputs.size()), variables_(variables), bound_input_(bound_input) {}
    // The executor's form: inputs by pointer, outputs contiguous, a prepared plan and scratch.
    // `scratch` holds one region of `scratch_stride` bytes per thread of `pool` (one without a pool).
    KernelContext(const OpDef& def, const OpAttrs& attrs, const Tensor* const* inputs, size_t num_inputs,
                  Tensor* outputs, size_t num_outputs, const OpPlan* plan, void* scratch, size_t scratch_stride,
                  ThreadPool* pool)
        : def_(def), attrs_(attrs), input_ptrs_(inputs), num_inputs_(num_inputs), outputs_(outputs),
          num_outputs_(num_outputs), plan_(plan), scratch_(scratch), scratch_stride_(scratch_stride), pool_(pool) {}
    ~KernelContext();
    KernelContext(const KernelContext&) = delete;
    KernelContext& operator=(const KernelContext&) = delete;

    size_t num_inputs() const { return num_inputs_; }
    const Tensor& input(size_t i) const { return input_ptrs_ ? *input_ptrs_[i] : dense_inputs_[i]; }
    size_t num_outputs() const { return num_outputs_; }
    Tensor& output(size_t i) { return outputs_[i]; }
    const Tensor& output(size_t i) const { return outputs_[i]; }
    // False when nothing reads output i (no consumer, no model output): a kernel may skip work
    // that only that output needs. Always true outside the executor (folding, tests).
    bool output_needed(size_t i) const { return i >= 64 || !((unused_outputs_ >> i) & 1u); }
    void set_unused_outputs(uint64_t mask) { unused_outputs_ = mask; }
    template <class A>
    const A& attrs() const {
        return static_cast<const A&>(attrs_);
    }
    // The node's prepared plan (OpDef::prepare). Outside the executor it is prepared here, once.
    template <class P>
    const P& plan() const {
        return static_cast<const P&>(*ensure_plan());
    }
    // plan().scratch_bytes of 64-byte-aligned memory, valid during this kernel call only. Each
    // thread of the pool gets its own: call it from inside the task that uses it.
    void* scratch() const;
    // For ops with data_dependent_outputs: makes output i a tensor of `type` and `shape` for this
    // run and returns it, for the kernel to write every element of. Its bytes are the runner's
    // buffer for that output (set_dynamic_buffers), grown when this run needs more than it holds;
    // without buffers (constant folding, a node planned at run time) it is a tensor of its own.
    // Throws Error(Limit) for an output larger than the tensor limit, as any tensor. Allocates
    // nothing when the buffer is large enough and the output's rank is the one it had last run.
    Tensor& dynamic_output(size_t i, ElementType type, std::initializer_list<int64_t> shape) {
        return make_dynamic_output(i, type, shape.begin(), shape.size());
    }
    Tensor& dynamic_output(size_t i, ElementType type, const Shape& shape) {
        return make_dynamic_output(i, type, shape.data(), shape.size());
    }
    // The runner's: buffers[i] keeps output i's memory from run to run (one per output).
    void set_dynamic_buffers(DynamicOutputBuffer* buffers) { dynamic_buffers_ = buffers; }
    // The runner keeps buffers for dynamic_output: the outputs are the kernel's to make.
    bool has_dynamic_buffers() const { return dynamic_buffers_ != nullptr; }
    // Bit i set: dynamic_output made output i during this call.
    uint64_t dynamic_outputs_made() const { return dynamic_made_; }
    // This node's state in this request (OpState), empty until the kernel puts one there. The
    // runner keeps it between runs (set_state); without a runner's slot (constant folding, a node
    // planned at run time) it lives as long as this context, so the kernel makes it every run.
    std::unique_ptr<OpState>& state() { return state_slot_ ? *state_slot_ : own_state_; }
    void set_state(std::unique_ptr<OpState>* slot) { state_slot_ = slot; }
    // The request's intra-op thread pool; null means run on the calling thread.
    ThreadPool* pool() const { return pool_; }
    // The infer request's variables; null where there are none (constant folding).
    VariableStore* variables() const { return variables_; }
    // For Parameter only: the tensor the user bound to it.
    const Tensor* bound_input() const { return bound_input_; }
    const OpDef& def() const { return def_; }

    Error input_error(size_t i, ErrorKind kind, std::string code, std::string message) const;

private:
    const OpPlan* ensure_plan() const;
    Tensor& make_dynamic_output(size_t i, ElementType type, const int64_t* dims, size_t rank);

    const OpDef& def_;
    const OpAttrs& attrs_;
    const Tensor* dense_inputs_ = nullptr;
    const Tensor* const* input_ptrs_ = nullptr;
    size_t num_inputs_ = 0;
    Tensor* outputs_ = nullptr;
    size_t num_outputs_ = 0;
    uint64_t unused_outputs_ = 0;
    VariableStore* variables_ = nullptr;
    const Tensor* bound_input_ = nullptr;
    mutable const OpPlan* plan_ = nullptr;
    mutable std::unique_ptr<OpPlan> own_plan_;  // prepared here, outside the executor
    mutable void* scratch_ = nullptr;
    mutable void* own_scratch_ = nullptr;
    size_t scratch_stride_ = 0;
    ThreadPool* pool_ = nullptr;
    DynamicOutputBuffer* dynamic_buffers_ = nullptr;
    uint64_t dynamic_made_ = 0;
    std::unique_ptr<OpState>* state_slot_ = nullptr;
    std::unique_ptr<OpState> own_state_;
};

enum class OpRole {
    Compute,    // an ordinary op
    Parameter,  // a model input: its kernel receives the bound tensor
    Result,     // a model output: its input is what the user gets back
    Sink,       // no output, kept alive anyway (Assign)
};

using AttrParser = std::function<std::unique_ptr<OpAttrs>(const AttrReader&)>;
using ShapeRule = std::function<std::vector<OutputInfo>(const InferContext&)>;
using KernelFn = std::function<void(KernelContext&)>;
// Builds the node's plan from an InferContext in which every input shape is static and every
// value input (OpDef::value_inputs) is known. Throws like the shape rule does.
using PrepareFn = std::function<std::unique_ptr<OpPlan>(const InferContext&)>;

struct OpDef {
    std::string type;  // IR type, e.g. "Slice" (matched case-insensitively)
    int version = 1;   // the op's own version, e.g. 8 for Slice-8
    int first_opset = 1, last_opset = kLatestOpset;  // opsets that contain this version
    std::vector<std::string> input_roles;  // names of the input ports, by position
    int min_inputs = 0;                    // max = input_roles.size(), unless variadic_inputs
    bool variadic_inputs = false;          // the last role repeats without limit (Concat)
    int num_outputs = 1;                   // -1: decided by the shape rule (VariadicSplit)
    uint32_t value_inputs = 0;  // bit i: the shape rule needs input i's values when known
    uint32_t shape_only_inputs = 0;  // bit i: the kernel reads only input i's shape (ShapeOf)
    OpRole role = OpRole::Compute;
    bool foldable = true;           // may run at load time when its inputs are known
    bool allocates_outputs = false;  // the kernel assigns its outputs itself
    // The outputs' sizes depend on input values (NonZero, NonMaxSuppression-5): the kernel makes
    // every output with KernelContext::dynamic_output. Requires allocates_outputs. With a prepare,
    // a node whose inputs are static runs from its plan, its outputs in buffers of the request
    // that grow to the largest size a run needs (DynamicOutputBuffer): no allocation in steady state.
    bool data_dependent_outputs = false;
    // prepare reads none of value_inputs' values (they only sharpen the shape rule): a node is
    // prepared when they are known only at run time (a Loop's trip count, an If's condition).
    bool prepares_without_values = false;
    bool accepts_packed = false;     // takes and makes packed weight tensors (u1, u4, i4, nf4, f4, f8)
    AttrParser parse_attrs;          // null: the op has no attributes
    ShapeRule infer;
    PrepareFn prepare;  // null: the kernel needs no plan
    KernelFn compute;

    // Graph fusion (engine/fusion.hpp); the defaults take no part in it.
    // An elementwise activation of input 0: what it computes, given its attributes and constant
    // inputs; nullopt when it cannot be described (e.g. a Swish beta known only at run time).
    std::function<std::optional<Activation>(const InferContext&)> as_activation;
    bool is_add = false;  // an elementwise, commutative a + b (numpy broadcasting)
    // The kernel can apply an Epilogue to output 0: the op's attributes with it attached (kernels
    // read it in prepare). Bias runs along output axis epilogue_channel_axis (negative: from the end).
    std::function<std::unique_ptr<OpAttrs>(const OpAttrs&, std::shared_ptr<const Epilogue>)> with_epilogue;
    int epilogue_channel_axis = 1;
    // A FakeQuantize the epilogue can end with: its scalar ranges and levels, given its constant
    // inputs; nullopt when they are not scalar constants.
    std::function<std::optional<EpilogueFakeQuantize>(const InferContext&)> as_fake_quantize;
    // The kernel these attributes select applies an epilogue's FakeQuantize (few do).
    std::function<bool(const OpAttrs&)> takes_fake_quantize;

    // The low-precision pass (engine/low_precision.hpp); the defaults take no part in it.
    // FakeQuantize: its number of levels, from its attributes.
    std::function<int64_t(const OpAttrs&)> quantization_levels;
    bool is_multiply = false;  // an elementwise, commutative a * b (numpy broadcasting)
    // The kernel can quantize its data input itself and run in int8 (engine/quantized_input.hpp):
    // the op's attributes with it attached; null when these attributes or the weights' shape rule
    // it out.
    std::function<std::unique_ptr<OpAttrs>(const OpAttrs&, std::shared_ptr<const QuantizedInput>)> with_quantized_input;
    // The level pass (engine/level_tensors.hpp): the QuantizedInput these attributes carry (null:
    // none). Set only by ops whose int8 kernel also takes and writes u8 levels
    // (QuantizedInput::levels_in, levels_out), which with_quantized_input then attaches.
    std::function<const QuantizedInput*(const OpAttrs&)> quantized_input_of;
    // Output 0's elements are elements of the inputs, picked by position (Concat) or by comparing
    // them (MaxPool, when nothing reads its indices): levels pass through unchanged, as a
    // non-decreasing quantizer commutes with a max. The kernel then also runs on u8 data.
    bool passes_levels = false;

    // The weight-compression pass (engine/weight_compression.hpp); the defaults take no part in it.
    bool is_subtract = false;          // an elementwise a - b (numpy broadcasting)
    bool is_convert = false;           // input 0's values in another element type
    bool keeps_element_order = false;  // input 0's elements in the same order, another shape (Reshape)
    // The kernel can read its weights (input 1) compressed: the op's attributes with them
    // attached; null when these attributes rule it out. Input 1 is then the weights' integer Const.
    std::function<std::unique_ptr<OpAttrs>(const OpAttrs&, std::shared_ptr<const CompressedWeights>)> with_compressed_weights;

    int max_inputs() const { return variadic_inputs ? INT32_MAX : static_cast<int>(input_roles.size()); }
    // Bit i of value_inputs / shape_only_inputs; false past the masks' 32 bits (a Concat's 40th
    // input), where a plain shift would be undefined.
    bool needs_value(size_t i) const { return i < 32 && (value_inputs >> i & 1u) != 0; }
    bool needs_value_to_prepare(size_t i) const { return needs_value(i) && !prepares_without_values; }
    bool reads_only_shape(size_t i) const { return i < 32 && (shape_only_inputs >> i & 1u) != 0; }
    // The role of input port i ("data", "start", ...; "data3" for a variadic op's 4th input).
    std::string input_role(size_t i) const;
    std::string opset_range() const;  // "opset8+", "opset1..opset7"
};

// Bit mask helper: inputs(1, 2, 3) == 0b1110.
template <class... I>
constexpr uint32_t inputs(I... i) {
    return ((uint32_t{1} << i) | ... | 0u);
}

// The table of op definitions. Lookup is by IR type (case-insensitive, with OpenVINO's aliases
// Const/Constant, PReLU/PRelu, ReLU/Relu, SoftMax/Softmax) and opset number.
class OpRegistry {
public:
    // Throws Error(kind Usage) when (type, opset range) overlaps an existing definition.
    void add(OpDef def);
    // The definition of `type` in opset `opset`, or null.
    const OpDef* find(std::string_view type, int opset) const;
    // Every definition of `type` (any opset), for "exists in opsets ..." messages.
    std::vector<const OpDef*> find_all(std::string_view type) const;
    const std::vector<OpDef>& all() const { return defs_; }

private:
    std::vector<OpDef> defs_;
    std::unordered_map<std::string, std::vector<size_t>> by_type_;  // canonical type -> defs_ indices
};

}  // namespace irlite
