// TopK-1 (opset1..2), TopK-3 (opset3..10), TopK-11 (opset11+): the k largest (mode=max) or
// smallest (mode=min) elements of every slice along `axis`, with their indices.
// Inputs: 0 'data' (any numeric type), 1 'k' (an integer scalar or one-element tensor, 0 <= k <=
// data.shape[axis]). Attributes: axis (required, in [-r, r-1]), mode = max | min, sort = value |
// index | none, index_element_type = i32 (default) | i64, stable (TopK-11, default false).
// Outputs: 0 'values' (data's type), 1 'indices' (index_element_type), both of data's shape with
// dim `axis` = k.
// Deterministic in every case: the selection is stable (equal values keep their index order, the
// lower index first, as OpenVINO's stable mode does), so `stable` changes nothing here. sort=value
// orders by value (descending for max, ascending for min); sort=index orders the chosen elements
// by ascending index; sort=none (undefined in the spec) is treated as sort=value. NaN ranks above
// every number (first with max, last with min).
// A k larger than the axis, or negative, is an error naming both.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <type_traits>

#include "kernels/detail/eltwise.hpp"
#include "kernels/detail/float_value.hpp"
#include "kernels/detail/index_values.hpp"

namespace irlite {
namespace {

using detail::load_as;

constexpr size_t kData = 0, kK = 1;

enum class Sort { Value, Index };

struct TopKAttrs : OpAttrs {
    int64_t axis = 0;
    bool largest = true;
    Sort sort = Sort::Value;
    ElementType index_type = ElementType::i32;
};

std::unique_ptr<OpAttrs> parse(const AttrReader& r, bool has_stable) {
    auto a = std::make_unique<TopKAttrs>();
    a->axis = r.get_i64("axis");
    r.get_string("mode");  // required
    a->largest = r.get_enum("mode", {"max", "min"}, "") == "max";
    r.get_string("sort");  // required
    a->sort = r.get_enum("sort", {"value", "index", "none"}, "") == "index" ? Sort::Index : Sort::Value;
    a->index_type = r.get_enum("index_element_type", {"i32", "i64"}, "i32") == "i64" ? ElementType::i64 : ElementType::i32;
    if (has_stable) r.get_bool("stable", false);  // validated; the selection is always stable
    return a;
}

// k from input 1, when known: checked against the axis size when that is known.
std::optional<int64_t> known_k(const InferContext& ctx, int64_t axis_size) {
    const Tensor* v = ctx.value(kK);
    if (!v) return std::nullopt;
    const std::vector<int64_t> values = detail::read_index_values(*v);
    if (values.size() != 1)
        throw ctx.input_error(kK, ErrorKind::ShapeRule, "k-shape",
                              str("k must be a scalar, got shape ", to_string(v->shape())));
    const int64_t k = values[0];
    if (k < 0) throw ctx.input_error(kK, ErrorKind::Value, "k-invalid", str("k is negative: ", k));
    if (axis_size != kDynamic && k > axis_size)
        throw ctx.input_error(kK, ErrorKind::Value, "k-invalid",
                              str("k = ", k, " is larger than the axis it selects from (size ", axis_size, ")"));
    return k;
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    const ElementType type = ctx.type(kData);
    if (type == ElementType::boolean || !is_storable(type))
        throw ctx.input_error(kData, ErrorKind::Type, "element-type-unsupported",
                              str("data must be a numeric tensor, got ", to_string(type)));
    detail::require_index_type(ctx, kK, detail::IndexTypes::AnyInteger);
    const PartialShape& kshape = ctx.shape(kK);
    if (kshape.rank_known() && (kshape.rank() > 1 || (kshape.rank() == 1 && !dims_compatible(kshape[0], 1))))
        throw ctx.input_error(kK, ErrorKind::ShapeRule, "k-shape", str("k must be a scalar, got shape ", to_string(kshape)));
    const auto& a = ctx.attrs<TopKAttrs>();
    const PartialShape& data = ctx.shape(kData);
    if (!data.rank_known()) return {{type, data}, {a.index_type, data}};
    const auto rank = static_cast<int64_t>(data.rank());
    if (a.axis < -rank || a.axis >= rank)
        throw ctx.input_error(kData, ErrorKind::Attribute, "axis-out-of-range",
                              str("attribute 'axis' = ", a.axis, ": axis ", a.axis, " out of range for rank ", rank,
                                  " (allowed [", -rank, ", ", rank - 1, "])"));
    const auto axis = static_cast<size_t>(a.axis < 0 ? a.axis + rank : a.axis);
    std::vector<int64_t> dims = data.dims();
    const std::optional<int64_t> k = known_k(ctx, dims[axis]);
    dims[axis] = k ? *k : kDynamic;
    return {{type, PartialShape(dims)}, {a.index_type, PartialShape(dims)}};
}

struct TopKPlan : OpPlan {
    int64_t outer = 1, length = 0, inner = 1, k = 0;
};

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    const std::vector<OutputInfo> out = infer(ctx);
    const Shape& shape = ctx.shape(kData).dims();
    const auto& a = ctx.attrs<TopKAttrs>();
    const auto rank = static_cast<int64_t>(shape.size());
    const auto axis = static_cast<size_t>(a.axis < 0 ? a.axis + rank : a.axis);
    auto plan = std::make_unique<TopKPlan>();
    for (size_t d = 0; d < axis; ++d) plan->outer *= shape[d];
    plan->length = shape[axis];
    for (size_t d = axis + 1; d < shape.size(); ++d) plan->inner *= shape[d];
    plan->k = out[0].shape[axis];
    plan->scratch_bytes = static_cast<size_t>(plan->length) * sizeof(int64_t);  // one slice's candidate indices
    plan->method = "partial-sort";
    return plan;
}

// "a ranks before b": by value (NaN highest), then by the lower index.
template <class T>
struct Ranking {
    const T* slice;  // element j at slice[j * inner]
    int64_t inner;
    bool largest;
    bool operator()(int64_t a, int64_t b) const {
        const T& x = slice[a * inner];
        const T& y = slice[b * inner];
        if constexpr (std::is_integral_v<T>) {
            if (x != y) return largest ? x > y : x < y;
        } else {
            const double u = load_as<double>(x), v = load_as<double>(y);
            const bool un = std::isnan(u), vn = std::isnan(v);
            if (un != vn) return largest ? un : vn;  // NaN above every number
            if (!un && u != v) return largest ? u > v : u < v;
        }
        return a < b;
    }
};

template <class T, class I>
void top_k(const KernelContext& ctx, const TopKPlan& plan, const Tensor& data, Tensor& values, Tensor& indices) {
    const auto& a = ctx.attrs<TopKAttrs>();
    const T* x = data.data<T>();
    T* vo = values.data<T>();
    I* io = indices.data<I>();
    auto* order = static_cast<int64_t*>(ctx.scratch());
    const int64_t len = plan.length, k = plan.k, inner = plan.inner;
    for (int64_t o = 0; o < plan.outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
            const T* slice = x + o * len * inner + i;
            std::iota(order, order + len, int64_t{0});
            const Ranking<T> rank{slice, inner, a.largest};
            std::partial_sort(order, order + k, order + len, rank);
            if (a.sort == Sort::Index) std::sort(order, order + k);
            for (int64_t j = 0; j < k; ++j) {
                const int64_t at = (o * k + j) * inner + i;
                vo[at] = slice[order[j] * inner];
                io[at] = static_cast<I>(order[j]);
            }
        }
}

void compute(KernelContext& ctx) {
    const auto& plan = ctx.plan<TopKPlan>();
    const Tensor& data = ctx.input(kData);
    Tensor& values = ctx.output(0);
    Tensor& indices = ctx.output(1);
    IRLITE_CHECK(values.num_elements() == plan.outer * plan.k * plan.inner && values.num_elements() == indices.num_elements(),
                 ErrorKind::ShapeRule, "kernel-output-mismatch", "outputs disagree with the plan");
    if (plan.k == 0 || values.num_elements() == 0) return;
    dispatch_type(data.type(), [&](auto tag) {
        using T = decltype(tag);
        if constexpr (!std::is_same_v<T, bool>) {
            if (indices.type() == ElementType::i64) top_k<T, int64_t>(ctx, plan, data, values, indices);
            else top_k<T, int32_t>(ctx, plan, data, values, indices);
        }
    });
}

OpDef make_def(int version, int first, int last) {
    OpDef d;
    d.type = "TopK";
    d.version = version;
    d.first_opset = first;
    d.last_opset = last;
    d.input_roles = {"data", "k"};
    d.min_inputs = 2;
    d.num_outputs = 2;
    d.value_inputs = 1u << kK;
    if (version == 11) d.parse_attrs = [](const AttrReader& r) { return parse(r, true); };
    else d.parse_attrs = [](const AttrReader& r) { return parse(r, false); };
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace

OpDef make_top_k_1_op() { return make_def(1, 1, 2); }
OpDef make_top_k_3_op() { return make_def(3, 3, 10); }
OpDef make_top_k_11_op() { return make_def(11, 11, kLatestOpset); }

}  // namespace irlite
