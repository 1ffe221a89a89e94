// Built by elfsym_test.go (buildMatrix): $CXX $FLAGS -o prog main.cc lib.c, with $CXX in {clang++-19, clang++-22} and $FLAGS one row of the matrix there (e.g. -O2 -gdwarf-5 -gsplit-dwarf).
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <functional>
#include "util.h"

extern "C" int c_work(int n);

namespace ns {

template <typename T>
struct Acc {
  T sum{};
  inline void add(T v) {
    if (v % 3 == 0)
      sum += v * 2;
    else
      sum += v;
  }
  T get() const { return sum; }
};

template <typename T, typename F>
__attribute__((always_inline)) inline T fold(const std::vector<T> &v, F f) {
  T acc{};
  for (const T &x : v)
    acc = f(acc, x);
  return acc;
}

class Shape {
public:
  virtual ~Shape() = default;
  virtual double area() const = 0;
};

class Sq : public Shape {
  double s;
public:
  explicit Sq(double s) : s(s) {}
  double area() const override { return s * s; }
};

} // namespace ns

static int helper(int x) {
  int r = 0;
  for (int i = 0; i < x; i++) r += util::square(i) + (i & 1 ? 1 : 2);
  return r;
}

__attribute__((noinline)) int compute(int n) {
  ns::Acc<int> a;
  for (int i = 0; i < n; i++) a.add(util::clampv(i, 0, 100));
  std::vector<int> v(n);
  for (int i = 0; i < n; i++) v[i] = i * 7 % 13;
  std::sort(v.begin(), v.end());
  int m = 3;
  auto lam = [m](int acc, int x) { return acc + x * m; };
  int f = ns::fold(v, lam);
  std::function<int(int)> fn = [&](int z) { return z + helper(z % 5); };
  return a.get() + f + fn(n);
}

__attribute__((noinline)) double shapes(int n) {
  std::vector<ns::Shape *> s;
  for (int i = 0; i < n; i++) s.push_back(new ns::Sq(i));
  double t = 0;
  for (auto *p : s) { t += p->area(); delete p; }
  return t;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 10;
  printf("%d %f %d\n", compute(n), shapes(n), c_work(n));
  return 0;
}
