#!/usr/bin/env bash
# Builds the objects whose symbol names internal/demangle's C++20 test
# compares with llvm-cxxfilt-22: testdata/cxx20.sh OUTDIR.
set -euo pipefail
out=$1
cd "$(dirname "$0")"
clang++-22 -std=c++20 -O0 -c cxx20.cc -o "$out/cxx20.o"
clang++-22 -std=c++20 --precompile module.cppm -o "$out/module.pcm"
clang++-22 -std=c++20 -c "$out/module.pcm" -o "$out/module.o"
