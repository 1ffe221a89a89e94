// build: $CXX -O2 -g -fdebug-info-for-profiling -fpseudo-probe-for-profiling -fno-omit-frame-pointer $PIE probe-callchain.cc -o $OUT
// callchain.cc (a chain of calls longer than the LBR, callees whose entry is only inferred) with pseudo probes.
#include "callchain.cc"
