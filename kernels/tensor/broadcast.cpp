// Broadcast-1 (opset1..opset2) and Broadcast-3 (opset3+): replicates a tensor to a target shape.
// Inputs: 0 'data' (any type), 1 'target_shape' (1-D, any integer type; a value input),
//   2 'axes_mapping' (1-D, any integer type; a value input; explicit mode only).
// Attribute mode: numpy (default), explicit, bidirectional (v3 only); Broadcast-1's pdpd is rejected
// as unsupported.
//   numpy: data's dims align right with target_shape; each must equal the target dim or be 1.
//   bidirectional: numpy broadcasting of data's shape and target_shape (either side may be 1).
//   explicit: data dim i goes to output dim axes_mapping[i] (increasing, in [0, len(target)-1]) and
//     must equal that target dim or be 1; the other output dims replicate.
// Kernel: one byte-level view copy with stride 0 along replicated dims.
#include <algorithm>

#include "engine/op.hpp"
#include "engine/tensor_size.hpp"
#include "kernels/detail/index_values.hpp"
#include "kernels/detail/strided_copy.hpp"

namespace irlite {
namespace {

enum class Mode { Numpy, Explicit, Bidirectional };

struct BroadcastAttrs : OpAttrs {
    Mode mode = Mode::Numpy;
};

// For each output dim, the data dim it reads (or -1 when it only replicates).
std::vector<int64_t> data_dim_of_output(const InferContext& ctx, size_t data_rank, size_t out_rank) {
    std::vector<int64_t> src(out_rank, -1);
    if (ctx.attrs<BroadcastAttrs>().mode != Mode::Explicit) {
        for (size_t i = 0; i < data_rank; ++i) src[out_rank - data_rank + i] = static_cast<int64_t>(i);
        return src;
    }
    const std::vector<int64_t> mapping = detail::read_index_values(ctx, 2);
    if (mapping.size() != data_rank)
        throw ctx.input_error(2, ErrorKind::ShapeRule, "axes-mapping-invalid",
                              str("axes_mapping has ", mapping.size(), " values but data ", to_string(ctx.shape(0)),
                                  " has rank ", data_rank));
    for (size_t i = 0; i < mapping.size(); ++i) {
        const int64_t a = mapping[i];
        if (a < 0 || a >= static_cast<int64_t>(out_rank))
            throw ctx.input_error(2, ErrorKind::Value, "value-out-of-range",
                                  str("axes_mapping[", i, "] = ", a, ": ",
                                      detail::value_range_message(a, 0, static_cast<int64_t>(out_rank) - 1)));
        if (i > 0 && a <= mapping[i - 1])
            throw ctx.input_error(2, ErrorKind::Value, "axes-mapping-invalid",
                                  str("axes_mapping must be strictly increasing, got ", mapping[i - 1], " then ", a));
        src[static_cast<size_t>(a)] = static_cast<int64_t>(i);
    }
    return src;
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    const Mode mode = ctx.attrs<BroadcastAttrs>().mode;
    const ElementType type = ctx.type(0);
    detail::require_index_type(ctx, 1, detail::IndexTypes::AnyInteger);
    const PartialShape& data = ctx.shape(0);
    const PartialShape& target_shape = ctx.shape(1);
    if (target_shape.rank_known() && target_shape.rank() != 1)
        throw ctx.input_error(1, ErrorKind::ShapeRule, "rank-invalid",
                              str("target_shape must be 1-D, got shape ", to_string(target_shape)));
    if (mode == Mode::Explicit) {
        if (ctx.num_inputs() < 3)
            throw ctx.input_error(2, ErrorKind::Graph, "input-missing", "mode explicit needs the axes_mapping input");
        detail::require_index_type(ctx, 2, detail::IndexTypes::AnyInteger);
    }
    if (!ctx.value(1) || !data.rank_known() || (mode == Mode::Explicit && !ctx.value(2))) {
        if (!target_shape.rank_known() || target_shape[0] == kDynamic) return {{type, PartialShape::dynamic_rank()}};
        size_t rank = static_cast<size_t>(target_shape[0]);
        if (mode == Mode::Bidirectional) {
            if (!data.rank_known()) return {{type, PartialShape::dynamic_rank()}};
            rank = std::max(rank, data.rank());
        }
        return {{type, PartialShape::all_dynamic(rank)}};
    }
    const std::vector<int64_t> target = detail::read_index_values(ctx, 1);
    for (size_t i = 0; i < target.size(); ++i)
        if (target[i] < 0)
            throw ctx.input_error(1, ErrorKind::Value, "value-out-of-range",
                                  str("target_shape[", i, "] = ", target[i], " is negative"));
    const size_t out_rank = mode == Mode::Bidirectional ? std::max(target.size(), data.rank()) : target.size();
    if (data.rank() > out_rank)
        throw ctx.input_error(1, ErrorKind::ShapeRule, "broadcast-incompatible",
                              str("cannot broadcast data ", to_string(data), " to the lower-rank target ",
                                  to_string(Shape(target))));
    std::vector<int64_t> dims(out_rank, 1);
    std::copy(target.begin(), target.end(), dims.end() - static_cast<std::ptrdiff_t>(target.size()));
    const std::vector<int64_t> src = data_dim_of_output(ctx, data.rank(), out_rank);
    for (size_t o = 0; o < out_rank; ++o) {
        if (src[o] < 0) continue;
        const int64_t d = data[static_cast<size_t>(src[o])];
        if (d == 1) continue;
        if (mode == Mode::Bidirectional && dims[o] == 1) {
            dims[o] = d;
            continue;
        }
        if (d == kDynamic || d == dims[o]) continue;
        throw ctx.input_error(1, ErrorKind::ShapeRule, "broadcast-incompatible",
                              str("cannot broadcast data ", to_string(data), " to ", to_string(Shape(target)),
                                  " (mode ", mode == Mode::Numpy ? "numpy" : mode == Mode::Explicit ? "explicit" : "bidirectional",
                                  "): data dim ", src[o], " = ", d, " vs target dim ", o, " = ", dims[o]));
    }
    return {{type, PartialShape(dims)}};
}

// The copy planned once: the output as a view of the data, stride 0 along every broadcast dim.
struct BroadcastPlan : OpPlan {
    detail::CopyPlan copy;
};

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    const Shape data = ctx.shape(0).to_shape();
    const Shape out = infer(ctx)[0].shape.to_shape();
    const std::vector<int64_t> src = data_dim_of_output(ctx, data.size(), out.size());
    const std::vector<int64_t> strides = row_major_strides(data);
    const size_t elem = element_size(ctx.type(0));
    std::vector<int64_t> byte_strides(out.size(), 0);
    for (size_t o = 0; o < out.size(); ++o)
        if (src[o] >= 0 && data[static_cast<size_t>(src[o])] != 1)
            byte_strides[o] = strides[static_cast<size_t>(src[o])] * static_cast<int64_t>(elem);
    auto plan = std::make_unique<BroadcastPlan>();
    plan->copy = detail::plan_view_copy(tensor_storage_bytes(ctx.type(0), data), 0, out, byte_strides, elem);
    plan->method = "view-copy";
    return plan;
}

void compute(KernelContext& ctx) {
    detail::run_copy(ctx.plan<BroadcastPlan>().copy, ctx.input(0).data(), ctx.output(0).data(), ctx.pool());
}

OpDef make_broadcast(int version, int first_opset, int last_opset) {
    OpDef d;
    d.type = "Broadcast";
    d.version = version;
    d.first_opset = first_opset;
    d.last_opset = last_opset;
    d.input_roles = {"data", "target_shape", "axes_mapping"};
    d.min_inputs = 2;
    d.value_inputs = inputs(1, 2);
    d.parse_attrs = [version](const AttrReader& r) -> std::unique_ptr<OpAttrs> {
        auto a = std::make_unique<BroadcastAttrs>();
        const std::vector<std::string> modes = version >= 3
                                                   ? std::vector<std::string>{"numpy", "explicit", "bidirectional", "pdpd"}
                                                   : std::vector<std::string>{"numpy", "explicit", "pdpd", "none"};
        const std::string m = r.get_enum("mode", modes, "numpy");
        if (m == "pdpd")
            throw Error(ErrorKind::Unsupported, "broadcast-mode-unsupported", "attribute 'mode' = \"pdpd\" is not supported");
        a->mode = m == "explicit" || m == "none" ? Mode::Explicit : m == "bidirectional" ? Mode::Bidirectional : Mode::Numpy;
        return a;
    };
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace

OpDef make_broadcast_1_op() { return make_broadcast(1, 1, 2); }
OpDef make_broadcast_3_op() { return make_broadcast(3, 3, kLatestOpset); }

}  // namespace irlite
