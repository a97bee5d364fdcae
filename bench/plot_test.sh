#!/usr/bin/env bash
# The ctest bench_plot: bench/plot.sh draws every one of its plots from bench/plot_sample.log,
# each a non-empty PNG file. Skipped (exit 77) where gnuplot is not installed.
# Usage: bench/plot_test.sh OUTPUT_DIR
set -u
command -v gnuplot >/dev/null || { echo "gnuplot is not installed: skipped"; exit 77; }
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: plot_test.sh OUTPUT_DIR}
rm -rf "$out"
"$here/plot.sh" "$here/plot_sample.log" -o "$out" || { echo "plot.sh failed"; exit 1; }
png_magic=89504e470d0a1a0a
for p in stencils_cuda stencils_cpu sort tridiag hash nelder_mead poisson_vcycle; do
  f=$out/$p.png
  [ -s "$f" ] || { echo "FAILED: $f missing or empty"; exit 1; }
  [ "$(head -c 8 "$f" | od -An -tx1 | tr -d ' \n')" = $png_magic ] ||
    { echo "FAILED: $f is not a PNG file"; exit 1; }
done
echo "ok: 7 plots in $out"
