// The program of the mutation fixtures (gen.sh): loops, calls, an inlined
// static helper and an indirect call, small enough that its traces and
// profiles stay a few kilobytes.
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

static long square(long x) { return x * x; }

__attribute__((noinline)) long classify(long x) {
  if (x > 5)
    return collatz(x);
  return square(x);
}

__attribute__((noinline)) long twice(long x) { return 2 * x; }
__attribute__((noinline)) long negate(long x) { return -x; }
long (*const ops[])(long) = {twice, negate};

int main(int argc, char **argv) {
  int k = argc > 1 ? atoi(argv[1]) : 200;
  long t = 0;
  for (int i = 1; i < k; i++) {
    t += collatz(i);
    t += classify(i % 9);
    t += ops[i % 2](i);
  }
  printf("%ld\n", t);
  return 0;
}
