// Numpy broadcasting for elementwise ops: the shape rule (on partial shapes, at load time) and a
// row plan for kernels (on static shapes, at run time).
#pragma once

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

// How to run a binary elementwise op over static shapes a, b -> out (out being their broadcast):
// the output is cut into rows of `row_length` elements. Within a row, an input either advances
// with the output (varies) or repeats one element. Rows are visited by an odometer over the outer
// dims, after dims of size 1 are dropped and neighbouring dims with the same broadcast pattern are
// merged, so rows are as long as the shapes allow (same shapes: one row of everything).
struct BroadcastPlan {
    int64_t row_length = 1;
    bool a_varies = true;  // a advances along the row (else a[offset] repeats)
    bool b_varies = true;
    std::vector<int64_t> outer_counts;  // outer loops, outermost first
    std::vector<int64_t> a_strides;     // per outer loop, in elements (0 where a is broadcast)
    std::vector<int64_t> b_strides;

    int64_t num_rows() const;
    // Calls f(a_offset, b_offset, out_offset) for each row, in output order (offsets in elements).
    template <class F>
    void for_each_row(F&& f) const;
    // The same for rows [begin, end) only.
    template <class F>
    void for_each_row_in(int64_t begin, int64_t end, F&& f) const;
};

// Throws Error(kind ShapeRule, code "broadcast-incompatible") when out is not the numpy broadcast
// of a and b.
BroadcastPlan plan_broadcast(const Shape& a, const Shape& b, const Shape& out);

template <class F>
void BroadcastPlan::for_each_row(F&& f) const {
    for_each_row_in(0, num_rows(), f);
}

template <class F>
void BroadcastPlan::for_each_row_in(int64_t begin, int64_t end, F&& f) const {
    // The odometer lives on the stack for every rank a model uses (no allocation per run); it
    // starts at row `begin`.
    constexpr size_t kStackRank = 16;
    const size_t n = outer_counts.size();
    int64_t stack_counter[kStackRank] = {};
    std::vector<int64_t> heap_counter(n > kStackRank ? n : 0, 0);
    int64_t* counter = n > kStackRank ? heap_counter.data() : stack_counter;
    int64_t a_offset = 0, b_offset = 0;
    for (size_t d = n, rest = static_cast<size_t>(begin); d-- > 0;) {
        const auto count = static_cast<size_t>(outer_counts[d]);
        counter[d] = static_cast<int64_t>(rest % count);
        a_offset += counter[d] * a_strides[d];
        b_offset += counter[d] * b_strides[d];
        rest /= count;
    }
    for (int64_t row = begin; row < end; ++row) {
        f(a_offset, b_offset, row * row_length);
        for (size_t d = n; d-- > 0;) {
            a_offset += a_strides[d];
            b_offset += b_strides[d];
            if (++counter[d] < outer_counts[d]) break;
            a_offset -= a_strides[d] * outer_counts[d];
            b_offset -= b_strides[d] * outer_counts[d];
            counter[d] = 0;
        }
    }
}

}  // namespace irlite::detail
