// What the fuzz_ir and fuzz_npy harnesses do with one input, shared with the unit tests that replay
// the inputs kept in tests/data/fuzz/ (tests/fuzz_regressions_test.cpp).
//
// Each function returns "" when irlite behaved (it returned, or threw irlite::Error) and a
// description of the problem otherwise. Any other exception propagates; sanitizer builds catch
// memory errors on their own.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "engine/graph.hpp"
#include "irlite/irlite.hpp"
#include "parser/ir_reader.hpp"
#include "parser/npy.hpp"
#include "parser/weights.hpp"
#include "kernels/all_ops.hpp"

namespace irlite::fuzz {

// The harnesses' tensor limit: large enough for real shapes, small enough that no single tensor
// trips libFuzzer's malloc limit; a bigger one must be a clean Error(kind Limit).
inline constexpr size_t kFuzzTensorLimit = size_t{64} << 20;

// ---- fuzz_npy --------------------------------------------------------------------------------
// parse_npy accepts or throws Error; what it accepts survives encode_npy -> parse_npy unchanged.
inline std::string run_npy_input(const uint8_t* data, size_t size) {
    Tensor t;
    try {
        t = parse_npy(data, size, "fuzz.npy");
    } catch (const Error& e) {
        return std::strlen(e.what()) == 0 ? "an error without a message" : "";
    }
    if (t.type() == ElementType::bf16) return "parse_npy produced bf16 (numpy has none)";
    const std::string encoded = encode_npy(t);
    const Tensor back = parse_npy(encoded.data(), encoded.size(), "round-trip.npy");
    if (back.type() != t.type() || back.shape() != t.shape() || back.byte_size() != t.byte_size())
        return "the round trip changed the type or shape";
    if (t.byte_size() && std::memcmp(back.data(), t.data(), t.byte_size()) != 0) return "the round trip changed the data";
    if (encode_npy(back) != encoded) return "encode_npy is not stable";
    return "";
}

// ---- fuzz_ir ---------------------------------------------------------------------------------
// Input layout: model.xml text, then optionally a NUL byte and the model.bin bytes.

inline constexpr int64_t kMaxGeneratedInputElements = 4096;

// Deterministic small values valid for every element type (bool: 0/1), useful as indices too.
inline Tensor make_fuzz_input(const PortInfo& port) {
    Shape shape;
    for (int64_t d : port.shape.dims()) shape.push_back(d < 0 ? 1 : d);
    if (checked_num_elements(shape) > kMaxGeneratedInputElements) return {};
    Tensor t(port.type, shape);
    dispatch_type(port.type, [&](auto tag) {
        using T = decltype(tag);
        T* p = t.data<T>();
        for (int64_t i = 0; i < t.num_elements(); ++i) {
            const int v = static_cast<int>(i % 5) - 1;
            if constexpr (std::is_same_v<T, float16>)
                p[i] = float16{f32_to_f16(static_cast<float>(v))};
            else if constexpr (std::is_same_v<T, bfloat16>)
                p[i] = bfloat16{f32_to_bf16(static_cast<float>(v))};
            else if constexpr (std::is_same_v<T, bool>)
                p[i] = (i % 2) != 0;
            else
                p[i] = static_cast<T>(v < 0 && !std::is_signed_v<T> ? 1 : v);
        }
    });
    return t;
}

// Check mode: every finding collected and formatted.
inline std::string check_ir(std::string_view xml, const std::shared_ptr<WeightsBlob>& weights) {
    auto doc = std::make_shared<const IrDocument>(read_ir_memory(xml, weights));
    BuildOptions options;
    options.keep_going = true;
    const BuildResult result = build_graph(doc, builtin_ops(), options);
    for (const Diagnostic& d : result.diagnostics)
        if (d.format().empty()) return "a diagnostic formats to nothing";
    return "";
}

// Run mode: compile, then one inference with generated inputs when every input shape is known
// and small.
inline std::string run_ir(std::string_view xml, const std::vector<uint8_t>* bin) {
    const Model model = Model::read_from_memory(xml, bin ? bin->data() : nullptr, bin ? bin->size() : 0);
    const CompiledModel compiled(model);
    InferRequest request = compiled.create_infer_request();
    for (size_t i = 0; i < compiled.inputs().size(); ++i) {
        const PortInfo& port = compiled.inputs()[i];
        if (!port.shape.rank_known()) return "";
        const Tensor input = make_fuzz_input(port);
        if (!input.valid()) return "";
        request.set_input(i, input);
    }
    request.infer();
    for (size_t i = 0; i < request.num_outputs(); ++i) {
        const Tensor& out = request.output(i);
        if (!out.valid()) return "output " + std::to_string(i) + " is not set after infer()";
        // Touch every byte: an output viewing freed or foreign memory shows up under ASan.
        volatile uint8_t sink = 0;
        const auto* bytes = static_cast<const uint8_t*>(out.data());
        for (size_t b = 0; b < out.byte_size(); ++b) sink = sink ^ bytes[b];
        (void)sink;
    }
    return "";
}

inline std::string run_ir_input(const uint8_t* data, size_t size) {
    const auto* nul = static_cast<const uint8_t*>(std::memchr(data, 0, size));
    const std::string_view xml(reinterpret_cast<const char*>(data), nul ? static_cast<size_t>(nul - data) : size);
    // The weights get a heap buffer of exactly their size, so that AddressSanitizer sees any read
    // past the end of the .bin.
    std::unique_ptr<std::vector<uint8_t>> bin;
    std::shared_ptr<WeightsBlob> blob;
    if (nul) {
        bin = std::make_unique<std::vector<uint8_t>>(nul + 1, data + size);
        std::vector<std::byte> copy(bin->size());
        if (!copy.empty()) std::memcpy(copy.data(), bin->data(), copy.size());
        blob = weights_from_memory(std::move(copy));
    }
    std::string failure;
    try {
        failure = check_ir(xml, blob);
    } catch (const Error&) {
    }
    if (!failure.empty()) return failure;
    try {
        failure = run_ir(xml, bin.get());
    } catch (const Error&) {
    }
    return failure;
}

}  // namespace irlite::fuzz
