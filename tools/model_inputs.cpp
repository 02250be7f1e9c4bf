#include "tools/model_inputs.hpp"

#include <algorithm>
#include <type_traits>

#include "parser/npy.hpp"
#include "tools/cli.hpp"

namespace irlite::cli {

std::string describe_inputs(const CompiledModel& model) {
    std::string s;
    for (const PortInfo& p : model.inputs())
        s += str(s.empty() ? "" : ", ", "'", p.name, "' ", to_string(p.type), " ", to_string(p.shape));
    return s.empty() ? "no inputs" : s;
}

FillMode parse_fill_mode(const std::string& text) {
    if (text == "random") return FillMode::Random;
    if (text == "zeros") return FillMode::Zeros;
    if (text == "ones") return FillMode::Ones;
    throw UsageError("--fill expects random, zeros or ones, got '" + text + "'");
}

const char* fill_mode_name(FillMode mode) {
    switch (mode) {
        case FillMode::Zeros: return "zeros";
        case FillMode::Ones: return "ones";
        case FillMode::Random: return "random";
        case FillMode::None: break;
    }
    return "none";
}

uint64_t parse_seed(const std::string& text) {
    const bool digits = !text.empty() && text.size() <= 19 &&
                        std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits) throw UsageError("--seed expects a whole number from 0 to 9999999999999999999, got '" + text + "'");
    return std::stoull(text);
}

namespace {

// splitmix64: a tiny, well-mixed generator whose output is fixed by its definition (std::
// distributions are not the same across standard libraries).
uint64_t splitmix64(uint64_t& state) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

// The value of element `i` as a double: 0, 1, or the random draw for the element's kind.
template <class T>
void fill_values(T* data, size_t n, FillMode mode, uint64_t& state) {
    for (size_t i = 0; i < n; ++i) {
        double v = mode == FillMode::Ones ? 1.0 : 0.0;
        if (mode == FillMode::Random) {
            const uint64_t r = splitmix64(state);
            if constexpr (std::is_same_v<T, bool>) v = static_cast<double>(r & 1u);
            else if constexpr (std::is_integral_v<T>) v = static_cast<double>(r % 10u);
            else v = static_cast<double>(r >> 40) * (1.0 / 16777216.0);  // 24 bits: exact in f32
        }
        if constexpr (std::is_same_v<T, float16>) data[i] = float16{f32_to_f16(static_cast<float>(v))};
        else if constexpr (std::is_same_v<T, bfloat16>) data[i] = bfloat16{f32_to_bf16(static_cast<float>(v))};
        else data[i] = static_cast<T>(v);
    }
}

}  // namespace

Tensor filled_input(const PortInfo& port, FillMode mode, uint64_t seed, size_t index) {
    if (!port.shape.is_static())
        throw Error(ErrorKind::Input, "input-missing",
                    str("input '", port.name, "' has a dynamic shape ", to_string(port.shape),
                        ": --fill cannot choose its dims; give it with -i"));
    Tensor t(port.type, port.shape.to_shape());
    uint64_t state = seed * 0x100000001B3ULL + index;  // each input its own stream
    dispatch_type(port.type, [&](auto tag) {
        using T = decltype(tag);
        fill_values(t.data<T>(), static_cast<size_t>(t.num_elements()), mode, state);
    });
    return t;
}

std::vector<BoundInput> load_inputs(const CompiledModel& model, const std::vector<std::string>& specs, FillMode fill,
                                    uint64_t seed) {
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
    for (size_t i = 0; i < inputs.size(); ++i) {
        if (seen[i]) continue;
        if (fill == FillMode::None)
            throw Error(ErrorKind::Input, "input-missing",
                        str("input '", inputs[i].name, "' is not given (use -i ", inputs[i].name,
                            "=FILE.npy, or --fill random|zeros|ones); the model expects ", describe_inputs(model)));
        out.push_back({i, std::string(), filled_input(inputs[i], fill, seed, i)});
    }
    std::sort(out.begin(), out.end(), [](const BoundInput& a, const BoundInput& b) { return a.index < b.index; });
    return out;
}

}  // namespace irlite::cli
