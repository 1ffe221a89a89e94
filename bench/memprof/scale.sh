#!/usr/bin/env bash
# Fleet-scale MemProf merge benchmark (issue 16): 500 and 5,000 raw profiles
# (hard links of one 270 KB profile of the bench workload: 512 leaves, depth
# 8, 1,000 allocations) merged by our `merge` in both modes and by
# llvm-profdata-22 in two settings, in one run. Prints wall time and peak
# RSS of each, and the ratios of ours to llvm-profdata.
#
#   bench/memprof/scale.sh [WORKDIR] [COUNTS]      # COUNTS default "500 5000"
#
# The four commands, for N inputs:
#   ours merged     merge (default --memprof-merge-contexts): one MIB per
#                   context, output the size of one input's profile
#   ours appended   merge --memprof-merge-contexts=false: every input's
#                   contexts appended, llvm-profdata's bytes at -jN
#   llvm -jN        llvm-profdata-22 merge --num-threads=N: one writer
#                   context per input, the one setting that keeps every
#                   input (llvm-profdata 22 drops every input after the
#                   first of a writer context; see internal/profmerge)
#   llvm default    llvm-profdata-22 merge without -j: min(cores, (N+1)/2)
#                   contexts, so it silently keeps only that many inputs;
#                   cheap because it drops the rest
# Ratios: "merged/llvm-jN" and "appended/llvm-jN" compare equal work (every
# input kept); "merged/llvm-default" compares against what a user gets by
# default (most inputs lost). appended vs llvm -jN is also checked for
# byte-identical output.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=${1:-$root/out/bench/memprof-scale}
counts=${2:-500 5000}
source "$here/../lib.sh"
mkdir -p "$work"
[ -x "$work/workload" ] && [ -f "$work/raw/run-01.memprofraw" ] || "$here/gen.sh" "$work" 512 8 1000 1
(cd "$root" && go build -o "$work/bin/" ./tools/merge)
cd "$work"
one=raw/run-01.memprofraw
echo "input: $(wc -c < "$one") bytes, hard-linked N times; $(nproc) cores"
r3() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "inf"; else printf "%.3f", a / b }'; }
row() { # label wall rss [output]
  local size=""
  [ -n "${4:-}" ] && size="$(wc -c < "$4") B"
  printf '  %-16s %7.2f s %9d KB  %s\n' "$1" "$2" "$3" "$size"
}
for n in $counts; do
  dir=in-$n
  if [ "$(ls "$dir" 2>/dev/null | wc -l)" -ne "$n" ]; then
    rm -rf "$dir"; mkdir "$dir"
    for i in $(seq -w 1 "$n"); do ln "$one" "$dir/r$i.memprofraw"; done
  fi
  mapfile -t ins < <(ls "$dir"/*.memprofraw | LC_ALL=C sort)
  echo "== $n inputs"
  rm -f merged.profdata; measure M bin/merge --llvm-version 22 --profiled-binary workload -o merged.profdata "${ins[@]}"
  row "ours merged" "$M_wall" "$M_rss" merged.profdata
  rm -f appended.profdata; measure A bin/merge --memprof-merge-contexts=false --llvm-version 22 --profiled-binary workload -o appended.profdata "${ins[@]}"
  row "ours appended" "$A_wall" "$A_rss" appended.profdata
  rm -f llvm-j.profdata; measure J llvm-profdata-22 merge --num-threads="$n" --profiled-binary workload -o llvm-j.profdata "${ins[@]}"
  row "llvm -j$n" "$J_wall" "$J_rss" llvm-j.profdata
  rm -f llvm-d.profdata; measure D llvm-profdata-22 merge --profiled-binary workload -o llvm-d.profdata "${ins[@]}"
  row "llvm default" "$D_wall" "$D_rss" llvm-d.profdata
  printf '  ratios (ours/llvm): merged/llvm-j%s wall %s rss %s | appended/llvm-j%s wall %s rss %s | merged/llvm-default wall %s rss %s\n' \
    "$n" "$(r3 "$M_wall" "$J_wall")" "$(r3 "$M_rss" "$J_rss")" \
    "$n" "$(r3 "$A_wall" "$J_wall")" "$(r3 "$A_rss" "$J_rss")" \
    "$(r3 "$M_wall" "$D_wall")" "$(r3 "$M_rss" "$D_rss")"
  if cmp -s appended.profdata llvm-j.profdata; then echo "  appended = llvm -j$n: byte-identical"
  else echo "  appended vs llvm -j$n: OUTPUTS DIFFER"; fi
  rm -f merged.profdata appended.profdata llvm-j.profdata llvm-d.profdata
done
