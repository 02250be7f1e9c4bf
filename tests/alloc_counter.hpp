// Counting heap allocations in a test: "this code path performs no allocation".
//
//   irlite::testing::AllocationCounter counter;   // starts counting, on every thread
//   ... code under test (no gtest assertion in here: they allocate) ...
//   const int64_t n = counter.stop();
//   EXPECT_EQ(n, 0);
//
// The counting is done by a replacement of the global operator new, defined once for the whole
// test binary in alloc_counter_test.cpp (the one file that defines
// IRLITE_ALLOC_COUNTER_DEFINE_OPERATORS before including this header). Outside a counting scope
// the replacement costs one relaxed atomic load per allocation and otherwise behaves like the
// default one (malloc/free), so the other tests of the binary are not affected. With glibc,
// malloc and its family are replaced (and counted) the same way. Sanitizer builds count through
// the sanitizer's malloc hook instead (see below).
//
// Only one AllocationCounter may be live at a time. It counts the allocations of all threads —
// workers of a thread pool included — so nothing else may run concurrently in the test.
// AllocationCounter::installed() tells whether the replacement is linked in (a test should
// ASSERT it, or a missing replacement would count zero and pass).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace irlite::testing {

namespace alloc_counter_detail {
inline std::atomic<bool> counting{false};
inline std::atomic<int64_t> count{0};

inline void note_allocation() noexcept {
    if (counting.load(std::memory_order_relaxed)) count.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace alloc_counter_detail

class AllocationCounter {
public:
    AllocationCounter() {
        alloc_counter_detail::count.store(0, std::memory_order_relaxed);
        alloc_counter_detail::counting.store(true, std::memory_order_seq_cst);
    }
    ~AllocationCounter() { stop(); }
    AllocationCounter(const AllocationCounter&) = delete;
    AllocationCounter& operator=(const AllocationCounter&) = delete;

    // Stops counting (idempotent) and returns the number of allocations counted.
    int64_t stop() {
        alloc_counter_detail::counting.store(false, std::memory_order_seq_cst);
        return alloc_counter_detail::count.load(std::memory_order_seq_cst);
    }
    // The count so far, without stopping.
    int64_t count() const { return alloc_counter_detail::count.load(std::memory_order_seq_cst); }

    // True when the replacement operator new is linked in: one allocation is counted. Call it
    // outside a counting scope (it opens one of its own).
    static bool installed() {
        AllocationCounter probe;
        ::operator delete(::operator new(16));  // a direct call, which the compiler may not elide
        return probe.stop() == 1;
    }
};

}  // namespace irlite::testing

#ifdef IRLITE_ALLOC_COUNTER_DEFINE_OPERATORS
// Exactly one translation unit of a program may define this part.

// Under AddressSanitizer, ThreadSanitizer or MemorySanitizer the runtime owns operator new (its
// static runtime defines every form, so a replacement would not link). There the counter uses the
// runtime's allocation hook instead, which sees malloc as well as new.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define IRLITE_ALLOC_COUNTER_VIA_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define IRLITE_ALLOC_COUNTER_VIA_SANITIZER 1
#endif
#endif

#include <cstdlib>
#include <new>

#ifdef IRLITE_ALLOC_COUNTER_VIA_SANITIZER
extern "C" int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void*, std::size_t),
                                                         void (*free_hook)(const volatile void*));

namespace {
void irlite_sanitizer_malloc_hook(const volatile void*, std::size_t) {
    irlite::testing::alloc_counter_detail::note_allocation();
}
void irlite_sanitizer_free_hook(const volatile void*) {}
[[maybe_unused]] const int irlite_sanitizer_hooks =
    __sanitizer_install_malloc_and_free_hooks(&irlite_sanitizer_malloc_hook, &irlite_sanitizer_free_hook);
}  // namespace

#else  // the replacement operators

#include <cerrno>

// With glibc the C allocation functions are counted as well, not only operator new: a kernel that
// calls malloc (Eigen's aligned buffers do) breaks the contract as much as one that calls new. They
// forward to glibc's own entry points, so memory from either side may be freed by the other.
#if defined(__GLIBC__)
#define IRLITE_ALLOC_COUNTER_COUNTS_MALLOC 1
extern "C" {
void* __libc_malloc(std::size_t size);
void* __libc_calloc(std::size_t count, std::size_t size);
void* __libc_realloc(void* p, std::size_t size);
void* __libc_memalign(std::size_t alignment, std::size_t size);

void* malloc(std::size_t size) noexcept {
    irlite::testing::alloc_counter_detail::note_allocation();
    return __libc_malloc(size);
}
void* calloc(std::size_t count, std::size_t size) noexcept {
    irlite::testing::alloc_counter_detail::note_allocation();
    return __libc_calloc(count, size);
}
void* realloc(void* p, std::size_t size) noexcept {
    irlite::testing::alloc_counter_detail::note_allocation();
    return __libc_realloc(p, size);
}
void* aligned_alloc(std::size_t alignment, std::size_t size) noexcept {
    irlite::testing::alloc_counter_detail::note_allocation();
    return __libc_memalign(alignment, size);
}
void* memalign(std::size_t alignment, std::size_t size) noexcept {
    irlite::testing::alloc_counter_detail::note_allocation();
    return __libc_memalign(alignment, size);
}
int posix_memalign(void** out, std::size_t alignment, std::size_t size) noexcept {
    if (alignment < sizeof(void*) || (alignment & (alignment - 1)) != 0) return EINVAL;
    irlite::testing::alloc_counter_detail::note_allocation();
    void* p = __libc_memalign(alignment, size);
    if (p == nullptr) return ENOMEM;
    *out = p;
    return 0;
}
}  // extern "C"
#endif

namespace irlite::testing::alloc_counter_detail {
inline void* allocate(std::size_t size, std::size_t alignment) {
#ifndef IRLITE_ALLOC_COUNTER_COUNTS_MALLOC
    note_allocation();  // otherwise counted by the malloc below
#endif
    if (size == 0) size = 1;
    for (;;) {
        void* p = nullptr;
        if (alignment <= alignof(std::max_align_t)) {
            p = std::malloc(size);
        } else if (::posix_memalign(&p, alignment, size) != 0) {
            p = nullptr;
        }
        if (p != nullptr) return p;
        const std::new_handler handler = std::get_new_handler();
        if (handler == nullptr) throw std::bad_alloc();
        handler();
    }
}
inline void* allocate_nothrow(std::size_t size, std::size_t alignment) noexcept {
    try {
        return allocate(size, alignment);
    } catch (...) {
        return nullptr;
    }
}
}  // namespace irlite::testing::alloc_counter_detail

namespace acd = irlite::testing::alloc_counter_detail;
constexpr std::size_t kAcdDefault = alignof(std::max_align_t);

void* operator new(std::size_t size) { return acd::allocate(size, kAcdDefault); }
void* operator new[](std::size_t size) { return acd::allocate(size, kAcdDefault); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return acd::allocate_nothrow(size, kAcdDefault); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept { return acd::allocate_nothrow(size, kAcdDefault); }
void* operator new(std::size_t size, std::align_val_t al) { return acd::allocate(size, static_cast<std::size_t>(al)); }
void* operator new[](std::size_t size, std::align_val_t al) { return acd::allocate(size, static_cast<std::size_t>(al)); }
void* operator new(std::size_t size, std::align_val_t al, const std::nothrow_t&) noexcept {
    return acd::allocate_nothrow(size, static_cast<std::size_t>(al));
}
void* operator new[](std::size_t size, std::align_val_t al, const std::nothrow_t&) noexcept {
    return acd::allocate_nothrow(size, static_cast<std::size_t>(al));
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
#endif  // IRLITE_ALLOC_COUNTER_VIA_SANITIZER
#endif  // IRLITE_ALLOC_COUNTER_DEFINE_OPERATORS
