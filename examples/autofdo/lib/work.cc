#include "lib/work.h"

#include <cstdio>

#include "lib/hash.h"

__attribute__((noinline)) static uint64_t step(uint64_t acc, int i) {
  uint64_t v = mix(acc + i);
  if (v % 7 == 0) return acc + (v >> 3);
  if (v == 0) return rehash_after_error(acc);
  return acc ^ v;
}

__attribute__((noinline)) uint64_t checksum(int n) {
  uint64_t acc = 1;
  for (int i = 0; i < n; i++) acc = step(acc, i);
  return acc;
}

__attribute__((noinline)) uint64_t audit(int n) {
  uint64_t acc = 0;
  for (int i = 0; i < n; i++) {
    acc += rehash_after_error(i);
    std::printf("audit %d: %llu\n", i, (unsigned long long)acc);
  }
  return acc;
}
