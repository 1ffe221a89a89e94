#include "alloc/workload.h"

#include <cstring>

namespace workload {

Node* new_hot_node(std::uint64_t key) {
  Node* n = new Node;  // hot site
  n->key = key;
  for (int i = 0; i < 7; ++i) n->value[i] = key * (i + 1);
  return n;
}

char* new_cold_buffer(std::size_t size) {
  char* b = new char[size];  // cold site
  std::memset(b, 1, 64);     // only the first cache line is ever touched
  return b;
}

}  // namespace workload
