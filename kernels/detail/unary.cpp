#include "kernels/detail/unary.hpp"

#include <cmath>
#include <limits>

namespace irlite::detail {
namespace {

template <class T>
void via_f32(const T* in, T* out, int64_t n, UnaryKernelRef<float> kernel) {
    float in_buf[kChunk], out_buf[kChunk];
    for (int64_t i = 0; i < n; i += kChunk) {
        const int64_t m = std::min(kChunk, n - i);
        for (int64_t j = 0; j < m; ++j) in_buf[j] = to_compute<float>(in[i + j]);
        kernel.call(kernel.self, in_buf, out_buf, m);
        for (int64_t j = 0; j < m; ++j) out[i + j] = from_compute<T>(out_buf[j]);
    }
}

// Round half away from zero, then saturate: casting a double outside T's range is UB.
template <class T>
T round_saturate(double v) {
    if (std::isnan(v)) return T{0};
    v = std::round(v);
    // Both bounds are exact powers of two or their neighbours rounded to one (2^63, 2^64), so
    // "v >= hi" is exactly "v does not fit".
    constexpr double lo = static_cast<double>(std::numeric_limits<T>::lowest());
    constexpr double hi = static_cast<double>(std::numeric_limits<T>::max());
    if (v <= lo) return std::numeric_limits<T>::lowest();
    if (v >= hi) return std::numeric_limits<T>::max();
    return static_cast<T>(v);
}

template <class T>
void via_f64(const T* in, T* out, int64_t n, UnaryKernelRef<double> kernel) {
    double in_buf[kChunk], out_buf[kChunk];
    for (int64_t i = 0; i < n; i += kChunk) {
        const int64_t m = std::min(kChunk, n - i);
        for (int64_t j = 0; j < m; ++j) in_buf[j] = static_cast<double>(in[i + j]);
        kernel.call(kernel.self, in_buf, out_buf, m);
        for (int64_t j = 0; j < m; ++j) out[i + j] = round_saturate<T>(out_buf[j]);
    }
}

}  // namespace

void unary_via_f32(ElementType type, const void* in, void* out, int64_t n, UnaryKernelRef<float> kernel) {
    if (type == ElementType::f16)
        via_f32(static_cast<const float16*>(in), static_cast<float16*>(out), n, kernel);
    else if (type == ElementType::bf16)
        via_f32(static_cast<const bfloat16*>(in), static_cast<bfloat16*>(out), n, kernel);
    else
        throw Error(ErrorKind::Type, "element-type-unsupported",
                    str("internal: ", to_string(type), " is not computed through f32"));
}

void unary_via_f64(ElementType type, const void* in, void* out, int64_t n, UnaryKernelRef<double> kernel) {
    dispatch_type(type, [&](auto tag) {
        using T = decltype(tag);
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
            via_f64(static_cast<const T*>(in), static_cast<T*>(out), n, kernel);
        else
            throw Error(ErrorKind::Type, "element-type-unsupported",
                        str("internal: ", to_string(type), " is not an integer type"));
    });
}

std::vector<OutputInfo> infer_unary(const InferContext& ctx, TypeMask allowed) {
    const ElementType type = ctx.type(0);
    if ((allowed & type_bit(type)) == 0)
        throw ctx.input_error(0, ErrorKind::Type, "element-type-unsupported",
                              str(ctx.def().type, " does not support element type ", to_string(type),
                                  " (supported: ", type_mask_text(allowed), ")"));
    return {{type, ctx.shape(0)}};
}

OpDef unary_op_def(std::string type, int version, TypeMask allowed) {
    OpDef d;
    d.type = std::move(type);
    d.version = version;
    d.first_opset = version;
    d.input_roles = {"data"};
    d.min_inputs = 1;
    d.infer = [allowed](const InferContext& ctx) { return infer_unary(ctx, allowed); };
    d.prepare = prepare_eltwise;
    return d;
}

std::unique_ptr<OpPlan> prepare_eltwise(const InferContext&) {
    auto plan = std::make_unique<OpPlan>();
    plan->in_place.push_back({0, 0});
    plan->method = "eltwise";
    return plan;
}

}  // namespace irlite::detail
