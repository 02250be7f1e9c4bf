// Comparing the layers of two runs: see compare.hpp.
#include "api/compare.hpp"

#include <cmath>
#include <limits>
#include <map>
#include <type_traits>
#include <utility>

namespace irlite {
namespace {

template <class T>
double to_double(T v) {
    if constexpr (std::is_same_v<T, float16>) return static_cast<double>(f16_to_f32(v.bits));
    else if constexpr (std::is_same_v<T, bfloat16>) return static_cast<double>(bf16_to_f32(v.bits));
    else return static_cast<double>(v);
}

template <class T>
T from_double(double v) {
    if constexpr (std::is_same_v<T, float16>) return float16{f32_to_f16(static_cast<float>(v))};
    else if constexpr (std::is_same_v<T, bfloat16>) return bfloat16{f32_to_bf16(static_cast<float>(v))};
    else if constexpr (std::is_same_v<T, bool>) return v != 0;
    else if constexpr (std::is_floating_point_v<T>) return static_cast<T>(v);
    else {
        // Integers: truncated toward zero, saturated, NaN as 0 (never undefined behaviour).
        if (std::isnan(v)) return T{0};
        if (v <= static_cast<double>(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
        if (v >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
        return static_cast<T>(v);
    }
}

std::vector<double> as_doubles(const Tensor& t) {
    std::vector<double> out(static_cast<size_t>(t.num_elements()));
    if (!is_storable(t.type()) || is_packed(t.type())) {
        for (size_t i = 0; i < out.size(); ++i) out[i] = t.value_as_double(static_cast<int64_t>(i));
        return out;
    }
    dispatch_type(t.type(), [&](auto tag) {
        using T = decltype(tag);
        const T* p = t.data<T>();
        for (size_t i = 0; i < out.size(); ++i) out[i] = to_double(p[i]);
    });
    return out;
}

// 0 finite, 1 NaN, 2 +inf, 3 -inf.
int nonfinite_class(double v) {
    if (std::isfinite(v)) return 0;
    if (std::isnan(v)) return 1;
    return v > 0 ? 2 : 3;
}

bool answers_to(const PortInfo& port, const std::vector<std::string>& names) {
    for (const std::string& n : names) {
        if (n == port.name) return true;
        for (const std::string& t : port.names)
            if (t == n) return true;
    }
    return false;
}

}  // namespace

Tensor convert_element_type(const Tensor& t, ElementType type) {
    if (t.type() == type) return t;
    IRLITE_CHECK(is_storable(type) && !is_packed(type) && is_storable(t.type()) && !is_packed(t.type()), ErrorKind::Input,
                 "input-type", "cannot convert a ", to_string(t.type()), " tensor to ", to_string(type));
    const std::vector<double> values = as_doubles(t);
    Tensor out(type, t.shape());
    dispatch_type(type, [&](auto tag) {
        using T = decltype(tag);
        T* p = out.data<T>();
        for (size_t i = 0; i < values.size(); ++i) p[i] = from_double<T>(values[i]);
    });
    return out;
}

IsaCapScope::IsaCapScope(std::string isa) : isa_(std::move(isa)) {
    if (!isa_.empty()) set_isa_cap(isa_);
}
IsaCapScope::~IsaCapScope() {
    if (!isa_.empty()) set_isa_cap("");
}

std::vector<NodeOutput> run_keeping_outputs(const CompiledModel& compiled, const std::vector<NamedInput>& inputs) {
    InferRequest request = compiled.create_infer_request();
    const std::vector<PortInfo>& ports = compiled.inputs();
    for (size_t i = 0; i < ports.size(); ++i) {
        const NamedInput* given = nullptr;
        for (const NamedInput& in : inputs)
            if (!given && answers_to(ports[i], in.names)) given = &in;
        if (!given) {
            std::string names;
            for (const NamedInput& in : inputs) names += str(names.empty() ? "" : ", ", "'", in.names.front(), "'");
            throw Error(ErrorKind::Input, "input-missing",
                        str("input '", ports[i].name, "' matches none of the inputs given by name (",
                            names.empty() ? "none" : names, ")"));
        }
        Tensor t = given->tensor;
        if (t.type() != ports[i].type && shapes_compatible(ports[i].shape, PartialShape(t.shape())))
            t = convert_element_type(t, ports[i].type);
        request.set_input(i, t);
    }
    request.infer();
    std::vector<NodeOutput> outputs = request.node_outputs();
    for (NodeOutput& o : outputs) o.value = o.value.clone();
    return outputs;
}

TensorDifference tensor_difference(const Tensor& a, const Tensor& b) {
    IRLITE_CHECK(a.num_elements() == b.num_elements(), ErrorKind::Usage, "compare-size",
                 "tensors of ", a.num_elements(), " and ", b.num_elements(), " elements cannot be compared");
    const std::vector<double> x = as_doubles(a), y = as_doubles(b);
    TensorDifference d;
    double dot = 0, xx = 0, yy = 0, max_a = 0;
    for (size_t i = 0; i < x.size(); ++i) {
        const int cx = nonfinite_class(x[i]), cy = nonfinite_class(y[i]);
        if (cx != cy) d.nonfinite_differs = true;
        if (cx == 0) max_a = std::max(max_a, std::fabs(x[i]));
        if (cx != 0 || cy != 0) continue;
        dot += x[i] * y[i];
        xx += x[i] * x[i];
        yy += y[i] * y[i];
        d.max_abs = std::max(d.max_abs, std::fabs(x[i] - y[i]));
    }
    if (xx == 0 && yy == 0) d.cosine = 1;
    else if (xx == 0 || yy == 0) d.cosine = 0;
    else if (d.max_abs == 0) d.cosine = 1;  // equal values: exactly 1, not 1 - 1 ulp
    else {
        const double norms = std::isfinite(xx * yy) ? std::sqrt(xx * yy) : std::sqrt(xx) * std::sqrt(yy);
        d.cosine = std::min(1.0, std::max(-1.0, dot / norms));
    }
    if (max_a > 0) d.max_rel = d.max_abs / max_a;
    else d.max_rel = d.max_abs > 0 ? std::numeric_limits<double>::infinity() : 0;
    return d;
}

std::string output_label(const NodeOutput& output) {
    return output.num_ports > 1 ? str(output.name, ".", output.port) : output.name;
}

Comparison compare_outputs(const std::vector<NodeOutput>& a, const std::vector<NodeOutput>& b, double threshold,
                           double atol) {
    Comparison c;
    c.threshold = threshold;
    c.atol = atol;
    std::map<std::string, std::vector<size_t>> b_by_tensor;
    std::map<std::pair<std::string, int>, std::vector<size_t>> b_by_layer;
    for (size_t j = 0; j < b.size(); ++j) {
        for (const std::string& n : b[j].tensor_names) b_by_tensor[n].push_back(j);
        b_by_layer[{b[j].layer, b[j].port}].push_back(j);
    }
    std::vector<char> taken(b.size(), 0);
    const auto free_match = [&](const std::vector<size_t>& candidates, const NodeOutput& x) -> int {
        for (size_t j : candidates)
            if (!taken[j] && b[j].value.num_elements() == x.value.num_elements()) return static_cast<int>(j);
        return -1;
    };
    std::vector<char> matched_a(a.size(), 0);
    for (size_t i = 0; i < a.size(); ++i) {
        const NodeOutput& x = a[i];
        int j = -1;
        for (const std::string& n : x.tensor_names) {
            auto it = b_by_tensor.find(n);
            if (j < 0 && it != b_by_tensor.end()) j = free_match(it->second, x);
        }
        if (j < 0) {
            auto it = b_by_layer.find({x.layer, x.port});
            if (it != b_by_layer.end()) j = free_match(it->second, x);
        }
        if (j < 0) continue;
        taken[static_cast<size_t>(j)] = 1;
        matched_a[i] = 1;
        MatchedTensor m;
        m.name = x.tensor_names.empty() ? output_label(x) : x.tensor_names.front();
        m.layer_a = x.name;
        m.layer_b = b[static_cast<size_t>(j)].name;
        m.type_a = x.type;
        m.port = x.port;
        m.difference = tensor_difference(x.value, b[static_cast<size_t>(j)].value);
        m.diverges = (m.difference.cosine < threshold && m.difference.max_abs > atol) || m.difference.nonfinite_differs;
        if (m.diverges && c.first_divergent < 0) c.first_divergent = static_cast<int>(c.tensors.size());
        c.tensors.push_back(std::move(m));
    }
    for (size_t i = 0; i < a.size(); ++i)
        if (!matched_a[i]) c.unmatched_a.push_back(output_label(a[i]));
    for (size_t j = 0; j < b.size(); ++j)
        if (!taken[j]) c.unmatched_b.push_back(output_label(b[j]));
    return c;
}

Comparison compare_models(const CompareSide& a, const CompareSide& b,
                          const std::function<std::vector<NamedInput>(const CompiledModel&)>& make_inputs,
                          double threshold, std::vector<NamedInput>* used, double atol) {
    std::vector<NamedInput> inputs;
    std::vector<NodeOutput> values_a, values_b;
    {
        IsaCapScope cap(a.isa);
        CompileOptions options = a.options;
        options.keep_intermediates = true;
        const CompiledModel compiled(*a.model, options);
        inputs = make_inputs(compiled);
        values_a = run_keeping_outputs(compiled, inputs);
    }
    {
        IsaCapScope cap(b.isa);
        CompileOptions options = b.options;
        options.keep_intermediates = true;
        const CompiledModel compiled(*b.model, options);
        values_b = run_keeping_outputs(compiled, inputs);
    }
    if (used) *used = std::move(inputs);
    return compare_outputs(values_a, values_b, threshold, atol);
}

CompareSide side_run_another_way(const CompareSide& a, const std::string& what) {
    CompareSide b = a;
    const size_t eq = what.find('=');
    const std::string key = what.substr(0, eq), value = eq == std::string::npos ? "" : what.substr(eq + 1);
    if (what == "no-fusion") {
        b.options.fusion = false;
        return b;
    }
    if (what == "no-int8") {
        b.options.int8 = false;
        return b;
    }
    if (key == "threads" && !value.empty() && value.size() <= 4 &&
        value.find_first_not_of("0123456789") == std::string::npos && std::stoi(value) >= 1) {
        b.options.threads = std::stoi(value);
        return b;
    }
    if (key == "isa" && (value == "sse" || value == "avx2" || value == "avx512")) {
        b.isa = value;
        return b;
    }
    throw Error(ErrorKind::Usage, "vs-invalid",
                str("--vs expects no-fusion, no-int8, threads=N (N >= 1) or isa=sse|avx2|avx512, got '", what, "'"));
}

}  // namespace irlite
