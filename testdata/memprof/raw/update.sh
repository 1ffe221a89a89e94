#!/bin/bash
# update.sh — refresh the committed raw profile fixtures in this directory.
#
# Real runtime output (from ../gen.sh, see there for programs and flags):
#   v2-llvm16.memprofraw       app-llvm16-nopie-a    raw v2, one dump
#   v4-llvm19-2dumps.memprofraw app-llvm19-nopie-dump raw v4, two dumps
#   v5-llvm22-pie.memprofraw   app-llvm22-pie-a      raw v5, PIE
#   v5-llvm22-hist.memprofraw  hist-llvm22           raw v5, u16 histograms
# Synthetic (no installed runtime writes raw v1 or v3), re-encoded from
# v4-llvm19-2dumps.memprofraw by internal/memprof's writeRaw:
#   v1-synthetic.memprofraw, v3-synthetic.memprofraw
#   (cd internal/memprof && go test -run TestSyntheticFixtures -update)
# The binaries are not committed (about 1 MB each); tests that symbolize
# rebuild them with ../gen.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$here/../gen.sh" "$tmp"
cp "$tmp/app-llvm16-nopie-a.memprofraw" "$here/v2-llvm16.memprofraw"
cp "$tmp/app-llvm19-nopie-dump.memprofraw" "$here/v4-llvm19-2dumps.memprofraw"
cp "$tmp/app-llvm22-pie-a.memprofraw" "$here/v5-llvm22-pie.memprofraw"
cp "$tmp/hist-llvm22.memprofraw" "$here/v5-llvm22-hist.memprofraw"
cd "$here/../../../internal/memprof" && go test -run TestSyntheticFixtures -update >/dev/null
