// libFuzzer harness: arbitrary bytes as an IR model (tests/fuzz/targets.hpp, run_ir_input).
//
// Input layout: the model.xml text, then optionally a NUL byte followed by the model.bin bytes
// (no NUL: the model has no weights). scripts/fuzz.sh seeds the corpus that way from
// ../shared/conformance and models/, and tests/fuzz/fuzz_ir.dict holds the IR vocabulary.
//
// Each input goes through what a user can do with a file they did not write:
//   1. read_ir_memory + build_graph in check mode (keep_going: every finding collected, formatted);
//   2. Model::read_from_memory + CompiledModel (run mode: the first error is thrown);
//   3. one inference, with generated inputs for every Parameter whose shape is known and small.
// irlite::Error is the only acceptable failure; any other exception escapes and is reported by
// libFuzzer, and sanitizer reports abort.
#include <cstdio>

#include "targets.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    irlite::set_max_tensor_bytes(irlite::fuzz::kFuzzTensorLimit);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string failure = irlite::fuzz::run_ir_input(data, size);
    if (!failure.empty()) {
        std::fprintf(stderr, "fuzz_ir: %s\n", failure.c_str());
        __builtin_trap();
    }
    return 0;
}
