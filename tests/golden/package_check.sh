#!/usr/bin/env bash
# The Debian packages serve a project on a machine without the CUDA toolkit: cpack writes the
# three .deb files from BUILD, dpkg -x unpacks them into a private root, and the consumer
# project (tests/golden/consumer) configures with nvcc off the PATH and find_package(CUDAToolkit)
# disabled, builds, and runs. Also checked: package names and dependencies, the SONAME, and a
# program built with pkg-config's flags.
#   package_check.sh BUILD CONSUMER_DIR WORK_DIR C_COMPILER
set -euo pipefail
build=$1 consumer=$2 work=$3 cc=$4
rm -rf "$work"
mkdir -p "$work/debs" "$work/root"
fail() { echo "package_check: $*" >&2; exit 1; }

(cd "$build" && cpack -G DEB -B "$work/debs" > "$work/cpack.log" 2>&1) ||
  { cat "$work/cpack.log"; fail "cpack failed"; }
for pkg in libstenc0 libstenc-dev stenc-compiler; do
  deb=$(ls "$work"/debs/${pkg}_*.deb 2>/dev/null | head -1)
  [ -n "$deb" ] || fail "no ${pkg}_*.deb in $work/debs: $(ls "$work/debs")"
  [ "$(dpkg-deb -f "$deb" Package)" = "$pkg" ] || fail "$deb is not package $pkg"
  dpkg -x "$deb" "$work/root"
done
dev_depends=$(dpkg-deb -f "$work"/debs/libstenc-dev_*.deb Depends)
case $dev_depends in *libstenc0*stenc-compiler*) ;; *) fail "libstenc-dev depends on: $dev_depends" ;; esac
# (listed first: grep -q would close the pipe early, and pipefail would see dpkg-deb's SIGPIPE)
runtime_files=$(dpkg-deb -c "$work"/debs/libstenc0_*.deb)
grep -q 'libstenc\.so\.0' <<< "$runtime_files" || fail "libstenc0 lacks libstenc.so.0"
if grep -q 'include/' <<< "$runtime_files"; then fail "libstenc0 holds headers"; fi

prefix=$work/root/usr
lib=$(dirname "$(find "$prefix" -name 'libstenc.so.0' | head -1)")
readelf -d "$lib/libstenc.so.0" | grep -q 'SONAME.*\[libstenc\.so\.0\]' || fail "SONAME is not libstenc.so.0"
[ -x "$prefix/bin/stenc" ] || fail "no stenc compiler in the packages"

# A machine without the CUDA toolkit: no nvcc on the PATH, no CUDAToolkit package.
path=$(echo "$PATH" | tr ':' '\n' | while read -r d; do [ -x "$d/nvcc" ] || echo "$d"; done | paste -sd:)
PATH=$path cmake -S "$consumer" -B "$work/build" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON -DCONSUMER_CPU_ONLY=ON \
  > "$work/configure.log" 2>&1 || { cat "$work/configure.log"; fail "the consumer does not configure"; }
PATH=$path cmake --build "$work/build" > "$work/build.log" 2>&1 ||
  { cat "$work/build.log"; fail "the consumer does not build"; }
out=$("$work/build/consumer") || fail "the consumer failed: $out"
echo "$out"
case $out in "consumer (libstenc "*"): ok (cpu"*) ;; *) fail "unexpected: $out" ;; esac

# pkg-config, for projects without CMake.
cat > "$work/pc.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <stenc/stenc.h>
int main(void) {
    stenc_ctx *ctx;
    if (stenc_ctx_create(&ctx, STENC_DEVICE_CPU) != STENC_OK) return 1;
    stenc_ctx_destroy(ctx);
    printf("pkg-config program: libstenc %s\n", stenc_version());
    return strcmp(stenc_version(), STENC_VERSION_STRING) != 0;
}
C
flags=$(PKG_CONFIG_PATH="$lib/pkgconfig" pkg-config --cflags --libs stenc) || fail "pkg-config stenc"
# shellcheck disable=SC2086
"$cc" "$work/pc.c" -o "$work/pc" $flags -Wl,-rpath,"$lib" || fail "cc with pkg-config's flags"
"$work/pc" || fail "the pkg-config program failed"
echo "package_check: ok"
