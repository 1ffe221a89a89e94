#pragma once
#include <cstdint>

// The hot loop: a checksum over n pseudo-random values.
uint64_t checksum(int n);
// Never called by the demo's training run: a cold path.
uint64_t audit(int n);
