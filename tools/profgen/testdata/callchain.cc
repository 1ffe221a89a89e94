// build: $CXX -O2 -g -fdebug-info-for-profiling -fno-omit-frame-pointer $PIE callchain.cc -o $OUT
// Callees whose entry is only inferred, for profgen's CS differential tests
// (TestInferredCallCounts). main calls down a chain of 41 functions, each of
// which starts with the call of the next and loops only after it returns:
// the 41 branches after main's call are calls. A sample whose LBR (32
// entries, or 8) still holds one of the chain's first calls therefore has
// its IP at a function entry, in a prologue, and llvm-profgen drops it: the
// first links' calls are never branch samples, so their contexts get no
// head samples and their call counts are inferred
// (populateInferredFunctionSamples), and the range before each of those
// calls is never counted. The deepest such link's first body record, the
// line of its call (offset 1), holds only the call target when its count is
// estimated (getHeadSamplesEstimate: at least 1 when the total is not 0),
// and the estimate carries up the chain. Every third link is inlined into
// the one before, so inferred and inlined contexts alternate.
#include <cstdio>
#include <cstdlib>

template <int N> __attribute__((noinline)) int link(int x);

__attribute__((noinline)) int churn(int x) {
  int s = x;
  for (int i = 0; i < 64 + (x & 15); i++)
    s = s * 33 + i;
  return s;
}

// Every link leaves its result here: the line of a call holds nothing
// but the call and its argument, which run before it.
int last;

// Inlined into link<N>: its context never has head samples.
template <int N> __attribute__((always_inline)) inline void hop(int x) {
  link<N + 1>(x + 1);
  int r = last;
  for (int i = 0; i < (r & 7); i++)
    r += i * N;
  last = r;
}

template <int N> __attribute__((noinline)) int link(int x) {
  N % 3 == 2 ? hop<N>(x) : (void)link<N + 1>(x + 1);
  int r = last;
  for (int i = 0; i < (r & 3) + 2; i++)
    r = r * 7 + i;
  last = r;
  return r;
}

template <> __attribute__((noinline)) int link<40>(int x) {
  last = churn(x) + churn(x + 1);
  return last;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 700;
  int s = 0;
  for (int i = 0; i < n; i++)
    s += link<0>(i);
  printf("%d\n", s);
  return 0;
}
