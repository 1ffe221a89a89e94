#!/usr/bin/env bash
# Builds the MemProf benchmark workload with clang++-19 -fmemory-profile and
# records 24 raw profiles (≈100 MB together) from runs with different seeds.
#
#   bench/memprof/gen.sh OUTDIR [LEAVES] [DEPTH] [ALLOCS_PER_RUN] [RUNS]
#
# Writes OUTDIR/workload (the profiled binary) and OUTDIR/raw/run-NN.memprofraw.
# Deterministic program; the raw profiles differ run to run only in timings.
set -euo pipefail
out=${1:?usage: gen.sh OUTDIR [LEAVES] [DEPTH] [ALLOCS] [RUNS]}
leaves=${2:-4096} depth=${3:-8} allocs=${4:-16000} runs=${5:-24}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out/raw"
cxx=${CXX:-clang++-19}
(cd "$here/../.." && go run ./bench/memprof/gen -leaves "$leaves" -depth "$depth") > "$out/workload.cc"
# Flags of LLVM's llvm/test/tools/llvm-profdata/Inputs/update_memprof_inputs.sh.
"$cxx" -O1 -fuse-ld=lld -Wl,--no-rosegment -gmlt -fdebug-info-for-profiling -fmemory-profile \
  -mno-omit-leaf-frame-pointer -fno-omit-frame-pointer -fno-optimize-sibling-calls -m64 \
  -Wl,-build-id -no-pie -o "$out/workload" "$out/workload.cc"
rm -f "$out"/raw/*
for i in $(seq 1 "$runs"); do
  n=$(printf '%02d' "$i")
  MEMPROF_OPTIONS="log_path=$out/raw/run-$n" "$out/workload" "$((i * 7919))" "$allocs"
  mv "$out/raw/run-$n".* "$out/raw/run-$n.memprofraw"
done
du -sh "$out/raw"
