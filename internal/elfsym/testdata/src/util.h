// Header inlined into main.cc (see main.cc's first line for the build command).
#pragma once
namespace util {
inline int square(int x) { return x * x; }
template <typename T> inline T clampv(T v, T lo, T hi) {
  if (v < lo) return lo;
  if (v > hi) return hi;
  return square(v) > 50 ? v - 1 : v;
}
} // namespace util
