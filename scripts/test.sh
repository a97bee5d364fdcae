#!/usr/bin/env bash
# Build everything and run every test. --sanitize: a separate CPU-only ASan+UBSan build.
# --parallel-hdf5: a CPU-only build on the MPI build of HDF5 (STENC_HDF5_PARALLEL; installs
# libhdf5-openmpi-dev), running the tests of field I/O and distributed fields.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
args=(-DCMAKE_BUILD_TYPE=Release)
extra=()
targets=()
select=()
case "${1:-}" in
  --sanitize)
    build=build-asan
    args=(-DCMAKE_BUILD_TYPE=Debug -DSTENC_SANITIZE=ON -DSTENC_ENABLE_CUDA=OFF -DSTENC_BUILD_BENCH=OFF) ;;
  --parallel-hdf5)
    build=build-phdf5
    extra=(libhdf5-openmpi-dev)
    args=(-DCMAKE_BUILD_TYPE=Release -DSTENC_HDF5_PARALLEL=ON -DSTENC_ENABLE_CUDA=OFF
          -DSTENC_BUILD_BENCH=OFF -DSTENC_BUILD_EXAMPLES=OFF)
    targets=(--target test_io test_io_hdf5 test_dist)
    select=(-R "^(test_io|test_io_hdf5|test_dist_np[0-9])$") ;;
  "") ;;
  *) echo "usage: scripts/test.sh [--sanitize | --parallel-hdf5]" >&2; exit 2 ;;
esac
scripts/deps.sh "${extra[@]}"
jobs=$(nproc)
cmake -S . -B "$build" "${args[@]}"
cmake --build "$build" -j"$jobs" "${targets[@]}"
ctest --test-dir "$build" --output-on-failure -j"$jobs" "${select[@]}"
