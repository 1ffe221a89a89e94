// Names of C++20 code for internal/demangle's tests: constrained templates
// (type constraints, requires clauses and requires expressions), hidden
// friends, ranges pipelines, fold expressions, placement new through
// std::construct_at, lambdas with explicit template parameters and
// floating-point template arguments. The program only has to compile.
#include <algorithm>
#include <concepts>
#include <map>
#include <memory>
#include <numeric>
#include <ranges>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace demo {
template <std::integral T> T twice(T x) { return 2 * x; }
template <typename T> requires std::floating_point<T> T half(T x) { return x / 2; }
template <typename T> concept Sized = requires(T t) { { t.size() } -> std::convertible_to<std::size_t>; typename T::value_type; requires sizeof(T) > 1; };
template <Sized C> auto count(const C& c) { return c.size(); }
template <typename... Ts> auto sum(Ts... xs) { return (xs + ... + 0); }
template <typename... Ts> auto all(Ts... xs) -> decltype((... && xs)) { return (... && xs); }
template <typename... Ts> auto right(Ts... xs) -> decltype((xs - ...)) { return (xs - ...); }
template <auto V> int val() { return (int)V; }
struct Point {
  int x, y;
  friend bool operator==(const Point&, const Point&) = default;
  friend auto operator<=>(const Point&, const Point&) = default;
};
template <typename T> struct Box {
  T v;
  friend bool operator==(const Box& a, const Box& b) requires std::equality_comparable<T> { return a.v == b.v; }
  void set(T x) requires std::copyable<T> { v = x; }
};
template <typename T> T* make(T v) { return new T(v); }
template <typename T> void destroy(T* p) { delete p; }
// Lambdas with explicit template parameters, in an inline function so that
// their names are not local to this object.
inline int lambdas(int a) {
  auto l1 = []<typename T>(T x) { return x; };
  auto l2 = []<typename T, int N, template <typename> class TT>(T x) { return x + N; };
  auto l3 = []<std::integral T>(T x) requires (sizeof(T) > 1) { return x; };
  auto l4 = []<typename... Ts>(Ts... xs) { return (0 + ... + xs); };
  auto l5 = []<typename T>(T x, auto y) { return x + y; };
  auto l6 = []<std::size_t... I>(std::index_sequence<I...>) { return (0 + ... + I); };
  auto l7 = [](std::integral auto x) { return x; };
  return l1(a) + l2.operator()<int, 3, std::type_identity_t>(a) + l3(a) + l4(a, a) + l5(a, 1L) +
         (int)l6(std::make_index_sequence<3>{}) + l7(a);
}
template <typename T> void constrained(T) requires std::integral<T> {}
}  // namespace demo

int main(int argc, char** argv) {
  using namespace demo;
  std::vector<int> v{3, 1, 2, argc};
  std::ranges::sort(v);
  auto r = v | std::views::filter([](int x) { return x > 1; }) | std::views::transform([](auto x) { return x * 2; });
  int s = 0;
  for (int x : r) s += x;
  std::map<std::string, int> m;
  m[argv[0]] = s;
  auto sq = []<typename T>(T x) { return x * x; };
  auto gen = []<std::integral T>(T x) requires (sizeof(T) > 1) { return x + 1; };
  Point a{1, 2}, b{2, 3};
  Box<int> bx{1}, by{2};
  bx.set(3);
  int* p = make(argc);
  int t = *p;
  destroy(p);
  auto up = std::make_unique<std::string>("x");
  constrained(argc);
  return twice(s) + (int)half(2.0) + (int)count(v) + sum(1, 2, 3) + all(true, argc > 0) + right(1, 2) +
         (a == b) + (a < b) + (bx == by) + val<1.5>() + val<2.5f>() + sq(3) + gen(4L) + t + (int)up->size() +
         std::accumulate(v.begin(), v.end(), 0) + lambdas(argc);
}
