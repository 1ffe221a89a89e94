#!/usr/bin/env bash
# gen.sh WORKDIR [FUNCS] [RUNS]: generate a C program of FUNCS functions
# (default 20,000) in 10 translation units, build it with clang-19
# -O1 -fprofile-generate, and run it RUNS times (default 200) with different
# arguments, keeping WORKDIR/raw/run-NNN.profraw (≈2 MB each at 20,000
# functions: 64-byte data records, ~4 counters per function, compressed
# names, value data of one indirect-call site per TU).
#
# The program: each function mixes its argument with a branch and a short
# loop; each TU's driver calls its functions through a table (an
# indirect-call site) in an order and with arguments that depend on the run
# number, so the runs' counters differ.
set -euo pipefail
work=$1
funcs=${2:-20000}
runs=${3:-200}
tus=10
per=$((funcs / tus))
mkdir -p "$work/src" "$work/raw"
src=$work/src
for t in $(seq 0 $((tus - 1))); do
  {
    echo "static unsigned sink$t;"
    for i in $(seq 0 $((per - 1))); do
      f=$((t * per + i))
      echo "unsigned f$f(unsigned x) { if ((x ^ $f) & 1) x = x * 3 + $((f % 7 + 1)); else x >>= 1; for (unsigned i = 0; i < (x & 3); i++) x += i ^ $((f % 5)); return x; }"
    done
    echo "typedef unsigned (*fn)(unsigned);"
    echo "static fn table$t[] = {"
    for i in $(seq 0 $((per - 1))); do echo "f$((t * per + i)),"; done
    echo "};"
    echo "void drive$t(unsigned seed) { unsigned n = sizeof table$t / sizeof *table$t; for (unsigned k = 0; k < n / 2 + seed % n; k++) sink$t += table$t[(k * 7 + seed) % n](seed + k); }"
  } >"$src/tu$t.c"
done
{
  echo "#include <stdlib.h>"
  for t in $(seq 0 $((tus - 1))); do echo "void drive$t(unsigned);"; done
  echo "int main(int argc, char **argv) { unsigned s = argc > 1 ? (unsigned)atoi(argv[1]) : 1;"
  for t in $(seq 0 $((tus - 1))); do echo "  if ((s + $t) % 3) drive$t(s * $((t + 1)));"; done
  echo "  return 0; }"
} >"$src/main.c"
objs=()
for c in "$src"/*.c; do
  o=${c%.c}.o
  clang-19 -O1 -fprofile-generate -c "$c" -o "$o" &
  objs+=("$o")
  # two compilers at a time
  [ "$(jobs -r | wc -l)" -lt 2 ] || wait -n
done
wait
clang-19 -O1 -fprofile-generate -Wl,--build-id -o "$work/workload" "${objs[@]}"
for r in $(seq 1 "$runs"); do
  LLVM_PROFILE_FILE=$(printf '%s/raw/run-%03d.profraw' "$work" "$r") "$work/workload" "$r"
done
