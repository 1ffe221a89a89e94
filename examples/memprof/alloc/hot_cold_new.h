// Counters of the allocations that reached each operator new overload.
#pragma once

#include <cstddef>
#include <cstdint>

// The type tcmalloc uses for hot/cold hints; clang's -mllvm -optimize-hot-cold-new rewrites
// `new` expressions that the MemProf profile marks into calls taking it.
enum class __hot_cold_t : std::uint8_t;

namespace hotcold {

struct Counts {
  std::uint64_t cold;     // hint < 128: the profile says cold
  std::uint64_t notcold;  // hint 128..253: profiled, not cold
  std::uint64_t hot;      // hint >= 254
};

Counts counts();

}  // namespace hotcold
