#!/usr/bin/env bash
# Side-by-side instrumented-profile merge benchmark: our `merge` against
# llvm-profdata-19 and llvm-profdata-22 on the same 200 .profraw files
# (≈1.8 MB each, ≈360 MB) of one generated 20,000-function C program
# (gen.sh), in one run, each tool at its default thread count and at -j1.
# Prints wall time and peak RSS medians, the ratios ours/llvm, our read
# rate, and whether the outputs are byte-identical.
#
#   bench/instr/run.sh [REPEATS]        # FUNCS=20000 RUNS=200
#
# The workload is cached under out/bench/instr/<key>, the key a hash of
# gen.sh, the parameters and clang-19's version: a changed generator or
# compiler builds a new one.
#
# Bytes: ours (one output whatever -j) is compared with llvm-profdata-N
# --num-threads=1 (inputs in sorted order), the setting whose output does
# not depend on the machine; whether llvm-profdata's default-thread output
# equals it is printed too. Goal (issue 13): ≤ 1/5 of llvm-profdata's best
# wall time, no more memory, same bytes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
reps=${1:-3}
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
echo "inputs: ${#raws[@]} .profraw, $bytes bytes; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

# Each run writes to a path that does not exist (as a Bazel action does).
declare -A wall rss
run() { # label, output, cmd...
  local label=$1 out=$2; shift 2
  local ws=() rs=()
  for _ in $(seq "$reps"); do
    rm -f "$out"; measure M "$@"; ws+=("$M_wall"); rs+=("$M_rss")
  done
  wall[$label]=$(printf '%s\n' "${ws[@]}" | median)
  rss[$label]=$(printf '%s\n' "${rs[@]}" | median)
  printf '%-16s %6.2f s %8d KB\n' "$label" "${wall[$label]}" "${rss[$label]}"
}
for v in 19 22; do
  run "llvm$v default" "llvm$v-default.profdata" llvm-profdata-$v merge -o "llvm$v-default.profdata" "${raws[@]}"
  run "llvm$v -j1" "llvm$v-j1.profdata" llvm-profdata-$v merge --num-threads=1 -o "llvm$v-j1.profdata" "${raws[@]}"
  run "ours$v default" "ours$v-default.profdata" bin/merge --llvm-version $v -o "ours$v-default.profdata" "${raws[@]}"
  run "ours$v -j1" "ours$v-j1.profdata" bin/merge --llvm-version $v -j 1 -o "ours$v-j1.profdata" "${raws[@]}"
done
echo
for v in 19 22; do
  best=${wall[llvm$v -j1]}
  if awk -v a="${wall[llvm$v default]}" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=${wall[llvm$v default]}; fi
  printf 'LLVM %s: wall ours(default)/llvm(best) %s, ours(-j1)/llvm(-j1) %s; rss ours/llvm default %s, -j1 %s\n' "$v" \
    "$(ratio "${wall[ours$v default]}" "$best")" "$(ratio "${wall[ours$v -j1]}" "${wall[llvm$v -j1]}")" \
    "$(ratio "${rss[ours$v default]}" "${rss[llvm$v default]}")" "$(ratio "${rss[ours$v -j1]}" "${rss[llvm$v -j1]}")"
  for o in default j1; do
    if cmp -s "ours$v-$o.profdata" "llvm$v-j1.profdata"; then echo "  ours $o == llvm-profdata-$v -j1: byte-identical"
    else echo "  ours $o vs llvm-profdata-$v -j1: OUTPUTS DIFFER"; fi
  done
  if cmp -s "llvm$v-default.profdata" "llvm$v-j1.profdata"; then echo "  llvm-profdata-$v default == -j1"
  else echo "  llvm-profdata-$v default differs from its -j1 output"; fi
done
awk -v b="$bytes" -v w="${wall[ours22 default]}" 'BEGIN { printf "ours (22, default) reads %.2f GB/s of input\n", b / w / 1e9 }'
