// build: $CC -O2 -g -fdebug-info-for-profiling -fpseudo-probe-for-profiling -fno-omit-frame-pointer $PIE probe-nodebug.c -o $OUT
// A function without debug info (nodebug) in a probe binary: llvm-profgen-22
// recovers it from the symbol table (a function entry, a call target, its
// entry a prolog), llvm-profgen-19 knows nothing there.
#include <stdlib.h>

__attribute__((nodebug, noinline)) long mix(long x) { return x * 3 + (x >> 2); }

__attribute__((noinline)) long work(long n) {
  long s = 0;
  for (long i = 0; i < n; i++)
    s += (i & 7) ? mix(i) : i;
  return s;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 60000;
  return (int)(work(n) & 1);
}
