#include "lib/hash.h"

#include <cstdio>

__attribute__((noinline)) uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return x;
}

__attribute__((noinline)) uint64_t rehash_after_error(uint64_t x) {
  std::fprintf(stderr, "rehashing %llu after an error\n", (unsigned long long)x);
  for (int i = 0; i < 7; i++) x = x * 31 + 7;
  return x;
}
