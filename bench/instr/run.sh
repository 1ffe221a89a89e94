#!/usr/bin/env bash
# Side-by-side instrumented-profile merge benchmark: our `merge` against
# llvm-profdata-22 (and -19 with VERSIONS="19 22") on the same 200 .profraw
# files (≈1.8 MB each, ≈360 MB) of one generated 20,000-function C program
# (gen.sh), in one run, runs of each tool interleaved. llvm-profdata runs at
# its default thread count (as users run it) and at each --num-threads from
# 1 to the core count; its best setting is the one of the least median
# wall. Ours runs at its default and at -j1. Prints the load before and
# after, medians of REPEATS (≥ 5) of wall, CPU (user + sys) and peak RSS,
# our read rate (input bytes / wall, and / CPU), the ratios ours/llvm
# against both LLVM settings (default; best, named), and whether the
# outputs are byte-identical.
#
#   bench/instr/run.sh [REPEATS]        # FUNCS=20000 RUNS=200 VERSIONS=22
#
# The workload is cached under out/bench/instr/<key>, the key a hash of
# gen.sh, the parameters and clang-19's version: a changed generator or
# compiler builds a new one.
#
# Bytes: ours (one output whatever -j) is compared with llvm-profdata-N
# --num-threads=1 (inputs in sorted order), the setting whose output does
# not depend on the machine; whether llvm-profdata's default-thread output
# equals it is printed too. Goal (issue 25): ≥ 1 GB/s of input read, wall
# ≤ 1/8 of llvm-profdata-22's best, same bytes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
reps=${1:-5}
versions=${VERSIONS:-22}
funcs=${FUNCS:-20000}
runs=${RUNS:-200}
source "$here/../lib.sh"
key=$( { cat "$here/gen.sh"; echo "$funcs $runs"; clang-19 --version; } | sha256sum | cut -c1-16)
work=$root/out/bench/instr/$key
if [ ! -x "$work/workload" ] || [ "$(ls "$work/raw" 2>/dev/null | wc -l)" -lt "$runs" ]; then
  rm -rf "$work.tmp"
  "$here/gen.sh" "$work.tmp" "$funcs" "$runs"
  rm -rf "$work" && mv "$work.tmp" "$work"
fi
mkdir -p "$work/bin"
(cd "$root" && go build -o "$work/bin/" ./tools/merge)
cd "$work"
mapfile -t raws < <(ls raw/*.profraw | LC_ALL=C sort)
bytes=$(cat "${raws[@]}" | wc -c)
load() { cut -d' ' -f1-3 /proc/loadavg; }
echo "inputs: ${#raws[@]} .profraw, $bytes bytes; $(nproc) cores, load $(load) (before)"
cores=$(nproc)

# Each run writes to a path that does not exist (as a Bazel action does).
# The settings of a round run one after the other, REPEATS rounds: a load
# change falls on every setting alike.
declare -A wall rss cpu cmd
labels=()
add() { # label, cmd...
  local label=$1; shift
  labels+=("$label"); cmd[$label]="$*"
}
for v in $versions; do
  add "llvm$v default" llvm-profdata-$v merge -o "llvm$v-default.profdata" "${raws[@]}"
  for t in $(seq 1 "$cores"); do
    add "llvm$v -j$t" llvm-profdata-$v merge --num-threads=$t -o "llvm$v-j$t.profdata" "${raws[@]}"
  done
  add "ours$v default" bin/merge --llvm-version $v -o "ours$v-default.profdata" "${raws[@]}"
  add "ours$v -j1" bin/merge --llvm-version $v -j 1 -o "ours$v-j1.profdata" "${raws[@]}"
done
declare -A ws rs cs
for _ in $(seq "$reps"); do
  for label in "${labels[@]}"; do
    # shellcheck disable=SC2086
    set -- ${cmd[$label]}
    for a in "$@"; do case $a in *.profdata) rm -f "$a" ;; esac; done
    measure M "$@"
    ws[$label]+="$M_wall "; rs[$label]+="$M_rss "; cs[$label]+="$M_cpu "
  done
done
printf '%-16s %8s %8s %9s\n' run wall cpu rss
for label in "${labels[@]}"; do
  wall[$label]=$(printf '%s\n' ${ws[$label]} | median)
  cpu[$label]=$(printf '%s\n' ${cs[$label]} | median)
  rss[$label]=$(printf '%s\n' ${rs[$label]} | median)
  printf '%-16s %7.2fs %7.2fs %7d KB\n' "$label" "${wall[$label]}" "${cpu[$label]}" "${rss[$label]}"
done
echo "medians of $reps; load $(load) (after)"
echo
gbs() { awk -v b="$bytes" -v t="$1" 'BEGIN { if (t == 0) print "inf"; else printf "%.2f", b / t / 1e9 }'; }
for v in $versions; do
  best="llvm$v default"
  for t in $(seq 1 "$cores"); do
    if awk -v a="${wall[llvm$v -j$t]}" -v b="${wall[$best]}" 'BEGIN { exit !(a < b) }'; then best="llvm$v -j$t"; fi
  done
  o="ours$v default"
  printf 'LLVM %s, as users run it (default threads): wall ours/llvm %s, cpu %s, rss %s\n' "$v" \
    "$(ratio "${wall[$o]}" "${wall[llvm$v default]}")" "$(ratio "${cpu[$o]}" "${cpu[llvm$v default]}")" "$(ratio "${rss[$o]}" "${rss[llvm$v default]}")"
  printf 'LLVM %s, its best setting (%s, least wall): wall ours/llvm %s, cpu %s, rss %s\n' "$v" "${best#llvm$v }" \
    "$(ratio "${wall[$o]}" "${wall[$best]}")" "$(ratio "${cpu[$o]}" "${cpu[$best]}")" "$(ratio "${rss[$o]}" "${rss[$best]}")"
  printf 'LLVM %s, one thread each: wall ours(-j1)/llvm(-j1) %s, cpu %s\n' "$v" \
    "$(ratio "${wall[ours$v -j1]}" "${wall[llvm$v -j1]}")" "$(ratio "${cpu[ours$v -j1]}" "${cpu[llvm$v -j1]}")"
  printf 'read rate (input bytes / wall, / cpu): ours default %s / %s GB/s, ours -j1 %s / %s GB/s, llvm %s best %s / %s GB/s\n' \
    "$(gbs "${wall[$o]}")" "$(gbs "${cpu[$o]}")" "$(gbs "${wall[ours$v -j1]}")" "$(gbs "${cpu[ours$v -j1]}")" "$v" "$(gbs "${wall[$best]}")" "$(gbs "${cpu[$best]}")"
  for o in default j1; do
    if cmp -s "ours$v-$o.profdata" "llvm$v-j1.profdata"; then echo "  ours $o == llvm-profdata-$v -j1: byte-identical"
    else echo "  ours $o vs llvm-profdata-$v -j1: OUTPUTS DIFFER"; fi
  done
  if cmp -s "llvm$v-default.profdata" "llvm$v-j1.profdata"; then echo "  llvm-profdata-$v default == -j1"
  else echo "  llvm-profdata-$v default differs from its -j1 output"; fi
done
