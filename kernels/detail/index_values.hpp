// Index-like inputs (Slice start/stop/step/axes, VariadicSplit axis/split_lengths, ScatterNDUpdate
// and GatherElements indices): one reader for every integer element type, one place that decides
// which types are allowed, and one wording for range errors, so that every op reports them alike:
//   "axis 9 out of the tensor rank range [-8, 7]"
//   "indices[0,6] = 8: value 8 not in [-3, 2] (data dim 0 has size 3)"
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/op.hpp"

namespace irlite::detail {

// The element types an index input accepts.
enum class IndexTypes {
    AnyInteger,  // i8, i16, i32, i64, u8, u16, u32, u64 (Slice, VariadicSplit)
    I32OrI64,    // i32, i64 (ScatterNDUpdate and GatherElements indices)
};

bool index_type_allowed(ElementType t, IndexTypes allowed);

// Shape-rule check that input `port` has an allowed index type. Throws Error(kind Type, code
// "index-type") located at that port, naming its role, the type found and the types allowed:
//   "start must be an integer tensor (i8, i16, i32, i64, u8, u16, u32, u64), got f32"
void require_index_type(const InferContext& ctx, size_t port, IndexTypes allowed);

// Every element of an integer tensor (i8..i64, u8..u64), widened to int64. u64 values above
// INT64_MAX saturate to INT64_MAX (harmless where they are used: Slice bounds are clamped, every
// other index is range-checked). Throws Error(kind Type, code "index-type") for float and boolean
// tensors; shape rules reject those earlier, at the port, with require_index_type.
std::vector<int64_t> read_index_values(const Tensor& t);
// The same into out[0 .. t.num_elements()) (a kernel's scratch: no allocation).
void read_index_values(const Tensor& t, int64_t* out);

// The values of input `port` (which must be known), read with read_index_values.
std::vector<int64_t> read_index_values(const InferContext& ctx, size_t port);

// "axis A out of the tensor rank range [-r, r-1]"
std::string axis_out_of_range_message(int64_t axis, int64_t rank);

// An axis value read from input `port`, normalized into [0, rank). Throws Error(kind Value, code
// "axis-out-of-range") at that port with axis_out_of_range_message.
int64_t normalize_axis_at(const InferContext& ctx, size_t port, int64_t axis, int64_t rank);

// "value v not in [lo, hi]"
std::string value_range_message(int64_t value, int64_t lo, int64_t hi);

// Checks lo <= value <= hi for a value read from input `port`. Throws Error(kind Value, code) at that
// port: "<what>: value v not in [lo, hi]".
void check_value_in_range(const InferContext& ctx, size_t port, int64_t value, int64_t lo, int64_t hi,
                          const std::string& code, const std::string& what);

// A position in a tensor of `shape`, from its flat row-major offset: "[1,0,2]" ("[]" for a scalar).
std::string position_text(const Shape& shape, int64_t flat);

// The message for an index (a coordinate along one data dim) outside [-dim_size, dim_size - 1]:
//   "<role><position> = v: value v not in [-d, d-1] (data dim D has size d)"
// `position` is the index's flat offset in a tensor of `index_shape` (the indices input).
std::string index_out_of_range_message(const std::string& role, const Shape& index_shape, int64_t position,
                                       int64_t value, int64_t data_dim, int64_t dim_size);

// Load-time check of index values already known (a Const indices input), so that `irlite check`
// reports them without running: the value at flat position p must lie in [-d, d-1] for d = data
// dim dim_of(p). Dims not known yet are skipped (the kernel checks every value at run time anyway).
// Throws the kernel's own error: Error(kind Value, code "index-out-of-range") at `port`.
template <class DimOf>
void check_known_indices(const InferContext& ctx, size_t port, const PartialShape& data, DimOf&& dim_of) {
    const Tensor* indices = ctx.value(port);
    if (!indices || !data.rank_known()) return;
    const std::vector<int64_t> values = read_index_values(*indices);
    for (size_t p = 0; p < values.size(); ++p) {
        const auto dim = static_cast<int64_t>(dim_of(static_cast<int64_t>(p)));
        const int64_t size = data[static_cast<size_t>(dim)];
        if (size != kDynamic && (values[p] < -size || values[p] >= size))
            throw ctx.input_error(port, ErrorKind::Value, "index-out-of-range",
                                  index_out_of_range_message(ctx.def().input_role(port), indices->shape(),
                                                             static_cast<int64_t>(p), values[p], dim, size));
    }
}

}  // namespace irlite::detail
