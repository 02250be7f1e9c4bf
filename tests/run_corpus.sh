#!/usr/bin/env bash
# Runs ../shared/conformance/check.py over corpus or case directories (relative to the shared
# directory) with the given irlite binary. Exits 77 (ctest: skipped) with a message when the shared
# corpora or numpy are not there, so that a clone without ../shared still passes its own tests.
#   run_corpus.sh IRLITE SHARED_DIR PATH...   (a PATH may be a glob)
set -u
irlite=$1 shared=$2
shift 2
if [ ! -f "$shared/conformance/check.py" ]; then
  echo "SKIPPED: $shared/conformance/check.py not found; the shared corpora are not beside this clone"
  exit 77
fi
py=/usr/bin/python3
[ -x "$py" ] || py=python3
if ! "$py" -c 'import numpy' 2>/dev/null; then
  echo "SKIPPED: numpy is missing (apt-get install -y python3-numpy)"
  exit 77
fi
# A PATH may be a glob (ops-next/fakequantize1_*: the cases of the ops irlite runs so far).
shopt -s nullglob
paths=()
for p in "$@"; do
  matches=("$shared"/$p)
  if [ ${#matches[@]} -eq 0 ] || [ ! -e "${matches[0]}" ]; then
    echo "SKIPPED: $shared/$p not found"
    exit 77
  fi
  paths+=("${matches[@]}")
done
exec "$py" "$shared/conformance/check.py" --jobs 2 --engine "$irlite run {model} {inputs} -o {outdir} -q" "${paths[@]}"
