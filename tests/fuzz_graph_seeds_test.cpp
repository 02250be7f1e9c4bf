// The differential graph fuzzer (tests/fuzz/graph_fuzzer.hpp) driven by fixed seeds instead of
// libFuzzer's bytes, so that the ordinary build runs its generator and its reference too: every
// seed's graph must agree with the reference, and the seeds must include TensorIterator, Loop and
// If layers (and an If nested in a body) that ran: a generator that stopped writing bodies would
// otherwise go unnoticed.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz/choices.hpp"
#include "fuzz/graph_fuzzer.hpp"

namespace irlite {
namespace {

// Seeds 0..499; FUZZ_GRAPH_SEEDS=<n> runs 0..n-1 instead (a longer search without libFuzzer).
uint64_t seed_count() {
    const char* n = std::getenv("FUZZ_GRAPH_SEEDS");
    return n ? std::strtoull(n, nullptr, 10) : 500;
}

// One seed's report ("" when it agrees): FUZZ_GRAPH_SEED=<n> runs that seed alone and prints its
// model (--gtest_filter=FuzzGraphSeeds.One), to look at a failing seed.
TEST(FuzzGraphSeeds, One) {
    const char* seed = std::getenv("FUZZ_GRAPH_SEED");
    if (!seed) GTEST_SKIP() << "set FUZZ_GRAPH_SEED";
    fuzz::SeededChoices choices(std::strtoull(seed, nullptr, 10));
    fuzz::GraphFuzzer fuzzer(choices);
    fuzzer.build();
    std::printf("%s\n", fuzzer.model_xml().c_str());
    EXPECT_EQ(fuzzer.run_and_compare(), "");
}

TEST(FuzzGraphSeeds, EverySeedAgreesWithTheReference) {
    int tensor_iterators = 0, loops = 0, ifs = 0, nested = 0, failures = 0;
    const uint64_t seeds = seed_count();
    for (uint64_t seed = 0; seed < seeds; ++seed) {
        fuzz::SeededChoices choices(seed);
        fuzz::GraphFuzzer fuzzer(choices);
        fuzzer.build();
        const std::string report = fuzzer.run_and_compare();
        if (!report.empty() && ++failures <= 3) ADD_FAILURE() << "seed " << seed << ": " << report;
        // Bodies count when the whole graph ran and was compared (not rejected at a later op).
        if (fuzzer.expects_error()) continue;
        tensor_iterators += fuzzer.bodies().tensor_iterator;
        loops += fuzzer.bodies().loop;
        ifs += fuzzer.bodies().if_;
        nested += fuzzer.bodies().nested_if;
    }
    std::printf("%d seeds failed; compared: %d TensorIterator, %d Loop, %d If, %d nested If\n", failures, tensor_iterators,
                loops, ifs, nested);
    EXPECT_EQ(failures, 0);
    EXPECT_GE(tensor_iterators, 5);
    EXPECT_GE(loops, 5);
    EXPECT_GE(ifs, 5);
    EXPECT_GE(nested, 1);
}

}  // namespace
}  // namespace irlite
