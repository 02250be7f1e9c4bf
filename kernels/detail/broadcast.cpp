#include "kernels/detail/broadcast.hpp"

#include "kernels/detail/small_buffer.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace irlite::detail {

const char* auto_broadcast_name(AutoBroadcast mode) { return mode == AutoBroadcast::None ? "none" : "numpy"; }

AutoBroadcast parse_auto_broadcast(const AttrReader& reader) {
    std::string v = reader.get_string("auto_broadcast", "numpy");
    std::string low;
    for (char c : v)
        if (!std::isspace(static_cast<unsigned char>(c)))
            low += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (low == "numpy") return AutoBroadcast::Numpy;
    if (low == "none" || low == "explicit") return AutoBroadcast::None;
    if (low == "pdpd")
        throw Error(ErrorKind::Unsupported, "auto-broadcast-unsupported",
                    "attribute 'auto_broadcast' = \"pdpd\" is not supported by irlite (supported: numpy, none)");
    throw Error(ErrorKind::Attribute, "attribute-invalid",
                str("attribute 'auto_broadcast' = \"", v, "\" is invalid: expected one of numpy, none, explicit"));
}

namespace {

Error incompatible(const PartialShape& a, const PartialShape& b, AutoBroadcast mode, const std::string& why) {
    return Error(ErrorKind::ShapeRule, "broadcast-incompatible",
                 str("input shapes ", to_string(a), " and ", to_string(b),
                     " are not compatible with auto_broadcast=", auto_broadcast_name(mode), ": ", why));
}

int64_t broadcast_dim(int64_t x, int64_t y, bool& ok) {
    ok = true;
    if (x == y) return x;
    if (x == kDynamic) return y == 1 ? kDynamic : y;
    if (y == kDynamic) return x == 1 ? kDynamic : x;
    if (x == 1) return y;
    if (y == 1) return x;
    ok = false;
    return 0;
}

}  // namespace

PartialShape broadcast_shapes(const PartialShape& a, const PartialShape& b, AutoBroadcast mode) {
    if (!a.rank_known() || !b.rank_known()) return PartialShape::dynamic_rank();
    if (mode == AutoBroadcast::None) {
        if (a.rank() != b.rank()) throw incompatible(a, b, mode, str("ranks ", a.rank(), " and ", b.rank(), " differ"));
        std::vector<int64_t> dims(a.rank());
        for (size_t i = 0; i < a.rank(); ++i) {
            if (!dims_compatible(a[i], b[i]))
                throw incompatible(a, b, mode, str("dim ", i, " is ", a[i], " vs ", b[i]));
            dims[i] = a[i] == kDynamic ? b[i] : a[i];
        }
        return PartialShape(std::move(dims));
    }
    const size_t rank = std::max(a.rank(), b.rank());
    std::vector<int64_t> dims(rank);
    for (size_t i = 0; i < rank; ++i) {
        // i counts from the right-hand end.
        const int64_t x = i < a.rank() ? a[a.rank() - 1 - i] : 1;
        const int64_t y = i < b.rank() ? b[b.rank() - 1 - i] : 1;
        bool ok = true;
        dims[rank - 1 - i] = broadcast_dim(x, y, ok);
        if (!ok)
            throw incompatible(
                a, b, mode,
                str("dim ", x, " and dim ", y, " (", i + 1, " from the end) can be neither matched nor stretched"));
    }
    return PartialShape(std::move(dims));
}

namespace {

// "a and b", "a, b and c": the input shapes for a message.
template <size_t N>
std::string shapes_text(const std::array<const Shape*, N>& inputs) {
    std::string text;
    for (size_t i = 0; i < N; ++i) text += (i == 0 ? "" : i + 1 == N ? " and " : ", ") + to_string(*inputs[i]);
    return text;
}

}  // namespace

template <size_t N>
BroadcastRows<N> plan_broadcast_n(const std::array<const Shape*, N>& inputs, const Shape& out) {
    static_assert(N >= 1 && N <= 32, "one pattern bit per input");
    const size_t rank = out.size();
    const auto fail = [&] {
        return Error(ErrorKind::ShapeRule, "broadcast-incompatible",
                     str("cannot broadcast ", shapes_text(inputs), " to ", to_string(out)));
    };
    for (const Shape* in : inputs)
        if (in->size() > rank) throw fail();
    // Per output dim of size != 1, which inputs advance along it (bit i: input i).
    struct Dim {
        int64_t count = 0;
        uint32_t pattern = 0;
    };
    SmallBuffer<Dim, 8> dims_storage(rank);  // merged dims; a model's ranks fit without allocating
    size_t n_dims = 0;
    for (size_t d = 0; d < rank; ++d) {
        uint32_t pattern = 0;
        for (size_t i = 0; i < N; ++i) {
            const Shape& in = *inputs[i];
            const int64_t x = d + in.size() >= rank ? in[d + in.size() - rank] : 1;
            if (x != out[d] && x != 1) throw fail();
            if (x == out[d]) pattern |= uint32_t{1} << i;
        }
        if (out[d] == 1) continue;
        if (n_dims > 0 && dims_storage[n_dims - 1].pattern == pattern)
            dims_storage[n_dims - 1].count *= out[d];
        else
            dims_storage[n_dims++] = {out[d], pattern};
    }
    BroadcastRows<N> plan;
    if (n_dims == 0) return plan;  // one element
    const Dim* dims = dims_storage.data();
    const auto advances = [](const Dim& dim, size_t i) { return (dim.pattern >> i & 1u) != 0; };
    plan.row_length = dims[n_dims - 1].count;
    std::array<int64_t, N> run{};  // per input: elements one step of the next outer loop skips
    for (size_t i = 0; i < N; ++i) {
        plan.varies[i] = advances(dims[n_dims - 1], i);
        run[i] = plan.varies[i] ? plan.row_length : 1;
    }
    const size_t outer = n_dims - 1;
    plan.outer_counts.resize(outer);
    plan.strides.resize(outer);
    for (size_t k = outer; k-- > 0;) {
        plan.outer_counts[k] = dims[k].count;
        for (size_t i = 0; i < N; ++i) {
            plan.strides[k][i] = advances(dims[k], i) ? run[i] : 0;
            if (advances(dims[k], i)) run[i] *= dims[k].count;
        }
    }
    return plan;
}

template BroadcastRows<2> plan_broadcast_n<2>(const std::array<const Shape*, 2>&, const Shape&);
template BroadcastRows<3> plan_broadcast_n<3>(const std::array<const Shape*, 3>&, const Shape&);
template BroadcastRows<5> plan_broadcast_n<5>(const std::array<const Shape*, 5>&, const Shape&);

}  // namespace irlite::detail
