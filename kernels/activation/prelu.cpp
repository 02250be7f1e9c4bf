// PRelu-1 (IR type "PReLU"; OpenVINO opset1 spec): x >= 0 ? x : slope * x.
// Inputs: 0 'data'; 1 'slope' (rank >= 1 in the spec; a scalar is accepted too). The spec asks for
// data's type, but OpenVINO accepts any floating-point slope and converts it (FP16 IR v10 from
// Model Optimizer keeps f32 slopes on f16 data): so does irlite, converting it to data's type.
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

// The slope in data's type (a copy only when they differ).
Tensor slope_as(const Tensor& slope, ElementType type) {
    if (slope.type() == type) return slope;
    Tensor out(type, slope.shape());
    dispatch_type(slope.type(), [&](auto from_tag) {
        using From = decltype(from_tag);
        dispatch_type(type, [&](auto to_tag) {
            using To = decltype(to_tag);
            const From* in = slope.data<From>();
            To* dst = out.data<To>();
            for (int64_t i = 0; i < slope.num_elements(); ++i) {
                const double v = to_compute<double>(in[i]);
                if constexpr (std::is_same_v<To, double>) dst[i] = v;
                else dst[i] = from_compute<To>(static_cast<float>(v));
            }
        });
    });
    return out;
}

void compute(KernelContext& ctx) {
    const Tensor& data = ctx.input(0);
    const Tensor slope = slope_as(ctx.input(1), data.type());
    const PartialShape per_channel = effective_slope_shape(PartialShape(data.shape()), PartialShape(slope.shape()));
    // Reuse the binary elementwise kernel on (data, slope seen as [C, 1, ..., 1]).
    const std::vector<Tensor> inputs{data, slope.reshaped(per_channel.to_shape())};
    std::vector<Tensor> outputs{ctx.output(0)};
    KernelContext binary(ctx.def(), ctx.attrs<OpAttrs>(), inputs, outputs, nullptr, nullptr);
    const detail::BroadcastPlan rows = detail::plan_broadcast(inputs[0].shape(), inputs[1].shape(), outputs[0].shape());
    run_binary<kFloatTypes, IntegerMath::Native>(binary, [](auto x, auto k) {
        using C = typename decltype(x)::Scalar;
        return (x < C(0)).select(x * k, x);
    }, rows);
}

}  // namespace

OpDef make_prelu_op() {
    OpDef d;
    d.type = "PReLU";
    d.version = 1;
    d.input_roles = {"data", "slope"};
    d.min_inputs = 2;
    d.infer = infer;
    d.compute = compute;
    return d;
}

}  // namespace irlite
