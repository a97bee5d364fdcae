#!/usr/bin/env bash
# Pack the distributed tests and benchmark for the lent 2-GPU machine (docs/distributed.md):
# builds test_dist, bench_dist and poisson_mg_mpi (sm_90) in BUILD (default build), with the
# single-GPU tests of what they use (test_multigrid_gpu, test_stencils_cuda), copies them with the
# libraries the machine lacks into carry/mpigpu/, and makes carry/mpi.tar.xz (Open MPI, by
# scripts/mpi_carry.sh) if missing. On the machine (device tool: carry carry/mpigpu and
# carry/mpi.tar.xz; kind nvidia-h100-x2, or nvidia-h100-x4 with GPUS=4):
#   carry/mpigpu/run.sh      the single-GPU tests, tests on 1, 2 (and 4) GPUs, poisson_mg_mpi's
#                            bits and V-cycle times on each, bench_dist on 2 (and 4), then
#                            compute-sanitizer on all GPUs (BENCH=0 skips bench_dist, SANITIZE=0 the sanitizers; BENCH_ARGS
#                            passes options to bench_dist; GPUS: the GPUs to use, default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
cmake --build "$build" -j2 --target test_dist bench_dist poisson_mg_mpi test_multigrid_gpu \
  test_stencils_cuda
[ -f carry/mpi.tar.xz ] || scripts/mpi_carry.sh carry/mpi
out=carry/mpigpu
rm -rf "$out"; mkdir -p "$out/bin" "$out/lib"
cp "$build/tests/dist/test_dist" "$build/bench/dist/bench_dist" \
  "$build/examples/poisson_multigrid/poisson_mg_mpi" "$build/tests/multigrid/test_multigrid_gpu" \
  "$build/tests/stencils/test_stencils_cuda" "$out/bin/"
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
for t in test_multigrid_gpu test_stencils_cuda; do
  timeout 120 "$here/bin/$t" > "$out/$t.txt" 2>&1
  echo "$t: rc $? ($((SECONDS - t0)) s)"; grep -E "PASSED|FAILED" "$out/$t.txt" | sort | uniq -c
done
# The distributed multigrid V-cycle: the same bits on every GPU count, agglomerating at two
# levels, and the time per V-cycle at 4095^2.
for np in $nps; do
  for agg in 64 1; do
    timeout 60 mpirun -np $np "$here/bin/poisson_mg_mpi" --n 1023 --cycles 10 --agglomerate $agg \
      > "$out/poisson_mg_np${np}_a$agg.txt" 2>&1
    echo "poisson_mg_mpi np$np --agglomerate $agg: rc $? $(grep -E '^result' "$out/poisson_mg_np${np}_a$agg.txt")"
  done
  timeout 90 mpirun -np $np "$here/bin/poisson_mg_mpi" --n 4095 --cycles 4 --time 20 \
    > "$out/poisson_mg_time_np$np.txt" 2>&1
  echo "poisson_mg_mpi 4095^2 np$np: rc $? $(grep -E '^case=' "$out/poisson_mg_time_np$np.txt")"
done
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
  [ "${BENCH:-1}" = 1 ] || break
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
  timeout 120 mpirun -np $np compute-sanitizer --tool memcheck --error-exitcode 1 \
    "$here/bin/poisson_mg_mpi" --n 255 --cycles 2 --agglomerate 16 > "$out/memcheck_mg_np$np.txt" 2>&1
  echo "memcheck poisson_mg_mpi np$np: rc $? ($((SECONDS - t0)) s)"
  grep -E "SUMMARY|^result" "$out/memcheck_mg_np$np.txt" | sort | uniq -c
  timeout 200 compute-sanitizer --tool memcheck --error-exitcode 1 "$here/bin/test_stencils_cuda" \
    > "$out/memcheck_stencils.txt" 2>&1
  echo "memcheck test_stencils_cuda: rc $? ($((SECONDS - t0)) s)"
  grep -E "SUMMARY|PASSED|FAILED" "$out/memcheck_stencils.txt" | sort | uniq -c
fi
RUN
chmod +x "$out/run.sh"
du -sh "$out" carry/mpi.tar.xz
