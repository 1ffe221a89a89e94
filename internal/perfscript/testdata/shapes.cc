// build: $CXX -O2 -g -fdebug-info-for-profiling -fno-omit-frame-pointer $PIE shapes.cc -o $OUT
// Virtual calls, inlining and a switch, for perfscript's differential tests.
#include <cstdio>
#include <cstdlib>

struct Shape {
  virtual ~Shape() {}
  virtual long area(long s) const = 0;
};
struct Square : Shape {
  long area(long s) const override { return s * s; }
};
struct Triangle : Shape {
  long area(long s) const override { return s * s / 2; }
};

__attribute__((noinline)) long dispatch(const Shape *sh, long s) { return sh->area(s); }

static inline long mix(long a, long b) {
  switch ((a ^ b) & 3) {
  case 0: return a + b;
  case 1: return a - b;
  case 2: return a * 3 + b;
  default: return b - a * 5;
  }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 4000;
  Square sq;
  Triangle tr;
  const Shape *shapes[2] = {&sq, &tr};
  long t = 0;
  for (int i = 0; i < n; i++) {
    t += dispatch(shapes[(i * 7) % 3 == 0], i);
    t = mix(t, i);
  }
  std::printf("%ld\n", t);
  return 0;
}
