// Profiles of runs: step entries and the rows of body steps (engine/profile.hpp).
#include "engine/profile.hpp"

#include <algorithm>
#include <atomic>
#include <numeric>

#include "engine/fusion.hpp"
#include "engine/precision.hpp"

namespace irlite {
namespace {

uint64_t new_epoch() {
    static std::atomic<uint64_t> last{0};
    return last.fetch_add(1, std::memory_order_relaxed) + 1;
}

}  // namespace

const char* step_method(const ExecStep& step) {
    return step.mode == ExecStep::Mode::Skip      ? "view"
           : step.mode == ExecStep::Mode::Dynamic ? "dynamic"
           : step.plan && *step.plan->method      ? step.plan->method
                                                  : "kernel";
}

ProfileEntry step_profile_entry(const ExecutionPlan& plan, size_t i) {
    const Graph& g = *plan.graph;
    const ExecStep& step = plan.steps[i];
    const Node& n = g.nodes[static_cast<size_t>(step.node)];
    ProfileEntry e;
    e.name = node_display_name(n);
    e.type = node_type_name(n);
    e.method = step_method(step);
    e.precision = node_precision(g, n);
    e.isa = "-";
    return e;
}

BodyProfile::BodyProfile(const std::vector<ProfileEntry>& top) : top_(top), epoch_(new_epoch()) {}

void BodyProfile::forget() {
    rows_.clear();
    epoch_ = new_epoch();
}

void BodyProfile::begin_run() {
    for (Row& r : rows_) {
        r.entry.ms = 0;
        r.entry.runs = 0;
        r.levels = 0;
    }
}

void BodyProfile::add_run(int row, double ms, unsigned levels) {
    Row& r = rows_[static_cast<size_t>(row)];
    r.entry.ms += ms;
    ++r.entry.runs;
    r.levels |= levels;
}

const ProfileEntry& BodyProfile::entry_at(const std::vector<int>& key) const {
    if (key.size() == 1) return top_[static_cast<size_t>(key[0])];
    return std::find_if(rows_.begin(), rows_.end(), [&](const Row& r) { return r.key == key; })->entry;
}

int BodyProfile::rows_of(const ExecutionPlan& plan, const std::string& body_name) {
    std::vector<int> key = key_;
    key.push_back(body_name == "else_body" ? 1 : 0);
    key.push_back(0);
    for (size_t r = 0; r < rows_.size(); ++r)
        if (rows_[r].plan == &plan && rows_[r].key == key) return static_cast<int>(r);
    // "ti > body"; nested: "outer > body > ti > body".
    const ProfileEntry& layer = entry_at(key_);
    const std::string path = (layer.body.empty() ? "" : layer.body + " > ") + layer.name + " > " + body_name;
    const auto first = static_cast<int>(rows_.size());
    for (size_t i = 0; i < plan.steps.size(); ++i) {
        key.back() = static_cast<int>(i);
        Row row{key, &plan, step_profile_entry(plan, i), 0};
        row.entry.body = path;
        rows_.push_back(std::move(row));
    }
    return first;
}

void BodyProfile::merge(std::vector<ProfileEntry>& out) const {
    std::vector<size_t> order(rows_.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return rows_[a].key < rows_[b].key; });
    out.clear();
    size_t next = 0;
    for (size_t s = 0; s < top_.size(); ++s) {
        out.push_back(top_[s]);
        for (; next < order.size() && rows_[order[next]].key[0] == static_cast<int>(s); ++next) {
            const Row& r = rows_[order[next]];
            if (r.entry.runs == 0) continue;  // a body that did not run in the last infer()
            out.push_back(r.entry);
            if (r.entry.method != "view") out.back().isa = isa_trace_name(r.levels);
        }
    }
}

}  // namespace irlite
