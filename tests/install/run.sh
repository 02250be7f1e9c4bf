#!/usr/bin/env bash
# Installs the irlite build tree BUILD_DIR into a scratch prefix, builds examples/ against it with
# find_package(irlite), and runs the C++ and Python examples on the demo model.
#   run.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 source=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cmake --install "$build" --prefix "$scratch/prefix" >/dev/null
cmake -S "$source/examples" -B "$scratch/consumer" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
cmake --build "$scratch/consumer" >/dev/null
out=$("$scratch/consumer/run_model" "$source/models/demo/model.xml")
echo "$out"
[ "$out" = "$(printf 'head [1,3]\nreversed [3,3]\npatched [3,3]\nscaled [4,6]')" ]
# The Python package, when built: installed as Debian lays it out, importable from there alone.
if [ -d "$build/python/irlite" ]; then
  site="$scratch/prefix/lib/python3/dist-packages"
  [ -f "$site/irlite/__init__.py" ] && ls "$site"/irlite/_irlite*.so >/dev/null
  py=$(PYTHONPATH="$site" /usr/bin/python3 "$source/examples/run_model.py" "$source/models/demo/model.xml")
  echo "$py"
  [ "$py" = "$out" ]
fi
