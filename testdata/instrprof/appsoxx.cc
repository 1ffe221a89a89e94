// appsoxx.cc: the executable of appsoxx (gen-extra.sh); its shapes come
// from the shared library built from soxx.cc.
#include <cstdio>
#include <cstdlib>

struct Shape {
  virtual ~Shape() = default;
  virtual long area() const = 0;
};

Shape *make_shape(int i);
long sum_areas(int n);

template <typename T> T twice(T x) { return x + x; }

int main(int argc, char **argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 10;
  long total = 0;
  for (int i = 0; i < n; i++) {
    Shape *s = make_shape(i);
    total += twice(s->area());
    delete s;
  }
  std::printf("%ld\n", total + sum_areas(n));
  return 0;
}
