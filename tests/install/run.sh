#!/usr/bin/env bash
# Installs the irlite build tree BUILD_DIR into a scratch prefix and builds examples/ against it
# twice, as applications do: with find_package(irlite) and with pkg-config. Both must link the
# shared library when that is what was built, and run the demo model; so must the Python example,
# importing the installed package with nothing but the Debian layout's directory on its path.
#   run.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 source=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
prefix="$scratch/prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
expected=$(printf 'head [1,3]\nreversed [3,3]\npatched [3,3]\nscaled [4,6]')

# Only the public header tree is installed.
headers=$(cd "$prefix/include" && find . -type f | sort)
echo "installed headers:" $headers
if grep -qv '^\./irlite/' <<<"$headers"; then echo "a header outside include/irlite/"; exit 1; fi

shared=no
if [ -n "$(find "$prefix" -name 'libirlite.so.*' -print -quit)" ]; then shared=yes; fi
links_shared() {  # the executable needs libirlite.so.<major>, resolved in the prefix
  [ "$shared" = no ] && return 0
  # ldd's output is captured first: `ldd | grep -q` under pipefail fails whenever grep's early exit
  # makes ldd die of SIGPIPE.
  local deps
  deps=$(LD_LIBRARY_PATH="$(dirname "$(find "$prefix" -name 'libirlite.so.*' | head -1)")" ldd "$1")
  grep -q 'libirlite\.so\.[0-9]* => .*prefix' <<<"$deps"
}

# 1. CMake: find_package(irlite)
cmake -S "$source/examples" -B "$scratch/consumer" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$scratch/consumer" >/dev/null
out=$("$scratch/consumer/run_model" "$source/models/demo/model.xml")
echo "$out"
[ "$out" = "$expected" ]
links_shared "$scratch/consumer/run_model" || { echo "find_package consumer does not link libirlite.so"; exit 1; }

# 2. pkg-config --cflags --libs irlite
pcdir=$(dirname "$(find "$prefix" -name irlite.pc | head -1)")
flags=$(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs irlite)
echo "pkg-config: $flags"
# shellcheck disable=SC2086
g++ -std=c++17 -O1 "$source/examples/run_model.cpp" -o "$scratch/run_model_pc" $flags
libdir=$(PKG_CONFIG_PATH="$pcdir" pkg-config --variable=libdir irlite)
out_pc=$(LD_LIBRARY_PATH="$libdir" "$scratch/run_model_pc" "$source/models/demo/model.xml")
[ "$out_pc" = "$expected" ]
LD_LIBRARY_PATH="$libdir" links_shared "$scratch/run_model_pc" || { echo "pkg-config consumer does not link libirlite.so"; exit 1; }
echo "pkg-config consumer: same output (shared library: $shared)"

# 3. Python, when built: installed as Debian lays it out, importable from there alone.
if [ -d "$build/python/irlite" ]; then
  site="$prefix/lib/python3/dist-packages"
  [ -f "$site/irlite/__init__.py" ] && ls "$site"/irlite/_irlite*.so >/dev/null
  py=$(PYTHONPATH="$site" /usr/bin/python3 "$source/examples/run_model.py" "$source/models/demo/model.xml")
  echo "$py"
  [ "$py" = "$expected" ]
fi
