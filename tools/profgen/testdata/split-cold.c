// build: sh split-cold.sh $CC $OUT $PIE
// Functions split by -fsplit-machine-functions into a hot part (step,
// walk) and a cold one (step.cold, walk.cold: a NOTYPE symbol, a second
// range of the function's DWARF) after an instrumented training run that
// never takes the branches the traced run (argument 7) takes.
#include <stdio.h>
#include <stdlib.h>

volatile int sink;

__attribute__((noinline)) static void report(int v) { sink += v; }

__attribute__((noinline)) int step(int x, int rare) {
  int r = x * 3 + 1;
  if (x % rare == 0) { // cold in the training run
    for (int i = 0; i < 4; i++)
      report(r + i);
    r ^= 0x55;
  }
  return r;
}

__attribute__((noinline)) long walk(int n, int rare) {
  long s = 0;
  for (int i = 1; i < n; i++) {
    s += step(i, rare);
    if (s < 0) {
      report((int)s);
      abort();
    }
  }
  return s;
}

int main(int argc, char **argv) {
  int rare = argc > 1 ? atoi(argv[1]) : 1 << 30;
  printf("%ld\n", walk(6000, rare));
  return 0;
}
