// build: $CXX -O2 -march=x86-64-v3 -g -fdebug-info-for-profiling -fpseudo-probe-for-profiling -fno-omit-frame-pointer $PIE probe-avx.cc -o $OUT
// avx.cc (AVX2 hot loops, AVX-512 on never-taken paths) with pseudo probes.
#include "avx.cc"
