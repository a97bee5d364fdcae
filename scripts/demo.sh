#!/usr/bin/env bash
# Build the compiler, the runtime and the main demo (not the tests, benchmarks or other
# examples: scripts/test.sh builds those), then run it: 3-D heat diffusion with the generated
# heat3d kernel.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)" --target heat_demo
build/examples/heat/heat_demo "$@"
