#!/usr/bin/env bash
# The long fuzzing runs of docs/fuzzing.md, on an existing build (cmake --build BUILD first).
#   tests/fuzz/long_runs.sh fuzz   [BUILD] [RUNS]    libFuzzer, RUNS executions (10^7); the
#                                                     corpus grows in BUILD/fuzz_long/corpus
#   tests/fuzz/long_runs.sh random [BUILD] [COUNT]   COUNT random stencils (10000)
# Environment: JOBS (fuzz: parallel libFuzzer jobs, 1; random: compiler jobs, 2), SEED (random:
# the first seed, default the time), STENC_RANDOM_FLAGS (the generator's classes).
# Logs go to BUILD/fuzz_long/; findings to BUILD/fuzz_long/ (crash-*, leak-*) and
# BUILD/fuzz_long/random_failures/.
set -euo pipefail
src=$(cd "$(dirname "$0")" && pwd)
what=${1:?usage: long_runs.sh fuzz|random [BUILD] [N]}
build=$(cd "${2:-build}" && pwd)
out=$build/fuzz_long
mkdir -p "$out"
stamp=$(date -u +%Y%m%dT%H%M%SZ)
case $what in
fuzz)
  runs=${3:-10000000}
  jobs=${JOBS:-1}
  fuzzer=$build/tests/fuzz/fuzz_pipeline
  [ -x "$fuzzer" ] || { echo "no $fuzzer (needs clang with libFuzzer)" >&2; exit 1; }
  mkdir -p "$out/corpus"
  cp -n "$src"/corpus/* "$out/corpus/" 2>/dev/null || true
  args=(-dict="$src/stencil.dict" -timeout=20 -rss_limit_mb=2048 -max_len=8192
        -print_final_stats=1 -artifact_prefix="$out/")
  if [ "$jobs" -gt 1 ]; then
    args+=(-jobs="$jobs" -workers="$jobs" -runs=$((runs / jobs)))
  else
    args+=(-runs="$runs")
  fi
  echo "libFuzzer: $runs runs, $jobs job(s), log $out/fuzz_$stamp.log"
  cd "$out" && "$fuzzer" "${args[@]}" "$out/corpus" 2>&1 | tee "$out/fuzz_$stamp.log" | tail -20
  ;;
random)
  count=${3:-10000}
  seed=${SEED:-$(date +%s)}
  echo "random stencils: $count from seed $seed, log $out/random_$stamp.log"
  STENC_RANDOM_STENCILS=$count STENC_RANDOM_SEED=$seed STENC_RANDOM_JOBS=${JOBS:-2} \
    STENC_RANDOM_NVCC=${STENC_RANDOM_NVCC:-$count} STENC_RANDOM_OUT="$out/random_failures" \
    "$build/tests/fuzz/test_differential" > "$out/random_$stamp.log" 2>&1 || true
  grep -E "^random stencils|FAILED|PASSED" "$out/random_$stamp.log"
  ;;
*)
  echo "usage: long_runs.sh fuzz|random [BUILD] [N]" >&2
  exit 2
  ;;
esac
