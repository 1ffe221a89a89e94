// Instrumented-PGO example: a record scanner (lib/scan.cc) with a hot classify loop, a cold
// recovery path the training runs never take, and a hot and a cold allocation site
// (lib/arena.cc). Usage: app [N] [SEED]
#include <cstdio>
#include <cstdlib>

#include "lib/arena.h"
#include "lib/scan.h"

int main(int argc, char** argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 100000;
  std::uint64_t seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1;
  if (n < 0) {
    std::fprintf(stderr, "usage: %s [N] [SEED]\n", argv[0]);
    return 2;
  }
  std::uint64_t f = scan::count_fields(n, seed);
  std::printf("fields(%d records, seed %llu) = %llu, kept %zu bytes\n", n, (unsigned long long)seed,
              (unsigned long long)f, arena::kept());
  return 0;
}
