// A record scanner: the hot path classifies bytes, the cold path reports malformed records.
#pragma once
#include <cstdint>

namespace scan {

// Counts the fields of `n` generated records; seed picks the records.
std::uint64_t count_fields(int n, std::uint64_t seed);

// Never reached by well-formed input, which is all the training runs give.
std::uint64_t recover(const char* record, int len);

}  // namespace scan
