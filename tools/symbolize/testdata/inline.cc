// build: $CXX -g -fdebug-info-for-profiling $OPT $PIE inline.cc -o $OUT
// A C++ program with templates, namespaces, lambdas, inlining at several
// depths, constructors and std::string, so that demangled names, inline
// chains and call-site columns are all exercised.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

extern int table[64];
int table[64];

namespace geo {
template <typename T> struct Vec {
  T x, y;
  Vec(T a, T b) : x(a), y(b) {}
  __attribute__((always_inline)) T dot(const Vec &o) const {
    return x * o.x + y * o.y;
  }
  Vec operator+(const Vec &o) const { return Vec(x + o.x, y + o.y); }
};

namespace {
inline int leaf(int v) { return table[v & 63] * 2 + 1; }
} // namespace

template <typename T, int N> struct Acc {
  T sum{};
  void add(T v) {
    for (int i = 0; i < N; i++)
      sum += leaf(int(v) + i);
  }
};
} // namespace geo

static int __attribute__((noinline)) work(int n) {
  geo::Acc<long, 3> acc;
  geo::Vec<int> a(n, n + 1), b(2, 3);
  for (int i = 0; i < n; i++) {
    a = a + b;
    acc.add(a.dot(b));
  }
  return int(acc.sum);
}

int __attribute__((noinline)) fib(int n) {
  if (n < 2)
    return geo::leaf(n);
  return fib(n - 1) + fib(n - 2);
}

std::string __attribute__((noinline)) describe(const std::map<std::string, int> &m) {
  std::string out;
  for (const auto &kv : m)
    out += kv.first + "=" + std::to_string(kv.second) + ";";
  return out;
}

int main(int argc, char **argv) {
  std::vector<int> v;
  for (int i = 0; i < argc * 10; i++)
    v.push_back(work(i) + fib(i % 12));
  auto sq = [&](int k) { return v[k % v.size()] * k; };
  std::map<std::string, int> m{{"a", sq(1)}, {"b", sq(2)}};
  std::printf("%s %zu\n", describe(m).c_str(), v.size());
  return 0;
}
