#!/usr/bin/env bash
# Pack the distributed tests and benchmark for the lent 2-GPU machine (docs/distributed.md):
# builds test_dist and bench_dist (sm_90) in BUILD (default build), copies them with the
# libraries the machine lacks into carry/mpigpu/, and makes carry/mpi.tar.xz (Open MPI, by
# scripts/mpi_carry.sh) if missing. On the machine (device tool: carry carry/mpigpu and
# carry/mpi.tar.xz; kind nvidia-h100-x2, or nvidia-h100-x4 with GPUS=4):
#   carry/mpigpu/run.sh      tests on 1, 2 (and 4) GPUs, bench_dist on 2 (and 4), then
#                            compute-sanitizer on all GPUs (SANITIZE=0 skips it; BENCH_ARGS
#                            passes options to bench_dist; GPUS: the GPUs to use, default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
cmake --build "$build" -j2 --target test_dist bench_dist
[ -f carry/mpi.tar.xz ] || scripts/mpi_carry.sh carry/mpi
out=carry/mpigpu
rm -rf "$out"; mkdir -p "$out/bin" "$out/lib"
cp "$build/tests/dist/test_dist" "$build/bench/dist/bench_dist" "$out/bin/"
strip --strip-debug "$out"/bin/*
# cmocka and gomp: what is neither glibc's, the compiler's, CUDA's nor in the MPI bundle.
for b in "$out"/bin/*; do ldd "$b" | awk '/=> \//{print $3}'; done | sort -u |
  { grep -vE '/(libc|libm|libdl|libpthread|librt|libresolv|ld-linux-x86-64|libstdc\+\+|libgcc_s|libcu[a-z]*|libnv[A-Za-z]*|libz|libudev)\.so|openmpi|libmpi|libopen-|libpmix|libhwloc|libevent' || true; } |
  xargs -r -I{} cp -L {} "$out/lib/"
cat > "$out/run.sh" <<'RUN'
#!/usr/bin/env bash
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp/out}; mkdir -p "$out"
[ -d /tmp/mpi ] || tar xJf "$here/../mpi.tar.xz" -C /tmp
source /tmp/mpi/env.sh
export LD_LIBRARY_PATH="$here/lib:/usr/local/cuda/lib64:$LD_LIBRARY_PATH" PATH="$PATH:/usr/local/cuda/bin"
export OMP_NUM_THREADS=4
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
nvidia-smi topo -m | head -4
ompi_info --parsable --all 2>/dev/null | grep -m1 "mpi_built_with_cuda_support:value"
t0=$SECONDS
gpus=${GPUS:-2}
nps="1 2"; [ "$gpus" -ge 4 ] && nps="1 2 4"
for np in $nps; do
  timeout 90 mpirun -np $np "$here/bin/test_dist" gpu > "$out/test_dist_gpu_np$np.txt" 2>&1
  echo "test_dist gpu np$np: rc $? ($((SECONDS - t0)) s)"
  grep -E "PASSED|FAILED|rank [0-9]+:|IPC" "$out/test_dist_gpu_np$np.txt" | sort | uniq -c | head -5
done
np=${nps##* } # the MPI path too, with CUDA IPC off
timeout 90 mpirun -np $np -x STENC_MPI_IPC=0 "$here/bin/test_dist" gpu > "$out/test_dist_gpu_np${np}_noipc.txt" 2>&1
echo "test_dist gpu np$np STENC_MPI_IPC=0: rc $? ($((SECONDS - t0)) s)"
grep -E "PASSED|FAILED|rank [0-9]+:|IPC" "$out/test_dist_gpu_np${np}_noipc.txt" | sort | uniq -c | head -5
for np in ${nps#1 }; do
  # shellcheck disable=SC2086
  timeout 150 mpirun -np $np "$here/bin/bench_dist" ${BENCH_ARGS:-} > "$out/bench_dist_np$np.txt" 2>&1
  echo "bench_dist np$np: rc $? ($((SECONDS - t0)) s)"; cat "$out/bench_dist_np$np.txt"
done
if [ "${SANITIZE:-1}" = 1 ]; then
  np=${nps##* }
  for tool in memcheck racecheck; do
    timeout 150 mpirun -np $np compute-sanitizer --tool $tool --error-exitcode 1 \
      "$here/bin/test_dist" gpu > "$out/${tool}_np$np.txt" 2>&1
    echo "$tool test_dist gpu np$np: rc $? ($((SECONDS - t0)) s)"
    grep -E "SUMMARY|PASSED|FAILED" "$out/${tool}_np$np.txt" | sort | uniq -c
  done
fi
RUN
chmod +x "$out/run.sh"
du -sh "$out" carry/mpi.tar.xz
