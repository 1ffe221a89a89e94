#!/bin/bash
# shard.sh OUTDIR — shard.cc built by clang++-19 with -fmemory-profile and
# -fprofile-generate (non-PIE, lld), and six runs of it, each writing
#
#   shard-run-K.memprofraw   its raw MemProf profile
#   shard-run-K.profraw      its IR PGO counters
#
# with CPU and sleep arguments that make the runs' lifetimes overlap and
# their CPUs differ, so merging them with merged contexts depends on the
# fold order (internal/profmerge TestShardedMemProf).
set -euo pipefail
out=$(cd "$1" && pwd)
src=$(cd "$(dirname "$0")" && pwd)
lld=(-fuse-ld=lld)
if [ ! -x /usr/lib/llvm-19/bin/ld.lld ]; then
  lld=(-fuse-ld=lld --ld-path=/usr/bin/ld.lld-19)
fi
clang++-19 -O1 -gmlt -fdebug-info-for-profiling -fmemory-profile -fprofile-generate \
  -mno-omit-leaf-frame-pointer -fno-omit-frame-pointer -fno-optimize-sibling-calls \
  -no-pie -Wl,--build-id -pthread "${lld[@]}" "$src/shard.cc" -o "$out/shard"
cpus=(0 0 1 0 1 1)
for k in 0 1 2 3 4 5; do
  tmp=$(mktemp -d)
  LLVM_PROFILE_FILE=$out/shard-run-$k.profraw MEMPROF_OPTIONS=log_path=$tmp/prof \
    "$out/shard" "${cpus[$k]}" $((2 + k % 3)) >/dev/null
  mv "$tmp"/prof.* "$out/shard-run-$k.memprofraw"
  rm -rf "$tmp"
done
