// The differential graph fuzzer's generator and comparison (the fuzz_graph harness and the seed
// replay test, tests/fuzz_graph_seeds_test.cpp, both run it).
//
// Its choices (choices.hpp: libFuzzer's bytes, or a seed) build a chain of 1..5 ops (Slice,
// VariadicSplit, ScatterNDUpdate, ScatterUpdate, ScatterElementsUpdate, GatherElements, GatherND,
// Roll, DepthToSpace, SpaceToDepth, BatchToSpace, SpaceToBatch, ShuffleChannels, OneHot, TopK,
// NonZero, CumSum, GatherND-5, Add, Multiply, Transpose, Concat, Reshape, and the sub-graph ops
// TensorIterator, Loop and If, whose bodies are small chains of Add, Multiply, Roll and CumSum)
// over a data tensor of random type and shape (rank 0..4, dims 0..5), with random index values
// (mostly valid, sometimes out of range or extreme) and constants. Every auxiliary input is a Const or a
// Parameter (so shapes are known at load time or only at run time), the data source too (a Const
// source makes the whole chain fold at load time), and Parameter shapes may have `?` dims.
//
// The graph is written as IR XML + weights in memory, loaded and run through the public API, and
// compared with tests/fuzz/reference_ops.hpp (sub-graph layers: reference_subgraphs.hpp, running
// the body's reference ops in plain loops over the iterations):
//   - the reference rejects some op's inputs  -> irlite must throw irlite::Error (load or run);
//   - otherwise                               -> irlite must not throw, and every output must
//     have the reference's type, shape and values (two inferences on the same request).
// run_and_compare() returns a report of a mismatch; anything but irlite::Error escapes.
#pragma once

#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "irlite/irlite.hpp"
#include "ir_builder.hpp"
#include "fuzz/body_writer.hpp"
#include "fuzz/choices.hpp"
#include "fuzz/reference_ops.hpp"
#include "fuzz/reference_subgraphs.hpp"

namespace irlite::fuzz {

using irlite::ElementType;
using irlite::Shape;
using irlite::reference::Invalid;
using irlite::reference::RefTensor;
namespace ref = irlite::reference;

inline constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
inline constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

// A value in the graph: the producing layer's output port, what it holds, and the dims its port
// declares (exact, or -1 each).
struct Value {
    int layer = -1;
    int port = 0;
    RefTensor ref;
    std::vector<long long> declared;
};

inline std::vector<long long> dims_of(const Shape& s) { return std::vector<long long>(s.begin(), s.end()); }

// Everything stored in a tensor of `t` must fit its type: wrap (integers) or keep (floats).
inline RefTensor fit(RefTensor t) {
    for (auto& v : t.values) v = ref::to_type(t.type, v);
    return t;
}

// The element's bytes as irlite stores it.
inline void store(ElementType type, int64_t v, void* dst) {
    irlite::dispatch_type(type, [&](auto tag) {
        using T = decltype(tag);
        T x;
        if constexpr (std::is_same_v<T, irlite::float16>)
            x = irlite::float16{irlite::f32_to_f16(static_cast<float>(v))};
        else if constexpr (std::is_same_v<T, irlite::bfloat16>)
            x = irlite::bfloat16{irlite::f32_to_bf16(static_cast<float>(v))};
        else if constexpr (std::is_same_v<T, bool>)
            x = v != 0;
        else
            x = static_cast<T>(v);
        std::memcpy(dst, &x, sizeof x);
    });
}

inline std::vector<unsigned char> to_bytes(const RefTensor& t) {
    const size_t size = irlite::element_size(t.type);
    std::vector<unsigned char> bytes(t.values.size() * size);
    for (size_t i = 0; i < t.values.size(); ++i) store(t.type, t.values[i], bytes.data() + i * size);
    return bytes;
}

inline irlite::Tensor to_tensor(const RefTensor& t) {
    irlite::Tensor out(t.type, t.shape);
    const std::vector<unsigned char> bytes = to_bytes(t);
    if (!bytes.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
    return out;
}

// Element i of an irlite output equals the reference value (floats by value: -0 == 0).
inline bool element_matches(const irlite::Tensor& out, int64_t i, int64_t expected) {
    if (irlite::is_float(out.type())) return out.value_as_double(i) == static_cast<double>(expected);
    unsigned char want[8] = {};
    store(out.type(), expected, want);
    return std::memcmp(out.bytes() + static_cast<size_t>(i) * irlite::element_size(out.type()), want,
                       irlite::element_size(out.type())) == 0;
}

class GraphFuzzer {
public:
    explicit GraphFuzzer(Choices& fdp) : fdp_(fdp) {}

    // Sub-graph layers the graph holds (counted as they are written; the test of fixed seeds
    // checks that each kind is generated and compared).
    struct BodyCounts {
        int tensor_iterator = 0;
        int loop = 0;
        int if_ = 0;
        int nested_if = 0;  // an If inside a TensorIterator or Loop body
    };
    const BodyCounts& bodies() const { return bodies_; }
    std::string model_xml() const { return ir_.xml(); }
    // The reference rejects the graph: irlite must throw, and no output is compared.
    bool expects_error() const { return expect_error_; }

    void build() {
        Value cur = source(random_data(), fdp_.ConsumeIntegralInRange(0, 3) != 0, true);
        const int ops = fdp_.ConsumeIntegralInRange(1, 5);
        for (int i = 0; i < ops && !expect_error_; ++i) cur = apply_random_op(cur);
        result(cur);
    }

    // "" when irlite agrees with the reference, else a report: what differs, the model, its inputs
    // and constants.
    std::string run_and_compare() const {
        const std::string xml = ir_.xml();
        const auto& weights = ir_.weights();
        std::string failure;
        bool threw = false;
        std::string error_text;
        try {
            // Always a weights buffer, even an empty one: a model of 0-byte Consts still has a .bin.
            static const unsigned char no_bytes = 0;
            const irlite::Model model =
                irlite::Model::read_from_memory(xml, weights.empty() ? &no_bytes : weights.data(), weights.size());
            const irlite::CompiledModel compiled(model);
            irlite::InferRequest request = compiled.create_infer_request();
            if (compiled.inputs().size() != params_.size())
                failure = "the compiled model has " + std::to_string(compiled.inputs().size()) + " inputs, expected " +
                          std::to_string(params_.size());
            if (!expect_error_ && compiled.outputs().size() != expected_.size())
                failure = "the compiled model has " + std::to_string(compiled.outputs().size()) + " outputs, expected " +
                          std::to_string(expected_.size());
            for (size_t i = 0; i < params_.size() && failure.empty(); ++i) request.set_input(i, to_tensor(params_[i]));
            for (int round = 0; round < 2 && failure.empty(); ++round) {
                request.infer();
                if (expect_error_) break;
                for (size_t o = 0; o < expected_.size() && failure.empty(); ++o) failure = compare(request.output(o), o);
            }
        } catch (const irlite::Error& e) {
            threw = true;
            error_text = e.what();
        }
        if (threw && !expect_error_) failure = "irlite threw, the reference accepts the graph: " + error_text;
        if (!threw && expect_error_ && failure.empty())
            failure = "irlite accepted the graph, the reference rejects it: " + reason_;
        if (failure.empty()) return "";
        std::string report = "fuzz_graph mismatch: " + failure + "\n--- model.xml ---\n" + xml + "\n";
        for (size_t i = 0; i < params_.size(); ++i) report += "input " + std::to_string(i) + ": " + describe(params_[i]) + "\n";
        for (const std::string& c : constants_) report += c + "\n";
        return report;
    }

private:
    // ---- random choices -----------------------------------------------------------------------
    bool one_in(int n) { return fdp_.ConsumeIntegralInRange(1, n) == 1; }

    ElementType data_type() {
        static const ElementType types[] = {ElementType::f32, ElementType::i32, ElementType::i8,  ElementType::u8,
                                            ElementType::i64, ElementType::f64, ElementType::i16, ElementType::u16,
                                            ElementType::u32, ElementType::u64};
        return fdp_.PickValueInArray(types);
    }
    ElementType other_type(ElementType not_this) {
        const ElementType t = data_type();
        return t == not_this ? (t == ElementType::f32 ? ElementType::i32 : ElementType::f32) : t;
    }
    // Index types: mostly i64/i32; any integer where the op allows it; rarely a wrong one.
    ElementType index_type(bool any_integer) {
        if (one_in(24)) return fdp_.PickValueInArray({ElementType::f32, ElementType::boolean, ElementType::u8});
        if (!any_integer || fdp_.ConsumeBool()) return fdp_.ConsumeBool() ? ElementType::i64 : ElementType::i32;
        return fdp_.PickValueInArray({ElementType::i8, ElementType::i16, ElementType::i32, ElementType::i64, ElementType::u8,
                                      ElementType::u16, ElementType::u32, ElementType::u64});
    }

    // Mostly in [lo, hi]; sometimes just outside, or an extreme.
    int64_t index_in(int64_t lo, int64_t hi) {
        switch (fdp_.ConsumeIntegralInRange(0, 23)) {
            case 0: return kMin;
            case 1: return kMax;
            case 2: return lo - fdp_.ConsumeIntegralInRange<int64_t>(1, 3);
            case 3: return hi + fdp_.ConsumeIntegralInRange<int64_t>(1, 3);
            default: return hi < lo ? lo : fdp_.ConsumeIntegralInRange(lo, hi);
        }
    }

    // An index tensor of `type` holding `values` clamped into the type's range (INT64_MIN/MAX
    // become that type's min/max: the open ends Slice must handle for every width).
    static RefTensor index_tensor(ElementType type, Shape shape, const std::vector<int64_t>& values) {
        RefTensor t;
        t.type = type;
        t.shape = std::move(shape);
        for (int64_t v : values) {
            int64_t lo = kMin, hi = kMax;
            switch (type) {
                case ElementType::i8: lo = INT8_MIN, hi = INT8_MAX; break;
                case ElementType::i16: lo = INT16_MIN, hi = INT16_MAX; break;
                case ElementType::i32: lo = INT32_MIN, hi = INT32_MAX; break;
                case ElementType::u8: lo = 0, hi = UINT8_MAX; break;
                case ElementType::u16: lo = 0, hi = UINT16_MAX; break;
                case ElementType::u32: lo = 0, hi = UINT32_MAX; break;
                case ElementType::u64: lo = 0; break;
                case ElementType::boolean: lo = 0, hi = 1; break;
                default: break;
            }
            int64_t x = std::clamp(v, lo, hi);
            if (type == ElementType::u64 && v == kMax) x = -1;  // UINT64_MAX, stored as its bit pattern
            t.values.push_back(x);
        }
        return t;
    }

    Shape random_shape(int min_rank, int max_rank) {
        Shape s(static_cast<size_t>(fdp_.ConsumeIntegralInRange(min_rank, max_rank)));
        for (auto& d : s) d = fdp_.ConsumeIntegralInRange<int64_t>(0, 5);
        return s;
    }

    RefTensor random_values(ElementType type, Shape shape, int magnitude) {
        RefTensor t = ref::make(type, std::move(shape));
        for (auto& v : t.values) v = fdp_.ConsumeIntegralInRange(-magnitude, magnitude);
        return fit(t);
    }

    RefTensor random_data() {
        const Shape s = random_shape(one_in(16) ? 0 : 1, 4);
        return random_values(data_type(), s, 8);
    }

    // ---- graph writing ------------------------------------------------------------------------
    // A Const (or, with `may_be_parameter`, sometimes a Parameter, possibly with `?` dims).
    Value source(const RefTensor& t, bool as_parameter, bool data_source = false) {
        Value v;
        v.layer = next_id_++;
        v.ref = t;
        v.declared = dims_of(t.shape);
        const std::string type = irlite::to_string(t.type);
        if (as_parameter) {
            if (one_in(data_source ? 3 : 6))
                for (auto& d : v.declared)
                    if (fdp_.ConsumeBool()) d = -1;
            ir_.parameter(v.layer, "p" + std::to_string(v.layer), type, v.declared);
            params_.push_back(t);
        } else {
            const std::vector<unsigned char> bytes = to_bytes(t);
            constants_.push_back("c" + std::to_string(v.layer) + ": " + describe(t));
            ir_.constant(v.layer, "c" + std::to_string(v.layer), type, v.declared, bytes.data(), bytes.size());
        }
        return v;
    }
    Value aux(const RefTensor& t) { return source(t, one_in(4)); }

    // One op layer: input ports 0..n-1, output ports n.., each output declaring its reference shape
    // (or -1 dims, or, when the reference rejects the op, -1 dims of `fallback_rank`).
    std::vector<Value> emit(const std::string& type, const std::string& opset, const std::string& data,
                            const std::vector<const Value*>& inputs, const std::vector<RefTensor>& outputs,
                            size_t output_count, size_t fallback_rank, const std::string& inner = "") {
        const int id = next_id_++;
        std::vector<irlite::testing::PortSpec> in_ports, out_ports;
        for (size_t i = 0; i < inputs.size(); ++i) in_ports.push_back({static_cast<int>(i), "", inputs[i]->declared, ""});
        const bool exact = fdp_.ConsumeBool();
        std::vector<Value> out(output_count);
        for (size_t o = 0; o < output_count; ++o) {
            out[o].layer = id;
            out[o].port = static_cast<int>(inputs.size() + o);
            if (o < outputs.size()) {
                out[o].ref = outputs[o];
                out[o].declared = dims_of(outputs[o].shape);
                if (!exact)
                    for (auto& d : out[o].declared) d = -1;
            } else {
                out[o].ref.type = inputs[0]->ref.type;
                out[o].declared.assign(fallback_rank, -1);
            }
            out_ports.push_back({out[o].port, irlite::testing::IrBuilder::precision(irlite::to_string(out[o].ref.type)),
                                 out[o].declared, ""});
        }
        ir_.layer(id, type + std::to_string(id), type, opset, data, in_ports, out_ports, inner);
        for (size_t i = 0; i < inputs.size(); ++i) ir_.edge(inputs[i]->layer, inputs[i]->port, id, static_cast<int>(i));
        return out;
    }

    // Runs the reference; on Invalid the graph must be rejected and the chain stops here.
    template <class Fn>
    std::vector<RefTensor> reference(Fn fn) {
        try {
            return fn();
        } catch (const Invalid& e) {
            expect_error_ = true;
            reason_ = e.why;
            return {};
        }
    }

    void result(const Value& v) {
        const int id = next_id_++;
        ir_.layer(id, "r" + std::to_string(id), "Result", "opset1", "",
                  {{0, irlite::testing::IrBuilder::precision(irlite::to_string(v.ref.type)), v.declared, ""}}, {});
        ir_.edge(v.layer, v.port, id, 0);
        if (!expect_error_) expected_.push_back(v.ref);
    }

    // ---- ops ----------------------------------------------------------------------------------
    Value apply_random_op(const Value& cur) {
        switch (fdp_.ConsumeIntegralInRange(0, 23)) {
            case 0: return slice(cur);
            case 1: return variadic_split(cur);
            case 2: return scatter_nd_update(cur);
            case 3: return gather_elements(cur);
            case 4: return binary(cur, false);
            case 5: return binary(cur, true);
            case 6: return transpose(cur);
            case 7: return concat(cur);
            case 8: return scatter_update(cur);
            case 9: return gather_nd(cur);
            case 10: return roll(cur);
            case 11: return scatter_elements_update(cur);
            case 12: return depth_space(cur);
            case 13: return batch_space(cur);
            case 14: return shuffle_channels(cur);
            case 15: return one_hot(cur);
            case 16: return top_k(cur);
            case 17: return non_zero(cur);
            case 18: return cum_sum(cur);
            case 19: return gather_nd_5(cur);
            case 20: return reshape(cur);
            case 21: return tensor_iterator(cur);
            case 22: return loop(cur);
            default: return if_op(cur);
        }
    }

    Value scatter_update(const Value& data) {
        const Shape& shape = data.ref.shape;
        const int64_t rank = static_cast<int64_t>(shape.size());
        const int64_t axis = one_in(8) ? index_in(-rank, rank - 1) : (rank ? fdp_.ConsumeIntegralInRange(-rank, rank - 1) : 0);
        const bool axis_ok = axis >= -rank && axis < rank;
        const size_t a = axis_ok ? static_cast<size_t>(axis < 0 ? axis + rank : axis) : 0;
        Shape indices_shape;
        for (int i = fdp_.ConsumeIntegralInRange(0, 2); i > 0; --i) indices_shape.push_back(fdp_.ConsumeIntegralInRange<int64_t>(0, 3));
        const int64_t d = axis_ok ? shape[a] : 1;
        std::vector<int64_t> indices(static_cast<size_t>(ref::count(indices_shape)));
        for (auto& i : indices) i = one_in(4) ? index_in(0, d - 1) : (d > 0 ? fdp_.ConsumeIntegralInRange<int64_t>(0, d - 1) : 0);
        Shape updates_shape;
        if (axis_ok) {
            updates_shape.assign(shape.begin(), shape.begin() + static_cast<std::ptrdiff_t>(a));
            updates_shape.insert(updates_shape.end(), indices_shape.begin(), indices_shape.end());
            updates_shape.insert(updates_shape.end(), shape.begin() + static_cast<std::ptrdiff_t>(a) + 1, shape.end());
        }
        if (one_in(16)) updates_shape.push_back(1);
        const ElementType updates_type = one_in(24) ? other_type(data.ref.type) : data.ref.type;
        RefTensor updates = ref::make(updates_type, updates_shape);
        for (auto& v : updates.values) v = fdp_.ConsumeIntegralInRange<int64_t>(-100, 100);
        const RefTensor t_indices = index_tensor(index_type(true), indices_shape, indices);
        const RefTensor t_axis = index_tensor(index_type(true), {}, {axis});
        std::vector<Value> in{data, aux(t_indices), aux(fit(updates)), source(t_axis, false)};
        const auto outs = reference([&] {
            return std::vector<RefTensor>{ref::scatter_update(data.ref, t_indices, fit(updates), t_axis)};
        });
        return emit("ScatterUpdate", "opset3", "", pointers(in), outs, 1, shape.size()).at(0);
    }

    Value scatter_elements_update(const Value& data) {
        const Shape& shape = data.ref.shape;
        const int64_t rank = static_cast<int64_t>(shape.size());
        const int64_t axis = one_in(8) ? index_in(-rank, rank - 1) : (rank ? fdp_.ConsumeIntegralInRange(-rank, rank - 1) : 0);
        const bool axis_ok = axis >= -rank && axis < rank;
        const size_t a = axis_ok ? static_cast<size_t>(axis < 0 ? axis + rank : axis) : 0;
        // Indices: data's rank, each dim up to data's (any size along the axis; rarely too big).
        Shape indices_shape;
        for (size_t i = 0; i < shape.size(); ++i)
            indices_shape.push_back(i == a ? fdp_.ConsumeIntegralInRange<int64_t>(0, 3)
                                           : fdp_.ConsumeIntegralInRange<int64_t>(0, shape[i] + (one_in(24) ? 1 : 0)));
        if (one_in(24)) indices_shape.push_back(1);
        const int64_t d = axis_ok ? shape[a] : 1;
        std::vector<int64_t> indices(static_cast<size_t>(ref::count(indices_shape)));
        for (auto& i : indices) i = one_in(4) ? index_in(-d, d - 1) : (d > 0 ? fdp_.ConsumeIntegralInRange<int64_t>(-d, d - 1) : 0);
        Shape updates_shape = indices_shape;
        if (one_in(24) && !updates_shape.empty()) updates_shape.back() += 1;
        const ElementType updates_type = one_in(24) ? other_type(data.ref.type) : data.ref.type;
        RefTensor updates = ref::make(updates_type, updates_shape);
        for (auto& v : updates.values) v = fdp_.ConsumeIntegralInRange<int64_t>(-100, 100);
        // Sum only on integers (wrapping, exact): a float sum of several updates rounds at each
        // step in irlite, once in the reference.
        auto reduction = static_cast<ref::SeuReduction>(fdp_.ConsumeIntegralInRange(0, 3));
        if (is_float(data.ref.type) && reduction == ref::SeuReduction::Sum) reduction = ref::SeuReduction::Max;
        const bool use_init_val = fdp_.ConsumeBool();
        static const char* kNames[] = {"none", "sum", "min", "max"};
        const RefTensor t_indices = index_tensor(index_type(true), indices_shape, indices);
        const RefTensor t_axis = index_tensor(index_type(true), {}, {axis});
        std::vector<Value> in{data, aux(t_indices), aux(fit(updates)), source(t_axis, false)};
        const auto outs = reference([&] {
            return std::vector<RefTensor>{
                ref::scatter_elements_update(data.ref, t_indices, fit(updates), t_axis, reduction, use_init_val)};
        });
        const std::string attrs = std::string("reduction=\"") + kNames[static_cast<int>(reduction)] +
                                  "\" use_init_val=\"" + (use_init_val ? "true" : "false") + "\"";
        return emit("ScatterElementsUpdate", "opset12", attrs, pointers(in), outs, 1, shape.size()).at(0);
    }

    Value depth_space(const Value& data) {
        const Shape& shape = data.ref.shape;
        const bool to_depth = fdp_.ConsumeBool(), blocks_first = fdp_.ConsumeBool();
        // Mostly a block size that fits the shape, sometimes any (the op then refuses it).
        int64_t bs = fdp_.ConsumeIntegralInRange<int64_t>(1, 3);
        if (!one_in(6) && shape.size() >= 3) {
            if (to_depth) {
                for (size_t i = 2; i < shape.size(); ++i)
                    if (shape[i] % bs != 0) bs = 1;
            } else {
                int64_t blocks = 1;
                for (size_t i = 2; i < shape.size(); ++i) blocks *= bs;
                if (shape[1] % blocks != 0) bs = 1;
            }
        }
        if (one_in(32)) bs = 0;
        std::vector<Value> in{data};
        const auto outs = reference([&] { return std::vector<RefTensor>{ref::depth_space(data.ref, to_depth, blocks_first, bs)}; });
        const std::string attrs = std::string("mode=\"") + (blocks_first ? "blocks_first" : "depth_first") +
                                  "\" block_size=\"" + std::to_string(bs) + "\"";
        return emit(to_depth ? "SpaceToDepth" : "DepthToSpace", "opset1", attrs, pointers(in), outs, 1, shape.size()).at(0);
    }

    Value batch_space(const Value& data) {
        const Shape& shape = data.ref.shape;
        const bool to_batch = fdp_.ConsumeBool();
        const size_t r = shape.size() + (one_in(24) ? 1 : 0);
        std::vector<int64_t> block(r, 1), lo(r, 0), hi(r, 0);
        int64_t prod = 1;
        for (size_t i = 1; i < r; ++i) {
            block[i] = fdp_.ConsumeIntegralInRange<int64_t>(1, 3);
            prod *= block[i];
            const int64_t d = i < shape.size() ? shape[i] : 1;
            if (to_batch) {
                lo[i] = fdp_.ConsumeIntegralInRange<int64_t>(0, 2);
                // Mostly an end pad that makes the padded dim divisible.
                const int64_t rem = (d + lo[i]) % block[i];
                hi[i] = one_in(6) ? fdp_.ConsumeIntegralInRange<int64_t>(0, 2) : (rem ? block[i] - rem : 0);
            } else {
                const int64_t full = d * block[i];
                lo[i] = full ? fdp_.ConsumeIntegralInRange<int64_t>(0, full) : 0;
                hi[i] = one_in(8) ? fdp_.ConsumeIntegralInRange<int64_t>(0, 3) : fdp_.ConsumeIntegralInRange<int64_t>(0, full - lo[i]);
            }
        }
        // BatchToSpace: mostly a batch the blocks divide (else the op refuses it).
        if (!to_batch && !shape.empty() && !one_in(6) && shape[0] % prod != 0) {
            std::fill(block.begin(), block.end(), 1);
            std::fill(lo.begin(), lo.end(), 0);
            std::fill(hi.begin(), hi.end(), 0);
        }
        if (one_in(32) && r > 0) block[fdp_.ConsumeIntegralInRange<size_t>(0, r - 1)] = fdp_.ConsumeIntegralInRange<int64_t>(-1, 0);
        if (one_in(32) && r > 0) lo[0] = 1;
        const ElementType type = one_in(24) ? ElementType::u8 : (fdp_.ConsumeBool() ? ElementType::i64 : ElementType::i32);
        const ElementType end_type = one_in(32) ? (type == ElementType::i64 ? ElementType::i32 : ElementType::i64) : type;
        const RefTensor t_block = index_tensor(type, {static_cast<int64_t>(r)}, block);
        const RefTensor t_lo = index_tensor(type, {static_cast<int64_t>(r)}, lo);
        const RefTensor t_hi = index_tensor(end_type, {static_cast<int64_t>(r)}, hi);
        // The shape inputs are Consts (their values set the output shape), now and then Parameters.
        std::vector<Value> in{data, source(t_block, one_in(8)), source(t_lo, one_in(8)), source(t_hi, one_in(8))};
        const auto outs = reference([&] { return std::vector<RefTensor>{ref::batch_space(data.ref, t_block, t_lo, t_hi, to_batch)}; });
        return emit(to_batch ? "SpaceToBatch" : "BatchToSpace", "opset2", "", pointers(in), outs, 1, shape.size()).at(0);
    }

    Value shuffle_channels(const Value& data) {
        const Shape& shape = data.ref.shape;
        const int64_t rank = static_cast<int64_t>(shape.size());
        const int64_t axis = one_in(8) ? index_in(-rank, rank - 1) : (rank ? fdp_.ConsumeIntegralInRange(-rank, rank - 1) : 0);
        const bool axis_ok = axis >= -rank && axis < rank;
        const int64_t c = axis_ok ? shape[static_cast<size_t>(axis < 0 ? axis + rank : axis)] : 1;
        // Mostly a group that divides the channels.
        int64_t group = fdp_.ConsumeIntegralInRange<int64_t>(1, 4);
        if (!one_in(6) && (c == 0 || c % group != 0)) group = 1;
        std::vector<Value> in{data};
        const auto outs = reference([&] { return std::vector<RefTensor>{ref::shuffle_channels(data.ref, axis, group)}; });
        return emit("ShuffleChannels", "opset1", "axis=\"" + std::to_string(axis) + "\" group=\"" + std::to_string(group) + "\"",
                    pointers(in), outs, 1, shape.size()).at(0);
    }

    // OneHot over indices made from the chain's values (the data becomes the indices when it is
    // i32/i64; otherwise fresh indices are made and the data goes to a Result).
    Value one_hot(const Value& data) {
        const bool use_data = ref::is_i32_or_i64(data.ref.type) && !one_in(4);
        RefTensor t_indices;
        if (!use_data) {
            Shape s;
            for (int i = fdp_.ConsumeIntegralInRange(0, 2); i > 0; --i) s.push_back(fdp_.ConsumeIntegralInRange<int64_t>(0, 3));
            std::vector<int64_t> v(static_cast<size_t>(ref::count(s)));
            for (auto& x : v) x = fdp_.ConsumeIntegralInRange<int64_t>(-2, 5);
            t_indices = index_tensor(one_in(16) ? ElementType::u8 : ElementType::i64, s, v);
        }
        const int64_t r = static_cast<int64_t>(use_data ? data.ref.shape.size() : t_indices.shape.size());
        const int64_t depth = one_in(32) ? -1 : fdp_.ConsumeIntegralInRange<int64_t>(0, 5);
        const int64_t axis = one_in(16) ? index_in(-2 - r, r + 1) : fdp_.ConsumeIntegralInRange<int64_t>(-1, r);
        const ElementType type = data_type();
        const RefTensor t_depth = index_tensor(fdp_.ConsumeBool() ? ElementType::i64 : ElementType::i32, {}, {depth});
        RefTensor on = ref::make(type, {}), off = ref::make(type, {});
        on.values[0] = fdp_.ConsumeIntegralInRange<int64_t>(-5, 5);
        off.values[0] = fdp_.ConsumeIntegralInRange<int64_t>(-5, 5);
        on = fit(on);
        off = fit(off);
        if (!use_data) result(data);
        const Value indices = use_data ? data : aux(t_indices);
        std::vector<Value> in{indices, source(t_depth, false), aux(on), aux(off)};
        const auto outs = reference([&] { return std::vector<RefTensor>{ref::one_hot(indices.ref, t_depth, on, off, axis)}; });
        return emit("OneHot", "opset1", "axis=\"" + std::to_string(axis) + "\"", pointers(in), outs, 1,
                    static_cast<size_t>(r + 1)).at(0);
    }

    Value top_k(const Value& data) {
        const Shape& shape = data.ref.shape;
        const int64_t rank = static_cast<int64_t>(shape.size());
        const int64_t axis = one_in(8) ? index_in(-rank, rank - 1) : (rank ? fdp_.ConsumeIntegralInRange(-rank, rank - 1) : 0);
        const bool axis_ok = axis >= -rank && axis < rank;
        const int64_t d = axis_ok ? shape[static_cast<size_t>(axis < 0 ? axis + rank : axis)] : 0;
        const int64_t k = one_in(16) ? index_in(-1, d + 1) : fdp_.ConsumeIntegralInRange<int64_t>(0, d);
        const bool max_mode = fdp_.ConsumeBool(), by_index = fdp_.ConsumeBool();
        const RefTensor t_k = index_tensor(fdp_.ConsumeBool() ? ElementType::i64 : ElementType::i32, {}, {k});
        std::vector<Value> in{data, source(t_k, one_in(6))};
        const auto outs = reference([&] { return ref::top_k(data.ref, t_k, axis, max_mode, by_index); });
        const std::string attrs = "axis=\"" + std::to_string(axis) + "\" mode=\"" + (max_mode ? "max" : "min") +
                                  "\" sort=\"" + (by_index ? "index" : "value") + "\" index_element_type=\"i32\"";
        std::vector<Value> parts = emit("TopK", "opset11", attrs, pointers(in), outs, 2, shape.size());
        result(parts[1]);
        return parts[0];
    }

    // NonZero's row count depends on the values: a dim made at run time downstream.
    Value non_zero(const Value& data) {
        const ElementType out_type = fdp_.ConsumeBool() ? ElementType::i64 : ElementType::i32;
        std::vector<Value> in{data};
        const auto outs = reference([&] { return std::vector<RefTensor>{ref::non_zero(data.ref, out_type)}; });
        const std::string attrs = out_type == ElementType::i64 ? (fdp_.ConsumeBool() ? "output_type=\"i64\"" : "") : "output_type=\"i32\"";
        return emit("NonZero", "opset3", attrs, pointers(in), outs, 1, 2).at(0);
    }

    // CumSum on integers (wrapping, exact) and f64; an f32 sum would round at each step in irlite
    // and once in the reference.
    Value cum_sum(const Value& data) {
        if (data.ref.type == ElementType::f32) return data;
        const Shape& shape = data.ref.shape;
        const int64_t rank = static_cast<int64_t>(shape.size());
        const int64_t axis = one_in(8) ? index_in(-rank, rank - 1) : (rank ? fdp_.ConsumeIntegralInRange(-rank, rank - 1) : 0);
        const bool exclusive = fdp_.ConsumeBool(), reverse = fdp_.ConsumeBool();
        const RefTensor t_axis = index_tensor(fdp_.ConsumeBool() ? ElementType::i64 : ElementType::i32, {}, {axis});
        std::vector<Value> in{data, source(t_axis, one_in(6))};
        const auto outs = reference([&] { return std::vector<RefTensor>{ref::cum_sum(data.ref, t_axis, exclusive, reverse)}; });
        const std::string attrs = std::string("exclusive=\"") + (exclusive ? "true" : "false") + "\" reverse=\"" +
                                  (reverse ? "true" : "false") + "\"";
        return emit("CumSum", "opset3", attrs, pointers(in), outs, 1, shape.size()).at(0);
    }

    // GatherND-5: GatherND-8's selection, with the batch dims of the output merged into one.
    Value gather_nd_5(const Value& data) {
        const Shape& shape = data.ref.shape;
        const size_t rank = shape.size();
        const int64_t batch = rank > 1 && one_in(2) ? fdp_.ConsumeIntegralInRange<int64_t>(1, static_cast<int64_t>(rank) - 1) : 0;
        const auto b = static_cast<size_t>(batch);
        Shape indices_shape(shape.begin(), shape.begin() + static_cast<std::ptrdiff_t>(std::min(b, rank)));
        for (int i = fdp_.ConsumeIntegralInRange(0, 2); i > 0; --i) indices_shape.push_back(fdp_.ConsumeIntegralInRange<int64_t>(0, 3));
        const int64_t max_k = static_cast<int64_t>(rank) - batch;
        const int64_t k = one_in(16) ? max_k + 1 : fdp_.ConsumeIntegralInRange<int64_t>(0, std::max<int64_t>(max_k, 0));
        indices_shape.push_back(k);
        const int64_t rows = ref::count(indices_shape) / std::max<int64_t>(k, 1);
        std::vector<int64_t> indices;
        for (int64_t r = 0; r < rows; ++r)
            for (int64_t j = 0; j < k; ++j) {
                const int64_t d = b + static_cast<size_t>(j) < rank ? shape[b + static_cast<size_t>(j)] : 1;
                indices.push_back(one_in(4) ? index_in(-d, d - 1) : (d > 0 ? fdp_.ConsumeIntegralInRange<int64_t>(-d, d - 1) : 0));
            }
        indices.resize(static_cast<size_t>(ref::count(indices_shape)), 0);
        const RefTensor t_indices = index_tensor(index_type(false), indices_shape, indices);
        std::vector<Value> in{data, aux(t_indices)};
        const auto outs = reference([&] {
            RefTensor out = ref::gather_nd(data.ref, t_indices, batch);
            if (batch > 0) {  // merge the batch dims
                Shape merged{1};
                for (size_t i = 0; i < b; ++i) merged[0] *= out.shape[i];
                merged.insert(merged.end(), out.shape.begin() + static_cast<std::ptrdiff_t>(b), out.shape.end());
                out.shape = merged;
            }
            return std::vector<RefTensor>{out};
        });
        return emit("GatherND", "opset5", "batch_dims=\"" + std::to_string(batch) + "\"", pointers(in), outs, 1, rank).at(0);
    }

    Value gather_nd(const Value& data) {
        const Shape& shape = data.ref.shape;
        const size_t rank = shape.size();
        const int64_t batch = rank > 1 && one_in(3) ? fdp_.ConsumeIntegralInRange<int64_t>(0, static_cast<int64_t>(rank) - 1) : 0;
        const auto b = static_cast<size_t>(batch);
        Shape indices_shape(shape.begin(), shape.begin() + static_cast<std::ptrdiff_t>(std::min(b, rank)));
        for (int i = fdp_.ConsumeIntegralInRange(0, 2); i > 0; --i) indices_shape.push_back(fdp_.ConsumeIntegralInRange<int64_t>(0, 3));
        const int64_t max_k = static_cast<int64_t>(rank) - batch;
        const int64_t k = one_in(16) ? max_k + 1 : fdp_.ConsumeIntegralInRange<int64_t>(0, std::max<int64_t>(max_k, 0));
        indices_shape.push_back(k);
        if (one_in(16) && b > 0) indices_shape[0] += 1;
        const int64_t rows = ref::count(indices_shape) / std::max<int64_t>(k, 1);
        std::vector<int64_t> indices;
        for (int64_t r = 0; r < rows; ++r)
            for (int64_t j = 0; j < k; ++j) {
                const int64_t d = b + static_cast<size_t>(j) < rank ? shape[b + static_cast<size_t>(j)] : 1;
                indices.push_back(one_in(4) ? index_in(-d, d - 1) : (d > 0 ? fdp_.ConsumeIntegralInRange<int64_t>(-d, d - 1) : 0));
            }
        indices.resize(static_cast<size_t>(ref::count(indices_shape)), 0);
        const RefTensor t_indices = index_tensor(index_type(false), indices_shape, indices);
        std::vector<Value> in{data, aux(t_indices)};
        const auto outs = reference([&] { return std::vector<RefTensor>{ref::gather_nd(data.ref, t_indices, batch)}; });
        return emit("GatherND", "opset8", "batch_dims=\"" + std::to_string(batch) + "\"", pointers(in), outs, 1, rank).at(0);
    }

    Value roll(const Value& data) {
        const int64_t rank = static_cast<int64_t>(data.ref.shape.size());
        const size_t n = fdp_.ConsumeIntegralInRange<size_t>(0, 3);
        std::vector<int64_t> axes(n);
        for (auto& a : axes) a = one_in(8) ? index_in(-rank, rank - 1) : (rank ? fdp_.ConsumeIntegralInRange(-rank, rank - 1) : 0);
        // Shifts: a scalar, or one per axis (rarely one too many).
        const bool scalar_shift = one_in(4);
        std::vector<int64_t> shifts(scalar_shift ? 1 : n + (one_in(16) ? 1 : 0));
        for (auto& v : shifts) v = one_in(6) ? index_in(-1000, 1000) : fdp_.ConsumeIntegralInRange<int64_t>(-7, 7);
        const ElementType type = fdp_.ConsumeBool() ? ElementType::i64 : ElementType::i32;
        const RefTensor t_shift =
            index_tensor(type, scalar_shift ? Shape{} : Shape{static_cast<int64_t>(shifts.size())}, shifts);
        const RefTensor t_axes = index_tensor(type, {static_cast<int64_t>(n)}, axes);
        std::vector<Value> in{data, source(t_shift, false), source(t_axes, false)};
        const auto outs = reference([&] { return std::vector<RefTensor>{ref::roll(data.ref, t_shift, t_axes)}; });
        return emit("Roll", "opset7", "", pointers(in), outs, 1, data.ref.shape.size()).at(0);
    }

    Value slice(const Value& data) {
        const Shape& shape = data.ref.shape;
        const int64_t rank = static_cast<int64_t>(shape.size());
        const int64_t n = one_in(16) ? rank + 1 : fdp_.ConsumeIntegralInRange<int64_t>(0, rank);
        const bool with_axes = fdp_.ConsumeBool();
        std::vector<int64_t> order(static_cast<size_t>(rank));
        std::iota(order.begin(), order.end(), 0);
        for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[fdp_.ConsumeIntegralInRange<size_t>(0, i - 1)]);
        std::vector<int64_t> axes, start, stop, step;
        for (int64_t i = 0; i < n; ++i) {
            int64_t axis = with_axes ? (i < rank ? order[static_cast<size_t>(i)] : 0) : i;
            const int64_t d = axis < rank ? shape[static_cast<size_t>(axis)] : 1;
            if (with_axes && fdp_.ConsumeBool()) axis -= rank;
            if (with_axes && one_in(16)) axis = index_in(-rank, rank - 1);
            axes.push_back(axis);
            start.push_back(index_in(-d - 1, d + 1));
            stop.push_back(index_in(-d - 1, d + 1));
            int64_t s = fdp_.ConsumeIntegralInRange<int64_t>(-3, 3);
            if (s == 0 && !one_in(4)) s = 1;
            if (one_in(24)) s = fdp_.ConsumeBool() ? kMin : kMax;
            step.push_back(s);
        }
        const Shape len{n};
        const RefTensor t_start = index_tensor(index_type(true), len, start);
        const RefTensor t_stop = index_tensor(index_type(true), len, stop);
        const RefTensor t_step = index_tensor(index_type(true), len, step);
        const RefTensor t_axes = index_tensor(index_type(true), len, axes);
        std::vector<Value> in{data, aux(t_start), aux(t_stop), aux(t_step)};
        if (with_axes) in.push_back(aux(t_axes));
        const auto outs = reference([&] {
            return std::vector<RefTensor>{ref::slice(data.ref, t_start, t_stop, t_step, with_axes ? &t_axes : nullptr)};
        });
        return emit("Slice", "opset8", "", pointers(in), outs, 1, shape.size()).at(0);
    }

    Value variadic_split(const Value& data) {
        const Shape& shape = data.ref.shape;
        const int64_t rank = static_cast<int64_t>(shape.size());
        const int64_t axis = index_in(-rank, rank - 1);
        const int64_t d = axis >= -rank && axis < rank ? shape[static_cast<size_t>(axis < 0 ? axis + rank : axis)] : 3;
        const size_t count = fdp_.ConsumeIntegralInRange<size_t>(1, 4);
        std::vector<int64_t> lengths(count, 0);
        if (one_in(8)) {
            for (auto& l : lengths) l = fdp_.ConsumeIntegralInRange<int64_t>(-2, d + 1);
        } else {
            int64_t left = d;
            for (size_t i = 0; i + 1 < count; ++i) {
                lengths[i] = fdp_.ConsumeIntegralInRange<int64_t>(0, left);
                left -= lengths[i];
            }
            lengths[count - 1] = left;
            if (fdp_.ConsumeBool()) lengths[fdp_.ConsumeIntegralInRange<size_t>(0, count - 1)] = -1;
        }
        Shape axis_shape;
        if (fdp_.ConsumeBool()) axis_shape = {1};
        std::vector<int64_t> axis_values{axis};
        if (one_in(24)) {
            axis_shape = {2};
            axis_values.push_back(0);
        }
        const RefTensor t_axis = index_tensor(index_type(true), axis_shape, axis_values);
        const RefTensor t_lengths = index_tensor(index_type(true), {static_cast<int64_t>(count)}, lengths);
        std::vector<Value> in{data, aux(t_axis), aux(t_lengths)};
        const auto outs = reference([&] { return ref::variadic_split(data.ref, t_axis, t_lengths); });
        std::vector<Value> parts = emit("VariadicSplit", "opset1", "", pointers(in), outs, count, shape.size());
        const size_t keep = fdp_.ConsumeIntegralInRange<size_t>(0, count - 1);
        for (size_t i = 0; i < count; ++i)
            if (i != keep) result(parts[i]);
        return parts[keep];
    }

    Value scatter_nd_update(const Value& data) {
        const Shape& shape = data.ref.shape;
        const int64_t rank = static_cast<int64_t>(shape.size());
        const int64_t k = one_in(16) ? rank + 1 : fdp_.ConsumeIntegralInRange<int64_t>(0, rank);
        Shape batch = random_shape(0, 2);
        for (auto& b : batch) b = std::min<int64_t>(b, 3);
        Shape indices_shape = batch;
        indices_shape.push_back(k);
        std::vector<int64_t> indices;
        const int64_t rows = ref::count(batch);
        for (int64_t row = 0; row < rows; ++row)
            for (int64_t j = 0; j < k; ++j) {
                const int64_t d = j < rank ? shape[static_cast<size_t>(j)] : 1;
                indices.push_back(one_in(4) ? index_in(-d, d - 1) : (d > 0 ? fdp_.ConsumeIntegralInRange<int64_t>(0, d - 1) : 0));
            }
        Shape updates_shape = batch;
        if (k <= rank) updates_shape.insert(updates_shape.end(), shape.begin() + k, shape.end());
        if (one_in(16) && !updates_shape.empty())
            updates_shape[fdp_.ConsumeIntegralInRange<size_t>(0, updates_shape.size() - 1)] += 1;
        const ElementType updates_type = one_in(24) ? other_type(data.ref.type) : data.ref.type;
        const RefTensor t_indices = index_tensor(index_type(false), indices_shape, indices);
        const RefTensor t_updates = random_values(updates_type, updates_shape, 8);
        std::vector<Value> in{data, aux(t_indices), aux(t_updates)};
        const auto outs = reference([&] {
            return std::vector<RefTensor>{ref::scatter_nd_update(data.ref, t_indices, t_updates)};
        });
        return emit("ScatterNDUpdate", "opset3", "", pointers(in), outs, 1, shape.size()).at(0);
    }

    Value gather_elements(const Value& data) {
        const Shape& shape = data.ref.shape;
        const int64_t rank = static_cast<int64_t>(shape.size());
        const int64_t axis = one_in(8) ? index_in(-rank, rank - 1) : (rank ? fdp_.ConsumeIntegralInRange(-rank, rank - 1) : 0);
        const bool axis_ok = axis >= -rank && axis < rank;
        const size_t a = axis_ok ? static_cast<size_t>(axis < 0 ? axis + rank : axis) : 0;
        Shape indices_shape = shape;
        if (axis_ok) indices_shape[a] = fdp_.ConsumeIntegralInRange<int64_t>(0, 5);
        if (one_in(16) && !indices_shape.empty())
            indices_shape[fdp_.ConsumeIntegralInRange<size_t>(0, indices_shape.size() - 1)] += 1;
        const int64_t d = axis_ok ? shape[a] : 1;
        std::vector<int64_t> indices(static_cast<size_t>(ref::count(indices_shape)));
        for (auto& i : indices) i = one_in(4) ? index_in(-d, d - 1) : (d > 0 ? fdp_.ConsumeIntegralInRange<int64_t>(-d, d - 1) : 0);
        const RefTensor t_indices = index_tensor(index_type(false), indices_shape, indices);
        std::vector<Value> in{data, aux(t_indices)};
        const auto outs = reference([&] {
            return std::vector<RefTensor>{ref::gather_elements(data.ref, t_indices, axis)};
        });
        return emit("GatherElements", "opset6", "axis=\"" + std::to_string(axis) + "\"", pointers(in), outs, 1,
                    indices_shape.size())
            .at(0);
    }

    Value binary(const Value& a, bool multiply) {
        const Shape& shape = a.ref.shape;
        // The other operand: a suffix of a's dims, each kept or 1, maybe with leading dims added.
        Shape other;
        const size_t keep = fdp_.ConsumeIntegralInRange<size_t>(0, shape.size());
        for (size_t i = shape.size() - keep; i < shape.size(); ++i) other.push_back(one_in(3) ? 1 : shape[i]);
        if (one_in(4)) other.insert(other.begin(), fdp_.ConsumeIntegralInRange<int64_t>(1, 3));
        if (one_in(16) && !other.empty()) other[fdp_.ConsumeIntegralInRange<size_t>(0, other.size() - 1)] = fdp_.ConsumeIntegralInRange<int64_t>(0, 5);
        const ElementType type = one_in(24) ? other_type(a.ref.type) : a.ref.type;
        const Value b = aux(random_values(type, other, multiply ? 3 : 8));
        std::string broadcast;
        bool numpy = true;
        switch (fdp_.ConsumeIntegralInRange(0, 7)) {
            case 0: broadcast = "auto_broadcast=\"numpy\""; break;
            case 1:
                broadcast = "auto_broadcast=\"none\"";
                numpy = false;
                break;
            default: break;
        }
        const bool swap = fdp_.ConsumeBool();
        const Value& x = swap ? b : a;
        const Value& y = swap ? a : b;
        const auto outs = reference([&] {
            return std::vector<RefTensor>{multiply ? ref::multiply(x.ref, y.ref, numpy) : ref::add(x.ref, y.ref, numpy)};
        });
        return emit(multiply ? "Multiply" : "Add", "opset1", broadcast, {&x, &y}, outs, 1,
                    std::max(shape.size(), other.size()))
            .at(0);
    }

    Value transpose(const Value& data) {
        const size_t rank = data.ref.shape.size();
        std::vector<int64_t> order(rank);
        std::iota(order.begin(), order.end(), 0);
        for (size_t i = rank; i > 1; --i) std::swap(order[i - 1], order[fdp_.ConsumeIntegralInRange<size_t>(0, i - 1)]);
        if (one_in(8)) order.clear();
        if (one_in(16)) {
            if (!order.empty() && fdp_.ConsumeBool()) order[fdp_.ConsumeIntegralInRange<size_t>(0, order.size() - 1)] = index_in(-1, static_cast<int64_t>(rank));
            else order.push_back(0);
        }
        const RefTensor t_order = index_tensor(index_type(true), {static_cast<int64_t>(order.size())}, order);
        std::vector<Value> in{data, aux(t_order)};
        const auto outs = reference([&] { return std::vector<RefTensor>{ref::transpose(data.ref, t_order)}; });
        return emit("Transpose", "opset1", "", pointers(in), outs, 1, rank).at(0);
    }

    Value concat(const Value& data) {
        const Shape& shape = data.ref.shape;
        const int64_t rank = static_cast<int64_t>(shape.size());
        const int64_t axis = one_in(8) ? index_in(-rank, rank - 1) : (rank ? fdp_.ConsumeIntegralInRange(-rank, rank - 1) : 0);
        const bool axis_ok = axis >= -rank && axis < rank;
        const size_t others = fdp_.ConsumeIntegralInRange<size_t>(1, 2);
        const size_t position = fdp_.ConsumeIntegralInRange<size_t>(0, others);
        std::vector<Value> in;
        for (size_t i = 0; i < others; ++i) {
            Shape s = shape;
            if (axis_ok) s[static_cast<size_t>(axis < 0 ? axis + rank : axis)] = fdp_.ConsumeIntegralInRange<int64_t>(0, 3);
            if (one_in(16) && !s.empty()) s[fdp_.ConsumeIntegralInRange<size_t>(0, s.size() - 1)] += 1;
            const ElementType type = one_in(24) ? other_type(data.ref.type) : data.ref.type;
            in.push_back(aux(random_values(type, s, 8)));
        }
        in.insert(in.begin() + static_cast<std::ptrdiff_t>(position), data);
        std::vector<RefTensor> refs;
        for (const Value& v : in) refs.push_back(v.ref);
        const auto outs = reference([&] { return std::vector<RefTensor>{ref::concat(refs, axis)}; });
        return emit("Concat", "opset1", "axis=\"" + std::to_string(axis) + "\"", pointers(in), outs, 1, shape.size()).at(0);
    }

    Value reshape(const Value& data) {
        const Shape& shape = data.ref.shape;
        const bool special_zero = fdp_.ConsumeBool();
        std::vector<int64_t> pattern;
        switch (fdp_.ConsumeIntegralInRange(0, 7)) {
            case 0: pattern = {ref::count(shape)}; break;  // flatten
            case 1:  // random, mostly wrong
                pattern.resize(fdp_.ConsumeIntegralInRange<size_t>(0, 4));
                for (auto& p : pattern) p = fdp_.ConsumeIntegralInRange<int64_t>(-2, 6);
                break;
            case 2:  // merge two neighbours
                pattern.assign(shape.begin(), shape.end());
                if (pattern.size() >= 2) {
                    const size_t i = fdp_.ConsumeIntegralInRange<size_t>(0, pattern.size() - 2);
                    pattern[i] *= pattern[i + 1];
                    pattern.erase(pattern.begin() + static_cast<std::ptrdiff_t>(i) + 1);
                }
                break;
            default:  // the same dims with 1s inserted
                pattern.assign(shape.begin(), shape.end());
                for (int ones = fdp_.ConsumeIntegralInRange(0, 2); ones > 0; --ones)
                    pattern.insert(pattern.begin() + fdp_.ConsumeIntegralInRange<std::ptrdiff_t>(0, static_cast<std::ptrdiff_t>(pattern.size())), 1);
                break;
        }
        if (special_zero)
            for (size_t i = 0; i < pattern.size() && i < shape.size(); ++i)
                if (pattern[i] == shape[i] && fdp_.ConsumeBool()) pattern[i] = 0;
        if (!pattern.empty() && one_in(3)) pattern[fdp_.ConsumeIntegralInRange<size_t>(0, pattern.size() - 1)] = -1;
        const RefTensor t_pattern = index_tensor(index_type(true), {static_cast<int64_t>(pattern.size())}, pattern);
        std::vector<Value> in{data, aux(t_pattern)};
        const auto outs = reference([&] { return std::vector<RefTensor>{ref::reshape(data.ref, t_pattern, special_zero)}; });
        return emit("Reshape", "opset1", std::string("special_zero=\"") + (special_zero ? "true" : "false") + "\"",
                    pointers(in), outs, 1, pattern.size())
            .at(0);
    }

    // ---- sub-graphs ---------------------------------------------------------------------------
    // TensorIterator, Loop and If layers whose bodies are 1..3 steps of Add, Multiply, Roll and
    // CumSum (body_writer.hpp), computed by reference_subgraphs.hpp's loops. Every body value keeps
    // the shape and type of the value the body starts from, so a back edge always fits.
    using Node = BodyWriter::Node;

    // A shape numpy-broadcasts into `s`: a suffix of its dims, each kept or 1.
    Shape broadcastable_to(const Shape& s) {
        Shape o;
        const size_t keep = fdp_.ConsumeIntegralInRange<size_t>(0, s.size());
        for (size_t i = s.size() - keep; i < s.size(); ++i) o.push_back(one_in(3) ? 1 : s[i]);
        return o;
    }

    // Bodies take data that is not boolean (no arithmetic) and small enough for a few iterations.
    static bool fits_a_body(const RefTensor& t) { return t.type != ElementType::boolean && t.values.size() <= 512; }

    Node body_const(BodyWriter& b, const RefTensor& t) {
        const Node n = b.constant(t, to_bytes(t));
        constants_.push_back("body const " + std::to_string(n.layer) + ": " + describe(t));
        return n;
    }

    // v + w or v * w, w one of `operands` (each broadcasts into v's shape) or a new Const. Floats
    // multiply only by a Const in [-1, 1]: a product carried through iterations must stay an
    // integer the reference's int64 holds exactly (integers wrap alike on both sides).
    Node body_binary(BodyWriter& b, const Node& v, const std::vector<Node>& operands, bool multiply) {
        const bool small_factor = multiply && is_float(v.type);
        Node w;
        if (!operands.empty() && !small_factor && fdp_.ConsumeBool())
            w = operands[fdp_.ConsumeIntegralInRange<size_t>(0, operands.size() - 1)];
        else
            w = body_const(b, random_values(v.type, broadcastable_to(v.shape), small_factor ? 1 : multiply ? 3 : 8));
        const bool swap = fdp_.ConsumeBool();
        const std::vector<Node> in = swap ? std::vector<Node>{w, v} : std::vector<Node>{v, w};
        return b.op(multiply ? "Multiply" : "Add", "opset1", "", in, v.type, v.shape, [multiply](const std::vector<RefTensor>& a) {
            return multiply ? ref::multiply(a[0], a[1]) : ref::add(a[0], a[1]);
        });
    }

    // Roll along one axis, by a Const or by the Loop's iteration number (always, with `by_iteration`).
    Node body_roll(BodyWriter& b, const Node& v, const Node* iteration, bool by_iteration = false) {
        const int64_t rank = static_cast<int64_t>(v.shape.size());
        const Node axes = body_const(b, index_tensor(ElementType::i64, {1}, {fdp_.ConsumeIntegralInRange<int64_t>(-rank, rank - 1)}));
        const Node shift = iteration && (by_iteration || fdp_.ConsumeBool())
                               ? *iteration
                               : body_const(b, index_tensor(fdp_.ConsumeBool() ? ElementType::i64 : ElementType::i32, {},
                                                            {fdp_.ConsumeIntegralInRange<int64_t>(-3, 3)}));
        return b.op("Roll", "opset7", "", {v, shift, axes}, v.type, v.shape,
                    [](const std::vector<RefTensor>& a) { return ref::roll(a[0], a[1], a[2]); });
    }

    // CumSum along one axis, on integers only: a float sum would round at each step in irlite and
    // once in the reference, and repeated sums over iterations outgrow what int64 holds exactly.
    Node body_cum_sum(BodyWriter& b, const Node& v) {
        const int64_t rank = static_cast<int64_t>(v.shape.size());
        const RefTensor t_axis = index_tensor(ElementType::i64, {}, {fdp_.ConsumeIntegralInRange<int64_t>(-rank, rank - 1)});
        const bool exclusive = fdp_.ConsumeBool(), reverse = fdp_.ConsumeBool();
        const std::string attrs = std::string("exclusive=\"") + (exclusive ? "true" : "false") + "\" reverse=\"" +
                                  (reverse ? "true" : "false") + "\"";
        return b.op("CumSum", "opset3", attrs, {v, body_const(b, t_axis)}, v.type, v.shape,
                    [t_axis, exclusive, reverse](const std::vector<RefTensor>& a) {
                        return ref::cum_sum(a[0], t_axis, exclusive, reverse);
                    });
    }

    Node body_step(BodyWriter& b, const Node& v, const std::vector<Node>& operands, const Node* iteration) {
        const int kind = fdp_.ConsumeIntegralInRange(0, 3);
        if (kind == 2 && !v.shape.empty()) return body_roll(b, v, iteration);
        if (kind == 3 && !v.shape.empty() && !is_float(v.type)) return body_cum_sum(b, v);
        return body_binary(b, v, operands, kind == 1);
    }

    // Adds to `v` some of the `parameters` that feed nothing yet, and leaves the others unused: a
    // body need not use every Parameter (irlite once dropped such a Parameter and could not build
    // the body: tests/data/fuzz/fuzz_graph_models/unused_body_parameter.xml).
    Node use_some(BodyWriter& b, Node v, const std::vector<Node>& parameters) {
        for (const Node& p : parameters)
            if (!b.consumed(p) && fdp_.ConsumeBool())
                v = b.op("Add", "opset1", "", {v, p}, v.type, v.shape,
                         [](const std::vector<RefTensor>& a) { return ref::add(a[0], a[1]); });
        return v;
    }

    // 1..3 steps from `start`: the last value, and one value on the way (`start` included) for
    // another output. `start` is often a Parameter a back edge feeds, whose Result must give the
    // value the last iteration started from (irlite once gave the next one:
    // tests/data/fuzz/fuzz_graph_models/back_edged_parameter_result.xml).
    std::pair<Node, Node> body_chain(BodyWriter& b, const Node& start, const std::vector<Node>& operands,
                                     const Node* iteration) {
        std::vector<Node> made{start};
        for (int i = fdp_.ConsumeIntegralInRange(1, 3); i > 0; --i) made.push_back(body_step(b, made.back(), operands, iteration));
        return {made.back(), made[fdp_.ConsumeIntegralInRange<size_t>(0, made.size() - 1)]};
    }

    BodyWriter new_body() { return BodyWriter(ir_.weights_for_bodies(), "b" + std::to_string(bodies_made_++)); }

    static std::string map_entry(const char* kind, int external, int internal, const std::string& extra = "") {
        return std::string("<") + kind + " external_port_id=\"" + std::to_string(external) + "\" internal_layer_id=\"" +
               std::to_string(internal) + "\"" + extra + "/>\n";
    }
    // A port map entry's slicing attributes: the whole axis, forwards or backwards.
    static std::string slicing(size_t axis, int stride) {
        return " axis=\"" + std::to_string(axis) + "\" start=\"" + (stride > 0 ? "0" : "-1") + "\" end=\"" +
               (stride > 0 ? "-1" : "0") + "\" stride=\"" + std::to_string(stride) + "\"";
    }
    static std::string back_edge(int result, int parameter) {
        return "<back_edges>\n<edge from-layer=\"" + std::to_string(result) + "\" from-port=\"0\" to-layer=\"" +
               std::to_string(parameter) + "\" to-port=\"0\"/>\n</back_edges>\n";
    }

    // The layer's outputs: one continues the chain, the others go to Results.
    Value keep_one(const std::vector<Value>& outs) {
        const size_t keep = fdp_.ConsumeIntegralInRange<size_t>(0, outs.size() - 1);
        for (size_t i = 0; i < outs.size(); ++i)
            if (i != keep) result(outs[i]);
        return outs[keep];
    }

    // Outputs of a TensorIterator or Loop: the last state (result 0), and result 1 (another body
    // value) concatenated along an axis of its rank (when it has one) and sometimes its last value.
    // Entries go to `map`, ids from `first_port`.
    std::vector<ref::BodyOutput> body_outputs(const BodyWriter& b, const std::vector<int>& results, int first_port,
                                              bool with_stride, std::string& map) {
        std::vector<ref::BodyOutput> outs{{0, false, 0, 1}};
        const size_t rank = b.result_shapes()[1].shape.size();
        if (rank > 0) {
            // A Loop concatenates in iteration order (its entries have no stride).
            const int stride = with_stride && fdp_.ConsumeBool() ? -1 : 1;
            outs.push_back({1, true, fdp_.ConsumeIntegralInRange<size_t>(0, rank - 1), stride});
        }
        if (rank == 0 || fdp_.ConsumeBool()) outs.push_back({1, false, 0, 1});
        for (size_t i = 0; i < outs.size(); ++i) {
            const ref::BodyOutput& o = outs[i];
            std::string extra;
            if (o.concat) extra = with_stride ? slicing(o.axis, o.stride) : " axis=\"" + std::to_string(o.axis) + "\"";
            map += map_entry("output", first_port + static_cast<int>(i), results[static_cast<size_t>(o.result)], extra);
        }
        return outs;
    }

    // TensorIterator: `data` sliced along an axis of 1..6 elements (stride 1 or -1), an invariant
    // input, and a state merged through a back edge.
    Value tensor_iterator(const Value& data) {
        const Shape& shape = data.ref.shape;
        std::vector<size_t> axes;
        for (size_t i = 0; i < shape.size(); ++i)
            if (shape[i] >= 1 && shape[i] <= 6) axes.push_back(i);
        if (axes.empty() || !fits_a_body(data.ref)) return data;
        const ElementType type = data.ref.type;
        const size_t axis = axes[fdp_.ConsumeIntegralInRange<size_t>(0, axes.size() - 1)];
        const int stride = fdp_.ConsumeBool() ? 1 : -1;
        Shape part = shape;
        part[axis] = 1;
        const Value invariant = aux(random_values(type, broadcastable_to(part), 8));
        const Value initial = aux(random_values(type, part, 8));
        BodyWriter b = new_body();
        const bool dynamic = one_in(4);
        const Node px = b.parameter(type, part, dynamic), pc = b.parameter(type, invariant.ref.shape, dynamic);
        const Node ps = b.parameter(type, part, dynamic);
        const auto [last, other] = body_chain(b, ps, {px, pc}, nullptr);
        const Node state = maybe_nested_if(b, use_some(b, last, {px, pc}), nullptr);
        const std::vector<int> results{b.result(state), b.result(other)};
        std::string map = "<port_map>\n" + map_entry("input", 0, px.layer, slicing(axis, stride)) +
                          map_entry("input", 1, pc.layer) + map_entry("input", 2, ps.layer);
        const std::vector<ref::BodyOutput> outputs = body_outputs(b, results, 3, true, map);
        const std::string inner = map + "</port_map>\n" + back_edge(results[0], ps.layer) + b.xml("body");
        const std::vector<ref::BodyInput> inputs{{data.ref, true, axis, stride, -1}, {invariant.ref, false, 0, 1, -1},
                                                 {initial.ref, false, 0, 1, 0}};
        const auto outs = reference([&] { return ref::tensor_iterator(inputs, b.function(), outputs, b.result_shapes()); });
        ++bodies_.tensor_iterator;
        return keep_one(emit("TensorIterator", "opset1", "", {&data, &invariant, &initial}, outs, outputs.size(),
                             shape.size(), inner));
    }

    // A one-element tensor of `type`, shape [] or [1].
    RefTensor one_element(ElementType type, int64_t v) { return index_tensor(type, fdp_.ConsumeBool() ? Shape{} : Shape{1}, {v}); }

    // current_iteration < a Const limit: the Loop body's execution condition, or a nested If's.
    Node below_limit(BodyWriter& b, const Node& iteration) {
        const RefTensor limit = index_tensor(iteration.type, {}, {fdp_.ConsumeIntegralInRange<int64_t>(-1, 4)});
        return b.op("Less", "opset1", "", {iteration, body_const(b, limit)}, ElementType::boolean, iteration.shape,
                    [](const std::vector<RefTensor>& a) { return ref::less(a[0], a[1]); });
    }

    // One branch of a nested If: a chain from its Parameter (If input 1, `v`) to its Result.
    std::string nested_branch(BodyWriter& nb, const Node& v, const std::string& tag) {
        const Node p = nb.parameter(v.type, v.shape, one_in(4));
        const Node last = body_chain(nb, p, {}, nullptr).first;
        return "<" + tag + "_port_map>\n" + map_entry("input", 1, p.layer) + map_entry("output", 0, nb.result(last)) + "</" +
               tag + "_port_map>\n";
    }

    // Now and then an If on `v` inside a TensorIterator or Loop body (a body within a body),
    // its condition current_iteration < k in a Loop that has one, a body Const otherwise. Both
    // branches keep v's shape, so the state's back edge still fits.
    Node maybe_nested_if(BodyWriter& b, const Node& v, const Node* iteration) {
        if (!one_in(3)) return v;
        const Node condition = iteration ? below_limit(b, *iteration)
                                         : body_const(b, one_element(ElementType::boolean, fdp_.ConsumeBool() ? 1 : 0));
        BodyWriter then_body = new_body(), else_body = new_body();
        // One statement each: the bodies' XML is complete only after their branches are written.
        const std::string then_map = nested_branch(then_body, v, "then");
        const std::string else_map = nested_branch(else_body, v, "else");
        const std::string inner = then_map + else_map + then_body.xml("then_body") + else_body.xml("else_body");
        ++bodies_.nested_if;
        return b.op("If", "opset8", "", {condition, v}, v.type, v.shape,
                    [then_fn = then_body.function(), else_fn = else_body.function()](const std::vector<RefTensor>& a) {
                        return ref::if_op(a[0], then_fn, {a[1]}, else_fn, {a[1]}).at(0);
                    },
                    inner);
    }

    // Loop: a Const trip count (0..4; now and then a Parameter) and initial condition (now and then
    // false), `data` as the state merged through a back edge, an invariant input, mostly a
    // current_iteration Parameter (Roll's shift in the body), and sometimes an execution condition
    // computed from it.
    Value loop(const Value& data) {
        if (!fits_a_body(data.ref)) return data;
        const ElementType type = data.ref.type;
        ref::LoopSpec spec;
        spec.trip_count = one_in(10) ? 0 : fdp_.ConsumeIntegralInRange<int64_t>(1, 4);
        spec.condition = !one_in(10);
        const Value trip = source(one_element(fdp_.ConsumeBool() ? ElementType::i64 : ElementType::i32, spec.trip_count), one_in(6));
        const Value condition = source(one_element(ElementType::boolean, spec.condition ? 1 : 0), one_in(6));
        const Value invariant = aux(random_values(type, broadcastable_to(data.ref.shape), 8));
        BodyWriter b = new_body();
        const bool dynamic = one_in(4);
        const Node ps = b.parameter(type, data.ref.shape, dynamic), pc = b.parameter(type, invariant.ref.shape, dynamic);
        std::string map = "<port_map>\n" + map_entry("input", 2, ps.layer) + map_entry("input", 3, pc.layer);
        Node pi;
        bool with_condition = false;
        if (!one_in(4)) {
            with_condition = fdp_.ConsumeBool();
            spec.iteration_input = 2;
            spec.iteration = one_element(fdp_.ConsumeBool() ? ElementType::i64 : ElementType::i32, 0);
            pi = b.parameter(spec.iteration.type, spec.iteration.shape, false);
            map += map_entry("input", -1, pi.layer, " purpose=\"current_iteration\"");
        }
        const Node* iteration = spec.iteration_input >= 0 ? &pi : nullptr;
        const auto [last, other] = body_chain(b, ps, {pc}, iteration);
        Node state = maybe_nested_if(b, use_some(b, last, {pc}), iteration);
        // current_iteration must feed something too: a Roll of the state, or the condition.
        if (iteration && !with_condition && !b.consumed(pi)) {
            if (state.shape.empty()) with_condition = true;
            else state = body_roll(b, state, iteration, true);
        }
        const std::vector<int> results{b.result(state), b.result(other)};
        const std::vector<ref::BodyOutput> outputs = body_outputs(b, results, 4, false, map);
        if (with_condition) {
            spec.condition_result = 2;
            map += map_entry("output", -1, b.result(below_limit(b, pi)), " purpose=\"execution_condition\"");
        }
        const std::string inner = map + "</port_map>\n" + back_edge(results[0], ps.layer) + b.xml("body");
        std::vector<ref::BodyInput> inputs{{data.ref, false, 0, 1, 0}, {invariant.ref, false, 0, 1, -1}};
        if (iteration) inputs.push_back({spec.iteration, false, 0, 1, -1});
        const auto outs = reference([&] { return ref::loop(spec, inputs, b.function(), outputs, b.result_shapes()); });
        ++bodies_.loop;
        return keep_one(emit("Loop", "opset5", "", {&trip, &condition, &data, &invariant}, outs, outputs.size(),
                             data.ref.shape.size(), inner));
    }

    // One branch of an If: a chain from the Parameter fed by outer input `port` (`value`); its
    // Results give output 0 and, with `two`, output 1.
    std::string if_branch(BodyWriter& b, const Value& value, int port, bool two, const char* tag) {
        const Node p = b.parameter(value.ref.type, value.ref.shape, one_in(4));
        const auto [last, other] = body_chain(b, p, {}, nullptr);
        std::string map = "<" + std::string(tag) + "_port_map>\n" + map_entry("input", port, p.layer) +
                          map_entry("output", 0, b.result(last));
        if (two) map += map_entry("output", 1, b.result(other));
        return map + "</" + tag + "_port_map>\n";
    }

    // If: a boolean condition (a Const, or a Parameter so the branch is picked at run time), `data`
    // for the then branch and another value (often of another shape) for the else branch, each
    // with its own chain; 1 or 2 outputs.
    Value if_op(const Value& data) {
        if (!fits_a_body(data.ref)) return data;
        const RefTensor t_condition = one_element(ElementType::boolean, fdp_.ConsumeBool() ? 1 : 0);
        const Value condition = source(t_condition, fdp_.ConsumeBool());
        const Shape other_shape = fdp_.ConsumeBool() ? data.ref.shape : random_shape(0, 3);
        const Value other = aux(random_values(data.ref.type, other_shape, 8));
        const bool two = fdp_.ConsumeBool();
        BodyWriter then_body = new_body(), else_body = new_body();
        const std::string then_map = if_branch(then_body, data, 1, two, "then");
        const std::string else_map = if_branch(else_body, other, 2, two, "else");
        const std::string inner = then_map + else_map + then_body.xml("then_body") + else_body.xml("else_body");
        const auto outs = reference([&] {
            return ref::if_op(t_condition, then_body.function(), {data.ref}, else_body.function(), {other.ref});
        });
        ++bodies_.if_;
        return keep_one(emit("If", "opset8", "", {&condition, &data, &other}, outs, two ? 2 : 1, data.ref.shape.size(), inner));
    }

    // ---- comparing ----------------------------------------------------------------------------
    std::string compare(const irlite::Tensor& out, size_t o) const {
        const RefTensor& want = expected_[o];
        if (!out.valid()) return "output " + std::to_string(o) + " is not set";
        if (out.type() != want.type || out.shape() != want.shape)
            return "output " + std::to_string(o) + " is " + irlite::to_string(out.type()) + " " + irlite::to_string(out.shape()) +
                   ", expected " + irlite::to_string(want.type) + " " + irlite::to_string(want.shape);
        for (int64_t i = 0; i < out.num_elements(); ++i)
            if (!element_matches(out, i, want.values[static_cast<size_t>(i)]))
                return "output " + std::to_string(o) + " element " + std::to_string(i) + " is " +
                       std::to_string(out.value_as_double(i)) + ", expected " + std::to_string(want.values[static_cast<size_t>(i)]) +
                       "; expected " + describe(want);
        return {};
    }

    static std::string describe(const RefTensor& t) {
        std::string s = std::string(irlite::to_string(t.type)) + " " + irlite::to_string(t.shape) + " {";
        for (size_t i = 0; i < t.values.size() && i < 64; ++i) s += (i ? "," : "") + std::to_string(t.values[i]);
        return s + (t.values.size() > 64 ? ",...}" : "}");
    }

    static std::vector<const Value*> pointers(const std::vector<Value>& values) {
        std::vector<const Value*> p;
        for (const Value& v : values) p.push_back(&v);
        return p;
    }

    Choices& fdp_;
    irlite::testing::IrBuilder ir_;
    BodyCounts bodies_;
    int bodies_made_ = 0;
    int next_id_ = 0;
    std::vector<RefTensor> params_;    // Parameter values, in XML order
    std::vector<RefTensor> expected_;  // per Result, in XML order
    std::vector<std::string> constants_;  // "c<id>: <values>", for mismatch reports
    bool expect_error_ = false;
    std::string reason_;
};
}  // namespace irlite::fuzz
