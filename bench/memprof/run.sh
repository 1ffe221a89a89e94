#!/usr/bin/env bash
# Side-by-side MemProf merge benchmark: our `merge` against llvm-profdata-19
# and llvm-profdata-22 on the same 24 raw profiles (≈100 MB, ≥4,000
# allocation leaves, call depth ≥8), in one run. Prints wall time and peak
# RSS medians, the ratios, and whether the outputs are byte-identical.
#
#   bench/memprof/run.sh [WORKDIR] [REPEATS]
#
# llvm-profdata gets --num-threads=<inputs>: the one setting in which its output
# does not depend on the machine and no release drops inputs (see
# internal/profmerge). Ours runs with --memprof-merge-contexts=false, which
# writes llvm-profdata's bytes (the default merges contexts: see scale.sh).
# Goal (issue 3): ours ≤ 1/5 of llvm-profdata's wall time, ≤ 1/2 of its peak
# RSS.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=${1:-$root/out/bench/memprof}
reps=${2:-3}
source "$here/../lib.sh"
mkdir -p "$work"
[ -x "$work/workload" ] && [ "$(ls "$work/raw" 2>/dev/null | wc -l)" -ge 24 ] || "$here/gen.sh" "$work"
(cd "$root" && go build -o "$work/bin/" ./tools/merge)
mapfile -t raws < <(cd "$work" && ls raw/*.memprofraw | LC_ALL=C sort)
cd "$work"
echo "inputs: ${#raws[@]} raw profiles, $(du -shc "${raws[@]}" | tail -1 | cut -f1); $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $reps alternating runs, medians"

# Each run writes to a path that does not exist, as in a Bazel action (Bazel
# deletes an action's outputs before running it): replacing the previous
# run's 94 MB V0 file would otherwise add the filesystem's cost of freeing
# it (O_TRUNC for llvm-profdata, rename for ours; 40-90 ms on ext4 here).
run_pair() { # name, llvm output, ours output, llvm cmd..., --, ours cmd...
  local name=$1 lout=$2 oout=$3; shift 3
  local llvm=() ours=()
  while [ "$1" != -- ]; do llvm+=("$1"); shift; done; shift
  ours=("$@")
  local lw=() lr=() ow=() or=()
  for _ in $(seq "$reps"); do
    rm -f "$lout"; measure L "${llvm[@]}"; lw+=("$L_wall"); lr+=("$L_rss")
    rm -f "$oout"; measure O "${ours[@]}"; ow+=("$O_wall"); or+=("$O_rss")
  done
  local mlw mlr mow mor
  mlw=$(printf '%s\n' "${lw[@]}" | median); mlr=$(printf '%s\n' "${lr[@]}" | median)
  mow=$(printf '%s\n' "${ow[@]}" | median); mor=$(printf '%s\n' "${or[@]}" | median)
  printf '%-22s llvm %6.2fs %7d KB | ours %6.2fs %7d KB | wall ours/llvm %s  rss ours/llvm %s\n' \
    "$name" "$mlw" "$mlr" "$mow" "$mor" "$(ratio "$mow" "$mlw")" "$(ratio "$mor" "$mlr")"
}

# LLVM 19's default (V0): its V2/V3 writers lose call sites when merging
# several inputs (see tools/merge TestMultipleInputs), V0 keeps everything.
run_pair "LLVM 19, default (V0)" llvm19.profdata ours19.profdata \
  llvm-profdata-19 merge --num-threads=${#raws[@]} --profiled-binary workload -o llvm19.profdata "${raws[@]}" -- \
  bin/merge --memprof-merge-contexts=false --profiled-binary workload --llvm-version 19 -o ours19.profdata "${raws[@]}"
run_pair "LLVM 22, default (V3)" llvm22.profdata ours22.profdata \
  llvm-profdata-22 merge --num-threads=${#raws[@]} --profiled-binary workload -o llvm22.profdata "${raws[@]}" -- \
  bin/merge --memprof-merge-contexts=false --profiled-binary workload --llvm-version 22 -o ours22.profdata "${raws[@]}"
# llvm-profdata-19 as users run it: its default thread count (min(cores,
# (inputs+1)/2) writer contexts). LLVM 19 keeps every input at any count
# (LLVM 22 keeps one input per context: see scale.sh), so the content is
# ours appended, in another order; the bytes depend on the machine's cores.
run_pair "LLVM 19, llvm at -j default" llvm19d.profdata ours19.profdata \
  llvm-profdata-19 merge --profiled-binary workload -o llvm19d.profdata "${raws[@]}" -- \
  bin/merge --memprof-merge-contexts=false --profiled-binary workload --llvm-version 19 -o ours19.profdata "${raws[@]}"
if [ "$(stat -c %s llvm19d.profdata)" = "$(stat -c %s ours19.profdata)" ]; then
  echo "LLVM 19 at its default threads: output of the same size as ours (same records, another order)"
else echo "LLVM 19 at its default threads: output size differs from ours"; fi
for v in 19 22; do
  if cmp -s "llvm$v.profdata" "ours$v.profdata"; then echo "LLVM $v: outputs byte-identical"
  else echo "LLVM $v: OUTPUTS DIFFER"; fi
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
