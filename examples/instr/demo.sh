#!/usr/bin/env bash
# The instrumented-PGO loop with Bazel, end to end (Debian 12, after `bash .ci/install`):
#   1. build :app with -fprofile-generate       (pgo_instrumented_binary(kind = "instr"))
#   2. train: run it on a few inputs with LLVM_PROFILE_FILE=profile/instr/app-N.profraw, next
#      to a copy of the very binary (profile/instr/app)
#   3. instr_profile: the .profraw files → app_pgo.profdata (rules_pgo's merge)
#   4. :optimized = :app and its cc_library deps recompiled with -fprofile-use
#   5. show where the compiler put the functions: .text.hot. / .text.unlikely. sections in the
#      optimized build's objects, none in the unprofiled build's (bazel build -c opt //:app)
#   6. IR PGO + MemProf from one training run (kind = "instr_memprof"): instr_profile(raw,
#      memprof_raw) writes one indexed file; :optimized_both reads it as -fprofile-use= and
#      -fmemory-profile-use=, and its `new` of the cold buffer calls the hinted operator new
#   7. CS-IR-PGO (kind = "cs_instr"): -fcs-profile-generate over the -fprofile-use build,
#      its .profraw merged with app_pgo.profdata → :optimized_cs
# Offline: Bazel's network-only repositories are replaced by Debian's copies (e2e/lib.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "${PGO_ROOT:-$here/../..}/e2e/lib.sh"
pgo_setup_offline
cd "$here"
# Stop this workspace's Bazel server on exit (set PGO_KEEP_SERVER=1 to keep it for re-runs).
[ -n "${PGO_KEEP_SERVER:-}" ] || trap 'pgo_bazel shutdown 2> /dev/null || true' EXIT
check() { python3 "$PGO_ROOT/e2e/check_actions.py" "$@"; }
step() { printf '\n== %s\n' "$*"; }
# The training inputs: record counts and seeds (a few runs, as a test suite would give).
train=("40000 1" "60000 2" "80000 3")

# train TARGET DIR [ENV...]: builds TARGET, copies it to DIR/app, runs it on each input with
# LLVM_PROFILE_FILE=DIR/app-<i>.profraw and the extra environment.
train() {
  local target=$1 dir=$2 i=0 args
  shift 2
  pgo_bazel build "//:$target"
  rm -rf "$dir" && mkdir -p "$dir"
  cp "$bin/$target" "$dir/app"
  chmod u+w "$dir/app"
  for args in "${train[@]}"; do
    i=$((i + 1))
    # shellcheck disable=SC2086
    env LLVM_PROFILE_FILE="$here/$dir/app-$i.profraw" "$@" "./$dir/app" $args > /dev/null
  done
  ls -l "$dir"
}

# sections FLAG AQUERY-EXPR [BAZEL OPTIONS]: the .text.hot./.text.unlikely. sections of the
# objects of the CppCompile actions with FLAG, one "object: section (function)" a line.
sections() {
  local flag=$1 expr=$2 f
  shift 2
  pgo_bazel aquery "mnemonic(\"CppCompile\", deps($expr))" "$@" --output=jsonproto 2> /dev/null > profile/aq.json
  mapfile -t objs < <(check "--flag=$flag" objects profile/aq.json)
  for f in "${objs[@]}"; do
    [ -f "$out/../$f" ] || continue
    { readelf -SW "$out/../$f" | grep -oE ' \.text\.(hot|unlikely)\.[^ ]+' || true; } | sort -u |
      while read -r s; do
        printf '  %s: %s (%s)\n' "${f##*/}" "$s" "$(c++filt "${s#.text.*.}")"
      done
  done
}

step "1. build the instrumented binary and 2. train it"
bin=$(pgo_bazel info bazel-bin 2> /dev/null)
out=$(pgo_bazel info output_path 2> /dev/null)
mkdir -p profile
train app_instr profile/instr

step "3. instr_profile //:app_pgo and 4. pgo_cc_binary //:optimized"
pgo_bazel build //:app_pgo //:optimized
ls -l "$bin/app_pgo.profdata"
"$bin/optimized" 1000 7

step "5. where the functions went"
opt=$(sections -fprofile-use= //:optimized)
echo "optimized (-fprofile-use) objects:"
echo "$opt"
pgo_bazel build -c opt //:app 2> /dev/null
base=$(sections -ffunction-sections //:app -c opt)
echo "unprofiled (bazel build -c opt //:app) objects: ${base:-no .text.hot./.text.unlikely. sections}"
hot=$(grep -c '\.text\.hot\.' <<< "$opt" || true)
cold=$(grep -c '\.text\.unlikely\.' <<< "$opt" || true)
if [ "$hot" -gt 0 ] && [ "$cold" -gt 0 ] && [ -z "$base" ]; then
  echo "OK: with the profile, $hot functions went to .text.hot. and $cold to .text.unlikely. (the linker groups them); the unprofiled build has none"
else
  echo "FAIL: expected hot and cold sections in the optimized objects only" >&2
  exit 1
fi

step "6. IR PGO + MemProf in one file (kind = \"instr_memprof\")"
train app_instr_memprof profile/both MEMPROF_OPTIONS="log_path=$here/profile/both/raw"
pgo_bazel build //:app_pgo_memprof //:optimized_both
ls -l "$bin/app_pgo_memprof.profdata"
"$bin/optimized_both" 1000 7
# Calls of operator new(size_t, __hot_cold_t) that clang wrote from the MemProf records.
hinted() {
  local f n
  pgo_bazel aquery "mnemonic(\"CppCompile\", deps($1))" --output=jsonproto 2> /dev/null > profile/aq.json
  for f in $(check --flag=-fprofile-use= objects profile/aq.json); do
    [ -f "$out/../$f" ] || continue
    n=$(readelf -rW "$out/../$f" | grep -cE ' _Zn[wa]m12__hot_cold_t [+-] ' || true)
    [ "$n" -eq 0 ] || echo "  ${f##*/}: $n calls of the hinted operator new"
  done
}
both=$(hinted //:optimized_both)
echo "optimized_both (-fprofile-use= and -fmemory-profile-use= of app_pgo_memprof.profdata):"
echo "${both:-  none}"
plain=$(hinted //:optimized)
echo "optimized (IR PGO only): ${plain:-no hinted operator new}"
if [ -n "$both" ] && [ -z "$plain" ] && [ -n "$(sections -fprofile-use= //:optimized_both)" ]; then
  echo "OK: the one file gave the compiles both IR PGO (hot/cold sections) and MemProf (hinted allocations)"
else
  echo "FAIL: expected hinted allocations and hot/cold sections from the one file" >&2
  exit 1
fi

step "7. CS-IR-PGO on top of app_pgo (kind = \"cs_instr\")"
train app_cs_instr profile/cs
pgo_bazel build //:app_cspgo //:optimized_cs
ls -l "$bin/app_cspgo.profdata"
"$bin/optimized_cs" 1000 7
echo "OK: :optimized_cs built with -fprofile-use of app_pgo.profdata + the context-sensitive counts"
