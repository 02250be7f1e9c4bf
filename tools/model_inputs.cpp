#include "tools/model_inputs.hpp"

#include "parser/npy.hpp"
#include "tools/cli.hpp"

namespace irlite::cli {

std::string describe_inputs(const CompiledModel& model) {
    std::string s;
    for (const PortInfo& p : model.inputs())
        s += str(s.empty() ? "" : ", ", "'", p.name, "' ", to_string(p.type), " ", to_string(p.shape));
    return s.empty() ? "no inputs" : s;
}

std::vector<BoundInput> load_inputs(const CompiledModel& model, const std::vector<std::string>& specs) {
    const auto& inputs = model.inputs();
    std::vector<BoundInput> out;
    std::vector<bool> seen(inputs.size(), false);
    for (const std::string& spec : specs) {
        const size_t eq = spec.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
            throw UsageError("-i expects NAME=FILE.npy, got '" + spec + "'");
        const std::string name = spec.substr(0, eq), path = spec.substr(eq + 1);
        size_t index = inputs.size();
        for (size_t i = 0; i < inputs.size() && index == inputs.size(); ++i) {
            if (inputs[i].name == name) index = i;
            for (const auto& n : inputs[i].names)
                if (n == name) index = i;
        }
        if (index == inputs.size())
            throw Error(ErrorKind::Input, "input-unknown",
                        str("-i ", spec, ": the model has no input named '", name, "'; it expects ", describe_inputs(model)));
        if (seen[index])
            throw Error(ErrorKind::Input, "input-duplicate", str("-i ", spec, ": input '", inputs[index].name, "' is given twice"));
        seen[index] = true;
        Tensor t = read_npy(path);
        // numpy has no bfloat16: a bf16 input is given as float32 and rounded.
        if (inputs[index].type == ElementType::bf16 && t.type() == ElementType::f32) t = convert_f32_to_bf16(t);
        const PortInfo& want = inputs[index];
        if (t.type() != want.type || !shapes_compatible(want.shape, PartialShape(t.shape())))
            throw Error(ErrorKind::Input, "input-mismatch",
                        str("-i ", spec, ": the file holds ", to_string(t.type()), " ", to_string(t.shape()),
                            ", but input '", want.name, "' is ", to_string(want.type), " ", to_string(want.shape),
                            " (no implicit conversion); the model expects ", describe_inputs(model)));
        out.push_back({index, path, std::move(t)});
    }
    for (size_t i = 0; i < inputs.size(); ++i)
        if (!seen[i])
            throw Error(ErrorKind::Input, "input-missing",
                        str("input '", inputs[i].name, "' is not given (use -i ", inputs[i].name,
                            "=FILE.npy); the model expects ", describe_inputs(model)));
    return out;
}

}  // namespace irlite::cli
