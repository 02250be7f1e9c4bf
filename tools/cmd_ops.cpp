// irlite ops: the op table, one line per op version with the opsets that contain it.
#include <algorithm>
#include <iostream>

#include "engine/op.hpp"
#include "tools/cli.hpp"
#include "tools/command_line.hpp"
#include "kernels/all_ops.hpp"

namespace irlite::cli {

int ops_command(const std::vector<std::string>& args) {
    bool markdown = false;
    CommandLine line("ops", "usage: irlite ops [--markdown]\n\nLists every op irlite runs: IR type, op version, opsets, inputs.\n");
    line.app().add_flag("--markdown", markdown);
    if (!line.parse(args)) return kExitOk;
    std::vector<const OpDef*> defs;
    for (const OpDef& d : builtin_ops().all()) defs.push_back(&d);
    std::sort(defs.begin(), defs.end(), [](const OpDef* a, const OpDef* b) {
        return a->type != b->type ? a->type < b->type : a->version < b->version;
    });
    if (markdown) std::cout << "| op | opsets | inputs |\n|---|---|---|\n";
    for (const OpDef* d : defs) {
        std::string roles;
        for (size_t i = 0; i < d->input_roles.size(); ++i)
            roles += (i ? ", " : "") + d->input_roles[i] + (static_cast<int>(i) >= d->min_inputs ? "?" : "");
        if (d->variadic_inputs) roles += "...";
        const std::string name = str(d->type, "-", d->version);
        if (markdown) std::cout << "| " << name << " | " << d->opset_range() << " | " << roles << " |\n";
        else std::cout << name << std::string(name.size() < 32 ? 32 - name.size() : 1, ' ') << d->opset_range()
                       << std::string(d->opset_range().size() < 16 ? 16 - d->opset_range().size() : 1, ' ') << roles << "\n";
    }
    return kExitOk;
}

}  // namespace irlite::cli
