// The op contract. Each op lives in one file under kernels/ and describes itself with an OpDef:
// its IR type and opset range, its inputs by role, how to parse its attributes, its shape-and-type
// rule and its kernel. The graph builder calls only the rule (at load time, on what is known
// then); the executor calls the kernel, and calls the rule again only for nodes whose shapes were
// not static at load time (tflite-micro's prepare/eval split).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/error.hpp"
#include "engine/ir_document.hpp"
#include "engine/shape.hpp"
#include "engine/tensor.hpp"

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

    // An Error located at input port i (its role taken from the OpDef).
    Error input_error(size_t i, ErrorKind kind, std::string code, std::string message) const;

private:
    const OpDef& def_;
    const OpAttrs& attrs_;
    std::vector<Input> inputs_;
    int declared_outputs_;
};

// Stateful ops' variables (ReadValue/Assign), owned by an infer request, kept between runs.
class VariableStore {
public:
    const Tensor* find(const std::string& id) const;
    void set(const std::string& id, Tensor value) { values_[id] = std::move(value); }
    void reset() { values_.clear(); }
    size_t size() const { return values_.size(); }

private:
    std::map<std::string, Tensor> values_;
};

// What a kernel sees. Outputs are allocated by the executor with the inferred shapes, unless the
// OpDef sets allocates_outputs, in which case the kernel assigns them (views, Const data).
class KernelContext {
public:
    KernelContext(const OpDef& def, const OpAttrs& attrs, const std::vector<Tensor>& inputs,
                  std::vector<Tensor>& outputs, VariableStore* variables, const Tensor* bound_input)
        : def_(def), attrs_(attrs), inputs_(inputs), outputs_(outputs), variables_(variables),
          bound_input_(bound_input) {}

    size_t num_inputs() const { return inputs_.size(); }
    const Tensor& input(size_t i) const { return inputs_[i]; }
    size_t num_outputs() const { return outputs_.size(); }
    Tensor& output(size_t i) { return outputs_[i]; }
    template <class A>
    const A& attrs() const {
        return static_cast<const A&>(attrs_);
    }
    // The infer request's variables; null where there are none (constant folding).
    VariableStore* variables() const { return variables_; }
    // For Parameter only: the tensor the user bound to it.
    const Tensor* bound_input() const { return bound_input_; }
    const OpDef& def() const { return def_; }

    Error input_error(size_t i, ErrorKind kind, std::string code, std::string message) const;

private:
    const OpDef& def_;
    const OpAttrs& attrs_;
    const std::vector<Tensor>& inputs_;
    std::vector<Tensor>& outputs_;
    VariableStore* variables_;
    const Tensor* bound_input_;
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
    AttrParser parse_attrs;          // null: the op has no attributes
    ShapeRule infer;
    KernelFn compute;

    int max_inputs() const { return variadic_inputs ? INT32_MAX : static_cast<int>(input_roles.size()); }
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

    // The ops irlite ships (kernels/all_ops.cpp).
    static const OpRegistry& builtin();

private:
    std::vector<OpDef> defs_;
};

// The canonical lower-case key for an IR type name (applies the aliases).
std::string canonical_op_type(std::string_view type);

// "opset8" -> 8; nullopt for anything else ("experimental", "extension", "opsetX").
std::optional<int> parse_opset(std::string_view version);

}  // namespace irlite
