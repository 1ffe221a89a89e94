#!/usr/bin/env bash
# Side-by-side sample-profile merge benchmark: our `merge --sample` against
# llvm-profdata-22 merge --sample on 100 generated text profiles (50 plain,
# 50 CS, ≈50 MB in total), merged into extbinary, in one run. Runs
# alternate (llvm, ours, llvm, ours, ...); prints medians of wall, CPU
# (user + sys) and peak RSS, the ratios, the load, and whether the outputs
# match (byte for byte).
#
# llvm-profdata is run as users run it (`merge --sample -o OUT INPUTS`,
# its defaults: extbinary, one thread), which is also the setting that
# writes our bytes (--extbinary is its default since LLVM 17; checked
# below by comparing the outputs), so one comparison serves both.
# Goal (issue 25): ours ≤ 1/5 of llvm-profdata's wall time, ≤ 1/2 of its
# peak RSS.
#
#   bench/sample/run.sh [WORKDIR] [REPEATS]
#
# REPEATS defaults to 5; KINDS="plain cs" by default. BEFORE=path/to/merge adds a third column: another
# build of tools/merge (e.g. of main), run alternately with the others.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=${1:-$root/out/bench/sample}
reps=${2:-5}
before=${BEFORE:-}
source "$here/../lib.sh"
mkdir -p "$work/in"
(cd "$root" && go build -o "$work/bin/" ./tools/merge ./bench/sample/gen)
[ "$(ls "$work/in" | wc -l)" -ge 100 ] || {
  "$work/bin/gen" -kind plain -n 50 -o "$work/in"
  "$work/bin/gen" -kind cs -n 50 -o "$work/in"
}
cd "$work"
echo "inputs: $(ls in | wc -l) text profiles, $(du -sh in | cut -f1); $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $reps alternating runs, medians"
med() { printf '%s\n' "$@" | median; }
for kind in ${KINDS:-plain cs}; do
  mapfile -t ins < <(ls in/$kind*.txt | LC_ALL=C sort)
  lw=(); lr=(); lc=(); ow=(); or=(); oc=(); bw=(); br=(); bc=()
  for _ in $(seq "$reps"); do
    rm -f llvm.$kind; measure L llvm-profdata-22 merge --sample -o llvm.$kind "${ins[@]}"; lw+=("$L_wall"); lr+=("$L_rss"); lc+=("$L_cpu")
    rm -f ours.$kind; measure O bin/merge --sample --extbinary --llvm-version 22 -o ours.$kind "${ins[@]}"; ow+=("$O_wall"); or+=("$O_rss"); oc+=("$O_cpu")
    if [ -n "$before" ]; then
      rm -f before.$kind; measure B "$before" --sample --extbinary --llvm-version 22 -o before.$kind "${ins[@]}"; bw+=("$B_wall"); br+=("$B_rss"); bc+=("$B_cpu")
    fi
  done
  mlw=$(med "${lw[@]}"); mlr=$(med "${lr[@]}"); mlc=$(med "${lc[@]}")
  mow=$(med "${ow[@]}"); mor=$(med "${or[@]}"); moc=$(med "${oc[@]}")
  printf '%-6s %d inputs  llvm-profdata-22 %6.2fs wall %6.2fs cpu %7d KB\n' "$kind" "${#ins[@]}" "$mlw" "$mlc" "$mlr"
  printf '%-6s   ours            %6.2fs wall %6.2fs cpu %7d KB | ours/llvm: wall %s cpu %s rss %s\n' "" "$mow" "$moc" "$mor" \
    "$(ratio "$mow" "$mlw")" "$(ratio "$moc" "$mlc")" "$(ratio "$mor" "$mlr")"
  if [ -n "$before" ]; then
    mbw=$(med "${bw[@]}"); mbr=$(med "${br[@]}"); mbc=$(med "${bc[@]}")
    printf '%-6s   before          %6.2fs wall %6.2fs cpu %7d KB | before/llvm: wall %s cpu %s rss %s\n' "" "$mbw" "$mbc" "$mbr" \
      "$(ratio "$mbw" "$mlw")" "$(ratio "$mbc" "$mlc")" "$(ratio "$mbr" "$mlr")"
    cmp -s before.$kind ours.$kind || echo "$kind: BEFORE AND OURS DIFFER"
  fi
  if cmp -s llvm.$kind ours.$kind; then echo "$kind: outputs byte-identical (llvm-profdata-22's default output is --extbinary)"
  else echo "$kind: OUTPUTS DIFFER"; fi
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
