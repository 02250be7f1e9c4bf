// Where the graph fuzzer (graph_fuzzer.hpp) takes its random choices from: libFuzzer's bytes in the
// fuzz_graph harness (through FuzzedDataProvider, which needs clang's headers), or a seeded
// generator in the unit test that replays fixed seeds in the ordinary (gcc) build. The method
// names are FuzzedDataProvider's, so that the generator reads the same either way.
//
// The rule for the code that draws: a seed (or a libFuzzer input) names one graph only if every
// compiler draws in the same order, so never put two draws in one expression whose parts C++
// leaves unsequenced. Function and constructor arguments in parentheses (gcc evaluates them right
// to left, clang left to right) and the operands of `+`, `*`, `==` and the like are unsequenced:
// `source(one_element(fdp_.ConsumeBool() ? ...), one_in(6))` decoded differently under the two.
// A draw is any call that reaches this class: its methods, and the generators' helpers (one_in,
// index_in, data_type, random_shape, random_values, source, aux, emit, ...). Draw into named
// locals first, one statement each, then pass the locals. Sequenced, and so fine: `&&`, `||`,
// `?:`, `,` as an operator, separate declarators (`bool a = f(), b = g();`), braced initializers
// (left to right), a call's arguments before its body (`aux(random_values(...))`), and, since
// C++17, the right side of `=` before the left (`v[draw()] = draw()` draws the value first; spell
// it with a local anyway).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <random>
#include <type_traits>

namespace irlite::fuzz {

class Choices {
public:
    virtual ~Choices() = default;

    // A value in [lo, hi]. The offset is drawn in 64 bits, so any integer type and range works.
    template <class T>
    T ConsumeIntegralInRange(T lo, T hi) {
        static_assert(std::is_integral_v<T>, "integers only");
        if (lo > hi) std::abort();
        const uint64_t range = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
        return static_cast<T>(static_cast<uint64_t>(lo) + up_to(range));
    }
    bool ConsumeBool() { return up_to(1) != 0; }
    template <class T, size_t N>
    T PickValueInArray(const T (&values)[N]) {
        return values[ConsumeIntegralInRange<size_t>(0, N - 1)];
    }
    template <class T>
    T PickValueInArray(std::initializer_list<const T> values) {
        return *(values.begin() + ConsumeIntegralInRange<size_t>(0, values.size() - 1));
    }

protected:
    // A value in [0, range].
    virtual uint64_t up_to(uint64_t range) = 0;
};

// Choices from a seed: mt19937_64 is specified exactly, and the mapping to a range is done here
// (std::uniform_int_distribution differs between standard libraries), so a seed names the same
// graph everywhere.
class SeededChoices final : public Choices {
public:
    explicit SeededChoices(uint64_t seed) : engine_(seed) {}

protected:
    uint64_t up_to(uint64_t range) override {
        const uint64_t bits = engine_();
        return range == UINT64_MAX ? bits : bits % (range + 1);
    }

private:
    std::mt19937_64 engine_;
};

}  // namespace irlite::fuzz
