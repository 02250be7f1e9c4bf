#include "irlite/shape.hpp"

#include <limits>

#include "irlite/error.hpp"

namespace irlite {

bool PartialShape::is_static() const {
    if (!rank_known_) return false;
    for (int64_t d : dims_)
        if (d < 0) return false;
    return true;
}

namespace {
std::string join_dims(const std::vector<int64_t>& dims) {
    std::string out = "[";
    for (size_t i = 0; i < dims.size(); ++i) {
        if (i) out += ",";
        out += dims[i] < 0 ? std::string("?") : std::to_string(dims[i]);
    }
    return out + "]";
}
}  // namespace

std::string to_string(const Shape& s) { return join_dims(s); }

std::string to_string(const PartialShape& s) { return s.rank_known() ? join_dims(s.dims()) : "[...]"; }

bool dims_compatible(int64_t a, int64_t b) { return a == b || a < 0 || b < 0; }

bool shapes_compatible(const PartialShape& a, const PartialShape& b) {
    if (!a.rank_known() || !b.rank_known()) return true;
    if (a.rank() != b.rank()) return false;
    for (size_t i = 0; i < a.rank(); ++i)
        if (!dims_compatible(a[i], b[i])) return false;
    return true;
}

bool shapes_compatible(const std::vector<int64_t>& declared, const PartialShape& b) {
    if (!b.rank_known()) return true;
    if (declared.size() != b.rank()) return false;
    for (size_t i = 0; i < declared.size(); ++i)
        if (!dims_compatible(declared[i], b[i])) return false;
    return true;
}

int64_t checked_num_elements(const Shape& s) {
    int64_t n = 1;
    for (int64_t d : s) {
        IRLITE_CHECK(d >= 0, ErrorKind::ShapeRule, "negative-dim", "shape ", to_string(s), " has a negative dim");
        if (d != 0 && n > std::numeric_limits<int64_t>::max() / d)
            throw Error(ErrorKind::Limit, "size-overflow",
                        str("shape ", to_string(s), " has more elements than fit in 64 bits"));
        n *= d;
    }
    return n;
}

size_t checked_byte_size(const Shape& s, size_t elem_size) {
    const int64_t n = checked_num_elements(s);
    if (elem_size != 0 && static_cast<uint64_t>(n) > std::numeric_limits<int64_t>::max() / elem_size)
        throw Error(ErrorKind::Limit, "size-overflow",
                    str("shape ", to_string(s), " needs more bytes than fit in 64 bits"));
    return static_cast<size_t>(n) * elem_size;
}

std::vector<int64_t> row_major_strides(const Shape& s) {
    std::vector<int64_t> strides(s.size(), 1);
    for (size_t i = s.size(); i-- > 1;) strides[i - 1] = strides[i] * s[i];
    return strides;
}

int64_t normalize_axis(int64_t axis, int64_t rank) {
    if (axis < -rank || axis >= rank)
        throw Error(ErrorKind::Value, "axis-out-of-range",
                    str("axis ", axis, " out of the tensor rank range [", -rank, ", ", rank - 1, "]"));
    return axis < 0 ? axis + rank : axis;
}

}  // namespace irlite
