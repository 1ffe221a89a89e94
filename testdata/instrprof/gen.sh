#!/bin/bash
# gen.sh OUTDIR [LLVM...] — build the instrumented-profile test programs and
# record raw profiles (.profraw) with the compiler-rt profile runtime of each
# LLVM release.
#
# LLVM defaults to "16 19 22" (a missing clang-N is skipped with a message).
# For each release N and each instrumentation MODE it writes into OUTDIR:
#
#   MODE ir     IR-level PGO, -fprofile-generate
#   MODE fe     front-end PGO, -fprofile-instr-generate
#   MODE irnc   IR-level PGO, names not compressed
#               (-mllvm -enable-name-compression=false)
#   MODE novp   IR-level PGO without value profiling (-mllvm -disable-vp)
#   MODE cov    IR-level function-entry coverage, single-byte counters
#               (-mllvm -pgo-function-entry-coverage)
#   MODE entry  IR-level PGO, entry count first (-mllvm -pgo-instrument-entry)
#   MODE mcdc   front-end PGO with MC/DC bitmaps (-fcoverage-mapping
#               -fcoverage-mcdc; N >= 19)
#   MODE temporal  IR-level PGO with timestamps
#               (-mllvm -pgo-temporal-instrumentation; N >= 19)
#   MODE sbc    front-end single-byte coverage
#               (-mllvm -enable-single-byte-coverage; N >= 19)
#   MODE vtable IR-level PGO with vtable value profiling
#               (-mllvm -enable-vtable-value-profiling; N >= 19)
#   MODE cs     context-sensitive IR PGO: built with -fprofile-use= the
#               ir raws merged by llvm-profdata-N and -fcs-profile-generate
#
#   app-llvmN-MODE               app.c + lib.c (C; two static helper()s)
#   app-llvmN-MODE-I.profraw     one run with argument I, for I in 3 10 50
#   shapes-llvmN-MODE            shapes.cc (C++)
#   shapes-llvmN-MODE-I.profraw  likewise
#
# For N >= 19 also PGO and MemProf of one run (-fprofile-generate
# -fmemory-profile, linked with lld):
#
#   shapes-llvmN-mem             the binary
#   shapes-llvmN-mem.profraw     its instrumentation profile (argument 20)
#   shapes-llvmN-mem.memprofraw  its MemProf profile, same run
#
# Raw versions: clang-16 writes raw v8, clang-19 and clang-22 raw v10.
# Binaries are linked with --build-id, so every raw carries a binary id.
#
# Names are deterministic; so are the raw profiles' counters, but not their
# function pointers (PIE): tests compare our output with llvm-profdata's on
# the same files rather than with golden files.
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

common=(-O1 -Wl,--build-id)

# run BIN OUT ARGS...: run BIN with the profile runtime, save its raw as OUT.
run() {
  local bin=$1 dst=$2
  shift 2
  LLVM_PROFILE_FILE=$dst "$bin" "$@" >/dev/null
  if [ ! -s "$dst" ]; then
    echo "gen.sh: $bin $*: no profile written" >&2
    exit 1
  fi
}

for v in $versions; do
  if ! command -v "clang-$v" >/dev/null; then
    echo "gen.sh: clang-$v not found, skipping LLVM $v" >&2
    continue
  fi
  modes="ir fe irnc novp cov entry cs"
  if [ "$v" -ge 19 ]; then
    modes="$modes mcdc temporal sbc vtable"
  fi
  for mode in $modes; do
    case $mode in
      ir) flags=(-fprofile-generate) ;;
      fe) flags=(-fprofile-instr-generate) ;;
      irnc) flags=(-fprofile-generate -mllvm -enable-name-compression=false) ;;
      novp) flags=(-fprofile-generate -mllvm -disable-vp) ;;
      cov) flags=(-fprofile-generate -mllvm -pgo-function-entry-coverage) ;;
      entry) flags=(-fprofile-generate -mllvm -pgo-instrument-entry) ;;
      mcdc) flags=(-fprofile-instr-generate -fcoverage-mapping -fcoverage-mcdc) ;;
      temporal) flags=(-fprofile-generate -mllvm -pgo-temporal-instrumentation) ;;
      sbc) flags=(-fprofile-instr-generate -mllvm -enable-single-byte-coverage) ;;
      vtable) flags=(-fprofile-generate -mllvm -enable-vtable-value-profiling) ;;
      cs)
        "llvm-profdata-$v" merge -o "$out/app-llvm$v-ir.profdata" "$out"/app-llvm$v-ir-*.profraw
        "llvm-profdata-$v" merge -o "$out/shapes-llvm$v-ir.profdata" "$out"/shapes-llvm$v-ir-*.profraw
        ;;
    esac
    if [ "$mode" = cs ]; then
      "clang-$v" "${common[@]}" -fprofile-use="$out/app-llvm$v-ir.profdata" -fcs-profile-generate \
        "$src/app.c" "$src/lib.c" -o "$out/app-llvm$v-$mode"
      "clang++-$v" "${common[@]}" -fprofile-use="$out/shapes-llvm$v-ir.profdata" -fcs-profile-generate \
        "$src/shapes.cc" -o "$out/shapes-llvm$v-$mode"
    else
      "clang-$v" "${common[@]}" "${flags[@]}" "$src/app.c" "$src/lib.c" -o "$out/app-llvm$v-$mode"
      "clang++-$v" "${common[@]}" "${flags[@]}" "$src/shapes.cc" -o "$out/shapes-llvm$v-$mode"
    fi
    for i in 3 10 50; do
      run "$out/app-llvm$v-$mode" "$out/app-llvm$v-$mode-$i.profraw" "$i"
      run "$out/shapes-llvm$v-$mode" "$out/shapes-llvm$v-$mode-$i.profraw" "$i"
    done
  done
  if [ "$v" -ge 19 ]; then
    lld=(-fuse-ld=lld)
    if [ ! -x "/usr/lib/llvm-$v/bin/ld.lld" ]; then
      lld=(-fuse-ld=lld --ld-path=/usr/bin/ld.lld-19)
    fi
    "clang++-$v" -O1 -gmlt -fdebug-info-for-profiling -fmemory-profile -fprofile-generate \
      -mno-omit-leaf-frame-pointer -fno-omit-frame-pointer -fno-optimize-sibling-calls \
      -Wl,--build-id -pthread "${lld[@]}" "$src/shapes.cc" -o "$out/shapes-llvm$v-mem"
    tmp=$(mktemp -d)
    LLVM_PROFILE_FILE=$out/shapes-llvm$v-mem.profraw MEMPROF_OPTIONS=log_path=$tmp/prof \
      "$out/shapes-llvm$v-mem" 20 >/dev/null
    mv "$tmp"/prof.* "$out/shapes-llvm$v-mem.memprofraw"
    rm -rf "$tmp"
  fi
done
