// build: $CXX -O2 -g -fdebug-info-for-profiling -fno-omit-frame-pointer $PIE cycles.cc -o $OUT
// Call-graph cycles and many callees of different heat, for the CS
// pre-inliner's tests: mutual recursion (an SCC of three functions whose
// members the pre-inliner orders by edge weight), a function calling
// several small functions from several call sites (candidate order, size
// limits), and callees both inlined and not.
#include <cstdio>
#include <cstdlib>

__attribute__((noinline)) long leaf1(long x) { return x * 3 + 1; }
__attribute__((noinline)) long leaf2(long x) { return (x ^ 0x55) + 2; }
__attribute__((noinline)) long leaf3(long x) {
  long s = 0;
  for (int i = 0; i < (x & 7); i++)
    s += i * x;
  return s;
}
inline long small(long x) { return leaf1(x) + leaf2(x >> 1); }

long odd(long n, long acc);
__attribute__((noinline)) long even(long n, long acc) {
  if (n <= 0)
    return acc + leaf1(acc);
  return odd(n - 1, acc + small(n));
}
__attribute__((noinline)) long third(long n, long acc) {
  if (n <= 0)
    return acc;
  return even(n - 1, acc ^ leaf2(n));
}
__attribute__((noinline)) long odd(long n, long acc) {
  if (n <= 0)
    return acc + leaf3(acc);
  if (n % 3 == 0)
    return third(n - 1, acc + 1);
  return even(n - 1, acc + leaf1(n));
}

__attribute__((noinline)) long fanout(long x) {
  long s = leaf1(x);
  if (x & 1)
    s += leaf2(x);
  if (x & 2)
    s += leaf3(x);
  if ((x & 15) == 0)
    s += leaf1(s) + leaf2(s) + small(s);
  return s + small(x);
}

int main(int argc, char **argv) {
  int k = argc > 1 ? std::atoi(argv[1]) : 400;
  long t = 0;
  for (int i = 0; i < k; i++) {
    t += even(i % 9, t & 255);
    t += fanout(i);
    if (i % 5 == 0)
      t += odd(i % 7, t & 63);
  }
  std::printf("%ld\n", t);
  return 0;
}
