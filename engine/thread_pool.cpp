// The thread pool (see thread_pool.hpp).
//
// One region at a time. The owner (the thread in run()) publishes the region — task count, task
// reference, a fresh task counter — and opens it with one store to state_ that bumps the epoch.
// Workers watch state_: a worker that sees a new epoch joins with a CAS (count + 1) that only
// succeeds while that region is open, claims tasks from the counter, and leaves (count - 1). Once
// the owner has claimed past the last task it closes the region — late workers cannot join any
// more — and waits for the count to drop to zero. So the owner never waits for a worker that is
// asleep or has not noticed the region, only for tasks that are already running.
//
// Waiting is spin-then-sleep on both sides. A worker spins for kSpinTime after its last region
// (pause, with a sched_yield now and then so that an oversubscribed machine still makes progress),
// then sleeps on a condition variable; the owner wakes sleepers only if there are any (a seq_cst
// handshake on sleeping_workers_ / state_ makes that check race-free). Back-to-back regions, e.g.
// a chain of small nodes, therefore find the workers still spinning and cost no system call.
// The owner waits for running tasks the same way (owner_sleeping_ / the count).
//
// Measured (2-vCPU VM shared with other builds, ThreadPool(2), run(2, empty task) in a loop):
// ~0.5-0.65 us per region when the worker has a core of its own and joins every region (the cost
// is the cache-line handshake), ~60 ns when it cannot get a core (the caller runs both tasks and
// never waits for it), ~1-8 us when the worker has to be woken from sleep (futex wake-up).
// With real work, run(2, tasks of 0.6 to 1.9 us each) takes about 0.1 us more than one task: the
// region word, the task counter and the task reference share one cache line, and a worker that
// ran the last task does not fetch the counter back (0.15-0.2 us more before). A cache-line
// round trip between this VM's two vCPUs is about 0.45 us: every transfer saved counts.
#include "engine/thread_pool.hpp"

#include <sched.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <system_error>
#include <thread>

#include "engine/isa_trace.hpp"
#include "irlite/error.hpp"

namespace irlite {

namespace {

constexpr uint64_t kCountMask = 0xFFFF;  // workers inside the region (kMaxThreads - 1 at most)
constexpr uint64_t kOpen = uint64_t{1} << 16;
constexpr int kEpochShift = 17;
static_assert(ThreadPool::kMaxThreads - 1 <= static_cast<int>(kCountMask), "count field too small");

// How long a thread spins before it sleeps.
constexpr std::chrono::microseconds kSpinTime{50};
// Worker stack size, independent of RLIMIT_STACK (kernels may keep sizeable buffers on the stack).
constexpr size_t kWorkerStackBytes = size_t{8} << 20;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield" ::: "memory");
#endif
}

// Spins until done() holds or `budget` has passed; returns done()'s last value.
template <class Pred>
bool spin_until(const Pred& done, std::chrono::microseconds budget) {
    const auto start = std::chrono::steady_clock::now();
    for (uint32_t i = 1;; ++i) {
        if (done()) return true;
        cpu_relax();
        if ((i & 63) == 0) {
            if (std::chrono::steady_clock::now() - start > budget) return done();
            if ((i & 255) == 0) std::this_thread::yield();
        }
    }
}

uint64_t epoch_of(uint64_t state) { return state >> kEpochShift; }

}  // namespace

ThreadPool::ThreadPool(int num_threads) : num_threads_(num_threads) {
    IRLITE_CHECK(num_threads >= 1 && num_threads <= kMaxThreads, ErrorKind::Usage, "num-threads",
                 "a thread pool needs 1 to ", kMaxThreads, " threads, not ", num_threads);
    threads_.reserve(static_cast<size_t>(num_threads - 1));
    pthread_attr_t attr;
    int rc = pthread_attr_init(&attr);
    if (rc != 0) throw std::system_error(rc, std::generic_category(), "irlite: pthread_attr_init");
    rc = pthread_attr_setstacksize(&attr, kWorkerStackBytes);
    for (int t = 1; t < num_threads && rc == 0; ++t) {
        pthread_t thread;
        rc = pthread_create(&thread, &attr, &ThreadPool::worker_entry, this);
        if (rc == 0) threads_.push_back(thread);
    }
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        stop_and_join();
        throw std::system_error(rc, std::generic_category(), "irlite: cannot start a worker thread");
    }
}

ThreadPool::~ThreadPool() { stop_and_join(); }

void ThreadPool::stop_and_join() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_.store(true, std::memory_order_seq_cst);
    }
    wake_.notify_all();
    for (pthread_t thread : threads_) pthread_join(thread, nullptr);
    threads_.clear();
}

namespace {
// The pool a worker thread belongs to and its slot in it (1 .. size - 1).
thread_local const ThreadPool* t_pool = nullptr;
thread_local int t_slot = 0;
}  // namespace

int ThreadPool::current_slot() const { return t_pool == this ? t_slot : 0; }

void* ThreadPool::worker_entry(void* pool) {
#if defined(__GLIBC__)
    pthread_setname_np(pthread_self(), "irlite-worker");
#endif
    auto* self = static_cast<ThreadPool*>(pool);
    t_pool = self;
    t_slot = self->next_slot_.fetch_add(1, std::memory_order_relaxed) + 1;
    self->worker_loop();
    return nullptr;
}

void ThreadPool::worker_loop() {
    uint64_t seen_epoch = 0;  // regions start at epoch 1
    for (;;) {
        uint64_t state = 0;
        const auto news = [&] {
            state = state_.load(std::memory_order_seq_cst);
            return epoch_of(state) != seen_epoch || stop_.load(std::memory_order_relaxed);
        };
        if (!spin_until(news, kSpinTime)) {
            std::unique_lock<std::mutex> lock(mutex_);
            // Paired with the owner: it stores state_ then reads sleeping_workers_ (both seq_cst),
            // so either it sees this sleeper and notifies, or news() below sees its region.
            sleeping_workers_.fetch_add(1, std::memory_order_seq_cst);
            wake_.wait(lock, news);
            sleeping_workers_.fetch_sub(1, std::memory_order_relaxed);
        }
        if (stop_.load(std::memory_order_acquire)) return;
        seen_epoch = epoch_of(state);

        // Join the region unless it has closed (or a newer one has opened: next loop).
        bool joined = false;
        while ((state & kOpen) != 0 && epoch_of(state) == seen_epoch) {
            if (state_.compare_exchange_weak(state, state + 1, std::memory_order_seq_cst)) {
                joined = true;
                break;
            }
        }
        if (!joined) continue;
        {
            const IsaTraceScope trace(trace_);  // the submitter's profile trace, if any
            work_on_region();
        }
        const uint64_t before = state_.fetch_sub(1, std::memory_order_seq_cst);
        if ((before & kCountMask) == 1 && owner_sleeping_.load(std::memory_order_seq_cst)) {
            // Taking the mutex orders this with the owner's check of the count; notifying after
            // releasing it spares the owner waking up only to block on the mutex. (The pool outlives
            // this: its destructor joins this thread.)
            { std::lock_guard<std::mutex> lock(mutex_); }
            done_.notify_one();
        }
    }
}

void ThreadPool::work_on_region() {
    const int64_t n = num_tasks_;
    const FunctionRef<void(int64_t)> task = *task_;
    for (;;) {
        const int64_t i = next_task_.fetch_add(1, std::memory_order_relaxed);
        if (i >= n) return;
        try {
            task(i);
        } catch (...) {
            if (!failed_.exchange(true, std::memory_order_relaxed)) error_ = std::current_exception();
            next_task_.store(n, std::memory_order_relaxed);  // skip the tasks nobody has claimed yet
            return;
        }
        // The last task: every one is claimed, so no need to fetch the counter's line back to see it.
        if (i == n - 1) return;
    }
}

void ThreadPool::run_inline(int64_t num_tasks, FunctionRef<void(int64_t)> task) {
    for (int64_t i = 0; i < num_tasks; ++i) task(i);
}

void ThreadPool::run(int64_t num_tasks, FunctionRef<void(int64_t)> task) {
    if (num_tasks <= 0) return;
    if (num_tasks == 1 || threads_.empty() || busy_.exchange(true, std::memory_order_acquire)) {
        run_inline(num_tasks, task);
        return;
    }

    // The region is closed and empty (the previous owner waited for that): write it, then open it.
    num_tasks_ = num_tasks;
    task_ = task;
    trace_ = t_isa_trace;
    next_task_.store(0, std::memory_order_relaxed);
    failed_.store(false, std::memory_order_relaxed);
    const uint64_t epoch = epoch_of(state_.load(std::memory_order_relaxed)) + 1;
    state_.store((epoch << kEpochShift) | kOpen, std::memory_order_seq_cst);
    if (sleeping_workers_.load(std::memory_order_seq_cst) > 0) {
        { std::lock_guard<std::mutex> lock(mutex_); }  // see worker_loop
        wake_.notify_all();
    }

    work_on_region();

    // Every task is claimed: close the region, then wait for the workers still inside.
    state_.fetch_and(~kOpen, std::memory_order_seq_cst);
    const auto all_out = [&] { return (state_.load(std::memory_order_seq_cst) & kCountMask) == 0; };
    if (!spin_until(all_out, kSpinTime)) {
        std::unique_lock<std::mutex> lock(mutex_);
        owner_sleeping_.store(true, std::memory_order_seq_cst);
        done_.wait(lock, all_out);
        owner_sleeping_.store(false, std::memory_order_relaxed);
    }

    std::exception_ptr error;
    error.swap(error_);
    task_.reset();
    busy_.store(false, std::memory_order_release);
    if (error) std::rethrow_exception(error);
}

std::optional<int> parse_num_threads(const char* text) {
    if (text == nullptr) return std::nullopt;
    const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
    const char* p = text;
    while (blank(*p)) ++p;
    if (*p < '0' || *p > '9') return std::nullopt;
    int64_t value = 0;
    for (; *p >= '0' && *p <= '9'; ++p) {
        value = value * 10 + (*p - '0');
        if (value > ThreadPool::kMaxThreads) return std::nullopt;
    }
    while (blank(*p)) ++p;
    if (*p != '\0' || value < 1) return std::nullopt;
    return static_cast<int>(value);
}

int available_cpus() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
    // More CPUs than a cpu_set_t holds: ask again with larger sets.
    for (int cpus = 2 * CPU_SETSIZE; errno == EINVAL && cpus <= (1 << 20); cpus *= 2) {
        cpu_set_t* big = CPU_ALLOC(cpus);
        if (big == nullptr) break;
        const size_t bytes = CPU_ALLOC_SIZE(cpus);
        CPU_ZERO_S(bytes, big);
        const int rc = sched_getaffinity(0, bytes, big);
        const int count = rc == 0 ? CPU_COUNT_S(bytes, big) : 0;
        CPU_FREE(big);
        if (rc == 0) return std::max(1, count);
    }
    return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

int default_num_threads() {
    if (const std::optional<int> from_env = parse_num_threads(std::getenv("IRLITE_NUM_THREADS")))
        return *from_env;
    return std::min(available_cpus(), ThreadPool::kMaxThreads);
}

}  // namespace irlite
