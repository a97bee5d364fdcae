#!/usr/bin/env bash
# Build everything and run the main demo: 3-D heat diffusion with the generated heat3d kernel.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
build/examples/heat/heat_demo "$@"
