// Plain reference implementations of the ops the differential fuzzer (fuzz_graph.cpp) builds
// graphs from, written from the specs (../shared/specs/README.md and the README's semantics
// section) as straightforward loops over multi-indices, with no code shared with kernels/.
// Unit tests may use them too.
//
// Values are held as int64 whatever the element type: the fuzzer feeds integer values only, so
// every float result is exact (the arithmetic ops round through the real type once, as IEEE
// does). Integer arithmetic wraps modulo 2^bits, as irlite's does. u64 values are stored as their
// bit pattern.
//
// Every op either returns its outputs or throws reference::Invalid when the spec says the inputs
// must be rejected (irlite must then throw irlite::Error).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "irlite/element_type.hpp"
#include "irlite/shape.hpp"

namespace irlite::reference {

// Exact intermediate arithmetic (index bounds, sums): no int64 value can overflow it.
// `__extension__` keeps -Wpedantic quiet about the type (gcc and clang both have it).
__extension__ typedef __int128 int128;

struct Invalid {
    std::string why;
};

struct RefTensor {
    ElementType type = ElementType::f32;
    Shape shape;
    std::vector<int64_t> values;  // row-major
};

inline std::string shape_text(const Shape& s) { return to_string(s); }

// Element count; Invalid when a dim is negative or the product overflows int64.
inline int64_t count(const Shape& shape) {
    int64_t n = 1;
    for (int64_t d : shape) {
        if (d < 0) throw Invalid{"negative dim in " + shape_text(shape)};
        if (d != 0 && n > std::numeric_limits<int64_t>::max() / d) throw Invalid{"element count overflows"};
        n *= d;
    }
    return n;
}

inline RefTensor make(ElementType type, Shape shape) {
    RefTensor t;
    t.type = type;
    t.shape = std::move(shape);
    t.values.assign(static_cast<size_t>(count(t.shape)), 0);
    return t;
}

// Row-major strides in elements.
inline std::vector<int64_t> strides(const Shape& shape) {
    std::vector<int64_t> s(shape.size(), 1);
    for (size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
    return s;
}

// Calls fn(index) for every multi-index of `shape` in row-major order.
template <class Fn>
void for_each_index(const Shape& shape, Fn fn) {
    if (count(shape) == 0) return;
    std::vector<int64_t> index(shape.size(), 0);
    while (true) {
        fn(index);
        size_t d = shape.size();
        while (d > 0) {
            --d;
            if (++index[d] < shape[d]) break;
            index[d] = 0;
            if (d == 0) return;
        }
        if (shape.empty()) return;
    }
}

inline int64_t offset_of(const Shape& shape, const std::vector<int64_t>& index) {
    const std::vector<int64_t> s = strides(shape);
    int64_t off = 0;
    for (size_t i = 0; i < index.size(); ++i) off += index[i] * s[i];
    return off;
}

inline bool is_integer_type(ElementType t) { return is_integral(t); }
inline bool is_i32_or_i64(ElementType t) { return t == ElementType::i32 || t == ElementType::i64; }

// An index value widened to int64 (u64 above INT64_MAX saturates, as irlite reads it).
inline int64_t index_value(const RefTensor& t, size_t i) {
    const int64_t v = t.values[i];
    if (t.type == ElementType::u64 && v < 0) return std::numeric_limits<int64_t>::max();
    return v;
}

// v wrapped to the integer type t (two's complement), or rounded through float/double.
inline int64_t to_type(ElementType t, int64_t v) {
    const uint64_t u = static_cast<uint64_t>(v);
    switch (t) {
        case ElementType::i8: return static_cast<int8_t>(static_cast<uint8_t>(u));
        case ElementType::i16: return static_cast<int16_t>(static_cast<uint16_t>(u));
        case ElementType::i32: return static_cast<int32_t>(static_cast<uint32_t>(u));
        case ElementType::u8: return static_cast<uint8_t>(u);
        case ElementType::u16: return static_cast<uint16_t>(u);
        case ElementType::u32: return static_cast<uint32_t>(u);
        case ElementType::f32: return static_cast<int64_t>(static_cast<float>(v));
        default: return v;  // i64, u64 (bit pattern), f64 (exact for the fuzzer's magnitudes)
    }
}

inline int64_t normalize_axis(int64_t axis, int64_t rank, const char* what) {
    if (axis < -rank || axis >= rank)
        throw Invalid{std::string(what) + " " + std::to_string(axis) + " not in [-r, r-1], r = " + std::to_string(rank)};
    return axis < 0 ? axis + rank : axis;
}

inline void require_1d(const RefTensor& t, const char* what) {
    if (t.shape.size() != 1) throw Invalid{std::string(what) + " must be 1-D"};
}

// ---- Slice-8 -----------------------------------------------------------------------------------
// Per sliced axis of size d, with x < 0 read as x + d (numpy's slicing; the spec digest clamps a
// negative-step start to 0 instead, see the README):
//   step > 0: lo = clamp(start, 0, d), hi = clamp(stop, 0, d), len = max(0, ceil((hi - lo) / step))
//   step < 0: lo = clamp(start, -1, d - 1), hi = clamp(stop, -1, d), len = max(0, ceil((lo - hi) / -step))
// element i along the axis is data[lo + i * step]. Computed in 128 bits: nothing can overflow.
inline RefTensor slice(const RefTensor& data, const RefTensor& start, const RefTensor& stop, const RefTensor& step,
                       const RefTensor* axes) {
    const int64_t rank = static_cast<int64_t>(data.shape.size());
    if (rank == 0) throw Invalid{"Slice data must not be a scalar"};
    for (const RefTensor* t : {&start, &stop, &step, axes}) {
        if (!t) continue;
        if (!is_integer_type(t->type)) throw Invalid{"Slice index inputs must be integers"};
        require_1d(*t, "Slice index input");
    }
    const int64_t n = start.shape[0];
    if (stop.shape[0] != n || step.shape[0] != n || (axes && axes->shape[0] != n))
        throw Invalid{"Slice start/stop/step/axes lengths differ"};
    if (n > rank) throw Invalid{"Slice has more start values than data dims"};
    std::vector<int64_t> axis_of(static_cast<size_t>(n));
    std::vector<bool> used(static_cast<size_t>(rank), false);
    for (int64_t i = 0; i < n; ++i) {
        const int64_t a = axes ? normalize_axis(index_value(*axes, static_cast<size_t>(i)), rank, "Slice axis") : i;
        if (used[static_cast<size_t>(a)]) throw Invalid{"Slice axes repeat"};
        used[static_cast<size_t>(a)] = true;
        axis_of[static_cast<size_t>(i)] = a;
    }
    std::vector<int128> first(static_cast<size_t>(rank), 0), stride(static_cast<size_t>(rank), 1);
    Shape out_shape = data.shape;
    for (int64_t i = 0; i < n; ++i) {
        const size_t a = static_cast<size_t>(axis_of[static_cast<size_t>(i)]);
        const int128 d = data.shape[a];
        int128 b = index_value(start, static_cast<size_t>(i)), e = index_value(stop, static_cast<size_t>(i));
        const int128 s = index_value(step, static_cast<size_t>(i));
        if (s == 0) throw Invalid{"Slice step is 0"};
        if (b < 0) b += d;
        if (e < 0) e += d;
        int128 len = 0;
        if (d == 0) {
            b = 0;  // nothing is read
        } else if (s > 0) {
            b = std::clamp<int128>(b, 0, d);
            e = std::clamp<int128>(e, 0, d);
            len = e > b ? (e - b + s - 1) / s : 0;
        } else {
            b = std::clamp<int128>(b, -1, d - 1);
            e = std::clamp<int128>(e, -1, d);
            len = b > e ? (b - e + (-s) - 1) / (-s) : 0;
        }
        first[a] = b;
        stride[a] = s;
        out_shape[a] = static_cast<int64_t>(len);
    }
    RefTensor out = make(data.type, out_shape);
    int64_t o = 0;
    for_each_index(out_shape, [&](const std::vector<int64_t>& idx) {
        std::vector<int64_t> src(idx.size());
        for (size_t a = 0; a < idx.size(); ++a) src[a] = static_cast<int64_t>(first[a] + idx[a] * stride[a]);
        out.values[static_cast<size_t>(o++)] = data.values[static_cast<size_t>(offset_of(data.shape, src))];
    });
    return out;
}

// ---- VariadicSplit-1 ---------------------------------------------------------------------------
inline std::vector<RefTensor> variadic_split(const RefTensor& data, const RefTensor& axis, const RefTensor& lengths) {
    if (!is_integer_type(axis.type) || !is_integer_type(lengths.type)) throw Invalid{"VariadicSplit inputs must be integers"};
    if (!(axis.shape.empty() || (axis.shape.size() == 1 && axis.shape[0] == 1)))
        throw Invalid{"VariadicSplit axis must be a scalar or of shape [1]"};
    require_1d(lengths, "split_lengths");
    const int64_t rank = static_cast<int64_t>(data.shape.size());
    const size_t a = static_cast<size_t>(normalize_axis(index_value(axis, 0), rank, "VariadicSplit axis"));
    const int64_t d = data.shape[a];
    std::vector<int64_t> len(lengths.values.size());
    int minus_one = -1;
    int128 sum = 0;
    for (size_t i = 0; i < len.size(); ++i) {
        len[i] = index_value(lengths, i);
        if (len[i] < -1) throw Invalid{"split length below -1"};
        if (len[i] == -1) {
            if (minus_one >= 0) throw Invalid{"two -1 split lengths"};
            minus_one = static_cast<int>(i);
        } else {
            sum += len[i];
        }
    }
    if (minus_one >= 0) {
        if (sum > d) throw Invalid{"split lengths exceed the dim"};
        len[static_cast<size_t>(minus_one)] = d - static_cast<int64_t>(sum);
    } else if (sum != d) {
        throw Invalid{"split lengths do not add up to the dim"};
    }
    std::vector<RefTensor> outs;
    int64_t begin = 0;
    for (int64_t l : len) {
        Shape s = data.shape;
        s[a] = l;
        RefTensor out = make(data.type, s);
        int64_t o = 0;
        for_each_index(s, [&](const std::vector<int64_t>& idx) {
            std::vector<int64_t> src = idx;
            src[a] += begin;
            out.values[static_cast<size_t>(o++)] = data.values[static_cast<size_t>(offset_of(data.shape, src))];
        });
        outs.push_back(std::move(out));
        begin += l;
    }
    return outs;
}

// ---- ScatterNDUpdate-3 -------------------------------------------------------------------------
// Every coordinate must be in [-d, d-1] of its own dim (negative counts from the end); duplicate
// index tuples: the last one in row-major order wins.
inline RefTensor scatter_nd_update(const RefTensor& data, const RefTensor& indices, const RefTensor& updates) {
    if (!is_i32_or_i64(indices.type)) throw Invalid{"ScatterNDUpdate indices must be i32 or i64"};
    if (updates.type != data.type) throw Invalid{"ScatterNDUpdate updates type differs from data"};
    const size_t r = data.shape.size(), q = indices.shape.size();
    if (r < 1 || q < 1) throw Invalid{"ScatterNDUpdate data and indices need rank >= 1"};
    const int64_t k = indices.shape.back();
    if (k > static_cast<int64_t>(r)) throw Invalid{"ScatterNDUpdate indices.shape[-1] > data rank"};
    Shape expected(indices.shape.begin(), indices.shape.end() - 1);
    expected.insert(expected.end(), data.shape.begin() + k, data.shape.end());
    const bool one_element_for_scalar = expected.empty() && count(updates.shape) == 1;
    if (updates.shape != expected && !one_element_for_scalar)
        throw Invalid{"ScatterNDUpdate updates shape " + shape_text(updates.shape) + ", expected " + shape_text(expected)};
    const int64_t chunk = count(Shape(data.shape.begin() + k, data.shape.end()));
    const int64_t rows = count(Shape(indices.shape.begin(), indices.shape.end() - 1));
    const std::vector<int64_t> data_strides = strides(data.shape);
    std::vector<int64_t> offsets(static_cast<size_t>(rows));
    for (int64_t row = 0; row < rows; ++row) {
        int64_t off = 0;
        for (int64_t j = 0; j < k; ++j) {
            int64_t c = index_value(indices, static_cast<size_t>(row * k + j));
            const int64_t d = data.shape[static_cast<size_t>(j)];
            if (c < -d || c >= d) throw Invalid{"ScatterNDUpdate index out of range"};
            if (c < 0) c += d;
            off += c * data_strides[static_cast<size_t>(j)];
        }
        offsets[static_cast<size_t>(row)] = off;
    }
    RefTensor out = data;
    for (int64_t row = 0; row < rows; ++row)
        for (int64_t e = 0; e < chunk; ++e)
            out.values[static_cast<size_t>(offsets[static_cast<size_t>(row)] + e)] =
                updates.values[static_cast<size_t>(row * chunk + e)];
    return out;
}

// ---- GatherElements-6 --------------------------------------------------------------------------
inline RefTensor gather_elements(const RefTensor& data, const RefTensor& indices, int64_t axis) {
    if (!is_i32_or_i64(indices.type)) throw Invalid{"GatherElements indices must be i32 or i64"};
    const int64_t rank = static_cast<int64_t>(data.shape.size());
    if (rank < 1) throw Invalid{"GatherElements data needs rank >= 1"};
    if (indices.shape.size() != data.shape.size()) throw Invalid{"GatherElements ranks differ"};
    const size_t a = static_cast<size_t>(normalize_axis(axis, rank, "GatherElements axis"));
    for (size_t i = 0; i < data.shape.size(); ++i)
        if (i != a && indices.shape[i] != data.shape[i]) throw Invalid{"GatherElements non-axis dims differ"};
    RefTensor out = make(data.type, indices.shape);
    const int64_t d = data.shape[a];
    int64_t o = 0;
    for_each_index(indices.shape, [&](const std::vector<int64_t>& idx) {
        int64_t v = index_value(indices, static_cast<size_t>(o));
        if (v < -d || v >= d) throw Invalid{"GatherElements index out of range"};
        if (v < 0) v += d;
        std::vector<int64_t> src = idx;
        src[a] = v;
        out.values[static_cast<size_t>(o++)] = data.values[static_cast<size_t>(offset_of(data.shape, src))];
    });
    return out;
}

// ---- Add-1, Multiply-1 -------------------------------------------------------------------------
// numpy broadcasting (auto_broadcast="numpy", the default) or none (shapes must be equal).
inline RefTensor binary(const RefTensor& a, const RefTensor& b, bool numpy, bool multiply) {
    if (a.type != b.type) throw Invalid{"binary op operand types differ"};
    if (a.type == ElementType::boolean) throw Invalid{"binary arithmetic on boolean"};
    Shape out_shape;
    if (!numpy) {
        if (a.shape != b.shape) throw Invalid{"auto_broadcast=none with different shapes"};
        out_shape = a.shape;
    } else {
        const size_t rank = std::max(a.shape.size(), b.shape.size());
        out_shape.assign(rank, 1);
        for (size_t i = 0; i < rank; ++i) {
            const int64_t x = i < rank - a.shape.size() ? 1 : a.shape[i - (rank - a.shape.size())];
            const int64_t y = i < rank - b.shape.size() ? 1 : b.shape[i - (rank - b.shape.size())];
            if (x != y && x != 1 && y != 1) throw Invalid{"shapes do not broadcast"};
            out_shape[i] = x == 1 ? y : x;
        }
    }
    RefTensor out = make(a.type, out_shape);
    const auto source = [&](const RefTensor& t, const std::vector<int64_t>& idx) {
        std::vector<int64_t> src(t.shape.size());
        const size_t lead = idx.size() - t.shape.size();
        for (size_t i = 0; i < src.size(); ++i) src[i] = t.shape[i] == 1 ? 0 : idx[lead + i];
        return t.values[static_cast<size_t>(offset_of(t.shape, src))];
    };
    int64_t o = 0;
    for_each_index(out_shape, [&](const std::vector<int64_t>& idx) {
        const uint64_t x = static_cast<uint64_t>(source(a, idx)), y = static_cast<uint64_t>(source(b, idx));
        out.values[static_cast<size_t>(o++)] = to_type(a.type, static_cast<int64_t>(multiply ? x * y : x + y));
    });
    return out;
}
inline RefTensor add(const RefTensor& a, const RefTensor& b, bool numpy = true) { return binary(a, b, numpy, false); }
inline RefTensor multiply(const RefTensor& a, const RefTensor& b, bool numpy = true) { return binary(a, b, numpy, true); }

// ---- Transpose-1 -------------------------------------------------------------------------------
// An empty order reverses the dims; otherwise it must be a permutation of [0, r-1].
inline RefTensor transpose(const RefTensor& data, const RefTensor& order) {
    if (!is_integer_type(order.type)) throw Invalid{"Transpose order must be integers"};
    require_1d(order, "Transpose order");
    const size_t rank = data.shape.size();
    std::vector<int64_t> perm(rank);
    if (order.values.empty()) {
        for (size_t i = 0; i < rank; ++i) perm[i] = static_cast<int64_t>(rank - 1 - i);
    } else {
        if (order.values.size() != rank) throw Invalid{"Transpose order length differs from the rank"};
        std::vector<bool> seen(rank, false);
        for (size_t i = 0; i < rank; ++i) {
            perm[i] = index_value(order, i);
            if (perm[i] < 0 || perm[i] >= static_cast<int64_t>(rank) || seen[static_cast<size_t>(perm[i])])
                throw Invalid{"Transpose order is not a permutation"};
            seen[static_cast<size_t>(perm[i])] = true;
        }
    }
    Shape out_shape(rank);
    for (size_t i = 0; i < rank; ++i) out_shape[i] = data.shape[static_cast<size_t>(perm[i])];
    RefTensor out = make(data.type, out_shape);
    int64_t o = 0;
    for_each_index(out_shape, [&](const std::vector<int64_t>& idx) {
        std::vector<int64_t> src(rank);
        for (size_t i = 0; i < rank; ++i) src[static_cast<size_t>(perm[i])] = idx[i];
        out.values[static_cast<size_t>(o++)] = data.values[static_cast<size_t>(offset_of(data.shape, src))];
    });
    return out;
}

// ---- Concat-1 ----------------------------------------------------------------------------------
inline RefTensor concat(const std::vector<RefTensor>& inputs, int64_t axis) {
    const RefTensor& first = inputs.at(0);
    const int64_t rank = static_cast<int64_t>(first.shape.size());
    if (rank < 1) throw Invalid{"Concat of scalars"};
    const size_t a = static_cast<size_t>(normalize_axis(axis, rank, "Concat axis"));
    Shape out_shape = first.shape;
    out_shape[a] = 0;
    for (const RefTensor& t : inputs) {
        if (t.type != first.type) throw Invalid{"Concat types differ"};
        if (t.shape.size() != first.shape.size()) throw Invalid{"Concat ranks differ"};
        for (size_t i = 0; i < t.shape.size(); ++i)
            if (i != a && t.shape[i] != first.shape[i]) throw Invalid{"Concat non-axis dims differ"};
        out_shape[a] += t.shape[a];
    }
    RefTensor out = make(first.type, out_shape);
    int64_t o = 0;
    for_each_index(out_shape, [&](const std::vector<int64_t>& idx) {
        std::vector<int64_t> src = idx;
        size_t which = 0;
        while (src[a] >= inputs[which].shape[a]) src[a] -= inputs[which++].shape[a];
        out.values[static_cast<size_t>(o++)] = inputs[which].values[static_cast<size_t>(offset_of(inputs[which].shape, src))];
    });
    return out;
}

// ---- Reshape-1 ---------------------------------------------------------------------------------
// special_zero: a 0 copies the input dim at the same index. One -1 at most, resolved from the
// element count; when the other dims multiply to 0 it resolves to 0 for an empty input and is an
// error otherwise.
inline RefTensor reshape(const RefTensor& data, const RefTensor& pattern, bool special_zero) {
    if (!is_integer_type(pattern.type)) throw Invalid{"Reshape shape must be integers"};
    if (pattern.shape.size() > 1) throw Invalid{"Reshape shape must be 1-D"};
    const int64_t in_count = count(data.shape);
    Shape dims(pattern.values.size());
    int minus_one = -1;
    int128 known = 1;
    for (size_t i = 0; i < dims.size(); ++i) {
        int64_t v = index_value(pattern, i);
        if (v < -1) throw Invalid{"Reshape dim below -1"};
        if (v == -1) {
            if (minus_one >= 0) throw Invalid{"Reshape has two -1"};
            minus_one = static_cast<int>(i);
        } else {
            if (v == 0 && special_zero) {
                if (i >= data.shape.size()) throw Invalid{"Reshape special zero past the input rank"};
                v = data.shape[i];
            }
            known *= v;
            if (known > std::numeric_limits<int64_t>::max()) throw Invalid{"Reshape element count overflows"};
        }
        dims[i] = v;
    }
    if (minus_one >= 0) {
        if (known == 0) {
            if (in_count != 0) throw Invalid{"Reshape -1 next to a 0 dim"};
            dims[static_cast<size_t>(minus_one)] = 0;
        } else {
            if (in_count % static_cast<int64_t>(known) != 0) throw Invalid{"Reshape count not divisible"};
            dims[static_cast<size_t>(minus_one)] = in_count / static_cast<int64_t>(known);
        }
    } else if (known != in_count) {
        throw Invalid{"Reshape element count differs"};
    }
    RefTensor out = data;
    out.shape = dims;
    return out;
}

// ---- ScatterUpdate-3 ---------------------------------------------------------------------------
// out[a..., indices[i...], b...] = updates[a..., i..., b...]; indices in [0, d-1] (no negatives);
// repeated indices: the last one in row-major order of updates wins.
inline RefTensor scatter_update(const RefTensor& data, const RefTensor& indices, const RefTensor& updates,
                                const RefTensor& axis_t) {
    if (!is_integer_type(indices.type) || !is_integer_type(axis_t.type)) throw Invalid{"ScatterUpdate indices/axis must be integers"};
    if (updates.type != data.type) throw Invalid{"ScatterUpdate updates type differs from data"};
    if (axis_t.values.size() != 1 || axis_t.shape.size() > 1) throw Invalid{"ScatterUpdate axis must be one value"};
    const int64_t rank = static_cast<int64_t>(data.shape.size());
    if (rank < 1) throw Invalid{"ScatterUpdate data needs rank >= 1"};
    const size_t a = static_cast<size_t>(normalize_axis(index_value(axis_t, 0), rank, "ScatterUpdate axis"));
    Shape expected(data.shape.begin(), data.shape.begin() + static_cast<std::ptrdiff_t>(a));
    expected.insert(expected.end(), indices.shape.begin(), indices.shape.end());
    expected.insert(expected.end(), data.shape.begin() + static_cast<std::ptrdiff_t>(a) + 1, data.shape.end());
    if (updates.shape != expected) throw Invalid{"ScatterUpdate updates shape"};
    const int64_t d = data.shape[a];
    for (size_t i = 0; i < indices.values.size(); ++i) {
        const int64_t v = index_value(indices, i);
        if (v < 0 || v >= d) throw Invalid{"ScatterUpdate index out of range"};
    }
    RefTensor out = data;
    const size_t q = indices.shape.size();
    int64_t u = 0;
    for_each_index(updates.shape, [&](const std::vector<int64_t>& idx) {
        std::vector<int64_t> ii(idx.begin() + static_cast<std::ptrdiff_t>(a), idx.begin() + static_cast<std::ptrdiff_t>(a + q));
        const int64_t which = q ? offset_of(indices.shape, ii) : 0;
        std::vector<int64_t> dst(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(a));
        dst.push_back(index_value(indices, static_cast<size_t>(which)));
        dst.insert(dst.end(), idx.begin() + static_cast<std::ptrdiff_t>(a + q), idx.end());
        out.values[static_cast<size_t>(offset_of(data.shape, dst))] = updates.values[static_cast<size_t>(u++)];
    });
    return out;
}

// ---- ScatterElementsUpdate-12 -----------------------------------------------------------------
// out = data; for each element u of updates (row-major), at its own coordinates with the axis one
// replaced by indices[u] (in [-d, d-1]): none -> out = v; sum/min/max combine with what is there.
// Without use_init_val a position's first update replaces the data value. Indices: any integer
// type, rank r, each dim <= data's except along the axis; updates: data's type, indices' shape.
enum class SeuReduction { None, Sum, Min, Max };
inline RefTensor scatter_elements_update(const RefTensor& data, const RefTensor& indices, const RefTensor& updates,
                                         const RefTensor& axis_t, SeuReduction reduction, bool use_init_val) {
    if (!is_integer_type(indices.type) || !is_integer_type(axis_t.type)) throw Invalid{"SEU indices/axis must be integers"};
    if (updates.type != data.type) throw Invalid{"SEU updates type differs from data"};
    if (axis_t.values.size() != 1 || axis_t.shape.size() > 1) throw Invalid{"SEU axis must be one value"};
    const int64_t rank = static_cast<int64_t>(data.shape.size());
    if (rank < 1) throw Invalid{"SEU data needs rank >= 1"};
    if (indices.shape.size() != data.shape.size()) throw Invalid{"SEU indices rank differs from data"};
    if (updates.shape != indices.shape) throw Invalid{"SEU updates shape differs from indices"};
    const size_t a = static_cast<size_t>(normalize_axis(index_value(axis_t, 0), rank, "SEU axis"));
    for (size_t i = 0; i < data.shape.size(); ++i)
        if (i != a && indices.shape[i] > data.shape[i]) throw Invalid{"SEU indices dim larger than data's"};
    const int64_t d = data.shape[a];
    for (size_t i = 0; i < indices.values.size(); ++i) {
        const int64_t v = index_value(indices, i);
        if (v < -d || v >= d) throw Invalid{"SEU index out of range"};
    }
    RefTensor out = data;
    std::vector<bool> touched(out.values.size(), false);
    int64_t u = 0;
    for_each_index(indices.shape, [&](const std::vector<int64_t>& idx) {
        std::vector<int64_t> dst = idx;
        int64_t v = index_value(indices, static_cast<size_t>(u));
        dst[a] = v < 0 ? v + d : v;
        const auto o = static_cast<size_t>(offset_of(data.shape, dst));
        const int64_t x = updates.values[static_cast<size_t>(u++)];
        if (reduction == SeuReduction::None || (!use_init_val && !touched[o])) {
            out.values[o] = x;
        } else if (reduction == SeuReduction::Sum) {
            out.values[o] = to_type(data.type, static_cast<int64_t>(static_cast<uint64_t>(out.values[o]) + static_cast<uint64_t>(x)));
        } else {
            // u64 values are bit patterns: compare them unsigned.
            const bool less = data.type == ElementType::u64 ? static_cast<uint64_t>(x) < static_cast<uint64_t>(out.values[o])
                                                            : x < out.values[o];
            if ((reduction == SeuReduction::Min) == less) out.values[o] = x;
        }
        touched[o] = true;
    });
    return out;
}

// ---- DepthToSpace-1, SpaceToDepth-1 -----------------------------------------------------------
// [N, C*bs^K, D1..DK] <-> [N, C, D1*bs, ..., DK*bs]: the channel of the deep side is read as
// (b1..bK, c) (blocks_first) or (c, b1..bK) (depth_first), block bi next to spatial dim i.
inline RefTensor depth_space(const RefTensor& data, bool to_depth, bool blocks_first, int64_t bs) {
    const size_t r = data.shape.size();
    if (r < 3) throw Invalid{"DepthToSpace/SpaceToDepth data needs rank >= 3"};
    if (bs < 1) throw Invalid{"block_size < 1"};
    const size_t k = r - 2;
    int64_t blocks = 1;
    for (size_t i = 0; i < k; ++i) blocks *= bs;
    Shape out = data.shape;
    if (to_depth) {
        for (size_t i = 2; i < r; ++i) {
            if (data.shape[i] % bs != 0) throw Invalid{"SpaceToDepth spatial dim not divisible"};
            out[i] = data.shape[i] / bs;
        }
        out[1] = data.shape[1] * blocks;
    } else {
        if (data.shape[1] % blocks != 0) throw Invalid{"DepthToSpace channels not divisible"};
        out[1] = data.shape[1] / blocks;
        for (size_t i = 2; i < r; ++i) out[i] = data.shape[i] * bs;
    }
    const Shape& space = to_depth ? data.shape : out;  // the spatial (shallow) side
    const Shape& depth = to_depth ? out : data.shape;
    const int64_t c_count = space[1];
    RefTensor result = make(data.type, out);
    // Walk the shallow side; find the deep-side element it pairs with.
    for_each_index(space, [&](const std::vector<int64_t>& sp) {
        int64_t flat_b = 0;
        std::vector<int64_t> dp(r);
        dp[0] = sp[0];
        for (size_t i = 2; i < r; ++i) {
            flat_b = flat_b * bs + sp[i] % bs;
            dp[i] = sp[i] / bs;
        }
        dp[1] = blocks_first ? flat_b * c_count + sp[1] : sp[1] * blocks + flat_b;
        const int64_t from = to_depth ? offset_of(space, sp) : offset_of(depth, dp);
        const int64_t to = to_depth ? offset_of(depth, dp) : offset_of(space, sp);
        result.values[static_cast<size_t>(to)] = data.values[static_cast<size_t>(from)];
    });
    return result;
}

// ---- BatchToSpace-2, SpaceToBatch-2 -------------------------------------------------------------
// block_shape b (>= 1, b[0] = 1), crops / pads begin and end (>= 0, [0] = 0), r values each, one
// integer type. BatchToSpace: batch read as (r1..rk, n); out dim i = Di * bi - cb - ce; out (n, y)
// reads in batch flatten(xi % bi) * (B / prod b) + n at xi / bi, xi = yi + cb. SpaceToBatch: the
// inverse over the zero-padded data.
inline RefTensor batch_space(const RefTensor& data, const RefTensor& block_t, const RefTensor& begin_t,
                             const RefTensor& end_t, bool to_batch) {
    const size_t r = data.shape.size();
    if (r < 2) throw Invalid{"BatchToSpace/SpaceToBatch data needs rank >= 2"};
    for (const RefTensor* t : {&block_t, &begin_t, &end_t}) {
        if (!is_integer_type(t->type)) throw Invalid{"block/crops/pads must be integers"};
        if (t->type != block_t.type) throw Invalid{"block/crops/pads types differ"};
        if (t->shape != Shape{static_cast<int64_t>(r)}) throw Invalid{"block/crops/pads must hold r values"};
    }
    std::vector<int64_t> b(r), lo(r), hi(r);
    int64_t prod = 1;
    for (size_t i = 0; i < r; ++i) {
        b[i] = index_value(block_t, i), lo[i] = index_value(begin_t, i), hi[i] = index_value(end_t, i);
        if (b[i] < 1 || lo[i] < 0 || hi[i] < 0) throw Invalid{"block < 1 or negative crops/pads"};
        if (b[i] > (int64_t{1} << 20) || lo[i] > (int64_t{1} << 20) || hi[i] > (int64_t{1} << 20)) throw Invalid{"too large"};
        prod *= b[i];
    }
    if (b[0] != 1 || lo[0] != 0 || hi[0] != 0) throw Invalid{"batch dim block/crops/pads"};
    Shape out = data.shape;
    if (to_batch) {
        out[0] = data.shape[0] * prod;
        for (size_t i = 1; i < r; ++i) {
            const int64_t padded = data.shape[i] + lo[i] + hi[i];
            if (padded % b[i] != 0) throw Invalid{"SpaceToBatch padded dim not divisible"};
            out[i] = padded / b[i];
        }
    } else {
        if (data.shape[0] % prod != 0) throw Invalid{"BatchToSpace batch not divisible"};
        out[0] = data.shape[0] / prod;
        for (size_t i = 1; i < r; ++i) {
            const int64_t full = data.shape[i] * b[i];
            if (lo[i] + hi[i] > full) throw Invalid{"BatchToSpace crops larger than the dim"};
            out[i] = full - lo[i] - hi[i];
        }
    }
    RefTensor result = make(data.type, out);
    const int64_t small_batch = to_batch ? data.shape[0] : out[0];
    if (to_batch) {
        // out (ob, y): ob = flatten(o) * B + n; element (n, yi * bi + oi - lo_i) of data, 0 outside.
        int64_t at = 0;
        for_each_index(out, [&](const std::vector<int64_t>& y) {
            int64_t rest = y[0] / small_batch, v = 0;
            std::vector<int64_t> x(r);
            x[0] = y[0] % small_batch;
            bool inside = true;
            for (size_t i = r; i-- > 1;) {
                const int64_t o = rest % b[i];
                rest /= b[i];
                x[i] = y[i] * b[i] + o - lo[i];
                if (x[i] < 0 || x[i] >= data.shape[i]) inside = false;
            }
            if (inside) v = data.values[static_cast<size_t>(offset_of(data.shape, x))];
            result.values[static_cast<size_t>(at++)] = v;
        });
    } else {
        int64_t at = 0;
        for_each_index(out, [&](const std::vector<int64_t>& y) {
            int64_t flat = 0;
            std::vector<int64_t> x(r);
            for (size_t i = 1; i < r; ++i) {
                const int64_t full = y[i] + lo[i];
                flat = flat * b[i] + full % b[i];
                x[i] = full / b[i];
            }
            x[0] = flat * small_batch + y[0];
            result.values[static_cast<size_t>(at++)] = data.values[static_cast<size_t>(offset_of(data.shape, x))];
        });
    }
    return result;
}

// ---- NonZero-3 ---------------------------------------------------------------------------------
// [rank, n]: column j the coordinates of the j-th non-zero element in row-major order (a scalar:
// [0, n]); output type i64 or i32.
inline RefTensor non_zero(const RefTensor& data, ElementType out_type) {
    std::vector<std::vector<int64_t>> found;
    int64_t at = 0;
    for_each_index(data.shape, [&](const std::vector<int64_t>& idx) {
        if (data.values[static_cast<size_t>(at++)] != 0) found.push_back(idx);
    });
    const int64_t rank = static_cast<int64_t>(data.shape.size()), n = static_cast<int64_t>(found.size());
    RefTensor out = make(out_type, {rank, n});
    for (int64_t d = 0; d < rank; ++d)
        for (int64_t j = 0; j < n; ++j)
            out.values[static_cast<size_t>(d * n + j)] = found[static_cast<size_t>(j)][static_cast<size_t>(d)];
    return out;
}

// ---- CumSum-3 ----------------------------------------------------------------------------------
// Sums along `axis` (inclusive or exclusive, forward or reverse), wrapping in the integer type.
inline RefTensor cum_sum(const RefTensor& data, const RefTensor& axis_t, bool exclusive, bool reverse) {
    if (!is_i32_or_i64(axis_t.type) || axis_t.values.size() != 1 || axis_t.shape.size() > 1)
        throw Invalid{"CumSum axis must be one i32/i64 value"};
    const int64_t rank = static_cast<int64_t>(data.shape.size());
    if (rank < 1) throw Invalid{"CumSum data needs rank >= 1"};
    const size_t a = static_cast<size_t>(normalize_axis(index_value(axis_t, 0), rank, "CumSum axis"));
    RefTensor out = data;
    const int64_t d = data.shape[a];
    Shape outer = data.shape;
    outer[a] = 1;
    for_each_index(outer, [&](const std::vector<int64_t>& base) {
        std::vector<int64_t> at = base;
        uint64_t sum = 0;
        for (int64_t step = 0; step < d; ++step) {
            at[a] = reverse ? d - 1 - step : step;
            const auto o = static_cast<size_t>(offset_of(data.shape, at));
            const uint64_t v = static_cast<uint64_t>(data.values[o]);
            if (!exclusive) sum += v;
            out.values[o] = to_type(data.type, static_cast<int64_t>(sum));
            if (exclusive) sum += v;
        }
    });
    return out;
}

// ---- ShuffleChannels-1 -------------------------------------------------------------------------
// Dim `axis` (size C) viewed as [group, C / group] and transposed: input channel g * (C / group) + j
// goes to output channel j * group + g.
inline RefTensor shuffle_channels(const RefTensor& data, int64_t axis, int64_t group) {
    const int64_t rank = static_cast<int64_t>(data.shape.size());
    if (rank < 1) throw Invalid{"ShuffleChannels data needs rank >= 1"};
    const size_t a = static_cast<size_t>(normalize_axis(axis, rank, "ShuffleChannels axis"));
    const int64_t c = data.shape[a];
    if (group < 1 || c % group != 0) throw Invalid{"ShuffleChannels group must divide the channels"};
    RefTensor out = make(data.type, data.shape);
    int64_t at = 0;
    for_each_index(data.shape, [&](const std::vector<int64_t>& idx) {
        std::vector<int64_t> dst = idx;
        const int64_t per = c / group, g = idx[a] / per, j = idx[a] % per;
        dst[a] = j * group + g;
        out.values[static_cast<size_t>(offset_of(out.shape, dst))] = data.values[static_cast<size_t>(at++)];
    });
    return out;
}

// ---- OneHot-1 ----------------------------------------------------------------------------------
// indices (i32/i64) -> their shape with `depth` inserted at axis (-1 appends); on_value where the
// index equals the position, off_value elsewhere (an index outside [0, depth-1]: all off).
inline RefTensor one_hot(const RefTensor& indices, const RefTensor& depth_t, const RefTensor& on, const RefTensor& off,
                         int64_t axis) {
    if (!is_i32_or_i64(indices.type)) throw Invalid{"OneHot indices must be i32 or i64"};
    if (!is_integer_type(depth_t.type) || depth_t.values.size() != 1 || depth_t.shape.size() > 1)
        throw Invalid{"OneHot depth must be one integer"};
    if (on.type != off.type || !on.shape.empty() || !off.shape.empty()) throw Invalid{"OneHot on/off must be scalars of one type"};
    const int64_t depth = index_value(depth_t, 0);
    if (depth < 0 || depth > 64) throw Invalid{"OneHot depth out of range"};
    const int64_t r = static_cast<int64_t>(indices.shape.size());
    if (axis < -1 - r || axis > r) throw Invalid{"OneHot axis out of range"};
    const size_t a = static_cast<size_t>(axis < 0 ? axis + r + 1 : axis);
    Shape shape = indices.shape;
    shape.insert(shape.begin() + static_cast<std::ptrdiff_t>(a), depth);
    RefTensor out = make(on.type, shape);
    int64_t at = 0;
    for_each_index(shape, [&](const std::vector<int64_t>& idx) {
        std::vector<int64_t> src = idx;
        src.erase(src.begin() + static_cast<std::ptrdiff_t>(a));
        const int64_t v = indices.values[static_cast<size_t>(offset_of(indices.shape, src))];
        out.values[static_cast<size_t>(at++)] = v == idx[a] ? on.values[0] : off.values[0];
    });
    return out;
}

// ---- TopK-11 -----------------------------------------------------------------------------------
// Along `axis`, the k best elements: mode max (largest first) or min; equal values keep index order
// (lower first). sort = value orders them by that ranking, sort = index by index. Outputs: values
// and i32 indices.
inline std::vector<RefTensor> top_k(const RefTensor& data, const RefTensor& k_t, int64_t axis, bool max_mode,
                                    bool sort_by_index) {
    if (data.type == ElementType::boolean) throw Invalid{"TopK on boolean"};
    if (!is_integer_type(k_t.type) || k_t.values.size() != 1 || k_t.shape.size() > 1) throw Invalid{"TopK k must be one integer"};
    const int64_t rank = static_cast<int64_t>(data.shape.size());
    if (rank < 1) throw Invalid{"TopK data needs rank >= 1"};
    const size_t a = static_cast<size_t>(normalize_axis(axis, rank, "TopK axis"));
    const int64_t k = index_value(k_t, 0), d = data.shape[a];
    if (k < 0 || k > d) throw Invalid{"TopK k out of range"};
    Shape shape = data.shape;
    shape[a] = k;
    RefTensor values = make(data.type, shape), indices = make(ElementType::i32, shape);
    const bool u64 = data.type == ElementType::u64;
    const auto better = [&](int64_t x, int64_t y) {  // x strictly ranks before y by value
        const bool less = u64 ? static_cast<uint64_t>(x) < static_cast<uint64_t>(y) : x < y;
        const bool greater = u64 ? static_cast<uint64_t>(x) > static_cast<uint64_t>(y) : x > y;
        return max_mode ? greater : less;
    };
    Shape outer = data.shape;
    outer[a] = 1;
    for_each_index(outer, [&](const std::vector<int64_t>& base) {
        std::vector<int64_t> order(static_cast<size_t>(d));
        for (int64_t i = 0; i < d; ++i) order[static_cast<size_t>(i)] = i;
        std::vector<int64_t> at = base;
        const auto value = [&](int64_t i) {
            at[a] = i;
            return data.values[static_cast<size_t>(offset_of(data.shape, at))];
        };
        std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return better(value(x), value(y)); });
        order.resize(static_cast<size_t>(k));
        if (sort_by_index) std::sort(order.begin(), order.end());
        for (int64_t j = 0; j < k; ++j) {
            std::vector<int64_t> dst = base;
            dst[a] = j;
            const auto o = static_cast<size_t>(offset_of(shape, dst));
            values.values[o] = value(order[static_cast<size_t>(j)]);
            indices.values[o] = order[static_cast<size_t>(j)];
        }
    });
    return {values, indices};
}

// ---- GatherND-8 --------------------------------------------------------------------------------
// batch_dims b; each tuple (last dim k of indices) picks data[batch..., i0..ik-1, ...]; a
// coordinate in [-d, d-1] of its dim (negatives count from the end).
inline RefTensor gather_nd(const RefTensor& data, const RefTensor& indices, int64_t batch_dims) {
    if (!is_i32_or_i64(indices.type)) throw Invalid{"GatherND indices must be i32 or i64"};
    const size_t r = data.shape.size(), q = indices.shape.size();
    if (r < 1 || q < 1) throw Invalid{"GatherND ranks must be >= 1"};
    if (batch_dims < 0 || static_cast<size_t>(batch_dims) >= std::min(r, q)) throw Invalid{"GatherND batch_dims"};
    const size_t b = static_cast<size_t>(batch_dims);
    for (size_t i = 0; i < b; ++i)
        if (data.shape[i] != indices.shape[i]) throw Invalid{"GatherND batch dims differ"};
    const int64_t k = indices.shape.back();
    if (k > static_cast<int64_t>(r - b)) throw Invalid{"GatherND tuple too long"};
    Shape out_shape(indices.shape.begin(), indices.shape.end() - 1);
    out_shape.insert(out_shape.end(), data.shape.begin() + static_cast<std::ptrdiff_t>(b) + k, data.shape.end());
    RefTensor out = make(data.type, out_shape);
    const size_t tuple_dims = q - 1;  // out dims that come from indices
    int64_t o = 0;
    for_each_index(out_shape, [&](const std::vector<int64_t>& idx) {
        std::vector<int64_t> tuple_pos(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(tuple_dims));
        tuple_pos.push_back(0);
        const int64_t base = offset_of(indices.shape, tuple_pos);
        std::vector<int64_t> src(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(b));
        for (int64_t j = 0; j < k; ++j) {
            int64_t c = index_value(indices, static_cast<size_t>(base + j));
            const int64_t d = data.shape[b + static_cast<size_t>(j)];
            if (c < -d || c >= d) throw Invalid{"GatherND index out of range"};
            if (c < 0) c += d;
            src.push_back(c);
        }
        src.insert(src.end(), idx.begin() + static_cast<std::ptrdiff_t>(tuple_dims), idx.end());
        out.values[static_cast<size_t>(o++)] = data.values[static_cast<size_t>(offset_of(data.shape, src))];
    });
    return out;
}

// ---- Roll-7 ------------------------------------------------------------------------------------
// A scalar shift applies to every axis; otherwise shift and axes pair up; repeated axes add up.
inline RefTensor roll(const RefTensor& data, const RefTensor& shift, const RefTensor& axes) {
    if (!is_i32_or_i64(shift.type) || !is_i32_or_i64(axes.type)) throw Invalid{"Roll shift/axes must be i32 or i64"};
    if (shift.shape.size() > 1 || axes.shape.size() > 1) throw Invalid{"Roll shift/axes must be 0-D or 1-D"};
    if (!shift.shape.empty() && shift.values.size() != axes.values.size()) throw Invalid{"Roll shift/axes lengths differ"};
    const int64_t rank = static_cast<int64_t>(data.shape.size());
    std::vector<int128> total(data.shape.size(), 0);
    for (size_t i = 0; i < axes.values.size(); ++i) {
        const size_t a = static_cast<size_t>(normalize_axis(index_value(axes, i), rank, "Roll axis"));
        total[a] += shift.shape.empty() ? index_value(shift, 0) : index_value(shift, i);
    }
    RefTensor out = make(data.type, data.shape);
    int64_t o = 0;
    for_each_index(data.shape, [&](const std::vector<int64_t>& idx) {
        std::vector<int64_t> src = idx;
        for (size_t a = 0; a < src.size(); ++a) {
            const int128 d = data.shape[a];
            src[a] = static_cast<int64_t>((((idx[a] - total[a]) % d) + d) % d);
        }
        out.values[static_cast<size_t>(o++)] = data.values[static_cast<size_t>(offset_of(data.shape, src))];
    });
    return out;
}

}  // namespace irlite::reference
