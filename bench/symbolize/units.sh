#!/usr/bin/env bash
# Generates and builds "units", a C++ program of many small compile units
# (the shape where start-up dominates symbolization: every unit's header,
# abbreviations and line table for few addresses each).
#
#   bench/symbolize/units.sh OUTDIR [UNITS]     # default 600 units
#
# OUTDIR/units is the binary (clang++-22 -O2 -g, DWARF 5); OUTDIR/src the
# generated sources. Each unit defines a class with a virtual method, a
# template instantiated with the unit's own type, a static helper that is
# inlined and an entry function that main calls. Deterministic: no
# randomness, -fdebug-compilation-dir and -ffile-prefix-map make the
# binary independent of OUTDIR. Builds JOBS (2) units at a time.
set -euo pipefail
out=${1:?usage: units.sh OUTDIR [UNITS]}
units=${2:-600}
cxx=${CXX:-clang++-22}
jobs=${JOBS:-2}
mkdir -p "$out/src" "$out/obj"
out=$(cd "$out" && pwd)
src=$out/src
command -v "$cxx" >/dev/null || { echo "units.sh: $cxx not found" >&2; exit 1; }
stamp=$(printf '%s %s %s\n' "$units" "$($cxx --version | head -1)" "$(sha256sum "$0" | cut -c1-16)")
if [ "$(cat "$out/stamp" 2>/dev/null)" = "$stamp" ] && [ -x "$out/units" ]; then
  exit 0
fi
cat >"$src/common.h" <<'H'
#pragma once
template <typename T> struct Acc {
  T sum{};
  void add(T v) { sum += v * 3 + (v >> 1); }
  T get() const { return sum; }
};
struct Base {
  virtual ~Base() {}
  virtual long run(long n) const = 0;
};
H
for ((i = 0; i < units; i++)); do
  cat >"$src/u$i.cc" <<C
#include "common.h"
namespace u$i {
struct Item { long v; };
static inline long mix(long a, long b) { return (a * 31) ^ (b + $i); }
struct Impl : Base {
  long run(long n) const override {
    Acc<long> acc;
    for (long k = 0; k < n; k++) acc.add(mix(k, n));
    return acc.get();
  }
};
long entry(long n) {
  Impl x;
  const Base &b = x;
  Item it{b.run(n % 7 + $i % 5)};
  return it.v + mix(n, it.v);
}
}
C
done
{
  echo '#include <cstdio>'
  for ((i = 0; i < units; i++)); do echo "namespace u$i { long entry(long); }"; done
  echo "int main(int argc, char **) {"
  echo "  long s = 0;"
  for ((i = 0; i < units; i++)); do echo "  s += u$i::entry(argc + $i);"; done
  echo '  std::printf("%ld\n", s);'
  echo "}"
} >"$src/main.cc"
flags=(-O2 -g -fdebug-compilation-dir=. "-ffile-prefix-map=$src=src" -c)
ls "$src"/*.cc | xargs -P "$jobs" -I{} sh -c 'f={}; b=$(basename "$f" .cc); [ -s "'"$out"'/obj/$b.o" ] || '"$cxx"' '"${flags[*]}"' "$f" -o "'"$out"'/obj/$b.o"'
"$cxx" -Wl,--build-id=sha1 "$out"/obj/*.o -o "$out/units"
echo "$stamp" >"$out/stamp"
echo "units.sh: $out/units is $(stat -c %s "$out/units") bytes, $units units + main"
