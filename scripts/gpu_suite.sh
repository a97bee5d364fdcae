#!/usr/bin/env bash
# The whole GPU check in one device call: every GPU test, the GPU runs of the examples,
# compute-sanitizer (memcheck, racecheck) on quick subsets, then the benchmarks with their
# peers. Each step has its own time limit, and the suite stops starting steps near its budget,
# so that one slow step cannot eat the call. Logs go to $OUT (or /tmp/gpu_suite).
#
# Here (no GPU):  scripts/gpu_suite.sh --pack        builds and packs carry/gpu
# There (GPU):    scripts/gpu_suite.sh [--no-bench | --bench-only] [--budget SECONDS]
set -u
cd "$(dirname "$0")/.."

tests=(test_core test_graph test_field_gpu test_io_gpu test_stencils_cuda test_tridiag_gpu test_hash_gpu test_sort_gpu
       test_nelder_mead_gpu test_multigrid_gpu)
examples=(life_demo mesh_smoothing poisson_multigrid sor fe_gauss_seidel heat_demo adi_heat)
benches=(bench_anchors bench_cuda_float bench_cuda_double bench_tridiag bench_hash bench_sort
         bench_nelder_mead bench_multigrid)

if [ "${1:-}" = "--pack" ]; then
  exec scripts/device_pack.sh gpu "${tests[@]}" "${examples[@]}" "${benches[@]}"
fi

budget=560
bench=1
checks=1
while [ $# -gt 0 ]; do
  case "$1" in
    --no-bench) bench=0 ;;
    --bench-only) checks=0 ;;
    --budget) budget=$2; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
out=${OUT:-/tmp/gpu_suite}
mkdir -p "$out"
R=carry/gpu/run.sh
start=$SECONDS
summary=()
failed=0

# step NAME LIMIT_S COMMAND...: run with a time limit, log to $out/NAME.log, record the outcome.
step() {
  local name=$1 limit=$2
  shift 2
  if [ $((SECONDS - start + 5)) -ge "$budget" ]; then
    summary+=("$(printf '%-34s %s' "$name" "not run (suite budget)")")
    return
  fi
  local t0=$SECONDS rc
  timeout "$limit" "$@" >"$out/$name.log" 2>&1
  rc=$?
  local verdict=ok
  if [ $rc -eq 77 ]; then verdict="skipped"
  elif [ $rc -eq 124 ]; then verdict="TIMEOUT (${limit}s)"; failed=1
  elif [ $rc -ne 0 ]; then verdict="FAILED rc=$rc"; failed=1
    tail -n 15 "$out/$name.log"
  fi
  summary+=("$(printf '%-34s %-18s %4ds' "$name" "$verdict" $((SECONDS - t0)))")
}

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/device.txt"

# 1. Tests, whole.
[ $checks -eq 1 ] && for t in "${tests[@]}"; do step "$t" 150 $R "$t"; done
if [ $checks -eq 1 ]; then
step example_life_gpu 60 $R life_demo --device cuda --size 23 --steps 100 --check
step example_mesh_compare 90 $R mesh_smoothing --torus 40 20 0.4 --sweeps 2 --compare --check
step example_poisson_mg_gpu 120 $R poisson_multigrid --grids 31,63,127,255 --device cuda --check
step example_sor_gpu 90 $R sor --grids 15,31 --device cuda --check
step example_fe_gs_gpu 90 $R fe_gauss_seidel --grids 7,15 --device cuda --check
step example_heat_gpu 90 $R heat_demo --grids 16,32,64 --device cuda --check
step example_adi_gpu 60 $R adi_heat --device cuda --grids 63,127,255 --check

# 2. compute-sanitizer on quick subsets.
export STENC_HASH_TEST_SKIP=test_gpu_large
for tool in memcheck racecheck; do
  step "${tool}_core" 60 $R --sanitize $tool test_core
  # test_graph spoils a recording on purpose: the failing CUDA calls are expected.
  STENC_SANITIZER_ARGS="--report-api-errors no" step "${tool}_graph" 60 $R --sanitize $tool test_graph
  step "${tool}_field" 90 $R --sanitize $tool test_field_gpu
  step "${tool}_multigrid" 90 $R --sanitize $tool test_multigrid_gpu
  step "${tool}_tridiag" 90 $R --sanitize $tool test_tridiag_gpu "$([ $tool = memcheck ] && echo quick || echo race)"
  step "${tool}_sort" 120 $R --sanitize $tool test_sort_gpu "$([ $tool = memcheck ] && echo --quick || echo --race)"
  step "${tool}_hash" 90 $R --sanitize $tool test_hash_gpu
  step "${tool}_life" 60 $R --sanitize $tool life_demo --device cuda --size 23 --steps 8
done
step memcheck_nelder_mead 90 $R --sanitize memcheck test_nelder_mead_gpu
step memcheck_stencils 150 $R --sanitize memcheck test_stencils_cuda
fi

# 3. Benchmarks, peers in the same run.
if [ $bench -eq 1 ]; then
  step bench_anchors 90 $R bench_anchors
  step bench_cuda_float 120 $R bench_cuda_float
  step bench_cuda_double 120 $R bench_cuda_double
  step bench_tridiag 90 $R bench_tridiag
  step bench_hash 240 $R bench_hash 27 h100
  step bench_sort 120 $R bench_sort 27
  step bench_nelder_mead 120 $R bench_nelder_mead
  step bench_multigrid 90 $R bench_multigrid
  step bench_poisson_vcycle 120 $R poisson_multigrid --grids 4095 --device all
fi

echo
echo "GPU suite on $(cat "$out/device.txt") ($(date -u +%Y-%m-%d)), $((SECONDS - start)) s:"
printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
# One file for all logs: the device tool brings back only a few files.
for f in "$out"/*.log; do echo "===== $(basename "$f")"; cat "$f"; done >"$out/all_logs.txt"
exit $failed
