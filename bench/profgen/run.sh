#!/usr/bin/env bash
# Side-by-side profgen benchmark: our tools/profgen against llvm-profgen-22
# on a trace of ≥ 1,000,000 LBR samples and its hybrid twin, in one run.
#
#   bench/profgen/run.sh [WORKDIR] [REPEATS]   # default out/bench/profgen, 3
#
# Builds bench/profgen/workload.cc with clang++-22 (many template kernels,
# virtual calls, a bytecode interpreter, recursion, inlined libstdc++) and
# records one run of it with ../shared/tools/lbr-trace: LBR-only samples
# and the hybrid samples (LBR + call stacks) of the same run. The recording
# takes minutes (qemu), so the traces are kept under WORKDIR in a directory
# named by the hash of the binary, lbr-trace and its arguments, and made
# only when missing.
#
# Then, for each case, llvm-profgen-22 and ours alternate REPEATS times
# (each run is one process: opening the binary, parsing, generating,
# writing); the medians of wall time, CPU time (user + sys) and peak RSS
# (/usr/bin/time) and their ratios ours/llvm are printed, and the outputs
# are compared. llvm-profgen runs on one core, ours on all: on a machine
# whose cores are busy with other work the wall ratio tends to the CPU
# ratio.
#   lbr-text  non-CS (AutoFDO) from the LBR trace, --format=text
#   lbr-ext   non-CS from the LBR trace, extbinary (both tools' default)
#   cs-text   CS (CSSPGO) from the hybrid trace, --format=text
#   cs-ext    CS from the hybrid trace, extbinary
#   cs-flat   CS from the hybrid trace, text, without the pre-inliner
#             (--csspgo-preinliner=false: the unwound contexts as they are)
# The CS cases run both tools with --gen-cs-nested-profile=false
# --csprof-merge-cold-context=false: llvm-profgen's defaults (a nested
# profile; cold-context merging when the pre-inliner is off) are not
# implemented by ours yet. cs-text and cs-ext run the pre-inliner (the
# default of both).
# Outputs: byte-identical where LLVM is deterministic; CS extbinary is
# compared after reading (llvm-profdata-22 show) when the bytes differ,
# since its FuncMetadata section follows the iteration order of LLVM's
# unordered_map, which is not reproduced (see tools/profgen compareCS).
# Goal (issue 11): ours ≤ 1/3 of llvm-profgen's wall time and ≤ 1/2 of its
# peak RSS in every case.
#
# Environment: PERIOD (37), JITTER (8), SAMPLES (1000000), SCALE (program
# argument, large enough not to end before SAMPLES), CASES (all four).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=${1:-$root/out/bench/profgen}
reps=${2:-3}
period=${PERIOD:-37}
jitter=${JITTER:-8}
samples=${SAMPLES:-1000000}
scale=${SCALE:-100000}
cases=${CASES:-lbr-text lbr-ext cs-text cs-ext cs-flat}
llvm=llvm-profgen-22
# shellcheck source=../lib.sh
source "$here/../lib.sh"
[ -x /usr/bin/time ] || { echo "run.sh: /usr/bin/time missing (apt-get install time)" >&2; exit 1; }
for t in clang++-22 "$llvm" llvm-profdata-22 qemu-x86_64; do
  command -v "$t" >/dev/null || { echo "run.sh: $t not found" >&2; exit 1; }
done
tracer=${LBR_TRACE:-${RULES_PGO_SHARED:-$root/../shared}/tools/lbr-trace}
[ -x "$tracer" ] || { echo "run.sh: lbr-trace not found (set LBR_TRACE or RULES_PGO_SHARED)" >&2; exit 1; }

mkdir -p "$work/bin"
work=$(cd "$work" && pwd)
(cd "$root" && go build -o "$work/bin/" ./tools/profgen)
ours=$work/bin/profgen

# The workload, rebuilt when its source or the compiler changes.
bin=$work/workload
flags="-O2 -g -fdebug-info-for-profiling -fno-omit-frame-pointer -Wno-deprecated-declarations"
stamp=$(cat "$here/workload.cc" <(clang++-22 --version) <(echo "$flags") | sha256sum | cut -c1-16)
if [ "$(cat "$bin.stamp" 2>/dev/null)" != "$stamp" ]; then
  (cd "$here" && clang++-22 $flags workload.cc -o "$bin")
  echo "$stamp" >"$bin.stamp"
fi

# The traces, keyed by content: the binary, lbr-trace and its arguments.
targs=(--period "$period" --jitter "$jitter" --pid 4242 --start-at-entry --max-samples "$samples")
key=$(cat "$bin" "$tracer" <(echo "${targs[*]} $scale") | sha256sum | cut -c1-16)
tdir=$work/traces-$key
if [ ! -f "$tdir/done" ]; then
  echo "== recording $samples samples with lbr-trace (a few minutes; kept in $tdir)"
  mkdir -p "$tdir"
  "$tracer" "${targs[@]}" --mode hybrid --out "$tdir/hybrid.script" --also "lbr=$tdir/lbr.script" -- "$bin" "$scale" 2>&1 | tail -3
  touch "$tdir/done"
fi
lbr=$tdir/lbr.script hyb=$tdir/hybrid.script
echo "traces: lbr $(du -h "$lbr" | cut -f1) ($(grep -c '^ ' "$lbr") samples), hybrid $(du -h "$hyb" | cut -f1); binary $(du -h "$bin" | cut -f1)"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores; $reps alternating runs per case, medians"

log=$work/stderr.log
: >"$log"
# quiet CMD...: the command with its stderr (warnings) appended to the log.
quiet() { "$@" 2>>"$log"; }
export -f quiet
export log

cd "$work"
cs=(--gen-cs-nested-profile=false --csprof-merge-cold-context=false)
for c in $cases; do
  case $c in
  lbr-text) trace=$lbr extra=(--format=text) ;;
  lbr-ext) trace=$lbr extra=(--format=extbinary) ;;
  cs-text) trace=$hyb extra=(--format=text "${cs[@]}") ;;
  cs-ext) trace=$hyb extra=(--format=extbinary "${cs[@]}") ;;
  cs-flat) trace=$hyb extra=(--format=text --csspgo-preinliner=false "${cs[@]}") ;;
  *) echo "run.sh: unknown case $c" >&2; exit 2 ;;
  esac
  args=(--perfscript="$trace" --binary="$bin" "${extra[@]}")
  lw=() lr=() lc=() ow=() or=() oc=()
  for _ in $(seq "$reps"); do
    rm -f llvm.$c; measure L bash -c 'quiet exec "$@"' _ "$llvm" "${args[@]}" --output=llvm.$c; lw+=("$L_wall") lr+=("$L_rss") lc+=("$L_cpu")
    rm -f ours.$c; measure O bash -c 'quiet exec "$@"' _ "$ours" "${args[@]}" --llvm-version 22 -o ours.$c; ow+=("$O_wall") or+=("$O_rss") oc+=("$O_cpu")
  done
  mlw=$(printf '%s\n' "${lw[@]}" | median) mlr=$(printf '%s\n' "${lr[@]}" | median) mlc=$(printf '%s\n' "${lc[@]}" | median)
  mow=$(printf '%s\n' "${ow[@]}" | median) mor=$(printf '%s\n' "${or[@]}" | median) moc=$(printf '%s\n' "${oc[@]}" | median)
  if cmp -s llvm.$c ours.$c; then same="byte-identical"
  elif [ "${c#*-}" = ext ] && cmp -s <(llvm-profdata-22 show --sample llvm.$c) <(llvm-profdata-22 show --sample ours.$c); then
    same="equal after reading (FuncMetadata order)"
  else same="OUTPUTS DIFFER"; fi
  printf '%-8s llvm %6.2fs (cpu %6.2fs) %7d KB | ours %6.2fs (cpu %5.2fs) %6d KB | ours/llvm wall %s cpu %s rss %s | %s\n' \
    "$c" "$mlw" "$mlc" "$mlr" "$mow" "$moc" "$mor" "$(ratio "$mow" "$mlw")" "$(ratio "$moc" "$mlc")" "$(ratio "$mor" "$mlr")" "$same"
done
