// The intra-op thread pool: every task once, range chunking independent of the pool size,
// nesting and concurrent callers without deadlock, exceptions, no allocation in steady state,
// and the IRLITE_NUM_THREADS setting.
#include "engine/thread_pool.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "alloc_counter.hpp"
#include "irlite/error.hpp"

namespace irlite {
namespace {

const int kPoolSizes[] = {1, 2, 3, 8};

// Counts how often each task ran.
class Hits {
public:
    explicit Hits(int64_t n) : hits_(static_cast<size_t>(n)) {}
    void hit(int64_t i) { hits_[static_cast<size_t>(i)].fetch_add(1, std::memory_order_relaxed); }
    // The indices that did not run exactly once, as text ("" when all did).
    std::string wrong() const {
        std::string out;
        for (size_t i = 0; i < hits_.size(); ++i) {
            const int h = hits_[i].load();
            if (h != 1) out += std::to_string(i) + " ran " + std::to_string(h) + " times; ";
        }
        return out;
    }

private:
    std::vector<std::atomic<int>> hits_;
};

// Waits until `flag` reaches `value` (true) or 10 s pass (false).
bool wait_for(const std::atomic<int>& flag, int value) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (flag.load() < value) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::yield();
    }
    return true;
}

TEST(ThreadPoolFunctionRef, CallsTheReferencedCallable) {
    int calls = 0;
    auto add = [&calls](int x) { calls += x; return calls; };
    FunctionRef<int(int)> ref(add);
    EXPECT_EQ(ref(2), 2);
    EXPECT_EQ(ref(3), 5);
    EXPECT_EQ(calls, 5);  // a reference, not a copy

    int (*twice)(int) = [](int x) { return 2 * x; };
    FunctionRef<int(int)> ptr(twice);
    EXPECT_EQ(ptr(21), 42);

    const FunctionRef<int(int)> copy = ref;  // trivially copyable, still the same callable
    EXPECT_EQ(copy(1), 6);
    static_assert(std::is_trivially_copyable_v<FunctionRef<void(int64_t)>>);
    static_assert(sizeof(FunctionRef<void(int64_t)>) == 2 * sizeof(void*));
}

TEST(ThreadPool, RejectsSizesOutOfRange) {
    EXPECT_THROW(ThreadPool(0), Error);
    EXPECT_THROW(ThreadPool(-3), Error);
    EXPECT_THROW(ThreadPool(ThreadPool::kMaxThreads + 1), Error);
    EXPECT_EQ(ThreadPool(1).size(), 1);
    EXPECT_EQ(ThreadPool(3).size(), 3);
}

TEST(ThreadPool, EveryTaskRunsExactlyOnce) {
    for (int size : kPoolSizes) {
        ThreadPool pool(size);
        for (int64_t n : {0, 1, 7, 1000}) {
            for (int repeat = 0; repeat < 3; ++repeat) {
                Hits hits(n);
                pool.run(n, [&](int64_t i) { hits.hit(i); });
                EXPECT_EQ(hits.wrong(), "") << "pool " << size << ", " << n << " tasks";
                Hits again(n);
                pool.parallel_for(n, [&](int64_t i) { again.hit(i); });
                EXPECT_EQ(again.wrong(), "") << "parallel_for, pool " << size << ", " << n << " tasks";
            }
        }
        pool.run(-5, [](int64_t) { ADD_FAILURE() << "a negative task count runs nothing"; });
    }
}

TEST(ThreadPool, SizeOneRunsInlineInOrder) {
    ThreadPool pool(1);
    std::vector<int64_t> order;
    const auto caller = std::this_thread::get_id();
    bool same_thread = true;
    pool.run(50, [&](int64_t i) {
        order.push_back(i);
        same_thread = same_thread && std::this_thread::get_id() == caller;
    });
    ASSERT_EQ(order.size(), 50u);
    for (int64_t i = 0; i < 50; ++i) EXPECT_EQ(order[static_cast<size_t>(i)], i);
    EXPECT_TRUE(same_thread);
}

// Runs pool.size() tasks that each wait until all of them have started: only possible if every
// worker runs one of them alongside the caller. False after a 10 s timeout.
bool all_threads_meet(ThreadPool& pool) {
    std::atomic<int> started{0};
    std::atomic<int> met{0};
    pool.run(pool.size(), [&](int64_t) {
        started.fetch_add(1);
        if (wait_for(started, pool.size())) met.fetch_add(1);
    });
    return met.load() == pool.size();
}

// Repeated after the workers have gone to sleep, to cover the wake-up.
TEST(ThreadPool, EveryWorkerRunsTasksAlongsideTheCaller) {
    for (int size : {2, 3, 8}) {
        ThreadPool pool(size);
        for (int round = 0; round < 3; ++round) {
            EXPECT_TRUE(all_threads_meet(pool)) << "pool " << size << ", round " << round;
            std::this_thread::sleep_for(std::chrono::milliseconds(5));  // let the workers fall asleep
        }
    }
}

TEST(ThreadPool, ManyTinyRegionsInARow) {
    ThreadPool pool(2);
    std::atomic<int64_t> sum{0};
    for (int region = 0; region < 20000; ++region)
        pool.run(2, [&](int64_t i) { sum.fetch_add(i + 1, std::memory_order_relaxed); });
    EXPECT_EQ(sum.load(), 20000 * 3);
}

TEST(ThreadPool, RangeChunksDependOnlyOnTotalAndGrain) {
    for (int64_t total : {0, 1, 5, 64, 1000, 1001}) {
        for (int64_t grain : {-1, 0, 1, 7, 64, 5000}) {
            const int64_t chunks = ThreadPool::num_chunks(total, grain);
            // The chunks cover [0, total) in order, each of `grain` elements but the last.
            int64_t expected_begin = 0;
            for (int64_t c = 0; c < chunks; ++c) {
                const auto [begin, end] = ThreadPool::chunk_bounds(total, grain, c);
                EXPECT_EQ(begin, expected_begin);
                EXPECT_GT(end, begin);
                EXPECT_LE(end - begin, std::max<int64_t>(grain, 1));
                if (c + 1 < chunks) {
                    EXPECT_EQ(end - begin, std::max<int64_t>(grain, 1));
                }
                expected_begin = end;
            }
            EXPECT_EQ(expected_begin, std::max<int64_t>(total, 0)) << total << " / " << grain;

            // parallel_range hands out exactly these chunks, whatever the pool size.
            for (int size : kPoolSizes) {
                ThreadPool pool(size);
                std::vector<std::pair<int64_t, int64_t>> seen(static_cast<size_t>(chunks), {-1, -1});
                std::atomic<int> calls{0};
                pool.parallel_range(total, grain, [&](int64_t begin, int64_t end) {
                    calls.fetch_add(1);
                    seen[static_cast<size_t>(begin / std::max<int64_t>(grain, 1))] = {begin, end};
                });
                EXPECT_EQ(calls.load(), chunks);
                for (int64_t c = 0; c < chunks; ++c)
                    EXPECT_EQ(seen[static_cast<size_t>(c)], ThreadPool::chunk_bounds(total, grain, c))
                        << "total " << total << ", grain " << grain << ", pool " << size;
            }
        }
    }
}

// The point of fixed chunks: a reduction done per chunk, then combined in chunk order, gives the
// same bits for every thread count.
TEST(ThreadPool, ChunkedReductionIsBitIdenticalAcrossPoolSizes) {
    std::vector<float> x(100003);
    for (size_t i = 0; i < x.size(); ++i) x[i] = 1.0f / static_cast<float>(i % 977 + 1) * (i % 3 ? 1.f : -1.f);
    const int64_t grain = 1000;
    std::optional<float> reference;
    for (int size : kPoolSizes) {
        ThreadPool pool(size);
        std::vector<float> partial(static_cast<size_t>(ThreadPool::num_chunks(static_cast<int64_t>(x.size()), grain)));
        pool.parallel_range(static_cast<int64_t>(x.size()), grain, [&](int64_t begin, int64_t end) {
            float s = 0;
            for (int64_t i = begin; i < end; ++i) s += x[static_cast<size_t>(i)];
            partial[static_cast<size_t>(begin / grain)] = s;
        });
        float total = 0;
        for (float p : partial) total += p;
        if (!reference) reference = total;
        EXPECT_EQ(std::memcmp(&total, &*reference, sizeof total), 0) << "pool " << size;
    }
}

TEST(ThreadPool, NestedRunRunsInlineWithoutDeadlock) {
    for (int size : kPoolSizes) {
        ThreadPool pool(size);
        const int64_t outer = 16, inner = 9;
        Hits hits(outer * inner);
        std::atomic<int> inner_on_other_thread{0};
        pool.run(outer, [&](int64_t o) {
            const auto me = std::this_thread::get_id();
            pool.run(inner, [&](int64_t i) {
                if (std::this_thread::get_id() != me) inner_on_other_thread.fetch_add(1);
                hits.hit(o * inner + i);
            });
        });
        EXPECT_EQ(hits.wrong(), "") << "pool " << size;
        EXPECT_EQ(inner_on_other_thread.load(), 0);

        // Three levels, through parallel_range.
        Hits deep(4 * 5 * 6);
        pool.parallel_range(4, 1, [&](int64_t a, int64_t) {
            pool.parallel_range(5, 1, [&](int64_t b, int64_t) {
                pool.parallel_for(6, [&](int64_t c) { deep.hit((a * 5 + b) * 6 + c); });
            });
        });
        EXPECT_EQ(deep.wrong(), "") << "pool " << size;
    }
}

// Several infer requests share one pool: one caller gets the workers, the others run inline.
TEST(ThreadPool, ConcurrentCallersShareOnePool) {
    for (int size : {2, 3, 8}) {
        ThreadPool pool(size);
        constexpr int kCallers = 4, kRegions = 300;
        constexpr int64_t kTasks = 37;
        std::vector<std::string> failures(kCallers);
        std::vector<std::thread> callers;
        for (int t = 0; t < kCallers; ++t) {
            callers.emplace_back([&, t] {
                for (int r = 0; r < kRegions; ++r) {
                    Hits hits(kTasks);
                    pool.run(kTasks, [&](int64_t i) { hits.hit(i); });
                    const std::string wrong = hits.wrong();
                    if (!wrong.empty() && failures[static_cast<size_t>(t)].empty())
                        failures[static_cast<size_t>(t)] = "region " + std::to_string(r) + ": " + wrong;
                }
            });
        }
        for (auto& c : callers) c.join();
        for (int t = 0; t < kCallers; ++t) EXPECT_EQ(failures[static_cast<size_t>(t)], "") << "caller " << t;
    }
}

TEST(ThreadPool, FirstExceptionIsRethrownInTheCaller) {
    for (int size : kPoolSizes) {
        ThreadPool pool(size);
        // One failing task: its exception, type and message intact.
        try {
            pool.run(100, [](int64_t i) {
                if (i == 37) throw Error(ErrorKind::Value, "task-failed", "task 37 failed");
            });
            ADD_FAILURE() << "no exception, pool " << size;
        } catch (const Error& e) {
            EXPECT_EQ(e.code(), "task-failed");
            EXPECT_EQ(e.message(), "task 37 failed");
        }
        // Every task throws: exactly one exception comes out, one of theirs.
        try {
            pool.run(64, [](int64_t i) { throw std::runtime_error("task " + std::to_string(i)); });
            ADD_FAILURE() << "no exception, pool " << size;
        } catch (const std::runtime_error& e) {
            EXPECT_EQ(std::string(e.what()).rfind("task ", 0), 0u);
        }
        // The pool still works, and nothing is left over from the failed regions.
        for (int repeat = 0; repeat < 20; ++repeat) {
            Hits hits(500);
            EXPECT_NO_THROW(pool.run(500, [&](int64_t i) { hits.hit(i); }));
            EXPECT_EQ(hits.wrong(), "") << "pool " << size;
        }
        // A nested region that throws: rethrown by the inner run, then by the outer one.
        EXPECT_THROW(pool.run(8, [&](int64_t) {
            pool.run(4, [](int64_t j) {
                if (j == 2) throw std::out_of_range("inner");
            });
        }),
                     std::out_of_range);
    }
}

// A task that throws does not leave its region early for the others: when run() rethrows, no
// task is running any more.
TEST(ThreadPool, ExceptionIsRethrownOnlyAfterRunningTasksFinish) {
    ThreadPool pool(3);
    for (int round = 0; round < 20; ++round) {
        std::atomic<int> running{0};
        EXPECT_THROW(pool.run(30, [&](int64_t i) {
            running.fetch_add(1);
            if (i == 0) {
                running.fetch_sub(1);
                throw std::runtime_error("first");
            }
            std::this_thread::sleep_for(std::chrono::microseconds(200));
            running.fetch_sub(1);
        }),
                     std::runtime_error);
        EXPECT_EQ(running.load(), 0);
    }
}

TEST(ThreadPool, NoHeapAllocationInSteadyState) {
#ifdef IRLITE_NO_ALLOCATION_COUNTER
    GTEST_SKIP() << "built without the allocation counter (the ThreadSanitizer binary)";
#endif
    ASSERT_TRUE(testing::AllocationCounter::installed());
    for (int size : {1, 2, 4}) {
        ThreadPool pool(size);
        std::vector<std::atomic<int64_t>> out(256);
        const auto work = [&] {
            pool.run(256, [&](int64_t i) { out[static_cast<size_t>(i)].fetch_add(i, std::memory_order_relaxed); });
            pool.parallel_for(3, [&](int64_t i) { out[static_cast<size_t>(i)].fetch_add(1, std::memory_order_relaxed); });
            pool.parallel_range(1000, 64, [&](int64_t b, int64_t e) {
                out[static_cast<size_t>(b / 64)].fetch_add(e - b, std::memory_order_relaxed);
            });
            pool.run(4, [&](int64_t) { pool.run(2, [&](int64_t j) { out[static_cast<size_t>(j)].fetch_add(1); }); });
        };
        // Every worker has started (thread start-up may allocate, in sanitizer runtimes) and run.
        ASSERT_TRUE(all_threads_meet(pool));
        for (int warm = 0; warm < 10; ++warm) work();

        testing::AllocationCounter counter;
        for (int region = 0; region < 500; ++region) work();
        // The workers asleep, then woken: no allocation on that path either.
        for (int region = 0; region < 3; ++region) {
            std::this_thread::sleep_for(std::chrono::milliseconds(3));
            work();
        }
        const int64_t allocations = counter.stop();
        EXPECT_EQ(allocations, 0) << "pool " << size;
    }
}

TEST(ThreadPool, CreatedAndDestroyedRepeatedly) {
    for (int round = 0; round < 50; ++round) {
        ThreadPool pool(1 + round % 4);
        if (round % 2 == 0) {
            std::atomic<int> sum{0};
            pool.run(10, [&](int64_t) { sum.fetch_add(1); });
            EXPECT_EQ(sum.load(), 10);
        }
        if (round % 5 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));  // workers asleep
    }
}

TEST(ThreadPool, ParseNumThreads) {
    EXPECT_EQ(parse_num_threads("1"), 1);
    EXPECT_EQ(parse_num_threads("8"), 8);
    EXPECT_EQ(parse_num_threads(" 4\n"), 4);
    EXPECT_EQ(parse_num_threads("007"), 7);
    EXPECT_EQ(parse_num_threads("1024"), ThreadPool::kMaxThreads);
    for (const char* bad : {"", "  ", "0", "-1", "+2", "abc", "4x", "3.5", "0x10", "1 2", "1025",
                            "99999999999999999999999"})
        EXPECT_EQ(parse_num_threads(bad), std::nullopt) << '"' << bad << '"';
    EXPECT_EQ(parse_num_threads(nullptr), std::nullopt);
}

// Sets an environment variable for one scope and restores it afterwards.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        if (value) ::setenv(name, value, 1); else ::unsetenv(name);
    }
    ~ScopedEnv() {
        if (old_) ::setenv(name_, old_->c_str(), 1); else ::unsetenv(name_);
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    const char* name_;
    std::optional<std::string> old_;
};

TEST(ThreadPool, DefaultNumThreadsHonoursIrliteNumThreads) {
    const int cpus = available_cpus();
    EXPECT_GE(cpus, 1);
    {
        ScopedEnv env("IRLITE_NUM_THREADS", nullptr);
        EXPECT_EQ(default_num_threads(), std::min(cpus, ThreadPool::kMaxThreads));
    }
    {
        ScopedEnv env("IRLITE_NUM_THREADS", "3");
        EXPECT_EQ(default_num_threads(), 3);
    }
    for (const char* invalid : {"0", "-2", "many", ""}) {  // ignored: the CPU count
        ScopedEnv env("IRLITE_NUM_THREADS", invalid);
        EXPECT_EQ(default_num_threads(), std::min(cpus, ThreadPool::kMaxThreads)) << invalid;
    }
}

}  // namespace
}  // namespace irlite
