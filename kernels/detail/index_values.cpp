#include "kernels/detail/index_values.hpp"

#include <limits>
#include <type_traits>

namespace irlite::detail {

bool index_type_allowed(ElementType t, IndexTypes allowed) {
    if (allowed == IndexTypes::I32OrI64) return t == ElementType::i32 || t == ElementType::i64;
    return is_integral(t);
}

void require_index_type(const InferContext& ctx, size_t port, IndexTypes allowed) {
    const ElementType t = ctx.type(port);
    if (index_type_allowed(t, allowed)) return;
    const char* list = allowed == IndexTypes::I32OrI64 ? "i32 or i64" : "i8, i16, i32, i64, u8, u16, u32, u64";
    const std::string& role = ctx.def().input_roles.at(port);
    throw ctx.input_error(port, ErrorKind::Type, "index-type",
                          str(role, " must be an integer tensor (", list, "), got ", to_string(t)));
}

void read_index_values(const Tensor& t, int64_t* out) {
    IRLITE_CHECK(is_integral(t.type()), ErrorKind::Type, "index-type", "index values must be integers, got a ",
                 to_string(t.type()), " tensor");
    const auto n = static_cast<size_t>(t.num_elements());
    dispatch_type(t.type(), [&](auto tag) {
        using T = decltype(tag);
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
            const T* p = t.data<T>();
            for (size_t i = 0; i < n; ++i) {
                if constexpr (std::is_same_v<T, uint64_t>) {
                    constexpr uint64_t kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
                    out[i] = p[i] > kMax ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(p[i]);
                } else {
                    out[i] = static_cast<int64_t>(p[i]);
                }
            }
        }
    });
}

std::vector<int64_t> read_index_values(const Tensor& t) {
    std::vector<int64_t> out(static_cast<size_t>(t.num_elements()));
    read_index_values(t, out.data());
    return out;
}

std::vector<int64_t> read_index_values(const InferContext& ctx, size_t port) {
    return read_index_values(*ctx.value(port));
}

std::string axis_out_of_range_message(int64_t axis, int64_t rank) {
    return str("axis ", axis, " out of the tensor rank range [", -rank, ", ", rank - 1, "]");
}

int64_t normalize_axis_at(const InferContext& ctx, size_t port, int64_t axis, int64_t rank) {
    if (axis < -rank || axis >= rank)
        throw ctx.input_error(port, ErrorKind::Value, "axis-out-of-range", axis_out_of_range_message(axis, rank));
    return axis < 0 ? axis + rank : axis;
}

std::string value_range_message(int64_t value, int64_t lo, int64_t hi) {
    return str("value ", value, " not in [", lo, ", ", hi, "]");
}

void check_value_in_range(const InferContext& ctx, size_t port, int64_t value, int64_t lo, int64_t hi,
                          const std::string& code, const std::string& what) {
    if (value >= lo && value <= hi) return;
    throw ctx.input_error(port, ErrorKind::Value, code, str(what, ": ", value_range_message(value, lo, hi)));
}

std::string position_text(const Shape& shape, int64_t flat) {
    std::vector<int64_t> coords(shape.size(), 0);
    for (size_t i = shape.size(); i-- > 0;) {
        if (shape[i] <= 0) continue;
        coords[i] = flat % shape[i];
        flat /= shape[i];
    }
    std::string s = "[";
    for (size_t i = 0; i < coords.size(); ++i) s += (i ? "," : "") + std::to_string(coords[i]);
    return s + "]";
}

std::string index_out_of_range_message(const std::string& role, const Shape& index_shape, int64_t position,
                                       int64_t value, int64_t data_dim, int64_t dim_size) {
    return str(role, position_text(index_shape, position), " = ", value, ": ",
               value_range_message(value, -dim_size, dim_size - 1), " (data dim ", data_dim, " has size ", dim_size,
               ")");
}

}  // namespace irlite::detail
