#!/usr/bin/env bash
# Builds the libFuzzer harnesses (tests/fuzz/) with clang in build-san/ and runs each one for
# SECONDS (default 60), one after the other, on one core:
#   fuzz_ir     IR XML + .bin through read, build, check and one inference
#   fuzz_npy    .npy bytes through the reader
#   fuzz_graph  differential: random small graphs (sub-graph layers too) vs tests/fuzz/reference_*.hpp
#   fuzz_int8   differential: FakeQuantize -> Convolution chains, int8 path vs float path
# Corpora live in build-san/corpus/<harness>/ (kept between runs), seeded from
# ../shared/conformance (when present), models/ and the regression inputs in tests/data/fuzz/<harness>/. A crash, sanitizer report,
# leak, timeout or out-of-memory input is written to fuzz-artifacts/ and makes the script exit 1;
# replay one with: build-san/tests/fuzz/<harness> fuzz-artifacts/<file>
#
# Usage: scripts/fuzz.sh [SECONDS] [HARNESS...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(fuzz_ir fuzz_npy fuzz_graph fuzz_int8)

bash scripts/install-deps.sh
# The `sanitize` preset (build-san/) is also the one scripts/test.sh runs the suite in: its library
# is instrumented for coverage, so the same build serves the tests and the harnesses.
cmake --preset sanitize >/dev/null
cmake --build build-san --target "${harnesses[@]}" -j "$(nproc 2>/dev/null || echo 2)"

# ---- seed corpora ----------------------------------------------------------------------------
corpus=build-san/corpus
mkdir -p "$corpus/fuzz_ir" "$corpus/fuzz_npy" "$corpus/fuzz_graph" "$corpus/fuzz_int8" fuzz-artifacts
seed_dirs=(models)
if [ -d ../shared/conformance ]; then
  seed_dirs+=(../shared/conformance)
else
  echo "note: ../shared/conformance not found; seeding from models/ and tests/data/fuzz/ only"
fi
# fuzz_ir takes model.xml, then a NUL byte and model.bin when there is one. Seeds are named after
# their source path, so re-running adds nothing twice.
python3 - "$corpus" "${seed_dirs[@]}" <<'PY'
import hashlib, os, sys
corpus, dirs = sys.argv[1], sys.argv[2:]
counts = {"fuzz_ir": 0, "fuzz_npy": 0}
for top in dirs:
    for root, _, files in os.walk(top):
        for f in files:
            path = os.path.join(root, f)
            if f.endswith(".xml") and os.path.getsize(path) < 256 * 1024:
                harness, data = "fuzz_ir", open(path, "rb").read()
                bin_path = path[:-4] + ".bin"
                if os.path.isfile(bin_path) and os.path.getsize(bin_path) < 256 * 1024:
                    data += b"\0" + open(bin_path, "rb").read()
            elif f.endswith(".npy") and os.path.getsize(path) < 64 * 1024:
                harness, data = "fuzz_npy", open(path, "rb").read()
            else:
                continue
            out = os.path.join(corpus, harness, "seed-" + hashlib.md5(path.encode()).hexdigest()[:16])
            if not os.path.exists(out):
                with open(out, "wb") as o:
                    o.write(data)
            counts[harness] += 1
print(f"seeds: {counts['fuzz_ir']} IR models, {counts['fuzz_npy']} .npy files")
PY
# Inputs that once crashed a harness (tests/data/fuzz/<harness>/, also replayed by the unit tests).
for h in fuzz_ir fuzz_npy fuzz_graph fuzz_int8; do
  [ -d "tests/data/fuzz/$h" ] && cp -n tests/data/fuzz/$h/* "$corpus/$h/" 2>/dev/null || true
done

# ---- run ---------------------------------------------------------------------------------------
failed=()
for h in "${harnesses[@]}"; do
  extra=()
  [ "$h" = fuzz_ir ] && extra=(-max_len=65536)
  [ "$h" = fuzz_graph ] && extra=(-max_len=4096)
  [ "$h" = fuzz_int8 ] && extra=(-max_len=256)
  [ -f "tests/fuzz/$h.dict" ] && extra+=(-dict="tests/fuzz/$h.dict")
  echo "== $h: ${seconds}s"
  before=$(ls fuzz-artifacts | wc -l)
  if ! ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0 UBSAN_OPTIONS=print_stacktrace=1 \
      "build-san/tests/fuzz/$h" "$corpus/$h" -max_total_time="$seconds" -rss_limit_mb=4096 -timeout=10 \
      -print_final_stats=1 "${extra[@]}" -artifact_prefix="fuzz-artifacts/$h-" \
      >"build-san/$h.log" 2>&1; then
    failed+=("$h")
  fi
  after=$(ls fuzz-artifacts | wc -l)
  grep -E "^(stat::number_of_executed_units|stat::new_units_added|Done )" "build-san/$h.log" || true
  if [ "$after" -gt "$before" ] || [[ " ${failed[*]} " == *" $h "* ]]; then
    echo "!! $h found a problem; log: build-san/$h.log"
    grep -E "ERROR|SUMMARY|mismatch|Test unit written" "build-san/$h.log" | head -20 || true
    [[ " ${failed[*]} " == *" $h "* ]] || failed+=("$h")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzzing failed: ${failed[*]}; inputs saved in $(pwd)/fuzz-artifacts/"
  ls -la fuzz-artifacts/
  # A CI log is often all that is left of a run: print the (small) inputs, to be decoded with
  # `base64 -d > file` and replayed.
  for f in fuzz-artifacts/*; do
    [ "$(stat -c %s "$f")" -le 65536 ] || continue
    echo "---- base64 of $f"
    base64 -w 100 "$f"
  done
  exit 1
fi
echo "fuzzing: no findings (${harnesses[*]}, ${seconds}s each)"
