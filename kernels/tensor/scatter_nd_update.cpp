// ScatterNDUpdate-3 (opset3..14) and ScatterNDUpdate-15 (opset15+): a copy of data in which the
// elements or slices picked by index tuples are replaced by (or, in v15, reduced with) updates.
// Inputs: 0 'data' (any type, rank r >= 1); 1 'indices' (i32 or i64, rank q >= 1, with
// k = indices.shape[-1] <= r); 2 'updates' (data's type, shape indices.shape[:-1] + data.shape[k:];
// where that is rank 0, any one-element tensor).
// Attribute (v15 only): reduction = none (default) | sum | sub | prod | min | max; on boolean
// data sum/max = OR, prod/min = AND, sub = XOR; integers wrap.
// Each row of indices' last dim is a tuple (i0 .. ik-1) selecting data[i0, .., ik-1, ...], an
// element (k = r) or a slice of shape data.shape[k:] (k = 0: the whole tensor). Every coordinate
// must be in [-d, d-1] for its own dim d (negatives count from the end); anything else is an
// error naming the position in indices. Tuples apply in row-major order of indices, so with
// duplicate tuples the last update wins (with a reduction they accumulate in that order).
// Types: data all.
#include <cstring>

#include "engine/op.hpp"
#include "kernels/detail/eltwise.hpp"
#include "kernels/detail/index_values.hpp"
#include "kernels/detail/parallel.hpp"

namespace irlite {
namespace {

constexpr size_t kData = 0, kIndices = 1, kUpdates = 2;

enum class Reduction { None, Sum, Sub, Prod, Min, Max };

struct ScatterAttrs : OpAttrs {
    Reduction reduction = Reduction::None;
};

std::unique_ptr<OpAttrs> parse_v3(const AttrReader&) { return std::make_unique<ScatterAttrs>(); }

std::unique_ptr<OpAttrs> parse_v15(const AttrReader& r) {
    auto a = std::make_unique<ScatterAttrs>();
    const std::string v = r.get_enum("reduction", {"none", "sum", "sub", "prod", "min", "max"}, "none");
    const std::pair<const char*, Reduction> table[] = {{"none", Reduction::None}, {"sum", Reduction::Sum},
                                                       {"sub", Reduction::Sub},   {"prod", Reduction::Prod},
                                                       {"min", Reduction::Min},   {"max", Reduction::Max}};
    for (const auto& [name, value] : table)
        if (v == name) a->reduction = value;
    return a;
}

std::string dims_text(const std::vector<int64_t>& dims, size_t from, size_t to) {
    return to_string(PartialShape(std::vector<int64_t>(dims.begin() + static_cast<std::ptrdiff_t>(from),
                                                       dims.begin() + static_cast<std::ptrdiff_t>(to))));
}

void check_updates_shape(const InferContext& ctx, const PartialShape& data, const PartialShape& indices, int64_t k) {
    const PartialShape& updates = ctx.shape(kUpdates);
    if (!updates.rank_known()) return;
    const size_t r = data.rank(), q = indices.rank(), uk = static_cast<size_t>(k);
    const size_t expected = r + q - 1 - uk;
    if (expected == 0) {
        // A one-element tensor of any rank is accepted where a scalar is expected.
        for (int64_t d : updates.dims())
            if (!dims_compatible(d, 1))
                throw ctx.input_error(
                    kUpdates, ErrorKind::ShapeRule, "updates-shape",
                    str("updates must hold one element (one scalar per index tuple), got shape ", to_string(updates)));
        return;
    }
    if (updates.rank() != expected)
        throw ctx.input_error(kUpdates, ErrorKind::ShapeRule, "updates-rank",
                              str("updates has rank ", updates.rank(), ", expected ", expected, " (data rank ", r,
                                  " + indices rank ", q, " - indices.shape[-1] ", k, " - 1)"));
    for (size_t i = 0; i + 1 < q; ++i)
        if (!dims_compatible(updates[i], indices[i]))
            throw ctx.input_error(kUpdates, ErrorKind::ShapeRule, "updates-shape",
                                  str("updates.shape[:", q - 1, "] = ", dims_text(updates.dims(), 0, q - 1),
                                      " must equal indices.shape[:-1] = ", dims_text(indices.dims(), 0, q - 1)));
    for (size_t i = 0; i < r - uk; ++i)
        if (!dims_compatible(updates[q - 1 + i], data[uk + i]))
            throw ctx.input_error(
                kUpdates, ErrorKind::ShapeRule, "updates-shape",
                str("updates.shape[", q - 1, ":] = ", dims_text(updates.dims(), q - 1, updates.rank()),
                    " must equal data.shape[", k, ":] = ", dims_text(data.dims(), uk, r)));
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    detail::require_index_type(ctx, kIndices, detail::IndexTypes::I32OrI64);
    if (ctx.type(kUpdates) != ctx.type(kData))
        throw ctx.input_error(kUpdates, ErrorKind::Type, "element-type-mismatch",
                              str("updates has element type ", to_string(ctx.type(kUpdates)), ", data has ",
                                  to_string(ctx.type(kData)), "; they must be the same"));
    const PartialShape& data = ctx.shape(kData);
    const PartialShape& indices = ctx.shape(kIndices);
    if (data.rank_known() && data.rank() == 0)
        throw ctx.input_error(kData, ErrorKind::ShapeRule, "rank-invalid", "data must have rank >= 1, got a scalar");
    if (indices.rank_known() && indices.rank() == 0)
        throw ctx.input_error(kIndices, ErrorKind::ShapeRule, "rank-invalid",
                              "indices must have rank >= 1, got a scalar");
    if (data.rank_known() && indices.rank_known() && indices.dims().back() != kDynamic) {
        const int64_t k = indices.dims().back();
        if (k > static_cast<int64_t>(data.rank()))
            throw ctx.input_error(kIndices, ErrorKind::ShapeRule, "indices-last-dim",
                                  str("indices.shape[-1] = ", k, " is more than the data rank ", data.rank(),
                                      " (indices shape ", to_string(indices), ", data shape ", to_string(data), ")"));
        check_updates_shape(ctx, data, indices, k);
        if (k > 0) detail::check_known_indices(ctx, kIndices, data, [k](int64_t position) { return position % k; });
    }
    return {{ctx.type(kData), data}};
}

// Visits the index tuples in row-major order of indices: validates each coordinate against its
// own data dim and calls apply(slice_offset, row), with the element offset of the selected slice
// of data and the tuple's row number (its updates start at row * slice size).
// The scatter planned once: k coordinates per tuple, `rows` tuples, `slice` elements per tuple,
// and the data's strides. The output may be the data input's own buffer (in place: O(updates)).
struct ScatterPlan : OpPlan {
    size_t k = 0;
    int64_t rows = 0, slice = 0;
    std::vector<int64_t> strides;  // of data, elements
};

template <class Index, class Apply>
void for_each_tuple(const KernelContext& ctx, const Tensor& indices, int64_t rows, const Shape& data_shape,
                    Apply&& apply) {
    const auto k = static_cast<size_t>(indices.shape().back());
    const std::vector<int64_t>& strides = ctx.plan<ScatterPlan>().strides;
    const Index* idx = indices.data<Index>();
    for (int64_t row = 0; row < rows; ++row) {
        int64_t offset = 0;
        for (size_t j = 0; j < k; ++j) {
            const int64_t position = row * static_cast<int64_t>(k) + static_cast<int64_t>(j);
            int64_t c = idx[position];
            const int64_t dim = data_shape[j];
            if (c < -dim || c >= dim)
                throw ctx.input_error(kIndices, ErrorKind::Value, "index-out-of-range",
                                      detail::index_out_of_range_message("indices", indices.shape(), position, c,
                                                                         static_cast<int64_t>(j), dim));
            if (c < 0) c += dim;
            offset += c * strides[j];
        }
        apply(offset, row);
    }
}

template <class T, Reduction R>
T combine(T a, T b) {
    if constexpr (std::is_same_v<T, bool>) {
        if constexpr (R == Reduction::Sum || R == Reduction::Max)
            return a || b;
        else if constexpr (R == Reduction::Prod || R == Reduction::Min)
            return a && b;
        else
            return a != b;  // Sub: XOR
    } else if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
        return detail::from_compute<T>(combine<float, R>(detail::to_compute<float>(a), detail::to_compute<float>(b)));
    } else if constexpr (R == Reduction::Min) {
        return b < a ? b : a;
    } else if constexpr (R == Reduction::Max) {
        return a < b ? b : a;
    } else if constexpr (std::is_integral_v<T>) {
        if constexpr (R == Reduction::Sum)
            return detail::wrapping_add(a, b);
        else if constexpr (R == Reduction::Sub)
            return detail::wrapping_sub(a, b);
        else
            return detail::wrapping_mul(a, b);
    } else {
        if constexpr (R == Reduction::Sum)
            return a + b;
        else if constexpr (R == Reduction::Sub)
            return a - b;
        else
            return a * b;
    }
}

template <class Index, class T, Reduction R>
void scatter_reduce(const KernelContext& ctx, const Tensor& indices, int64_t rows, const Tensor& updates, Tensor& out,
                    int64_t slice) {
    T* dst = out.data<T>();
    const T* src = updates.data<T>();
    for_each_tuple<Index>(ctx, indices, rows, out.shape(), [&](int64_t offset, int64_t row) {
        T* d = dst + offset;
        const T* u = src + row * slice;
        for (int64_t e = 0; e < slice; ++e) d[e] = combine<T, R>(d[e], u[e]);
    });
}

template <class Index>
void scatter(const KernelContext& ctx, Reduction reduction, const Tensor& indices, int64_t rows, const Tensor& updates,
             Tensor& out, int64_t slice) {
    if (reduction == Reduction::None) {
        const size_t bytes = static_cast<size_t>(slice) * element_size(out.type());
        for_each_tuple<Index>(ctx, indices, rows, out.shape(), [&](int64_t offset, int64_t row) {
            std::memcpy(out.bytes() + static_cast<size_t>(offset) * element_size(out.type()),
                        updates.bytes() + static_cast<size_t>(row) * bytes, bytes);
        });
        return;
    }
    dispatch_type(out.type(), [&](auto tag) {
        using T = decltype(tag);
        switch (reduction) {
            case Reduction::Sum:
                return scatter_reduce<Index, T, Reduction::Sum>(ctx, indices, rows, updates, out, slice);
            case Reduction::Sub:
                return scatter_reduce<Index, T, Reduction::Sub>(ctx, indices, rows, updates, out, slice);
            case Reduction::Prod:
                return scatter_reduce<Index, T, Reduction::Prod>(ctx, indices, rows, updates, out, slice);
            case Reduction::Min:
                return scatter_reduce<Index, T, Reduction::Min>(ctx, indices, rows, updates, out, slice);
            case Reduction::Max:
                return scatter_reduce<Index, T, Reduction::Max>(ctx, indices, rows, updates, out, slice);
            case Reduction::None:
                return;
        }
    });
}

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    infer(ctx);  // validates types, ranks, shapes and known index values
    const Shape data = ctx.shape(kData).to_shape();
    const Shape indices = ctx.shape(kIndices).to_shape();
    auto plan = std::make_unique<ScatterPlan>();
    plan->k = static_cast<size_t>(indices.back());
    plan->rows = checked_num_elements(Shape(indices.begin(), indices.end() - 1));
    plan->slice = checked_num_elements(Shape(data.begin() + static_cast<std::ptrdiff_t>(plan->k), data.end()));
    int64_t needed = 0;
    const int64_t updates = checked_num_elements(ctx.shape(kUpdates).to_shape());
    if (__builtin_mul_overflow(plan->rows, plan->slice, &needed) || needed != updates)
        throw ctx.input_error(kUpdates, ErrorKind::ShapeRule, "updates-shape",
                              str("updates has ", updates, " elements, expected ", plan->rows, " index tuples x ",
                                  plan->slice, " elements each"));
    plan->strides = row_major_strides(data);
    plan->in_place.push_back({0, static_cast<int>(kData)});
    plan->method = "scatter";
    return plan;
}

void compute(KernelContext& ctx) {
    const ScatterPlan& plan = ctx.plan<ScatterPlan>();
    const Tensor& data = ctx.input(kData);
    const Tensor& indices = ctx.input(kIndices);
    const Tensor& updates = ctx.input(kUpdates);
    Tensor& out = ctx.output(0);
    IRLITE_CHECK(out.byte_size() == data.byte_size() && updates.num_elements() == plan.rows * plan.slice,
                 ErrorKind::ShapeRule, "kernel-output-mismatch", "inputs and output disagree with the shape rule");
    // In place (the executor gave the output the data's buffer), only the updated slices move.
    detail::parallel_memcpy(ctx.pool(), out.data(), data.data(), data.byte_size());
    // With empty slices there is nothing to write, and without coordinates nothing to check; the
    // loop would only spin (indices of shape [huge, 0]).
    if (plan.slice == 0 && plan.k == 0) return;
    const Reduction reduction = ctx.attrs<ScatterAttrs>().reduction;
    if (indices.type() == ElementType::i32)
        scatter<int32_t>(ctx, reduction, indices, plan.rows, updates, out, plan.slice);
    else
        scatter<int64_t>(ctx, reduction, indices, plan.rows, updates, out, plan.slice);
}

OpDef make_def(int version) {
    OpDef d;
    d.type = "ScatterNDUpdate";
    d.version = version;
    d.input_roles = {"data", "indices", "updates"};
    d.min_inputs = 3;
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace

OpDef make_scatter_nd_update_op() {
    OpDef d = make_def(3);
    d.first_opset = 3;
    d.last_opset = 14;
    d.parse_attrs = parse_v3;
    return d;
}

OpDef make_scatter_nd_update_15_op() {
    OpDef d = make_def(15);
    d.first_opset = 15;
    d.parse_attrs = parse_v15;
    return d;
}

}  // namespace irlite
