// build: $CC -O2 -g -fdebug-info-for-profiling -fno-omit-frame-pointer $PIE calls.c -o $OUT
// Loops, recursion, direct and indirect calls and a tail call, for
// perfscript's differential tests against llvm-profgen.
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long collatz(long n) {
  long steps = 0;
  while (n != 1) {
    n = (n & 1) ? 3 * n + 1 : n / 2;
    steps++;
  }
  return steps;
}

__attribute__((noinline)) long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

static long square(long x) { return x * x; }

__attribute__((noinline)) long classify(long x) {
  if (x > 5)
    return collatz(x); // tail call
  return square(x);
}

__attribute__((noinline)) long twice(long x) { return 2 * x; }
__attribute__((noinline)) long negate(long x) { return -x; }
long (*const ops[])(long) = {twice, negate, square};

int main(int argc, char **argv) {
  int k = argc > 1 ? atoi(argv[1]) : 300;
  long t = 0;
  for (int i = 1; i < k; i++) {
    t += collatz(i);
    t += classify(i % 9);
    t += ops[i % 3](i);
  }
  for (int i = 0; i < 3; i++)
    t += fib(16);
  printf("%ld\n", t);
  return 0;
}
