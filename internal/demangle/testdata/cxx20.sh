#!/usr/bin/env bash
# Builds the object whose symbol names internal/demangle's C++20 test
# compares with llvm-cxxfilt-22: testdata/cxx20.sh OUTDIR.
set -euo pipefail
out=$1
cd "$(dirname "$0")"
clang++-22 -std=c++20 -O0 -c cxx20.cc -o "$out/cxx20.o"
