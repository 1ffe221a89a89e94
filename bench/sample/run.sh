#!/usr/bin/env bash
# Side-by-side sample-profile merge benchmark: our `merge --sample` against
# llvm-profdata-22 merge --sample on 100 generated text profiles (50 plain,
# 50 CS, ≈50 MB in total), merged into extbinary, in one run. Prints wall
# time and peak RSS medians, the ratios, and whether the outputs match
# (byte for byte).
# Goal (issue 10): ours ≤ 1/3 of llvm-profdata's wall time, ≤ 1/2 of its
# peak RSS.
#
#   bench/sample/run.sh [WORKDIR] [REPEATS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=${1:-$root/out/bench/sample}
reps=${2:-3}
source "$here/../lib.sh"
mkdir -p "$work/in"
(cd "$root" && go build -o "$work/bin/" ./tools/merge ./bench/sample/gen)
[ "$(ls "$work/in" | wc -l)" -ge 100 ] || {
  "$work/bin/gen" -kind plain -n 50 -o "$work/in"
  "$work/bin/gen" -kind cs -n 50 -o "$work/in"
}
cd "$work"
echo "inputs: $(ls in | wc -l) text profiles, $(du -sh in | cut -f1)"
for kind in plain cs; do
  mapfile -t ins < <(ls in/$kind*.txt | LC_ALL=C sort)
  lw=(); lr=(); ow=(); or=()
  for _ in $(seq "$reps"); do
    rm -f llvm.$kind; measure L llvm-profdata-22 merge --sample --extbinary -o llvm.$kind "${ins[@]}"; lw+=("$L_wall"); lr+=("$L_rss")
    rm -f ours.$kind; measure O bin/merge --sample --extbinary --llvm-version 22 -o ours.$kind "${ins[@]}"; ow+=("$O_wall"); or+=("$O_rss")
  done
  mlw=$(printf '%s\n' "${lw[@]}" | median); mlr=$(printf '%s\n' "${lr[@]}" | median)
  mow=$(printf '%s\n' "${ow[@]}" | median); mor=$(printf '%s\n' "${or[@]}" | median)
  printf '%-6s %d inputs  llvm %6.2fs %7d KB | ours %6.2fs %7d KB | wall ours/llvm %s  rss ours/llvm %s\n' \
    "$kind" "${#ins[@]}" "$mlw" "$mlr" "$mow" "$mor" "$(ratio "$mow" "$mlw")" "$(ratio "$mor" "$mlr")"
  if cmp -s llvm.$kind ours.$kind; then echo "$kind: outputs byte-identical"
  else echo "$kind: OUTPUTS DIFFER"; fi
done
