// shapes.cc: a small C++ program for instrumented-profile fixtures (see
// gen.sh): virtual calls, templates, a lambda, static initialisation.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

struct Shape {
  virtual ~Shape() = default;
  virtual long area() const = 0;
};
struct Square : Shape {
  long s;
  explicit Square(long s) : s(s) {}
  long area() const override { return s * s; }
};
struct Rect : Shape {
  long w, h;
  Rect(long w, long h) : w(w), h(h) {}
  long area() const override { return w * h; }
};

template <typename T> T clampAdd(T a, T b, T hi) {
  T s = a + b;
  return s > hi ? hi : s;
}

static std::vector<int> table = [] {
  std::vector<int> v;
  for (int i = 0; i < 16; i++)
    v.push_back(i * i);
  return v;
}();

int main(int argc, char **argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 10;
  std::vector<std::unique_ptr<Shape>> shapes;
  for (int i = 0; i < n; i++) {
    if (i % 3 == 0)
      shapes.push_back(std::make_unique<Square>(i));
    else
      shapes.push_back(std::make_unique<Rect>(i, i + 1));
  }
  long total = 0;
  for (auto &s : shapes)
    total = clampAdd<long>(total, s->area(), 1L << 40);
  int t = 0;
  for (int i = 0; i < n; i++)
    t = clampAdd<int>(t, table[i % 16], 1 << 20);
  std::printf("%ld %d\n", total, t);
  return 0;
}
