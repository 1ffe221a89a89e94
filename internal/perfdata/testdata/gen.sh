#!/usr/bin/env bash
# Records perf.data files of testdata/prog.c with this machine's perf, in
# file mode, compressed (-z) and pipe mode (-o -), and prints what
# `perf script` reads from each, for internal/perfdata's tests:
#   OUTDIR/<mode>.data          the recording
#   OUTDIR/<mode>.samples.txt   perf script -F pid,tid,time,period,ip --ns -G
#   OUTDIR/<mode>.chains.txt    perf script -F pid,tid,time,ip --ns (callchains)
# Software events only (cpu-clock): no PMU is needed. Usage: gen.sh OUTDIR
set -euo pipefail
out=$1
cd "$(dirname "$0")"
clang-22 -O1 -g -fno-omit-frame-pointer -pthread prog.c -o "$out/prog"
rec() { perf record -q -e cpu-clock -F 20000 --call-graph=fp "$@" -- "$out/prog" 4000; }
rec -o "$out/file.data" > /dev/null
rec -z -o "$out/zstd.data" > /dev/null
rec -o - > "$out/pipe.data"
for m in file zstd pipe; do
  perf script -i "$out/$m.data" -F pid,tid,time,period,ip --ns -G > "$out/$m.samples.txt"
  perf script -i "$out/$m.data" -F pid,tid,time,ip --ns > "$out/$m.chains.txt"
done
