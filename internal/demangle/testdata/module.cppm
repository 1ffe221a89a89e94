// A C++20 module for internal/demangle's tests: names attached to a
// module (f@demo.core) and the module initializer.
export module demo.core;
export namespace ns {
struct Widget {
  int v;
  int get() const;
  Widget(int x) : v(x) {}
  ~Widget() {}
};
int Widget::get() const { return v; }
template <typename T> T twice(T x) { return x + x; }
int use(int a) {
  Widget w(a);
  return twice(w.get()) + twice(1L);
}
}  // namespace ns
export int free_fn(int x) { return ns::use(x); }
