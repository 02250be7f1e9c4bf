#!/usr/bin/env bash
# Installs the Debian 12 packages irlite needs to build and test, when any is missing.
# Run as root (or with sudo). Prints nothing when everything is already there.
set -euo pipefail
# clang and libclang-rt-14-dev: the sanitizer, fuzzing and ThreadSanitizer builds of the test suite.
packages=(cmake ninja-build g++ pkg-config libpugixml-dev libeigen3-dev libspdlog-dev libgtest-dev
          libbenchmark-dev python3 python3-numpy graphviz clang libclang-rt-14-dev
          python3-dev python3-pybind11 python3-pytest python3-dask python3-distributed
          nlohmann-json3-dev libcli11-dev python3-matplotlib)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
