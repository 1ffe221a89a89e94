// build: $CC -g -fdebug-info-for-profiling $OPT $PIE loops.c -o $OUT
// A C program whose loops and conditionals on one line give DWARF
// discriminators, with static inline helpers and a function pointer.
#include <stdio.h>
#include <stdlib.h>

static int data[256];

static inline int clamp(int v) { return v < 0 ? 0 : v > 255 ? 255 : v; }

static inline int pick(int i) { return data[clamp(i)] + (i & 1 ? 3 : 5); }

static int __attribute__((noinline)) sum(int n) {
  int s = 0;
  for (int i = 0; i < n; i++) s += pick(i); for (int j = 0; j < n; j += 2) s ^= pick(j * 3);
  return s;
}

static int twice(int x) { return 2 * x; }
static int thrice(int x) { return 3 * x; }

int __attribute__((noinline)) apply(int (*f)(int), int n) {
  int r = 0;
  switch (n & 3) {
  case 0: r = f(n); break;
  case 1: r = f(n + 1) + sum(n); break;
  default: r = sum(n) - f(n - 1); break;
  }
  return r;
}

int main(int argc, char **argv) {
  for (int i = 0; i < 256; i++) data[i] = rand() & 0xff;
  int total = 0;
  for (int i = 0; i < argc * 100; i++) total += apply(i & 4 ? twice : thrice, i);
  printf("%d\n", total);
  return 0;
}
