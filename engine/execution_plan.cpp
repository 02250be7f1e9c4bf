#include "engine/execution_plan.hpp"

#include <algorithm>
#include <climits>
#include <new>

#include "engine/memory_plan.hpp"
#include "engine/tensor_size.hpp"

namespace irlite {
namespace {

constexpr int kForever = INT32_MAX;  // the last use of a model output: it outlives the run

class PlanBuilder {
public:
    PlanBuilder(std::shared_ptr<const Graph> graph, const std::string& file, int threads, bool keep_values)
        : g_(*graph), threads_(threads), keep_values_(keep_values) {
        plan_ = std::make_shared<ExecutionPlan>();
        plan_->graph = std::move(graph);
        plan_->file = file;
    }

    std::shared_ptr<const ExecutionPlan> build() {
        make_values();
        order_steps();
        compute_last_uses();
        for (size_t s = 0; s < plan_->steps.size(); ++s) place_step(static_cast<int>(s));
        count_uses();
        for (size_t s = 0; s < plan_->steps.size(); ++s) apply_input_slices(static_cast<int>(s));
        place_boundaries();
        plan_memory_of_arena();
        return plan_;
    }

private:
    ValueSlot& value(int v) { return plan_->values[static_cast<size_t>(v)]; }
    int value_of(const ValueRef& r) const { return plan_->node_first_value[static_cast<size_t>(r.node)] + r.output; }

    void make_values() {
        plan_->node_first_value.resize(g_.nodes.size());
        for (size_t ni = 0; ni < g_.nodes.size(); ++ni) {
            const Node& n = g_.nodes[ni];
            plan_->node_first_value[ni] = static_cast<int>(plan_->values.size());
            for (size_t o = 0; o < n.outputs.size(); ++o) {
                ValueSlot v;
                v.node = static_cast<int>(ni);
                v.output = static_cast<int>(o);
                v.type = n.outputs[o].type;
                v.root = static_cast<int>(plan_->values.size());
                if (n.is_constant()) {
                    v.kind = ValueSlot::Kind::Constant;
                    v.shape = n.constants[o].shape();
                }
                plan_->values.push_back(std::move(v));
            }
        }
        plan_->inputs_static = true;
        for (size_t i = 0; i < g_.parameters.size(); ++i) {
            const Node& n = g_.nodes[static_cast<size_t>(g_.parameters[i])];
            const int v = plan_->node_first_value[static_cast<size_t>(g_.parameters[i])];
            value(v).kind = ValueSlot::Kind::Input;
            value(v).input_index = static_cast<int>(i);
            if (n.outputs[0].shape.is_static()) value(v).shape = n.outputs[0].shape.to_shape();
            else plan_->inputs_static = false;
            plan_->input_values.push_back(v);
        }
    }

    // Steps in topological order, with one change: a step computed from constants alone that was
    // not folded (compressed weights unpacked at run time: u4 Const -> Convert -> Subtract ->
    // Multiply) runs right before the first step that needs it, not where the node order puts it.
    // Node order would unpack every layer's weights first and keep them all alive at once (a full
    // f32 copy of the weights in the arena); deferred, each layer's unpacked weights live only
    // until its MatMul, and the arena holds about one layer's worth.
    void order_steps() {
        std::vector<ExecStep> in_node_order;
        std::vector<int> step_of_node(g_.nodes.size(), -1);
        std::vector<char> deferred;
        in_node_order.reserve(g_.nodes.size());
        deferred.reserve(g_.nodes.size());
        plan_->steps.reserve(g_.nodes.size());
        for (size_t ni = 0; ni < g_.nodes.size(); ++ni) {
            const Node& n = g_.nodes[ni];
            if (!n.live || n.is_constant()) continue;
            const OpRole role = n.def->role;
            if (role == OpRole::Parameter || role == OpRole::Result) continue;
            ExecStep step;
            step.node = static_cast<int>(ni);
            step.inputs.reserve(n.inputs.size());
            bool from_constants = role == OpRole::Compute && n.def->foldable;
            for (const ValueRef& r : n.inputs) {
                step.inputs.push_back(value_of(r));
                const Node& producer = g_.nodes[static_cast<size_t>(r.node)];
                const int ps = step_of_node[static_cast<size_t>(r.node)];
                if (!producer.is_constant() && !(ps >= 0 && deferred[static_cast<size_t>(ps)])) from_constants = false;
            }
            step.first_output = plan_->node_first_value[ni];
            step.num_outputs = static_cast<int>(n.outputs.size());
            step_of_node[ni] = static_cast<int>(in_node_order.size());
            deferred.push_back(from_constants);
            in_node_order.push_back(std::move(step));
        }
        // Emit each step after the deferred steps it needs, depth first in input order (an explicit
        // stack: constant chains may be long); deferred steps nothing emitted go last.
        std::vector<char> emitted(in_node_order.size(), 0);
        std::vector<std::pair<int, size_t>> stack;  // (step, next input to look at)
        const auto emit_with_deferred_inputs = [&](int root) {
            stack.push_back({root, 0});
            while (!stack.empty()) {
                auto& [s, next] = stack.back();
                const Node& n = g_.nodes[static_cast<size_t>(in_node_order[static_cast<size_t>(s)].node)];
                if (next < n.inputs.size()) {
                    const int ps = step_of_node[static_cast<size_t>(n.inputs[next++].node)];
                    if (ps >= 0 && deferred[static_cast<size_t>(ps)] && !emitted[static_cast<size_t>(ps)]) stack.push_back({ps, 0});
                    continue;
                }
                const int done = s;
                stack.pop_back();
                if (emitted[static_cast<size_t>(done)]) continue;
                emitted[static_cast<size_t>(done)] = 1;
                plan_->steps.push_back(std::move(in_node_order[static_cast<size_t>(done)]));
            }
        };
        for (size_t s = 0; s < in_node_order.size(); ++s)
            if (!deferred[s]) emit_with_deferred_inputs(static_cast<int>(s));
        for (size_t s = 0; s < in_node_order.size(); ++s)
            if (!emitted[s]) emit_with_deferred_inputs(static_cast<int>(s));
    }

    void compute_last_uses() {
        for (size_t s = 0; s < plan_->steps.size(); ++s)
            for (int v : plan_->steps[s].inputs) value(v).last_use = std::max(value(v).last_use, static_cast<int>(s));
        for (int ni : g_.results) {
            const Node& r = g_.nodes[static_cast<size_t>(ni)];
            if (!r.inputs.empty()) value(value_of(r.inputs[0])).last_use = kForever;
        }
        // Kept values outlive the run as model outputs do: in-place outputs and Concat inputs
        // placed in their Concat then never apply (both need an input that dies at the step), and
        // no output is left unwritten as unused.
        if (keep_values_)
            for (const ExecStep& step : plan_->steps)
                for (int o = 0; o < step.num_outputs; ++o) value(step.first_output + o).last_use = kForever;
        for (ExecStep& step : plan_->steps)
            for (int o = 0; o < std::min(step.num_outputs, 64); ++o)
                if (value(step.first_output + o).last_use < 0) step.unused_outputs |= uint64_t{1} << o;
    }

    bool is_static(int v) const {
        const ValueSlot& slot = plan_->values[static_cast<size_t>(v)];
        if (slot.kind == ValueSlot::Kind::Dynamic) return false;
        return slot.kind != ValueSlot::Kind::Input || g_.nodes[static_cast<size_t>(slot.node)].outputs[0].shape.is_static();
    }

    // A step runs from its plan when everything its op needs is known now: static input and output
    // shapes, constant value inputs, and an op that writes into outputs the executor makes (or
    // that makes only views). Stateful ops touch the request's variables: they run dynamically.
    bool can_prepare(const ExecStep& step) const {
        const Node& n = g_.nodes[static_cast<size_t>(step.node)];
        // A data-dependent op's output dims stay unknown until its kernel runs: its inputs decide.
        if (n.def->role == OpRole::Sink || (!n.shapes_static && !n.def->data_dependent_outputs)) return false;
        for (size_t i = 0; i < step.inputs.size(); ++i) {
            if (!is_static(step.inputs[i])) return false;
            if (n.def->needs_value_to_prepare(i) &&
                plan_->values[static_cast<size_t>(step.inputs[i])].kind != ValueSlot::Kind::Constant)
                return false;
        }
        return !n.def->allocates_outputs || n.def->prepare;
    }

    void place_step(int s) {
        ExecStep& step = plan_->steps[static_cast<size_t>(s)];
        const Node& n = g_.nodes[static_cast<size_t>(step.node)];
        if (!can_prepare(step)) {
            step.mode = ExecStep::Mode::Dynamic;
            plan_->has_dynamic_steps = true;
            return;  // its outputs stay Kind::Dynamic
        }
        if (n.def->prepare) {
            std::vector<InferContext::Input> in;
            in.reserve(step.inputs.size());
            for (int v : step.inputs) {
                const ValueSlot& slot = plan_->values[static_cast<size_t>(v)];
                const Node& producer = g_.nodes[static_cast<size_t>(slot.node)];
                const Tensor* known = slot.kind == ValueSlot::Kind::Constant ? &producer.constants[static_cast<size_t>(slot.output)] : nullptr;
                in.push_back({slot.type, PartialShape(slot.shape), known});
            }
            try {
                InferContext ctx(*n.def, *n.attrs, std::move(in), static_cast<int>(n.outputs.size()));
                ctx.set_threads(threads_);
                step.plan = n.def->prepare(ctx);
            } catch (Error& e) {
                e.add_context(n.location(plan_->file));
                throw;
            }
            plan_->scratch_bytes = std::max(plan_->scratch_bytes, step.plan->scratch_bytes);
        }
        // A plan that writes into made outputs (OpPlan::writes_outputs) runs as a plain kernel.
        const bool writes = step.plan && step.plan->writes_outputs && n.shapes_static;
        if (n.def->data_dependent_outputs && !writes) {
            // No arena bytes: its outputs stay Kind::Dynamic, made by the kernel in the runner's
            // buffers, and the steps reading them are planned at run time.
            step.mode = ExecStep::Mode::DataDependent;
            step.first_dynamic_buffer = plan_->dynamic_buffers;
            plan_->dynamic_buffers += step.num_outputs;
            return;
        }
        for (int o = 0; o < step.num_outputs; ++o) {
            ValueSlot& out = value(step.first_output + o);
            out.kind = ValueSlot::Kind::Arena;
            out.shape = n.outputs[static_cast<size_t>(o)].shape.to_shape();
            check_size_limit(n, out);
        }
        const bool viewed = step.plan && apply_views(step);
        if (step.plan && !viewed) apply_in_place(step, s);
        if (n.def->allocates_outputs && !writes) {
            // Such an op only runs from its plan when the plan makes every output a view.
            for (int o = 0; o < step.num_outputs; ++o)
                if (value(step.first_output + o).kind != ValueSlot::Kind::View) {
                    for (int k = 0; k < step.num_outputs; ++k) value(step.first_output + k).kind = ValueSlot::Kind::Dynamic;
                    step.mode = ExecStep::Mode::Dynamic;
                    plan_->has_dynamic_steps = true;
                    return;
                }
        }
        // In-place outputs are views too, but their kernel still has to run.
        step.mode = viewed ? ExecStep::Mode::Skip : ExecStep::Mode::Kernel;
    }

    // The per-tensor limit holds for planned outputs as for allocated ones (tensor_size.hpp). The
    // graph builder checked every output it inferred static already; this catches the shapes of
    // a model specialised for its inputs' shapes.
    void check_size_limit(const Node& n, const ValueSlot& out) const {
        try {
            check_tensor_fits(out.type, out.shape, out.output);
        } catch (Error& e) {
            e.add_context(n.location(plan_->file));
            throw;
        }
    }

    void make_view(int v, int base, size_t offset) {
        ValueSlot& out = value(v);
        const ValueSlot& b = plan_->values[static_cast<size_t>(base)];
        out.kind = ValueSlot::Kind::View;
        out.base = base;
        out.byte_offset = offset;
        out.root = b.root;
        // The root lives as long as its longest-lived view.
        ValueSlot& root = value(b.root);
        root.last_use = std::max(root.last_use, out.last_use);
    }

    // Views are all or nothing: a step whose plan views only some outputs copies them all.
    bool apply_views(const ExecStep& step) {
        const OpPlan& p = *step.plan;
        if (p.views.size() != static_cast<size_t>(step.num_outputs) || step.num_outputs == 0) return false;
        for (const OpPlan::View& view : p.views) {
            const int v = step.first_output + view.output;
            const int base = step.inputs[static_cast<size_t>(view.input)];
            const size_t need = value_bytes(v);
            if (view.byte_offset + need > value_bytes(base)) return false;  // a plan bug; copy instead
        }
        for (const OpPlan::View& view : p.views)
            make_view(step.first_output + view.output, step.inputs[static_cast<size_t>(view.input)], view.byte_offset);
        return true;
    }

    // An output may take over an input's buffer when nothing reads that buffer after this step and
    // the buffer is an intermediate (never a caller's input or a Const's mapped weights).
    void apply_in_place(const ExecStep& step, int s) {
        for (const OpPlan::InPlace& ip : step.plan->in_place) {
            const int v = step.first_output + ip.output;
            const int in = step.inputs[static_cast<size_t>(ip.input)];
            const ValueSlot& src = plan_->values[static_cast<size_t>(in)];
            if (value(v).kind != ValueSlot::Kind::Arena || src.kind != ValueSlot::Kind::Arena || src.root != in) continue;
            if (src.last_use != s || value_bytes(v) != value_bytes(in)) continue;
            // The same buffer must not be read through another input of this step.
            int readers = 0;
            for (int other : step.inputs) readers += plan_->values[static_cast<size_t>(other)].root == in ? 1 : 0;
            if (readers != 1) continue;
            make_view(v, in, 0);
        }
    }

    // A step whose plan lists input_slices (Concat) is skipped when each input can become a view
    // of its output, so that the producers write their results in place: the input is made by a
    // kernel step into an arena buffer of its own (or in place of that step's input: it then gets
    // its own place back), is no model output and is read by this step alone, once; and every
    // slice starts 64-byte aligned like any arena buffer, since kernels may rely on that. All or nothing: a kernel that copied some inputs would copy the
    // placed ones onto themselves. The output's buffer then lives from the first producer's step.
    void apply_input_slices(int s) {
        ExecStep& step = plan_->steps[static_cast<size_t>(s)];
        if (step.mode != ExecStep::Mode::Kernel || !step.plan || step.plan->input_slices.empty()) return;
        const std::vector<OpPlan::InputSlice>& slices = step.plan->input_slices;
        if (slices.size() != step.inputs.size()) return;
        int first = s;
        for (const OpPlan::InputSlice& slice : slices) {
            const int in = step.inputs[static_cast<size_t>(slice.input)];
            const int out = step.first_output + slice.output;
            const ValueSlot& src = plan_->values[static_cast<size_t>(in)];
            const ValueSlot& dst = plan_->values[static_cast<size_t>(out)];
            if (dst.kind != ValueSlot::Kind::Arena || dst.root != out) return;
            const int producer = producer_[static_cast<size_t>(in)];
            if (producer < 0 || plan_->steps[static_cast<size_t>(producer)].mode != ExecStep::Mode::Kernel) return;
            // An in-place output (a view its own kernel writes) goes back to a buffer of its own.
            const bool own = src.kind == ValueSlot::Kind::Arena && src.root == in && roots_[static_cast<size_t>(in)] == 1;
            const bool in_place = src.kind == ValueSlot::Kind::View;
            if (!(own || in_place) || src.last_use != s || readers_[static_cast<size_t>(in)] != 1) return;
            if (slice.byte_offset % 64 != 0 || slice.byte_offset + value_bytes(in) > value_bytes(out)) return;
            first = std::min(first, producer);
        }
        for (const OpPlan::InputSlice& slice : slices) {
            const int in = step.inputs[static_cast<size_t>(slice.input)];
            const int out = step.first_output + slice.output;
            ValueSlot& src = value(in);
            --roots_[static_cast<size_t>(src.root)];
            src.kind = ValueSlot::Kind::Arena;
            src.root = in;
            src.base = -1;
            make_view(in, out, slice.byte_offset);
            ++roots_[static_cast<size_t>(out)];
            first_write_[static_cast<size_t>(out)] = first;
        }
        step.mode = ExecStep::Mode::Skip;
    }

    // Per value: how many times steps read it (twice by a step that takes it twice), how many
    // values live in its memory (itself and its views), and the step that makes it.
    void count_uses() {
        const size_t n = plan_->values.size();
        first_write_.assign(n, -1);
        readers_.assign(n, 0);
        roots_.assign(n, 0);
        producer_.assign(n, -1);
        for (size_t s = 0; s < plan_->steps.size(); ++s) {
            const ExecStep& step = plan_->steps[s];
            for (int in : step.inputs) ++readers_[static_cast<size_t>(in)];
            for (int o = 0; o < step.num_outputs; ++o) producer_[static_cast<size_t>(step.first_output + o)] = static_cast<int>(s);
        }
        for (const ValueSlot& slot : plan_->values) ++roots_[static_cast<size_t>(slot.root)];
    }

    size_t value_bytes(int v) const {
        const ValueSlot& slot = plan_->values[static_cast<size_t>(v)];
        return checked_byte_size(slot.shape, element_size(slot.type));
    }

    void place_boundaries() {
        for (int ni : g_.results) {
            const Node& r = g_.nodes[static_cast<size_t>(ni)];
            plan_->output_values.push_back(r.inputs.empty() ? -1 : value_of(r.inputs[0]));
        }
        for (size_t v = 0; v < plan_->values.size(); ++v) {
            const ValueSlot& slot = plan_->values[v];
            if (slot.kind == ValueSlot::Kind::View && plan_->values[static_cast<size_t>(slot.root)].kind == ValueSlot::Kind::Input)
                plan_->input_views.push_back(static_cast<int>(v));
        }
    }

    void plan_memory_of_arena() {
        std::vector<BufferLifetime> buffers;
        std::vector<int> owners;
        std::vector<int> first_step(plan_->values.size(), 0);
        for (size_t s = 0; s < plan_->steps.size(); ++s)
            for (int o = 0; o < plan_->steps[s].num_outputs; ++o)
                first_step[static_cast<size_t>(plan_->steps[s].first_output + o)] = static_cast<int>(s);
        const int end = static_cast<int>(plan_->steps.size());
        for (size_t v = 0; v < plan_->values.size(); ++v) {
            const ValueSlot& slot = plan_->values[v];
            if (slot.kind != ValueSlot::Kind::Arena) continue;
            // An output whose inputs its producers wrote in place is written from the first of them.
            const int first = first_write_[v] >= 0 ? first_write_[v] : first_step[v];
            // An output nobody reads still needs its bytes while its step runs.
            const int last = slot.last_use == kForever ? end : std::max(slot.last_use, first);
            buffers.push_back({value_bytes(static_cast<int>(v)), first, last});
            owners.push_back(static_cast<int>(v));
        }
        const MemoryPlan mp = plan_memory(buffers);
        for (size_t b = 0; b < owners.size(); ++b) value(owners[b]).byte_offset = mp.offsets[b];
        plan_->arena_bytes = mp.arena_bytes;
    }

    const Graph& g_;
    std::shared_ptr<ExecutionPlan> plan_;
    // apply_input_slices' bookkeeping, per value (count_uses).
    std::vector<int> first_write_;  // the first step writing into it, when not its own step
    std::vector<int> readers_, roots_, producer_;
    int threads_ = 0;
    bool keep_values_ = false;
};

}  // namespace

std::shared_ptr<const ExecutionPlan> make_execution_plan(std::shared_ptr<const Graph> graph, const std::string& file,
                                                         int threads, bool keep_values) {
    return PlanBuilder(std::move(graph), file, threads, keep_values).build();
}

void bind_values(const ExecutionPlan& ep, std::byte* arena, const std::vector<Tensor>& bound, std::vector<Tensor>& values) {
    const Graph& g = *ep.graph;
    values.assign(ep.values.size(), Tensor());
    for (size_t v = 0; v < ep.values.size(); ++v) {
        const ValueSlot& slot = ep.values[v];
        switch (slot.kind) {
            case ValueSlot::Kind::Constant:
                values[v] = g.nodes[static_cast<size_t>(slot.node)].constants[static_cast<size_t>(slot.output)];
                break;
            case ValueSlot::Kind::Arena: values[v] = Tensor::wrap(slot.type, slot.shape, arena + slot.byte_offset); break;
            case ValueSlot::Kind::View: values[v] = Tensor::wrap(slot.type, slot.shape, nullptr); break;
            case ValueSlot::Kind::Input:
            case ValueSlot::Kind::Dynamic: break;
        }
    }
    std::vector<char> view_bound(ep.values.size(), 0);
    std::vector<int> chain;
    for (size_t v = 0; v < ep.values.size(); ++v) {
        const ValueSlot& slot = ep.values[v];
        if (slot.kind != ValueSlot::Kind::View || ep.values[static_cast<size_t>(slot.root)].kind == ValueSlot::Kind::Input)
            continue;
        for (int u = static_cast<int>(v);
             ep.values[static_cast<size_t>(u)].kind == ValueSlot::Kind::View && !view_bound[static_cast<size_t>(u)];
             u = ep.values[static_cast<size_t>(u)].base)
            chain.push_back(u);
        for (; !chain.empty(); chain.pop_back()) {
            const auto u = static_cast<size_t>(chain.back());
            const Tensor& base = *value_tensor(ep, bound, values, ep.values[u].base);
            if (base.valid()) values[u].view_into(base, ep.values[u].byte_offset);
            view_bound[u] = 1;
        }
    }
}

void run_planned_step(const ExecutionPlan& ep, size_t i, const std::vector<const Tensor*>& inputs, const StepMemory& m) {
    const ExecStep& step = ep.steps[i];
    const Node& node = ep.graph->nodes[static_cast<size_t>(step.node)];
    KernelContext ctx(*node.def, *node.attrs, inputs.data(), inputs.size(), &m.values[static_cast<size_t>(step.first_output)],
                      static_cast<size_t>(step.num_outputs), step.plan.get(), m.scratch, m.scratch_stride, m.pool);
    ctx.set_unused_outputs(step.unused_outputs);
    ctx.set_state(&m.op_states[i]);
    if (step.mode != ExecStep::Mode::DataDependent) {
        node.def->compute(ctx);
        return;
    }
    ctx.set_dynamic_buffers(&m.dynamic_buffers[static_cast<size_t>(step.first_dynamic_buffer)]);
    node.def->compute(ctx);
    check_data_dependent_outputs(node, ctx);
}

void check_data_dependent_outputs(const Node& node, const KernelContext& ctx) {
    for (size_t o = 0; o < ctx.num_outputs(); ++o) {
        const Tensor& out = ctx.output(o);
        const bool made = o < 64 && ((ctx.dynamic_outputs_made() >> o) & 1u);
        const OutputInfo& want = node.outputs[o];
        if (made && out.type() == want.type && shapes_compatible(out.shape(), want.shape)) continue;
        throw Error(ErrorKind::ShapeRule, "kernel-output-mismatch",
                    made ? str("output ", o, " is ", to_string(out.type()), " ", to_string(out.shape()), ", expected ",
                               to_string(want.type), " ", to_string(want.shape))
                         : str("the kernel did not make output ", o));
    }
}

std::vector<std::vector<const Tensor*>> step_input_tensors(const ExecutionPlan& ep, const std::vector<Tensor>& bound,
                                                           const std::vector<Tensor>& values) {
    std::vector<std::vector<const Tensor*>> ins(ep.steps.size());
    for (size_t s = 0; s < ep.steps.size(); ++s)
        for (int v : ep.steps[s].inputs) ins[s].push_back(value_tensor(ep, bound, values, v));
    return ins;
}

}  // namespace irlite
