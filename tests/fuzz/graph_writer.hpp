// What the graph fuzzer's generators share (graph_fuzzer.hpp writes the plain ops,
// subgraph_fuzzer.hpp the TensorIterator, Loop and If layers): the random choices they draw from
// (choices.hpp) and the graph they write, one layer after another, as IR XML + weights together
// with what the reference says of it (the Parameters' values, and every Result's value or why the
// reference rejects the graph). graph_comparison.hpp runs that graph through irlite.
#pragma once

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "irlite/irlite.hpp"
#include "ir_builder.hpp"
#include "fuzz/choices.hpp"
#include "fuzz/reference_ops.hpp"

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

// An index tensor of `type` holding `values` clamped into the type's range (INT64_MIN/MAX
// become that type's min/max: the open ends Slice must handle for every width).
inline RefTensor index_tensor(ElementType type, Shape shape, const std::vector<int64_t>& values) {
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

// A tensor for mismatch reports: its type, shape and first 64 values.
inline std::string describe(const RefTensor& t) {
    std::string s = std::string(irlite::to_string(t.type)) + " " + irlite::to_string(t.shape) + " {";
    for (size_t i = 0; i < t.values.size() && i < 64; ++i) s += (i ? "," : "") + std::to_string(t.values[i]);
    return s + (t.values.size() > 64 ? ",...}" : "}");
}

// A written graph and the reference's verdict on it.
struct WrittenGraph {
    irlite::testing::IrBuilder ir;
    std::vector<RefTensor> params;       // Parameter values, in XML order
    std::vector<RefTensor> expected;     // per Result, in XML order
    std::vector<std::string> constants;  // "c<id>: <values>", for mismatch reports
    bool expect_error = false;           // the reference rejects the graph: irlite must throw
    std::string reason;                  // why the reference rejects it
};

// Writes layers into one graph, each with its reference values (the reference runs as the layer is
// written), its random choices drawn from one Choices.
class GraphWriter {
public:
    explicit GraphWriter(Choices& fdp) : fdp_(fdp) {}

    const WrittenGraph& graph() const { return graph_; }
    // The one source of choices: every generator writing into this graph draws from it in turn.
    Choices& choices() { return fdp_; }

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
            graph_.ir.parameter(v.layer, "p" + std::to_string(v.layer), type, v.declared);
            graph_.params.push_back(t);
        } else {
            const std::vector<unsigned char> bytes = to_bytes(t);
            note_constant("c" + std::to_string(v.layer), t);
            graph_.ir.constant(v.layer, "c" + std::to_string(v.layer), type, v.declared, bytes.data(), bytes.size());
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
        graph_.ir.layer(id, type + std::to_string(id), type, opset, data, in_ports, out_ports, inner);
        for (size_t i = 0; i < inputs.size(); ++i)
            graph_.ir.edge(inputs[i]->layer, inputs[i]->port, id, static_cast<int>(i));
        return out;
    }

    // Runs the reference; on Invalid the graph must be rejected and the chain stops here.
    template <class Fn>
    std::vector<RefTensor> reference(Fn fn) {
        try {
            return fn();
        } catch (const Invalid& e) {
            graph_.expect_error = true;
            graph_.reason = e.why;
            return {};
        }
    }

    // A Result for `v`; its value is expected unless the reference has rejected the graph by now.
    void result(const Value& v) {
        const int id = next_id_++;
        graph_.ir.layer(id, "r" + std::to_string(id), "Result", "opset1", "",
                        {{0, irlite::testing::IrBuilder::precision(irlite::to_string(v.ref.type)), v.declared, ""}}, {});
        graph_.ir.edge(v.layer, v.port, id, 0);
        if (!graph_.expect_error) graph_.expected.push_back(v.ref);
    }

    // A constant's values, listed in mismatch reports under `name`.
    void note_constant(const std::string& name, const RefTensor& t) {
        graph_.constants.push_back(name + ": " + describe(t));
    }

    // Where a sub-graph body writes its Consts: the model's one .bin.
    std::vector<unsigned char>* weights_for_bodies() { return graph_.ir.weights_for_bodies(); }

protected:
    // The generators draw through this name (FuzzedDataProvider's, as in the libFuzzer harness).
    Choices& fdp_;

private:
    WrittenGraph graph_;
    int next_id_ = 0;
};
}  // namespace irlite::fuzz
