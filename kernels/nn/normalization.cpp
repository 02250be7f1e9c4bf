// BatchNormInference-1 (opset1..4), BatchNormInference-5 (opset5+), MVN-1 (opset2..5), MVN-6
// (opset6+), NormalizeL2-1 (opset1+).
// BatchNormInference: inputs (v5) 0 'data' [N, C, ...] (rank >= 2), 1 'gamma', 2 'beta', 3 'mean',
//   4 'variance' (each [C]); v1 takes the same tensors in the order gamma, beta, data, mean,
//   variance. Attribute epsilon (>= 0). out = (x - mean) / sqrt(variance + epsilon) * gamma + beta.
// MVN-6: inputs 0 'data', 1 'axes' (integer, 1-D or scalar, in [-rank, rank-1]). Attributes
//   normalize_variance, eps, eps_mode (inside_sqrt, outside_sqrt). out = x - mean over axes, then
//   divided by sqrt(var + eps) (inside_sqrt) or sqrt(var) + eps (outside_sqrt) when normalize_variance.
// MVN-1: input 0 'data'. Attributes across_channels (default false), reduction_axes (optional,
//   overrides across_channels), normalize_variance (default false), eps. Axes: reduction_axes, or
//   [1, rank) when across_channels, else [2, rank). eps inside the sqrt.
// NormalizeL2-1: inputs 0 'data', 1 'axes' (integer, 1-D or scalar; empty: each element alone).
//   Attributes eps, eps_mode (add, max). out = x / sqrt(sum(x^2) + eps) or x / sqrt(max(sum(x^2), eps)).
// Types: f32, f64; f16/bf16 computed in f32; statistics accumulate in double.
#include <cmath>
#include <limits>

#include <Eigen/Core>

#include "kernels/detail/nn_common.hpp"

namespace irlite {
namespace {

// ---- BatchNormInference ----------------------------------------------------------------------

struct BatchNormAttrs : OpAttrs {
    double epsilon = 0;
};

struct BatchNormPorts {
    size_t data, gamma, beta, mean, variance;
};
constexpr BatchNormPorts kPortsV5 = {0, 1, 2, 3, 4};
constexpr BatchNormPorts kPortsV1 = {2, 0, 1, 3, 4};

std::unique_ptr<OpAttrs> parse_batch_norm(const AttrReader& r) {
    auto a = std::make_unique<BatchNormAttrs>();
    a->epsilon = r.get_f64("epsilon");
    if (!(a->epsilon >= 0))
        throw Error(ErrorKind::Attribute, "attribute-invalid",
                    str("attribute 'epsilon' = \"", r.get_string("epsilon"), "\" is invalid: it must be >= 0"));
    return a;
}

std::vector<OutputInfo> infer_batch_norm(const InferContext& ctx, BatchNormPorts ports) {
    nn::require_float(ctx, ports.data);
    const PartialShape& data = ctx.shape(ports.data);
    nn::require_rank(ctx, ports.data, 2, std::numeric_limits<int64_t>::max(), "[N, C, ...]");
    const int64_t channels = data.rank_known() ? data[1] : kDynamic;
    for (size_t port : {ports.gamma, ports.beta, ports.mean, ports.variance}) {
        nn::require_same_type(ctx, port, ports.data);
        const PartialShape& s = ctx.shape(port);
        if (!s.rank_known()) continue;
        if (s.rank() != 1 || !dims_compatible(s[0], channels))
            throw ctx.input_error(port, ErrorKind::ShapeRule, "dims-mismatch",
                                  str("expected shape [C] with C = ", channels < 0 ? std::string("?") : std::to_string(channels),
                                      " (the channel dim of data ", to_string(data), "), got ", to_string(s)));
    }
    return {{ctx.type(ports.data), data}};
}

template <class T>
void batch_norm(const Shape& shape, double epsilon, const T* x, const T* gamma, const T* beta, const T* mean,
                const T* variance, T* y) {
    const int64_t batch = shape[0], channels = shape[1];
    int64_t inner = 1;
    for (size_t i = 2; i < shape.size(); ++i) inner *= shape[i];
    using Vector = Eigen::Array<T, Eigen::Dynamic, 1>;
    for (int64_t c = 0; c < channels; ++c) {
        const double scale = static_cast<double>(gamma[c]) / std::sqrt(static_cast<double>(variance[c]) + epsilon);
        const T s = static_cast<T>(scale);
        const T shift = static_cast<T>(static_cast<double>(beta[c]) - static_cast<double>(mean[c]) * scale);
        for (int64_t n = 0; n < batch; ++n) {
            const int64_t off = (n * channels + c) * inner;
            Eigen::Map<Vector>(y + off, inner) = Eigen::Map<const Vector>(x + off, inner) * s + shift;
        }
    }
}

// Scratch for every operand converted to the compute type (f16/bf16 data computed in f32): the
// inputs in port order, then the output (the data's type and shape), each nn::conversion_bytes
// long (0 when f32/f64).
struct ConversionPlan : OpPlan {
    std::vector<size_t> offsets, bytes;
    // The space of operand i (inputs, then the output) in this run's scratch.
    nn::ScratchSpace space(const KernelContext& ctx, size_t i) const {
        return {static_cast<std::byte*>(ctx.scratch()) + offsets[i], bytes[i]};
    }
};

std::unique_ptr<OpPlan> prepare_conversions(const InferContext& ctx, size_t num_inputs, size_t data_port) {
    auto plan = std::make_unique<ConversionPlan>();
    for (size_t i = 0; i <= num_inputs; ++i) {
        const size_t port = i < num_inputs ? i : data_port;  // the output: the data's type and shape
        plan->offsets.push_back(plan->scratch_bytes);
        plan->bytes.push_back(nn::conversion_bytes(ctx.type(port), checked_num_elements(ctx.shape(port).to_shape())));
        plan->scratch_bytes += plan->bytes.back();
    }
    return plan;
}

void compute_batch_norm(KernelContext& ctx, BatchNormPorts ports) {
    const Tensor& data = ctx.input(ports.data);
    const double epsilon = ctx.attrs<BatchNormAttrs>().epsilon;
    const auto& plan = ctx.plan<ConversionPlan>();
    nn::dispatch_float(data.type(), [&](auto tag) {
        using T = decltype(tag);
        const auto in = [&](int port) { return nn::ComputeIn<T>(ctx.input(static_cast<size_t>(port)), plan.space(ctx, static_cast<size_t>(port))); };
        const nn::ComputeIn<T> x = in(ports.data), gamma = in(ports.gamma), beta = in(ports.beta), mean = in(ports.mean),
                               variance = in(ports.variance);
        nn::ComputeOut<T> y(ctx.output(0), plan.space(ctx, 5));
        batch_norm(data.shape(), epsilon, x.data(), gamma.data(), beta.data(), mean.data(), variance.data(), y.data());
        y.commit();
    });
}

OpDef make_batch_norm_def(int version, int first, int last, BatchNormPorts ports) {
    OpDef d;
    d.type = "BatchNormInference";
    d.version = version;
    d.first_opset = first;
    d.last_opset = last;
    d.input_roles.resize(5);
    d.input_roles[ports.data] = "data";
    d.input_roles[ports.gamma] = "gamma";
    d.input_roles[ports.beta] = "beta";
    d.input_roles[ports.mean] = "mean";
    d.input_roles[ports.variance] = "variance";
    d.min_inputs = 5;
    d.parse_attrs = parse_batch_norm;
    d.infer = [ports](const InferContext& ctx) { return infer_batch_norm(ctx, ports); };
    d.prepare = [ports](const InferContext& ctx) { return prepare_conversions(ctx, 5, static_cast<size_t>(ports.data)); };
    d.compute = [ports](KernelContext& ctx) { compute_batch_norm(ctx, ports); };
    return d;
}

// ---- group statistics (MVN, NormalizeL2) -----------------------------------------------------

// acc[g] += term(x, g) over every element x of group g.
template <class T, class F>
void accumulate(const nn::ReducePlan& plan, const T* x, double* acc, F&& term) {
    plan.for_each_run([&](int64_t in, int64_t group, int64_t len, bool reduced) {
        const T* src = x + in;
        if (reduced) {
            double a = 0;
            for (int64_t i = 0; i < len; ++i) a += term(static_cast<double>(src[i]), group);
            acc[static_cast<size_t>(group)] += a;
        } else {
            for (int64_t i = 0; i < len; ++i)
                acc[static_cast<size_t>(group + i)] += term(static_cast<double>(src[i]), group + i);
        }
    });
}

// y = (x - shift[g]) * scale[g] for every element x of group g.
template <class T>
void apply(const nn::ReducePlan& plan, const T* x, T* y, const double* shift, const double* scale) {
    plan.for_each_run([&](int64_t in, int64_t group, int64_t len, bool reduced) {
        for (int64_t i = 0; i < len; ++i) {
            const size_t g = static_cast<size_t>(reduced ? group : group + i);
            y[in + i] = static_cast<T>((static_cast<double>(x[in + i]) - shift[g]) * scale[g]);
        }
    });
}

// ---- MVN -------------------------------------------------------------------------------------

struct MvnAttrs : OpAttrs {
    bool normalize_variance = false;
    double eps = 0;
    bool eps_inside_sqrt = true;
    // MVN-1 only
    bool across_channels = false;
    std::optional<std::vector<int64_t>> reduction_axes;
};

double read_eps(const AttrReader& r, const char* name) {
    const double eps = r.get_f64(name);
    if (!(eps >= 0) || !std::isfinite(eps))
        throw Error(ErrorKind::Attribute, "attribute-invalid",
                    str("attribute '", name, "' = \"", r.get_string(name), "\" is invalid: it must be a finite number >= 0"));
    return eps;
}

std::unique_ptr<OpAttrs> parse_mvn6(const AttrReader& r) {
    auto a = std::make_unique<MvnAttrs>();
    if (!r.has("normalize_variance"))
        throw Error(ErrorKind::Attribute, "attribute-missing", "required attribute 'normalize_variance' is missing");
    a->normalize_variance = r.get_bool("normalize_variance", false);
    a->eps = read_eps(r, "eps");
    a->eps_inside_sqrt = r.get_enum("eps_mode", {"inside_sqrt", "outside_sqrt"}, "") == "inside_sqrt";
    if (!r.has("eps_mode"))
        throw Error(ErrorKind::Attribute, "attribute-missing", "required attribute 'eps_mode' is missing");
    return a;
}

std::unique_ptr<OpAttrs> parse_mvn1(const AttrReader& r) {
    auto a = std::make_unique<MvnAttrs>();
    a->normalize_variance = r.get_bool("normalize_variance", false);
    a->eps = read_eps(r, "eps");
    a->across_channels = r.get_bool("across_channels", false);
    if (r.has("reduction_axes")) a->reduction_axes = r.get_i64_list("reduction_axes");
    return a;
}

// MVN-1's axes for data of the given rank.
std::vector<int64_t> mvn1_axes(const MvnAttrs& a, int64_t rank) {
    std::vector<int64_t> axes;
    if (a.reduction_axes) {
        for (int64_t axis : *a.reduction_axes) {
            if (axis < -rank || axis >= rank)
                throw Error(ErrorKind::Attribute, "axis-out-of-range",
                            str("attribute 'reduction_axes': axis ", axis, " not in [", -rank, ", ", rank - 1, "]"));
            axes.push_back(axis < 0 ? axis + rank : axis);
        }
        std::sort(axes.begin(), axes.end());
        axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
    } else {
        for (int64_t i = a.across_channels ? 1 : 2; i < rank; ++i) axes.push_back(i);
    }
    return axes;
}

std::vector<OutputInfo> infer_mvn(const InferContext& ctx, bool v6) {
    nn::require_float(ctx, 0);
    const PartialShape& data = ctx.shape(0);
    if (v6) {
        nn::require_integer(ctx, 1);
        nn::require_rank(ctx, 1, 0, 1, "1-D axes");
        if (ctx.value(1) && data.rank_known()) nn::read_axes(ctx, 1, *ctx.value(1), static_cast<int64_t>(data.rank()));
    } else if (data.rank_known()) {
        mvn1_axes(ctx.attrs<MvnAttrs>(), static_cast<int64_t>(data.rank()));
    }
    return {{ctx.type(0), data}};
}

// MVN and NormalizeL2 planned once: the groups, and in scratch the data and the output converted
// to the compute type (f16/bf16 as f32, nn::conversion_bytes) then three doubles per group.
struct GroupStatsPlan : OpPlan {
    GroupStatsPlan(const Shape& shape, const std::vector<int64_t>& axes) : rows(shape, axes) {}
    nn::ReducePlan rows;
    size_t input_bytes = 0, output_bytes = 0;
    nn::ScratchSpace input(const KernelContext& ctx) const { return {ctx.scratch(), input_bytes}; }
    nn::ScratchSpace output(const KernelContext& ctx) const {
        return {static_cast<std::byte*>(ctx.scratch()) + input_bytes, output_bytes};
    }
    double* stats(const KernelContext& ctx) const {
        return reinterpret_cast<double*>(static_cast<std::byte*>(ctx.scratch()) + input_bytes + output_bytes);
    }
};

std::unique_ptr<OpPlan> prepare_group_stats(const InferContext& ctx, const std::vector<int64_t>& axes) {
    const Shape shape = ctx.shape(0).to_shape();
    auto plan = std::make_unique<GroupStatsPlan>(shape, axes);
    plan->input_bytes = plan->output_bytes = nn::conversion_bytes(ctx.type(0), checked_num_elements(shape));
    plan->scratch_bytes = plan->input_bytes + plan->output_bytes +
                          static_cast<size_t>(std::max<int64_t>(plan->rows.group_count(), 1)) * 3 * sizeof(double);
    return plan;
}

// stats: 3 * groups doubles of scratch.
template <class T>
void mvn(const MvnAttrs& a, const nn::ReducePlan& plan, const T* x, T* y, double* stats) {
    const size_t groups = static_cast<size_t>(plan.group_count());
    const double count = static_cast<double>(plan.reduce_count());
    double* mean = stats;
    double* scale = stats + groups;
    double* var = stats + 2 * groups;
    std::fill(mean, mean + groups, 0.0);
    std::fill(scale, scale + groups, 1.0);
    accumulate(plan, x, mean, [](double v, int64_t) { return v; });
    for (size_t g = 0; g < groups; ++g) mean[g] /= count;
    if (a.normalize_variance) {
        std::fill(var, var + groups, 0.0);
        accumulate(plan, x, var, [&](double v, int64_t g) {
            const double d = v - mean[static_cast<size_t>(g)];
            return d * d;
        });
        for (size_t g = 0; g < groups; ++g) {
            const double v = var[g] / count;
            scale[g] = 1.0 / (a.eps_inside_sqrt ? std::sqrt(v + a.eps) : std::sqrt(v) + a.eps);
        }
    }
    apply(plan, x, y, mean, scale);
}

void compute_mvn(KernelContext& ctx) {
    const auto& a = ctx.attrs<MvnAttrs>();
    const Tensor& data = ctx.input(0);
    const GroupStatsPlan& plan = ctx.plan<GroupStatsPlan>();
    if (data.num_elements() == 0) return;
    nn::dispatch_float(data.type(), [&](auto tag) {
        using T = decltype(tag);
        const nn::ComputeIn<T> x(data, plan.input(ctx));
        nn::ComputeOut<T> y(ctx.output(0), plan.output(ctx));
        mvn(a, plan.rows, x.data(), y.data(), plan.stats(ctx));
        y.commit();
    });
}

std::unique_ptr<OpPlan> prepare_mvn(const InferContext& ctx, bool v6) {
    const int64_t rank = static_cast<int64_t>(ctx.shape(0).rank());
    return prepare_group_stats(ctx, v6 ? nn::read_axes(ctx, 1, *ctx.value(1), rank) : mvn1_axes(ctx.attrs<MvnAttrs>(), rank));
}

// ---- NormalizeL2 -----------------------------------------------------------------------------

struct NormalizeAttrs : OpAttrs {
    double eps = 0;
    bool eps_add = true;
};

std::unique_ptr<OpAttrs> parse_normalize(const AttrReader& r) {
    auto a = std::make_unique<NormalizeAttrs>();
    a->eps = read_eps(r, "eps");
    if (!r.has("eps_mode"))
        throw Error(ErrorKind::Attribute, "attribute-missing", "required attribute 'eps_mode' is missing");
    a->eps_add = r.get_enum("eps_mode", {"add", "max"}, "") == "add";
    return a;
}

std::vector<OutputInfo> infer_normalize(const InferContext& ctx) {
    nn::require_float(ctx, 0);
    nn::require_integer(ctx, 1);
    nn::require_rank(ctx, 1, 0, 1, "a scalar or 1-D axes");
    if (ctx.value(1) && ctx.shape(0).rank_known())
        nn::read_axes(ctx, 1, *ctx.value(1), static_cast<int64_t>(ctx.shape(0).rank()));
    return {{ctx.type(0), ctx.shape(0)}};
}

void compute_normalize(KernelContext& ctx) {
    const auto& a = ctx.attrs<NormalizeAttrs>();
    const Tensor& data = ctx.input(0);
    const GroupStatsPlan& op = ctx.plan<GroupStatsPlan>();
    const nn::ReducePlan& plan = op.rows;
    if (data.num_elements() == 0) return;
    nn::dispatch_float(data.type(), [&](auto tag) {
        using T = decltype(tag);
        const nn::ComputeIn<T> x(data, op.input(ctx));
        nn::ComputeOut<T> y(ctx.output(0), op.output(ctx));
        const size_t groups = static_cast<size_t>(plan.group_count());
        double* squares = op.stats(ctx);
        double* scale = squares + groups;
        double* zero = squares + 2 * groups;
        std::fill(squares, squares + groups, 0.0);
        std::fill(zero, zero + groups, 0.0);
        accumulate(plan, x.data(), squares, [](double v, int64_t) { return v * v; });
        for (size_t g = 0; g < groups; ++g)
            scale[g] = 1.0 / std::sqrt(a.eps_add ? squares[g] + a.eps : std::max(squares[g], a.eps));
        apply(plan, x.data(), y.data(), zero, scale);
        y.commit();
    });
}

std::unique_ptr<OpPlan> prepare_normalize(const InferContext& ctx) {
    return prepare_group_stats(ctx, nn::read_axes(ctx, 1, *ctx.value(1), static_cast<int64_t>(ctx.shape(0).rank())));
}

OpDef make_def(const char* type, int version, int first, int last, std::vector<std::string> roles) {
    OpDef d;
    d.type = type;
    d.version = version;
    d.first_opset = first;
    d.last_opset = last;
    d.min_inputs = static_cast<int>(roles.size());
    d.input_roles = std::move(roles);
    if (d.input_roles.size() > 1) d.value_inputs = inputs(1);
    return d;
}

}  // namespace

OpDef make_batch_norm_inference_1_op() { return make_batch_norm_def(1, 1, 4, kPortsV1); }
OpDef make_batch_norm_inference_5_op() { return make_batch_norm_def(5, 5, kLatestOpset, kPortsV5); }

OpDef make_mvn_1_op() {
    OpDef d = make_def("MVN", 1, 2, 5, {"data"});
    d.parse_attrs = parse_mvn1;
    d.infer = [](const InferContext& ctx) { return infer_mvn(ctx, false); };
    d.prepare = [](const InferContext& ctx) { return prepare_mvn(ctx, false); };
    d.compute = compute_mvn;
    return d;
}

OpDef make_mvn_6_op() {
    OpDef d = make_def("MVN", 6, 6, kLatestOpset, {"data", "axes"});
    d.parse_attrs = parse_mvn6;
    d.infer = [](const InferContext& ctx) { return infer_mvn(ctx, true); };
    d.prepare = [](const InferContext& ctx) { return prepare_mvn(ctx, true); };
    d.compute = compute_mvn;
    return d;
}

OpDef make_normalize_l2_op() {
    OpDef d = make_def("NormalizeL2", 1, 1, kLatestOpset, {"data", "axes"});
    d.parse_attrs = parse_normalize;
    d.infer = infer_normalize;
    d.prepare = prepare_normalize;
    d.compute = compute_normalize;
    return d;
}

}  // namespace irlite
