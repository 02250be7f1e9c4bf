// Numpy broadcasting for elementwise ops: the shape rule (on partial shapes, at load time) and a
// row plan for kernels (on static shapes, at run time).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/op.hpp"

namespace irlite::detail {

enum class AutoBroadcast {
    None,   // shapes must be equal
    Numpy,  // numpy rules: align right, a dim of 1 stretches
};

// "none" or "numpy" (named so as not to hide irlite::to_string inside namespace detail).
const char* auto_broadcast_name(AutoBroadcast mode);

// Reads the `auto_broadcast` attribute: "numpy" (the default when absent), "none" or "explicit"
// (OpenVINO treats the two alike for elementwise ops). "pdpd" throws Error(kind Unsupported, code
// "auto-broadcast-unsupported"); anything else Error(kind Attribute, code "attribute-invalid").
AutoBroadcast parse_auto_broadcast(const AttrReader& reader);

// The output shape of an elementwise op on inputs of shapes a and b.
//   Numpy: align right, pad the shorter with 1s; per dim: equal -> that; 1 and x -> x; a dynamic dim
//     with a static x > 1 -> x (it can only be x or 1); with 1 or another dynamic dim -> dynamic;
//     static x != y, both > 1 -> error. An unknown rank gives an unknown rank.
//   None: equal ranks and dims; a dynamic dim takes the other's static value.
// Throws Error(kind ShapeRule, code "broadcast-incompatible") naming both shapes and the first
// clashing dim.
PartialShape broadcast_shapes(const PartialShape& a, const PartialShape& b, AutoBroadcast mode);

// How to run an elementwise op over N inputs of static shapes -> out (out being their broadcast):
// the output is cut into rows of `row_length` elements. Within a row, an input either advances
// with the output (varies) or repeats one element. Rows are visited by an odometer over the outer
// dims, after dims of size 1 are dropped and neighbouring dims where every input has the same
// broadcast pattern are merged, so rows are as long as the shapes allow (same shapes: one row of
// everything). The binary ops use N = 2 (BroadcastPlan), Select 3, FakeQuantize 5.
template <size_t N>
struct BroadcastRows {
    using Offsets = std::array<int64_t, N>;  // one element offset per input

    int64_t row_length = 1;
    std::array<bool, N> varies = filled(true);  // per input: advances along the row (else repeats)
    std::vector<int64_t> outer_counts;          // outer loops, outermost first
    std::vector<Offsets> strides;               // per outer loop, per input, in elements (0 where broadcast)

    int64_t num_rows() const {
        int64_t rows = row_length > 0 ? 1 : 0;
        for (int64_t c : outer_counts) rows *= c;
        return rows;
    }
    // Calls f(offsets, out_offset) for each row, in output order (offsets in elements).
    template <class F>
    void for_each_row(F&& f) const {
        for_each_row_in(0, num_rows(), f);
    }
    // The same for rows [begin, end) only.
    template <class F>
    void for_each_row_in(int64_t begin, int64_t end, F&& f) const;

private:
    static constexpr std::array<bool, N> filled(bool v) {
        std::array<bool, N> a{};
        for (bool& x : a) x = v;
        return a;
    }
};

using BroadcastPlan = BroadcastRows<2>;

// The plan of inputs of shapes *inputs[0..N) to `out`. Throws Error(kind ShapeRule, code
// "broadcast-incompatible") when out is not their numpy broadcast. Instantiated for N = 2, 3, 5.
template <size_t N>
BroadcastRows<N> plan_broadcast_n(const std::array<const Shape*, N>& inputs, const Shape& out);
extern template BroadcastRows<2> plan_broadcast_n<2>(const std::array<const Shape*, 2>&, const Shape&);
extern template BroadcastRows<3> plan_broadcast_n<3>(const std::array<const Shape*, 3>&, const Shape&);
extern template BroadcastRows<5> plan_broadcast_n<5>(const std::array<const Shape*, 5>&, const Shape&);

// The binary form: a and b to out.
inline BroadcastPlan plan_broadcast(const Shape& a, const Shape& b, const Shape& out) {
    return plan_broadcast_n<2>({&a, &b}, out);
}

template <size_t N>
template <class F>
void BroadcastRows<N>::for_each_row_in(int64_t begin, int64_t end, F&& f) const {
    // The odometer lives on the stack for every rank a model uses (no allocation per run); it
    // starts at row `begin`.
    constexpr size_t kStackRank = 16;
    const size_t n = outer_counts.size();
    int64_t stack_counter[kStackRank] = {};
    std::vector<int64_t> heap_counter(n > kStackRank ? n : 0, 0);
    int64_t* counter = n > kStackRank ? heap_counter.data() : stack_counter;
    Offsets offset{};
    for (size_t d = n, rest = static_cast<size_t>(begin); d-- > 0;) {
        const auto count = static_cast<size_t>(outer_counts[d]);
        counter[d] = static_cast<int64_t>(rest % count);
        for (size_t i = 0; i < N; ++i) offset[i] += counter[d] * strides[d][i];
        rest /= count;
    }
    for (int64_t row = begin; row < end; ++row) {
        f(static_cast<const Offsets&>(offset), row * row_length);
        for (size_t d = n; d-- > 0;) {
            const Offsets& step = strides[d];
            for (size_t i = 0; i < N; ++i) offset[i] += step[i];
            if (++counter[d] < outer_counts[d]) break;
            for (size_t i = 0; i < N; ++i) offset[i] -= step[i] * outer_counts[d];
            counter[d] = 0;
        }
    }
}

}  // namespace irlite::detail
