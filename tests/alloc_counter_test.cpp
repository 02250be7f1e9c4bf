// The test binary's replacement of the global operator new (see alloc_counter.hpp), and a check
// that it counts what it should.
#define IRLITE_ALLOC_COUNTER_DEFINE_OPERATORS
#include "alloc_counter.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <new>
#include <string>
#include <thread>
#include <vector>

namespace irlite::testing {
namespace {

TEST(AllocCounter, IsInstalled) { EXPECT_TRUE(AllocationCounter::installed()); }

TEST(AllocCounter, CountsEveryFormOnEveryThreadWhileCounting) {
    struct alignas(64) Wide {
        char bytes[64];
    };
    int64_t counted = 0;
    {
        AllocationCounter counter;
        ::operator delete(::operator new(8));
        ::operator delete[](::operator new[](8));
        ::operator delete(::operator new(8, std::nothrow));
        ::operator delete(::operator new(sizeof(Wide), std::align_val_t{alignof(Wide)}),
                          std::align_val_t{alignof(Wide)});
        std::thread([] { ::operator delete(::operator new(8)); }).join();  // the thread's state too
        counted = counter.stop();
    }
    EXPECT_GE(counted, 5);
}

#if defined(IRLITE_ALLOC_COUNTER_COUNTS_MALLOC) || defined(IRLITE_ALLOC_COUNTER_VIA_SANITIZER)
// C allocations count too (Eigen's aligned buffers come from malloc), each once.
TEST(AllocCounter, CountsTheCAllocationFunctions) {
    int64_t counted = 0;
    void* aligned = nullptr;
    {
        // volatile: a compiler may drop an allocation whose pointer is only freed
        AllocationCounter counter;
        void* volatile p = std::malloc(24);
        void* volatile q = std::realloc(p, 4096);
        void* volatile c = std::calloc(3, 8);
        const int status = ::posix_memalign(&aligned, 64, 100);
        counted = counter.stop();
        std::free(q);
        std::free(c);
        ASSERT_EQ(status, 0);
    }
    std::free(aligned);
    EXPECT_EQ(counted, 4);
}
#endif

TEST(AllocCounter, CountsNothingAfterStop) {
    int64_t counted = 0;
    {
        AllocationCounter counter;
        counted = counter.stop();
        std::vector<std::string> not_counted(10, std::string(100, 'x'));
        EXPECT_EQ(counter.count(), 0);
    }
    EXPECT_EQ(counted, 0);
}

TEST(AllocCounter, AlignedAllocationsAreAligned) {
    for (size_t alignment : {32, 64, 256, 4096}) {
        void* p = ::operator new(100, std::align_val_t{alignment});
        EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % alignment, 0u) << alignment;
        ::operator delete(p, std::align_val_t{alignment});
    }
}

}  // namespace
}  // namespace irlite::testing
