// Shapes. A Shape is static (every dim known, as at run time); a PartialShape may have unknown
// dims (kDynamic) or an unknown rank, as at build time when a dim depends on a run-time value.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "irlite/export.hpp"

namespace irlite {

using Shape = std::vector<int64_t>;

inline constexpr int64_t kDynamic = -1;  // an unknown dim in a PartialShape

class IRLITE_API PartialShape {
public:
    PartialShape() = default;  // rank 0 (a scalar)
    PartialShape(std::vector<int64_t> dims) : dims_(std::move(dims)) {}  // NOLINT: implicit on purpose
    PartialShape(std::initializer_list<int64_t> dims) : dims_(dims) {}
    static PartialShape dynamic_rank() {
        PartialShape s;
        s.rank_known_ = false;
        return s;
    }
    // A shape of known rank with every dim unknown.
    static PartialShape all_dynamic(size_t rank) { return PartialShape(std::vector<int64_t>(rank, kDynamic)); }

    bool rank_known() const { return rank_known_; }
    size_t rank() const { return dims_.size(); }  // meaningful only when rank_known()
    const std::vector<int64_t>& dims() const { return dims_; }
    std::vector<int64_t>& dims() { return dims_; }
    int64_t operator[](size_t i) const { return dims_[i]; }
    int64_t& operator[](size_t i) { return dims_[i]; }
    bool is_static() const;
    Shape to_shape() const { return dims_; }  // only when is_static()

    bool operator==(const PartialShape& o) const { return rank_known_ == o.rank_known_ && dims_ == o.dims_; }
    bool operator!=(const PartialShape& o) const { return !(*this == o); }

private:
    std::vector<int64_t> dims_;
    bool rank_known_ = true;
};

// "[2,3,4]", "[]" for a scalar, "[?,3]" with unknown dims, "[...]" for an unknown rank.
IRLITE_API std::string to_string(const Shape& s);
IRLITE_API std::string to_string(const PartialShape& s);

// True when a dim or shape declared in a file is compatible with an inferred one: equal, or one
// of the two is kDynamic.
IRLITE_API bool dims_compatible(int64_t a, int64_t b);
IRLITE_API bool shapes_compatible(const PartialShape& a, const PartialShape& b);
// The same for dims as written in a file (known rank), without building a PartialShape.
IRLITE_API bool shapes_compatible(const std::vector<int64_t>& declared, const PartialShape& b);

// Number of elements; throws Error(kind Limit) when the product overflows int64 or a dim is
// negative. Every allocation from a file-supplied shape goes through this.
IRLITE_API int64_t checked_num_elements(const Shape& s);
// checked_num_elements(s) * elem_size, overflow-checked.
IRLITE_API size_t checked_byte_size(const Shape& s, size_t elem_size);

// Row-major strides in elements.
IRLITE_API std::vector<int64_t> row_major_strides(const Shape& s);

// Normalises an axis into [0, rank); throws Error(kind Value, code "axis-out-of-range") naming the
// allowed range [-rank, rank-1] otherwise.
IRLITE_API int64_t normalize_axis(int64_t axis, int64_t rank);

}  // namespace irlite
