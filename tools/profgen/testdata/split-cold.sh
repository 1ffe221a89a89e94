# split-cold.sh CC OUT FLAGS...: builds split-cold.c with
# -fsplit-machine-functions and the profile of an instrumented run (no
# argument: the rare branches never taken), with CC's llvm-profdata.
set -e
CC=$1; OUT=$2; shift 2
V=${CC##*-}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$CC" -O2 -g -fno-omit-frame-pointer -fprofile-instr-generate "$@" split-cold.c -o "$T/gen"
LLVM_PROFILE_FILE="$T/gen.profraw" "$T/gen" > /dev/null
"llvm-profdata-$V" merge -o "$T/gen.profdata" "$T/gen.profraw"
"$CC" -O2 -g -fdebug-info-for-profiling -fno-omit-frame-pointer -fprofile-instr-use="$T/gen.profdata" -fsplit-machine-functions "$@" split-cold.c -o "$OUT"
