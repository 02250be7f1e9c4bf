// Model, CompiledModel and InferRequest: the public API over the graph builder and the executor.
//
// Execution: a CompiledModel holds an ExecutionPlan (execution_plan.hpp): steps in topological
// order with prepared kernels, and the memory plan. Constants (and everything folded at load time)
// live in the graph and are shared by every request; intermediates live in each request's arena,
// allocated once; views and in-place outputs cost no copy. Outputs whose size depends on values
// (NonZero) live in each request's DynamicOutputBuffers, grown to the largest size a run needs.
// Steady-state infer() of a model with static input shapes allocates nothing.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <new>
#include <optional>

#include "engine/compile_passes.hpp"
#include "engine/execution_plan.hpp"
#include "engine/fusion.hpp"
#include "engine/graph.hpp"
#include "engine/isa_trace.hpp"
#include "engine/precision.hpp"
#include "engine/profile.hpp"
#include "engine/subgraph.hpp"
#include "engine/thread_pool.hpp"
#include "irlite/irlite.hpp"
#include "engine/log.hpp"

namespace irlite {

namespace {
const Tensor& empty_tensor() {
    static const Tensor empty;
    return empty;
}
}  // namespace

// ---- CompiledModel ---------------------------------------------------------------------------

struct CompiledModel::Impl {
    CompileOptions options;
    const OpRegistry* registry = nullptr;  // the op set the model was read against
    // Intra-op threads, shared by the requests: the pool serves one request at a time, the others
    // run their kernels on their own thread (correct, never waiting).
    std::unique_ptr<ThreadPool> pool;
    std::shared_ptr<const Graph> graph;
    std::vector<PortInfo> inputs, outputs;
    std::string file;
    // The plan of the graph as compiled. A model with dynamic input dims is also specialised for
    // the input shapes each request meets (re-planned only when they change), so that a steady
    // stream of same-shaped inputs runs as a static model does: prepared kernels, one arena.
    std::shared_ptr<const ExecutionPlan> plan;
    mutable std::mutex specialised_mutex;
    mutable std::map<std::vector<Shape>, std::shared_ptr<const ExecutionPlan>> specialised;

    int find_input(const std::string& name) const {
        for (size_t i = 0; i < inputs.size(); ++i) {
            if (inputs[i].name == name) return static_cast<int>(i);
            for (const auto& n : inputs[i].names)
                if (n == name) return static_cast<int>(i);
        }
        return -1;
    }
    int find_output(const std::string& name) const {
        for (size_t i = 0; i < outputs.size(); ++i) {
            if (outputs[i].name == name) return static_cast<int>(i);
            for (const auto& n : outputs[i].names)
                if (n == name) return static_cast<int>(i);
        }
        return -1;
    }
    std::string describe_inputs() const {
        std::string s;
        for (const auto& p : inputs)
            s += str(s.empty() ? "" : ", ", "'", p.name, "' ", to_string(p.type), " ", to_string(p.shape));
        return s.empty() ? "none" : s;
    }
    std::string describe_outputs() const {
        std::string list;
        for (const auto& o : outputs) list += (list.empty() ? "'" : ", '") + o.name + "'";
        return list.empty() ? "none" : list;
    }

    std::shared_ptr<const ExecutionPlan> plan_for(const std::vector<Shape>& shapes) const;

    // The compile passes (engine/compile_passes.hpp) the options ask for, on a built graph.
    std::shared_ptr<const Graph> transform(std::shared_ptr<const Graph> built) const {
        CompilePasses passes;
        passes.compute_in_f32 = options.precision == InferencePrecision::F32;
        passes.int8 = options.int8;
        passes.fusion = options.fusion;
        passes.level_tensors = !options.keep_intermediates;  // every layer's output as it computes it
        return run_compile_passes(with_body_passes(std::move(built), passes), passes, *registry);
    }

    std::vector<std::string> variables;  // variable_id of every ReadValue/Assign, once, graph order
};

namespace {

// Consumers whose shapes were settled at load time rely on their inputs having those shapes: a
// run-time shape that contradicts a load-time one is an error, never a surprise for a kernel.
void check_against_load_time(const Node& node, const std::vector<Tensor>& values, const std::string& file) {
    for (size_t o = 0; o < values.size() && o < node.outputs.size(); ++o) {
        if (!values[o].valid() || shapes_compatible(node.outputs[o].shape, PartialShape(values[o].shape()))) continue;
        Location where = node.location(file);
        where.port = static_cast<int>(o);
        where.port_is_output = true;
        throw Error(ErrorKind::ShapeRule, "shape-changed",
                    str("output ", o, " has shape ", to_string(values[o].shape()), " at run time, but ",
                        to_string(node.outputs[o].shape), " was inferred at load time"),
                    where);
    }
}

// A 64-byte-aligned block of bytes, allocated once.
struct AlignedBuffer {
    void* data = nullptr;
    size_t bytes = 0;
    AlignedBuffer() = default;
    AlignedBuffer(const AlignedBuffer&) = delete;
    AlignedBuffer& operator=(const AlignedBuffer&) = delete;
    ~AlignedBuffer() { std::free(data); }
    void reset(size_t n) {
        std::free(data);
        data = nullptr;
        bytes = n;
        if (n == 0) return;
        data = std::aligned_alloc(64, (n + 63) / 64 * 64);
        if (!data)
            throw Error(ErrorKind::Limit, "out-of-memory", str("cannot allocate the ", n, "-byte memory arena of a request"));
#ifdef IRLITE_POISON_MEMORY
        std::memset(data, 0xFF, (n + 63) / 64 * 64);
#endif
    }
    std::byte* bytes_at(size_t offset) const { return static_cast<std::byte*>(data) + offset; }
};

std::string kib(size_t bytes) { return str((bytes + 1023) / 1024, " KiB"); }

// What compile decided, for the log: one info line, and at debug one line per step.
void log_plan(const detail::Log& log, const ExecutionPlan& plan, const std::string& what) {
    log.lazy(LogLevel::Info, [&] {
        size_t fused = 0, views = 0, dynamic = 0;
        for (const ExecStep& step : plan.steps) {
            fused += plan.graph->nodes[static_cast<size_t>(step.node)].fused.empty() ? 0 : 1;
            views += step.mode == ExecStep::Mode::Skip ? 1 : 0;
            dynamic += step.mode == ExecStep::Mode::Dynamic ? 1 : 0;
        }
        return str(what, ": ", plan.steps.size(), " steps (", fused, " fused, ", views, " views, ", dynamic,
                   " planned at run time), arena ", kib(plan.arena_bytes), ", scratch ", kib(plan.scratch_bytes),
                   " per thread");
    });
    if (!log.enabled(LogLevel::Debug)) return;
    for (const ExecStep& step : plan.steps) {
        const Node& n = plan.graph->nodes[static_cast<size_t>(step.node)];
        log.write(LogLevel::Debug, str("  '", node_display_name(n), "' ", node_type_name(n), ": ", step_method(step),
                                       step.plan && step.plan->scratch_bytes ? str(", scratch ", kib(step.plan->scratch_bytes)) : ""));
    }
}

}  // namespace

std::string output_name(const Graph& g, const Node& result) {
    const ValueRef src = result.inputs.empty() ? ValueRef{} : result.inputs[0];
    if (src.node < 0) return std::string(result.layer->name);
    const IrLayer& producer = *g.nodes[src.node].layer;
    const std::vector<std::string> names = producer.outputs[src.output].names();
    if (!names.empty()) return names.front();
    // IR v10 has no tensor names: OpenVINO names the output after the producing layer, with
    // ".<port>" when that layer has several outputs.
    if (g.document->ir_version == 10)
        return producer.outputs.size() > 1 ? str(producer.name, ".", src.output) : std::string(producer.name);
    return std::string(result.layer->name);
}

std::shared_ptr<const ExecutionPlan> CompiledModel::Impl::plan_for(const std::vector<Shape>& shapes) const {
    std::lock_guard<std::mutex> lock(specialised_mutex);
    auto it = specialised.find(shapes);
    if (it != specialised.end()) return it->second;
    BuildOptions build;
    build.compare_declared = false;
    for (size_t i = 0; i < shapes.size(); ++i) {
        const Node& n = graph->nodes[static_cast<size_t>(graph->parameters[i])];
        const int layer = static_cast<int>(n.layer - graph->document->layers.data());
        build.parameter_shapes.emplace_back(layer, shapes[i]);
    }
    std::shared_ptr<const Graph> built = transform(build_graph(graph->document, *registry, build).graph);
    auto specialised_plan =
        make_execution_plan(std::move(built), file, pool ? pool->size() : 1, options.keep_intermediates);
    log_plan(detail::Log(options.log_level), *specialised_plan, str("re-planned '", file, "' for new input shapes"));
    // A model fed ever new shapes keeps a bounded number of plans.
    constexpr size_t kMaxPlans = 16;
    if (specialised.size() >= kMaxPlans) specialised.clear();
    specialised.emplace(shapes, specialised_plan);
    return specialised_plan;
}

CompiledModel::CompiledModel(const Model& model, const CompileOptions& options) {
    auto impl = std::make_shared<Impl>();
    impl->options = options;
    const int threads = options.threads > 0 ? options.threads : default_num_threads();
    if (threads > 1) impl->pool = std::make_unique<ThreadPool>(threads);
    impl->file = model.document().xml_path;
    impl->registry = &model.registry();
    const detail::Log log(options.log_level);
    BuildResult built = build_graph(model.document_ptr(), *impl->registry);
    for (const Diagnostic& d : built.diagnostics)
        if (d.severity == Severity::Warning) log.lazy(LogLevel::Warning, [&] { return d.format(); });
    const std::shared_ptr<const Graph> declared = std::move(built.graph);
    // The model's inputs and outputs as the file declares them (the passes below may add
    // conversions at the boundary, never change what the caller binds and gets back).
    const Graph& g = *declared;
    for (int ni : g.parameters) {
        const Node& n = g.nodes[ni];
        PortInfo p;
        p.name = n.layer->name;
        if (!n.layer->outputs.empty()) p.names = n.layer->outputs[0].names();
        p.type = n.outputs[0].type;
        p.shape = n.outputs[0].shape;
        impl->inputs.push_back(std::move(p));
    }
    for (int ni : g.results) {
        const Node& n = g.nodes[ni];
        PortInfo p;
        p.name = output_name(g, n);
        const ValueRef src = n.inputs[0];
        const Node& producer = g.nodes[src.node];
        p.names = producer.layer->outputs[src.output].names();
        p.type = producer.outputs[src.output].type;
        p.shape = producer.outputs[src.output].shape;
        impl->outputs.push_back(std::move(p));
    }
    for (const Node& n : g.nodes) {
        if (!n.live || !n.layer) continue;
        const std::string type = canonical_op_type(n.layer->type);
        if (type != "readvalue" && type != "assign") continue;
        for (const IrAttribute& a : n.layer->attributes)
            if (a.name == "variable_id" &&
                std::find(impl->variables.begin(), impl->variables.end(), a.value) == impl->variables.end())
                impl->variables.push_back(a.value);
    }
    impl->graph = impl->transform(declared);
    impl->plan = make_execution_plan(impl->graph, impl->file, threads, options.keep_intermediates);
    log_plan(log, *impl->plan,
             str("compiled '", impl->file, "' (", g.nodes.size(), " nodes, fusion ", options.fusion ? "on" : "off",
                 options.precision == InferencePrecision::F32 ? "" : ", precision as declared", ", ", threads,
                 threads == 1 ? " thread" : " threads", ")"));
    impl_ = std::move(impl);
}

const std::vector<PortInfo>& CompiledModel::inputs() const { return impl_->inputs; }
const std::vector<PortInfo>& CompiledModel::outputs() const { return impl_->outputs; }
InferRequest CompiledModel::create_infer_request() const { return InferRequest(impl_); }

// ---- InferRequest ----------------------------------------------------------------------------

// What a request owns: its bound inputs, the tensors of every value of its current plan (arena
// views made once per plan), the arena, scratch memory and the stateful variables.
struct InferRequest::State {
    // start_async's worker: a thread of the request's own, started on first use, running one job
    // at a time. It holds no reference to the State (which joins it when destroyed), and the
    // model only while a job runs.
    struct Async {
        std::thread thread;
        std::mutex mutex;
        std::condition_variable changed;
        bool pending = false, stop = false;
        std::shared_ptr<const CompiledModel::Impl> model;  // of the pending job
        std::exception_ptr error;                          // of the last job
    };
    std::unique_ptr<Async> async;

    State() = default;
    State(const State&) = delete;
    State& operator=(const State&) = delete;
    ~State() {
        if (!async) return;
        {
            std::lock_guard<std::mutex> lock(async->mutex);
            async->stop = true;
        }
        async->changed.notify_all();
        async->thread.join();
    }
    bool busy() const {
        if (!async) return false;
        std::lock_guard<std::mutex> lock(async->mutex);
        return async->pending;
    }
    void work() {
        Async& a = *async;
        std::unique_lock<std::mutex> lock(a.mutex);
        while (true) {
            a.changed.wait(lock, [&] { return a.pending || a.stop; });
            if (!a.pending) return;  // stopping
            const std::shared_ptr<const CompiledModel::Impl> model = a.model;
            lock.unlock();
            std::exception_ptr error;
            try {
                InferRequest::run(*model, *this);
            } catch (...) {
                error = std::current_exception();
            }
            lock.lock();
            a.error = error;
            a.model.reset();
            a.pending = false;
            a.changed.notify_all();
        }
    }

    std::shared_ptr<const ExecutionPlan> plan;  // the plan the tensors below were made for
    std::vector<Tensor> bound;         // per model input
    std::vector<Tensor> caller_outputs;  // per model output: memory given with set_output
    std::vector<Tensor> values;        // per value of the plan (Input values stay empty)
    std::vector<std::vector<const Tensor*>> step_inputs;  // per step
    std::vector<const Tensor*> outputs;  // per model output, after infer()
    std::vector<Tensor> dynamic_inputs;  // reused by Dynamic steps
    // The outputs of DataDependent steps (NonZero): kept from run to run, grown to the largest
    // size a run needs, so that those steps allocate nothing in steady state either.
    std::vector<DynamicOutputBuffer> dynamic_buffers;
    // Per step, what its kernel keeps between runs (OpState: a sub-graph's body runner), made on
    // the first run; this request's own, so two requests never share one.
    std::vector<std::unique_ptr<OpState>> op_states;
    AlignedBuffer arena, scratch;
    size_t scratch_stride = 0;  // per thread
    int threads = 1;
    VariableStore variables;
    bool ran = false;
    bool profiling = false;
    std::vector<ProfileEntry> profile;  // per step, made with the plan (no allocation per run)
    IsaTrace isa_trace;  // the levels the current step's kernels ran at, when profiling
    BodyProfile body_profile{profile};  // the steps inside sub-graph bodies (engine/profile.hpp)
    std::vector<ProfileEntry> merged;   // profile with the body steps' rows, when there are any

    void make_profile() {
        profile.clear();
        body_profile.forget();
        if (!profiling || !plan) return;
        for (size_t i = 0; i < plan->steps.size(); ++i) profile.push_back(step_profile_entry(*plan, i));
    }

    void begin_profile() {
        isa_trace.levels.store(0);
        for (ProfileEntry& e : profile) e.runs = 0;
        body_profile.begin_run();
    }

    // Before step i runs: its start, and where bodies run in it hang (engine/profile.hpp).
    void start_profile_entry(size_t i) {
        body_profile.enter_top_step(static_cast<int>(i));
        started = std::chrono::steady_clock::now();
    }
    std::chrono::steady_clock::time_point started;  // of the step being profiled

    // Runs step i of the bound plan (not a Skip).
    void run_step(const CompiledModel::Impl& m, size_t i) {
        const ExecStep& step = plan->steps[i];
        const Node& node = plan->graph->nodes[static_cast<size_t>(step.node)];
        const std::vector<const Tensor*>& ins = step_inputs[i];
        if (step.mode == ExecStep::Mode::Kernel || step.mode == ExecStep::Mode::DataDependent) {
            run_planned_step(*plan, i, ins, StepMemory{values, scratch.data, scratch_stride, m.pool.get(), op_states, dynamic_buffers});
            return;
        }
        dynamic_inputs.clear();
        for (const Tensor* t : ins) dynamic_inputs.push_back(*t);
        std::vector<Tensor> made = run_node(node, dynamic_inputs, nullptr, &variables, nullptr, plan->file, &op_states[i]);
        check_against_load_time(node, made, plan->file);
        for (size_t o = 0; o < made.size(); ++o) values[static_cast<size_t>(step.first_output) + o] = std::move(made[o]);
    }

    // Step i's time, and the levels its kernels ran at (isa_trace.hpp); then a fresh trace.
    void finish_profile_entry(size_t i) {
        ProfileEntry& e = profile[i];
        e.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
        e.runs = 1;
        if (plan->steps[i].mode != ExecStep::Mode::Skip) e.isa = isa_trace_name(isa_trace.levels.load());
        isa_trace.levels.store(0);
    }

    const Tensor* value_ptr(int v) const { return value_tensor(*plan, bound, values, v); }

    // Makes the tensors of `p`: arena values and views of them point into this request's arena.
    void bind_plan(std::shared_ptr<const ExecutionPlan> p) {
        plan = std::move(p);
        const ExecutionPlan& ep = *plan;
        arena.reset(ep.arena_bytes);
        scratch_stride = (ep.scratch_bytes + 63) / 64 * 64;
        scratch.reset(scratch_stride * static_cast<size_t>(threads));
        bind_values(ep, arena.bytes_at(0), bound, values);
        dynamic_buffers.clear();
        dynamic_buffers.resize(static_cast<size_t>(ep.dynamic_buffers));
        op_states.clear();
        op_states.resize(ep.steps.size());
        step_inputs = step_input_tensors(ep, bound, values);
        outputs.assign(ep.output_values.size(), nullptr);
        for (size_t o = 0; o < ep.output_values.size(); ++o) outputs[o] = value_ptr(ep.output_values[o]);
        size_t widest = 0;
        for (const ExecStep& step : ep.steps) widest = std::max(widest, step.inputs.size());
        dynamic_inputs.reserve(widest);
        ran = false;
        make_profile();
    }

    void rebind_input_views() {
        for (int v : plan->input_views) {
            const ValueSlot& slot = plan->values[static_cast<size_t>(v)];
            const Tensor& base = *value_ptr(slot.base);
            values[static_cast<size_t>(v)].view_into(base, slot.byte_offset);
        }
    }
};

InferRequest::InferRequest(std::shared_ptr<const CompiledModel::Impl> model)
    : model_(std::move(model)), state_(std::make_shared<State>()) {
    state_->bound.resize(model_->inputs.size());
    state_->caller_outputs.resize(model_->outputs.size());
    state_->profiling = model_->options.profiling;
    state_->threads = model_->pool ? model_->pool->size() : 1;
    state_->bind_plan(model_->plan);
}

void InferRequest::set_input(const std::string& name, const Tensor& tensor) {
    const int i = model_->find_input(name);
    if (i < 0)
        throw Error(ErrorKind::Input, "input-unknown",
                    str("the model has no input named '", name, "'; its inputs are ", model_->describe_inputs()));
    state_->bound[static_cast<size_t>(i)] = tensor;
}

void InferRequest::set_input(size_t index, const Tensor& tensor) {
    if (index >= state_->bound.size())
        throw Error(ErrorKind::Input, "input-unknown",
                    str("input index ", index, " is out of range: the model has ", state_->bound.size(), " inputs"));
    state_->bound[index] = tensor;
}

void InferRequest::set_output(const std::string& name, const Tensor& tensor) {
    const int i = model_->find_output(name);
    if (i < 0)
        throw Error(ErrorKind::Usage, "output-unknown",
                    str("the model has no output named '", name, "'; its outputs are ", model_->describe_outputs()));
    set_output(static_cast<size_t>(i), tensor);
}

void InferRequest::set_output(size_t index, const Tensor& tensor) {
    if (index >= state_->caller_outputs.size())
        throw Error(ErrorKind::Usage, "output-unknown",
                    str("output index ", index, " is out of range: the model has ", state_->caller_outputs.size(), " outputs"));
    const PortInfo& port = model_->outputs[index];
    if (tensor.valid()) {
        IRLITE_CHECK(tensor.type() == port.type, ErrorKind::Usage, "output-mismatch", "output '", port.name, "' is ",
                     to_string(port.type), ", the tensor given for it is ", to_string(tensor.type()));
        IRLITE_CHECK(shapes_compatible(port.shape, PartialShape(tensor.shape())), ErrorKind::Usage, "output-mismatch",
                     "output '", port.name, "' has shape ", to_string(port.shape), ", the tensor given for it ",
                     to_string(tensor.shape()));
    }
    state_->caller_outputs[index] = tensor;  // an empty tensor gives the output back to the request
}

namespace {

// Every input bound, each matching the plan's shapes? Returns false when a dynamic model meets
// new input shapes; throws for a missing or mismatching input.
bool inputs_match_plan(const CompiledModel::Impl& m, const ExecutionPlan& plan, const std::vector<Tensor>& bound) {
    bool match = plan.inputs_static;
    for (size_t i = 0; i < bound.size(); ++i) {
        if (!bound[i].valid())
            throw Error(ErrorKind::Input, "input-missing",
                        str("input '", m.inputs[i].name, "' is not set; the model expects ", m.describe_inputs()));
        const ValueSlot& slot = plan.values[static_cast<size_t>(plan.input_values[i])];
        match = match && bound[i].type() == slot.type && bound[i].shape() == slot.shape;
    }
    return match;
}

// Checks each bound input against its Parameter (type, rank, dims or intervals): the Parameter
// kernel's own check, with its error located at the layer.
void validate_inputs(const ExecutionPlan& plan, const std::vector<Tensor>& bound) {
    const Graph& g = *plan.graph;
    for (size_t i = 0; i < bound.size(); ++i) {
        const Node& node = g.nodes[static_cast<size_t>(g.parameters[i])];
        run_node(node, {}, nullptr, nullptr, &bound[i], plan.file);
    }
}

}  // namespace

void InferRequest::infer() {
    if (state_->busy())
        throw Error(ErrorKind::Usage, "request-busy", "infer() while start_async() runs: call wait() first");
    run(*model_, *state_);
}

void InferRequest::run(const CompiledModel::Impl& m, State& s) {
    if (!inputs_match_plan(m, *s.plan, s.bound)) {
        validate_inputs(*m.plan, s.bound);
        std::vector<Shape> shapes;
        for (const Tensor& t : s.bound) shapes.push_back(t.shape());
        // A static model's inputs either match or were rejected above: only dynamic ones re-plan.
        s.bind_plan(m.plan->inputs_static ? m.plan : m.plan_for(shapes));
        if (!inputs_match_plan(m, *s.plan, s.bound))
            throw Error(ErrorKind::Input, "input-mismatch",
                        str("the inputs do not match the model; it expects ", m.describe_inputs()));
    }
    const ExecutionPlan& plan = *s.plan;
    const Graph& g = *plan.graph;
    s.rebind_input_views();
#ifdef IRLITE_POISON_MEMORY
    if (s.arena.data) std::memset(s.arena.data, 0xFF, s.arena.bytes);
    for (DynamicOutputBuffer& b : s.dynamic_buffers)
        if (b.capacity()) std::memset(b.memory.data(), 0xFF, b.capacity());
#endif
    size_t step_index = 0;
    std::optional<IsaTraceScope> trace;  // profiles record each step's instruction-set levels
    const BodyProfileScope bodies(s.profiling ? &s.body_profile : nullptr);  // and time body steps
    if (s.profiling) {
        s.begin_profile();
        trace.emplace(&s.isa_trace);
    }
    try {
        for (; step_index < plan.steps.size(); ++step_index) {
            const ExecStep& step = plan.steps[step_index];
            if (s.profiling) {
                if (step_index > 0) s.finish_profile_entry(step_index - 1);
                s.start_profile_entry(step_index);
            }
            if (step.mode != ExecStep::Mode::Skip) s.run_step(m, step_index);
        }
        if (s.profiling && !plan.steps.empty()) s.finish_profile_entry(plan.steps.size() - 1);
        if (s.profiling && !s.body_profile.empty()) s.body_profile.merge(s.merged);
    } catch (Error& e) {
        if (step_index < plan.steps.size())
            e.add_context(g.nodes[static_cast<size_t>(plan.steps[step_index].node)].location(plan.file));
        throw;
    } catch (const std::bad_alloc&) {
        throw Error(ErrorKind::Limit, "out-of-memory", "out of memory",
                    g.nodes[static_cast<size_t>(plan.steps[step_index].node)].location(plan.file));
    }
    // Outputs the caller gave memory for are copied there (the values themselves may be views).
    for (size_t o = 0; o < s.outputs.size(); ++o) {
        Tensor& dst = s.caller_outputs[o];
        if (!dst.valid()) continue;
        const Tensor& src = *s.outputs[o];
        IRLITE_CHECK(dst.shape() == src.shape(), ErrorKind::Usage, "output-mismatch", "output '", m.outputs[o].name,
                     "' has shape ", to_string(src.shape()), " in this run, the tensor given for it ", to_string(dst.shape()));
        if (dst.data() != src.data() && src.byte_size()) std::memcpy(dst.data(), src.data(), src.byte_size());
    }
    s.ran = true;
}

const Tensor& InferRequest::output(size_t index) const {
    if (index >= state_->outputs.size())
        throw Error(ErrorKind::Usage, "output-unknown",
                    str("output index ", index, " is out of range: the model has ", state_->outputs.size(), " outputs"));
    if (state_->caller_outputs[index].valid()) return state_->caller_outputs[index];
    if (!state_->ran) return empty_tensor();
    return *state_->outputs[index];
}

const Tensor& InferRequest::output(const std::string& name) const {
    const int i = model_->find_output(name);
    if (i < 0)
        throw Error(ErrorKind::Usage, "output-unknown",
                    str("the model has no output named '", name, "'; its outputs are ", model_->describe_outputs()));
    return output(static_cast<size_t>(i));
}

size_t InferRequest::num_outputs() const { return state_->outputs.size(); }

const std::vector<ProfileEntry>& InferRequest::profiling() const {
    return state_->body_profile.empty() ? state_->profile : state_->merged;
}

void InferRequest::set_profiling(bool on) {
    state_->profiling = on;
    state_->make_profile();
}

std::vector<NodeOutput> InferRequest::node_outputs() const {
    if (!model_->options.keep_intermediates)
        throw Error(ErrorKind::Usage, "intermediates-not-kept",
                    "node_outputs() needs a model compiled with CompileOptions::keep_intermediates");
    std::vector<NodeOutput> list;
    const State& s = *state_;
    if (!s.ran) return list;
    const ExecutionPlan& plan = *s.plan;
    const Graph& g = *plan.graph;
    for (size_t ni = 0; ni < g.nodes.size(); ++ni) {
        const Node& n = g.nodes[ni];
        if (!n.live || n.is_constant() || !n.def || n.outputs.empty() || layer_is_added(g, n.layer)) continue;
        if (n.def->role == OpRole::Result) continue;
        NodeOutput out;
        if (n.fused.empty()) {
            out.name = n.layer->name;
        } else {
            for (const IrLayer* l : n.fused)
                if (!layer_is_added(g, l)) out.name.append(out.name.empty() ? "" : "+").append(l->name);
        }
        out.layer = n.layer->name;
        out.type = node_type_name(n);
        out.num_ports = static_cast<int>(n.outputs.size());
        for (size_t o = 0; o < n.outputs.size(); ++o) {
            NodeOutput port = out;
            port.port = static_cast<int>(o);
            if (o < n.layer->outputs.size()) port.tensor_names = n.layer->outputs[o].names();
            port.value = *s.value_ptr(plan.node_first_value[ni] + static_cast<int>(o));
            list.push_back(std::move(port));
        }
    }
    return list;
}

void InferRequest::reset_state() { state_->variables.reset(); }

void InferRequest::start_async() {
    State& s = *state_;
    if (!s.async) {
        s.async = std::make_unique<State::Async>();
        s.async->thread = std::thread([&s] { s.work(); });
    }
    {
        std::lock_guard<std::mutex> lock(s.async->mutex);
        if (s.async->pending)
            throw Error(ErrorKind::Usage, "request-busy", "start_async() while the last one runs: call wait() first");
        s.async->pending = true;
        s.async->model = model_;
        s.async->error = nullptr;
    }
    s.async->changed.notify_all();
}

void InferRequest::wait() {
    State& s = *state_;
    if (!s.async) return;
    std::exception_ptr error;
    {
        std::unique_lock<std::mutex> lock(s.async->mutex);
        s.async->changed.wait(lock, [&] { return !s.async->pending; });
        std::swap(error, s.async->error);
    }
    if (error) std::rethrow_exception(error);
}

std::vector<VariableState> InferRequest::query_state() {
    std::vector<VariableState> states;
    for (const std::string& id : model_->variables) states.push_back(VariableState(state_, id));
    return states;
}

Tensor VariableState::state() const {
    const auto& s = *std::static_pointer_cast<InferRequest::State>(request_);
    const Tensor* value = s.variables.find(name_);
    return value ? value->clone() : Tensor();
}

void VariableState::set_state(const Tensor& value) {
    auto& s = *std::static_pointer_cast<InferRequest::State>(request_);
    s.variables.set(name_, value.clone());
}

void VariableState::reset() {
    auto& s = *std::static_pointer_cast<InferRequest::State>(request_);
    s.variables.erase(name_);
}

}  // namespace irlite
