// Layers with a body: TensorIterator-1, Loop-5 and If-8 (kernels/graph/tensor_iterator.cpp,
// loop.cpp, if.cpp). What they share lives here: the port map and back edges read from the IR
// document and checked against the body's Parameters and Results; each body built into a graph
// of its own (the same builder, fusion and execution plan as the model's) for the types and
// shapes its Parameters get, once per distinct signature; and a runner that executes a body's
// plan again and again on inputs the op binds, reusing its arena. The ops decide the iteration
// semantics (slicing, back edges, concatenation, conditions).
//
// Errors inside a body carry its path (Location::body_path, "layer 'ti' > body"); nested bodies
// give longer paths. Errors about a port map entry or back edge point at its line.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "engine/compile_passes.hpp"
#include "engine/execution_plan.hpp"
#include "engine/graph.hpp"
#include "engine/op.hpp"

namespace irlite {

enum class SubgraphKind { TensorIterator, Loop, If };

// A <port_map> <input>/<output> entry.
struct PortMapEntry {
    int64_t external = -1;  // external_port_id: the layer's input index; outputs: see output
    uint64_t internal = 0;  // internal_layer_id
    std::optional<int64_t> axis;
    int64_t start = 0, end = -1, stride = 1, part_size = 1;  // TensorIterator slicing
    std::string purpose;  // Loop: "current_iteration", "execution_condition"; else empty
    int64_t line = 0;
    int body_port = -1;  // the body Parameter's (inputs) or Result's (outputs) position, file order
    int output = -1;     // outputs: the layer's output position (by external_port_id); -1: none
};

// A <back_edges> edge: the Result's value after an iteration feeds the Parameter in the next one.
struct BackEdge {
    int result = -1, parameter = -1;  // body positions
    int64_t line = 0;
};

struct SubgraphBody {
    std::string name;  // "body", "then_body", "else_body"
    std::string path;  // "layer 'ti' > body", for errors inside it
    int64_t line = 0;
    std::shared_ptr<const IrDocument> document;
    std::vector<PortMapEntry> inputs, outputs;
    std::vector<BackEdge> back_edges;
    std::vector<int> parameter_layers, result_layers;  // document layer indices, file order
    std::vector<int> parameter_input;      // per Parameter: the input entry feeding it, -1 none
    std::vector<int> parameter_back_edge;  // per Parameter: the back edge feeding it, -1 none
    int current_iteration = -1;            // Loop: the Parameter given the iteration number
    int condition = -1;                    // Loop: the Result of purpose execution_condition
    int64_t condition_line = 0;            // its port map entry's line
};

// A body built for its Parameters' types and shapes.
struct BuiltBody {
    std::shared_ptr<const Graph> graph;
    std::shared_ptr<const ExecutionPlan> plan;  // when every Parameter shape is static (run mode)
    std::vector<OutputInfo> results;            // per Result: the type and shape it returns
    std::vector<Tensor> result_values;          // per Result: its value when known at load time
};

// The typed attributes of TensorIterator, Loop and If: their bodies, checked.
struct SubgraphAttrs : OpAttrs {
    SubgraphKind kind = SubgraphKind::TensorIterator;
    std::string layer_name;
    std::vector<SubgraphBody> bodies;  // TensorIterator, Loop: one; If: then, else
    size_t num_inputs = 0, num_outputs = 0;
    std::vector<OutputInfo> declared_outputs;  // as the layer's ports declare them
    // The passes a body's plan gets: the model's (with_body_passes). Bodies nested in it get them too.
    CompilePasses passes;

    // The body built for `parameters` (per body Parameter), cached in run mode. In check mode
    // (findings given) the body is checked like a model and every finding inside it goes to
    // `findings` with its path; otherwise the first error is thrown, with its path.
    std::shared_ptr<const BuiltBody> build(size_t body, const std::vector<OutputInfo>& parameters,
                                           const OpRegistry& registry, std::vector<Diagnostic>* findings) const;

    // These attributes with other passes (and a cache of their own).
    std::shared_ptr<const SubgraphAttrs> with_passes(const CompilePasses& other) const;

private:
    // (body, then per Parameter: type, rank or -1, dims) -> the body built for it; a few entries.
    // A copy of the attributes starts with an empty cache of its own (with_passes).
    struct BuiltCache {
        std::mutex mutex;
        std::vector<std::pair<std::vector<int64_t>, std::shared_ptr<const BuiltBody>>> entries;
        BuiltCache() = default;
        BuiltCache(const BuiltCache&) {}
        BuiltCache& operator=(const BuiltCache&) = delete;
    };
    mutable BuiltCache cache_;
};

// The graph whose TensorIterator, Loop and If layers plan their bodies with `passes`: a copy with
// those layers' attributes replaced where theirs differ, else the same graph.
std::shared_ptr<const Graph> with_body_passes(std::shared_ptr<const Graph> graph, const CompilePasses& passes);

// Reads and checks the layer's bodies, port maps and back edges (AttrReader::layer()).
std::unique_ptr<OpAttrs> parse_subgraph_attrs(const AttrReader& reader, SubgraphKind kind);

// An Error located at a port map entry or back edge of the layer (its line).
Error port_map_error(ErrorKind kind, std::string code, int64_t line, std::string message);

// The declared type and shape of body Parameter p (its element_type and dims as written).
OutputInfo declared_parameter(const SubgraphBody& body, size_t p);

// Most iterations a Loop (or TensorIterator) may run: a Loop whose condition never turns false
// stops with an error here instead of running forever.
inline constexpr int64_t kMaxIterations = int64_t{1} << 20;

// Runs a built body's plan on bound inputs, as often as asked, reusing its memory.
class BodyRunner {
public:
    BodyRunner(const SubgraphBody& body, std::shared_ptr<const BuiltBody> built, ThreadPool* pool);
    ~BodyRunner();
    BodyRunner(const BodyRunner&) = delete;
    BodyRunner& operator=(const BodyRunner&) = delete;

    // Body Parameter p's value for the next run: the op fills it (or assigns it a tensor of the
    // right type and shape; it is only read).
    Tensor& input(size_t p);
    // Runs the body once. Errors carry the body's path.
    void run();
    // Body Result r's value after the last run (valid until the next run).
    const Tensor& result(size_t r) const;
    const BuiltBody& built() const { return *built_; }

private:
    struct State;
    const SubgraphBody& body_;
    std::shared_ptr<const BuiltBody> built_;
    std::unique_ptr<State> state_;
};

// Copies `src` into `dst` along `axis`: dst[..., offset : offset + src.dim(axis), ...] = src
// (dst's other dims equal src's). And the converse: dst = src[..., offset : offset + n, ...].
void copy_into_axis(const Tensor& src, Tensor& dst, size_t axis, int64_t offset);
// The same from dense bytes: `src` holds dst's shape with `part` elements along `axis`.
void copy_into_axis(const std::byte* src, int64_t part, Tensor& dst, size_t axis, int64_t offset);
void copy_from_axis(const Tensor& src, Tensor& dst, size_t axis, int64_t offset);

// A copy of `src` in memory of its own.
Tensor copy_tensor(const Tensor& src);

// Messages of the sub-graph code: cat(a, b, ...) appends each part's text through a few
// out-of-line functions, which keeps the code of the many error paths small (the library's size
// is held to a limit, tests/install).
namespace subgraph_text {
void append(std::string& s, std::string_view v);
void append(std::string& s, ElementType t);
void append(std::string& s, const PartialShape& shape);
void append_int(std::string& s, int64_t v);
void append_uint(std::string& s, uint64_t v);
template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
inline void append(std::string& s, T v) {
    if constexpr (std::is_signed_v<T>) append_int(s, static_cast<int64_t>(v));
    else append_uint(s, static_cast<uint64_t>(v));
}
}  // namespace subgraph_text
template <class... A>
[[gnu::always_inline]] inline std::string cat(const A&... parts) {
    std::string s;
    (subgraph_text::append(s, parts), ...);
    return s;
}

// A sub-graph kernel writes into its outputs in place: its plan knows their shapes (OpPlan::
// writes_outputs) and the executor made them (else, with dynamic buffers or none made, the kernel
// makes them with dynamic_output).
inline bool writes_outputs_in_place(const KernelContext& ctx, const OpPlan& plan) {
    if (!plan.writes_outputs || ctx.has_dynamic_buffers()) return false;
    for (size_t o = 0; o < ctx.num_outputs(); ++o)
        if (!ctx.output(o).valid()) return false;
    return true;
}

// Sets output o of a sub-graph kernel to `value`'s bytes: in the output the executor made when
// `in_place` (writes_outputs_in_place), else in one made with dynamic_output. The output's type and
// shape must be value's; else Error(ShapeRule, "kernel-output-mismatch").
void write_output(KernelContext& ctx, size_t o, const Tensor& value, bool in_place);

// Shape [] or [1] (a trip count, a condition); [?] counts.
bool is_scalar_like(const PartialShape& s);

}  // namespace irlite
