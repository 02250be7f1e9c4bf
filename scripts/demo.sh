#!/usr/bin/env bash
# Installs what is missing, builds irlite (Release, build/) and runs the demo model in models/demo,
# printing its inputs and outputs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DIRLITE_BUILD_TESTS=OFF >/dev/null
cmake --build build --target irlite_cli
echo
echo "$ build/tools/irlite run models/demo/model.xml -i x=models/demo/inputs/x.npy"
build/tools/irlite run models/demo/model.xml -i x=models/demo/inputs/x.npy
