// CTCGreedyDecoder-1 (opset1+) and CTCGreedyDecoderSeqLen-6 (opset6+): best-path decoding of CTC
// logits.
//
// CTCGreedyDecoderSeqLen-6: inputs 0 'data' [N, T, C] (float; batch first), 1 'sequence_length'
// [N] (i32/i64, each in [0, T]), 2 'blank_index' (optional integer scalar, default C - 1).
// Attributes merge_repeated (default true), classes_index_type, sequence_length_type (i32 default
// | i64). Outputs 'decoded_classes' [N, T] (the classes, then -1) and 'decoded_length' [N]. The
// same rule as below, over the first sequence_length[n] steps, with the given blank.
//
// CTCGreedyDecoder-1:
// Inputs: 0 'data' [T, N, C] (f16, bf16, f32, f64), 1 'sequence_mask' [T, N] (data's type, 1 while
// sequence n has a symbol at time t, then 0). Attribute ctc_merge_repeated (default true).
// Output [N, T, 1, 1] of data's type: per sequence the decoded classes, then -1.
// Per sequence n, for t = 0, 1, ... while sequence_mask[t, n] != 0: c = the class of the largest
// logit (the lowest such class on ties). The blank class is C - 1 (the spec's convention, as
// TensorFlow's): a blank emits nothing; with ctc_merge_repeated a class equal to the previous
// step's class (blank included, so "a blank a" gives "a a") emits nothing either.
#include <type_traits>

#include "engine/op.hpp"
#include "kernels/detail/float_value.hpp"

namespace irlite {
namespace {

using detail::load_as;
using detail::store_as;

constexpr size_t kData = 0, kMask = 1;

struct CtcAttrs : OpAttrs {
    bool merge_repeated = true;
};

std::unique_ptr<OpAttrs> parse(const AttrReader& r) {
    auto a = std::make_unique<CtcAttrs>();
    a->merge_repeated = r.get_bool("ctc_merge_repeated", true);
    return a;
}

std::vector<OutputInfo> infer(const InferContext& ctx) {
    const ElementType type = ctx.type(kData);
    if (!is_storable_float(type))
        throw ctx.input_error(kData, ErrorKind::Type, "element-type-unsupported",
                              str("data must be a floating-point tensor (f16, bf16, f32, f64), got ", to_string(type)));
    if (ctx.type(kMask) != type)
        throw ctx.input_error(kMask, ErrorKind::Type, "element-type-mismatch",
                              str("sequence_mask is ", to_string(ctx.type(kMask)), ", data is ", to_string(type),
                                  "; they must be the same"));
    const PartialShape& data = ctx.shape(kData);
    const PartialShape& mask = ctx.shape(kMask);
    if (data.rank_known() && data.rank() != 3)
        throw ctx.input_error(kData, ErrorKind::ShapeRule, "rank-invalid",
                              str("data must be 3-D [T, N, C], got shape ", to_string(data)));
    if (mask.rank_known() && mask.rank() != 2)
        throw ctx.input_error(kMask, ErrorKind::ShapeRule, "rank-invalid",
                              str("sequence_mask must be 2-D [T, N], got shape ", to_string(mask)));
    int64_t t = kDynamic, n = kDynamic;
    if (data.rank_known()) t = data[0], n = data[1];
    if (mask.rank_known()) {
        if (!dims_compatible(t, mask[0]) || !dims_compatible(n, mask[1]))
            throw ctx.input_error(kMask, ErrorKind::ShapeRule, "shape-mismatch",
                                  str("sequence_mask ", to_string(mask), " does not match data [T=", t, ", N=", n, "]"));
        if (t == kDynamic) t = mask[0];
        if (n == kDynamic) n = mask[1];
    }
    if (data.rank_known() && data[2] == 0)
        throw ctx.input_error(kData, ErrorKind::ShapeRule, "classes-empty", "data has no classes (C = 0)");
    return {{type, PartialShape({n, t, 1, 1})}};
}

template <class T>
void decode(const Tensor& data, const Tensor& mask, Tensor& out, bool merge_repeated) {
    const int64_t steps = data.shape()[0], batch = data.shape()[1], classes = data.shape()[2];
    const T* logits = data.data<T>();
    const T* m = mask.data<T>();
    T* o = out.data<T>();
    const int64_t blank = classes - 1;
    for (int64_t n = 0; n < batch; ++n) {
        T* row = o + n * steps;
        int64_t emitted = 0, previous = -1;
        for (int64_t t = 0; t < steps && load_as<double>(m, t * batch + n) != 0; ++t) {
            const T* l = logits + (t * batch + n) * classes;
            int64_t best = 0;
            double best_value = load_as<double>(l, 0);
            for (int64_t c = 1; c < classes; ++c) {
                const double v = load_as<double>(l, c);
                if (v > best_value) best = c, best_value = v;
            }
            if (best != blank && !(merge_repeated && best == previous)) row[emitted++] = store_as<T>(static_cast<double>(best));
            previous = best;
        }
        for (int64_t t = emitted; t < steps; ++t) row[t] = store_as<T>(-1.0);
    }
}

// The shape rule settled the shapes; what is left to plan is nothing (the decoding reads values).
std::unique_ptr<OpPlan> prepare_decoder(const InferContext&) {
    auto plan = std::make_unique<OpPlan>();
    plan->method = "greedy";
    return plan;
}

void compute(KernelContext& ctx) {
    const Tensor& data = ctx.input(kData);
    const Tensor& mask = ctx.input(kMask);
    Tensor& out = ctx.output(0);
    IRLITE_CHECK(data.rank() == 3 && mask.rank() == 2 && mask.shape()[0] == data.shape()[0] &&
                     mask.shape()[1] == data.shape()[1] &&
                     out.num_elements() == data.shape()[0] * data.shape()[1],
                 ErrorKind::ShapeRule, "kernel-output-mismatch", "inputs and output disagree with the shape rule");
    const bool merge = ctx.attrs<CtcAttrs>().merge_repeated;
    switch (data.type()) {
        case ElementType::f16: return decode<float16>(data, mask, out, merge);
        case ElementType::bf16: return decode<bfloat16>(data, mask, out, merge);
        case ElementType::f64: return decode<double>(data, mask, out, merge);
        default: return decode<float>(data, mask, out, merge);
    }
}

// ---- CTCGreedyDecoderSeqLen-6 ---------------------------------------------------------------------

constexpr size_t kSeqData = 0, kSeqLength = 1, kBlank = 2;

struct SeqLenAttrs : OpAttrs {
    bool merge_repeated = true;
    ElementType classes_type = ElementType::i32, length_type = ElementType::i32;
};

ElementType index_type(const AttrReader& r, const char* name) {
    const std::string t = r.get_enum(name, {"i32", "i64"}, "i32");
    return t == "i64" ? ElementType::i64 : ElementType::i32;
}

std::unique_ptr<OpAttrs> parse_seq_len(const AttrReader& r) {
    auto a = std::make_unique<SeqLenAttrs>();
    a->merge_repeated = r.get_bool("merge_repeated", true);
    a->classes_type = index_type(r, "classes_index_type");
    a->length_type = index_type(r, "sequence_length_type");
    return a;
}

std::vector<OutputInfo> infer_seq_len(const InferContext& ctx) {
    const auto& a = ctx.attrs<SeqLenAttrs>();
    if (!is_storable_float(ctx.type(kSeqData)))
        throw ctx.input_error(kSeqData, ErrorKind::Type, "element-type-unsupported",
                              str("data must be a floating-point tensor, got ", to_string(ctx.type(kSeqData))));
    for (size_t p = kSeqLength; p < ctx.num_inputs(); ++p)
        if (ctx.type(p) != ElementType::i32 && ctx.type(p) != ElementType::i64)
            throw ctx.input_error(p, ErrorKind::Type, "index-type",
                                  str(ctx.def().input_role(p), " must be i32 or i64, got ", to_string(ctx.type(p))));
    const PartialShape& data = ctx.shape(kSeqData);
    const PartialShape& length = ctx.shape(kSeqLength);
    if (data.rank_known() && data.rank() != 3)
        throw ctx.input_error(kSeqData, ErrorKind::ShapeRule, "rank-invalid", str("data must be 3-D [N, T, C], got ", to_string(data)));
    if (length.rank_known() && length.rank() != 1)
        throw ctx.input_error(kSeqLength, ErrorKind::ShapeRule, "rank-invalid",
                              str("sequence_length must be 1-D [N], got ", to_string(length)));
    int64_t n = data.rank_known() ? data[0] : kDynamic, t = data.rank_known() ? data[1] : kDynamic;
    if (length.rank_known()) {
        if (!dims_compatible(n, length[0]))
            throw ctx.input_error(kSeqLength, ErrorKind::ShapeRule, "shape-mismatch",
                                  str("sequence_length has ", length[0], " entries, batch is ", n));
        if (n == kDynamic) n = length[0];
    }
    if (ctx.num_inputs() > kBlank) {
        const PartialShape& b = ctx.shape(kBlank);
        if (b.rank_known() && (b.rank() > 1 || (b.rank() == 1 && !dims_compatible(b[0], 1))))
            throw ctx.input_error(kBlank, ErrorKind::ShapeRule, "scalar-expected", str("blank_index must be a scalar, got ", to_string(b)));
    }
    return {{a.classes_type, PartialShape({n, t})}, {a.length_type, PartialShape({n})}};
}

template <class T, class I, class L>
void decode_seq_len(const KernelContext& ctx, const Tensor& data, Tensor& classes, Tensor& lengths) {
    const int64_t batch = data.shape()[0], steps = data.shape()[1], num_classes = data.shape()[2];
    const Tensor& seq = ctx.input(kSeqLength);
    const int64_t blank = ctx.num_inputs() > kBlank ? ctx.input(kBlank).value_as_int64(0) : num_classes - 1;
    const bool merge = ctx.attrs<SeqLenAttrs>().merge_repeated;
    const T* logits = data.data<T>();
    I* out = classes.data<I>();
    L* len = lengths.data<L>();
    for (int64_t n = 0; n < batch; ++n) {
        const int64_t length = seq.value_as_int64(n);
        if (length < 0 || length > steps)
            throw ctx.input_error(kSeqLength, ErrorKind::Value, "index-out-of-range",
                                  str("sequence_length[", n, "] = ", length, ": value ", length, " not in [0, ", steps, "]"));
        int64_t emitted = 0, previous = -1;
        for (int64_t t = 0; t < length; ++t) {
            const T* l = logits + (n * steps + t) * num_classes;
            int64_t best = 0;
            double best_value = load_as<double>(l, 0);
            for (int64_t c = 1; c < num_classes; ++c)
                if (load_as<double>(l, c) > best_value) best = c, best_value = load_as<double>(l, c);
            if (best != blank && !(merge && best == previous)) out[n * steps + emitted++] = static_cast<I>(best);
            previous = best;
        }
        for (int64_t t = emitted; t < steps; ++t) out[n * steps + t] = static_cast<I>(-1);
        len[n] = static_cast<L>(emitted);
    }
}

template <class T>
void decode_seq_len_typed(const KernelContext& ctx, const Tensor& data, Tensor& classes, Tensor& lengths) {
    const bool ci64 = classes.type() == ElementType::i64, li64 = lengths.type() == ElementType::i64;
    if (ci64 && li64) decode_seq_len<T, int64_t, int64_t>(ctx, data, classes, lengths);
    else if (ci64) decode_seq_len<T, int64_t, int32_t>(ctx, data, classes, lengths);
    else if (li64) decode_seq_len<T, int32_t, int64_t>(ctx, data, classes, lengths);
    else decode_seq_len<T, int32_t, int32_t>(ctx, data, classes, lengths);
}

void compute_seq_len(KernelContext& ctx) {
    const Tensor& data = ctx.input(kSeqData);
    Tensor& classes = ctx.output(0);
    Tensor& lengths = ctx.output(1);
    IRLITE_CHECK(data.rank() == 3 && ctx.input(kSeqLength).num_elements() == data.shape()[0] &&
                     classes.num_elements() == data.shape()[0] * data.shape()[1],
                 ErrorKind::ShapeRule, "kernel-output-mismatch", "inputs and outputs disagree with the shape rule");
    switch (data.type()) {
        case ElementType::f16: return decode_seq_len_typed<float16>(ctx, data, classes, lengths);
        case ElementType::bf16: return decode_seq_len_typed<bfloat16>(ctx, data, classes, lengths);
        case ElementType::f64: return decode_seq_len_typed<double>(ctx, data, classes, lengths);
        default: return decode_seq_len_typed<float>(ctx, data, classes, lengths);
    }
}

}  // namespace

OpDef make_ctc_greedy_decoder_seq_len_op() {
    OpDef d;
    d.type = "CTCGreedyDecoderSeqLen";
    d.version = 6;
    d.input_roles = {"data", "sequence_length", "blank_index"};
    d.min_inputs = 2;
    d.num_outputs = 2;
    d.parse_attrs = parse_seq_len;
    d.infer = infer_seq_len;
    d.prepare = prepare_decoder;
    d.compute = compute_seq_len;
    return d;
}

OpDef make_ctc_greedy_decoder_op() {
    OpDef d;
    d.type = "CTCGreedyDecoder";
    d.version = 1;
    d.input_roles = {"data", "sequence_mask"};
    d.min_inputs = 2;
    d.parse_attrs = parse;
    d.infer = infer;
    d.prepare = prepare_decoder;
    d.compute = compute;
    return d;
}

}  // namespace irlite
