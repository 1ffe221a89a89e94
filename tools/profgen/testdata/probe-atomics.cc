// build: $CXX -O2 -g -fdebug-info-for-profiling -fpseudo-probe-for-profiling -fno-omit-frame-pointer -pthread $PIE probe-atomics.cc -o $OUT
// atomics.cc (atomics in hot inlined code, an elided spinlock, REP MOVSB, threads) with pseudo probes.
#include "atomics.cc"
