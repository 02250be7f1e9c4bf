// Convert-1 (opset1+): element-wise type conversion.
// Input 0 'data': any type irlite holds, the packed weight types included (unpacked here: u1, u4,
// i4, nf4, f4e2m1, f8e4m3, f8e5m2, f8e8m0). Attribute
// destination_type (any OpenVINO element type; the graph builder refuses to run it to one irlite
// does not store, such as string; converting to a packed type is refused too: irlite unpacks
// compressed weights but does not compress).
// Output 0: same shape, destination_type.
// Rules (OpenVINO's, where the spec leaves room):
//   float -> integer: NaN gives 0; the value is clamped to the destination's range, then truncated
//     toward zero (the CPU plugin's saturating conversion; 3.9 -> 3, -3.9 -> -3, 300.0 -> u8 255).
//   integer -> integer: C++ conversion (modulo 2^N, as the spec says: i32 -1 -> u32 4294967295).
//   anything -> boolean: value != 0 (NaN is true). boolean -> anything: 0 or 1.
//   -> f16/bf16: via f32, round to nearest even, overflow to inf.
// Types: every irlite element type to every other.
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "engine/op.hpp"
#include "kernels/detail/half_convert.hpp"
#include "kernels/detail/parallel.hpp"

namespace irlite {
namespace {

struct ConvertAttrs : OpAttrs {
    ElementType destination = ElementType::f32;
};

// A storage value as a C++ arithmetic value (16-bit floats widened to float).
template <class T>
auto widen(T v) {
    if constexpr (std::is_same_v<T, float16>) return f16_to_f32(v.bits);
    else if constexpr (std::is_same_v<T, bfloat16>) return bf16_to_f32(v.bits);
    else return v;
}

template <class To, class From>
To float_to_integer(From v) {
    if (std::isnan(v)) return To{0};
    // lowest() of every integer type and max() + 1 (a power of two) are exact doubles, so the
    // comparisons below are exact.
    const double x = static_cast<double>(v);
    constexpr double lowest = static_cast<double>(std::numeric_limits<To>::lowest());
    const double above_max = std::ldexp(1.0, std::numeric_limits<To>::digits);
    if (x <= lowest) return std::numeric_limits<To>::lowest();
    if (x >= above_max) return std::numeric_limits<To>::max();
    return static_cast<To>(x);  // truncates toward zero; in range by the checks above
}

template <class To, class From>
To convert_value(From raw) {
    const auto v = widen(raw);
    using V = decltype(v);
    if constexpr (std::is_same_v<To, bool>) {
        return v != V{0};
    } else if constexpr (std::is_same_v<To, float16>) {
        return float16{f32_to_f16(static_cast<float>(v))};
    } else if constexpr (std::is_same_v<To, bfloat16>) {
        return bfloat16{f32_to_bf16(static_cast<float>(v))};
    } else if constexpr (std::is_floating_point_v<To>) {
        return static_cast<To>(v);
    } else if constexpr (std::is_floating_point_v<V>) {
        return float_to_integer<To>(v);
    } else {
        return static_cast<To>(v);  // integer or bool -> integer
    }
}

template <class To, class From>
void convert_buffer(const From* in, To* out, int64_t n) {
    for (int64_t i = 0; i < n; ++i) out[i] = convert_value<To>(in[i]);
}

// The plan: for the 4- and 8-bit float inputs, the destination value of every code (16 or 256),
// made once here (the decompression of NNCF/FP8 weights happens at inference, into the arena).
// Converting to the same type makes the output a view of the input.
struct ConvertPlan : OpPlan {
    std::vector<std::byte> table;  // [code] -> the destination value's bytes
};

bool is_packed_float(ElementType t) { return is_packed(t) && t != ElementType::u1 && t != ElementType::u4 && t != ElementType::i4; }
bool has_nibble_codes(ElementType t) { return t == ElementType::nf4 || t == ElementType::f4e2m1; }

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    auto plan = std::make_unique<ConvertPlan>();
    plan->method = "convert";
    const ElementType from = ctx.type(0), to = ctx.attrs<ConvertAttrs>().destination;
    if (from == to && !is_packed(from)) {
        plan->views.push_back({0, 0, 0});
        plan->method = "view";
    } else if (is_packed_float(from) && !is_packed(to)) {
        dispatch_type(to, [&](auto to_tag) {
            using To = decltype(to_tag);
            const unsigned codes = has_nibble_codes(from) ? 16u : 256u;
            plan->table.resize(codes * sizeof(To));
            for (unsigned code = 0; code < codes; ++code) {
                const To v = convert_value<To>(packed_float_code(from, code));
                std::memcpy(plan->table.data() + code * sizeof(To), &v, sizeof(To));
            }
        });
    }
    return plan;
}

// Packed input. u1/u4/i4: element by element through int64 (the values are small integers). The
// 4- and 8-bit floats: through the plan's table.
void convert_packed(const ConvertPlan& plan, const Tensor& in, Tensor& out) {
    const ElementType from = in.type();
    const int64_t n = in.num_elements();
    const auto* bytes = static_cast<const uint8_t*>(in.data());
    dispatch_type(out.type(), [&](auto to_tag) {
        using To = decltype(to_tag);
        To* o = out.data<To>();
        if (!is_packed_float(from)) {
            for (int64_t i = 0; i < n; ++i) o[i] = convert_value<To>(packed_element(in.data(), from, i));
            return;
        }
        IRLITE_CHECK(plan.table.size() == (has_nibble_codes(from) ? 16u : 256u) * sizeof(To), ErrorKind::Value,
                     "internal-error", "Convert's code table was made for another type");
        const auto* table = reinterpret_cast<const To*>(plan.table.data());
        if (has_nibble_codes(from)) {
            for (int64_t i = 0; i < n; ++i) o[i] = table[(bytes[i >> 1] >> ((i & 1) * 4)) & 0xF];
        } else {
            for (int64_t i = 0; i < n; ++i) o[i] = table[bytes[i]];
        }
    });
}

void compute(KernelContext& ctx) {
    const Tensor& in = ctx.input(0);
    Tensor& out = ctx.output(0);
    IRLITE_CHECK(!is_packed(out.type()) || in.type() == out.type(), ErrorKind::Unsupported, "element-type-unsupported",
                 "irlite converts from ", to_string(in.type()), " but not to ", to_string(out.type()));
    if (is_packed(in.type()) && in.type() != out.type()) return convert_packed(ctx.plan<ConvertPlan>(), in, out);
    if (in.type() == out.type()) {
        detail::parallel_memcpy(ctx.pool(), out.data(), in.data(), in.byte_size());
        return;
    }
    // The pair an FP16 model's boundary converts (engine/precision.hpp): vectorised, threaded.
    if (in.type() == ElementType::f16 && out.type() == ElementType::f32)
        return detail::f16_to_f32_buffer(ctx.pool(), static_cast<const uint16_t*>(in.data()), out.data<float>(),
                                         in.num_elements());
    if (in.type() == ElementType::f32 && out.type() == ElementType::f16)
        return detail::f32_to_f16_buffer(ctx.pool(), in.data<float>(), static_cast<uint16_t*>(out.data()),
                                         in.num_elements());
    dispatch_type(in.type(), [&](auto from_tag) {
        using From = decltype(from_tag);
        dispatch_type(out.type(), [&](auto to_tag) {
            using To = decltype(to_tag);
            convert_buffer(in.data<From>(), out.data<To>(), in.num_elements());
        });
    });
}

}  // namespace

OpDef make_convert_op() {
    OpDef d;
    d.type = "Convert";
    d.version = 1;
    d.input_roles = {"data"};
    d.min_inputs = 1;
    d.accepts_packed = true;  // unpacks u1/u4/i4/nf4/f4/f8 (compressed weights: u4 Const -> Convert)
    d.is_convert = true;
    d.parse_attrs = [](const AttrReader& r) -> std::unique_ptr<OpAttrs> {
        auto a = std::make_unique<ConvertAttrs>();
        a->destination = r.get_element_type("destination_type");
        return a;
    };
    d.infer = [](const InferContext& ctx) {
        return std::vector<OutputInfo>{{ctx.attrs<ConvertAttrs>().destination, ctx.shape(0)}};
    };
    d.prepare = prepare;
    d.compute = compute;
    return d;
}

}  // namespace irlite
