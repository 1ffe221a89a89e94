#!/usr/bin/env bash
# Side-by-side benchmark: our tools/symbolize against llvm-symbolizer-19 on
# a large C++ binary (testdata/bigcxx, 30+ MB, mostly DWARF).
#
#   bench/symbolize/run.sh [OUTDIR]        (default OUTDIR: out/bench-symbolize)
#
# Builds the tool and the big binary if missing, picks N (default 20000)
# pseudo-random addresses inside .text with a fixed seed, then runs both
# symbolizers on them: addresses on stdin, output to /dev/null, one process
# per run, so start-up (opening the binary, indexing DWARF) is included.
# Wall time and peak RSS come from /usr/bin/time; each side runs RUNS
# (default 3) times, alternating, and the medians are compared.
# Environment: N, SEED (default 1), RUNS, STYLE (LLVM|GNU|JSON, default
# LLVM), INLINES (--inlines or --no-inlines, default --inlines),
# LLVM_SYMBOLIZER (default llvm-symbolizer-19), UNITS (if set: the
# binary of bench/symbolize/units.sh with that many compile units instead
# of bigcxx; the start-up case: N=5000 UNITS=600).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/out/bench-symbolize}
n=${N:-20000}
seed=${SEED:-1}
runs=${RUNS:-3}
style=${STYLE:-LLVM}
inlines=${INLINES:---inlines}
llvm=${LLVM_SYMBOLIZER:-llvm-symbolizer-19}
mkdir -p "$out"
out=$(cd "$out" && pwd)
# shellcheck source=../lib.sh
. "$root/bench/lib.sh"

[ -x /usr/bin/time ] || { echo "run.sh: /usr/bin/time missing (apt-get install time)" >&2; exit 1; }
command -v "$llvm" >/dev/null || { echo "run.sh: $llvm not found" >&2; exit 1; }

echo "== building tools/symbolize"
(cd "$root" && go build -o "$out/bin/" ./tools/symbolize)
ours=$out/bin/symbolize

if [ -n "${UNITS:-}" ]; then
  # The many-units binary (bench/symbolize/units.sh): start-up dominates.
  echo "== building the $UNITS-unit binary (bench/symbolize/units.sh; a few minutes the first time)"
  "$root/bench/symbolize/units.sh" "$out/units-$UNITS" "$UNITS"
  bin=$out/units-$UNITS/units
else
  bin=$out/bigcxx/bigcxx
  if [ ! -x "$bin" ]; then
    echo "== building the big binary (testdata/bigcxx/build.sh; a few minutes)"
    "$root/testdata/bigcxx/build.sh" "$out/bigcxx"
  fi
fi
size=$(stat -c %s "$bin")

# .text address range from the section headers.
read -r taddr tsize < <(readelf -SW "$bin" | awk '$2 == ".text" { print $4, $6 } $3 == ".text" { print $5, $7 }' | head -1)
addrs=$out/addrs-$n-$seed${UNITS:+-units$UNITS}.txt
if [ ! -s "$addrs" ]; then
  # MINSTD (x = x*48271 mod 2^31-1): exact in awk's doubles, the same on
  # every awk, so SEED fully determines the addresses.
  awk -v n="$n" -v seed="$seed" -v base="$((16#$taddr))" -v size="$((16#$tsize))" 'BEGIN {
    x = seed % 2147483647; if (x <= 0) x += 2147483646
    for (i = 0; i < n; i++) {
      x = (x * 48271) % 2147483647
      printf "0x%x\n", base + x % size
    }
  }' >"$addrs"
fi

echo "== $n addresses in .text [0x$taddr, +0x$tsize) of $bin ($((size / 1048576)) MB); style $style $inlines; $runs runs each"
for ((run = 1; run <= runs; run++)); do
  measure o "$ours" --obj="$bin" --output-style="$style" "$inlines" <"$addrs"
  measure l "$llvm" --obj="$bin" --output-style="$style" "$inlines" <"$addrs"
  echo "run $run: ours ${o_wall}s (cpu ${o_cpu}s) ${o_rss}KB   llvm ${l_wall}s (cpu ${l_cpu}s) ${l_rss}KB"
  ow+=("$o_wall"); orss+=("$o_rss"); lw+=("$l_wall"); lrss+=("$l_rss"); oc+=("$o_cpu"); lc+=("$l_cpu")
done

mow=$(printf '%s\n' "${ow[@]}" | median); mlw=$(printf '%s\n' "${lw[@]}" | median)
mor=$(printf '%s\n' "${orss[@]}" | median); mlr=$(printf '%s\n' "${lrss[@]}" | median)
moc=$(printf '%s\n' "${oc[@]}" | median); mlc=$(printf '%s\n' "${lc[@]}" | median)
echo
printf '%-22s %12s %12s %10s\n' "median" "symbolize" "$llvm" "llvm/ours"
printf '%-22s %12s %12s %10s\n' "wall (s)" "$mow" "$mlw" "$(ratio "$mlw" "$mow")"
printf '%-22s %12s %12s %10s\n' "cpu, user+sys (s)" "$moc" "$mlc" "$(ratio "$mlc" "$moc")"
printf '%-22s %12s %12s %10s\n' "peak RSS (KB)" "$mor" "$mlr" "$(ratio "$mlr" "$mor")"
echo "ours/llvm: wall $(ratio "$mow" "$mlw"), cpu $(ratio "$moc" "$mlc"), RSS $(ratio "$mor" "$mlr"); load $(cut -d' ' -f1-3 /proc/loadavg)"

# The two must agree byte for byte; say so if they do not.
if ! cmp -s <("$ours" --obj="$bin" --output-style="$style" "$inlines" <"$addrs") \
            <("$llvm" --obj="$bin" --output-style="$style" "$inlines" <"$addrs"); then
  echo "NOTE: outputs differ (diff the two commands above to see where)"
else
  echo "outputs identical"
fi
