// With -mllvm -optimize-hot-cold-new, clang rewrites the `new` calls that the MemProf profile
// marks into these overloads (tcmalloc's); here they just allocate. In a file of their own, so
// the rewritten calls stay calls (visible as relocations in the callers' objects).
#include <cstddef>
#include <new>

enum class __hot_cold_t : unsigned char;
void* operator new(std::size_t n, __hot_cold_t) { return ::operator new(n); }
void* operator new[](std::size_t n, __hot_cold_t) { return ::operator new[](n); }
