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

void compute_batch_norm(KernelContext& ctx, BatchNormPorts ports) {
    const Tensor& data = ctx.input(ports.data);
    const double epsilon = ctx.attrs<BatchNormAttrs>().epsilon;
    nn::dispatch_float(data.type(), [&](auto tag) {
        using T = decltype(tag);
        const nn::ComputeIn<T> x(data), gamma(ctx.input(ports.gamma)), beta(ctx.input(ports.beta)),
            mean(ctx.input(ports.mean)), variance(ctx.input(ports.variance));
        nn::ComputeOut<T> y(ctx.output(0));
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
    d.compute = [ports](KernelContext& ctx) { compute_batch_norm(ctx, ports); };
    return d;
}

// ---- group statistics (MVN, NormalizeL2) -----------------------------------------------------

// acc[g] += term(x, g) over every element x of group g.
template <class T, class F>
void accumulate(const nn::ReducePlan& plan, const T* x, std::vector<double>& acc, F&& term) {
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
void apply(const nn::ReducePlan& plan, const T* x, T* y, const std::vector<double>& shift,
           const std::vector<double>& scale) {
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

template <class T>
void mvn(const MvnAttrs& a, const nn::ReducePlan& plan, const T* x, T* y) {
    const size_t groups = static_cast<size_t>(plan.group_count());
    const double count = static_cast<double>(plan.reduce_count());
    std::vector<double> mean(groups, 0.0), scale(groups, 1.0);
    accumulate(plan, x, mean, [](double v, int64_t) { return v; });
    for (double& m : mean) m /= count;
    if (a.normalize_variance) {
        std::vector<double> var(groups, 0.0);
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

void compute_mvn(KernelContext& ctx, bool v6) {
    const auto& a = ctx.attrs<MvnAttrs>();
    const Tensor& data = ctx.input(0);
    const int64_t rank = static_cast<int64_t>(data.rank());
    const std::vector<int64_t> axes = v6 ? nn::read_axes(ctx, 1, ctx.input(1), rank) : mvn1_axes(a, rank);
    const nn::ReducePlan plan(data.shape(), axes);
    if (data.num_elements() == 0) return;
    nn::dispatch_float(data.type(), [&](auto tag) {
        using T = decltype(tag);
        const nn::ComputeIn<T> x(data);
        nn::ComputeOut<T> y(ctx.output(0));
        mvn(a, plan, x.data(), y.data());
        y.commit();
    });
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
    const nn::ReducePlan plan(data.shape(), nn::read_axes(ctx, 1, ctx.input(1), static_cast<int64_t>(data.rank())));
    if (data.num_elements() == 0) return;
    nn::dispatch_float(data.type(), [&](auto tag) {
        using T = decltype(tag);
        const nn::ComputeIn<T> x(data);
        nn::ComputeOut<T> y(ctx.output(0));
        const size_t groups = static_cast<size_t>(plan.group_count());
        std::vector<double> squares(groups, 0.0), scale(groups), zero(groups, 0.0);
        accumulate(plan, x.data(), squares, [](double v, int64_t) { return v * v; });
        for (size_t g = 0; g < groups; ++g)
            scale[g] = 1.0 / std::sqrt(a.eps_add ? squares[g] + a.eps : std::max(squares[g], a.eps));
        apply(plan, x.data(), y.data(), zero, scale);
        y.commit();
    });
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
    d.compute = [](KernelContext& ctx) { compute_mvn(ctx, false); };
    return d;
}

OpDef make_mvn_6_op() {
    OpDef d = make_def("MVN", 6, 6, kLatestOpset, {"data", "axes"});
    d.parse_attrs = parse_mvn6;
    d.infer = [](const InferContext& ctx) { return infer_mvn(ctx, true); };
    d.compute = [](KernelContext& ctx) { compute_mvn(ctx, true); };
    return d;
}

OpDef make_normalize_l2_op() {
    OpDef d = make_def("NormalizeL2", 1, 1, kLatestOpset, {"data", "axes"});
    d.parse_attrs = parse_normalize;
    d.infer = infer_normalize;
    d.compute = compute_normalize;
    return d;
}

}  // namespace irlite
