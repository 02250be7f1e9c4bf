// Profiles of runs (CompileOptions::profiling, InferRequest::profiling(), `bench --profile`): the
// entry of a plan's step, and the rows of the layers inside sub-graph bodies.
//
// A profiled request points its calling thread at its BodyProfile (BodyProfileScope) while it
// runs; a body runner that sees one times each of its steps (BodyStepTimer) and adds the time to
// that step's row, registered the first time the runner runs under this BodyProfile. Bodies run
// on the request's calling thread (a body runner has no pool), so rows need no locking. A row's key
// says where its step sits: [top-level step, body, step, body, step, ...] (body: 0, or 1 for If's
// else_body), so rows sorted by key come in the order the profile lists them: after their
// sub-graph layer's entry, in body step order, a nested body's rows after their own layer's.
// Without profiling a body run costs one thread-local load and allocates nothing.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/execution_plan.hpp"
#include "engine/isa_trace.hpp"
#include "irlite/irlite.hpp"

namespace irlite {

// The kernel method a step's plan chose ("view" for a Skip step, "dynamic", "gemm", ...).
const char* step_method(const ExecStep& step);

// Step i's profile entry before it runs: name, type, method, precision; isa "-", no time.
ProfileEntry step_profile_entry(const ExecutionPlan& plan, size_t i);

class BodyProfile {
public:
    // The request's entries of its top-level steps, which body paths start from (kept by it).
    explicit BodyProfile(const std::vector<ProfileEntry>& top);
    // Forgets every row (the request's plan changed, or profiling was switched).
    void forget();
    // Before a run: every row has run 0 times.
    void begin_run();
    // Before top-level step `step` runs: the bodies run in it hang below it.
    void enter_top_step(int step) { key_.assign(1, step); }
    bool empty() const { return rows_.empty(); }
    // The top-level entries, each followed by the rows of the body steps that ran inside it.
    void merge(std::vector<ProfileEntry>& out) const;

    // For body runners. The index of the row of step 0 of `plan`, the plan of body `body_name`,
    // run from the step running now (its rows, one per step, are contiguous), made on first call.
    int rows_of(const ExecutionPlan& plan, const std::string& body_name);
    // While a body runs: its steps' key is the running step's, then its body, then the step.
    void enter_body(const std::string& body_name) {
        key_.push_back(body_name == "else_body" ? 1 : 0);
        key_.push_back(0);
    }
    void enter_body_step(size_t i) { key_.back() = static_cast<int>(i); }
    void leave_body() { key_.resize(key_.size() - 2); }
    // Step `row` ran once more (a view: took no time and ran no kernel).
    void count_view(int row) { ++rows_[static_cast<size_t>(row)].entry.runs; }
    // Adds one run of `ms` at instruction-set `levels` to row `row`.
    void add_run(int row, double ms, unsigned levels);
    // A new number per forget() of any BodyProfile: a runner that registered its rows under the
    // same epoch still has them.
    uint64_t epoch() const { return epoch_; }

private:
    struct Row {
        std::vector<int> key;
        const ExecutionPlan* plan = nullptr;  // a runner made again for the same plan finds its rows
        ProfileEntry entry;
        unsigned levels = 0;  // isa_trace.hpp's bits, over the runs of the last infer()
    };
    const ProfileEntry& entry_at(const std::vector<int>& key) const;

    const std::vector<ProfileEntry>& top_;
    std::vector<Row> rows_;
    std::vector<int> key_;  // where the running step sits
    uint64_t epoch_;
};

// The calling thread's body profile while a profiled request runs, or null.
inline thread_local BodyProfile* t_body_profile = nullptr;

// Points the calling thread at `profile` (may be null) for its lifetime.
class BodyProfileScope {
public:
    explicit BodyProfileScope(BodyProfile* profile) : saved_(t_body_profile) { t_body_profile = profile; }
    ~BodyProfileScope() { t_body_profile = saved_; }
    BodyProfileScope(const BodyProfileScope&) = delete;
    BodyProfileScope& operator=(const BodyProfileScope&) = delete;

private:
    BodyProfile* saved_;
};

// Times one run of a body step into its row, and gives the step a trace of its own whose levels
// also go to the enclosing step's trace (which the top-level entry reports).
class BodyStepTimer {
public:
    BodyStepTimer(BodyProfile& profile, int row)
        : profile_(profile), row_(row), saved_(t_isa_trace), started_(std::chrono::steady_clock::now()) {
        t_isa_trace = &trace_;
    }
    ~BodyStepTimer() {
        const unsigned levels = trace_.levels.load();
        t_isa_trace = saved_;
        if (saved_) saved_->levels.fetch_or(levels);
        profile_.add_run(row_, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started_).count(),
                         levels);
    }
    BodyStepTimer(const BodyStepTimer&) = delete;
    BodyStepTimer& operator=(const BodyStepTimer&) = delete;

private:
    BodyProfile& profile_;
    int row_;  // an index: a nested body's rows, made while this step runs, may move the rows
    IsaTrace trace_;
    IsaTrace* saved_;
    std::chrono::steady_clock::time_point started_;
};

}  // namespace irlite
