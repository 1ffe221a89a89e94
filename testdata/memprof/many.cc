// clang++-19 -O1 -fuse-ld=lld --ld-path=/usr/bin/ld.lld-19 -Wl,--no-rosegment -gmlt -fdebug-info-for-profiling -fmemory-profile -mno-omit-leaf-frame-pointer -fno-omit-frame-pointer -fno-optimize-sibling-calls -m64 -Wl,-build-id -no-pie -pthread many.cc -o many
//
// gen.sh builds this file with clang++-16, -19 and -22 (non-PIE only). It
// has 160 allocation sites (template instances), each reached from two
// callers, so the raw profile holds about 320 stacks: enough for LLVM's
// DenseMaps (stack map, frame and call-stack maps) to grow several times,
// which exercises the iteration-order emulation.
#include <cstdio>
#include <utility>

static volatile long sink;
static char *volatile escape; // keeps clang from eliding new/delete pairs

template <int N> __attribute__((noinline)) void site() {
  char *p = new char[N * 8 + 8];
  escape = p;
  p[N] = (char)N;
  sink += p[N];
  delete[] p;
}

template <int... Ns> __attribute__((noinline)) void left(std::integer_sequence<int, Ns...>) {
  (site<Ns>(), ...);
}

template <int... Ns> __attribute__((noinline)) void right(std::integer_sequence<int, Ns...>) {
  (site<Ns>(), ...);
}

int main() {
  left(std::make_integer_sequence<int, 160>());
  right(std::make_integer_sequence<int, 160>());
  printf("%ld\n", (long)sink);
  return 0;
}
