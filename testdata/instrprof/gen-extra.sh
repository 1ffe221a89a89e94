#!/bin/bash
# gen-extra.sh OUTDIR [LLVM...] — the instrumented-profile fixtures that
# gen.sh does not build (kept apart so that gen.sh's stay cached): a
# program whose code is partly in a shared library, and a temporal
# profiling program run more often than llvm-profdata's trace reservoir
# holds.
#
# LLVM defaults to "16 19 22" (a missing clang-N is skipped with a message).
# For each release N and MODE ir (-fprofile-generate) and fe
# (-fprofile-instr-generate), both the executable and the library
# instrumented, PROG appso (C: so.c, appso.c) and appsoxx (C++: soxx.cc,
# appsoxx.cc):
#
#   libso-llvmN-MODE.so          so.c, -shared -fPIC (the profile runtime is
#   libsoxx-llvmN-MODE.so        linked into it too: each module has its own)
#   appso-llvmN-MODE             appso.c, linked with the library (rpath
#   appsoxx-llvmN-MODE           $ORIGIN)
#   PROG-llvmN-MODE-I.profraw    one run with argument I, for I in 3 10 50,
#                                LLVM_PROFILE_FILE=that name: the runtime of
#                                each module writes its own raw profile, the
#                                second appended to the first, so the file
#                                holds two profiles one after the other
#   PROG-llvmN-MODE-m-SIG_0.profraw  the three runs again with
#                                LLVM_PROFILE_FILE=PROG-llvmN-MODE-m-%m.profraw:
#                                %m names one file per module (SIG, the
#                                module's signature) and turns on the
#                                runtime's online merging, so each file holds
#                                one module's counts of all three runs
#
# For N >= 19 also (-fprofile-generate -mllvm -pgo-temporal-instrumentation):
#
#   order-llvmN-temporal              order.c
#   order-llvmN-temporal-K.profraw    one run with argument K, K = 0..149:
#                                     150 traces, more than the default
#                                     reservoir of 100
#
# Binaries are linked with --build-id, so every raw carries a binary id.
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: gen-extra.sh OUTDIR [LLVM...]" >&2
  exit 2
fi
out=$1
shift
versions=${*:-16 19 22}
src=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)

common=(-O1 -Wl,--build-id)

for v in $versions; do
  if ! command -v "clang-$v" >/dev/null; then
    echo "gen-extra.sh: clang-$v not found, skipping LLVM $v" >&2
    continue
  fi
  for mode in ir fe; do
    case $mode in
      ir) flags=(-fprofile-generate) ;;
      fe) flags=(-fprofile-instr-generate) ;;
    esac
    for prog in "appso clang-$v so.c appso.c" "appsoxx clang++-$v soxx.cc appsoxx.cc"; do
      read -r name cc lib exe <<<"$prog"
      base=$out/$name-llvm$v-$mode
      solib=$out/lib${name#app}-llvm$v-$mode.so
      "$cc" "${common[@]}" "${flags[@]}" -fPIC -shared "$src/$lib" -o "$solib"
      "$cc" "${common[@]}" "${flags[@]}" "$src/$exe" "$solib" -Wl,-rpath,'$ORIGIN' -o "$base"
      for i in 3 10 50; do
        LLVM_PROFILE_FILE=$base-$i.profraw "$base" "$i" >/dev/null
        LLVM_PROFILE_FILE=$base-m-%m.profraw "$base" "$i" >/dev/null
      done
      n=$(ls "$base"-m-*.profraw | wc -l)
      if [ ! -s "$base-3.profraw" ] || [ "$n" -ne 2 ]; then
        echo "gen-extra.sh: $base: want a raw per run and two %m raws, found $n" >&2
        exit 1
      fi
    done
  done
  if [ "$v" -ge 19 ]; then
    bin=$out/order-llvm$v-temporal
    "clang-$v" "${common[@]}" -fprofile-generate -mllvm -pgo-temporal-instrumentation \
      "$src/order.c" -o "$bin"
    for k in $(seq 0 149); do
      LLVM_PROFILE_FILE=$bin-$k.profraw "$bin" "$k"
    done
  fi
done
