// build: $CXX -O2 -g -fdebug-info-for-profiling -fno-omit-frame-pointer $PIE inline.cc -o $OUT
// Heavy inlining (three levels, in a loop that is unrolled), recursion, a
// template and a global initializer, for profgen's differential tests.
#include <cstdio>
#include <cstdlib>

namespace {
struct Acc {
  long v = 0;
  void add(long x) { v += x * 3 + (x >> 2); }
};

template <typename T> inline T clampv(T x, T lo, T hi) { return x < lo ? lo : x > hi ? hi : x; }

inline long mix(long a, long b) {
  Acc acc;
  for (int i = 0; i < 4; i++)
    acc.add(clampv(a + i, 0L, b));
  return acc.v;
}
} // namespace

__attribute__((noinline)) long walk(int depth, long x) {
  if (depth == 0)
    return mix(x, 1000);
  return walk(depth - 1, x + depth) + (x & 7);
}

__attribute__((noinline)) long sum(const long *p, int n) {
  long s = 0;
  for (int i = 0; i < n; i++)
    s += p[i] * (i & 3);
  return s;
}

static long table[64];
static long seed = std::rand() % 7; // a __cxx_global_var_init

int main(int argc, char **argv) {
  int k = argc > 1 ? std::atoi(argv[1]) : 200;
  long t = seed;
  for (int i = 0; i < 64; i++)
    table[i] = i * i;
  for (int i = 0; i < k; i++) {
    t += walk(i % 6, i);
    t += sum(table, 64);
    t += mix(i, t & 1023);
  }
  std::printf("%ld\n", t);
  return 0;
}
