// Which instruction-set levels a profiled step's kernels ran at, for `bench --profile` and
// InferRequest::profiling().
//
// The levels are recorded where code picks them at run time: cpu::run_at (kernels/detail/cpu_isa.hpp)
// and the GEMM drivers, which call their micro-kernels through per-level tables. Code that does
// neither runs as compiled, at the baseline level. The executor points the calling thread at a
// trace while a step runs (only when profiling), and the thread pool hands the submitting thread's
// trace to the workers that run its tasks, so a step's trace collects the levels of every thread
// that worked on it. Without a trace (no profiling) recording is one thread-local load.
#pragma once

#include <atomic>

namespace irlite {

// The levels a trace tells apart: cpu::Isa's three (same numbers), and the int8 GEMM's VNNI forms.
inline constexpr int kIsaTraceSse = 0, kIsaTraceAvx2 = 1, kIsaTraceAvx512 = 2, kIsaTraceAvxVnni = 3,
                     kIsaTraceAvx512Vnni = 4;

struct IsaTrace {
    std::atomic<unsigned> levels{0};  // bit i: level i ran
};

// The levels of a trace by name, widest first and joined by '+' ("avx512", "avx512+avx2"); "sse"
// when no multi-versioned code ran (what ran was compiled for the baseline).
const char* isa_trace_name(unsigned levels);

// The calling thread's trace, or null.
inline thread_local IsaTrace* t_isa_trace = nullptr;

inline void record_isa_level(int level) {
    if (IsaTrace* t = t_isa_trace) t->levels.fetch_or(1u << level, std::memory_order_relaxed);
}

// Points the calling thread at `trace` for its lifetime.
class IsaTraceScope {
public:
    explicit IsaTraceScope(IsaTrace* trace) : saved_(t_isa_trace) { t_isa_trace = trace; }
    ~IsaTraceScope() { t_isa_trace = saved_; }
    IsaTraceScope(const IsaTraceScope&) = delete;
    IsaTraceScope& operator=(const IsaTraceScope&) = delete;

private:
    IsaTrace* saved_;
};

}  // namespace irlite
