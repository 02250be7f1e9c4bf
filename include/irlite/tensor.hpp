// A tensor: an element type, a static shape and a view into a shared, reference-counted buffer.
//
// Tensors are cheap to copy (the buffer is shared, never deep-copied implicitly). Data is dense
// and row-major (C order). A tensor made by wrap() points at memory the caller owns (zero-copy
// inputs and outputs); one made by the Tensor(type, shape) constructor owns a fresh 64-byte-aligned
// buffer. Const tensors are views into the memory-mapped .bin and must not be written.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "irlite/element_type.hpp"
#include "irlite/shape.hpp"

#include "irlite/export.hpp"

namespace irlite {

class IRLITE_API Tensor {
public:
    Tensor() = default;  // an empty tensor: no buffer; valid() is false

    // Allocates a zero-filled buffer. Throws Error(kind Limit) when the byte size overflows or
    // exceeds max_tensor_bytes().
    Tensor(ElementType type, Shape shape);

    // A buffer whose contents are undefined (the executor's outputs: every byte is written by the
    // kernel, so zero-filling would only cost time). Same limits as the constructor.
    static Tensor uninitialized(ElementType type, Shape shape);

    // A view of `data` (which must hold at least the shape's bytes); `owner` keeps it alive and
    // may be null when the caller guarantees the lifetime.
    static Tensor wrap(ElementType type, Shape shape, void* data, std::shared_ptr<void> owner = nullptr);

    bool valid() const { return has_type_; }
    ElementType type() const { return type_; }
    const Shape& shape() const { return shape_; }
    size_t rank() const { return shape_.size(); }
    int64_t num_elements() const { return num_elements_; }
    size_t byte_size() const {
        return is_packed(type_) ? static_cast<size_t>(packed_byte_size(type_, num_elements_))
                                : static_cast<size_t>(num_elements_) * element_size(type_);
    }

    void* data() { return data_; }
    const void* data() const { return data_; }
    template <class T>
    T* data() {
        return static_cast<T*>(data_);
    }
    template <class T>
    const T* data() const {
        return static_cast<const T*>(data_);
    }
    std::byte* bytes() { return static_cast<std::byte*>(data_); }
    const std::byte* bytes() const { return static_cast<const std::byte*>(data_); }

    // The same buffer seen with another shape of the same element count (Reshape, Squeeze, ...).
    Tensor reshaped(Shape shape) const;
    // A deep copy into a fresh buffer.
    Tensor clone() const;
    // Makes this tensor (keeping its type and shape) view `base`'s buffer from `byte_offset` on,
    // sharing its ownership; the caller guarantees the bytes fit. The executor re-aims views of
    // inputs with it at every run, without allocating.
    void view_into(const Tensor& base, size_t byte_offset) {
        data_ = base.data_ ? static_cast<std::byte*>(base.data_) + byte_offset : nullptr;
        owner_ = base.owner_;
    }
    // Makes this tensor one of `type` and shape dims[0..rank) viewing `base`'s buffer from its
    // start, sharing its ownership; the caller guarantees the bytes fit and the type is not packed.
    // Reuses this tensor's shape storage, so it allocates nothing when the rank is not larger
    // than the tensor's last one: the executor aims outputs whose size only their kernel knows
    // (NonZero) at the request's buffers with it, at every run.
    void view_into(const Tensor& base, ElementType type, const int64_t* dims, size_t rank);
    // True when both tensors view the same bytes.
    bool shares_buffer_with(const Tensor& other) const { return data_ == other.data_ && owner_ == other.owner_; }

    // Reads element i as double / int64 whatever the type (slow; for small index/shape tensors,
    // tests and printing).
    double value_as_double(int64_t i) const;
    int64_t value_as_int64(int64_t i) const;

private:
    Tensor(ElementType type, Shape shape, int64_t count, void* data, std::shared_ptr<void> owner);
    void allocate(bool zero_fill);

    ElementType type_ = ElementType::f32;
    bool has_type_ = false;
    Shape shape_;
    int64_t num_elements_ = 0;
    std::shared_ptr<void> owner_;
    void* data_ = nullptr;
};

// Largest buffer a single tensor may allocate. Default: the machine's physical memory.
IRLITE_API size_t max_tensor_bytes();
IRLITE_API void set_max_tensor_bytes(size_t bytes);

}  // namespace irlite
