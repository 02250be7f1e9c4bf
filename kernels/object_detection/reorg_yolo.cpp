// ReorgYolo-1 (in opset2..opset16; old IR files write it as opset1, looked up in opset2 as
// OpenVINO does): YOLOv2's "reorg" layer, a fixed permutation of the elements.
// Input 0 'data' of any type and shape [N, C, H, W]; output [N, C*s*s, H/s, W/s] of the same type.
// Attribute stride s (required, >= 1). OpenVINO keeps it as a list and writes "2" or "2,2": every
// value must be the same. H and W must be divisible by s, and C by s*s: OpenVINO's shape rule
// asks only C >= s*s, but for a C that s*s does not divide its kernel reads some elements twice
// and others never (not a permutation), so irlite refuses it.
// Semantics (Darknet's reorg, as OpenVINO's reference kernel computes it): with C2 = C / (s*s),
// the input is read as if its shape were [N, C2, H*s, W*s] and the output as if it were
// [N, C, H, W] (both are flat arrays of the same size):
//   out[n][c][h][w] = in'[n][c % C2][h*s + (c / C2) / s][w*s + (c / C2) % s].
// That is one strided view of the input, in the output's order [N, s, s, C2, H, W], so the kernel
// is one prepared byte copy (every element type), split across the thread pool.
#include <algorithm>

#include "engine/op.hpp"
#include "kernels/detail/strided_copy.hpp"

namespace irlite {
namespace {

struct ReorgYoloAttrs : OpAttrs {
    int64_t stride = 1;
};

std::unique_ptr<OpAttrs> parse(const AttrReader& r) {
    auto a = std::make_unique<ReorgYoloAttrs>();
    const std::vector<int64_t> strides = r.get_i64_list("stride");
    if (strides.empty())
        throw Error(ErrorKind::Attribute, "attribute-invalid", "attribute 'stride' is empty: it must hold a positive integer");
    for (int64_t s : strides) {
        if (s < 1)
            throw Error(ErrorKind::Attribute, "attribute-invalid",
                        str("attribute 'stride' = \"", r.get_string("stride"), "\": the stride must be >= 1"));
        if (s != strides[0])
            throw Error(ErrorKind::Attribute, "attribute-invalid",
                        str("attribute 'stride' = \"", r.get_string("stride"), "\": every spatial stride must be the same"));
    }
    a->stride = strides[0];
    return a;
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    const PartialShape& data = ctx.shape(0);
    if (!data.rank_known()) return {{ctx.type(0), PartialShape::all_dynamic(4)}};
    if (data.rank() != 4)
        throw ctx.input_error(0, ErrorKind::ShapeRule, "rank-invalid",
                              str("data must have rank 4 ([N, C, H, W]), got shape ", to_string(data)));
    const int64_t s = ctx.attrs<ReorgYoloAttrs>().stride;
    int64_t s2 = 0;
    if (__builtin_mul_overflow(s, s, &s2))
        throw ctx.input_error(0, ErrorKind::Limit, "size-overflow", str("stride ", s, " squared overflows int64"));
    std::vector<int64_t> dims = data.dims();
    if (dims[1] != kDynamic) {
        if (dims[1] < s2 || dims[1] % s2 != 0)
            throw ctx.input_error(0, ErrorKind::ShapeRule, "shape-invalid",
                                  str("channels ", dims[1], " must be a multiple of stride*stride = ", s2, " (stride ", s, ")",
                                      dims[1] < s2 ? "" : "; OpenVINO's kernel is not a permutation otherwise"));
        if (__builtin_mul_overflow(dims[1], s2, &dims[1]))
            throw ctx.input_error(0, ErrorKind::Limit, "shape-overflow", "the output channel dim overflows int64");
    }
    for (size_t d = 2; d < 4; ++d) {
        if (dims[d] == kDynamic) continue;
        if (dims[d] % s != 0)
            throw ctx.input_error(0, ErrorKind::ShapeRule, "shape-invalid",
                                  str(d == 2 ? "height " : "width ", dims[d], " (dim ", d, ") is not divisible by stride ", s));
        dims[d] /= s;
    }
    return {{ctx.type(0), PartialShape(dims)}};
}

struct ReorgYoloPlan : OpPlan {
    detail::CopyPlan copy;
};

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    const Shape in = ctx.shape(0).dims();
    const int64_t s = ctx.attrs<ReorgYoloAttrs>().stride;
    const auto elem = static_cast<int64_t>(element_size(ctx.type(0)));
    const int64_t c2 = in[1] / (s * s), h = in[2], w = in[3];
    // Output order [N, s, s, C2, H, W]; element strides of the input read as [N, C2, H*s, W*s].
    const Shape view{in[0], s, s, c2, h, w};
    std::vector<int64_t> bytes{in[1] * h * w, w * s, 1, h * w * s * s, s * s * w, s};
    for (int64_t& b : bytes) b *= elem;
    auto plan = std::make_unique<ReorgYoloPlan>();
    plan->copy = detail::plan_view_copy(checked_byte_size(in, static_cast<size_t>(elem)), 0, view, bytes,
                                        static_cast<size_t>(elem));
    plan->method = "strided-copy";
    return plan;
}

void compute(KernelContext& ctx) {
    const auto& plan = ctx.plan<ReorgYoloPlan>();
    Tensor& out = ctx.output(0);
    IRLITE_CHECK(static_cast<int64_t>(out.byte_size()) == plan.copy.total_bytes(), ErrorKind::ShapeRule,
                 "kernel-output-mismatch", "output shape ", to_string(out.shape()), " disagrees with the plan");
    detail::run_copy(plan.copy, ctx.input(0).data(), out.data(), ctx.pool());
}

}  // namespace

OpDef make_reorg_yolo_op() {
    OpDef d;
    d.type = "ReorgYolo";
    d.version = 1;
    d.first_opset = 2;
    d.last_opset = kLatestOpset;
    d.input_roles = {"data"};
    d.min_inputs = 1;
    d.parse_attrs = parse;
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace irlite
