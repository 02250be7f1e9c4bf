// An intra-op thread pool: the executor splits one kernel into tasks and runs them on persistent
// worker threads plus the calling thread. No OpenMP.
//
// Model
//   - ThreadPool(n) owns n - 1 worker threads; the thread that calls run() is the n-th. ThreadPool(1)
//     starts no thread and runs everything inline.
//   - run(num_tasks, fn) calls fn(0) ... fn(num_tasks - 1), each exactly once, on the workers and the
//     caller, and returns when all have finished. Tasks are claimed one at a time from an atomic
//     counter (dynamic scheduling), so which thread runs which task varies from run to run: a task
//     must not depend on it. Results are deterministic when each task's result depends only on its
//     index — parallel_range() cuts ranges by `total` and `grain` alone for that reason.
//   - run() allocates nothing (a test counts heap allocations); FunctionRef is a pointer to the
//     caller's callable, not a copy of it.
//   - Workers spin briefly after a region before they go to sleep, so that a long chain of tiny
//     regions (one per node) does not pay a wake-up each time. See thread_pool.cpp for the numbers.
//
// Reentrancy and sharing
//   The pool serves one region at a time. A run() that finds the pool busy — called from inside
//   one of its own tasks (nested parallelism), or from another thread (several infer requests
//   sharing one pool) while a region is in flight — runs its tasks inline, in index order, on the
//   calling thread. That is always correct and never deadlocks: nobody ever waits for the pool to
//   become free. Concurrent callers therefore do not queue: the first one gets the workers, the
//   others use their own thread.
//
// Exceptions
//   If tasks throw, the first exception is kept, tasks that have not started yet are skipped (tasks
//   already running finish), and the exception is rethrown by run() on the calling thread once no
//   worker is inside the region any more. Inline runs stop at the first exception, the same
//   contract. Capturing the exception (std::exception_ptr) allocates, on that error path only.
//
// Worker threads are created with an 8 MiB stack (pthread attributes), whatever RLIMIT_STACK says.
#pragma once

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

namespace irlite {

struct IsaTrace;

// A non-owning reference to a callable: one object pointer and one function pointer, trivially
// copyable, never allocates. The callable must outlive every call through the reference; binding
// a temporary lambda is fine for the duration of the full expression, e.g. pool.run(n, [&](int64_t i) {...}).
template <class Signature>
class FunctionRef;

template <class R, class... Args>
class FunctionRef<R(Args...)> {
public:
    template <class F,
              class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, FunctionRef> &&
                                       std::is_invocable_r_v<R, F&, Args...>>>
    FunctionRef(F&& f) noexcept  // NOLINT: implicit on purpose, like std::function
        : object_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
          call_(&trampoline<std::remove_reference_t<F>>) {
        static_assert(!std::is_function_v<std::remove_reference_t<F>>,
                      "FunctionRef: pass a function pointer or a lambda, not a function lvalue");
    }

    R operator()(Args... args) const { return call_(object_, std::forward<Args>(args)...); }

private:
    template <class F>
    static R trampoline(void* object, Args... args) {
        return (*static_cast<F*>(object))(std::forward<Args>(args)...);
    }

    void* object_;
    R (*call_)(void*, Args...);
};

class ThreadPool {
public:
    // The largest pool: 1024 threads.
    static constexpr int kMaxThreads = 1024;

    // num_threads in [1, kMaxThreads], counting the calling thread; throws irlite::Error (Usage)
    // otherwise, and std::system_error if a thread cannot be created.
    explicit ThreadPool(int num_threads);
    // Stops and joins the workers. No run() may be in flight.
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    // The number of threads that run tasks, the caller included.
    int size() const { return num_threads_; }

    // Which of this pool's threads runs the current task: 1 .. size() - 1 for its workers, 0 for
    // any other thread (the caller of run(), or inline runs). Tasks that run at the same time have
    // different slots, so a kernel can give each slot its own scratch memory.
    int current_slot() const;

    // Runs task(0) ... task(num_tasks - 1), each once, and returns when all are done (see the top of
    // the file). num_tasks <= 0 does nothing. One task, a pool of size 1 or a busy pool: inline, in
    // index order. num_tasks must stay below INT64_MAX - kMaxThreads (the task counter runs past
    // the end by up to one claim per thread).
    void run(int64_t num_tasks, FunctionRef<void(int64_t)> task);

    // fn(i) for i in [0, n): run() for any callable.
    template <class Fn>
    void parallel_for(int64_t n, const Fn& fn) {
        run(n, FunctionRef<void(int64_t)>(fn));
    }

    // Cuts [0, total) into chunks [c * grain, min(total, (c + 1) * grain)) and calls fn(begin, end)
    // once per chunk. The boundaries depend on total and grain only — never on the pool size — so a
    // kernel whose chunk results do not depend on timing gives bit-identical results for every
    // thread count, including the inline path (one chunk or a pool of size 1), which calls fn for
    // the same chunks in order. grain < 1 counts as 1.
    template <class Fn>
    void parallel_range(int64_t total, int64_t grain, const Fn& fn) {
        const int64_t chunks = num_chunks(total, grain);
        if (chunks <= 0) return;
        const int64_t g = std::max<int64_t>(grain, 1);
        auto one_chunk = [&](int64_t c) {
            const int64_t begin = c * g;
            fn(begin, begin + std::min(g, total - begin));
        };
        if (chunks == 1 || num_threads_ == 1) {
            for (int64_t c = 0; c < chunks; ++c) one_chunk(c);
            return;
        }
        run(chunks, one_chunk);
    }

    // The chunking of parallel_range: how many chunks, and where chunk c begins and ends.
    static int64_t num_chunks(int64_t total, int64_t grain) {
        if (total <= 0) return 0;
        const int64_t g = std::max<int64_t>(grain, 1);
        return total / g + (total % g != 0 ? 1 : 0);
    }
    static std::pair<int64_t, int64_t> chunk_bounds(int64_t total, int64_t grain, int64_t c) {
        const int64_t g = std::max<int64_t>(grain, 1);
        const int64_t begin = c * g;
        return {begin, begin + std::min(g, total - begin)};
    }

private:
    static void* worker_entry(void* arg);
    void worker_loop();
    // Claims and runs tasks of the current region until none is left.
    void work_on_region();
    void run_inline(int64_t num_tasks, FunctionRef<void(int64_t)> task);
    void stop_and_join();

    const int num_threads_;
    std::vector<pthread_t> threads_;
    std::atomic<int> next_slot_{0};

    // The region state, one word: bits 0-15 the number of workers inside the region, bit 16 "open"
    // (workers may join), bits 17-63 the region's epoch (bumped when a region opens). A worker joins
    // with a CAS that succeeds only while that same region is open; the caller closes the region
    // when every task has been claimed and then waits for the count to drop to zero.
    // It shares one cache line with the region and its task counter: a worker that joins has the
    // line and claims its task without another cache-line transfer (on a VM a transfer between two
    // vCPUs costs some 200 ns, more than a small task's share of the work).
    alignas(64) std::atomic<uint64_t> state_{0};
    // The current region, written by the owner while the region is closed and no worker is inside.
    int64_t num_tasks_ = 0;
    IsaTrace* trace_ = nullptr;  // the submitter's profile trace (engine/isa_trace.hpp), for the workers
    std::optional<FunctionRef<void(int64_t)>> task_;  // a copy (two pointers), not one more line to fetch
    std::atomic<int64_t> next_task_{0};
    // Set while a caller owns the workers (one region at a time; others run inline).
    std::atomic<bool> busy_{false};
    alignas(64) std::atomic<bool> failed_{false};
    std::exception_ptr error_;  // written by the thread that set failed_ first

    // Sleeping: workers wait on wake_ for a new epoch, the owner on done_ for the count to reach 0.
    alignas(64) std::atomic<int> sleeping_workers_{0};
    std::atomic<bool> owner_sleeping_{false};
    std::atomic<bool> stop_{false};
    std::mutex mutex_;
    std::condition_variable wake_;
    std::condition_variable done_;
};

// The thread count irlite uses by default: IRLITE_NUM_THREADS if it holds a valid count (see
// parse_num_threads), else the number of CPUs this process may run on (at least 1). An invalid
// IRLITE_NUM_THREADS is ignored; a program that wants to report it calls parse_num_threads itself.
int default_num_threads();

// The number of CPUs in this process's affinity mask (sched_getaffinity), at least 1.
int available_cpus();

// A thread count as written in IRLITE_NUM_THREADS: decimal digits, optionally surrounded by
// blanks, with a value in [1, ThreadPool::kMaxThreads]. nullopt for a null pointer, an empty or
// blank string, a sign, anything else, 0, or a value out of range.
std::optional<int> parse_num_threads(const char* text);

}  // namespace irlite
