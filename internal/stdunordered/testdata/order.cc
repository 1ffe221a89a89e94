// Replays map operations read from stdin on libstdc++'s containers and
// prints what they give, for stdunordered's tests:
//   i K  insert integer key K into an unordered_map<uint64_t, int>
//   e K  erase integer key K
//   s S  print std::hash<std::string>(S)
// At the end: the integer map's keys in iteration order, one a line.
#include <cstdint>
#include <cstdio>
#include <functional>
#include <iostream>
#include <string>
#include <unordered_map>

int main() {
  std::unordered_map<uint64_t, int> m;
  std::string op;
  while (std::cin >> op) {
    if (op == "s") {
      std::string s;
      std::cin >> s;
      printf("h %llu\n", (unsigned long long)std::hash<std::string>()(s));
      continue;
    }
    uint64_t k;
    std::cin >> k;
    if (op == "i")
      m.emplace(k, 0);
    else
      m.erase(k);
  }
  for (auto &kv : m)
    printf("%llu\n", (unsigned long long)kv.first);
}
