// Range-1 (opset1..opset3) and Range-4 (opset4+): the sequence start, start+step, ... up to stop
// (exclusive).
// Inputs: 0 'start', 1 'stop', 2 'step', each a scalar (or a 1-element tensor) of a numeric type.
//   Range-1: all three of one type T, output T. Range-4: any numeric types, attribute output_type.
// Length: max(ceil((stop - start) / step), 0), computed in double. For an integer output type the
// inputs are first truncated toward zero (Range-4's rule); a step that is then 0 is an error, as is
// a non-finite input. Element i = start + i * step, converted to the output type.
// Types: every numeric type (not boolean). The output length depends on input values, so the
// three inputs are value inputs: unknown at load time, the output is [?].
#include <cmath>
#include <limits>

#include "engine/op.hpp"

namespace irlite {
namespace {

struct RangeAttrs : OpAttrs {
    bool has_output_type = false;  // Range-4
    ElementType output_type = ElementType::f32;
};

const char* const kRoles[] = {"start", "stop", "step"};

ElementType output_type_of(const InferContext& ctx) {
    const auto& a = ctx.attrs<RangeAttrs>();
    return a.has_output_type ? a.output_type : ctx.type(0);
}

struct RangeParams {
    double start = 0, step = 1;
    int64_t length = 0;
};

constexpr double kMaxLength = 1e12;  // far beyond any allocation; keeps the int64 conversion safe

// Reads the scalars and computes the length. `read(i)` returns input i's single value; `exact`
// holds the three values as int64 when they are all integers (doubles lose precision above 2^53).
template <class ReadScalar, class ErrorAt>
RangeParams range_params(ElementType out_type, ReadScalar read, const int64_t* exact, ErrorAt error_at) {
    double v[3];
    for (int i = 0; i < 3; ++i) {
        v[i] = read(i);
        if (!std::isfinite(v[i])) throw error_at(i, str(kRoles[i], " must be finite, got ", v[i]));
        if (is_integral(out_type)) v[i] = std::trunc(v[i]);
    }
    if (v[2] == 0) throw error_at(2, "step must not be 0");
    double span = std::ceil((v[1] - v[0]) / v[2]);
    if (exact && is_integral(out_type)) {
        int64_t diff = 0;
        if (__builtin_sub_overflow(exact[1], exact[0], &diff)) {
            span = kMaxLength * 2;  // more than 2^63 elements: rejected below
        } else {
            const int64_t step = exact[2];
            const bool forward = (diff > 0) == (step > 0) && diff != 0;
            // ceil(diff / step) for same-sign operands, as |diff| / |step| rounded up.
            const uint64_t num = diff > 0 ? static_cast<uint64_t>(diff) : 0 - static_cast<uint64_t>(diff);
            const uint64_t den = step > 0 ? static_cast<uint64_t>(step) : 0 - static_cast<uint64_t>(step);
            span = forward ? static_cast<double>((num - 1) / den + 1) : 0;
        }
    }
    if (span > kMaxLength)
        throw error_at(1, str("the range [", v[0], ", ", v[1], ") with step ", v[2], " has ", span,
                              " elements, too many to allocate"));
    return {v[0], v[2], span > 0 ? static_cast<int64_t>(span) : 0};
}

// The three inputs as exact int64 values, when they are all integer tensors.
template <class ReadTensor>
bool exact_values(ReadTensor tensor, int64_t out[3]) {
    for (int i = 0; i < 3; ++i) {
        const Tensor& t = tensor(i);
        if (!is_integral(t.type())) return false;
        out[i] = t.value_as_int64(0);
    }
    return true;
}

void check_scalar(const InferContext& ctx, size_t i) {
    const PartialShape& s = ctx.shape(i);
    if (!s.rank_known()) return;
    const bool ok = s.rank() == 0 || (s.rank() == 1 && dims_compatible(s[0], 1));
    if (!ok)
        throw ctx.input_error(i, ErrorKind::ShapeRule, "not-scalar",
                              str(kRoles[i], " must be a scalar, got shape ", to_string(s)));
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    const auto& a = ctx.attrs<RangeAttrs>();
    for (size_t i = 0; i < 3; ++i) {
        check_scalar(ctx, i);
        if (ctx.type(i) == ElementType::boolean)
            throw ctx.input_error(i, ErrorKind::Type, "type-not-allowed", str(kRoles[i], " must be numeric, got boolean"));
        if (!a.has_output_type && ctx.type(i) != ctx.type(0))
            throw ctx.input_error(i, ErrorKind::Type, "type-mismatch",
                                  str("Range-1 needs start, stop and step of one type; start is ", to_string(ctx.type(0)),
                                      ", ", kRoles[i], " is ", to_string(ctx.type(i))));
    }
    const ElementType out_type = output_type_of(ctx);
    if (out_type == ElementType::boolean)
        throw Error(ErrorKind::Type, "type-not-allowed", "output_type must be numeric, got boolean");
    for (size_t i = 0; i < 3; ++i)
        if (!ctx.value(i)) return {{out_type, PartialShape::all_dynamic(1)}};
    int64_t exact[3];
    const bool has_exact = exact_values([&](int i) -> const Tensor& { return *ctx.value(static_cast<size_t>(i)); }, exact);
    const RangeParams p = range_params(
        out_type, [&](int i) { return ctx.value(static_cast<size_t>(i))->value_as_double(0); }, has_exact ? exact : nullptr,
        [&](int i, const std::string& msg) { return ctx.input_error(static_cast<size_t>(i), ErrorKind::Value, "invalid-value", msg); });
    return {{out_type, PartialShape({p.length})}};
}

template <class T>
void fill(Tensor& out, const RangeParams& p) {
    T* o = out.data<T>();
    for (int64_t i = 0; i < p.length; ++i) {
        const double v = p.start + static_cast<double>(i) * p.step;
        if constexpr (std::is_same_v<T, float16>) o[i] = float16{f32_to_f16(static_cast<float>(v))};
        else if constexpr (std::is_same_v<T, bfloat16>) o[i] = bfloat16{f32_to_bf16(static_cast<float>(v))};
        else o[i] = static_cast<T>(v);
    }
}

// Integer outputs accumulate in int64 so that large ranges stay exact.
template <class T>
void fill_integer(Tensor& out, int64_t start, int64_t step, int64_t length) {
    T* o = out.data<T>();
    int64_t v = start;
    for (int64_t i = 0; i < length; ++i, v += step) o[i] = static_cast<T>(v);
}

// The range from the three values, which prepare always sees: a step prepared at compile time has
// constant inputs (a run-time one prepares when it runs, KernelContext::plan).
struct RangePlan : OpPlan {
    RangeParams params;
    int64_t exact_start = 0, exact_step = 0;  // integer outputs: the inputs read exactly
};

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    auto plan = std::make_unique<RangePlan>();
    plan->method = "fill";
    const Tensor* values[3];
    for (size_t i = 0; i < 3; ++i) {
        values[i] = ctx.value(i);
        IRLITE_CHECK(values[i], ErrorKind::Value, "internal-error", "Range prepared without the value of ", kRoles[i]);
        if (values[i]->num_elements() != 1)
            throw ctx.input_error(i, ErrorKind::ShapeRule, "not-scalar",
                                  str(kRoles[i], " must hold one value, got shape ", to_string(values[i]->shape())));
    }
    const ElementType out_type = output_type_of(ctx);
    int64_t exact[3];
    const bool has_exact = exact_values([&](int i) -> const Tensor& { return *values[i]; }, exact);
    plan->params = range_params(
        out_type, [&](int i) { return values[i]->value_as_double(0); }, has_exact ? exact : nullptr,
        [&](int i, const std::string& msg) { return ctx.input_error(static_cast<size_t>(i), ErrorKind::Value, "invalid-value", msg); });
    // Integer inputs are read exactly (doubles lose precision above 2^53).
    const auto read_exact = [&](int i) {
        const Tensor& t = *values[i];
        return is_integral(t.type()) ? t.value_as_int64(0) : static_cast<int64_t>(std::trunc(t.value_as_double(0)));
    };
    if (is_integral(out_type)) plan->exact_start = read_exact(0), plan->exact_step = read_exact(2);
    return plan;
}

void compute(KernelContext& ctx) {
    const RangePlan& plan = ctx.plan<RangePlan>();
    Tensor& out = ctx.output(0);
    IRLITE_CHECK(out.num_elements() == plan.params.length, ErrorKind::ShapeRule, "kernel-output-mismatch", "output has ",
                 out.num_elements(), " elements, the range ", plan.params.length);
    dispatch_type(out.type(), [&](auto tag) {
        using T = decltype(tag);
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) fill_integer<T>(out, plan.exact_start, plan.exact_step, plan.params.length);
        else if constexpr (!std::is_same_v<T, bool>) fill<T>(out, plan.params);
    });
}

OpDef make_range(int version, int first_opset, int last_opset) {
    OpDef d;
    d.type = "Range";
    d.version = version;
    d.first_opset = first_opset;
    d.last_opset = last_opset;
    d.input_roles = {"start", "stop", "step"};
    d.min_inputs = 3;
    d.value_inputs = inputs(0, 1, 2);
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace

OpDef make_range_1_op() {
    OpDef d = make_range(1, 1, 3);
    d.parse_attrs = [](const AttrReader&) -> std::unique_ptr<OpAttrs> { return std::make_unique<RangeAttrs>(); };
    return d;
}

OpDef make_range_4_op() {
    OpDef d = make_range(4, 4, kLatestOpset);
    d.parse_attrs = [](const AttrReader& r) -> std::unique_ptr<OpAttrs> {
        auto a = std::make_unique<RangeAttrs>();
        a->has_output_type = true;
        a->output_type = r.get_element_type("output_type");
        return a;
    };
    return d;
}

}  // namespace irlite
