// libFuzzer harness: arbitrary bytes as a .npy file (tests/fuzz/targets.hpp, run_npy_input).
//
// parse_npy must either throw irlite::Error or return a tensor; anything else (a sanitizer
// report, another exception) is a finding. What it accepts must survive encode_npy -> parse_npy
// unchanged, and its encoding must be stable.
#include <cstdio>

#include "targets.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    irlite::set_max_tensor_bytes(irlite::fuzz::kFuzzTensorLimit);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string failure = irlite::fuzz::run_npy_input(data, size);
    if (!failure.empty()) {
        std::fprintf(stderr, "fuzz_npy: %s\n", failure.c_str());
        __builtin_trap();
    }
    return 0;
}
