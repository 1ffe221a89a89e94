// The example's two kinds of heap objects.
#pragma once

#include <cstddef>
#include <cstdint>

namespace workload {

// Small, short-lived and touched many times: a hot allocation site.
struct Node {
  std::uint64_t key;
  std::uint64_t value[7];
};
Node* new_hot_node(std::uint64_t key);

// Large, kept until the end and touched once: a cold allocation site.
char* new_cold_buffer(std::size_t size);

}  // namespace workload
