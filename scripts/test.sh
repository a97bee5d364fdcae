#!/usr/bin/env bash
# Build everything and run every test. --sanitize: a separate CPU-only ASan+UBSan build.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
build=build
args=(-DCMAKE_BUILD_TYPE=Release)
if [ "${1:-}" = "--sanitize" ]; then
  build=build-asan
  args=(-DCMAKE_BUILD_TYPE=Debug -DSTENC_SANITIZE=ON -DSTENC_ENABLE_CUDA=OFF -DSTENC_BUILD_BENCH=OFF)
fi
jobs=$(nproc)
cmake -S . -B "$build" "${args[@]}"
cmake --build "$build" -j"$jobs"
ctest --test-dir "$build" --output-on-failure -j"$jobs"
