// build: $CXX -O2 -g -fdebug-info-for-profiling -fpseudo-probe-for-profiling -fno-omit-frame-pointer $PIE probe-inline.cc -o $OUT
// inline.cc (deep inlining, unrolling, recursion, a global initializer) with pseudo probes.
#include "inline.cc"
