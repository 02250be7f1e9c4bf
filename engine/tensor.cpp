#include "irlite/tensor.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cmath>
#include <cstring>
#include <new>

#include "irlite/error.hpp"
#include "engine/tensor_size.hpp"

namespace irlite {
namespace {

size_t physical_memory_bytes() {
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long page_size = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || page_size <= 0) return size_t{16} << 30;
    return static_cast<size_t>(pages) * static_cast<size_t>(page_size);
}

std::atomic<size_t>& limit() {
    static std::atomic<size_t> bytes{physical_memory_bytes()};
    return bytes;
}

constexpr size_t kAlignment = 64;

}  // namespace

size_t max_tensor_bytes() { return limit().load(); }
void set_max_tensor_bytes(size_t bytes) { limit().store(bytes); }

Tensor::Tensor(ElementType type, Shape shape, int64_t count, void* data, std::shared_ptr<void> owner)
    : type_(type), has_type_(true), shape_(std::move(shape)), num_elements_(count),
      owner_(std::move(owner)), data_(data) {}

Tensor::Tensor(ElementType type, Shape shape) : type_(type), has_type_(true), shape_(std::move(shape)) {
    allocate(true);
}

Tensor Tensor::uninitialized(ElementType type, Shape shape) {
    Tensor t;
    t.type_ = type;
    t.has_type_ = true;
    t.shape_ = std::move(shape);
    t.allocate(false);
    return t;
}

size_t tensor_storage_bytes(ElementType type, const Shape& shape) {
    if (is_storable(type)) return checked_byte_size(shape, element_size(type));
    const int64_t count = checked_num_elements(shape);
    if (traits(type).bits == 0) return 0;  // string, dynamic: no size from the shape
    const int64_t bytes = packed_byte_size(type, count);
    if (bytes < 0)
        throw Error(ErrorKind::Limit, "size-overflow",
                    str("a ", to_string(type), " tensor of shape ", to_string(shape), " (", count, " elements of ",
                        traits(type).bits, " bits) needs more bytes than fit in 64 bits"));
    return static_cast<size_t>(bytes);
}

void check_tensor_fits(ElementType type, const Shape& shape, int output) {
    const size_t bytes = tensor_storage_bytes(type, shape);
    if (bytes > max_tensor_bytes())
        throw Error(ErrorKind::Limit, "tensor-too-large",
                    str(output >= 0 ? str("output ", output, ": ") : "", "a ", to_string(type), " tensor of shape ",
                        to_string(shape), " needs ", bytes, " bytes, more than the limit of ", max_tensor_bytes(), " bytes"));
}

namespace {
// Bytes and elements of a Tensor of `shape`. Packed types are held packed; the other types irlite
// does not store take no bytes (size 0), so that nothing can allocate them by mistake.
std::pair<size_t, int64_t> storage_of(ElementType type, const Shape& shape) {
    if (is_packed(type)) return {tensor_storage_bytes(type, shape), checked_num_elements(shape)};
    const size_t bytes = checked_byte_size(shape, element_size(type));
    return {bytes, element_size(type) ? static_cast<int64_t>(bytes / element_size(type)) : 0};
}
}  // namespace

void Tensor::allocate(bool zero_fill) {
    const auto [bytes, count] = storage_of(type_, shape_);
    if (bytes > max_tensor_bytes())
        throw Error(ErrorKind::Limit, "tensor-too-large",
                    str("a ", to_string(type_), " tensor of shape ", to_string(shape_), " needs ", bytes,
                        " bytes, more than the limit of ", max_tensor_bytes(), " bytes"));
    num_elements_ = count;
    // Always allocate at least one aligned block, so that data() is non-null even for empty tensors.
    const size_t alloc = ((bytes + kAlignment - 1) / kAlignment + 1) * kAlignment;
    void* p = std::aligned_alloc(kAlignment, alloc);
    if (!p)
        throw Error(ErrorKind::Limit, "out-of-memory",
                    str("cannot allocate ", bytes, " bytes for a ", to_string(type_), " tensor of shape ",
                        to_string(shape_)));
    if (zero_fill) std::memset(p, 0, alloc);
    owner_ = std::shared_ptr<void>(p, [](void* q) { std::free(q); });
    data_ = p;
}

Tensor Tensor::wrap(ElementType type, Shape shape, void* data, std::shared_ptr<void> owner) {
    const auto [bytes, count] = storage_of(type, shape);
    // An empty view may come with a null pointer (an empty .bin); give it a valid address so that
    // kernels can pass data() to memcpy with a zero size.
    static std::byte empty_view[64];
    if (!data && bytes == 0) data = empty_view;
    return Tensor(type, std::move(shape), count, data, std::move(owner));
}

void Tensor::view_into(const Tensor& base, ElementType type, const int64_t* dims, size_t rank) {
    int64_t count = 1;
    for (size_t d = 0; d < rank; ++d) count *= dims[d];
    type_ = type;
    has_type_ = true;
    shape_.assign(dims, dims + rank);  // keeps the vector's capacity: no allocation at the same rank
    num_elements_ = count;
    data_ = base.data_;
    owner_ = base.owner_;
}

Tensor Tensor::reshaped(Shape shape) const {
    const int64_t count = checked_num_elements(shape);
    IRLITE_CHECK(count == num_elements_, ErrorKind::ShapeRule, "reshape-count",
                 "cannot view a tensor of shape ", to_string(shape_), " as ", to_string(shape));
    return Tensor(type_, std::move(shape), count, data_, owner_);
}

Tensor Tensor::clone() const {
    Tensor out = uninitialized(type_, shape_);
    if (byte_size()) std::memcpy(out.data(), data_, byte_size());
    return out;
}

double Tensor::value_as_double(int64_t i) const {
    if (is_packed(type_)) return packed_value(data_, type_, i);
    if (type_ == ElementType::boolean) return static_cast<const uint8_t*>(data_)[i] != 0 ? 1.0 : 0.0;  // see value_as_int64
    return dispatch_type(type_, [&](auto tag) -> double {
        using T = decltype(tag);
        const T v = static_cast<const T*>(data_)[i];
        if constexpr (std::is_same_v<T, float16>) return f16_to_f32(v.bits);
        else if constexpr (std::is_same_v<T, bfloat16>) return bf16_to_f32(v.bits);
        else return static_cast<double>(v);
    });
}

int64_t Tensor::value_as_int64(int64_t i) const {
    if (type_ == ElementType::u1 || type_ == ElementType::u4 || type_ == ElementType::i4)
        return packed_element(data_, type_, i);
    // Floats are truncated, NaN gives 0, values beyond int64 saturate (a plain cast is undefined).
    const auto float_to_int64 = [](double v) -> int64_t {
        if (std::isnan(v)) return 0;
        return v >= 9.2e18 ? INT64_MAX : v <= -9.2e18 ? INT64_MIN : static_cast<int64_t>(v);
    };
    if (is_packed(type_)) return float_to_int64(packed_value(data_, type_, i));  // the 4- and 8-bit floats
    // A boolean is read as its byte: any nonzero byte is true (a .bin may hold bytes other than 0
    // and 1, and loading such a byte as a C++ bool is undefined).
    if (type_ == ElementType::boolean) return static_cast<const uint8_t*>(data_)[i] != 0;
    return dispatch_type(type_, [&](auto tag) -> int64_t {
        using T = decltype(tag);
        if constexpr (std::is_same_v<T, bool>) {
            return static_cast<const uint8_t*>(data_)[i] != 0;  // (handled above)
        } else {
            const T v = static_cast<const T*>(data_)[i];
            if constexpr (std::is_same_v<T, float16>) return float_to_int64(f16_to_f32(v.bits));
            else if constexpr (std::is_same_v<T, bfloat16>) return float_to_int64(bf16_to_f32(v.bits));
            else if constexpr (std::is_floating_point_v<T>) return float_to_int64(static_cast<double>(v));
            // u64 values above INT64_MAX saturate: index readers treat them as "very large".
            else if constexpr (std::is_same_v<T, uint64_t>)
                return v > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(v);
            else return static_cast<int64_t>(v);
        }
    });
}

}  // namespace irlite
