// A one-node op runner for unit tests (tflite-micro's KernelRunner), and tensor helpers.
//
//   OpTester slice("Slice", 8);
//   auto out = slice.run({data, start, stop, step});             // rule + kernel, like the executor
//   auto out = slice.run({data, start, stop, step}, {1, 2, 3});   // also: rule at load time with
//                                                                 // inputs 1..3 unknown first
//   auto infos = slice.infer({known(data), unknown(start), ...}); // the shape rule alone
//   EXPECT_TRUE(throws_error([&] { slice.run(...); }, ErrorKind::Value, "step-zero", "must not be 0"));
//
// run() looks the OpDef up in builtin_ops() by type and opset, parses the attributes with
// AttrReader, runs the shape rule with every input known, allocates the outputs poisoned with 0xA5
// bytes (so elements a kernel forgets to write show up), prepares the plan and scratch memory,
// runs the kernel as the executor does, fails the test when the kernel allocated on the heap, and
// returns the outputs. An op with data_dependent_outputs runs twice with buffers kept between the
// runs (KernelContext::dynamic_output), the second time on poisoned buffers: that run must
// allocate nothing and give the same outputs.
// With `unknown_at_load`, it first runs the rule with those inputs' values hidden, as the graph
// builder does for non-Const inputs, and checks that the load-time result is compatible with
// the run-time one (same types, compatible shapes, same output count).
// Header-only: tests/CMakeLists.txt compiles *_test.cpp files only.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "alloc_counter.hpp"
#include "engine/op.hpp"
#include "kernels/all_ops.hpp"

namespace irlite::testing {

// ---- tensors ---------------------------------------------------------------------------------

// A tensor of storage type T (float, int64_t, uint8_t, bool, ...) with the given values.
template <class T>
Tensor make_tensor(Shape shape, const std::vector<T>& values) {
    Tensor t(element_type_of<T>(), std::move(shape));
    EXPECT_EQ(static_cast<size_t>(t.num_elements()), values.size()) << "make_tensor: value count != shape size";
    for (size_t i = 0; i < values.size() && i < static_cast<size_t>(t.num_elements()); ++i) t.data<T>()[i] = values[i];
    return t;
}

// A tensor of any element type from doubles (f16/bf16 rounded to nearest even; integers and
// boolean by C++ conversion). For values a double cannot hold exactly, use the typed overload.
inline Tensor make_tensor(ElementType type, Shape shape, const std::vector<double>& values) {
    Tensor t(type, std::move(shape));
    EXPECT_EQ(static_cast<size_t>(t.num_elements()), values.size()) << "make_tensor: value count != shape size";
    const size_t n = std::min(values.size(), static_cast<size_t>(t.num_elements()));
    dispatch_type(type, [&](auto tag) {
        using T = decltype(tag);
        T* p = t.data<T>();
        for (size_t i = 0; i < n; ++i) {
            if constexpr (std::is_same_v<T, float16>)
                p[i] = float16{f32_to_f16(static_cast<float>(values[i]))};
            else if constexpr (std::is_same_v<T, bfloat16>)
                p[i] = bfloat16{f32_to_bf16(static_cast<float>(values[i]))};
            else if constexpr (std::is_same_v<T, bool>)
                p[i] = values[i] != 0;
            else
                p[i] = static_cast<T>(values[i]);
        }
    });
    return t;
}

// A rank-0 tensor.
template <class T>
Tensor scalar(T value) {
    return make_tensor<T>({}, {value});
}

// An i64 or i32 1-D tensor, the usual index input.
inline Tensor i64s(const std::vector<int64_t>& v) { return make_tensor<int64_t>({static_cast<int64_t>(v.size())}, v); }
inline Tensor i32s(const std::vector<int32_t>& v) { return make_tensor<int32_t>({static_cast<int64_t>(v.size())}, v); }

// 0, 1, 2, ... (modulo `modulo`; boolean: i % 2) in any element type.
inline Tensor iota(ElementType type, const Shape& shape, int64_t modulo = 100) {
    std::vector<double> v(static_cast<size_t>(checked_num_elements(shape)));
    for (size_t i = 0; i < v.size(); ++i)
        v[i] = static_cast<double>(static_cast<int64_t>(i) % (type == ElementType::boolean ? 2 : modulo));
    return make_tensor(type, shape, v);
}

// Every element as a double (16-bit floats widened).
inline std::vector<double> to_doubles(const Tensor& t) {
    std::vector<double> v(static_cast<size_t>(t.num_elements()));
    for (size_t i = 0; i < v.size(); ++i) v[i] = t.value_as_double(static_cast<int64_t>(i));
    return v;
}

template <class T>
std::vector<T> values_of(const Tensor& t) {
    return std::vector<T>(t.data<T>(), t.data<T>() + t.num_elements());
}

// Same type, same shape, same bytes.
inline ::testing::AssertionResult tensors_equal(const Tensor& got, const Tensor& want) {
    if (got.type() != want.type())
        return ::testing::AssertionFailure() << "type " << to_string(got.type()) << ", want " << to_string(want.type());
    if (got.shape() != want.shape())
        return ::testing::AssertionFailure()
               << "shape " << to_string(got.shape()) << ", want " << to_string(want.shape());
    for (int64_t i = 0; i < got.num_elements(); ++i) {
        const size_t w = element_size(got.type());
        if (std::memcmp(got.bytes() + i * w, want.bytes() + i * w, w) != 0)
            return ::testing::AssertionFailure()
                   << "element " << i << " is " << got.value_as_double(i) << ", want " << want.value_as_double(i);
    }
    return ::testing::AssertionSuccess();
}

// f() throws irlite::Error of `kind` and `code` whose what() contains `substring` (and, when
// port >= 0, located at that port).
template <class F>
::testing::AssertionResult throws_error(F&& f, ErrorKind kind, const std::string& code, const std::string& substring,
                                        int port = -1) {
    try {
        f();
    } catch (const Error& e) {
        auto fail = [&] {
            return ::testing::AssertionFailure() << "threw " << to_string(e.kind()) << " [" << e.code() << "] at port "
                                                 << e.location().port << ": " << e.what();
        };
        if (e.kind() != kind) return fail() << " (want kind " << to_string(kind) << ")";
        if (e.code() != code) return fail() << " (want code " << code << ")";
        if (std::string(e.what()).find(substring) == std::string::npos)
            return fail() << " (want \"" << substring << "\")";
        if (port >= 0 && e.location().port != port) return fail() << " (want port " << port << ")";
        return ::testing::AssertionSuccess();
    }
    return ::testing::AssertionFailure() << "did not throw (want " << to_string(kind) << " [" << code << "])";
}

// ---- shape-rule inputs -----------------------------------------------------------------------

struct RuleInput {
    ElementType type;
    PartialShape shape;
    std::optional<Tensor> value;  // empty: unknown at this time
};
inline RuleInput known(const Tensor& t) { return {t.type(), PartialShape(t.shape()), t}; }
inline RuleInput unknown(const Tensor& t) { return {t.type(), PartialShape(t.shape()), std::nullopt}; }
inline RuleInput unknown(ElementType type, PartialShape shape) { return {type, std::move(shape), std::nullopt}; }

// ---- the runner ------------------------------------------------------------------------------

class OpTester {
public:
    OpTester(std::string type, int opset, std::vector<IrAttribute> attributes = {}) {
        layer_.type = strings_.keep(type);
        layer_.version = strings_.keep("opset" + std::to_string(opset));
        layer_.name = strings_.keep("test_" + type);
        layer_.id = 1;
        layer_.attributes = std::move(attributes);
        def_ = builtin_ops().find(layer_.type, opset);
        EXPECT_NE(def_, nullptr) << layer_.type << " is not registered for opset " << opset;
    }

    const OpDef& def() const { return *def_; }

    // The parsed attributes (throws the parser's Error).
    std::unique_ptr<OpAttrs> attrs() const {
        if (!def_->parse_attrs) return std::make_unique<NoAttrs>();
        return def_->parse_attrs(AttrReader(layer_, nullptr));
    }

    // The shape rule alone. declared_outputs < 0: the op's fixed output count (0 when variable).
    std::vector<OutputInfo> infer(const std::vector<RuleInput>& inputs, int declared_outputs = -1) const {
        const std::unique_ptr<OpAttrs> a = attrs();
        return infer_with(*a, inputs, declared_outputs);
    }

    // Rule (optionally first at load time with `unknown_at_load` inputs hidden) + kernel.
    std::vector<Tensor> run(const std::vector<Tensor>& inputs, const std::vector<size_t>& unknown_at_load = {}) const {
        const std::unique_ptr<OpAttrs> a = attrs();
        std::vector<RuleInput> all_known;
        for (const Tensor& t : inputs) all_known.push_back(known(t));
        const std::vector<OutputInfo> infos = infer_with(*a, all_known, -1);
        if (!unknown_at_load.empty()) check_load_time(*a, inputs, unknown_at_load, infos);
        return compute_with(*a, inputs, infos);
    }

    // The kernel with the outputs the rule infers while the values of the `hidden` inputs are not
    // known, as the executor runs a static graph whose indices come from Parameters: the rule sees
    // no index values, so this reaches the kernel's own checks.
    std::vector<Tensor> run_kernel(const std::vector<Tensor>& inputs, const std::vector<size_t>& hidden) const {
        const std::unique_ptr<OpAttrs> a = attrs();
        std::vector<RuleInput> partial;
        for (size_t i = 0; i < inputs.size(); ++i) {
            const bool hide = std::find(hidden.begin(), hidden.end(), i) != hidden.end();
            partial.push_back(hide ? unknown(inputs[i]) : known(inputs[i]));
        }
        return compute_with(*a, inputs, infer_with(*a, partial, -1));
    }

    // run() for single-output ops.
    Tensor run1(const std::vector<Tensor>& inputs, const std::vector<size_t>& unknown_at_load = {}) const {
        std::vector<Tensor> out = run(inputs, unknown_at_load);
        EXPECT_EQ(out.size(), 1u);
        return out.empty() ? Tensor() : out[0];
    }

    // The op's prepared plan for these inputs (every value known).
    std::unique_ptr<OpPlan> plan(const std::vector<Tensor>& inputs) const {
        const std::unique_ptr<OpAttrs> a = attrs();
        return prepare_with(*a, inputs);
    }

private:
    std::unique_ptr<OpPlan> prepare_with(const OpAttrs& a, const std::vector<Tensor>& inputs, int outputs = -1) const {
        std::vector<InferContext::Input> in;
        for (const Tensor& t : inputs) in.push_back({t.type(), PartialShape(t.shape()), &t});
        const InferContext ctx(*def_, a, std::move(in), outputs >= 0 ? outputs : std::max(def_->num_outputs, 0));
        return def_->prepare ? def_->prepare(ctx) : nullptr;
    }

    std::vector<Tensor> compute_with(const OpAttrs& a, const std::vector<Tensor>& inputs,
                                     const std::vector<OutputInfo>& infos) const {
        std::vector<Tensor> outputs(infos.size());
        if (!def_->allocates_outputs) {
            for (size_t i = 0; i < infos.size(); ++i) {
                EXPECT_TRUE(infos[i].shape.is_static()) << "output " << i << " shape " << to_string(infos[i].shape)
                                                        << " is not static with every input known";
                outputs[i] = Tensor(infos[i].type, infos[i].shape.to_shape());
                std::memset(outputs[i].data(), 0xA5, outputs[i].byte_size());
            }
        }
        // As the executor runs it: the plan prepared beforehand, scratch memory given, and the
        // heap allocations of compute itself counted (the op contract: compute allocates nothing,
        // except an op that sizes its outputs from the data, which allocates them).
        std::unique_ptr<OpPlan> plan;
        if (def_->prepare) plan = prepare_with(a, inputs, static_cast<int>(outputs.size()));
        const size_t scratch_bytes = plan ? (plan->scratch_bytes + 63) / 64 * 64 : 0;
        std::unique_ptr<std::byte, void (*)(void*)> scratch(
            scratch_bytes ? static_cast<std::byte*>(std::aligned_alloc(64, scratch_bytes)) : nullptr, std::free);
        std::vector<const Tensor*> input_ptrs;
        for (const Tensor& t : inputs) input_ptrs.push_back(&t);
        // An op that sizes its outputs from the data makes them in buffers kept from run to run, as
        // an infer request keeps them: the first run grows them, and a second one with the same
        // inputs (its buffers poisoned) must allocate nothing and give the same outputs.
        std::vector<DynamicOutputBuffer> buffers(def_->data_dependent_outputs ? outputs.size() : 0);
        std::unique_ptr<OpState> state;  // what the kernel keeps between runs, as a request keeps it
        const auto run_kernel_counted = [&] {
            KernelContext ctx(*def_, a, input_ptrs.data(), input_ptrs.size(), outputs.data(), outputs.size(), plan.get(),
                              scratch.get(), scratch_bytes, nullptr);
            ctx.set_state(&state);
            if (!buffers.empty()) ctx.set_dynamic_buffers(buffers.data());
            AllocationCounter counter;
            def_->compute(ctx);
            const int64_t allocations = counter.stop();
            for (size_t i = 0; i < buffers.size(); ++i)
                EXPECT_TRUE((ctx.dynamic_outputs_made() >> i) & 1u) << "output " << i << " not made with dynamic_output";
            return allocations;
        };
        int64_t allocations = run_kernel_counted();
        if (def_->data_dependent_outputs) {
            std::vector<Tensor> first;
            for (const Tensor& t : outputs) first.push_back(t.valid() ? t.clone() : Tensor());
            for (DynamicOutputBuffer& b : buffers)
                if (b.capacity()) std::memset(b.memory.data(), 0xA5, b.capacity());
            allocations = run_kernel_counted();
            for (size_t i = 0; i < outputs.size(); ++i)
                EXPECT_TRUE(tensors_equal(outputs[i], first[i])) << "output " << i << " in the second run";
        }
        if (!def_->allocates_outputs || def_->data_dependent_outputs) {
            EXPECT_EQ(allocations, 0) << layer_.type << "-" << def_->version
                                      << (def_->data_dependent_outputs
                                              ? ": compute allocated on the heap in a second run, its output buffers grown "
                                                "(prepare plans and sizes scratch; dynamic_output reuses the buffers)"
                                              : ": compute allocated on the heap (prepare plans and sizes scratch)");
        }
        for (size_t i = 0; i < outputs.size(); ++i) {
            EXPECT_EQ(outputs[i].type(), infos[i].type) << "output " << i;
            EXPECT_TRUE(shapes_compatible(infos[i].shape, PartialShape(outputs[i].shape()))) << "output " << i;
        }
        return outputs;
    }

    std::vector<OutputInfo> infer_with(const OpAttrs& a, const std::vector<RuleInput>& inputs, int declared) const {
        std::vector<InferContext::Input> in;
        for (const RuleInput& r : inputs) in.push_back({r.type, r.shape, r.value ? &*r.value : nullptr});
        if (declared < 0) declared = std::max(def_->num_outputs, 0);
        InferContext ctx(*def_, a, std::move(in), declared);
        return def_->infer(ctx);
    }

    void check_load_time(const OpAttrs& a, const std::vector<Tensor>& inputs, const std::vector<size_t>& hidden,
                         const std::vector<OutputInfo>& at_run_time) const {
        std::vector<RuleInput> partial;
        for (size_t i = 0; i < inputs.size(); ++i) {
            const bool hide = std::find(hidden.begin(), hidden.end(), i) != hidden.end();
            partial.push_back(hide ? unknown(inputs[i]) : known(inputs[i]));
        }
        const std::vector<OutputInfo> at_load = infer_with(a, partial, static_cast<int>(at_run_time.size()));
        EXPECT_EQ(at_load.size(), at_run_time.size()) << "output count at load time";
        for (size_t i = 0; i < at_load.size() && i < at_run_time.size(); ++i) {
            EXPECT_EQ(at_load[i].type, at_run_time[i].type) << "output " << i << " type at load time";
            EXPECT_TRUE(shapes_compatible(at_load[i].shape, at_run_time[i].shape))
                << "output " << i << ": load-time shape " << to_string(at_load[i].shape)
                << " contradicts the run-time shape " << to_string(at_run_time[i].shape);
        }
    }

    IrDocument strings_;  // keeps the layer's strings (shared by copies of the tester)
    IrLayer layer_;
    const OpDef* def_ = nullptr;
};

}  // namespace irlite::testing
