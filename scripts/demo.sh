#!/usr/bin/env bash
# Build the compiler, the runtime and the main demo (not the tests, benchmarks or other
# examples: scripts/test.sh builds those), then run it: 3-D heat diffusion with the generated
# heat3d kernel. The CUDA parts are built only where a GPU is present to run them, which keeps
# the quick start at a couple of minutes on a small machine with nvcc but no GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cuda=OFF
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then cuda=ON; fi
cmake -S . -B build-demo -DCMAKE_BUILD_TYPE=Release -DSTENC_ENABLE_CUDA=$cuda \
  -DSTENC_BUILD_TESTS=OFF -DSTENC_BUILD_BENCH=OFF
cmake --build build-demo -j"$(nproc)" --target heat_demo
build-demo/examples/heat/heat_demo "$@"
