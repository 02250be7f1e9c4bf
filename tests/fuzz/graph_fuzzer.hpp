// The differential graph fuzzer (the fuzz_graph harness and the seed replay test,
// tests/fuzz_graph_seeds_test.cpp, both run it): its generator, and the entry points that build a
// graph and compare irlite with the reference on it.
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
// The parts:
//   graph_writer.hpp      the shared random choices and the graph written, with the reference's
//                         values for it
//   graph_fuzzer.hpp      (this file) the plain ops, and the chain of ops
//   subgraph_fuzzer.hpp   the TensorIterator, Loop and If layers and their bodies
//   graph_comparison.hpp  the run through irlite and the comparison with the reference
#pragma once

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "fuzz/graph_comparison.hpp"
#include "fuzz/graph_writer.hpp"
#include "fuzz/reference_ops.hpp"
#include "fuzz/subgraph_fuzzer.hpp"

namespace irlite::fuzz {

// Writes the plain ops itself and leaves TensorIterator, Loop and If to a SubgraphFuzzer that
// writes into the same graph. GraphWriter is a private base, not a member: the ops call its choices
// and layer writing as their own, and the fuzzer's users see only build() and the comparison.
class GraphFuzzer : private GraphWriter {
public:
    explicit GraphFuzzer(Choices& fdp) : GraphWriter(fdp), subgraphs_(*this) {}
    // A copy's subgraphs_ would still write into the original's graph.
    GraphFuzzer(const GraphFuzzer&) = delete;
    GraphFuzzer& operator=(const GraphFuzzer&) = delete;

    using BodyCounts = SubgraphFuzzer::BodyCounts;
    const BodyCounts& bodies() const { return subgraphs_.bodies(); }
    std::string model_xml() const { return graph().ir.xml(); }
    // The reference rejects the graph: irlite must throw, and no output is compared.
    bool expects_error() const { return graph().expect_error; }

    void build() {
        const RefTensor data = random_data();
        const bool as_parameter = fdp_.ConsumeIntegralInRange(0, 3) != 0;
        Value cur = source(data, as_parameter, true);
        const int ops = fdp_.ConsumeIntegralInRange(1, 5);
        for (int i = 0; i < ops && !graph().expect_error; ++i) cur = apply_random_op(cur);
        result(cur);
    }

    // "" when irlite agrees with the reference, else a report: what differs, the model, its inputs
    // and constants.
    std::string run_and_compare() const { return compare_with_reference(graph()); }

private:
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
            case 21: return subgraphs_.tensor_iterator(cur);
            case 22: return subgraphs_.loop(cur);
            default: return subgraphs_.if_op(cur);
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
        if (one_in(32) && r > 0) {
            const int64_t bad = fdp_.ConsumeIntegralInRange<int64_t>(-1, 0);  // drawn before the position
            block[fdp_.ConsumeIntegralInRange<size_t>(0, r - 1)] = bad;
        }
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

    // GatherND's indices shape (both versions): data's first `batch` dims, 0..2 more, then the
    // depth k of an index, 0..rank - batch (rarely one too many).
    Shape gather_nd_indices_shape(const Shape& shape, size_t batch) {
        const size_t rank = shape.size();
        Shape indices_shape(shape.begin(), shape.begin() + static_cast<std::ptrdiff_t>(std::min(batch, rank)));
        for (int i = fdp_.ConsumeIntegralInRange(0, 2); i > 0; --i) indices_shape.push_back(fdp_.ConsumeIntegralInRange<int64_t>(0, 3));
        const int64_t max_k = static_cast<int64_t>(rank) - static_cast<int64_t>(batch);
        const int64_t k = one_in(16) ? max_k + 1 : fdp_.ConsumeIntegralInRange<int64_t>(0, std::max<int64_t>(max_k, 0));
        indices_shape.push_back(k);
        return indices_shape;
    }

    // GatherND's indices of `indices_shape` (its last dim k): each index row addresses data dims
    // batch..batch+k-1, each value mostly within its dim (negative ones count from the end).
    RefTensor gather_nd_indices(const Shape& shape, size_t batch, const Shape& indices_shape) {
        const size_t rank = shape.size();
        const int64_t k = indices_shape.back();
        const int64_t rows = ref::count(indices_shape) / std::max<int64_t>(k, 1);
        std::vector<int64_t> indices;
        for (int64_t r = 0; r < rows; ++r)
            for (int64_t j = 0; j < k; ++j) {
                const int64_t d = batch + static_cast<size_t>(j) < rank ? shape[batch + static_cast<size_t>(j)] : 1;
                indices.push_back(one_in(4) ? index_in(-d, d - 1) : (d > 0 ? fdp_.ConsumeIntegralInRange<int64_t>(-d, d - 1) : 0));
            }
        indices.resize(static_cast<size_t>(ref::count(indices_shape)), 0);
        return index_tensor(index_type(false), indices_shape, indices);
    }

    // GatherND-5: GatherND-8's selection, with the batch dims of the output merged into one.
    Value gather_nd_5(const Value& data) {
        const Shape& shape = data.ref.shape;
        const size_t rank = shape.size();
        const int64_t batch = rank > 1 && one_in(2) ? fdp_.ConsumeIntegralInRange<int64_t>(1, static_cast<int64_t>(rank) - 1) : 0;
        const auto b = static_cast<size_t>(batch);
        const RefTensor t_indices = gather_nd_indices(shape, b, gather_nd_indices_shape(shape, b));
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
        Shape indices_shape = gather_nd_indices_shape(shape, b);
        if (one_in(16) && b > 0) indices_shape[0] += 1;  // a batch dim that differs from the data's
        const RefTensor t_indices = gather_nd_indices(shape, b, indices_shape);
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
        if (one_in(16) && !other.empty()) {
            const int64_t dim = fdp_.ConsumeIntegralInRange<int64_t>(0, 5);  // drawn before the position
            other[fdp_.ConsumeIntegralInRange<size_t>(0, other.size() - 1)] = dim;
        }
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
            if (!order.empty() && fdp_.ConsumeBool()) {
                const int64_t bad = index_in(-1, static_cast<int64_t>(rank));  // drawn before the position
                order[fdp_.ConsumeIntegralInRange<size_t>(0, order.size() - 1)] = bad;
            } else {
                order.push_back(0);
            }
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

    static std::vector<const Value*> pointers(const std::vector<Value>& values) {
        std::vector<const Value*> p;
        for (const Value& v : values) p.push_back(&v);
        return p;
    }

    SubgraphFuzzer subgraphs_;
};
}  // namespace irlite::fuzz
