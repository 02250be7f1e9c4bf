#!/usr/bin/env bash
# Builds irlite with ThreadSanitizer (clang, build-tsan/, the `tsan` preset) and runs the
# threading tests: one CompiledModel shared by several threads, each with its own InferRequest,
# and the thread pool's own tests (regions, nesting, concurrent callers, exceptions).
# Any data race report fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset tsan >/dev/null
cmake --build build-tsan --target irlite_threads_test -j "$(nproc 2>/dev/null || echo 2)"
# Some kernels randomise mmap addresses more than this TSan runtime expects; setarch -R turns
# address randomisation off for the test process when it is available.
run=()
if command -v setarch >/dev/null && setarch "$(uname -m)" -R true 2>/dev/null; then run=(setarch "$(uname -m)" -R); fi
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" "${run[@]}" build-tsan/tests/irlite_threads_test
