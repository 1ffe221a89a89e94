// MemProf example: one hot and one cold `new` site (in the //alloc library). Prints how many of
// its allocations the compiler routed to the hinted operator new as cold, not cold or hot
// (alloc/hot_cold_new.cc counts them); "unhinted" went to the plain operator new.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "alloc/hot_cold_new.h"
#include "alloc/workload.h"

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 20000;
  hotcold::Counts before = hotcold::counts();

  std::vector<char*> cold;
  cold.reserve(64);
  for (int i = 0; i < 64; ++i) cold.push_back(workload::new_cold_buffer(64 * 1024));

  std::uint64_t sum = 0;
  for (int r = 0; r < rounds; ++r) {
    workload::Node* n = workload::new_hot_node(r);
    for (int rep = 0; rep < 50; ++rep) {
      for (int i = 0; i < 7; ++i) sum += n->value[i] ^ (n->key + rep);
    }
    delete n;
  }
  for (char* b : cold) {
    sum += b[0];
    delete[] b;
  }

  hotcold::Counts after = hotcold::counts();
  std::printf("checksum %llu\n", static_cast<unsigned long long>(sum));
  const unsigned long long total = 64 + static_cast<unsigned long long>(rounds);
  const unsigned long long hinted = (after.cold - before.cold) + (after.notcold - before.notcold) +
                                    (after.hot - before.hot);
  std::printf("allocations: total=%llu unhinted=%llu cold=%llu notcold=%llu hot=%llu\n", total,
              total - hinted,
              static_cast<unsigned long long>(after.cold - before.cold),
              static_cast<unsigned long long>(after.notcold - before.notcold),
              static_cast<unsigned long long>(after.hot - before.hot));
  return 0;
}
