#include "kernels/detail/broadcast.hpp"

#include "kernels/detail/small_buffer.hpp"

#include <algorithm>
#include <cctype>

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

int64_t BroadcastPlan::num_rows() const {
    int64_t rows = row_length > 0 ? 1 : 0;
    for (int64_t c : outer_counts) rows *= c;
    return rows;
}

BroadcastPlan plan_broadcast(const Shape& a, const Shape& b, const Shape& out) {
    const size_t rank = out.size();
    const auto fail = [&] {
        return Error(ErrorKind::ShapeRule, "broadcast-incompatible",
                     str("cannot broadcast ", to_string(a), " and ", to_string(b), " to ", to_string(out)));
    };
    if (a.size() > rank || b.size() > rank) throw fail();
    // Per output dim of size != 1, which inputs advance along it (bit 0: a, bit 1: b).
    struct Dim {
        int64_t count = 0;
        int pattern = 0;
    };
    SmallBuffer<Dim, 8> dims_storage(rank);  // merged dims; a model's ranks fit without allocating
    size_t n_dims = 0;
    for (size_t d = 0; d < rank; ++d) {
        const int64_t x = d + a.size() >= rank ? a[d + a.size() - rank] : 1;
        const int64_t y = d + b.size() >= rank ? b[d + b.size() - rank] : 1;
        if ((x != out[d] && x != 1) || (y != out[d] && y != 1)) throw fail();
        if (out[d] == 1) continue;
        const int pattern = (x == out[d] ? 1 : 0) | (y == out[d] ? 2 : 0);
        if (n_dims > 0 && dims_storage[n_dims - 1].pattern == pattern)
            dims_storage[n_dims - 1].count *= out[d];
        else
            dims_storage[n_dims++] = {out[d], pattern};
    }
    BroadcastPlan plan;
    if (n_dims == 0) return plan;  // one element
    const Dim* dims = dims_storage.data();
    plan.row_length = dims[n_dims - 1].count;
    plan.a_varies = dims[n_dims - 1].pattern & 1;
    plan.b_varies = dims[n_dims - 1].pattern & 2;
    int64_t a_run = plan.a_varies ? plan.row_length : 1;
    int64_t b_run = plan.b_varies ? plan.row_length : 1;
    const size_t outer = n_dims - 1;
    plan.outer_counts.resize(outer);
    plan.a_strides.resize(outer);
    plan.b_strides.resize(outer);
    for (size_t i = outer; i-- > 0;) {
        plan.outer_counts[i] = dims[i].count;
        plan.a_strides[i] = dims[i].pattern & 1 ? a_run : 0;
        plan.b_strides[i] = dims[i].pattern & 2 ? b_run : 0;
        if (dims[i].pattern & 1) a_run *= dims[i].count;
        if (dims[i].pattern & 2) b_run *= dims[i].count;
    }
    return plan;
}

}  // namespace irlite::detail
