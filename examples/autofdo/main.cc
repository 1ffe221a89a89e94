// AutoFDO example: a hot checksum loop (lib/work.cc, lib/hash.cc) and cold paths that the
// training run never takes. Usage: app [N] [--audit]
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "lib/work.h"

__attribute__((noinline)) static void usage(const char* argv0) {
  std::fprintf(stderr, "usage: %s [N] [--audit]\n", argv0);
  std::exit(2);
}

int main(int argc, char** argv) {
  int n = 200000;
  bool audit_run = false;
  for (int i = 1; i < argc; i++) {
    if (std::strcmp(argv[i], "--audit") == 0) {
      audit_run = true;
    } else if (argv[i][0] >= '0' && argv[i][0] <= '9') {
      n = std::atoi(argv[i]);
    } else {
      usage(argv[0]);
    }
  }
  std::printf("checksum(%d) = %llu\n", n, (unsigned long long)checksum(n));
  if (audit_run) std::printf("audit = %llu\n", (unsigned long long)audit(3));
  return 0;
}
