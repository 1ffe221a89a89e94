// The allocation sites of the example: MemProf tells the hot one from the cold one.
#pragma once
#include <cstddef>

namespace arena {

char* new_record(std::size_t n);
void free_record(char* r);
// Appends a large log buffer that lives until exit and is written once.
void keep_log(std::size_t n);
// Bytes held by the kept buffers.
std::size_t kept();

}  // namespace arena
