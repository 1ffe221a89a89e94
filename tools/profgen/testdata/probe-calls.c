// build: $CC -O2 -g -fdebug-info-for-profiling -fpseudo-probe-for-profiling -fno-omit-frame-pointer $PIE probe-calls.c -o $OUT
// calls.c (loops, recursion, direct, indirect and tail calls) with pseudo probes.
#include "../../../internal/perfscript/testdata/calls.c"
