// FakeQuantize-1 (opset1+): elementwise linear quantization of floats into `levels` discrete
// values, kept in the input's float type.
// Inputs: 0 'X', 1 'input_low', 2 'input_high', 3 'output_low', 4 'output_high', all of one float
// type (f16, bf16, f32, f64); the four ranges broadcast with X (numpy rules, or equal shapes with
// auto_broadcast="none"): per tensor, per channel ([1,C,1,1]) or per element.
// Attributes: levels (integer >= 2, required), auto_broadcast (numpy default, none).
// Per element, with il, ih, ol, oh the broadcast range values:
//   x <= min(il, ih)  -> ol
//   x >  max(il, ih)  -> oh
//   otherwise         -> round((x - il) / (ih - il) * (levels - 1)) / (levels - 1) * (oh - ol) + ol
// `round` is round-half-to-even (std::nearbyint in the default rounding mode), OpenVINO's
// reference choice. Inverted ranges (il > ih, ol > oh) follow the same formula. f16 and bf16
// compute in f32, f32 in f32 and f64 in f64.
// The output's shape is the broadcast of all five inputs (OpenVINO merges every range into it; for
// ranges that broadcast onto X, as the spec requires, it is X's shape).
//
// Inside a region of level tensors (engine/level_tensors.hpp), the level pass hands a FakeQuantize
// of constant scalar ranges its own quantizer (OpDef::with_quantized_input): its data can then be
// its own levels (u8, written by the layers before it under this quantizer: the level index its
// formula computes) and its result the levels of its readers' quantizer, both through tables of
// its levels built at prepare (method "levels"): value[k] = k / (levels - 1) * (oh - ol) + ol (the
// formula's value for level k) and level[k] = the readers' level of value[k]. Exact where a level
// stands for one value: the top level is taken only when level[top] is the readers' level of oh
// (x > ih gives oh, x = ih the formula's top value) and, for f32 results of u8 data, value[top]
// is oh itself. A NaN in the data becomes level 0 on the way in (README: INT8).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <type_traits>

#include "kernels/detail/broadcast.hpp"
#include "kernels/detail/float_value.hpp"
#include "kernels/detail/cpu_isa.hpp"
#include "kernels/detail/fake_quantize_row.hpp"
#include "kernels/detail/float_dispatch.hpp"
#include "kernels/detail/parallel.hpp"
#include "kernels/detail/quantize_levels.hpp"

namespace irlite {
namespace {

using namespace detail;

constexpr size_t kInputs = 5;
constexpr int64_t kLevelChunk = 1 << 14;  // elements per task of the level pass's form

struct FakeQuantizeAttrs : OpAttrs {
    int64_t levels = 0;
    AutoBroadcast broadcast = AutoBroadcast::Numpy;
    // The level pass's: this node's own quantizer, whether its data are its levels (levels_in)
    // and its result its readers' levels (levels_out). Null: the op as above.
    std::shared_ptr<const QuantizedInput> quantized;
};

bool reads_levels(const FakeQuantizeAttrs& a) { return a.quantized && a.quantized->levels_in; }
bool writes_levels(const FakeQuantizeAttrs& a) { return a.quantized && a.quantized->levels_out; }

std::unique_ptr<OpAttrs> parse(const AttrReader& r) {
    auto a = std::make_unique<FakeQuantizeAttrs>();
    a->levels = r.get_i64("levels");
    if (a->levels < 2)
        throw Error(ErrorKind::Attribute, "attribute-invalid",
                    str("attribute 'levels' = ", a->levels, ": FakeQuantize levels must be >= 2"));
    a->broadcast = parse_auto_broadcast(r);
    return a;
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    const auto& a = ctx.attrs<FakeQuantizeAttrs>();
    // Levels in: X is u8 and the ranges give the float type.
    const ElementType type = reads_levels(a) ? ctx.type(1) : ctx.type(0);
    if (reads_levels(a) && ctx.type(0) != ElementType::u8)
        throw ctx.input_error(0, ErrorKind::Type, "element-type-unsupported",
                              str("X must be u8 levels (the level pass's), got ", to_string(ctx.type(0))));
    if (!is_float(type))
        throw ctx.input_error(0, ErrorKind::Type, "element-type-unsupported",
                              str("X must be a floating-point tensor (f16, bf16, f32, f64), got ", to_string(type)));
    const AutoBroadcast mode = a.broadcast;
    PartialShape shape = ctx.shape(0);
    for (size_t i = reads_levels(a) ? 2 : 1; i < kInputs; ++i) {
        if (ctx.type(i) != type)
            throw ctx.input_error(i, ErrorKind::Type, "element-type-mismatch",
                                  str(ctx.def().input_role(i), " is ", to_string(ctx.type(i)), ", X is ", to_string(type),
                                      ": every input must have the same element type"));
        try {
            shape = broadcast_shapes(shape, ctx.shape(i), mode);
        } catch (const Error& e) {
            throw ctx.input_error(i, ErrorKind::ShapeRule, "broadcast-incompatible",
                                  str(ctx.def().input_role(i), " of shape ", to_string(ctx.shape(i)),
                                      " does not broadcast to data ", to_string(ctx.shape(0)), " (", e.message(), ")"));
        }
    }
    return {{writes_levels(a) ? ElementType::u8 : type, shape}};
}

// The output walked as rows (broadcast.hpp's plan over the five inputs): an odometer over the
// outer dims, a row inside which each input advances by 0 or 1 element. Dims are merged where every
// input allows it, so a per-tensor or per-channel range over [N,C,H,W] gives rows of H*W elements.
struct FakeQuantizePlan : OpPlan {
    int64_t levels = 2;
    BroadcastRows<kInputs> rows;
    // The level pass's form (method "levels"): f32 data quantized to levels first (`quantizer`),
    // then each level's value or readers' level.
    bool by_levels = false, levels_in = false, levels_out = false;
    bool identity = false;  // levels in and out, each level its own (the readers' quantizer is this one)
    nn::Int8Quantizer quantizer;
    std::array<float, 256> value{};
    std::array<uint8_t, 256> level{};
};

float level_value(int64_t k, float steps, float ol, float oh) {
    return nn::fake_quantize_level_value(static_cast<float>(k), steps, ol, oh);
}

// Whether the level pass's form is exact for `q` (see the file comment).
bool levels_exact(const QuantizedInput& q) {
    const auto steps = static_cast<float>(q.levels - 1);
    const float top = level_value(q.levels - 1, steps, q.out_low, q.out_high);
    if (q.levels_out) {
        const nn::Int8Quantizer readers(*q.levels_out, cpu::Isa::Sse);
        const float ends[2] = {top, q.out_high};
        uint8_t got[2];
        readers.quantize(ends, 2, got);
        return got[0] == got[1];
    }
    return !q.levels_in || top == q.out_high;
}

void prepare_levels(const QuantizedInput& q, FakeQuantizePlan& plan) {
    plan.by_levels = true;
    plan.levels_in = q.levels_in, plan.levels_out = q.levels_out.has_value();
    plan.quantizer = nn::Int8Quantizer(q, cpu::active_isa());
    const auto steps = static_cast<float>(q.levels - 1);
    for (int64_t k = 0; k < q.levels; ++k) plan.value[static_cast<size_t>(k)] = level_value(k, steps, q.out_low, q.out_high);
    if (plan.levels_out)
        nn::Int8Quantizer(*q.levels_out, cpu::active_isa()).quantize(plan.value.data(), q.levels, plan.level.data());
    plan.identity = plan.levels_in && plan.levels_out;
    for (int64_t k = 0; k < q.levels; ++k) plan.identity = plan.identity && plan.level[static_cast<size_t>(k)] == k;
    plan.method = plan.identity ? "levels-copy" : "levels";
}

std::unique_ptr<OpPlan> prepare(const InferContext& ctx) {
    const Shape out = infer(ctx)[0].shape.dims();
    auto plan = std::make_unique<FakeQuantizePlan>();
    const auto& a = ctx.attrs<FakeQuantizeAttrs>();
    plan->levels = a.levels;
    if (a.quantized && (a.quantized->levels_in || a.quantized->levels_out)) {
        prepare_levels(*a.quantized, *plan);
        // f32 data is quantized a chunk at a time into the thread's scratch.
        if (!plan->levels_in) plan->scratch_bytes = kLevelChunk;
        if (plan->levels_in && plan->levels_out) plan->in_place.push_back({0, 0});
        return plan;
    }
    plan->method = "eltwise";
    std::array<const Shape*, kInputs> inputs{};
    for (size_t i = 0; i < kInputs; ++i) inputs[i] = &ctx.shape(i).dims();
    plan->rows = plan_broadcast_n<kInputs>(inputs, out);
    plan->in_place.push_back({0, 0});
    return plan;
}

template <class C>
inline C quantize(C x, C il, C ih, C ol, C oh, C steps) {
    if (x <= std::min(il, ih)) return ol;
    if (x > std::max(il, ih)) return oh;
    return std::nearbyint((x - il) / (ih - il) * steps) / steps * (oh - ol) + ol;
}

template <class T>
void run_rows(const FakeQuantizePlan& plan, const std::array<const T*, kInputs>& in, T* out, int64_t first,
              int64_t last) {
    using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
    const C steps = static_cast<C>(plan.levels - 1);
    const BroadcastRows<kInputs>& rows = plan.rows;
    const std::array<bool, kInputs>& advances = rows.varies;
    rows.for_each_row_in(first, last, [&](const BroadcastRows<kInputs>::Offsets& offset, int64_t out_offset) {
        T* dst = out + out_offset;
        const T* x = in[0] + offset[0];
        if (!advances[1] && !advances[2] && !advances[3] && !advances[4]) {
            // One range for the whole row: the common per-tensor and per-channel cases.
            const C il = load_as<C>(in[1], offset[1]), ih = load_as<C>(in[2], offset[2]);
            const C ol = load_as<C>(in[3], offset[3]), oh = load_as<C>(in[4], offset[4]);
            if (advances[0]) {
                bool vectorised = false;
                if constexpr (std::is_same_v<T, float>) {
                    if (steps < nn::kMagicRoundLimit) {
                        cpu::run([&] { nn::fake_quantize_row(x, rows.row_length, il, ih, ol, oh, steps, dst); });
                        vectorised = true;
                    }
                }
                if (!vectorised)
                    for (int64_t j = 0; j < rows.row_length; ++j)
                        store_at(dst, j, quantize(load_as<C>(x, j), il, ih, ol, oh, steps));
            } else {
                const C v = quantize(load_as<C>(x, 0), il, ih, ol, oh, steps);
                for (int64_t j = 0; j < rows.row_length; ++j) store_at(dst, j, v);
            }
        } else {
            for (int64_t j = 0; j < rows.row_length; ++j) {
                C v[kInputs];
                for (size_t i = 0; i < kInputs; ++i)
                    v[i] = load_as<C>(in[i], offset[i] + (advances[i] ? j : 0));
                store_at(dst, j, quantize(v[0], v[1], v[2], v[3], v[4], steps));
            }
        }
    });
}

// The level pass's form: each element's level (as it comes, or quantized into the scratch), then
// its value or its readers' level.
void compute_levels(const FakeQuantizePlan& plan, KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    Tensor& out = ctx.output(0);
    if (plan.identity) {  // nothing to do in place (the memory plan's choice), else a copy
        parallel_memcpy(ctx.pool(), out.data(), x.data(), x.byte_size());
        return;
    }
    const cpu::Isa isa = cpu::active_isa();
    record_isa_level(static_cast<int>(isa));  // for profiles (engine/isa_trace.hpp)
    for_chunks(ctx.pool(), out.num_elements(), kLevelChunk, [&](int64_t first, int64_t last) {
        const uint8_t* levels = nullptr;
        if (plan.levels_in) {
            levels = x.data<uint8_t>() + first;
        } else {
            auto* scratch = static_cast<uint8_t*>(ctx.scratch());
            plan.quantizer.quantize(x.data<float>() + first, last - first, scratch);
            levels = scratch;
        }
        if (plan.levels_out)
            nn::lookup_levels(plan.level.data(), levels, last - first, out.data<uint8_t>() + first, isa);
        else
            nn::lookup_levels(plan.value.data(), levels, last - first, out.data<float>() + first, isa);
    });
}

void compute(KernelContext& ctx) {
    const auto& plan = ctx.plan<FakeQuantizePlan>();
    Tensor& out = ctx.output(0);
    if (out.num_elements() == 0) return;
    if (plan.by_levels) return compute_levels(plan, ctx);
    detail::dispatch_storable_float(out.type(), [&](auto tag) {
        using T = decltype(tag);
        std::array<const T*, kInputs> in{};
        for (size_t i = 0; i < kInputs; ++i) in[i] = ctx.input(i).template data<T>();
        T* dst = out.data<T>();
        // Rows in chunks of about kChunk elements, fixed by the sizes alone (each element's
        // result does not depend on the chunking anyway).
        constexpr int64_t kChunk = 1 << 14;
        for_chunks(ctx.pool(), plan.rows.num_rows(), std::max<int64_t>(1, kChunk / plan.rows.row_length),
                   [&](int64_t first, int64_t last) { run_rows<T>(plan, in, dst, first, last); });
    });
}

// For an epilogue (engine/epilogue.hpp): f32 ranges that are constants of one element each, and
// levels the vectorised row form covers.
std::optional<EpilogueFakeQuantize> as_fake_quantize(const InferContext& ctx) {
    EpilogueFakeQuantize fq;
    fq.levels = ctx.attrs<FakeQuantizeAttrs>().levels;
    if (ctx.num_inputs() != kInputs || static_cast<float>(fq.levels - 1) >= nn::kMagicRoundLimit) return std::nullopt;
    float range[4];
    for (size_t i = 1; i < kInputs; ++i) {
        const Tensor* t = ctx.value(i);
        if (!t || t->type() != ElementType::f32 || t->num_elements() != 1 || ctx.type(i) != ElementType::f32)
            return std::nullopt;
        range[i - 1] = t->data<float>()[0];
    }
    fq.in_low = range[0], fq.in_high = range[1], fq.out_low = range[2], fq.out_high = range[3];
    fq.active = true;
    return fq;
}

}  // namespace

OpDef make_fake_quantize_op() {
    OpDef d;
    d.type = "FakeQuantize";
    d.version = 1;
    d.input_roles = {"X", "input_low", "input_high", "output_low", "output_high"};
    d.min_inputs = 5;
    d.parse_attrs = parse;
    d.infer = infer;
    d.prepare = prepare;
    d.compute = compute;
    d.quantization_levels = [](const OpAttrs& a) { return static_cast<const FakeQuantizeAttrs&>(a).levels; };
    // The level pass's (see the file comment): the node's own quantizer, with the levels it reads
    // and writes; refused where a level would not stand for one value, or the levels differ from
    // the node's own.
    d.with_quantized_input = [](const OpAttrs& a, std::shared_ptr<const QuantizedInput> q) -> std::unique_ptr<OpAttrs> {
        const auto& own = static_cast<const FakeQuantizeAttrs&>(a);
        if (q->levels != own.levels || !q->weights.empty() || !levels_exact(*q)) return nullptr;
        auto with = std::make_unique<FakeQuantizeAttrs>(own);
        with->quantized = std::move(q);
        return with;
    };
    d.quantized_input_of = [](const OpAttrs& a) { return static_cast<const FakeQuantizeAttrs&>(a).quantized.get(); };
    d.as_fake_quantize = as_fake_quantize;
    return d;
}

}  // namespace irlite
