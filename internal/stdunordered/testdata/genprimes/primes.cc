// Prints the bucket counts libstdc++'s unordered containers grow through.
#include <cstdio>
#include <unordered_map>
int main() {
  std::__detail::_Prime_rehash_policy pol;
  unsigned long prev = 0;
  for (unsigned long n = 0;;) {
    unsigned long p = pol._M_next_bkt(n);
    if (p == prev) break;
    if (p != prev) printf("%lu\n", p);
    prev = p;
    if (p + 1 < p) break;
    n = p + 1;
  }
}
