// soxx.cc: the C++ shared library of appsoxx (gen-extra.sh). The
// executable calls the virtual functions of its classes (indirect calls
// whose targets are in this module); twice<long> is instantiated in both
// modules (one linkonce copy each, one PGO name).
#include <vector>

struct Shape {
  virtual ~Shape() = default;
  virtual long area() const = 0;
};

namespace {
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
} // namespace

template <typename T> T twice(T x) { return x + x; }

Shape *make_shape(int i) {
  if (i % 3 == 0)
    return new Square(i);
  return new Rect(i, i + 1);
}

long sum_areas(int n) {
  std::vector<Shape *> v;
  for (int i = 0; i < n; i++)
    v.push_back(make_shape(i));
  long t = 0;
  for (Shape *s : v) {
    t = twice(t) % 1000003 + s->area();
    delete s;
  }
  return t;
}
