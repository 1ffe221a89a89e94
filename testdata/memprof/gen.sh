#!/bin/bash
# gen.sh OUTDIR [LLVM...] — build the MemProf test programs and record raw
# profiles with the compiler-rt memprof runtime of each LLVM release.
#
# LLVM defaults to "16 19 22" (those installed are used; a missing clang++-N
# is skipped with a message). For each release N it writes into OUTDIR:
#
#   app-llvmN-nopie            app.cc, non-PIE (-no-pie)
#   app-llvmN-pie              app.cc, PIE (-pie)
#   app-llvmN-nopie-a.memprofraw    one run, input "a" (one dump)
#   app-llvmN-nopie-b.memprofraw    one run, input "b" (one dump)
#   app-llvmN-nopie-dump.memprofraw input "a" with an explicit
#                                   __memprof_profile_dump(): two dumps
#   app-llvmN-pie-a.memprofraw      PIE run, input "a"
#   many-llvmN                 many.cc, non-PIE: ~320 stacks, 160 sites
#   many-llvmN.memprofraw      its raw profile
#   hist-llvmN                 hist.cc with access histograms (N >= 19 only)
#   hist-llvmN.memprofraw      its raw profile (v4 for 19, v5 for 22)
#
# Raw versions: clang-16 writes raw v2, clang-19 raw v4, clang-22 raw v5.
# Flags are those of LLVM's llvm/test/tools/llvm-profdata/Inputs/
# update_memprof_inputs.sh plus -O1 and -pthread. Linking uses lld: the
# release's own ld.lld if installed, else ld.lld-19 via --ld-path (Debian's
# clang-16 and clang-22 packages here come without lld).
#
# Names are deterministic; contents are not (ASLR moves shared libraries,
# timestamps and CPU ids vary), so tests compare our output with the LLVM
# tools on the same files rather than with golden files.
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: gen.sh OUTDIR [LLVM...]" >&2
  exit 2
fi
out=$1
shift
versions=${*:-16 19 22}
src=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)

common=(-O1 -Wl,--no-rosegment -gmlt -fdebug-info-for-profiling -fmemory-profile
  -mno-omit-leaf-frame-pointer -fno-omit-frame-pointer -fno-optimize-sibling-calls
  -m64 -Wl,-build-id -pthread)
hist=(-mllvm -memprof-use-callbacks=true -mllvm -memprof-histogram)

# run BIN OUT ARGS...: run BIN under the memprof runtime, save the profile as OUT.
run() {
  local bin=$1 dst=$2
  shift 2
  local tmp
  tmp=$(mktemp -d)
  MEMPROF_OPTIONS=log_path=$tmp/prof "$bin" "$@" >/dev/null
  local files=("$tmp"/prof.*)
  if [ ${#files[@]} -ne 1 ] || [ ! -f "${files[0]}" ]; then
    echo "gen.sh: $bin $*: expected one profile, got: ${files[*]}" >&2
    exit 1
  fi
  mv "${files[0]}" "$dst"
  rm -rf "$tmp"
}

for v in $versions; do
  cxx=clang++-$v
  if ! command -v "$cxx" >/dev/null; then
    echo "gen.sh: $cxx not found, skipping LLVM $v" >&2
    continue
  fi
  lld=(-fuse-ld=lld)
  if [ ! -x "/usr/lib/llvm-$v/bin/ld.lld" ]; then
    lld=(-fuse-ld=lld --ld-path=/usr/bin/ld.lld-19)
  fi
  for pie in nopie pie; do
    "$cxx" "${common[@]}" "${lld[@]}" "-$(echo $pie | sed 's/nopie/no-pie/')" \
      "$src/app.cc" -o "$out/app-llvm$v-$pie"
  done
  run "$out/app-llvm$v-nopie" "$out/app-llvm$v-nopie-a.memprofraw" a
  run "$out/app-llvm$v-nopie" "$out/app-llvm$v-nopie-b.memprofraw" b
  run "$out/app-llvm$v-nopie" "$out/app-llvm$v-nopie-dump.memprofraw" a dump
  run "$out/app-llvm$v-pie" "$out/app-llvm$v-pie-a.memprofraw" a
  "$cxx" "${common[@]}" "${lld[@]}" -no-pie "$src/many.cc" -o "$out/many-llvm$v"
  run "$out/many-llvm$v" "$out/many-llvm$v.memprofraw"
  if [ "$v" -ge 19 ]; then
    "$cxx" "${common[@]}" "${lld[@]}" -no-pie "${hist[@]}" "$src/hist.cc" -o "$out/hist-llvm$v"
    run "$out/hist-llvm$v" "$out/hist-llvm$v.memprofraw"
  fi
done
