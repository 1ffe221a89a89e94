#!/usr/bin/env bash
# The whole AutoFDO loop with Bazel, end to end (Debian 12, after `bash .ci/install`):
#   1. build the sample-ready binary     (pgo_instrumented_binary(kind = "sample"))
#   2. record into profile/app.data (perf.data), next to a copy of the binary:
#      - a CPU with LBR: `perf record -b` writes it;
#      - otherwise (no PMU, e.g. a VM): the recorder named by $PGO_LBR_RECORDER (called
#        `lbr-trace [--mode hybrid] --out FILE -- PROGRAM ARGS`) writes the samples as perf
#        script text, and rules_pgo's test-only perf.data generator (internal/perfdata/
#        perfdatatest; perf script prints the text back from its files) writes the perf.data
#        perf would have recorded them into. That file is not perf's own recording.
#      Either way profile/app.perf.script is the text of the same samples (for llvm-profgen).
#   3. sample_profile: the perf.data + that binary → app_afdo.afdo (rules_pgo's profgen reads
#      perf.data itself: no perf in the build)
#   4. :optimized = :app and its cc_library deps recompiled with -fprofile-sample-use
#   5. show where the compiler put the functions: .text.hot. / .text.unlikely. sections in the
#      optimized build's objects, none in the sample-ready (unprofiled) build's
# Offline: Bazel's network-only repositories are replaced by Debian's copies (e2e/lib.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "${PGO_ROOT:-$here/../..}/e2e/lib.sh"
pgo_setup_offline
cd "$here"
# Stop this workspace's Bazel server on exit (set PGO_KEEP_SERVER=1 to keep it for re-runs).
[ -n "${PGO_KEEP_SERVER:-}" ] || trap 'pgo_bazel shutdown 2> /dev/null || true' EXIT
check() { python3 "$PGO_ROOT/e2e/check_actions.py" --flag=-fprofile-sample-use= --mnemonic=PgoProfGen "$@"; }
step() { printf '\n== %s\n' "$*"; }
# The training workload (the production run).
train_args=(300000)

# Which recorder: perf with LBR, else $PGO_LBR_RECORDER, else stop with how to get one.
recorder=""
if command -v perf > /dev/null && perf record -b -e cycles:u -o /dev/null -- true > /dev/null 2>&1; then
  recorder=perf
elif [ -n "${PGO_LBR_RECORDER:-}" ]; then
  [ -x "$PGO_LBR_RECORDER" ] || command -v "$PGO_LBR_RECORDER" > /dev/null ||
    { echo "error: PGO_LBR_RECORDER=$PGO_LBR_RECORDER is not an executable" >&2; exit 1; }
  recorder=$PGO_LBR_RECORDER
else
  cat >&2 << 'EOM'
error: no way to record branch samples (LBR) here:
  - `perf record -b` needs a CPU with last-branch records (Intel LBR, AMD BRS/LbrExtV2) and
    access to it (a bare-metal machine or a VM with LBR passthrough; perf_event_paranoid <= 2);
    apt-get install linux-perf
  - or set PGO_LBR_RECORDER to a program called as
      $PGO_LBR_RECORDER [--mode hybrid] --out FILE -- PROGRAM ARGS
    that writes `perf script -F ip,brstack --show-mmap-events` text, e.g. lbr-trace (runs the
    program under qemu-user, no PMU needed): PGO_LBR_RECORDER=/path/to/lbr-trace ./demo.sh
EOM
  exit 1
fi

step "1. build the sample-ready binary"
pgo_bazel build //:app_sample_ready
bin=$(pgo_bazel info bazel-bin 2> /dev/null)

step "2. record: ${recorder##*/} → profile/app.data (perf.data)"
rm -rf profile && mkdir profile
cp "$bin/app_sample_ready" profile/app
chmod u+w profile/app
if [ "$recorder" = perf ]; then
  echo "recording with perf record -b (this CPU has LBR)"
  perf record -b -e cycles:u -o profile/app.data -- ./profile/app "${train_args[@]}" > /dev/null
  perf script -F ip,brstack --show-mmap-events -i profile/app.data > profile/app.perf.script
else
  echo "no LBR on this CPU: recording with PGO_LBR_RECORDER=$recorder"
  "$recorder" --out profile/app.perf.script -- ./profile/app "${train_args[@]}" > /dev/null
  echo "writing its samples as perf.data with rules_pgo's test-only generator (not perf's own recording)"
  pgo_perfdata_from_script profile/app.perf.script profile/app.data
fi
ls -l profile

step "3. sample_profile //:app_afdo and 4. pgo_cc_binary //:optimized"
pgo_bazel build //:app_afdo //:optimized
ls -l "$bin/app_afdo.afdo"
"$bin/optimized" 1000

step "5. where the functions went"
sections() {
  # The .text.hot./.text.unlikely. sections of the compile outputs of the given aquery.
  local f
  for f in "$@"; do
    [ -f "$f" ] || continue
    { readelf -SW "$f" | grep -oE ' \.text\.(hot|unlikely)\.[^ ]+' || true; } | sort -u | sed "s|^ |  ${f##*/}: |"
  done
}
pgo_bazel aquery 'mnemonic("CppCompile", deps(//:optimized))' --output=jsonproto 2> /dev/null > profile/aq-opt.json
mapfile -t objs < <(check objects profile/aq-opt.json)
out=$(pgo_bazel info output_path 2> /dev/null)
opt=$(cd "$out/.." && sections "${objs[@]}")
echo "optimized (-fprofile-sample-use) objects:"
echo "$opt"
base=$(
  pgo_bazel aquery 'mnemonic("CppCompile", deps(//:app_sample_ready))' --output=jsonproto 2> /dev/null > profile/aq-base.json
  check --flag=-funique-internal-linkage-names objects profile/aq-base.json | (cd "$out/.." && mapfile -t o && sections "${o[@]}")
)
echo "sample-ready (unprofiled) objects: ${base:-no .text.hot./.text.unlikely. sections}"
hot=$(grep -c '\.text\.hot\.' <<< "$opt" || true)
cold=$(grep -c '\.text\.unlikely\.' <<< "$opt" || true)
if [ "$hot" -gt 0 ] && [ "$cold" -gt 0 ] && [ -z "$base" ]; then
  echo "OK: with the profile, $hot functions went to .text.hot. and $cold to .text.unlikely. (the linker groups them); the unprofiled build has none"
else
  echo "FAIL: expected hot and cold sections in the optimized objects only" >&2
  exit 1
fi
