#!/usr/bin/env bash
# Build targets here for the lent GPU (sm_90) and pack them, with the non-system shared
# libraries they need, into carry/BUNDLE/ for the device tool's `carry`. On the GPU machine:
#   carry/BUNDLE/run.sh PROGRAM [ARGS...]     runs carry/BUNDLE/bin/PROGRAM
#   carry/BUNDLE/run.sh --sanitize TOOL PROGRAM [ARGS...]   the same under compute-sanitizer
#                                             (TOOL: memcheck, racecheck, initcheck, synccheck;
#                                             STENC_SANITIZER_ARGS adds options)
# Usage: scripts/device_pack.sh BUNDLE TARGET...
set -euo pipefail
cd "$(dirname "$0")/.."
bundle=$1; shift
build=${STENC_DEVICE_BUILD:-build-device-$bundle} # STENC_DEVICE_BUILD: reuse a build
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null
cmake --build "$build" -j2 --target "$@"
out=carry/$bundle
rm -rf "$out"; mkdir -p "$out/bin" "$out/lib"
for t in "$@"; do
  exe=$(find "$build" -type f -name "$t" -perm -u+x -print -quit)
  [ -n "$exe" ] || { echo "no executable for target $t" >&2; exit 1; }
  cp "$exe" "$out/bin/"
  strip --strip-debug "$out/bin/$t" 2>/dev/null || true
  # Copy the libraries the GPU machine's image may lack (cmocka, gomp, gsl, hdf5 and what hdf5
  # needs): all but glibc's, libstdc++'s and CUDA's (the GPU machine has the toolkit).
  # (no match is fine: grep's status must not end the script under pipefail)
  ldd "$exe" | awk '/=> \//{print $3}' |
    { grep -vE '/(libc|libm|libdl|libpthread|librt|libresolv|ld-linux-x86-64|libstdc\+\+|libgcc_s|libcu[a-z]*|libnv[A-Za-z]*)\.so' || true; } |
    xargs -r -I{} cp -L {} "$out/lib/"
done
cat > "$out/run.sh" <<'RUN'
#!/usr/bin/env bash
here=$(cd "$(dirname "$0")" && pwd)
cuda_lib=$(dirname "$(dirname "$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)")")/lib64
export LD_LIBRARY_PATH="$here/lib:$cuda_lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export PATH="$PATH:/usr/local/cuda/bin"
if [ "${1:-}" = "--sanitize" ]; then
  tool=$2; prog=$3; shift 3
  # STENC_SANITIZER_ARGS: extra options, e.g. "--report-api-errors no" for a test that makes
  # CUDA calls fail on purpose.
  exec compute-sanitizer --tool "$tool" --error-exitcode 1 ${STENC_SANITIZER_ARGS:-} "$here/bin/$prog" "$@"
fi
prog=$1; shift
exec "$here/bin/$prog" "$@"
RUN
chmod +x "$out/run.sh"
du -sh "$out"
