#!/usr/bin/env bash
# The whole name corpus of internal/demangle (CI compares a sample): every
# symbol name of clang 16/19/22, the libraries they load and the ELF files
# of their LLVM installations, demangled by demangle.Name and by
# llvm-cxxfilt-22, and every function symbol of libstdc++ and libLLVM (22)
# with a unique address symbolized by llvm-symbolizer-22. Prints the counts;
# exits non-zero when a name differs. Needs what .ci/install installs.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/local/go/bin:$PATH
CI=true go test -count=1 -run '^(TestNameCorpus|TestNameSymbolizer)$' -v . -demangle.corpus=full |
  grep -E '^demangle |^\s+corpus_test|^(--- FAIL|ok|FAIL)'
