#!/usr/bin/env bash
# A second anchor for perf.data: Debian's create_llvm_prof (autofdo 0.19,
# `apt-get install autofdo`), which reads perf.data itself, against
# llvm-profgen-19 (--perfscript on the trace) and ours (--perfdata) on one
# LBR trace of examples/autofdo, built sample-ready with clang++-19 in
# DWARF 4 and in DWARF 5 (clang's default).
#
#   bench/profgen/create_llvm_prof.sh [WORKDIR]   # default out/bench/create_llvm_prof
#
# The perf.data files are the tests' generator's
# (internal/perfdata/perfdatatest, through TestWriteFromScript). Ours and
# llvm-profgen read the file as perf ≥ 5.7 writes it (hw_idx in branch
# stacks); create_llvm_prof gets it as older perf wrote it (no hw_idx) with
# the build-id feature and the process's COMM record, which it needs (see
# bench/README.md). Prints, per build: samples, each tool's wall time and
# peak RSS (one run each: these are small), whether ours equals
# llvm-profgen's bytes, and each function's total samples by tool (names
# without .__uniq. suffixes: create_llvm_prof drops them).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=${1:-$root/out/bench/create_llvm_prof}
tracer=${LBR_TRACE:-${RULES_PGO_SHARED:-$root/../shared}/tools/lbr-trace}
for t in create_llvm_prof clang++-19 llvm-profgen-19 /usr/bin/time "$tracer"; do
  command -v "$t" > /dev/null || { echo "create_llvm_prof.sh: $t not found" >&2; exit 1; }
done
mkdir -p "$work"
work=$(cd "$work" && pwd)
(cd "$root" && go build -o "$work/" ./tools/profgen && go test -c -o "$work/perfdatatest.test" ./internal/perfdata/perfdatatest)
gen() { # TRACE OUT [ENV...]
  env "${@:3}" PERFDATATEST_TRACE="$1" PERFDATATEST_OUT="$2" "$work/perfdatatest.test" -test.run '^TestWriteFromScript$' > /dev/null
}
timed() { # NAME CMD...: runs CMD, prints NAME wall and peak RSS
  local n=$1
  shift
  /usr/bin/time -f "$n %es %MKB" "$@" 2>&1 > /dev/null | grep -vE '^[IWE][0-9]{8} |^warning:|^$' | tail -1
}
# totals FILE: "name total" per top-level function of a text profile
totals() { awk '/^[^ ]/ { split($0, f, ":"); n = f[1]; sub(/\.__uniq\.[0-9]+$/, "", n); print n, f[2] }' "$1" | sort; }
ex=$root/examples/autofdo
cd "$work"
for dw in 4 5; do
  b=$work/app-dwarf$dw
  clang++-19 -O2 -gmlt -gdwarf-$dw -fdebug-info-for-profiling -funique-internal-linkage-names -Wl,--build-id \
    -I"$ex" "$ex/main.cc" "$ex/lib/work.cc" "$ex/lib/hash.cc" -o "$b"
  "$tracer" --start-at-entry --pid 4242 --period 101 --jitter 10 --out "$b.script" -- "$b" 100000 > /dev/null 2>&1
  id=$(readelf -n "$b" | sed -n 's/.*Build ID: //p')
  gen "$b.script" "$b.data"
  gen "$b.script" "$b.old.data" PERFDATATEST_NO_HW_INDEX=1 PERFDATATEST_BUILD_ID="$id" \
    PERFDATATEST_BUILD_ID_FILE="$b" PERFDATATEST_COMM="4242:$(basename "$b")"
  echo "== DWARF $dw: $(grep -c '^ ' "$b.script") LBR samples"
  timed "  llvm-profgen-19 --perfscript" llvm-profgen-19 --perfscript="$b.script" --binary="$b" --format=text --output="$b.llvm.txt"
  timed "  ours --perfdata" "$work/profgen" --perfdata="$b.data" --binary="$b" --format=text -o "$b.ours.txt"
  rm -f "$b.cl.txt"
  timed "  create_llvm_prof" create_llvm_prof --profile="$b.old.data" --binary="$b" --format=text --out="$b.cl.txt"
  cmp -s "$b.llvm.txt" "$b.ours.txt" && echo "  ours: byte-identical to llvm-profgen-19" || echo "  ours: DIFFERS from llvm-profgen-19"
  if [ ! -s "$b.cl.txt" ]; then
    echo "  create_llvm_prof: empty profile; it says:"
    create_llvm_prof --profile="$b.old.data" --binary="$b" --format=text --out=/dev/null --logtostderr 2>&1 |
      grep -E '^[EW]' | grep -v module_grouper | sed -E 's/^[EW][0-9]+ [0-9:.]+ +[0-9]+ /    /'
    continue
  fi
  echo "  function totals: llvm-profgen-19 (= ours) | create_llvm_prof"
  join -a1 -a2 -e - -o 0,1.2,2.2 <(totals "$b.llvm.txt") <(totals "$b.cl.txt") | sort -k2,2nr | sed 's/^/    /'
done
