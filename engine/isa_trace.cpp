#include "engine/isa_trace.hpp"

#include <array>
#include <string>

namespace irlite {

const char* isa_trace_name(unsigned levels) {
    // Every combination named once, so that a profile assigns a constant string per run.
    constexpr int kLevels = 5;
    static const std::array<std::string, 1u << kLevels> names = [] {
        // Widest first.
        const std::pair<int, const char*> order[kLevels] = {{kIsaTraceAvx512Vnni, "avx512-vnni"},
                                                           {kIsaTraceAvx512, "avx512"},
                                                           {kIsaTraceAvxVnni, "avx2-vnni"},
                                                           {kIsaTraceAvx2, "avx2"},
                                                           {kIsaTraceSse, "sse"}};
        std::array<std::string, 1u << kLevels> out;
        for (unsigned set = 0; set < out.size(); ++set) {
            for (const auto& [bit, name] : order) {
                if ((set >> bit & 1u) == 0) continue;
                if (!out[set].empty()) out[set] += '+';
                out[set] += name;
            }
            if (out[set].empty()) out[set] = "sse";
        }
        return out;
    }();
    return names[levels & ((1u << kLevels) - 1)].c_str();
}

}  // namespace irlite
