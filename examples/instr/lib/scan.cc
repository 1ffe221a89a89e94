#include "lib/scan.h"

#include <cstdio>

#include "lib/arena.h"

namespace scan {
namespace {

__attribute__((noinline)) int kind_of(char c) {
  if (c == ',') return 1;
  if (c == '\n') return 2;
  if (c < ' ') return 3;  // a control byte: malformed
  return 0;
}

__attribute__((noinline)) std::uint64_t fields(const char* r, int len) {
  std::uint64_t f = 1;
  for (int i = 0; i < len; i++) {
    switch (kind_of(r[i])) {
      case 1:
        f++;
        break;
      case 3:
        return recover(r, len);
      default:
        break;
    }
  }
  return f;
}

}  // namespace

__attribute__((noinline)) std::uint64_t recover(const char* record, int len) {
  std::fprintf(stderr, "malformed record of %d bytes, skipping\n", len);
  std::uint64_t h = 0;
  for (int i = 0; i < len; i++) h = h * 131 + static_cast<unsigned char>(record[i]);
  return h % 3;
}

std::uint64_t count_fields(int n, std::uint64_t seed) {
  std::uint64_t total = 0, x = seed | 1;
  for (int i = 0; i < n; i++) {
    char* r = arena::new_record(48);  // short-lived, touched byte by byte: hot
    for (int j = 0; j < 47; j++) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      r[j] = (x % 9 == 0) ? ',' : static_cast<char>('a' + x % 26);
    }
    r[47] = '\n';
    total += fields(r, 48);
    arena::free_record(r);
    if (i % 4096 == 0) arena::keep_log(1 << 16);  // big, kept, barely touched: cold
  }
  return total;
}

}  // namespace scan
