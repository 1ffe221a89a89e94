#!/bin/bash
# gen.sh OUTDIR LBR_TRACE — the fixtures of the mutation test
# (internal/mutation): small, real inputs of every reader, written by the
# LLVM 22 tools, with layouts that do not depend on where they are built
# (every path is relative, -fdebug-compilation-dir=.), so that a mutant named
# by its offset is the same mutant on every machine.
#
#   prog                 prog.c, -O1 -g, non-PIE: the ELF/DWARF of symbolize,
#                        the binary of profgen
#   prog.lbr.script      an lbr-trace of ./prog (LBR samples, perf script; the
#                        mmap line names /m/prog)
#   prog.txt             llvm-profgen-22 of that trace, text
#   prog.binary          llvm-profdata-22 merge --sample --binary of prog.txt
#   prog.extbinary       ... --extbinary
#   prog.extbinary-z     ... --extbinary --compress-all-sections
#   prog-instr           prog.c with -fprofile-generate
#   prog.profraw         its raw profile (one run)
#   prog.profdata        llvm-profdata-22 merge of prog.profraw (indexed)
#   heap                 heap.cc with -fmemory-profile
#   heap.memprofraw      its raw MemProf profile
set -euo pipefail
out=$(cd "$1" && pwd)
tracer=$2
cd "$out/src"
lld=(-fuse-ld=lld --ld-path=/usr/bin/ld.lld-19)
if [ -x /usr/lib/llvm-22/bin/ld.lld ]; then lld=(-fuse-ld=lld); fi

clang-22 -O1 -g -fdebug-compilation-dir=. -fno-omit-frame-pointer -no-pie "${lld[@]}" -Wl,--build-id prog.c -o ../prog
cd "$out"
env -i PATH=/usr/local/bin:/usr/bin:/bin "$tracer" --period 97 --jitter 20 --seed 1 --max-samples 60 \
  --lbr-depth 8 --start-at-entry --pid 4242 --out lbr.tmp -- ./prog >/dev/null
# The mmap line names the binary by its absolute path, device and inode:
# made the same everywhere (llvm-profgen matches the binary by its base name).
sed -E 's|@ 0 [0-9a-f]+:[0-9a-f]+ [0-9]+ 0\]: r-xp .*/prog$|@ 0 00:00 0 0]: r-xp /m/prog|' lbr.tmp >prog.lbr.script
rm lbr.tmp
llvm-profgen-22 --perfscript=prog.lbr.script --binary=prog --format=text --output=prog.txt
llvm-profdata-22 merge --sample --binary -o prog.binary prog.txt
llvm-profdata-22 merge --sample --extbinary -o prog.extbinary prog.txt
llvm-profdata-22 merge --sample --extbinary --compress-all-sections -o prog.extbinary-z prog.txt

cd "$out/src"
clang-22 -O1 -fprofile-generate -no-pie "${lld[@]}" -Wl,--build-id prog.c -o ../prog-instr
cd "$out"
LLVM_PROFILE_FILE=prog.profraw ./prog-instr 50 >/dev/null
llvm-profdata-22 merge -o prog.profdata prog.profraw

cd "$out/src"
clang++-22 -O1 -gmlt -fdebug-compilation-dir=. -fdebug-info-for-profiling -fmemory-profile \
  -mno-omit-leaf-frame-pointer -fno-omit-frame-pointer -fno-optimize-sibling-calls \
  -no-pie "${lld[@]}" -Wl,--no-rosegment -Wl,--build-id heap.cc -o ../heap
cd "$out"
tmp=$(mktemp -d)
MEMPROF_OPTIONS=log_path=$tmp/prof ./heap >/dev/null
mv "$tmp"/prof.* heap.memprofraw
rmdir "$tmp"
