// build: $CXX -O2 -g -fdebug-info-for-profiling -fpseudo-probe-for-profiling -fno-omit-frame-pointer $PIE probe-shapes.cc -o $OUT
// shapes.cc (virtual calls, inlining, a switch) with pseudo probes.
#include "../../../internal/perfscript/testdata/shapes.cc"
