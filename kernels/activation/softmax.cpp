// SoftMax-1 (opset1..7), Softmax-8 (opset8+), LogSoftmax-5 (opset5+): softmax (log-softmax) along
// one axis, computed as exp(x - max) / sum(exp(x - max)) so that large inputs cannot overflow
// (log-softmax: x - max - log(sum(exp(x - max)))).
// Input: 0 'data' (rank >= 1). Output: same type and shape.
// Attribute: axis (default 1); SoftMax-1 accepts [0, rank-1], Softmax-8 and LogSoftmax-5 accept
// [-rank, rank-1].
// Types: f32, f64; f16/bf16 computed in f32.
// GCC 12 reports Eigen's AVX-512 packet code (built with -march=native) as "may be used
// uninitialized" (_mm512_undefined_* placeholders); a known false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <Eigen/Core>
#include <cmath>

#include "kernels/detail/cpu_isa.hpp"
#include "kernels/detail/nn_common.hpp"
#include "kernels/detail/vec_math.hpp"

namespace irlite {
namespace {

struct SoftmaxAttrs : OpAttrs {
    int64_t axis = 1;
    bool negative_axis_allowed = true;
    bool log = false;
};

int64_t softmax_axis(const SoftmaxAttrs& a, int64_t rank) {
    const int64_t lo = a.negative_axis_allowed ? -rank : 0;
    if (a.axis < lo || a.axis >= rank)
        throw Error(ErrorKind::Attribute, "axis-out-of-range",
                    str("attribute 'axis' = ", a.axis, " is out of the range [", lo, ", ", rank - 1,
                        "] for data of rank ", rank));
    return a.axis < 0 ? a.axis + rank : a.axis;
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    nn::require_float(ctx, 0);
    if (ctx.shape(0).rank_known()) softmax_axis(ctx.attrs<SoftmaxAttrs>(), static_cast<int64_t>(ctx.shape(0).rank()));
    return {{ctx.type(0), ctx.shape(0)}};
}

// One [n x inner] block, softmax down each column.
// f32 along the last axis (inner == 1, attention's case): rows of n, at the CPU's vector width
// (cpu_isa.hpp), with vec_math's exp and fixed-lane max and sum, so that results are the same at
// every instruction-set level and thread count.
void softmax_rows_f32(const float* x, float* y, int64_t rows, int64_t n, bool log) {
    cpu::run([&] {
        for (int64_t r = 0; r < rows; ++r) {
            const float* in = x + r * n;
            float* out = y + r * n;
            const float max = vmath::lane_max(in, n);
            for (int64_t i = 0; i < n; ++i) out[i] = vmath::exp_f32(in[i] - max);
            const float sum = vmath::lane_sum(out, n);
            if (log) {
                const float log_sum = std::log(sum);
                for (int64_t i = 0; i < n; ++i) out[i] = (in[i] - max) - log_sum;
            } else {
                for (int64_t i = 0; i < n; ++i) out[i] = out[i] / sum;
            }
        }
    });
}

// One [n x inner] block, softmax down each column; `columns` holds 2 * inner of T (the column
// maxima and sums), so that nothing is allocated.
template <class T>
void softmax_block(const T* x, T* y, int64_t n, int64_t inner, bool log, T* columns) {
    using Block = Eigen::Array<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    using Vector = Eigen::Array<T, Eigen::Dynamic, 1>;
    using Row = Eigen::Array<T, 1, Eigen::Dynamic>;
    if (inner == 1) {
        const Eigen::Map<const Vector> in(x, n);
        Eigen::Map<Vector> out(y, n);
        const T max = in.maxCoeff();
        out = (in - max).exp();
        const T sum = out.sum();
        if (log) out = in - max - std::log(sum);
        else out /= sum;
        return;
    }
    const Eigen::Map<const Block> in(x, n, inner);
    Eigen::Map<Block> out(y, n, inner);
    Eigen::Map<Row> max(columns, inner), sum(columns + inner, inner);
    max = in.colwise().maxCoeff();
    out = (in.rowwise() - max).exp();
    sum = out.colwise().sum();
    if (log) {
        sum = sum.log();
        out = (in.rowwise() - max).rowwise() - sum;
    } else {
        out.rowwise() /= sum;
    }
}

// The blocks along the axis, planned once, and the scratch: the input and output converted to
// f32 (f16, bf16: nn::conversion_bytes), then a block's column maxima and sums.
struct SoftmaxPlan : OpPlan {
    int64_t outer = 1, n = 1, inner = 1;
    size_t input_bytes = 0, output_bytes = 0;
};

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    const Shape shape = ctx.shape(0).to_shape();
    const auto axis = static_cast<size_t>(softmax_axis(ctx.attrs<SoftmaxAttrs>(), static_cast<int64_t>(shape.size())));
    auto plan = std::make_unique<SoftmaxPlan>();
    for (size_t i = 0; i < axis; ++i) plan->outer *= shape[i];
    for (size_t i = axis + 1; i < shape.size(); ++i) plan->inner *= shape[i];
    plan->n = shape[axis];
    const int64_t count = checked_num_elements(shape);
    plan->input_bytes = plan->output_bytes = nn::conversion_bytes(ctx.type(0), count);
    const size_t columns_bytes = plan->inner > 1 ? (static_cast<size_t>(plan->inner) * 2 * sizeof(double) + 63) / 64 * 64 : 0;
    plan->scratch_bytes = plan->input_bytes + plan->output_bytes + columns_bytes;
    plan->method = plan->inner == 1 ? "rows" : "columns";
    return plan;
}

void compute(KernelContext& ctx) {
    const auto& a = ctx.attrs<SoftmaxAttrs>();
    const SoftmaxPlan& plan = ctx.plan<SoftmaxPlan>();
    const Tensor& data = ctx.input(0);
    const int64_t outer = plan.outer, n = plan.n, inner = plan.inner;
    if (data.num_elements() == 0) return;
    auto* scratch = static_cast<std::byte*>(ctx.scratch());
    nn::dispatch_float(data.type(), [&](auto tag) {
        using T = decltype(tag);
        const nn::ComputeIn<T> x(data, {scratch, plan.input_bytes});
        nn::ComputeOut<T> y(ctx.output(0), {scratch + plan.input_bytes, plan.output_bytes});
        if constexpr (std::is_same_v<T, float>) {
            if (inner == 1) {
                softmax_rows_f32(x.data(), y.data(), outer, n, a.log);
                y.commit();
                return;
            }
        }
        T* columns = reinterpret_cast<T*>(scratch + plan.input_bytes + plan.output_bytes);
        for (int64_t o = 0; o < outer; ++o)
            softmax_block(x.data() + o * n * inner, y.data() + o * n * inner, n, inner, a.log, columns);
        y.commit();
    });
}

OpDef make_softmax_def(const char* type, int version, int first, int last, bool negative_axis, bool log) {
    OpDef d;
    d.type = type;
    d.version = version;
    d.first_opset = first;
    d.last_opset = last;
    d.input_roles = {"data"};
    d.min_inputs = 1;
    d.parse_attrs = [negative_axis, log](const AttrReader& r) {
        auto a = std::make_unique<SoftmaxAttrs>();
        a->axis = r.get_i64("axis", 1);
        a->negative_axis_allowed = negative_axis;
        a->log = log;
        if (!negative_axis && a->axis < 0)
            throw Error(ErrorKind::Attribute, "attribute-invalid",
                        str("attribute 'axis' = \"", a->axis, "\" is invalid: SoftMax-1 needs an axis >= 0"));
        return std::unique_ptr<OpAttrs>(std::move(a));
    };
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace

OpDef make_softmax_1_op() { return make_softmax_def("SoftMax", 1, 1, 7, false, false); }
OpDef make_softmax_8_op() { return make_softmax_def("Softmax", 8, 8, kLatestOpset, true, false); }
OpDef make_log_softmax_op() { return make_softmax_def("LogSoftmax", 5, 5, kLatestOpset, true, true); }

}  // namespace irlite
