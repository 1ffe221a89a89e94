// Defines the operator new overloads that take a __hot_cold_t hint (as tcmalloc does) and
// counts the calls per hint. They allocate with the plain operator new, which the MemProf
// runtime intercepts in the instrumented build; allocations the compiler did not rewrite never
// get here.
#include "alloc/hot_cold_new.h"

#include <new>

namespace {

hotcold::Counts g_counts;

void count_hint(__hot_cold_t hint) {
  unsigned h = static_cast<unsigned>(hint);
  if (h < 128) {
    ++g_counts.cold;
  } else if (h < 254) {
    ++g_counts.notcold;
  } else {
    ++g_counts.hot;
  }
}

}  // namespace

namespace hotcold {
Counts counts() { return g_counts; }
}  // namespace hotcold

void* operator new(std::size_t n, __hot_cold_t hint) {
  count_hint(hint);
  return ::operator new(n);
}
void* operator new[](std::size_t n, __hot_cold_t hint) {
  count_hint(hint);
  return ::operator new[](n);
}
void* operator new(std::size_t n, const std::nothrow_t&, __hot_cold_t hint) noexcept {
  count_hint(hint);
  return ::operator new(n, std::nothrow);
}
void* operator new[](std::size_t n, const std::nothrow_t&, __hot_cold_t hint) noexcept {
  count_hint(hint);
  return ::operator new[](n, std::nothrow);
}
