// build: $CXX -O2 -g -gsplit-dwarf -fdebug-info-for-profiling -fno-omit-frame-pointer $PIE split-inline.cc -o $OUT
// inline.cc (deep inlining, unrolling, recursion, a global initializer)
// with split DWARF: the functions and line tables are in a .dwo file.
#include "inline.cc"
