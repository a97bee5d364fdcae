#!/usr/bin/env bash
# nvcc over the CUDA files that the differential test exported (STENC_RANDOM_EXPORT=DIR), on a
# machine with more cores than the one that generated them:
#   tests/fuzz/nvcc_export.sh DIR [JOBS]
# Each batch folder DIR/b<seed> is compiled in one nvcc call with the test's own flags
# (DIR/nvcc_flags.txt); a failing batch is retried file by file to name the culprit. Prints one
# line per failing file, then "nvcc: N files, M compiled, F failed".
set -uo pipefail
dir=$(cd "${1:?usage: nvcc_export.sh DIR [JOBS]}" && pwd)
jobs=${2:-$(nproc)}
src=$(cd "$(dirname "$0")/../.." && pwd)
nvcc=${NVCC:-nvcc}
flags=$(cat "$dir/nvcc_flags.txt")
export dir src nvcc flags
compile_batch() {
  cd "$1" || exit 1
  compgen -G './*_cuda.cu' > /dev/null || return 0 # a batch left with no file to compile
  # shellcheck disable=SC2086
  if "$nvcc" $flags -I "$src/runtime/include" -I . -c ./*_cuda.cu > nvcc.log 2>&1; then
    for f in ./*_cuda.cu; do echo "ok $1/${f#./}"; done
    return
  fi
  for f in ./*_cuda.cu; do
    # shellcheck disable=SC2086
    if "$nvcc" $flags -I "$src/runtime/include" -I . -c "$f" > "${f%.cu}.log" 2>&1; then
      echo "ok $1/${f#./}"
    else
      echo "FAIL $1/${f#./}: $(head -c 600 "${f%.cu}.log" | tr '\n' ' ')"
    fi
  done
}
export -f compile_batch
find "$dir" -mindepth 1 -maxdepth 1 -type d -name 'b*' | sort |
  xargs -P "$jobs" -I{} bash -c 'compile_batch {}' > "$dir/nvcc_results.txt"
grep '^FAIL' "$dir/nvcc_results.txt"
files=$(find "$dir" -name '*_cuda.cu' | wc -l)
ok=$(grep -c '^ok ' "$dir/nvcc_results.txt")
failed=$(grep -c '^FAIL ' "$dir/nvcc_results.txt")
echo "nvcc: $files files, $ok compiled, $failed failed"
[ "$failed" -eq 0 ] && [ "$ok" -eq "$files" ]
