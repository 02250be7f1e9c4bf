// Transpose-1 (opset1+): permutes the dims of a tensor.
// Inputs: 0 'data' (any type), 1 'order' (1-D, any integer type; a value input): output dim i is
// input dim order[i]. order must be a permutation of [0, r-1]; an empty order reverses the dims.
// Output: data.shape permuted. When the permutation only moves dims of size 1 the executor makes the
// output a view of the input (no copy); otherwise one byte-level strided copy, any element type.
#include <numeric>

#include "engine/op.hpp"
#include "kernels/detail/parallel.hpp"
#include "kernels/detail/index_values.hpp"
#include "kernels/detail/strided_copy.hpp"

namespace irlite {
namespace {

// The permutation for a data tensor of `rank`, validated.
std::vector<int64_t> permutation(const InferContext& ctx, size_t rank) {
    std::vector<int64_t> order = detail::read_index_values(ctx, 1);
    if (order.empty()) {
        order.resize(rank);
        for (size_t i = 0; i < rank; ++i) order[i] = static_cast<int64_t>(rank - 1 - i);
        return order;
    }
    if (order.size() != rank)
        throw ctx.input_error(1, ErrorKind::ShapeRule, "order-invalid",
                              str("order has ", order.size(), " values but data ", to_string(ctx.shape(0)),
                                  " has rank ", rank));
    std::vector<bool> seen(rank, false);
    for (size_t i = 0; i < rank; ++i) {
        const int64_t v = order[i];
        if (v < 0 || v >= static_cast<int64_t>(rank))
            throw ctx.input_error(1, ErrorKind::Value, "value-out-of-range",
                                  str("order[", i, "] = ", v, ": ",
                                      detail::value_range_message(v, 0, static_cast<int64_t>(rank) - 1)));
        if (seen[static_cast<size_t>(v)])
            throw ctx.input_error(1, ErrorKind::Value, "order-invalid",
                                  str("order[", i, "] = ", v, " repeats an axis; order must be a permutation of [0, ",
                                      rank - 1, "]"));
        seen[static_cast<size_t>(v)] = true;
    }
    return order;
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    detail::require_index_type(ctx, 1, detail::IndexTypes::AnyInteger);
    const PartialShape& in = ctx.shape(0);
    const PartialShape& order_shape = ctx.shape(1);
    if (order_shape.rank_known() && order_shape.rank() != 1)
        throw ctx.input_error(1, ErrorKind::ShapeRule, "rank-invalid",
                              str("order must be 1-D, got shape ", to_string(order_shape)));
    if (!in.rank_known()) return {{ctx.type(0), PartialShape::dynamic_rank()}};
    if (!ctx.value(1)) return {{ctx.type(0), PartialShape::all_dynamic(in.rank())}};
    const std::vector<int64_t> order = permutation(ctx, in.rank());
    std::vector<int64_t> dims(in.rank());
    for (size_t i = 0; i < dims.size(); ++i) dims[i] = in[static_cast<size_t>(order[i])];
    return {{ctx.type(0), PartialShape(dims)}};
}

// True when the dims larger than 1 keep their relative order: the bytes do not move.
bool is_pure_reshape(const Shape& in, const std::vector<int64_t>& order) {
    int64_t last = -1;
    for (int64_t axis : order) {
        if (in[static_cast<size_t>(axis)] == 1) continue;
        if (axis < last) return false;
        last = axis;
    }
    return true;
}

// The copy, planned once; a permutation that moves only dims of size 1 moves no bytes: a view.
struct TransposePlan : OpPlan {
    detail::CopyPlan copy;
};

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    const Shape in = ctx.shape(0).to_shape();
    const std::vector<int64_t> order = permutation(ctx, in.size());
    Shape out_shape(in.size());
    for (size_t i = 0; i < out_shape.size(); ++i) out_shape[i] = in[static_cast<size_t>(order[i])];
    const std::vector<int64_t> in_strides = row_major_strides(in);
    const size_t elem = element_size(ctx.type(0));
    std::vector<int64_t> byte_strides(in.size());
    for (size_t i = 0; i < byte_strides.size(); ++i)
        byte_strides[i] = in_strides[static_cast<size_t>(order[i])] * static_cast<int64_t>(elem);
    auto plan = std::make_unique<TransposePlan>();
    plan->copy = detail::plan_view_copy(checked_byte_size(in, elem), 0, out_shape, byte_strides, elem);
    plan->method = "strided-copy";
    if (is_pure_reshape(in, order)) {
        plan->views.push_back({0, 0, 0});
        plan->method = "view";
    }
    return plan;
}

void compute(KernelContext& ctx) {
    const TransposePlan& plan = ctx.plan<TransposePlan>();
    const Tensor& in = ctx.input(0);
    Tensor& out = ctx.output(0);
    IRLITE_CHECK(static_cast<int64_t>(out.byte_size()) == plan.copy.total_bytes(), ErrorKind::ShapeRule,
                 "kernel-output-mismatch", "output shape ", to_string(out.shape()), " disagrees with the transpose");
    if (out.data() != in.data()) detail::run_copy(plan.copy, in.data(), out.data(), ctx.pool());
}

}  // namespace

OpDef make_transpose_op() {
    OpDef d;
    d.type = "Transpose";
    d.version = 1;
    d.input_roles = {"data", "order"};
    d.min_inputs = 2;
    d.value_inputs = inputs(1);
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace irlite
