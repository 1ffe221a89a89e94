// build: $CXX -O2 -g -fdebug-info-for-profiling -fno-omit-frame-pointer $PIE vcalls.cc -o $OUT
// Virtual calls through several vtables (one class in an anonymous
// namespace, one call site inlined into two callers), for the data-access
// (vtable type profile) tests. With PRINT_BASE set it prints the address it
// was loaded at (the ELF header's), for the test that maps the load
// addresses it records back to the binary.
#include <cstdio>
#include <cstdlib>

extern "C" char __ehdr_start;

struct Base {
  virtual ~Base() {}
  virtual int func(int a, int b) = 0;
  virtual int other(int a) { return a + 1; }
};

struct Derived1 : Base {
  int func(int a, int b) override { return a * 3 + b; }
};

namespace {
struct Derived2 : Base {
  int func(int a, int b) override { return a - b * 5; }
  int other(int a) override { return a ^ 0x55; }
};
} // namespace

struct Derived3 final : Derived1 {
  int func(int a, int b) override { return (a << 1) + b; }
};

__attribute__((noinline)) Base *make(int i) {
  switch (i % 7) {
  case 0:
  case 3:
    return new Derived2();
  case 5:
    return new Derived3();
  default:
    return new Derived1();
  }
}

// Inlined into both loops below: the vtable loads are attributed to this
// line inside each caller's inline context.
static inline int callBoth(Base *b, int i) { return b->func(i, i & 7) + b->other(i); }

__attribute__((noinline)) int loopA(Base **objs, int n, int rounds) {
  int sum = 0;
  for (int r = 0; r < rounds; r++)
    for (int i = 0; i < n; i++)
      sum += callBoth(objs[i], r + i);
  return sum;
}

__attribute__((noinline)) int loopB(Base **objs, int n, int rounds) {
  int sum = 0;
  for (int r = 0; r < rounds; r++)
    for (int i = n - 1; i >= 0; i -= 2)
      sum ^= objs[i]->func(sum & 15, r) + callBoth(objs[i], i);
  return sum;
}

int main(int argc, char **argv) {
  if (getenv("PRINT_BASE"))
    fprintf(stderr, "base %p\n", (void *)&__ehdr_start);
  int rounds = argc > 1 ? atoi(argv[1]) : 300;
  const int n = 64;
  Base *objs[n];
  for (int i = 0; i < n; i++)
    objs[i] = make(i * 5 + 1);
  int s = loopA(objs, n, rounds) + loopB(objs, n, rounds / 2);
  for (int i = 0; i < n; i++)
    delete objs[i];
  printf("%d\n", s);
  return 0;
}
