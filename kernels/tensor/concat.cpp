// Concat-1 (opset1+): joins tensors along one axis.
// Inputs: 1 or more, 'data0', 'data1', ... (any type, all the same type and rank >= 1; dims equal
// except along the axis, where they add up; empty inputs are allowed).
// Attribute axis (required; negative counts from the end, in [-r, r-1]).
// Kernel: for each index of the outer dims, one memcpy per input of its contiguous chunk.
#include <cstring>

#include "engine/op.hpp"
#include "kernels/detail/parallel.hpp"

namespace irlite {
namespace {

struct ConcatAttrs : OpAttrs {
    int64_t axis = 0;
};

std::vector<OutputInfo> infer(const InferContext& ctx) {
    const ElementType type = ctx.type(0);
    const int64_t axis_attr = ctx.attrs<ConcatAttrs>().axis;
    int64_t rank = -1;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
        if (ctx.type(i) != type)
            throw ctx.input_error(i, ErrorKind::Type, "type-mismatch",
                                  str("every input must have the type of input 0 (", to_string(type), "), got ",
                                      to_string(ctx.type(i))));
        const PartialShape& s = ctx.shape(i);
        if (!s.rank_known()) continue;
        if (s.rank() == 0)
            throw ctx.input_error(i, ErrorKind::ShapeRule, "rank-invalid", "inputs must have rank >= 1, got a scalar");
        if (rank < 0) rank = static_cast<int64_t>(s.rank());
        else if (static_cast<int64_t>(s.rank()) != rank)
            throw ctx.input_error(i, ErrorKind::ShapeRule, "rank-mismatch",
                                  str("every input must have the same rank; got ", to_string(s), " after rank ", rank));
    }
    if (rank < 0) return {{type, PartialShape::dynamic_rank()}};
    int64_t axis = 0;
    try {
        axis = normalize_axis(axis_attr, rank);
    } catch (const Error& e) {
        throw Error(ErrorKind::Attribute, "axis-out-of-range", str("attribute 'axis': ", e.message()));
    }
    std::vector<int64_t> dims(static_cast<size_t>(rank), kDynamic);
    int64_t axis_sum = 0;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
        const PartialShape& s = ctx.shape(i);
        if (!s.rank_known()) {
            axis_sum = kDynamic;
            continue;
        }
        for (size_t d = 0; d < dims.size(); ++d) {
            if (static_cast<int64_t>(d) == axis) continue;
            if (s[d] == kDynamic) continue;
            if (dims[d] != kDynamic && dims[d] != s[d])
                throw ctx.input_error(i, ErrorKind::ShapeRule, "dims-mismatch",
                                      str("input ", i, " ", to_string(s), " differs from the other inputs in dim ", d,
                                          " (", s[d], " vs ", dims[d], "); only the axis dim ", axis, " may differ"));
            dims[d] = s[d];
        }
        const int64_t a = s[static_cast<size_t>(axis)];
        axis_sum = (axis_sum == kDynamic || a == kDynamic) ? kDynamic : axis_sum + a;
    }
    dims[static_cast<size_t>(axis)] = axis_sum;
    return {{type, PartialShape(dims)}};
}

// Per outer index (the dims before the axis), each input contributes one contiguous chunk.
struct ConcatPlan : OpPlan {
    int64_t outer = 1;
    std::vector<size_t> chunk;  // bytes per outer index, per input
};

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    const Shape out = infer(ctx)[0].shape.to_shape();
    const auto axis = static_cast<size_t>(normalize_axis(ctx.attrs<ConcatAttrs>().axis, static_cast<int64_t>(out.size())));
    auto plan = std::make_unique<ConcatPlan>();
    for (size_t d = 0; d < axis; ++d) plan->outer *= out[d];
    size_t at = 0;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
        const size_t bytes = checked_byte_size(ctx.shape(i).to_shape(), element_size(ctx.type(i)));
        plan->chunk.push_back(plan->outer == 0 ? 0 : bytes / static_cast<size_t>(plan->outer));
        // One block per input: its producer may write it in place (OpPlan::input_slices).
        if (plan->outer == 1) plan->input_slices.push_back({static_cast<int>(i), 0, at});
        at += bytes;
    }
    plan->method = "copy";
    return plan;
}

void compute(KernelContext& ctx) {
    const ConcatPlan& plan = ctx.plan<ConcatPlan>();
    std::byte* out = ctx.output(0).bytes();
    size_t slab = 0;  // output bytes per outer index
    for (size_t i = 0; i < ctx.num_inputs(); ++i) slab += plan.chunk[i];
    if (plan.outer == 1) {
        for (size_t i = 0, at = 0; i < ctx.num_inputs(); at += plan.chunk[i], ++i)
            detail::parallel_memcpy(ctx.pool(), out + at, ctx.input(i).bytes(), plan.chunk[i]);
        return;
    }
    const int64_t grain = std::max<int64_t>(1, detail::kCopyGrainBytes / std::max<int64_t>(static_cast<int64_t>(slab), 1));
    detail::for_chunks(ctx.pool(), plan.outer, grain, [&](int64_t begin, int64_t end) {
        std::byte* dst = out + static_cast<size_t>(begin) * slab;
        for (int64_t o = begin; o < end; ++o) {
            for (size_t i = 0; i < ctx.num_inputs(); ++i) {
                const size_t chunk = plan.chunk[i];
                if (!chunk) continue;
                std::memcpy(dst, ctx.input(i).bytes() + static_cast<size_t>(o) * chunk, chunk);
                dst += chunk;
            }
        }
    });
}

}  // namespace

OpDef make_concat_op() {
    OpDef d;
    d.type = "Concat";
    d.version = 1;
    d.input_roles = {"data"};  // data0, data1, ... (see OpDef::input_role)
    d.variadic_inputs = true;
    d.min_inputs = 1;
    d.parse_attrs = [](const AttrReader& r) -> std::unique_ptr<OpAttrs> {
        auto a = std::make_unique<ConcatAttrs>();
        a->axis = r.get_i64("axis");
        return a;
    };
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    d.passes_levels = true;  // its output's elements are its inputs' (u8 levels concatenate as they are)
    return d;
}

}  // namespace irlite
