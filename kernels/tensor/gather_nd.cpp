// GatherND-5 (opset5..7) and GatherND-8 (opset8+): slices of data picked by index tuples.
// Inputs: 0 'data' (any type, rank r >= 1), 1 'indices' (i32 or i64, rank q >= 1). Attribute
// batch_dims b (default 0, b < min(r, q); the first b dims of data and indices are equal).
// Each row of indices' last dim (length k <= r - b) is a tuple (i0 .. ik-1) into the data of its
// batch, selecting data[batch..., i0, ..., ik-1, ...]: an element (k = r - b) or a slice of shape
// data.shape[b+k:]. A coordinate must be in [-d, d-1] for its dim d (negatives count from the end).
// Output shape: indices.shape[:-1] + data.shape[b+k:] for GatherND-8; GatherND-5 merges the batch
// dims into one: [prod(indices.shape[:b])] + indices.shape[b:-1] + data.shape[b+k:] (when b > 0).
// The kernel moves bytes: every element type.
#include <cstring>

#include "engine/op.hpp"
#include "kernels/detail/index_values.hpp"

namespace irlite {
namespace {

constexpr size_t kData = 0, kIndices = 1;

struct GatherNdAttrs : OpAttrs {
    int64_t batch_dims = 0;
};

std::unique_ptr<OpAttrs> parse(const AttrReader& r) {
    auto a = std::make_unique<GatherNdAttrs>();
    a->batch_dims = r.get_i64("batch_dims", 0);
    if (a->batch_dims < 0)
        throw Error(ErrorKind::Attribute, "attribute-invalid", str("attribute 'batch_dims' = ", a->batch_dims, ": must be >= 0"));
    return a;
}

std::vector<OutputInfo> infer_version(const InferContext& ctx, bool merge_batch) {
    detail::require_index_type(ctx, kIndices, detail::IndexTypes::I32OrI64);
    const PartialShape& data = ctx.shape(kData);
    const PartialShape& indices = ctx.shape(kIndices);
    const auto b = static_cast<size_t>(ctx.attrs<GatherNdAttrs>().batch_dims);
    if (data.rank_known() && data.rank() == 0)
        throw ctx.input_error(kData, ErrorKind::ShapeRule, "rank-invalid", "data must have rank >= 1, got a scalar");
    if (indices.rank_known() && indices.rank() == 0)
        throw ctx.input_error(kIndices, ErrorKind::ShapeRule, "rank-invalid", "indices must have rank >= 1, got a scalar");
    if (!data.rank_known() || !indices.rank_known()) return {{ctx.type(kData), PartialShape::dynamic_rank()}};
    const size_t r = data.rank(), q = indices.rank();
    if (b >= std::min(r, q))
        throw ctx.input_error(kIndices, ErrorKind::Attribute, "batch-dims-invalid",
                              str("batch_dims = ", b, " must be less than both ranks (data ", r, ", indices ", q, ")"));
    for (size_t d = 0; d < b; ++d)
        if (!dims_compatible(data[d], indices[d]))
            throw ctx.input_error(kIndices, ErrorKind::ShapeRule, "batch-dims-mismatch",
                                  str("batch dim ", d, ": indices has ", indices[d], ", data has ", data[d],
                                      " (the first batch_dims dims must be equal)"));
    const int64_t k = indices[q - 1];
    if (k == kDynamic) return {{ctx.type(kData), PartialShape::dynamic_rank()}};
    if (k > static_cast<int64_t>(r - b))
        throw ctx.input_error(kIndices, ErrorKind::ShapeRule, "indices-last-dim",
                              str("indices.shape[-1] = ", k, " exceeds data rank ", r, b ? str(" minus batch_dims ", b) : "",
                                  " (indices shape ", to_string(indices), ", data shape ", to_string(data), ")"));
    std::vector<int64_t> dims;
    if (merge_batch && b > 0) {
        int64_t batch = 1;
        for (size_t d = 0; d < b; ++d) {
            const int64_t n = indices[d] != kDynamic ? indices[d] : data[d];
            batch = n == kDynamic || batch == kDynamic ? kDynamic : batch * n;
        }
        dims.push_back(batch);
        dims.insert(dims.end(), indices.dims().begin() + static_cast<std::ptrdiff_t>(b), indices.dims().end() - 1);
    } else {
        dims.assign(indices.dims().begin(), indices.dims().end() - 1);
        for (size_t d = 0; d < b; ++d)
            if (dims[d] == kDynamic) dims[d] = data[d];
    }
    dims.insert(dims.end(), data.dims().begin() + static_cast<std::ptrdiff_t>(b) + k, data.dims().end());
    return {{ctx.type(kData), PartialShape(dims)}};
}

std::vector<OutputInfo> infer_5(const InferContext& ctx) { return infer_version(ctx, true); }
std::vector<OutputInfo> infer_8(const InferContext& ctx) { return infer_version(ctx, false); }

struct GatherNdPlan : OpPlan {
    int64_t batches = 1, tuples = 0, k = 0;
    size_t slice_bytes = 0, batch_bytes = 0;
    std::vector<int64_t> dims;           // data dims b .. b+k-1
    std::vector<size_t> strides;         // their byte strides in data
};

std::unique_ptr<OpPlan> prepare_version(const InferContext& ctx, bool merge_batch) {
    infer_version(ctx, merge_batch);
    const Shape& data = ctx.shape(kData).dims();
    const Shape& indices = ctx.shape(kIndices).dims();
    const auto b = static_cast<size_t>(ctx.attrs<GatherNdAttrs>().batch_dims);
    auto plan = std::make_unique<GatherNdPlan>();
    plan->k = indices.back();
    for (size_t d = 0; d < b; ++d) plan->batches *= data[d];
    plan->tuples = 1;
    for (size_t d = b; d + 1 < indices.size(); ++d) plan->tuples *= indices[d];
    size_t slice = element_size(ctx.type(kData));
    for (size_t d = b + static_cast<size_t>(plan->k); d < data.size(); ++d) slice *= static_cast<size_t>(data[d]);
    plan->slice_bytes = slice;
    size_t stride = slice;
    plan->dims.assign(data.begin() + static_cast<std::ptrdiff_t>(b), data.begin() + static_cast<std::ptrdiff_t>(b) + plan->k);
    plan->strides.resize(plan->dims.size());
    for (size_t j = plan->dims.size(); j-- > 0;) {
        plan->strides[j] = stride;
        stride *= static_cast<size_t>(plan->dims[j]);
    }
    plan->batch_bytes = stride;
    plan->method = "gather";
    return plan;
}

template <class I>
void gather(const KernelContext& ctx, const GatherNdPlan& plan, const Tensor& indices, const std::byte* src, std::byte* dst) {
    const I* idx = indices.data<I>();
    const auto k = static_cast<size_t>(plan.k);
    for (int64_t bi = 0; bi < plan.batches; ++bi)
        for (int64_t t = 0; t < plan.tuples; ++t) {
            const int64_t row = bi * plan.tuples + t;
            size_t offset = static_cast<size_t>(bi) * plan.batch_bytes;
            for (size_t j = 0; j < k; ++j) {
                const int64_t position = row * static_cast<int64_t>(k) + static_cast<int64_t>(j);
                int64_t c = idx[position];
                const int64_t dim = plan.dims[j];
                if (c < -dim || c >= dim)
                    throw ctx.input_error(kIndices, ErrorKind::Value, "index-out-of-range",
                                          detail::index_out_of_range_message("indices", indices.shape(), position, c,
                                                                             static_cast<int64_t>(j) + ctx.attrs<GatherNdAttrs>().batch_dims, dim));
                if (c < 0) c += dim;
                offset += static_cast<size_t>(c) * plan.strides[j];
            }
            std::memcpy(dst + static_cast<size_t>(row) * plan.slice_bytes, src + offset, plan.slice_bytes);
        }
}

void compute(KernelContext& ctx) {
    const auto& plan = ctx.plan<GatherNdPlan>();
    const Tensor& data = ctx.input(kData);
    const Tensor& indices = ctx.input(kIndices);
    Tensor& out = ctx.output(0);
    IRLITE_CHECK(out.byte_size() == static_cast<size_t>(plan.batches * plan.tuples) * plan.slice_bytes, ErrorKind::ShapeRule,
                 "kernel-output-mismatch", "output disagrees with the plan");
    if (out.byte_size() == 0) return;
    if (indices.type() == ElementType::i32) gather<int32_t>(ctx, plan, indices, data.bytes(), out.bytes());
    else gather<int64_t>(ctx, plan, indices, data.bytes(), out.bytes());
}

OpDef make_def(int version, int first, int last) {
    OpDef d;
    d.type = "GatherND";
    d.version = version;
    d.first_opset = first;
    d.last_opset = last;
    d.input_roles = {"data", "indices"};
    d.min_inputs = 2;
    d.parse_attrs = parse;
    d.infer = version == 5 ? infer_5 : infer_8;
    if (version == 5) d.prepare = [](const InferContext& ctx) { return prepare_version(ctx, true); };
    else d.prepare = [](const InferContext& ctx) { return prepare_version(ctx, false); };
    d.compute = compute;
    return d;
}

}  // namespace

OpDef make_gather_nd_5_op() { return make_def(5, 5, 7); }
OpDef make_gather_nd_8_op() { return make_def(8, 8, kLatestOpset); }

}  // namespace irlite
