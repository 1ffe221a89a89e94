#!/usr/bin/env bash
# The whole MemProf loop with Bazel, end to end (Debian 12, after `bash .ci/install`):
#   1. build the instrumented binary   (pgo_instrumented_binary, -fmemory-profile)
#   2. train: run it, it writes raw MemProf profiles into profile/
#   3. memprof_profile: raw profiles + that binary → app_memprof.profdata (rules_pgo's merge),
#      and `merge show --memory --hints`: how many contexts and bytes clang will treat as cold
#   4. :optimized = :app and its cc_library deps recompiled with -fmemory-profile-use
#   5. run the baseline (-c opt) and the optimized binary and print how their `new`s were routed
# Offline: Bazel's network-only repositories are replaced by Debian's copies (e2e/lib.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../../e2e/lib.sh"
pgo_setup_offline
cd "$here"
# Stop this workspace's Bazel server on exit (set PGO_KEEP_SERVER=1 to keep it for re-runs).
[ -n "${PGO_KEEP_SERVER:-}" ] || trap 'pgo_bazel shutdown 2> /dev/null || true' EXIT

step() { printf '\n== %s\n' "$*"; }

step "1. build the instrumented binary"
pgo_bazel build //:app_instrumented
bin=$(pgo_bazel info bazel-bin 2> /dev/null)

step "2. train: MEMPROF_OPTIONS=log_path=profile/raw ./app.instrumented"
rm -rf profile && mkdir profile
cp "$bin/app_instrumented" profile/app.instrumented
chmod u+w profile/app.instrumented
MEMPROF_OPTIONS="log_path=$here/profile/raw" ./profile/app.instrumented > /dev/null
ls -l profile

step "3. memprof_profile //:app_memprof"
pgo_bazel build //:app_memprof @pgo_host//:merge
ls -l "$bin/app_memprof.profdata"

step "   the hints clang-19 will derive from it (with BUILD.bazel's OPT_COPTS threshold)"
# rules_pgo's merge tool, as the toolchain built it (@pgo_host: rules_pgo_register_toolchains in WORKSPACE).
merge="$(pgo_bazel info output_base 2> /dev/null)/external/pgo_host/merge"
"$merge" show --memory --hints --llvm-version 19 -mllvm -memprof-ave-lifetime-cold-threshold=0 \
  --profiled-binary profile/app.instrumented "$bin/app_memprof.profdata" | sed '/^Contexts/,$d'

step "4. pgo_cc_binary //:optimized"
pgo_bazel build //:optimized
pgo_bazel build -c opt //:app
obin=$(pgo_bazel info -c opt bazel-bin 2> /dev/null)

step "5. run"
baseline=$("$obin/app" | grep '^allocations:')
optimized=$("$bin/optimized" | grep '^allocations:')
printf 'baseline  (bazel build -c opt //:app):  %s\n' "$baseline"
printf 'optimized (bazel build //:optimized):   %s\n' "$optimized"
cold=$(sed -n 's/.* cold=\([0-9]*\).*/\1/p' <<< "$optimized")
if [ "${cold:-0}" -gt 0 ]; then
  echo "OK: the optimized binary sends $cold allocations of the cold site to operator new(size_t, __hot_cold_t)"
else
  echo "FAIL: no allocation was routed as cold" >&2
  exit 1
fi
