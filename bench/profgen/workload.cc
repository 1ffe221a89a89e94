// The profgen benchmark's workload: a longer-running C++ program with many
// functions (template instantiations), loops, heavy inlining, recursion,
// a bytecode interpreter (switch) and virtual calls, so that its LBR trace
// is diverse (many distinct ranges, branches and calling contexts).
// Built by bench/profgen/run.sh with clang++-22 -O2 -g
// -fdebug-info-for-profiling -fno-omit-frame-pointer.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>
#include <algorithm>

static uint64_t rng_state = 88172645463325252ull;
static inline uint64_t rnd() {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

// Many small functions: a family of kernels, each its own instantiation.
template <int N> struct Kernel {
  static inline uint64_t step(uint64_t x) {
    x = x * (2 * N + 1) + N;
    if (x & (1u << (N % 7))) x ^= x >> (N % 13 + 1);
    return x;
  }
  __attribute__((noinline)) static uint64_t run(uint64_t x, int n) {
    for (int i = 0; i < n; i++) {
      x = step(x);
      if ((x & 15) == N % 16) x += Kernel<(N + 1) % 48>::step(x);
    }
    return x;
  }
};

template <int... Ns> struct Table {
  using Fn = uint64_t (*)(uint64_t, int);
  static constexpr Fn fns[] = {&Kernel<Ns>::run...};
};
template <int... Ns> constexpr typename Table<Ns...>::Fn Table<Ns...>::fns[];
using Kernels = Table<0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
                      24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47>;

// Virtual calls through a class hierarchy.
struct Shape {
  virtual ~Shape() {}
  virtual double area() const = 0;
  virtual double perimeter() const = 0;
  virtual void grow(double f) = 0;
};
struct Rect : Shape {
  double w, h;
  Rect(double w, double h) : w(w), h(h) {}
  double area() const override { return w * h; }
  double perimeter() const override { return 2 * (w + h); }
  void grow(double f) override { w *= f; h *= f; if (w > 1e6) w = 1; if (h > 1e6) h = 1; }
};
struct Circle : Shape {
  double r;
  explicit Circle(double r) : r(r) {}
  double area() const override { return 3.14159 * r * r; }
  double perimeter() const override { return 2 * 3.14159 * r; }
  void grow(double f) override { r *= f; if (r > 1e6) r = 1; }
};
struct Tri : Shape {
  double a, b, c;
  Tri(double a, double b, double c) : a(a), b(b), c(c) {}
  double area() const override { double s = (a + b + c) / 2; return s * (s - a) * (s - b) * (s - c); }
  double perimeter() const override { return a + b + c; }
  void grow(double f) override { a *= f; b *= f; c *= f; if (a > 1e6) a = b = c = 1; }
};
struct Poly : Shape {
  std::vector<double> sides;
  explicit Poly(int n) : sides(n, 1.5) {}
  double area() const override { double t = 0; for (double s : sides) t += s * s; return t / sides.size(); }
  double perimeter() const override { double t = 0; for (double s : sides) t += s; return t; }
  void grow(double f) override { for (double &s : sides) { s *= f; if (s > 1e6) s = 1; } }
};

__attribute__((noinline)) double shapes(std::vector<Shape *> &v, int rounds) {
  double t = 0;
  for (int r = 0; r < rounds; r++)
    for (Shape *s : v) {
      if (rnd() & 1) t += s->area(); else t += s->perimeter();
      if ((rnd() & 7) == 0) s->grow(1.01);
    }
  return t;
}

// A bytecode interpreter: a switch in a loop, with calls.
enum Op : uint8_t { PUSH, ADD, MUL, XOR, DUP, SWAP, JNZ, CALLK, DROP, HALT };
__attribute__((noinline)) uint64_t interp(const std::vector<uint8_t> &code, uint64_t seed) {
  uint64_t st[64];
  int sp = 0, budget = 4000;
  st[sp++] = seed;
  for (size_t pc = 0; pc < code.size() && budget-- > 0;) {
    uint8_t op = code[pc++];
    switch (op % 10) {
    case PUSH: if (sp < 63) st[sp++] = code[pc % code.size()]; pc++; break;
    case ADD: if (sp > 1) { st[sp - 2] += st[sp - 1]; sp--; } break;
    case MUL: if (sp > 1) { st[sp - 2] *= st[sp - 1] | 1; sp--; } break;
    case XOR: if (sp > 1) { st[sp - 2] ^= st[sp - 1] >> 3; sp--; } break;
    case DUP: if (sp > 0 && sp < 63) { st[sp] = st[sp - 1]; sp++; } break;
    case SWAP: if (sp > 1) std::swap(st[sp - 1], st[sp - 2]); break;
    case JNZ: if (sp > 0 && (st[sp - 1] & 3)) pc = (pc + code[pc % code.size()]) % code.size(); break;
    case CALLK: if (sp > 0) st[sp - 1] = Kernels::fns[st[sp - 1] % 48](st[sp - 1], 3); break;
    case DROP: if (sp > 1) sp--; break;
    default: pc = code.size(); break;
    }
  }
  return sp ? st[sp - 1] : 0;
}

// Recursion.
__attribute__((noinline)) uint64_t fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__attribute__((noinline)) int ackish(int m, int n) {
  if (m == 0) return n + 1;
  if (n == 0) return ackish(m - 1, 1);
  return ackish(m - 1, ackish(m, n - 1) % 7);
}

// Containers: maps, strings and sorting (libstdc++ inlined into ours).
__attribute__((noinline)) size_t words(int n) {
  std::map<std::string, int> counts;
  std::string w;
  for (int i = 0; i < n; i++) {
    w.clear();
    int len = 1 + rnd() % 6;
    for (int k = 0; k < len; k++) w.push_back('a' + rnd() % 5);
    counts[w]++;
  }
  size_t t = 0;
  for (auto &kv : counts) t += kv.first.size() * kv.second;
  return t;
}
__attribute__((noinline)) uint64_t sorting(int n) {
  std::vector<uint32_t> v(n);
  for (auto &x : v) x = rnd();
  std::sort(v.begin(), v.end());
  std::stable_sort(v.begin(), v.end(), [](uint32_t a, uint32_t b) { return (a & 0xff) < (b & 0xff); });
  return v[n / 2];
}

int main(int argc, char **argv) {
  int scale = argc > 1 ? std::atoi(argv[1]) : 100;
  std::vector<Shape *> v;
  for (int i = 0; i < 24; i++) {
    switch (i % 4) {
    case 0: v.push_back(new Rect(1 + i, 2 + i)); break;
    case 1: v.push_back(new Circle(1 + i)); break;
    case 2: v.push_back(new Tri(3, 4, 5)); break;
    default: v.push_back(new Poly(3 + i % 5)); break;
    }
  }
  std::vector<uint8_t> code(256);
  for (auto &c : code) c = rnd();
  uint64_t t = 0;
  double d = 0;
  for (int it = 0; it < scale; it++) {
    for (int k = 0; k < 48; k++) t += Kernels::fns[(k + it) % 48](t + k, 20 + (it + k) % 30);
    d += shapes(v, 4);
    t += interp(code, t);
    t += fib(12 + it % 4);
    t += ackish(2, 3 + it % 3);
    if (it % 4 == 0) t += words(300);
    if (it % 8 == 0) t += sorting(500);
  }
  std::printf("%llu %g\n", (unsigned long long)t, d);
  return 0;
}
