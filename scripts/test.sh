#!/usr/bin/env bash
# Installs what is missing, builds irlite with its tests, and runs the whole suite (what CI runs):
#   1. Release build (build/): the unit tests and the shared conformance corpora through ctest
#      (the corpora are skipped with a message when ../shared is not beside the clone);
#   2. sanitizer build (build-san/, clang, AddressSanitizer + UndefinedBehaviorSanitizer): the same
#      suite, then each libFuzzer harness for IRLITE_FUZZ_SECONDS (default 60) seconds;
#   3. ThreadSanitizer build (build-tsan/): one model shared by threads, each running inferences.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
jobs=$(nproc 2>/dev/null || echo 2)

echo "== 1/3 release build and tests"
cmake --preset release >/dev/null
cmake --build build -j "$jobs"
ctest --test-dir build --output-on-failure -j "$jobs"

echo "== 2/3 AddressSanitizer + UndefinedBehaviorSanitizer build, tests and fuzzing"
cmake --preset sanitize >/dev/null
cmake --build build-san -j "$jobs"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-san --output-on-failure -j "$jobs"
bash scripts/fuzz.sh "${IRLITE_FUZZ_SECONDS:-60}"

echo "== 3/3 ThreadSanitizer"
bash scripts/tsan.sh
