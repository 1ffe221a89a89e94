#!/bin/sh
# Regenerates the checked-in indexed-profile fixtures from memprog.cc,
# many.cc and yamlin.yaml with the Debian LLVM 16.0.6 / 19.1.7 / 22 packages
# (clang++-N, llvm-profdata-N, ld.lld-19). Run from this directory:
#   sh gen.sh && go test .. -update
# The MemInfoBlock values (timestamps, lifetimes) change from run to run.
set -eu
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags="-fuse-ld=lld --ld-path=/usr/bin/ld.lld-19 -Wl,--no-rosegment -gmlt -fdebug-info-for-profiling -fmemory-profile -mno-omit-leaf-frame-pointer -fno-omit-frame-pointer -fno-optimize-sibling-calls -m64 -Wl,-build-id -no-pie"
hist="-mllvm -memprof-use-callbacks=true -mllvm -memprof-histogram"
build() { # name release extra-flags
	clang++-$2 $flags $3 memprog.cc -o "$work/$1.$2"
	(cd "$work" && MEMPROF_OPTIONS=log_path="$work/$1.$2.raw" "./$1.$2" && mv "$1.$2.raw".* "$1.$2.memprofraw")
}
merge() { # out release prog args...
	out=$1 n=$2 prog=$3
	shift 3
	llvm-profdata-$n merge --profiled-binary "$work/$prog.$n" "$@" -o "$out" "$work/$prog.$n.memprofraw"
}
build memprog 16 ""
build memprog 19 ""
build memprog 22 ""
build hist 19 "$hist"
for n in 16 19 22; do
	clang++-$n $flags many.cc -o "$work/many.$n"
	(cd "$work" && MEMPROF_OPTIONS=log_path="$work/many.$n.raw" "./many.$n" && mv "many.$n.raw".* "many.$n.memprofraw")
done
build hist 22 "$hist"
merge memprog.llvm16.v0.profdata 16 memprog
for v in 0 1 2 3; do merge memprog.llvm19.v$v.profdata 19 memprog --memprof-version=$v; done
for v in 2 3; do merge memprog.llvm19.v$v.full.profdata 19 memprog --memprof-version=$v --memprof-full-schema; done
merge memprog.llvm19.prev.profdata 19 memprog --write-prev-version
for v in 2 3 4; do merge memprog.llvm22.v$v.profdata 22 memprog --memprof-version=$v; done
for v in 2 3 4; do merge memprog.llvm22.v$v.full.profdata 22 memprog --memprof-version=$v --memprof-full-schema; done
merge memprog.llvm22.prev.profdata 22 memprog --write-prev-version
for v in 0 1 2 3; do merge hist.llvm19.v$v.full.profdata 19 hist --memprof-version=$v --memprof-full-schema; done
for v in 2 3 4; do merge hist.llvm22.v$v.full.profdata 22 hist --memprof-version=$v --memprof-full-schema; done
merge many.llvm16.v0.profdata 16 many
merge many.llvm19.v0.profdata 19 many
merge many.llvm19.v2.profdata 19 many --memprof-version=2
merge many.llvm22.v2.profdata 22 many --memprof-version=2
merge many.llvm22.v4.profdata 22 many --memprof-version=4
gzip -9nf many.llvm*.profdata
for v in 2 3 4; do llvm-profdata-22 merge --memprof-version=$v yamlin.yaml -o yamlin.llvm22.v$v.profdata; done
for f in memprog.llvm22.*.profdata hist.llvm22.*.profdata yamlin.llvm22.*.profdata; do
	llvm-profdata-22 show --memory "$f" > "${f%.profdata}.yaml"
done
