// A small array of T that lives on the stack up to N elements and on the heap beyond: per-run
// index odometers and per-axis scratch without allocating for every rank a model really uses.
#pragma once

#include <cstddef>
#include <vector>

namespace irlite::detail {

template <class T, size_t N = 16>
class SmallBuffer {
public:
    explicit SmallBuffer(size_t n, T fill = T{}) : heap_(n > N ? n : 0, fill), data_(n > N ? heap_.data() : stack_) {
        if (n <= N)
            for (size_t i = 0; i < n; ++i) stack_[i] = fill;
    }
    SmallBuffer(const SmallBuffer&) = delete;
    SmallBuffer& operator=(const SmallBuffer&) = delete;
    T* data() { return data_; }
    T& operator[](size_t i) { return data_[i]; }
    const T& operator[](size_t i) const { return data_[i]; }

private:
    T stack_[N] = {};
    std::vector<T> heap_;
    T* data_;
};

}  // namespace irlite::detail
