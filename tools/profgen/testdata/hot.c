// build: $CC -O2 -gmlt -gdwarf-4 -fdebug-info-for-profiling -Wl,--build-id $PIE hot.c -o $OUT
// Three functions of clearly different weight (about 8:4:1), for the
// comparison with create_llvm_prof (create_llvm_prof_test.go), which reads
// DWARF 4 only.
#include <stdlib.h>

__attribute__((noinline)) unsigned long heavy(unsigned long x) {
  for (int i = 0; i < 800; i++) x = (x ^ (x >> 7)) * 6364136223846793005UL + i;
  return x;
}

__attribute__((noinline)) unsigned long medium(unsigned long x) {
  for (int i = 0; i < 400; i++) x = (x ^ (x >> 9)) * 1442695040888963407UL + i;
  return x;
}

__attribute__((noinline)) unsigned long light(unsigned long x) {
  for (int i = 0; i < 100; i++) x = (x ^ (x >> 5)) * 2862933555777941757UL + i;
  return x;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  unsigned long s = 0;
  for (int i = 0; i < n; i++) s += light(medium(heavy(s + i)));
  return (int)(s & 1);
}
