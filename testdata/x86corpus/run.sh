#!/usr/bin/env bash
# Compares our x86-64 instruction boundaries (internal/x86inst) with
# llvm-objdump-22's on the whole corpus: every executable section of the
# 12 largest ELF files of the Debian packages .ci/install installs (and the
# libraries they load), of every library clang-22 loads, and of the
# programs built from internal/x86inst/testdata/corpus.cc. Prints how many
# instructions, blocks and sections were compared and how many differ.
# Takes tens of minutes (llvm-objdump disassembles some 100 million
# instructions); CI runs a bounded sample (TestCorpus without -corpus).
set -euo pipefail
cd "$(dirname "$0")/../.."
export RULES_PGO_TEST_CACHE=${RULES_PGO_TEST_CACHE:-$PWD/out/test-cache}
exec nice go test -count=1 -timeout 0 -run '^TestCorpus$' -v ./internal/x86inst -corpus "$@"
