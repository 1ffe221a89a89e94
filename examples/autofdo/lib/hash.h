#pragma once
#include <cstdint>

// Hot: called for every element.
uint64_t mix(uint64_t x);
// Cold: only for malformed input, which the demo never gives.
uint64_t rehash_after_error(uint64_t x);
