// libFuzzer harness: the differential graph fuzzer (graph_fuzzer.hpp) on libFuzzer's bytes. A
// mismatch prints the report (the model, its inputs and constants) and traps; anything but
// irlite::Error escaping is a crash too.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdio>

#include "fuzz/graph_fuzzer.hpp"

namespace {

// FuzzedDataProvider's ConsumeIntegralInRange over [0, range]: the bytes decode as they did before
// the generator took its choices through irlite::fuzz::Choices.
class ProviderChoices final : public irlite::fuzz::Choices {
public:
    explicit ProviderChoices(FuzzedDataProvider& fdp) : fdp_(fdp) {}

protected:
    uint64_t up_to(uint64_t range) override { return fdp_.ConsumeIntegralInRange<uint64_t>(0, range); }

private:
    FuzzedDataProvider& fdp_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    FuzzedDataProvider fdp(data, size);
    ProviderChoices choices(fdp);
    irlite::fuzz::GraphFuzzer fuzzer(choices);
    fuzzer.build();
    const std::string report = fuzzer.run_and_compare();
    if (report.empty()) return 0;
    std::fputs(report.c_str(), stderr);
    __builtin_trap();
}
