// irlite's public API.
//
//   irlite::Model model = irlite::Model::read("model.xml");          // or read_from_memory(...)
//   irlite::CompiledModel compiled(model);                            // checks, infers shapes, folds
//   irlite::InferRequest request = compiled.create_infer_request();   // one per thread
//   request.set_input("x", irlite::Tensor::wrap(irlite::ElementType::f32, {1, 3}, my_data));
//   request.infer();
//   const irlite::Tensor& y = request.output(0);                      // valid until the next infer()
//
// Memory: a request owns one arena for the model's intermediates, allocated when it is created
// (and again only when a dynamic model meets new input shapes); outputs live in it, or are views
// of an input or a Const, and stay valid until the next infer() on that request. A view of an
// input stays valid only while that input stays bound and unchanged. set_output() gives an output
// the caller's own memory instead (copied there at the end of every infer()).
//
// A CompiledModel is immutable and may be shared between threads; each thread uses its own
// InferRequest. Every failure throws irlite::Error (irlite/error.hpp).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "irlite/diagnostic.hpp"
#include "irlite/element_type.hpp"
#include "irlite/error.hpp"
#include "irlite/export.hpp"
#include "irlite/shape.hpp"
#include "irlite/tensor.hpp"

namespace irlite {

struct Graph;
class OpRegistry;
struct IrDocument;  // the parsed IR (internal: engine/ir_document.hpp)

// irlite's version, "major.minor.patch".
IRLITE_API const char* version();

// One op irlite runs: its type, its version, and the opsets that contain that version.
struct SupportedOp {
    std::string type;
    int version = 1;
    int first_opset = 1, last_opset = 1;
};
// Every op version irlite runs, by type and version.
IRLITE_API std::vector<SupportedOp> supported_ops();

// A Parameter or Result as the file declares it, before compiling.
struct PortInfoDeclared {
    std::string name;                // the layer's name (a Result: the name its output gets)
    std::vector<std::string> names;  // tensor names
    std::string element_type;        // as written ("f32"; "" when not declared)
    PartialShape shape;              // as declared (kDynamic for -1 / ?)
};

// A model as read from IR, not yet checked.
class IRLITE_API Model {
public:
    // Reads model.xml; the weights come from `bin_path`, or else from the xml's stem + ".bin" when
    // that file exists.
    static Model read(const std::string& xml_path, const std::string& bin_path = "");
    // Reads IR text held in memory. `weights` may be null when the model has no Const. Without an
    // owner the weights are copied; with one they are used in place (zero-copy) and the owner is
    // kept alive as long as the model and anything compiled from it.
    static Model read_from_memory(std::string_view xml, const void* weights, size_t weights_size,
                                  std::shared_ptr<const void> weights_owner = nullptr);

    // A model over an IR document already read, run with the ops of `registry` (which must
    // outlive the model). read() and read_from_memory() use irlite's own ops.
    Model(std::shared_ptr<const IrDocument> doc, const OpRegistry& registry)
        : document_(std::move(doc)), registry_(&registry) {}

    // New dims for Parameters before compiling, as OpenVINO's Model::reshape: each entry names a
    // Parameter (its layer name or one of its tensor names) and gives its dims (kDynamic: left
    // dynamic). Every layer downstream is inferred and checked against them when the model is
    // compiled. Models compiled earlier keep the old shapes. Throws Error(Input,
    // "reshape-unknown-input") listing the Parameters when a name matches none.
    void reshape(const std::vector<std::pair<std::string, PartialShape>>& shapes);

    // Before compiling: the Parameters and Results as the file declares them (names, types,
    // dims; compile infers and checks them), and the op types with their versions, as "Type-N"
    // (the opset number for versions written as "opsetN"), each once, in file order.
    std::vector<PortInfoDeclared> inputs() const;
    std::vector<PortInfoDeclared> outputs() const;
    std::vector<std::string> ops() const;

    const IrDocument& document() const { return *document_; }
    std::shared_ptr<const IrDocument> document_ptr() const { return document_; }
    const OpRegistry& registry() const { return *registry_; }

private:
    std::shared_ptr<const IrDocument> document_;
    const OpRegistry* registry_;
};

// A model input or output as the user sees it.
struct PortInfo {
    std::string name;                // the name to use (see README: input and output names)
    std::vector<std::string> names;  // every tensor name of the port
    ElementType type = ElementType::f32;
    PartialShape shape;
};

// How irlite::check reads a model.
struct CheckOptions {
    std::string weights;    // the .bin; default: the xml's stem + ".bin" when that file exists
    bool no_weights = false;  // check without the .bin: Const values unknown, dims taken as declared
    // Check as if these Parameters had these dims (`irlite check --shape`); the dims the file
    // declares downstream are then checked against them.
    std::vector<std::pair<std::string, PartialShape>> shapes;
};

// What irlite::check found: every problem, sorted by line. A finding's `where` names the file,
// line, layer (id, name, type, opset) and port (the port's id in the XML) where that applies.
struct CheckResult {
    std::vector<Diagnostic> findings;
    size_t errors = 0, warnings = 0;
    bool valid() const { return errors == 0; }
};

// Validates a model file without running it and reports every problem found, as `irlite check`
// does (its text and JSON are printed from this). Problems of the file itself (unreadable, not
// XML, no <net>) are findings too. Throws only for an unknown name in options.shapes
// (Error(Input, "reshape-unknown-input")).
IRLITE_API CheckResult check(const std::string& xml_path, const CheckOptions& options = {});

class InferRequest;
class VariableState;

// How much irlite logs (engine/log.hpp): what compile decided, warnings, re-planning; to stderr
// through spdlog. Default: the process default (set_log_level, else IRLITE_LOG_LEVEL, else Off).
enum class LogLevel { Trace, Debug, Info, Warning, Error, Off, Default };
// The process default for compiles whose CompileOptions::log_level is Default (the CLI's -v/-vv).
IRLITE_API void set_log_level(LogLevel level);

// The instruction-set level of irlite's multi-versioned kernels in this process: "sse", "avx2" or
// "avx512" (the CPU's best, capped by IRLITE_ISA or set_isa_cap; README: Portable by default).
IRLITE_API std::string active_isa();
// Caps that level, as IRLITE_ISA does, for every model compiled and run from now on ("" returns
// to IRLITE_ISA's cap). A cap above the CPU's level is no cap. Not while an inference runs (kernels
// prepared at one level may run at another). Throws Error(Usage, "isa-unknown") for another name.
IRLITE_API void set_isa_cap(const std::string& name);

// What this machine offers irlite and what irlite picks on it (`irlite --version`, `irlite bench`).
struct CpuInfo {
    std::string model;                  // the processor's name (/proc/cpuinfo), "" when unknown
    std::vector<std::string> features;  // those irlite's kernels use: "avx2", "fma", "f16c", "avx512f", ...
    std::string detected_isa;           // the best level of irlite's kernels the CPU runs
    std::string active_isa;             // that level under IRLITE_ISA / set_isa_cap: what runs
    // Kernel families that pick their own level, and that level (the others run active_isa).
    std::vector<std::pair<std::string, std::string>> families;
};
IRLITE_API CpuInfo cpu_info();

// How a model is compiled.
// The precision an f16 or bf16 model computes in (README: Precision).
enum class InferencePrecision {
    // f16/bf16 values computed in f32, as OpenVINO's CPU plugin does on CPUs without fast f16
    // arithmetic: weights converted once when the model is compiled, f16 inputs and outputs
    // converted at the model's boundary, so the caller still sees the declared types.
    F32,
    // Every op computes in the types the file declares (bit-level f16 arithmetic; slower).
    Declared,
};

struct CompileOptions {
    // Intra-op threads for each infer request: 0 means IRLITE_NUM_THREADS when set, else the cores
    // this process may run on. Results are the same for every thread count.
    int threads = 0;
    // Collect per-node timings in every request (InferRequest::profiling()); off costs nothing.
    bool profiling = false;
    // Graph fusion (engine/fusion.hpp): an op and the bias, residual Add and activation after it
    // run as one node. Off is for debugging and for checking that results match.
    bool fusion = true;
    // What compile logs (fusions, each node's kernel method, memory, threads): see LogLevel.
    LogLevel log_level = LogLevel::Default;
    // What an f16/bf16 model computes in: f32 by default (FP16 IR at FP32 speed).
    InferencePrecision precision = InferencePrecision::F32;
    // Layers whose input a FakeQuantize quantizes and whose weights are integers times a scale
    // (POT/NNCF INT8 IR) run in int8 (README: INT8). Off runs every FakeQuantize in float, as
    // the graph says: the reference to compare with.
    bool int8 = true;
    // Keep the value of every node until the next infer(), to read them all after a run
    // (InferRequest::node_outputs(): `irlite run --dump`, `irlite compare`): each intermediate gets
    // arena bytes of its own and no output is written over a dying input. Costs memory only.
    bool keep_intermediates = false;
};

// One output port of one node of the last infer() (CompileOptions::keep_intermediates).
struct NodeOutput {
    std::string name;    // the layer's name; a fused node's layers' names joined by '+', head first
    std::string layer;   // the layer whose output this is (a fused node's last layer)
    std::string type;    // the op type; a fused node's types joined by '+' ("Convolution+Add+ReLU")
    int port = 0;        // the output's position among the layer's outputs
    int num_ports = 1;   // how many outputs the layer has
    std::vector<std::string> tensor_names;  // the port's tensor names (none in IR v10)
    Tensor value;        // a view of the request's memory (or of an input): valid until the next infer()
};

// One executed node of a profiled inference. The layers inside a sub-graph (TensorIterator, Loop,
// If) follow their layer's entry, in their body's order, a nested body's after its own layer;
// their layer's ms includes theirs. A body that did not run in the last infer() (If's other
// branch, a Loop of 0 iterations) has no entries.
struct ProfileEntry {
    std::string name;    // the layer's name
    // The body it ran in: its layer's name, then the body's ("ti > body", "if > then_body"; nested:
    // "outer > body > ti > body"). Empty for the model's own layers.
    std::string body;
    std::string type;    // its op type; a fused node's types joined by '+' ("Convolution+Add+ReLU")
    std::string method;  // what the kernel's plan chose ("view", "gemm", "strided-copy", ...)
    std::string precision;  // the element type it computes in ("f32", "f16"; "-": no float values)
    // The instruction-set levels its kernels ran at, widest first ("avx512", "avx512+avx2",
    // "avx512-vnni"; "sse": code compiled for the baseline only; "-": nothing ran, a view).
    std::string isa;
    double ms = 0;       // time of the last infer(): in a body, over all its runs
    int runs = 0;        // how often it ran in the last infer(): 1 outside bodies; in one, per iteration
};

class IRLITE_API CompiledModel {
public:
    // Builds and checks the graph, prepares every kernel and plans the memory; throws the first
    // error found.
    explicit CompiledModel(const Model& model, const CompileOptions& options = {});

    const std::vector<PortInfo>& inputs() const;
    const std::vector<PortInfo>& outputs() const;
    InferRequest create_infer_request() const;

    struct Impl;

private:
    std::shared_ptr<const Impl> impl_;
};

// One variable of a stateful model (ReadValue/Assign) in one infer request.
class IRLITE_API VariableState {
public:
    const std::string& name() const { return name_; }  // the variable_id
    // Its value after the last infer() (a copy), or an empty Tensor() while the variable has none
    // (the next ReadValue then gives its initial value).
    Tensor state() const;
    // The value the next ReadValue reads (copied).
    void set_state(const Tensor& value);
    // Back to no value: the next ReadValue gives its initial value.
    void reset();

private:
    friend class InferRequest;
    VariableState(std::shared_ptr<void> request_state, std::string name)
        : request_(std::move(request_state)), name_(std::move(name)) {}
    std::shared_ptr<void> request_;
    std::string name_;
};

class IRLITE_API InferRequest {
public:
    // Binds an input by Parameter name or any of its tensor names, or by position. The tensor is
    // not copied: it must stay alive and unchanged until infer() returns.
    void set_input(const std::string& name, const Tensor& tensor);
    void set_input(size_t index, const Tensor& tensor);
    // Makes output `name` (or `index`) land in the caller's tensor: its type must match, its shape
    // must fit the output's (checked again at each run). An empty Tensor() undoes it.
    void set_output(const std::string& name, const Tensor& tensor);
    void set_output(size_t index, const Tensor& tensor);
    // Runs the model. Throws when an input is missing or does not match its Parameter.
    void infer();
    // Outputs of the last infer(), by position or name.
    const Tensor& output(size_t index) const;
    const Tensor& output(const std::string& name) const;
    size_t num_outputs() const;
    // Per executed node of the last infer(), in execution order, when profiling is on.
    const std::vector<ProfileEntry>& profiling() const;
    // Every output of every layer of the model that the last infer() ran, in topological order:
    // Parameters (the bound inputs) and computed layers, not Consts, Results, values folded into
    // constants at load time, or nodes the compiled graph added itself. Needs a model compiled with
    // CompileOptions::keep_intermediates (else Error(Usage, "intermediates-not-kept")); empty
    // before the first infer().
    std::vector<NodeOutput> node_outputs() const;
    void set_profiling(bool on);
    // Forgets the values of stateful variables (ReadValue/Assign), as if no inference had run.
    void reset_state();
    // The model's variables (one per ReadValue/Assign variable_id), to read, set or reset one by
    // one, as OpenVINO's VariableState. Valid as long as the request.
    std::vector<VariableState> query_state();

    // infer() on a thread of the request's own (started on first use), returning at once; wait()
    // blocks until it is done and rethrows its error. Inputs must stay alive and unchanged, and
    // outputs must not be read, until wait() returns. One run at a time per request.
    void start_async();
    void wait();

private:
    friend class CompiledModel;
    friend class VariableState;
    struct State;
    explicit InferRequest(std::shared_ptr<const CompiledModel::Impl> model);
    static void run(const CompiledModel::Impl& model, State& state);
    std::shared_ptr<const CompiledModel::Impl> model_;
    std::shared_ptr<State> state_;
};

}  // namespace irlite
