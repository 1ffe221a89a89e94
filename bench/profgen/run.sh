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
# (/usr/bin/time) and their ratios ours/llvm are printed, with the load
# average before and after the case, and the outputs are compared byte for
# byte. llvm-profgen runs on one core, ours on all: on a machine whose
# cores are busy with other work the wall ratio tends to the CPU ratio.
# Both tools get the same switches (ours adds --llvm-version 22).
#
# LLVM as a user runs it (llvm-profgen's defaults but --format):
#   lbr-text    non-CS (AutoFDO) from the LBR trace, --format=text
#   lbr-ext     non-CS from the LBR trace, extbinary (the default format)
#   cs-text     CS (CSSPGO) from the hybrid trace, text: pre-inlined and
#               nested, as llvm-profgen writes it by default
#   cs-ext      the same, extbinary
#   probe-lbr   non-CS probe-based profile: the LBR trace of the
#               -fpseudo-probe-for-profiling build, text
#   probe-cs    probe-based CS from its hybrid trace, text, defaults
#               (pre-inlined, nested, !CFGChecksum and !Attributes)
#   probe-ext   the same, extbinary
# From perf.data (the traces written as perf.data by the tests' generator,
# internal/perfdata/perfdatatest, once): LLVM's path is llvm-profgen
# --perfdata, which runs `perf script` (perf must be on PATH); ours reads
# the file natively.
#   data-lbr    non-CS from the LBR perf.data, text
#   data-cs     CS from the hybrid perf.data, text. perf 6.1 prints stack
#               frames in known mappings as file offsets, which changes
#               llvm-profgen's CS profile: ours is compared with
#               llvm-profgen --perfscript on the trace instead (printed
#               as "vs the trace").
#   data-cl     non-CS from the LBR perf.data, text, also against
#               create_llvm_prof (Debian's autofdo 0.19, which reads
#               perf.data itself) where it applies: it reads DWARF 4 only
#               and the file as perf < 5.7 wrote it (no hw_idx) with the
#               process's COMM record (bench/README.md). So the workload is
#               built once more with -gdwarf-4 (its code must be the same
#               bytes: checked, or the case is skipped), the LBR trace's
#               mapping renamed to that build, and all three tools read that
#               file; printed: llvm, ours, then "create_llvm_prof" with
#               ours/create_llvm_prof ratios and whether its profile is
#               empty.
# The LLVM setting that produces flat output:
#   cs-flat     CS, text, --gen-cs-nested-profile=false (pre-inliner on):
#               one flat profile per context
#   cs-raw      CS, text, --csspgo-preinliner=false
#               --gen-cs-nested-profile=false --csprof-merge-cold-context=false:
#               the unwound contexts as they are
# Start-up (issue 22: loading the binary dominates):
#   big-lbr     non-CS, extbinary, from ≤ 50,000 LBR samples (BIG_SAMPLES)
#               of testdata/bigcxx built with one unit (3 MB, clang++-19
#               -O2 -g)
#   big-cs      CS from the hybrid twin of that trace, extbinary
#   (goal: ours ≤ 1/4 of llvm-profgen's wall and ≤ 1/2 of its peak RSS)
# Goal (issues 11 and 12): ours ≤ 1/3 of llvm-profgen's wall time and
# ≤ 1/2 of its peak RSS in every case, same bytes.
#
# Environment: PERIOD (37), JITTER (8), SAMPLES (1000000), SCALE (program
# argument, large enough not to end before SAMPLES), CASES (all of the
# above; CASES= records the traces only).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=${1:-$root/out/bench/profgen}
reps=${2:-3}
period=${PERIOD:-37}
jitter=${JITTER:-8}
samples=${SAMPLES:-1000000}
scale=${SCALE:-100000}
cases=${CASES-lbr-text lbr-ext cs-text cs-ext cs-flat cs-raw probe-lbr probe-cs probe-ext big-lbr big-cs data-lbr data-cs data-cl}
big_samples=${BIG_SAMPLES:-50000}
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

# The workloads, rebuilt when the source or the compiler changes: the
# DWARF-based one and the pseudo-probe one (-fpseudo-probe-for-profiling).
flags="-O2 -g -fdebug-info-for-profiling -fno-omit-frame-pointer -Wno-deprecated-declarations"
build() { # OUT EXTRA-FLAGS
  local out=$1 f="$flags $2" stamp
  stamp=$(cat "$here/workload.cc" <(clang++-22 --version) <(echo "$f") | sha256sum | cut -c1-16)
  if [ "$(cat "$out.stamp" 2>/dev/null)" != "$stamp" ]; then
    (cd "$here" && clang++-22 $f workload.cc -o "$out")
    echo "$stamp" >"$out.stamp"
  fi
}
bin=$work/workload pbin=$work/workload-probe
build "$bin" ""
build "$pbin" "-fpseudo-probe-for-profiling"

# The traces, keyed by content: the binary, lbr-trace and its arguments.
# Both binaries are recorded at once (two qemu processes) when missing.
targs=(--period "$period" --jitter "$jitter" --pid 4242 --start-at-entry --max-samples "$samples")
tracedir() { echo "$work/traces-$(cat "$1" "$tracer" <(echo "${targs[*]} $scale") | sha256sum | cut -c1-16)"; }
record() { # BINARY DIR
  echo "== recording $samples samples of $(basename "$1") with lbr-trace (minutes; kept in $2)"
  mkdir -p "$2"
  "$tracer" "${targs[@]}" --mode hybrid --out "$2/hybrid.script" --also "lbr=$2/lbr.script" -- "$1" "$scale" 2>&1 | tail -3
  touch "$2/done"
}
# The 1,000,000-sample traces are recorded unless only start-up cases run.
main_cases=$(printf '%s\n' $cases | grep -v '^big-' || true)
if [ -n "$main_cases" ] || [ -z "$cases" ]; then
  tdir=$(tracedir "$bin") pdir=$(tracedir "$pbin")
  [ -f "$tdir/done" ] || record "$bin" "$tdir" &
  [ -f "$pdir/done" ] || record "$pbin" "$pdir" &
  wait
  [ -f "$tdir/done" ] && [ -f "$pdir/done" ] || { echo "run.sh: recording failed" >&2; exit 1; }
  lbr=$tdir/lbr.script hyb=$tdir/hybrid.script plbr=$pdir/lbr.script phyb=$pdir/hybrid.script
  echo "traces: lbr $(du -h "$lbr" | cut -f1) ($(grep -c '^ ' "$lbr") samples), hybrid $(du -h "$hyb" | cut -f1); binary $(du -h "$bin" | cut -f1)"
  echo "probe traces: lbr $(du -h "$plbr" | cut -f1) ($(grep -c '^ ' "$plbr") samples), hybrid $(du -h "$phyb" | cut -f1); binary $(du -h "$pbin" | cut -f1)"
fi
# The start-up workload: bigcxx with one unit (3 MB, mostly DWARF) and a
# short trace of it (period 5, the program given 8 arguments so that it
# runs long enough), recorded when missing.
if [[ " $cases " == *" big-"* ]]; then
  big=$work/bigcxx/bigcxx
  [ -x "$big" ] || "$root/testdata/bigcxx/build.sh" "$work/bigcxx" 1 >/dev/null
  bdir=$work/traces-big-$(cat "$big" "$tracer" <(echo "$big_samples") | sha256sum | cut -c1-16)
  if [ ! -f "$bdir/done" ]; then
    mkdir -p "$bdir"
    "$tracer" --period 5 --jitter 2 --pid 4242 --start-at-entry --max-samples "$big_samples" --mode hybrid \
      --out "$bdir/hybrid.script" --also "lbr=$bdir/lbr.script" -- "$big" a b c d e f g h 2>&1 | tail -1
    touch "$bdir/done"
  fi
  echo "start-up traces: lbr $(du -h "$bdir/lbr.script" | cut -f1) ($(grep -c '^ ' "$bdir/lbr.script") samples), hybrid $(du -h "$bdir/hybrid.script" | cut -f1); binary $(du -h "$big" | cut -f1)"
fi
echo "load: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores; $reps alternating runs per case, medians"
[ -n "$cases" ] || exit 0

# perf.data of the traces, for the data-* cases.
todata() { # TRACE OUT [ENV...]
  if [ ! -f "$2" ] || [ "$2" -ot "$1" ]; then
    (cd "$root" && env "${@:3}" PERFDATATEST_TRACE=$1 PERFDATATEST_OUT=$2.tmp go test -count=1 -run '^TestWriteFromScript$' ./internal/perfdata/perfdatatest/ >/dev/null)
    mv "$2.tmp" "$2"
  fi
}
case " $cases " in *" data-"*)
  command -v perf >/dev/null || { echo "run.sh: perf not found (the data-* cases run llvm-profgen --perfdata)" >&2; exit 1; }
  todata "$lbr" "$tdir/lbr.data"
  todata "$hyb" "$tdir/hybrid.data"
  echo "perf.data: lbr $(du -h "$tdir/lbr.data" | cut -f1), hybrid $(du -h "$tdir/hybrid.data" | cut -f1)" ;;
esac
# data-cl: the DWARF 4 build, the trace renamed to it, as create_llvm_prof reads it.
case " $cases " in *" data-cl "*)
  command -v create_llvm_prof >/dev/null || { echo "run.sh: create_llvm_prof not found (apt-get install autofdo)" >&2; exit 1; }
  mkdir -p "$work/dwarf4"
  d4=$work/dwarf4/workload
  build "$d4" "-gdwarf-4 -Wl,--build-id"
  objcopy -O binary --only-section=.text "$bin" "$work/dwarf4/text.5"
  objcopy -O binary --only-section=.text "$d4" "$work/dwarf4/text.4"
  if cmp -s "$work/dwarf4/text.5" "$work/dwarf4/text.4"; then
    if [ ! -f "$tdir/lbr-d4.script" ] || [ "$tdir/lbr-d4.script" -ot "$lbr" ] || [ "$tdir/lbr-d4.script" -ot "$d4" ]; then
      sed "/^PERF_RECORD_MMAP2 /s| $bin\$| $d4|" "$lbr" > "$tdir/lbr-d4.script.tmp" && mv "$tdir/lbr-d4.script.tmp" "$tdir/lbr-d4.script"
      rm -f "$tdir/lbr-cl.data"
    fi
    todata "$tdir/lbr-d4.script" "$tdir/lbr-cl.data" PERFDATATEST_NO_HW_INDEX=1 PERFDATATEST_COMM=4242:workload \
      PERFDATATEST_BUILD_ID="$(readelf -n "$d4" | sed -n 's/.*Build ID: //p')" PERFDATATEST_BUILD_ID_FILE="$d4"
    echo "perf.data for create_llvm_prof: $(du -h "$tdir/lbr-cl.data" | cut -f1) (DWARF 4 build, same code)"
  else
    echo "run.sh: data-cl skipped: the -gdwarf-4 build's .text differs from the workload's, the trace does not apply" >&2
    cases=$(printf '%s\n' $cases | grep -vx data-cl || true)
  fi ;;
esac

log=$work/stderr.log
: >"$log"
# quiet CMD...: the command with its stderr (warnings) appended to the log.
quiet() { "$@" 2>>"$log"; }
export -f quiet
export log

cd "$work"
for c in $cases; do
  case $c in
  lbr-text) trace=$lbr b=$bin extra=(--format=text) ;;
  lbr-ext) trace=$lbr b=$bin extra=(--format=extbinary) ;;
  cs-text) trace=$hyb b=$bin extra=(--format=text) ;;
  cs-ext) trace=$hyb b=$bin extra=(--format=extbinary) ;;
  cs-flat) trace=$hyb b=$bin extra=(--format=text --gen-cs-nested-profile=false) ;;
  cs-raw) trace=$hyb b=$bin extra=(--format=text --csspgo-preinliner=false --gen-cs-nested-profile=false --csprof-merge-cold-context=false) ;;
  probe-lbr) trace=$plbr b=$pbin extra=(--format=text) ;;
  probe-cs) trace=$phyb b=$pbin extra=(--format=text) ;;
  probe-ext) trace=$phyb b=$pbin extra=(--format=extbinary) ;;
  big-lbr) trace=$bdir/lbr.script b=$big extra=(--format=extbinary) ;;
  big-cs) trace=$bdir/hybrid.script b=$big extra=(--format=extbinary) ;;
  data-lbr) trace=$tdir/lbr.data b=$bin extra=(--format=text) ;;
  data-cs) trace=$tdir/hybrid.data b=$bin extra=(--format=text) ;;
  data-cl) trace=$tdir/lbr-cl.data b=$d4 extra=(--format=text) ;;
  *) echo "run.sh: unknown case $c" >&2; exit 2 ;;
  esac
  load0=$(cut -d' ' -f1 /proc/loadavg)
  input=--perfscript
  case $c in data-*) input=--perfdata ;; esac
  args=("$input=$trace" --binary="$b" "${extra[@]}")
  lw=() lr=() lc=() ow=() or=() oc=() cw=() cr=() cc=()
  for _ in $(seq "$reps"); do
    rm -f llvm.$c; measure L bash -c 'quiet exec "$@"' _ "$llvm" "${args[@]}" --output=llvm.$c; lw+=("$L_wall") lr+=("$L_rss") lc+=("$L_cpu")
    rm -f ours.$c; measure O bash -c 'quiet exec "$@"' _ "$ours" "${args[@]}" --llvm-version 22 -o ours.$c; ow+=("$O_wall") or+=("$O_rss") oc+=("$O_cpu")
    if [ "$c" = data-cl ]; then
      rm -f cl.$c; measure C bash -c 'quiet "$@"; exit 0' _ create_llvm_prof --profile="$trace" --binary="$b" --format=text --out=cl.$c; cw+=("$C_wall") cr+=("$C_rss") cc+=("$C_cpu")
    fi
  done
  mlw=$(printf '%s\n' "${lw[@]}" | median) mlr=$(printf '%s\n' "${lr[@]}" | median) mlc=$(printf '%s\n' "${lc[@]}" | median)
  mow=$(printf '%s\n' "${ow[@]}" | median) mor=$(printf '%s\n' "${or[@]}" | median) moc=$(printf '%s\n' "${oc[@]}" | median)
  if cmp -s llvm.$c ours.$c; then same="byte-identical"; else same="OUTPUTS DIFFER"; fi
  if [ "$c" = data-cs ]; then
    quiet "$llvm" --perfscript="$hyb" --binary="$b" "${extra[@]}" --output=llvm.$c.trace
    if cmp -s llvm.$c.trace ours.$c; then same="$same; vs the trace: byte-identical"; else same="$same; vs the trace: OUTPUTS DIFFER"; fi
  fi
  printf '%-9s llvm %6.2fs (cpu %6.2fs) %7d KB | ours %6.2fs (cpu %5.2fs) %6d KB | ours/llvm wall %s cpu %s rss %s | load %s-%s | %s\n' \
    "$c" "$mlw" "$mlc" "$mlr" "$mow" "$moc" "$mor" "$(ratio "$mow" "$mlw")" "$(ratio "$moc" "$mlc")" "$(ratio "$mor" "$mlr")" "$load0" "$(cut -d' ' -f1 /proc/loadavg)" "$same"
  if [ "$c" = data-cl ]; then
    mcw=$(printf '%s\n' "${cw[@]}" | median) mcr=$(printf '%s\n' "${cr[@]}" | median) mcc=$(printf '%s\n' "${cc[@]}" | median)
    if [ -s cl.$c ]; then cl="profile of $(grep -c '^[^ ]' cl.$c) functions"; else cl="EMPTY profile"; fi
    printf '%-9s create_llvm_prof %6.2fs (cpu %6.2fs) %7d KB | ours/create_llvm_prof wall %s cpu %s rss %s | %s\n' \
      "" "$mcw" "$mcc" "$mcr" "$(ratio "$mow" "$mcw")" "$(ratio "$moc" "$mcc")" "$(ratio "$mor" "$mcr")" "$cl"
  fi
done
