// PRelu-1 (IR type "PReLU"; OpenVINO opset1 spec): x >= 0 ? x : slope * x.
// Inputs: 0 'data'; 1 'slope' (rank >= 1 in the spec; a scalar is accepted too). The spec asks for
// data's type, but OpenVINO accepts any floating-point slope and converts it (FP16 IR v10 from
// Model Optimizer keeps f32 slopes on f16 data): so does irlite, converting it to data's type once,
// when the model is compiled (on each run, into scratch memory, when the slope is not a constant).
// Prepared once (the broadcast rows), run on the request's threads like the binary ops.
// When slope is 1-D and its length equals data's channel dim (axis 1, data rank >= 2), it applies
// per channel; otherwise it broadcasts to data numpy-style, and must not change data's shape.
// Output: data's type and shape. Types: f16, bf16, f32, f64. No attributes.
#include "kernels/detail/eltwise.hpp"

namespace irlite {
namespace {

using namespace detail;

bool may_be_per_channel(const PartialShape& data, const PartialShape& slope) {
    return data.rank_known() && slope.rank_known() && data.rank() >= 2 && slope.rank() == 1;
}

// The slope's shape as it broadcasts against data: a per-channel [C] becomes [C, 1, ..., 1] so that
// it lines up with axis 1.
PartialShape effective_slope_shape(const PartialShape& data, const PartialShape& slope) {
    if (!may_be_per_channel(data, slope) || slope[0] == kDynamic || slope[0] != data[1]) return slope;
    std::vector<int64_t> dims(data.rank() - 1, 1);
    dims[0] = slope[0];
    return PartialShape(dims);
}

Error slope_mismatch(const InferContext& ctx) {
    const PartialShape& data = ctx.shape(0);
    const std::string channels = data.rank_known() && data.rank() >= 2 ? std::to_string(data[1]) : "C";
    return ctx.input_error(1, ErrorKind::ShapeRule, "broadcast-incompatible",
                           str("slope of shape ", to_string(ctx.shape(1)), " does not broadcast to data's shape ",
                               to_string(data), " (a per-channel slope has shape [", channels, "])"));
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    const ElementType type = ctx.type(0);
    if ((kFloatTypes & type_bit(type)) == 0)
        throw ctx.input_error(0, ErrorKind::Type, "element-type-unsupported",
                              str("PReLU does not support element type ", to_string(type),
                                  " (supported: ", type_mask_text(kFloatTypes), ")"));
    if ((kFloatTypes & type_bit(ctx.type(1))) == 0)
        throw ctx.input_error(1, ErrorKind::Type, "element-type-unsupported",
                              str("slope has element type ", to_string(ctx.type(1)), "; it must be a floating-point type (",
                                  type_mask_text(kFloatTypes), "), converted to data's type ", to_string(type)));
    const PartialShape& data = ctx.shape(0);
    const PartialShape& slope = ctx.shape(1);
    // A 1-D slope against an unknown channel dim (or of unknown length) may still be per-channel:
    // decided when the shapes are known.
    if (may_be_per_channel(data, slope) && (slope[0] == kDynamic || data[1] == kDynamic)) return {{type, data}};
    PartialShape out;
    try {
        out = broadcast_shapes(data, effective_slope_shape(data, slope), AutoBroadcast::Numpy);
    } catch (const Error&) {
        throw slope_mismatch(ctx);
    }
    // The slope must not make the output larger than data.
    const bool same_rank = !out.rank_known() || !data.rank_known() || out.rank() == data.rank();
    if (!same_rank || !shapes_compatible(out, data)) throw slope_mismatch(ctx);
    return {{type, data}};
}

// Converts `n` slope values of type `from` into data's type `to` (through double, as f32 for the
// 16-bit types).
void convert_slope(const void* in, ElementType from, void* out, ElementType to, int64_t n) {
    dispatch_type(from, [&](auto from_tag) {
        using From = decltype(from_tag);
        dispatch_type(to, [&](auto to_tag) {
            using To = decltype(to_tag);
            const From* src = static_cast<const From*>(in);
            To* dst = static_cast<To*>(out);
            for (int64_t i = 0; i < n; ++i) {
                const double v = to_compute<double>(src[i]);
                if constexpr (std::is_same_v<To, double>) dst[i] = v;
                else dst[i] = from_compute<To>(static_cast<float>(v));
            }
        });
    });
}

// What prepare decided once: the broadcast of data against the slope (a per-channel slope seen as
// [C, 1, ..., 1]), and a constant slope already in data's type. A slope known only at run time and
// of another type is converted into scratch memory on each run.
struct PReluPlan : OpPlan {
    BroadcastPlan broadcast;
    Tensor slope;  // the constant slope in data's type (the Const itself when it is); empty when it comes at run time
    bool convert_at_run_time = false;
};

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    infer(ctx);  // the rule's checks, on the static shapes
    auto plan = std::make_unique<PReluPlan>();
    const Shape& data = ctx.shape(0).dims();
    const Shape slope = effective_slope_shape(ctx.shape(0), ctx.shape(1)).to_shape();
    plan->broadcast = plan_broadcast(data, slope, data);
    const ElementType type = ctx.type(0);
    if (const Tensor* known = ctx.value(1); known && known->type() == type) {
        plan->slope = *known;  // the Const's own bytes
    } else if (known) {
        plan->slope = Tensor(type, known->shape());
        convert_slope(known->data(), known->type(), plan->slope.data(), type, known->num_elements());
    } else if (ctx.type(1) != type) {
        plan->convert_at_run_time = true;
        plan->scratch_bytes = static_cast<size_t>(checked_num_elements(ctx.shape(1).dims())) * element_size(type);
    }
    plan->in_place.push_back({0, 0});  // each element is read before it is written
    plan->method = "eltwise";
    return plan;
}

void compute(KernelContext& ctx) {
    const PReluPlan& plan = ctx.plan<PReluPlan>();
    const Tensor& data = ctx.input(0);
    const void* slope = plan.slope.valid() ? plan.slope.data() : ctx.input(1).data();
    if (plan.convert_at_run_time) {
        convert_slope(ctx.input(1).data(), ctx.input(1).type(), ctx.scratch(), data.type(), ctx.input(1).num_elements());
        slope = ctx.scratch();
    }
    run_binary_buffers<kFloatTypes, IntegerMath::Native>(
        ctx, data.type(), data.data(), slope, ctx.output(0),
        [](auto x, auto k) {
            using C = typename decltype(x)::Scalar;
            return (x < C(0)).select(x * k, x);
        },
        plan.broadcast);
}

}  // namespace

OpDef make_prelu_op() {
    OpDef d;
    d.type = "PReLU";
    d.version = 1;
    d.input_roles = {"data", "slope"};
    d.min_inputs = 2;
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace irlite
