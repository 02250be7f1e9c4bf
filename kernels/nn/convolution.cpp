// Convolution-1, GroupConvolution-1, ConvolutionBackpropData-1, GroupConvolutionBackpropData-1
// (opset1+), for 1-D, 2-D and 3-D spatial data (rank 3..5), written once for any spatial rank.
// Inputs:
//   Convolution:                  0 'data' [N, C_IN, S...], 1 'filters' [C_OUT, C_IN, K...]
//   GroupConvolution:             0 'data' [N, G*C_IN, S...], 1 'filters' [G, C_OUT, C_IN, K...]
//   ConvolutionBackpropData:      0 'data' [N, C_IN, S...], 1 'filters' [C_IN, C_OUT, K...],
//                                 2 'output_shape' (optional, 1-D integer, the result's spatial dims)
//   GroupConvolutionBackpropData: 0 'data' [N, G*C_IN, S...], 1 'filters' [G, C_IN, C_OUT, K...], 2 as above
// Attributes: strides, dilations (default 1s), pads_begin, pads_end, auto_pad (explicit, notset,
// same_upper, same_lower, valid), and for the backprop ops output_padding (default 0s).
// Output: [N, G*C_OUT, O...]; O from the window rules in kernels/detail/nn_common.hpp.
// Types: f32, f64; f16/bf16 computed in f32. data and filters of the same type.
// Method: im2col + GEMM (forward), GEMM + col2im (backprop), in column chunks that bound the scratch
// buffer; a 1x1 stride-1 convolution is a GEMM on the data itself, and a group with one input
// channel (depthwise, MobileNet) runs a direct kernel.
//
// This file is the front: the attributes, the shape rule, the choice of method at prepare and the
// dispatch at compute. Each method is in a file of its own (kernels/nn/convolution_methods.hpp
// lists them, with their plans).
#include <algorithm>
#include <cstddef>
#include <optional>
#include <type_traits>
#include <variant>

#include "kernels/detail/cpu_isa.hpp"
#include "kernels/detail/apply_epilogue.hpp"
#include "kernels/detail/nn_common.hpp"
#include "kernels/nn/convolution_int8.hpp"
#include "kernels/nn/convolution_int8_depthwise.hpp"
#include "kernels/nn/convolution_methods.hpp"

namespace irlite {
namespace {

using nn::conv::ConvProblem;

enum class ConvKind { Forward, GroupForward, Backprop, GroupBackprop };

bool is_group(ConvKind k) { return k == ConvKind::GroupForward || k == ConvKind::GroupBackprop; }
bool is_backprop(ConvKind k) { return k == ConvKind::Backprop || k == ConvKind::GroupBackprop; }

struct ConvAttrs : OpAttrs {
    nn::WindowSpec window;
    std::vector<int64_t> output_padding;  // backprop only; empty = zeros
    // Forward f32 only: bias, residual (input 2) and activation fused after the convolution.
    std::shared_ptr<const Epilogue> epilogue;
    // Convolution only: the data input's FakeQuantize and the integer weights, when the
    // low-precision pass made this layer int8 (convolution_int8.hpp).
    std::shared_ptr<const QuantizedInput> quantized;
};

std::unique_ptr<OpAttrs> parse(const AttrReader& r, ConvKind kind) {
    auto a = std::make_unique<ConvAttrs>();
    a->window = nn::read_window_spec(r, true);
    if (is_backprop(kind) && r.has("output_padding"))
        a->output_padding = nn::read_positive_list(r, "output_padding", 0);
    return a;
}


int64_t mul_dims(int64_t a, int64_t b) { return a == kDynamic || b == kDynamic ? kDynamic : a * b; }

template <class Ctx>
ConvProblem analyze(const Ctx& ctx, ConvKind kind, const ConvAttrs& attrs, const std::vector<int64_t>& data,
                    const std::vector<int64_t>& filters, const std::vector<int64_t>* output_shape) {
    if (data.size() < 3 || data.size() > 5)
        throw ctx.input_error(0, ErrorKind::ShapeRule, "rank-invalid",
                              str("expected [N, C, spatial...] with 1 to 3 spatial dims (rank 3..5), got ",
                                  to_string(PartialShape(data))));
    const size_t lead = is_group(kind) ? 3 : 2;
    const size_t spatial = data.size() - 2;
    if (filters.size() != spatial + lead)
        throw ctx.input_error(1, ErrorKind::ShapeRule, "rank-invalid",
                              str("filters of rank ", spatial + lead, " expected for data ", to_string(PartialShape(data)),
                                  ", got ", to_string(PartialShape(filters))));
    ConvProblem p;
    p.batch = data[0];
    p.data_channels = data[1];
    switch (kind) {
        case ConvKind::Forward: p.out_per_group = filters[0], p.in_per_group = filters[1]; break;
        case ConvKind::GroupForward: p.groups = filters[0], p.out_per_group = filters[1], p.in_per_group = filters[2]; break;
        case ConvKind::Backprop: p.in_per_group = filters[0], p.out_per_group = filters[1]; break;
        case ConvKind::GroupBackprop: p.groups = filters[0], p.in_per_group = filters[1], p.out_per_group = filters[2]; break;
    }
    const int64_t expected_channels = mul_dims(p.groups, p.in_per_group);
    if (expected_channels != kDynamic && p.data_channels != kDynamic && expected_channels != p.data_channels)
        throw ctx.input_error(1, ErrorKind::ShapeRule, "channels-mismatch",
                              str("data ", to_string(PartialShape(data)), " has ", p.data_channels,
                                  " channels, but filters ", to_string(PartialShape(filters)), " expect ",
                                  is_group(kind) ? str(p.groups, " groups x ", p.in_per_group, " = ") : "",
                                  expected_channels));
    const std::vector<int64_t> in_dims(data.begin() + 2, data.end());
    const std::vector<int64_t> kernel(filters.begin() + static_cast<std::ptrdiff_t>(lead), filters.end());
    p.axes = is_backprop(kind) ? nn::backprop_windows(attrs.window, attrs.output_padding, in_dims, kernel, output_shape)
                               : nn::forward_windows(attrs.window, in_dims, kernel, nn::Rounding::Floor);
    p.out_shape = {p.batch, mul_dims(p.groups, p.out_per_group)};
    for (const auto& a : p.axes) p.out_shape.push_back(a.out);
    return p;
}

// The optional output_shape input of the backprop ops: its values, or kDynamic per spatial axis
// when they are not known yet. Null when the input is absent.
template <class Ctx>
std::optional<std::vector<int64_t>> read_output_shape(const Ctx& ctx, const Tensor* value, const PartialShape& shape,
                                                      size_t spatial_rank) {
    if (shape.rank_known() && shape.rank() != 1)
        throw ctx.input_error(2, ErrorKind::ShapeRule, "rank-invalid",
                              str("output_shape must be 1-D, got shape ", to_string(shape)));
    if (shape.rank_known() && shape[0] != kDynamic && static_cast<size_t>(shape[0]) != spatial_rank)
        throw ctx.input_error(2, ErrorKind::ShapeRule, "dims-mismatch",
                              str("output_shape has ", shape[0], " values; expected one per spatial axis (",
                                  spatial_rank, ")"));
    std::vector<int64_t> dims(spatial_rank, kDynamic);
    if (!value) return dims;
    for (size_t i = 0; i < spatial_rank; ++i) {
        dims[i] = value->value_as_int64(static_cast<int64_t>(i));
        if (dims[i] < 1)
            throw ctx.input_error(2, ErrorKind::Value, "output-shape-invalid",
                                  str("output_shape[", i, "] = ", dims[i], "; it must be at least 1"));
    }
    return dims;
}

std::vector<OutputInfo> infer(const InferContext& ctx, ConvKind kind) {
    nn::require_float(ctx, 0);
    nn::require_same_type(ctx, 1, 0);
    nn::require_rank(ctx, 0, 3, 5, "[N, C, spatial...]");
    const bool has_output_shape = is_backprop(kind) && ctx.num_inputs() > 2;
    if (has_output_shape) nn::require_integer(ctx, 2);
    if (!ctx.shape(0).rank_known()) return {{ctx.type(0), PartialShape::dynamic_rank()}};
    const size_t spatial = ctx.shape(0).rank() - 2;
    std::vector<int64_t> filters = ctx.shape(1).rank_known()
                                       ? ctx.shape(1).dims()
                                       : std::vector<int64_t>(spatial + (is_group(kind) ? 3 : 2), kDynamic);
    std::optional<std::vector<int64_t>> output_shape;
    if (has_output_shape) output_shape = read_output_shape(ctx, ctx.value(2), ctx.shape(2), spatial);
    const ConvProblem p = analyze(ctx, kind, ctx.attrs<ConvAttrs>(), ctx.shape(0).dims(), filters,
                                  output_shape ? &*output_shape : nullptr);
    return {{ctx.type(0), PartialShape(p.out_shape)}};
}

// The convolution planned once: its numbers, the fused epilogue, and the chosen method's plan.
struct ConvPlan : OpPlan {
    ConvProblem problem;
    // The fused epilogue (f32): applied by the method where it writes each block when
    // epilogue_in_kernel, else over the whole output at the end.
    nn::FusedEpilogue epilogue;
    bool epilogue_in_kernel = false;
    std::variant<nn::conv::GenericPlan, nn::conv::DepthwisePlan, nn::conv::ChannelsLastPlan, nn::conv::GemmConvPlan,
                 nn::conv::WinogradPlan, nn::Int8ConvPlan, nn::Int8DepthwisePlan>
        by_method;
    // f16 / bf16 data, filters and result converted to f32 (nn::ComputeIn / ComputeOut) in the
    // calling thread's scratch after the method's own bytes (which every thread's task uses):
    // at convert_offset, x_bytes, then w_bytes (0 when the run never reads the filters: packed in
    // the plan), then y_bytes.
    bool reads_filters = true;
    size_t convert_offset = 0, x_bytes = 0, w_bytes = 0, y_bytes = 0;
    nn::ScratchSpace convert_space(const KernelContext& ctx, size_t offset, size_t bytes) const {
        if (bytes == 0) return {};
        return {static_cast<std::byte*>(ctx.scratch()) + convert_offset + offset, bytes};
    }
};

// The int8 method (the low-precision pass's layers).
void plan_int8(const InferContext& ctx, ConvKind kind, const QuantizedInput& q, ConvPlan& plan) {
    const ConvProblem& p = plan.problem;
    // The pass only hands this to a 2-D Convolution of f32 data (4-D filters), or of u8 levels
    // (engine/level_tensors.hpp).
    const auto weights = static_cast<int64_t>(q.weights.size());
    if (kind == ConvKind::GroupForward) {
        // Depthwise only (with_quantized_input), of f32 data or u8 levels.
        if (p.axes.size() != 2 || p.in_per_group != 1 || p.out_per_group != 1 || weights != p.groups * p.kernel_size() ||
            ctx.type(0) != (q.levels_in ? ElementType::u8 : ElementType::f32) ||
            !nn::int8_depthwise_fits(p.axes[1].kernel, p.axes[1].stride, p.axes[1].dilation))
            throw Error(ErrorKind::Unsupported, "int8-unsupported", "an int8 input on a convolution the int8 method cannot run");
        const nn::Int8DepthwisePlan& dw = plan.by_method.emplace<nn::Int8DepthwisePlan>(
            nn::plan_int8_depthwise(p.groups, p.axes[0], p.axes[1], q, plan.epilogue, cpu::active_isa()));
        plan.scratch_bytes = dw.scratch_bytes;
        plan.method = "int8-depthwise";
        plan.epilogue_in_kernel = true;
        return;
    }
    if (kind != ConvKind::Forward || p.axes.size() != 2 || ctx.type(0) != (q.levels_in ? ElementType::u8 : ElementType::f32) ||
        weights != p.out_per_group * p.in_per_group * p.kernel_size() ||
        p.in_per_group * p.kernel_size() >= nn::kInt8MaxDepth)
        throw Error(ErrorKind::Unsupported, "int8-unsupported", "an int8 input on a convolution the int8 method cannot run");
    nn::Int8ConvShape shape;
    shape.channels = p.in_per_group;
    shape.out_channels = p.out_per_group;
    shape.h = p.axes[0];
    shape.w = p.axes[1];
    nn::Int8ConvPlan& int8 = plan.by_method.emplace<nn::Int8ConvPlan>(
        nn::plan_int8_convolution(shape, q, plan.epilogue, cpu::active_isa()));
    plan.scratch_bytes = int8.scratch_bytes();
    plan.method = int8.indexed_b ? "int8-implicit" : "int8-im2col";
    plan.epilogue_in_kernel = true;
}

// The 2-D forward convolutions' methods: depthwise (planar or channels last), Winograd, or a GEMM.
void plan_2d(const InferContext& ctx, ConvPlan& plan) {
    const ConvProblem& p = plan.problem;
    const size_t elem = ctx.type(0) == ElementType::f64 ? sizeof(double) : sizeof(float);
    if (p.in_per_group == 1 && p.out_per_group <= 4) {
        if (nn::conv::channels_last_fits(ctx.type(0), p, ctx.value(1) != nullptr)) {
            const auto& m = plan.by_method.emplace<nn::conv::ChannelsLastPlan>(
                nn::conv::plan_channels_last(ctx, p, plan.epilogue));
            plan.scratch_bytes = m.scratch_bytes;
            plan.method = "direct-channels-last";
        } else {
            const auto& m = plan.by_method.emplace<nn::conv::DepthwisePlan>(nn::conv::plan_depthwise(p, elem));
            plan.scratch_bytes = m.scratch_bytes;
            plan.method = "direct";
        }
        plan.epilogue_in_kernel = true;
    } else if (nn::conv::winograd_fits(ctx, p)) {
        const auto& m = plan.by_method.emplace<nn::conv::WinogradPlan>(nn::conv::plan_winograd(ctx, p));
        plan.scratch_bytes = m.scratch_bytes;
        plan.method = "winograd";
        plan.epilogue_in_kernel = true;
    } else {
        const auto& m = plan.by_method.emplace<nn::conv::GemmConvPlan>(
            nn::conv::plan_gemm_conv(ctx, p, nn::conv::is_pointwise(p)));
        plan.scratch_bytes = m.scratch_bytes;
        plan.method = nn::conv::gemm_method_name(m);
        plan.epilogue_in_kernel = !m.packed.empty();
    }
}

// The problem, the fused epilogue and the method.
std::unique_ptr<ConvPlan> plan_method(const InferContext& ctx, ConvKind kind) {
    const PartialShape& data = ctx.shape(0);
    std::optional<std::vector<int64_t>> output_shape;
    if (is_backprop(kind) && ctx.num_inputs() > 2) output_shape = read_output_shape(ctx, ctx.value(2), ctx.shape(2), data.rank() - 2);
    auto plan = std::make_unique<ConvPlan>();
    ConvProblem& p = plan->problem;
    p = analyze(ctx, kind, ctx.attrs<ConvAttrs>(), data.dims(), ctx.shape(1).dims(), output_shape ? &*output_shape : nullptr);
    if (!is_backprop(kind) && (ctx.type(0) == ElementType::f32 || ctx.attrs<ConvAttrs>().quantized))
        plan->epilogue = nn::FusedEpilogue::from(ctx.attrs<ConvAttrs>().epilogue.get(), p.groups * p.out_per_group);
    if (const QuantizedInput* q = ctx.attrs<ConvAttrs>().quantized.get()) {
        plan_int8(ctx, kind, *q, *plan);
    } else if (!is_backprop(kind) && p.axes.size() == 2) {
        plan_2d(ctx, *plan);
    } else {
        const size_t elem = ctx.type(0) == ElementType::f64 ? sizeof(double) : sizeof(float);
        const auto& m =
            plan->by_method.emplace<nn::conv::GenericPlan>(nn::conv::plan_generic(p, is_backprop(kind), elem));
        plan->scratch_bytes = m.scratch_bytes;
        plan->method = "generic";
    }
    return plan;
}

int64_t count_of(const std::vector<int64_t>& dims) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
}

// Whether the method reads the filters at run time (the others hold them packed in the plan).
bool reads_filters(const ConvPlan& plan) {
    if (const auto* gemm = std::get_if<nn::conv::GemmConvPlan>(&plan.by_method)) return gemm->packed.empty();
    return std::holds_alternative<nn::conv::GenericPlan>(plan.by_method) ||
           std::holds_alternative<nn::conv::DepthwisePlan>(plan.by_method);
}

// The method's plan, then room for the f16 / bf16 conversions (ConvPlan::convert_offset).
std::unique_ptr<OpPlan> prepare(const InferContext& ctx, ConvKind kind) {
    std::unique_ptr<ConvPlan> plan = plan_method(ctx, kind);
    plan->reads_filters = reads_filters(*plan);
    plan->x_bytes = nn::conversion_bytes(ctx.type(0), count_of(ctx.shape(0).dims()));
    plan->w_bytes = plan->reads_filters ? nn::conversion_bytes(ctx.type(1), count_of(ctx.shape(1).dims())) : 0;
    plan->y_bytes = nn::conversion_bytes(ctx.type(0), count_of(plan->problem.out_shape));
    if (plan->x_bytes + plan->w_bytes + plan->y_bytes > 0) {
        plan->convert_offset = (plan->scratch_bytes + 63) / 64 * 64;
        plan->scratch_bytes = plan->convert_offset + plan->x_bytes + plan->w_bytes + plan->y_bytes;
    }
    return plan;
}

// The chosen method on one run's arrays (T: the compute type).
template <class T>
void run_method(const ConvPlan& plan, const nn::conv::ConvTensors<T>& io, KernelContext& ctx) {
    const ConvProblem& p = plan.problem;
    const nn::FusedEpilogue& e = plan.epilogue;
    if (const auto* m = std::get_if<nn::conv::GenericPlan>(&plan.by_method)) {
        nn::conv::run_generic(p, *m, io, static_cast<T*>(ctx.scratch()));
    } else if (const auto* dw = std::get_if<nn::conv::DepthwisePlan>(&plan.by_method)) {
        nn::conv::run_depthwise(p, *dw, e, io, ctx);
    } else if (const auto* gemm = std::get_if<nn::conv::GemmConvPlan>(&plan.by_method)) {
        nn::conv::run_gemm(p, *gemm, e, io, ctx);
    } else if constexpr (std::is_same_v<T, float>) {  // the f32-only methods
        if (const auto* cl = std::get_if<nn::conv::ChannelsLastPlan>(&plan.by_method))
            nn::conv::run_channels_last(p, *cl, e, io, ctx);
        else if (const auto* wino = std::get_if<nn::conv::WinogradPlan>(&plan.by_method))
            nn::conv::run_winograd(p, *wino, e, io, ctx);
    }
}

// u8 for a tensor of levels, else f32 (the int8 method's inputs and outputs).
ElementType level_type(bool levels) { return levels ? ElementType::u8 : ElementType::f32; }

void compute(KernelContext& ctx) {
    const ConvPlan& plan = ctx.plan<ConvPlan>();
    const Tensor& data = ctx.input(0);
    if (ctx.output(0).num_elements() == 0) return;
    if (const auto* dw = std::get_if<nn::Int8DepthwisePlan>(&plan.by_method)) {
        const float* res = plan.epilogue.residual ? ctx.input(ctx.num_inputs() - 1).data<float>() : nullptr;
        nn::run_int8_depthwise(*dw, plan.problem.batch, data.data(), ctx.output(0).data(), res, ctx);
        return;
    }
    if (const auto* int8 = std::get_if<nn::Int8ConvPlan>(&plan.by_method)) {
        // f32 or u8 levels in and out, as the plan says; the epilogue runs inside. The level pass
        // (engine/level_tensors.cpp) sets the tensors' types and the plan's flags together; a
        // disagreement would write floats into a u8 buffer, so it is an error, not a crash.
        if (data.type() != level_type(int8->levels_in) || ctx.output(0).type() != level_type(int8->writes_levels))
            throw Error(ErrorKind::Type, "int8-level-type",
                        std::string("the int8 plan expects ") + to_string(level_type(int8->levels_in)) + " in and " +
                            to_string(level_type(int8->writes_levels)) + " out, the tensors are " +
                            to_string(data.type()) + " and " + to_string(ctx.output(0).type()));
        const float* res = plan.epilogue.residual ? ctx.input(ctx.num_inputs() - 1).data<float>() : nullptr;
        nn::run_int8_convolution(*int8, plan.problem.batch, data.data(), ctx.output(0).data(), res, ctx.scratch(),
                                 ctx.pool());
        return;
    }
    nn::dispatch_float(data.type(), [&](auto tag) {
        using T = decltype(tag);
        const nn::ComputeIn<T> x(data, plan.convert_space(ctx, 0, plan.x_bytes));
        std::optional<nn::ComputeIn<T>> w;  // none when the filters are packed in the plan
        if (plan.reads_filters) w.emplace(ctx.input(1), plan.convert_space(ctx, plan.x_bytes, plan.w_bytes));
        nn::ComputeOut<T> y(ctx.output(0), plan.convert_space(ctx, plan.x_bytes + plan.w_bytes, plan.y_bytes));
        nn::conv::ConvTensors<T> io;
        io.x = x.data();
        io.w = w ? w->data() : nullptr;
        io.y = y.data();
        // A fused residual is the last input (f32, the output's shape).
        if constexpr (std::is_same_v<T, float>)
            if (plan.epilogue.residual) io.res = ctx.input(ctx.num_inputs() - 1).template data<float>();
        run_method(plan, io, ctx);
        if (!plan.epilogue_in_kernel) {
            // Paths without a fused epilogue of their own: over the whole output, image by image.
            const ConvProblem& p = plan.problem;
            const int64_t channels = p.groups * p.out_per_group, spatial = p.out_spatial();
            for (int64_t n = 0; n < p.batch; ++n)
                nn::conv::finish_block(plan.epilogue, false, 0, io.y + n * channels * spatial,
                                       io.res ? io.res + n * channels * spatial : nullptr, spatial, channels, spatial);
        }
        y.commit();
    });
}

OpDef make_conv_def(const char* type, ConvKind kind) {
    OpDef d;
    d.type = type;
    d.version = 1;
    d.input_roles = {"data", "filters"};
    d.min_inputs = 2;
    if (is_backprop(kind)) {
        d.input_roles.push_back("output_shape");
        d.value_inputs = inputs(2);
    }
    d.parse_attrs = [kind](const AttrReader& r) { return parse(r, kind); };
    d.infer = [kind](const InferContext& ctx) { return infer(ctx, kind); };
    d.prepare = [kind](const InferContext& ctx) { return prepare(ctx, kind); };
    d.compute = [](KernelContext& ctx) { compute(ctx); };
    if (!is_backprop(kind)) {
        d.with_epilogue = [](const OpAttrs& a, std::shared_ptr<const Epilogue> e) -> std::unique_ptr<OpAttrs> {
            auto fused = std::make_unique<ConvAttrs>(static_cast<const ConvAttrs&>(a));
            fused->epilogue = std::move(e);
            return fused;
        };
        d.epilogue_channel_axis = 1;
    }
    if (kind == ConvKind::Forward || kind == ConvKind::GroupForward) {
        d.with_quantized_input = [kind](const OpAttrs& a, std::shared_ptr<const QuantizedInput> q) -> std::unique_ptr<OpAttrs> {
            // 2-D ([Cout, Cin, kH, kW] filters), the depth within the int32 sums' bound; grouped:
            // depthwise ([G, 1, 1, kH, kW]) with a tiling, on a CPU that runs its fast path
            // (convolution_int8_depthwise.hpp).
            const Shape& w = q->weights_shape;
            if (kind == ConvKind::Forward && (w.size() != 4 || w[1] * w[2] * w[3] >= nn::kInt8MaxDepth)) return nullptr;
            if (kind == ConvKind::GroupForward) {
                const nn::WindowSpec& win = static_cast<const ConvAttrs&>(a).window;
                if (!nn::int8_depthwise_runs_fast() || w.size() != 5 || w[1] != 1 || w[2] != 1 ||
                    win.strides.size() != 2 ||
                    !nn::int8_depthwise_fits(w[4], win.strides[1], win.dilations.size() == 2 ? win.dilations[1] : 1))
                    return nullptr;
            }
            auto quantized = std::make_unique<ConvAttrs>(static_cast<const ConvAttrs&>(a));
            quantized->quantized = std::move(q);
            return quantized;
        };
        d.quantized_input_of = [](const OpAttrs& a) { return static_cast<const ConvAttrs&>(a).quantized.get(); };
        // The int8 method ends its epilogue with a FakeQuantize (the next quantized layer's).
        d.takes_fake_quantize = [](const OpAttrs& a) { return static_cast<const ConvAttrs&>(a).quantized != nullptr; };
    }
    return d;
}

}  // namespace

OpDef make_convolution_op() { return make_conv_def("Convolution", ConvKind::Forward); }
OpDef make_group_convolution_op() { return make_conv_def("GroupConvolution", ConvKind::GroupForward); }
OpDef make_convolution_backprop_data_op() { return make_conv_def("ConvolutionBackpropData", ConvKind::Backprop); }
OpDef make_group_convolution_backprop_data_op() {
    return make_conv_def("GroupConvolutionBackpropData", ConvKind::GroupBackprop);
}

}  // namespace irlite

