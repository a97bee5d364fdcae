#!/usr/bin/env bash
# Plots of the benchmarks' key=value lines (bench_cuda, bench_cpu, bench_sort, bench_tridiag,
# bench_hash, bench_nelder_mead, and poisson_multigrid's V-cycles), as PNG files drawn by
# gnuplot. A log may hold any mix of them (scripts/gpu_suite.sh's all_logs.txt does). Where
# several logs, or several rounds of one log, measure the same point, the last one read wins:
# give the logs oldest first. A plot is made only when its lines are there:
#   stencils_cuda.png   generated kernels, tuned variant, GB/s against points per launch, per
#                       precision; the naive heat3d kernel; the cudaMemcpy copy rate as a line
#   stencils_cpu.png    the same for the OpenMP kernels against the OpenMP copy loop
#   sort.png            stenc_sort against CUB merge and radix sort, per element kind
#   tridiag.png         batched tridiagonal solves against cuSPARSE and the CPU, per case
#   hash.png            hash table inserts and queries against the random-atomics anchor and
#                       cuCollections' published figures
#   nelder_mead.png     batched Nelder-Mead on the GPU and the CPU against GSL on one core
#   poisson_vcycle.png  a multigrid V-cycle, CPU and GPU (plain launches, replayed graph)
set -euo pipefail

usage() {
  echo "usage: bench/plot.sh LOG... [-o DIR]   (PNG files into DIR, default .)"
}
out=.
logs=()
while [ $# -gt 0 ]; do
  case "$1" in
    -o) [ $# -ge 2 ] || { usage >&2; exit 2; }; out=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "plot.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) logs+=("$1"); shift ;;
  esac
done
[ ${#logs[@]} -gt 0 ] || { usage >&2; exit 2; }
for f in "${logs[@]}"; do [ -r "$f" ] || { echo "plot.sh: cannot read $f" >&2; exit 2; }; done
if ! command -v gnuplot >/dev/null; then
  echo "plot.sh: gnuplot is not installed (Debian: apt-get install gnuplot-nox)" >&2
  exit 3
fi
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 1. The lines into series: $tmp/PLOT/PANEL/ holds one file per series ("x y" rows; its legend
#    order and title in series.txt), refs.txt (horizontal reference lines: "y<TAB>title") and
#    $tmp/PLOT/xtics.txt (labels of categorical x positions).
awk -v dir="$tmp" '
function parse(   i, p) {
  for (k in F) delete F[k]
  for (i = 1; i <= NF; i++) {
    p = index($i, "=")
    if (p > 1) F[substr($i, 1, p - 1)] = substr($i, p + 1)
  }
}
# Points of a size written "512^3", "8192^2" or "39x39x39".
function points(s,   a, n, i, v) {
  if (s ~ /\^/) { split(s, a, "^"); return a[1] ^ a[2] }
  n = split(s, a, "x"); v = 1
  for (i = 1; i <= n; i++) v *= a[i]
  return v
}
# A panel folder: panels in the order they first appear, float before double.
function pdir(panel) {
  if (!(panel in PR)) PR[panel] = panel == "float" ? 1 : panel == "double" ? 2 : 10 + ++npr
  return sprintf("%02d %s", PR[panel], panel)
}
# One point of series `series` (legend order `order`) in PLOT/PANEL; the last one read wins.
function put(plot, panel, order, series, x, y,   id) {
  id = plot SUBSEP pdir(panel) SUBSEP order SUBSEP series
  if (!(id in S)) S[id] = 1
  P[id, x] = y
}
function ref(plot, panel, title, y) { R[plot SUBSEP pdir(panel) SUBSEP title] = y }
function xtic(plot, label) {
  if (!((plot, label) in X)) X[plot, label] = ++nx[plot]
  return X[plot, label]
}
{ parse() }
F["name"] != "" && F["target"] == "cuda" && F["variant"] ~ /^(tuned:|naive_anchor)/ {
  naive = F["variant"] ~ /^naive/
  put("stencils_cuda", F["precision"], naive ? 99 : 10, F["name"] (naive ? " (naive kernel)" : ""),
      points(F["size"]), F["gbs"])
  ref("stencils_cuda", F["precision"], "cudaMemcpy copy", F["copy_gbs"])
}
F["target"] == "cpu" && ("impl" in F) {
  put("stencils_cpu", F["precision"], 10, F["name"], points(F["size"]), F["gbs"])
  cpu_panels[F["precision"]] = 1
}
F["name"] == "copy" && F["target"] == "cpu" && ("threads" in F) { cpu_copy = F["gbs"] }
F["name"] == "sort" && F["target"] == "cuda" {
  panel = F["key"] " keys" (F["values"] == "none" ? "" : " + " F["values"] " values")
  put("sort", panel, 1, "stenc_sort (in place)", F["n"], F["gkeys"])
  put("sort", panel, 2, "CUB merge sort", F["n"], F["merge_gkeys"])
  put("sort", panel, 3, "CUB radix sort", F["n"], F["radix_gkeys"])
}
F["name"] == "tridiag" && F["target"] != "wait_floor" {
  x = xtic("tridiag", F["n"] "x" F["batch"])
  if (F["target"] == "cuda" && F["algo"] ~ /^auto:/ && F["timing"] == "single")
    put("tridiag", F["precision"], F["layout"] == "contiguous" ? 1 : 2, "stenc, " F["layout"], x,
        F["gunk_s"])
  else if (F["target"] == "cusparse")
    put("tridiag", F["precision"], F["layout"] == "contiguous" ? 3 : 4, "cuSPARSE " F["algo"], x,
        F["gunk_s"])
  else if (F["target"] == "cpu")
    put("tridiag", F["precision"], F["layout"] == "contiguous" ? 5 : 6,
        "CPU Thomas, " F["layout"], x, F["gunk_s"])
}
F["name"] == "atomic_anchor" { anchor = F["gops"] }
F["name"] == "hash" && F["layout"] == "buckets" && F["op"] ~ /^(insert|find_hit|find_miss)$/ {
  panel = F["factor"] + 0 < 1.5 ? "80% load" : "50% load"
  put("hash", panel, F["op"] == "insert" ? 1 : F["op"] == "find_hit" ? 2 : 3, F["op"], F["n"],
      F["gops"])
  if (panel == "50% load" && F["ratio_cuco"] + 0 > 0 && F["op"] != "find_miss")
    ref("hash", panel, "cuCollections " F["op"] " (published)", F["gops"] / F["ratio_cuco"])
  hash_panels[panel] = 1
}
F["name"] == "nelder_mead" {
  panel = F["mode"] == "fixed" ? "100 iterations" : "to a tolerance"
  if (F["target"] == "gsl_1core")
    ref("nelder_mead", panel, "GSL nmsimplex2, 1 core", F["mproblems_s"])
  else if (F["target"] == "stenc_cpu_1core")
    ref("nelder_mead", panel, "stenc, 1 CPU core", F["mproblems_s"])
  else {
    order = F["target"] == "stenc_cuda" ? 1 : F["target"] == "stenc_cuda_with_copies" ? 2 : 3
    title = order == 1 ? "stenc, GPU kernel" : order == 2 ? "stenc, GPU with copies" \
                       : "stenc, all CPU cores"
    put("nelder_mead", panel, order, title, F["m"], F["mproblems_s"])
  }
}
F["example"] == "poisson_multigrid" {
  x = F["n"] * F["n"]
  if (F["target"] == "cpu") put("poisson_vcycle", "V(2,1) cycle", 1, "CPU", x, F["ms_per_vcycle"])
  else {
    put("poisson_vcycle", "V(2,1) cycle", 2, "GPU, plain launches", x, F["ms_per_vcycle_plain"])
    if (F["graph"] == 1)
      put("poisson_vcycle", "V(2,1) cycle", 3, "GPU, replayed graph", x, F["ms_per_vcycle"])
  }
}
END {
  if (cpu_copy != "") for (p in cpu_panels) ref("stencils_cpu", p, "OpenMP copy loop", cpu_copy)
  if (anchor != "")
    for (p in hash_panels) ref("hash", p, "random 64-bit atomics (anchor)", anchor)
  for (id in S) {
    split(id, a, SUBSEP)
    d = dir "/" a[1] "/" a[2]
    system("mkdir -p \"" d "\"")
    f = sprintf("%s/%02d_%03d.dat", d, a[3], ++nfiles) # legend order, then one file per series
    print a[3] "\t" a[4] "\t" f >> (d "/series.txt")
    close(d "/series.txt")
    for (k in P) {
      split(k, b, SUBSEP)
      if (b[1] SUBSEP b[2] SUBSEP b[3] SUBSEP b[4] == id) print b[5], P[k] > f
    }
    close(f)
  }
  for (k in R) {
    split(k, a, SUBSEP)
    d = dir "/" a[1] "/" a[2]
    system("mkdir -p \"" d "\"")
    print R[k] "\t" a[3] >> (d "/refs.txt")
    close(d "/refs.txt")
  }
  for (k in X) {
    split(k, a, SUBSEP)
    print X[k] "\t" a[2] >> (dir "/" a[1] "/xtics.txt")
    close(dir "/" a[1] "/xtics.txt")
  }
}' "${logs[@]}"

# 2. One PNG per plot, one panel per PANEL folder, side by side.
# noenhanced: log file names hold underscores, which enhanced text would read as subscripts
term="pngcairo noenhanced font 'sans,9'"
echo 'set terminal pngcairo' | gnuplot 2>/dev/null || term="png small noenhanced"
sources=$(for f in "${logs[@]}"; do basename "$f"; done | paste -sd, - | sed 's/,/, /g')

# plot NAME TITLE XLABEL YLABEL LOGX LOGY STYLE
plot() {
  local name=$1 title=$2 xlabel=$3 ylabel=$4 logx=$5 logy=$6 style=$7
  local dir=$tmp/$name
  [ -d "$dir" ] || return 0
  local panels=() p
  while IFS= read -r p; do panels+=("$p"); done < <(cd "$dir" && ls -d -- */ | sed 's:/$::' | sort)
  [ ${#panels[@]} -gt 0 ] || return 0
  local n=${#panels[@]} script=$dir/plot.gp
  {
    echo "set terminal $term size $((n > 1 ? n * 520 : 760)),480"
    echo "set output '$out/$name.png'"
    echo "set multiplot layout 1,$n title \"$title\\nfrom $sources\""
    echo "set grid; set key below font ',8'; set xlabel '$xlabel'; set ylabel '$ylabel'"
    [ "$logx" = 1 ] && echo "set logscale x 2; set format x '2^%L'"
    if [ "$logy" = 1 ]; then echo "set logscale y"; else echo "set yrange [0:*]"; fi
    echo "set offsets graph 0.03, graph 0.03, graph 0.08, 0" # no point on the frame
    if [ -f "$dir/xtics.txt" ]; then
      local tics
      tics=$(sort -n "$dir/xtics.txt" |
             awk -F'\t' '{printf "%s\"%s\" %s", (NR > 1 ? ", " : ""), $2, $1}')
      echo "set xtics ($tics) rotate by -30; set xrange [0.5:$(wc -l <"$dir/xtics.txt").5]"
      echo "set offsets 0, 0, graph 0.05, graph 0.05"
    fi
    for p in "${panels[@]}"; do
      local d=$dir/$p parts=() f t y
      echo "set title '${p#* }'"
      [ -f "$d/series.txt" ] && while IFS=$'\t' read -r _ t f; do # legend order, then title
        sort -g "$f" -o "$f"
        parts+=("'$f' using 1:2 with $style lw 1.5 pt 7 ps 0.6 title '$t'")
      done < <(sort -t$'\t' -k1,1n -k2,2 "$d/series.txt")
      if [ -f "$d/refs.txt" ]; then # dashed, in greys: bounds and peers, not series
        local dt=2 grey
        while IFS=$'\t' read -r y t; do
          grey=$(printf '%02x' $(( (dt - 2) * 48 )))
          parts+=("$y with lines dt $dt lw 1.5 lc rgb '#$grey$grey$grey' title '$t'")
          dt=$((dt + 1))
        done < <(sort -t$'\t' -k2 "$d/refs.txt")
      fi
      (IFS=,; echo "plot ${parts[*]}")
    done
    echo "unset multiplot"
  } >"$script"
  gnuplot "$script"
  echo "$out/$name.png"
}

plot stencils_cuda "Generated CUDA kernels (tuned variant): bytes moved per second" \
  "points per launch" "GB/s" 1 0 linespoints
plot stencils_cpu "Generated OpenMP kernels: bytes moved per second" \
  "points per call" "GB/s" 1 0 linespoints
plot sort "stenc_sort against CUB" "n" "Gkeys/s" 1 0 linespoints
plot tridiag "Batched tridiagonal solves (n x batch)" "" "G unknowns/s" 0 1 points
plot hash "Cuckoo hash table, 32-bit keys and values, whole bulk builds" "pairs" "G ops/s" 1 0 \
  linespoints
plot nelder_mead "Batched Nelder-Mead, 2-D problems" "problems" "M problems/s" 1 1 linespoints
plot poisson_vcycle "2-D Poisson multigrid" "unknowns" "ms per V-cycle" 1 1 linespoints
